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
 */
export function parseConversation(messages: unknown, opts: { format?: MessageFormat; system?: unknown } = {}): CanonicalConversation {
  if (opts.format !== undefined && !MESSAGE_FORMATS.includes(opts.format)) throw invalidFormat(opts.format)
  if (!Array.isArray(messages)) {
    throw new MessageFormatError('messages', `expected an array of messages, got ${typeName(messages)}`)
  }
  const format = opts.format ?? detectFormat(messages, { system: opts.system })
  return getAdapter(format).parse(messages, opts.system)
}

/** Writes canonical messages in `format`; `system` is set only for Anthropic when there is a system prompt. */
export function serializeConversation(messages: readonly CanonicalMessage[], format: MessageFormat): { messages: unknown[]; system?: unknown } {
  return getAdapter(format).serialize(messages)
}

function invalidFormat(format: unknown): MessageFormatError {
  return new MessageFormatError('format', `expected "openai", "anthropic" or "ai-sdk", got ${JSON.stringify(format)}`)
}
