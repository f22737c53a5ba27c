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
