/**
 * The one message model used inside compactd.
 *
 * Adapters (one folder per format, listed in registry.ts) translate provider formats to and
 * from this model at the edge. Every canonical message keeps the exact object it
 * was parsed from (`raw`), so a message the engine keeps is written back
 * byte-for-byte, and adapters can round-trip fields they do not understand.
 */

/**
 * The wire formats' names. Each format's folder adds its own name here by declaration
 * merging (`declare module '../canonical.ts'` in its index.ts), so this module, which every
 * format imports, imports none of them (no cycle), and the list is still written once:
 * registry.ts lists the adapters and checks that every name has one.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface MessageFormatNames {}
export type MessageFormat = keyof MessageFormatNames & string

export type CanonicalRole = 'system' | 'developer' | 'user' | 'assistant' | 'tool'

export interface TextPart {
  type: 'text'
  text: string
}

/** Model reasoning: Anthropic `thinking`/`redacted_thinking`, AI SDK `reasoning`, a Responses `reasoning` item's summary (its encrypted content stays in raw). */
export interface ReasoningPart {
  type: 'reasoning'
  text: string
  /** Anthropic signs thinking blocks; a redacted block carries only opaque data. */
  redacted?: boolean
}

export interface ImagePart {
  type: 'image'
  /** Media type when known, e.g. image/png. */
  mediaType?: string
  /** Remote URL, or a data: URL, when the image is given by address. */
  url?: string
  /** Base64 payload when the image is inline. */
  data?: string
}

export interface ToolCallPart {
  type: 'tool-call'
  id: string
  name: string
  /** Arguments exactly as the provider sent them, serialized (OpenAI sends a JSON string). */
  argsText: string
}

export interface ToolResultPart {
  type: 'tool-result'
  callId: string
  /** Tool name when the format carries it (AI SDK, OpenAI `name`), else resolved from the call. */
  name?: string
  /** The result flattened to text, for counting and summarising. */
  text: string
  isError?: boolean
}

/** A block this model does not interpret (documents, citations, server tools...). Counted as JSON. */
export interface OpaquePart {
  type: 'opaque'
  /** Its JSON; for media, with the payload replaced by a note of its type and size (messages/media.ts). */
  text: string
  /** Audio, a document or a file: counted by the provider's rule for its kind and size (tokens/media.ts), never by its bytes. */
  media?: MediaInfo
}

/** What counting needs of an audio, document or file part (or an image in a block this model does not know). */
export interface MediaInfo {
  kind: 'image' | 'audio' | 'document' | 'file'
  mediaType?: string
  /** Decoded size of an inline payload; absent when the part refers to a file by id or URL. */
  bytes?: number
  /** Pages of a PDF, where its page objects can be read. */
  pages?: number
  /** Bytes per second of a WAV payload, from its header. */
  byteRate?: number
}

export type CanonicalPart = TextPart | ReasoningPart | ImagePart | ToolCallPart | ToolResultPart | OpaquePart

export interface CanonicalMessage {
  role: CanonicalRole
  parts: CanonicalPart[]
  /** Index in the caller's `messages` array; -1 for Anthropic's top-level `system`. */
  index: number
  /** ISO timestamp when the message carries one (`timestamp`, `createdAt`). */
  timestamp?: string
  /** OpenAI `name` (participant or tool name). */
  name?: string
  /** The format `raw` is written in. Output in that format reuses `raw` as is. */
  format: MessageFormat
  /** The caller's original object, returned untouched when the message is kept. */
  raw: unknown
}

/** A parsed conversation: messages in order plus format-level context. */
export interface CanonicalConversation {
  format: MessageFormat
  messages: CanonicalMessage[]
  /**
   * Anthropic's top-level `system` exactly as given (string or blocks), so output can
   * return it unchanged. It also appears as messages[0] with index -1 when present.
   */
  anthropicSystem?: unknown
}

/** Plain text of a message as the engine reads it: text, tool calls and results, in order. */
export function messageText(message: CanonicalMessage): string {
  const out: string[] = []
  for (const part of message.parts) {
    switch (part.type) {
      case 'text':
      case 'reasoning':
      case 'opaque':
        out.push(part.text)
        break
      case 'tool-call':
        out.push(`${part.name}(${part.argsText})`)
        break
      case 'tool-result':
        out.push(part.text)
        break
      case 'image':
        out.push('[image]')
        break
    }
  }
  return out.join('\n')
}

export function toolCallsOf(message: CanonicalMessage): ToolCallPart[] {
  return message.parts.filter((p): p is ToolCallPart => p.type === 'tool-call')
}

export function toolResultsOf(message: CanonicalMessage): ToolResultPart[] {
  return message.parts.filter((p): p is ToolResultPart => p.type === 'tool-result')
}

export function isSystemLike(message: CanonicalMessage): boolean {
  return message.role === 'system' || message.role === 'developer'
}
