/**
 * Automatic detection of the message format from structural signals.
 *
 * Each signal narrows the set of formats the array can be in:
 * - OpenAI: `tool_calls`, `tool_call_id`, `function_call`, role developer/function,
 *   `content: null`, string content on role tool, parts image_url / input_audio /
 *   refusal / file with a `file` object.
 * - Anthropic: a top-level `system`, blocks tool_use / tool_result / thinking /
 *   redacted_thinking / document / any other snake_case type (server_tool_use,
 *   web_search_tool_result...), image blocks with `source`.
 * - AI SDK: parts tool-call / tool-result / reasoning / any other kebab-case type, image
 *   parts with `image`, file parts with `data`, a message-level `providerOptions`.
 * - Shared: role system inside messages (OpenAI or AI SDK), role tool (OpenAI or AI SDK).
 *
 * Resolution: when one format remains, it wins. When several remain (no distinguishing
 * signal), OpenAI is chosen before AI SDK before Anthropic: a plain array of
 * string-content user/assistant messages (optionally with a string system message) is
 * valid and means the same in all of them, so the choice cannot change the result. When
 * a signal leaves no format at all, the input mixes formats: a MessageFormatError names
 * the first conflicting message and field, the earlier signal it contradicts, and asks
 * for an explicit `format`.
 */
import { MESSAGE_FORMATS, type MessageFormat } from './canonical.ts'
import { isRecord } from './adapter.ts'
import { MessageFormatError } from './errors.ts'

interface Signal {
  formats: readonly MessageFormat[]
  index: number | null
  field: string
  /** What was seen, e.g. `a "tool_use" block`. */
  what: string
}

const OPENAI: readonly MessageFormat[] = ['openai']
const ANTHROPIC: readonly MessageFormat[] = ['anthropic']
const AI_SDK: readonly MessageFormat[] = ['ai-sdk']
const OPENAI_OR_AI_SDK: readonly MessageFormat[] = ['openai', 'ai-sdk']

const LABELS: Record<MessageFormat, string> = { openai: 'OpenAI', anthropic: 'Anthropic', 'ai-sdk': 'AI SDK' }

export function detectFormat(messages: readonly unknown[], hint?: { system?: unknown }): MessageFormat {
  let candidates: readonly MessageFormat[] = MESSAGE_FORMATS
  const applied: Signal[] = []
  const apply = (signal: Signal): void => {
    const next = candidates.filter((f) => signal.formats.includes(f))
    if (next.length === 0) throw ambiguity(signal, applied)
    if (next.length < candidates.length) applied.push(signal)
    candidates = next
  }

  if (hint?.system !== undefined && hint.system !== null) {
    apply({ formats: ANTHROPIC, index: null, field: 'system', what: 'a top-level system prompt' })
  }
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]
    if (isRecord(message)) messageSignals(message, i, apply)
  }
  // Several candidates left: the first in preference order (see the module comment).
  for (const format of ['openai', 'ai-sdk', 'anthropic'] as const) if (candidates.includes(format)) return format
  return 'openai'
}

function messageSignals(message: Record<string, unknown>, i: number, apply: (s: Signal) => void): void {
  const at = `messages[${i}]`
  const role = message.role
  if (role === 'developer' || role === 'function') apply({ formats: OPENAI, index: i, field: `${at}.role`, what: `role "${role}"` })
  if (role === 'system' || role === 'tool') {
    apply({ formats: OPENAI_OR_AI_SDK, index: i, field: `${at}.role`, what: `role "${role}" inside messages` })
  }
  if (message.tool_calls != null) apply({ formats: OPENAI, index: i, field: `${at}.tool_calls`, what: 'tool_calls' })
  if (message.tool_call_id !== undefined) apply({ formats: OPENAI, index: i, field: `${at}.tool_call_id`, what: 'tool_call_id' })
  if (message.function_call != null) apply({ formats: OPENAI, index: i, field: `${at}.function_call`, what: 'function_call' })
  if (message.providerOptions !== undefined) apply({ formats: AI_SDK, index: i, field: `${at}.providerOptions`, what: 'providerOptions' })

  const content = message.content
  if (content === null) apply({ formats: OPENAI, index: i, field: `${at}.content`, what: 'null content' })
  else if (typeof content === 'string' && role === 'tool') apply({ formats: OPENAI, index: i, field: `${at}.content`, what: 'string content on a tool message' })
  else if (Array.isArray(content)) {
    for (let j = 0; j < content.length; j++) {
      const part: unknown = content[j]
      if (!isRecord(part)) continue
      const formats = partFormats(part)
      if (formats) apply({ formats, index: i, field: `${at}.content[${j}].type`, what: `a ${JSON.stringify(part.type)} part` })
    }
  }
}

/** Formats a content part can belong to, judged by its type; undefined when it fits all (text) or is unknown. */
function partFormats(part: Record<string, unknown>): readonly MessageFormat[] | undefined {
  const type = part.type
  if (typeof type !== 'string') return undefined
  switch (type) {
    case 'text':
      return undefined
    case 'image_url':
    case 'input_audio':
    case 'refusal':
      return OPENAI
    case 'image':
      return part.source !== undefined ? ANTHROPIC : part.image !== undefined ? AI_SDK : undefined
    case 'file':
      return part.file !== undefined ? OPENAI : part.data !== undefined ? AI_SDK : undefined
    case 'thinking':
    case 'document':
      return ANTHROPIC
    case 'reasoning':
      return AI_SDK
    default:
      // Anthropic block types are snake_case (tool_use, server_tool_use...), AI SDK part types kebab-case.
      if (type.includes('_')) return ANTHROPIC
      if (type.includes('-')) return AI_SDK
      return undefined
  }
}

function ambiguity(signal: Signal, applied: readonly Signal[]): MessageFormatError {
  // The earliest signal that, with those before it, rules out every format `signal` allows.
  let left = signal.formats
  let earlier = applied[applied.length - 1]
  for (const previous of applied) {
    left = left.filter((f) => previous.formats.includes(f))
    if (left.length === 0) {
      earlier = previous
      break
    }
  }
  const seen = [...new Set([...earlier.formats, ...signal.formats])].map((f) => LABELS[f])
  return new MessageFormatError(
    signal.field,
    `ambiguous message format: found ${signal.what} (${label(signal.formats)}) here, but ${earlier.what} (${label(earlier.formats)}) ` +
      `at ${earlier.field}. Formats seen: ${seen.join(', ')}. Use one format for all messages, or set the request's "format" ` +
      'field to "openai", "anthropic" or "ai-sdk".',
    signal.index,
  )
}

function label(formats: readonly MessageFormat[]): string {
  return formats.map((f) => LABELS[f]).join(' or ')
}
