/**
 * Entry point of the message layer: parse callers' messages in any supported format
 * into canonical messages, and write canonical messages back out in any format. Nothing
 * outside this layer builds or reads a format's JSON: it calls these functions, or the
 * adapter of the format (getAdapter).
 */
import type { CanonicalConversation, CanonicalMessage, MessageFormat } from './canonical.ts'
import { CREATED_INDEX, type FormatAdapter, isRecord, typeName } from './adapter.ts'
import { detectAmong, orList } from './detect.ts'
import { MessageFormatError } from './errors.ts'
import { FORMAT_ADAPTERS, FORMAT_NAMES, findAdapter, isMessageFormat } from './registry.ts'

export * from './canonical.ts'
export type { FormatAdapter } from './adapter.ts'
export { CREATED_INDEX } from './adapter.ts'
export { MessageFormatError } from './errors.ts'
export { DEFAULT_FORMAT, FORMAT_ADAPTERS, FORMAT_NAMES, isMessageFormat, REQUEST_WIRES } from './registry.ts'
export { withoutStreaming } from './request-wire.ts'
export type { ProxyErrorKind, ProxyTool, RequestConversation, RequestWire, ResponseToolCall, UpstreamProvider } from './request-wire.ts'
export { CONTINUATION_TEXT } from './anthropic/write.ts'
export { displayMessages, displayWire, type DisplayMessage } from './display.ts'

/** The formats' names quoted for an error message: `"openai", "anthropic" or "ai-sdk"`. */
export const FORMAT_NAMES_TEXT = orList(FORMAT_NAMES.map((f) => JSON.stringify(f)))

export function getAdapter(format: MessageFormat): FormatAdapter {
  const adapter = findAdapter(format)
  if (adapter === undefined) throw invalidFormat(format)
  return adapter
}

/** The format of `messages`, from their structure (detect.ts); `system` is a top-level system prompt given with them. */
export function detectFormat(messages: readonly unknown[], hint?: { system?: unknown }): MessageFormat {
  return detectAmong(FORMAT_ADAPTERS, messages, hint)
}

/**
 * Validates and parses a request's messages. `format` overrides detection; `system` is
 * Anthropic's top-level system prompt (it also signals the Anthropic format, and is
 * ignored when an explicit other format is given). An empty array is valid (an empty
 * conversation estimates to zero).
 *
 * Two tool calls with the same id in one message are refused (`checkToolCallIds`);
 * `allowDuplicateCallIds` skips that, for messages read back from storage, which were
 * checked when they came in (the compaction engine refuses them in its own way).
 */
export function parseConversation(messages: unknown, opts: { format?: MessageFormat; system?: unknown; allowDuplicateCallIds?: boolean } = {}): CanonicalConversation {
  if (opts.format !== undefined && !isMessageFormat(opts.format)) throw invalidFormat(opts.format)
  if (!Array.isArray(messages)) {
    throw new MessageFormatError('messages', `expected an array of messages, got ${typeName(messages)}`)
  }
  const format = opts.format ?? detectFormat(messages, { system: opts.system })
  const conversation = getAdapter(format).parse(messages, opts.system)
  if (opts.allowDuplicateCallIds !== true) checkToolCallIds(conversation)
  return conversation
}

/**
 * The tool calls of one message must have distinct ids: their results name only the id,
 * so two calls `a` of one turn cannot be told apart (and providers refuse them). Throws
 * MessageFormatError at the second call's id, naming the first. Reusing an id in a later
 * message is legal: pairing is sequential (src/engine/conversation/pairing.ts).
 */
export function checkToolCallIds(conversation: CanonicalConversation): void {
  for (const m of conversation.messages) {
    let seen: Map<string, { ordinal: number; partIndex: number }> | undefined
    let ordinal = 0
    for (let j = 0; j < m.parts.length; j++) {
      const part = m.parts[j]!
      if (part.type !== 'tool-call') continue
      seen ??= new Map()
      const first = seen.get(part.id)
      if (first !== undefined) {
        const adapter = getAdapter(m.format)
        throw new MessageFormatError(
          adapter.callIdField(m, ordinal, j),
          `duplicate tool call id ${JSON.stringify(part.id)}: ${adapter.callIdField(m, first.ordinal, first.partIndex)} has the same id in this message, so their results cannot be told apart; give each call its own id (an id may be reused in a later turn, once its call is answered)`,
          m.index,
        )
      }
      seen.set(part.id, { ordinal, partIndex: j })
      ordinal++
    }
  }
}

/** Writes canonical messages in `format`; `system` is set only for Anthropic when there is a system prompt. */
export function serializeConversation(messages: readonly CanonicalMessage[], format: MessageFormat): { messages: unknown[]; system?: unknown } {
  return getAdapter(format).serialize(messages)
}

/**
 * The messages of a request that gave `system` beside messages of a format without a
 * top-level system prompt: it counts (as in /estimate) and rides along as a pinned
 * leading system message whose raw is `system` as given. Unchanged when there is no
 * such `system` (or the format took it, as Anthropic's does).
 */
export function withSeparateSystem(conversation: CanonicalConversation, system: unknown): CanonicalMessage[] {
  if (system === undefined || conversation.anthropicSystem !== undefined) return conversation.messages
  const text = typeof system === 'string' ? system : JSON.stringify(system)
  return [{ role: 'system', parts: [{ type: 'text', text }], index: -1, format: conversation.format, raw: system }, ...conversation.messages]
}

/**
 * A session's `system` setting (a string, or Anthropic text blocks) as the leading
 * messages of `format`: Anthropic's top-level system as given, else one system message
 * holding its text (none when it has none).
 */
export function sessionSystemMessages(system: string | unknown[], format: MessageFormat): CanonicalMessage[] {
  if (getAdapter(format).detection.topLevelSystem) return parseConversation([], { format, system }).messages
  const text = typeof system === 'string' ? system : system.map((b) => (isRecord(b) && typeof b.text === 'string' ? b.text : '')).join('\n')
  return text ? [createdSystemMessage(text, format)] : []
}

/** A system message the engine creates, in `format` (Anthropic: one that goes to the top-level system). */
export function createdSystemMessage(text: string, format: MessageFormat): CanonicalMessage {
  return getAdapter(format).createTextMessage('system', text)
}

/** A message as its provider accepts it: without the timestamp fields sessions keep (FormatAdapter.timestampFields). */
export function withoutTimestamps(message: unknown, format: MessageFormat): unknown {
  if (!isRecord(message)) return message
  const drop = getAdapter(format).timestampFields
  if (!drop.some((k) => k in message)) return message
  return Object.fromEntries(Object.entries(message).filter(([k]) => !drop.includes(k)))
}

/** A turn of a conversation drafted without a format (draftConversation). */
export type DraftTurn =
  | { role: 'system' | 'developer' | 'user' | 'assistant'; text: string; calls?: undefined }
  | { role: 'assistant'; text: string; calls: { id: string; name: string; argsText: string }[] }
  | { role: 'tool'; results: { callId: string; text: string }[] }

/**
 * A conversation written in `format` from turns that name no format (a warm-up task, a
 * sample): built by the format's own factories, so it is what a caller of that format
 * would send. Each tool turn answers the calls of the assistant turn before it.
 */
export function draftConversation(format: MessageFormat, turns: readonly DraftTurn[]): { messages: unknown[]; system?: unknown } {
  const adapter = getAdapter(format)
  const messages: CanonicalMessage[] = []
  let callMessage: CanonicalMessage | undefined
  for (const turn of turns) {
    if (turn.role === 'tool') {
      if (callMessage === undefined) throw new Error('draftConversation: a tool turn must follow an assistant turn with calls')
      const names = new Map(turn.results.map((r) => [r.callId, callMessage!.parts.find((p) => p.type === 'tool-call' && p.id === r.callId)]))
      for (const r of turn.results) {
        const call = names.get(r.callId)
        messages.push(...adapter.createToolResults(callMessage, [{ id: r.callId, name: call?.type === 'tool-call' ? call.name : 'unknown_tool' }], r.text))
      }
    } else if (turn.calls !== undefined) {
      callMessage = adapter.createToolCalls(turn.text, turn.calls)
      messages.push(callMessage)
    } else messages.push(adapter.createTextMessage(turn.role, turn.text))
  }
  return adapter.serialize(messages)
}

function invalidFormat(format: unknown): MessageFormatError {
  return new MessageFormatError('format', `expected ${FORMAT_NAMES_TEXT}, got ${JSON.stringify(format)}`)
}
