/**
 * What a format knows of a provider's whole request body, for the proxy (issue 23): which
 * endpoint speaks it, where the conversation sits in the body, how a compacted
 * conversation goes back in, and the provider's error shape. Each format's folder
 * implements it (request.ts) for the endpoint that takes its messages; nothing else
 * builds these bodies.
 */
/** A JSON object (adapter.ts's JsonObject; declared here too, since adapter.ts imports this file). */
type JsonObject = Record<string, unknown>

export type UpstreamProvider = 'openai' | 'anthropic'

/** The kinds of error the proxy reports itself, mapped to each provider's own type names. */
export type ProxyErrorKind = 'invalid_request' | 'context_length_exceeded' | 'authentication' | 'rate_limit' | 'overloaded' | 'upstream_unreachable' | 'internal'

/** The conversation in a request body: what compaction may change. */
export interface RequestConversation {
  messages: unknown[]
  /** A top-level system prompt (Anthropic `system`, Responses `instructions`): counted, and kept. */
  system?: unknown
}

/** A function tool the proxy adds to a request (the recall loop's search_context). */
export interface ProxyTool {
  name: string
  description: string
  /** JSON Schema of its arguments. */
  parameters: JsonObject
}

/** A call of a tool in a provider's (non-streamed) response. */
export interface ResponseToolCall {
  id: string
  name: string
  /** Its arguments as an object (unparseable arguments: {}). */
  input: JsonObject
}

export interface RequestWire {
  /** The path compactd serves for it, e.g. '/v1/chat/completions'. */
  readonly path: string
  /** Which configured upstream the request goes on to. */
  readonly upstream: UpstreamProvider
  /** Path after the upstream's base URL (OpenAI's base ends in /v1, Anthropic's does not). */
  readonly upstreamPath: string
  /**
   * The conversation of a body, or a sentence saying why there is none to compact (Responses
   * with `previous_response_id`: the provider holds the history; a string input). Throws
   * nothing: a malformed body goes on to the provider, which words its own error.
   */
  conversationOf(body: JsonObject): RequestConversation | { none: string }
  /** The body with its conversation replaced; every other field kept, in its order. */
  withConversation(body: JsonObject, conversation: RequestConversation): JsonObject
  /** The provider's error body for an error compactd itself reports on this endpoint. */
  errorBody(kind: ProxyErrorKind, message: string): JsonObject
  /** The body with one more function tool, after the caller's (the recall loop). */
  withTool(body: JsonObject, tool: ProxyTool): JsonObject
  /** The tool calls of a non-streamed response of this endpoint (none: a final answer). */
  callsOf(response: JsonObject): ResponseToolCall[]
  /** The body continued: the response's assistant turn, then each call's answer as its tool result. */
  withAnswers(body: JsonObject, response: JsonObject, answers: readonly { id: string; text: string }[]): JsonObject
}

/** A tool call's arguments as an object, whatever the provider sent. */
export function argumentsOf(value: unknown): JsonObject {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as JsonObject
  if (typeof value !== 'string') return {}
  try {
    const parsed: unknown = JSON.parse(value)
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as JsonObject) : {}
  } catch {
    return {}
  }
}

/** The array a body holds at `key`, or an empty one. */
export function arrayAt(body: JsonObject, key: string): unknown[] {
  const v = body[key]
  return Array.isArray(v) ? v : []
}

/** A copy of `body` with `key` set: in its place when present, last when not (JSON key order is the body's bytes). */
export function withField(body: JsonObject, key: string, value: unknown): JsonObject {
  if (value === undefined) {
    if (!(key in body)) return body
    const { [key]: _dropped, ...rest } = body
    return rest
  }
  return { ...body, [key]: value }
}

/** OpenAI's error body (Chat Completions and Responses share it). */
export function openaiErrorBody(kind: ProxyErrorKind, message: string): JsonObject {
  const type = kind === 'authentication' ? 'authentication_error' : kind === 'rate_limit' ? 'rate_limit_error' : kind === 'internal' || kind === 'upstream_unreachable' || kind === 'overloaded' ? 'server_error' : 'invalid_request_error'
  const code = kind === 'context_length_exceeded' ? 'context_length_exceeded' : kind === 'upstream_unreachable' ? 'upstream_unreachable' : kind === 'invalid_request' ? 'invalid_request' : null
  return { error: { message, type, param: kind === 'context_length_exceeded' ? 'messages' : null, code } }
}

/** The body asking for one whole answer: no `stream`, no `stream_options` (the recall loop's rounds). */
export function withoutStreaming(body: JsonObject): JsonObject {
  const { stream: _stream, stream_options: _options, ...rest } = body
  return rest
}
