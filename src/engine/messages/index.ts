/**
 * Entry point of the message layer: parse callers' messages in any supported format
 * into canonical messages, and write canonical messages back out in any format.
 */
import { MESSAGE_FORMATS, type CanonicalConversation, type CanonicalMessage, type MessageFormat } from './canonical.ts'
import { type FormatAdapter, typeName } from './adapter.ts'
import { aiSdkAdapter } from './ai-sdk.ts'
import { anthropicAdapter } from './anthropic.ts'
import { detectFormat } from './detect.ts'
import { MessageFormatError } from './errors.ts'
import { openaiAdapter } from './openai.ts'

export * from './canonical.ts'
export type { FormatAdapter } from './adapter.ts'
export { CREATED_INDEX } from './adapter.ts'
export { MessageFormatError } from './errors.ts'
export { detectFormat } from './detect.ts'
export { openaiAdapter } from './openai.ts'
export { anthropicAdapter, CONTINUATION_TEXT } from './anthropic.ts'
export { aiSdkAdapter } from './ai-sdk.ts'

const ADAPTERS: Record<MessageFormat, FormatAdapter> = {
  openai: openaiAdapter,
  anthropic: anthropicAdapter,
  'ai-sdk': aiSdkAdapter,
}

export function getAdapter(format: MessageFormat): FormatAdapter {
  const adapter = ADAPTERS[format]
  if (adapter === undefined) throw invalidFormat(format)
  return adapter
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
  if (opts.format !== undefined && !MESSAGE_FORMATS.includes(opts.format)) throw invalidFormat(opts.format)
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
        throw new MessageFormatError(
          callIdField(m, ordinal, j),
          `duplicate tool call id ${JSON.stringify(part.id)}: ${callIdField(m, first.ordinal, first.partIndex)} has the same id in this message, so their results cannot be told apart; give each call its own id (an id may be reused in a later turn, once its call is answered)`,
          m.index,
        )
      }
      seen.set(part.id, { ordinal, partIndex: j })
      ordinal++
    }
  }
}

/**
 * Path of a tool call's id in the caller's message: `ordinal` counts the message's calls,
 * `partIndex` its parts. OpenAI: calls are `tool_calls` in order, then the legacy
 * `function_call`; Anthropic and AI SDK parse array content one part per block.
 */
function callIdField(m: CanonicalMessage, ordinal: number, partIndex: number): string {
  const at = `messages[${m.index}]`
  switch (m.format) {
    case 'openai': {
      const calls = (m.raw as { tool_calls?: unknown }).tool_calls
      return Array.isArray(calls) && ordinal < calls.length ? `${at}.tool_calls[${ordinal}].id` : `${at}.function_call`
    }
    case 'anthropic':
      return `${at}.content[${partIndex}].id`
    case 'ai-sdk':
      return `${at}.content[${partIndex}].toolCallId`
  }
}

/** Writes canonical messages in `format`; `system` is set only for Anthropic when there is a system prompt. */
export function serializeConversation(messages: readonly CanonicalMessage[], format: MessageFormat): { messages: unknown[]; system?: unknown } {
  return getAdapter(format).serialize(messages)
}

function invalidFormat(format: unknown): MessageFormatError {
  return new MessageFormatError('format', `expected "openai", "anthropic" or "ai-sdk", got ${JSON.stringify(format)}`)
}
