/** Creating and editing OpenAI Chat Completions messages: every other field of `raw` kept. */
import type { CanonicalMessage, ToolCallPart, ToolResultPart } from '../canonical.ts'
import { CREATED_INDEX, type JsonObject, assertOwnFormat, findToolPart, firstTextPart, isNonEmptyString, isRecord, missingToolPart, replaceAt, replaceTextElements, replaceTextParts } from '../adapter.ts'
import { LEGACY_ID_PREFIX, type ParseState, parseMessage } from './parse.ts'

export function createTextMessage(role: 'system' | 'developer' | 'user' | 'assistant', text: string): CanonicalMessage {
  return { role, parts: text === '' ? [] : [{ type: 'text', text }], index: CREATED_INDEX, format: 'openai', raw: { role, content: text } }
}

export function withToolResultText(message: CanonicalMessage, callId: string, text: string): CanonicalMessage {
  assertOwnFormat('openai', message)
  const at = findToolPart(message.parts, 'tool-result', callId)
  if (at === -1 || !isRecord(message.raw)) missingToolPart(message, 'result', callId)
  const part = message.parts[at] as ToolResultPart
  return { ...message, raw: { ...message.raw, content: text }, parts: replaceAt(message.parts, at, { ...part, text }) }
}

export function withToolCallArgs(message: CanonicalMessage, callId: string, argsText: string): CanonicalMessage {
  assertOwnFormat('openai', message)
  const at = findToolPart(message.parts, 'tool-call', callId)
  const raw = message.raw
  if (at === -1 || !isRecord(raw)) missingToolPart(message, 'call', callId)
  let newRaw: JsonObject | undefined
  const calls = raw.tool_calls
  const j = Array.isArray(calls) ? calls.findIndex((c) => isRecord(c) && c.id === callId) : -1
  if (j !== -1) {
    const call = (calls as JsonObject[])[j]
    const edited =
      call.type === 'custom'
        ? { ...call, custom: { ...(call.custom as JsonObject), input: argsText } }
        : { ...call, function: { ...(call.function as JsonObject), arguments: argsText } }
    newRaw = { ...raw, tool_calls: replaceAt(calls as JsonObject[], j, edited) }
  } else if (callId === LEGACY_ID_PREFIX + message.index && isRecord(raw.function_call)) {
    newRaw = { ...raw, function_call: { ...raw.function_call, arguments: argsText } }
  } else {
    missingToolPart(message, 'call', callId)
  }
  const part = message.parts[at] as ToolCallPart
  return { ...message, raw: newRaw, parts: replaceAt(message.parts, at, { ...part, argsText }) }
}

/**
 * Text parts come from `content` (a string, or text and refusal parts, one part each) and,
 * on assistant messages, a non-empty top-level `refusal` after them. The new text takes
 * the first one's place; a refusal part keeps its type (the text stays where it was).
 */
export function withText(message: CanonicalMessage, text: string): CanonicalMessage {
  assertOwnFormat('openai', message)
  const first = firstTextPart(message.parts)
  const raw = message.raw
  if (first === -1 || !isRecord(raw)) return message
  const content = raw.content
  const contentParts = typeof content === 'string' ? (content === '' ? 0 : 1) : Array.isArray(content) ? content.length : 0
  const { refusal, ...rest } = raw
  const hasRefusal = raw.role === 'assistant' && typeof refusal === 'string' && refusal !== ''
  let next: JsonObject
  let drop = false
  if (first < contentParts) {
    // The text lands in content, so a top-level refusal (a text part) goes.
    next = hasRefusal ? rest : { ...raw }
    if (typeof content === 'string') {
      next.content = text
      drop = text === ''
    } else {
      next.content = replaceTextElements(content as unknown[], message.parts, (p) => (p.type === 'refusal' ? { ...p, refusal: text } : { ...p, text }), text === '')
      drop = text === ''
    }
  } else {
    // The only text is the top-level refusal.
    next = { ...raw, refusal: text }
    drop = text === ''
  }
  return { ...message, raw: next, parts: replaceTextParts(message.parts, text, drop) }
}

/** An OpenAI message carries at most one result (a tool or function message), so removing it leaves nothing. */
export function withoutToolResult(message: CanonicalMessage, callId: string): CanonicalMessage | null {
  assertOwnFormat('openai', message)
  if (findToolPart(message.parts, 'tool-result', callId) === -1) missingToolPart(message, 'result', callId)
  return null
}

/**
 * One `tool` message per call. The legacy `function_call` of `callMessage` (id
 * `legacy_fn_<its index>`) is answered by a `function` message instead: a `tool` message
 * needs a `tool_calls` id the provider knows. Parsed with the calls' names known, as
 * they would be after the call message.
 */
export function createToolResults(callMessage: CanonicalMessage, calls: readonly { id: string; name: string }[], text: string): CanonicalMessage[] {
  const state: ParseState = { names: new Map(calls.map((c) => [c.id, c.name])), legacyPending: [] }
  const raw = callMessage.raw
  const legacyId = LEGACY_ID_PREFIX + callMessage.index
  const legacyName = callMessage.format === 'openai' && isRecord(raw) && isRecord(raw.function_call) && isNonEmptyString(raw.function_call.name) ? raw.function_call.name : undefined
  return calls.map((call) => {
    if (legacyName !== undefined && call.id === legacyId) {
      state.legacyPending.push({ id: legacyId, name: legacyName })
      return parseMessage({ role: 'function', name: legacyName, content: text }, CREATED_INDEX, state)
    }
    return parseMessage({ role: 'tool', tool_call_id: call.id, content: text }, CREATED_INDEX, state)
  })
}

export function createToolCalls(text: string, calls: readonly { id: string; name: string; argsText: string }[]): CanonicalMessage {
  const raw = { role: 'assistant', content: text === '' ? null : text, tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.argsText } })) }
  return parseMessage(raw, CREATED_INDEX, { names: new Map(), legacyPending: [] })
}
