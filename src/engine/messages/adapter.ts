/**
 * The contract every provider format implements, plus the small helpers the
 * adapters share (type checks that throw MessageFormatError, timestamps, tool input
 * conversion, data URLs).
 *
 * Validation is hand-written on purpose: it runs on every request, and checking a
 * few `typeof`s per message is far cheaper than a schema library. Field paths are
 * only built when something is wrong.
 */
import type { CanonicalConversation, CanonicalMessage, CanonicalPart, MessageFormat } from './canonical.ts'
import { MessageFormatError } from './errors.ts'
import type { RequestWire } from './request-wire.ts'

export interface FormatAdapter<F extends string = MessageFormat> {
  /** The format's name in requests (`format`), responses and stored sessions. */
  readonly format: F
  /** The format's name for people: error messages, docs. */
  readonly label: string
  /** How detectFormat (detect.ts) tells this format's messages from the others'. */
  readonly detection: FormatDetection
  /**
   * Top-level fields of a message that the sessions store for aging (a message's time)
   * but this format's provider refuses: dropped from what GET /context returns.
   */
  readonly timestampFields: readonly string[]
  /** Validate and parse. Throws MessageFormatError naming the index and field. `system` is Anthropic's top-level system (ignored by others). */
  parse(messages: readonly unknown[], system?: unknown): CanonicalConversation
  /**
   * Serialize to this format. Messages whose `format` equals this adapter's format are
   * emitted as their `raw` object untouched (same reference). Others are built from
   * their parts (cross-format conversion). For Anthropic, system/developer messages go to
   * the returned top-level `system`, tool-role results become user messages with
   * tool_result blocks placed first, consecutive same-role messages are merged so roles
   * alternate, and the conversation starts with a user message.
   */
  serialize(messages: readonly CanonicalMessage[]): { messages: unknown[]; system?: unknown }
  /** A new text message in this format (used for summaries). Anthropic: a system or developer text goes to the top-level `system`. */
  createTextMessage(role: 'system' | 'developer' | 'user' | 'assistant', text: string): CanonicalMessage
  /** Copy of the message with one tool result's content replaced by text (masking). Keeps every other field of raw, and the result's id/is_error. */
  withToolResultText(message: CanonicalMessage, callId: string, text: string): CanonicalMessage
  /** Copy of the message with one tool call's arguments replaced (clearing large inputs). */
  withToolCallArgs(message: CanonicalMessage, callId: string, argsText: string): CanonicalMessage
  /**
   * Copy of the message with its text parts replaced by one text part holding `text`, at
   * the first text part's position; every other part (tool calls, reasoning, images,
   * results, opaque blocks) and every other field of raw untouched. String content stays
   * a string. `text` '' removes the text: no text part is left, nor an empty text block
   * (which a provider would refuse). Returns the message itself when it has no text part.
   */
  withText(message: CanonicalMessage, text: string): CanonicalMessage
  /**
   * Copy of the message without its (first) tool result answering `callId`; null when
   * nothing would remain (an OpenAI tool message, a user message holding only that
   * result). Throws when the message has no such result.
   */
  withoutToolResult(message: CanonicalMessage, callId: string): CanonicalMessage | null
  /**
   * Copy of the message without its reasoning parts (Anthropic thinking and
   * redacted_thinking blocks, AI SDK reasoning parts, Responses reasoning items), for the
   * thinking policy; every other part and field of raw untouched. null when nothing else
   * would remain. The message itself when it has none, or when the provider requires its
   * reasoning to stay (a Responses reasoning item whose turn's items carry server `id`s:
   * the API refuses those items without the reasoning item they came with).
   */
  withoutReasoning(message: CanonicalMessage): CanonicalMessage | null
  /**
   * New message(s) answering `calls` with `text`, in this format: OpenAI one `tool`
   * message per call (a `function` message for the legacy `function_call` of
   * `callMessage`), Anthropic one user message of tool_result blocks, AI SDK one `tool`
   * message of tool-result parts. Parsed as `parse` would parse them after `callMessage`
   * (so results carry tool names wherever the format does); index CREATED_INDEX. No
   * calls: no messages.
   */
  createToolResults(callMessage: CanonicalMessage, calls: readonly { id: string; name: string }[], text: string): CanonicalMessage[]
  /**
   * A new assistant message with `text` (none when '') and the given tool calls, in this
   * format; parsed as `parse` would parse it; index CREATED_INDEX. With createTextMessage
   * and createToolResults it writes any conversation the engine or a test drafts.
   */
  createToolCalls(text: string, calls: readonly { id: string; name: string; argsText: string }[]): CanonicalMessage
  /**
   * Path of a tool call's id in the caller's message, for error messages: `ordinal` counts
   * the message's calls, `partIndex` its parts.
   */
  callIdField(message: CanonicalMessage, ordinal: number, partIndex: number): string
  /** The provider endpoint whose request body carries this format's messages (the proxy's); none for a format no provider serves (AI SDK). */
  readonly request?: RequestWire
}

/**
 * What detectFormat needs to know of a format: which roles, top-level fields, content
 * shapes and content part types its messages can have. Detection asks every format about
 * every such feature of the messages; a feature some formats take and others do not
 * narrows the candidates (detect.ts).
 */
export interface FormatDetection {
  /** Whether the format takes a system prompt apart from the messages (Anthropic's top-level `system`). */
  readonly topLevelSystem: boolean
  /** Roles a message of this format may have. */
  readonly roles: readonly string[]
  /** Top-level message fields only this format's messages carry (when present and not null). */
  readonly fields: readonly string[]
  /** Whether a message of this role may have `content: null`. */
  nullContent(role: unknown): boolean
  /** Whether a message of this role may have string content. */
  stringContent(role: unknown): boolean
  /** Whether a content part (an object with a string `type`) can be of this format. */
  part(part: JsonObject): boolean
  /** When several formats fit an array equally, the lowest rank is chosen. */
  readonly rank: number
}

/** Index given to messages the engine creates (they are not in the caller's array). */
export const CREATED_INDEX = -1

export type JsonObject = Record<string, unknown>

export function isRecord(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** "a string", "an array", "null"... for error messages. */
export function typeName(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  switch (typeof value) {
    case 'string':
      return 'a string'
    case 'object':
      return 'an object'
    case 'undefined':
      return 'nothing'
    default:
      return `a ${typeof value}`
  }
}

export function fail(index: number | null, field: string, reason: string): never {
  throw new MessageFormatError(field, reason, index)
}

/**
 * Throws "<field>: expected <what> (<hint>), got <type>", or "<field>: missing; expected
 * <what> (<hint>)" when the field is absent.
 */
export function expected(index: number | null, field: string, what: string, got: unknown, hint?: string): never {
  const why = hint ? ` (${hint})` : ''
  if (got === undefined) fail(index, field, `missing; expected ${what}${why}`)
  fail(index, field, `expected ${what}${why}, got ${typeName(got)}`)
}

export function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0
}

/** `Date#toISOString()` output for years 0000-9999. */
const CANONICAL_ISO = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/

/** The ISO timestamp carried by a message (`timestamp` or `createdAt`), normalized; undefined when absent or unparsable. */
export function timestampOf(raw: JsonObject): string | undefined {
  const value = raw.timestamp ?? raw.createdAt
  if (value === undefined) return undefined
  let ms: number
  if (typeof value === 'string') {
    if (CANONICAL_ISO.test(value)) return value // already normalized: skip the (slow) date round trip
    ms = Date.parse(value)
  } else if (typeof value === 'number') ms = value
  else if (value instanceof Date) ms = value.getTime()
  else return undefined
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : undefined
}

/** JSON text of a value, '' for undefined (so it never yields the non-string `undefined`). */
export function jsonText(value: unknown): string {
  return value === undefined ? '' : (JSON.stringify(value) ?? '')
}

/**
 * Tool input object for formats whose tool input must be a JSON object (Anthropic, AI SDK),
 * from an arguments string. A JSON object is used as is; empty arguments mean `{}`;
 * anything else is wrapped as `{ [wrapKey]: argsText }` so no text is lost.
 */
export function inputFromArgsText(argsText: string, wrapKey: string): JsonObject {
  if (argsText.trim() === '') return {}
  try {
    const value: unknown = JSON.parse(argsText)
    if (isRecord(value)) return value
  } catch {
    // not JSON: wrap below
  }
  return { [wrapKey]: argsText }
}

/** Key used when replaced (compacted) tool arguments are not a JSON object. */
export const COMPACTED_ARGS_KEY = '_compacted'
/** Key used when converted tool arguments (e.g. OpenAI's string) are not a JSON object. */
export const CONVERTED_ARGS_KEY = '_arguments'

/** Splits `data:<mediaType>;base64,<data>`; undefined for other URLs. */
export function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const match = /^data:([^;,]*)(?:;[^,]*)?;base64,/.exec(url)
  if (!match) return undefined
  return { mediaType: match[1] || 'application/octet-stream', data: url.slice(match[0].length) }
}

/** Stands in for an image another format cannot take (one given by file id or raw bytes). */
export const UNCONVERTIBLE_IMAGE_TEXT = '[image]'

export function toDataUrl(mediaType: string | undefined, data: string): string {
  return `data:${mediaType ?? 'application/octet-stream'};base64,${data}`
}

/** Copy of an array with one element replaced. */
export function replaceAt<T>(items: readonly T[], at: number, value: T): T[] {
  const copy = items.slice()
  copy[at] = value
  return copy
}

/** Guards the with* helpers: a message must be edited by the adapter of its own format. */
export function assertOwnFormat(format: MessageFormat, message: CanonicalMessage): void {
  if (message.format !== format) {
    throw new Error(`message ${message.index} is in ${message.format} format; edit it with getAdapter('${message.format}')`)
  }
}

/**
 * The message without element `j` of its `content` array (and the part at the same index:
 * formats whose parts follow their content elements one to one), or null when it was the
 * only element, so the message goes too.
 */
export function withoutContentElement(message: CanonicalMessage, j: number): CanonicalMessage | null {
  const raw = message.raw as JsonObject
  const content = raw.content as unknown[]
  if (content.length === 1) return null
  return {
    ...message,
    raw: { ...raw, content: content.filter((_, k) => k !== j) },
    parts: message.parts.filter((_, k) => k !== j),
  }
}

/**
 * Copy of a message whose parts are one per element of `raw.content` without the
 * reasoning parts' elements; null when none would remain; the message itself without
 * reasoning (or with string content).
 */
export function withoutReasoningElements(message: CanonicalMessage): CanonicalMessage | null {
  if (!message.parts.some((p) => p.type === 'reasoning')) return message
  const raw = message.raw as JsonObject
  const content = raw.content
  if (!Array.isArray(content) || content.length !== message.parts.length) return message
  const keep = message.parts.map((p) => p.type !== 'reasoning')
  if (!keep.includes(true)) return null
  return { ...message, raw: { ...raw, content: content.filter((_, k) => keep[k]) }, parts: message.parts.filter((_, k) => keep[k]) }
}

export function missingToolPart(message: CanonicalMessage, kind: 'call' | 'result', callId: string): never {
  throw new Error(`message ${message.index} has no tool ${kind} with id ${JSON.stringify(callId)}`)
}

/** Index of the first part of the given kind with the given call id, or -1. */
export function findToolPart(parts: readonly CanonicalPart[], kind: 'tool-call' | 'tool-result', callId: string): number {
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]
    if (part.type === 'tool-call' && kind === 'tool-call' && part.id === callId) return i
    if (part.type === 'tool-result' && kind === 'tool-result' && part.callId === callId) return i
  }
  return -1
}

/**
 * Remembers tool names by call id while serializing, so results in formats that need the
 * name (AI SDK) can be given it even when the source format (Anthropic) does not carry it.
 */
export class ToolNames {
  private readonly names = new Map<string, string>()

  /** Records the calls of a message; call before handling its results. */
  note(message: CanonicalMessage): void {
    for (const part of message.parts) if (part.type === 'tool-call') this.names.set(part.id, part.name)
  }

  nameOf(callId: string, given?: string): string {
    return given ?? this.names.get(callId) ?? 'unknown_tool'
  }
}

/**
 * Signature of a reasoning part, read from the block it was parsed from, so it survives
 * conversion between Anthropic and the AI SDK (Anthropic rejects unsigned thinking).
 * Relies on both adapters parsing array content into exactly one part per block.
 * Anthropic `thinking.signature`; AI SDK v4 `signature`, or v5
 * `providerOptions.anthropic.signature` (also `providerMetadata`, as returned by the SDK).
 */
export function reasoningSignature(message: CanonicalMessage, partIndex: number): string | undefined {
  const raw = message.raw
  if (!isRecord(raw) || !Array.isArray(raw.content)) return undefined
  const block: unknown = raw.content[partIndex]
  if (!isRecord(block)) return undefined
  if (typeof block.signature === 'string') return block.signature
  for (const key of ['providerOptions', 'providerMetadata', 'experimental_providerMetadata']) {
    const options = block[key]
    if (isRecord(options) && isRecord(options.anthropic) && typeof options.anthropic.signature === 'string') {
      return options.anthropic.signature
    }
  }
  return undefined
}

/** Index of the first text part, or -1. */
export function firstTextPart(parts: readonly CanonicalPart[]): number {
  return parts.findIndex((p) => p.type === 'text')
}

/**
 * `withText` on canonical parts: the first text part becomes `text` (or is dropped, when
 * the format writes that text as an empty string, which parses to no part), later text
 * parts are dropped.
 */
export function replaceTextParts(parts: readonly CanonicalPart[], text: string, drop: boolean): CanonicalPart[] {
  const out: CanonicalPart[] = []
  let placed = false
  for (const part of parts) {
    if (part.type !== 'text') out.push(part)
    else if (!placed) {
      placed = true
      if (!drop) out.push({ type: 'text', text })
    }
  }
  return out
}

/**
 * `withText` on array content whose elements are parts[0..content.length) one to one
 * (how the adapters parse arrays): the first text element is rewritten by `edit` (or
 * dropped too with `drop`), later text elements are dropped, everything else is kept as
 * is (same references).
 */
export function replaceTextElements(content: readonly unknown[], parts: readonly CanonicalPart[], edit: (element: JsonObject) => JsonObject, drop = false): unknown[] {
  const out: unknown[] = []
  let placed = false
  for (let j = 0; j < content.length; j++) {
    if (parts[j]?.type !== 'text') out.push(content[j])
    else if (!placed) {
      placed = true
      if (!drop) out.push(edit(content[j] as JsonObject))
    }
  }
  return out
}
