/** Creating and editing AI SDK messages: every other field of `raw` kept (one part per content part). */
import type { CanonicalMessage, CanonicalPart, ToolResultPart } from '../canonical.ts'
import { COMPACTED_ARGS_KEY, CONVERTED_ARGS_KEY, CREATED_INDEX, type JsonObject, assertOwnFormat, firstTextPart, inputFromArgsText, isRecord, missingToolPart, replaceAt, replaceTextElements, replaceTextParts, withoutContentElement } from '../adapter.ts'
import { parseMessage } from './parse.ts'

/** AI SDK has no developer role: a developer message is written (and parsed back) as system. */
export function createTextMessage(role: 'system' | 'developer' | 'user' | 'assistant', text: string): CanonicalMessage {
  const sdkRole = role === 'developer' ? 'system' : role
  return { role: sdkRole, parts: text === '' ? [] : [{ type: 'text', text }], index: CREATED_INDEX, format: 'ai-sdk', raw: { role: sdkRole, content: text } }
}

/** Index of the content part (= canonical part, one per content part) of the given type and id; -1 when absent. */
function findContentPart(message: CanonicalMessage, type: 'tool-call' | 'tool-result', callId: string): number {
  const raw = message.raw
  if (!isRecord(raw) || !Array.isArray(raw.content)) return -1
  return raw.content.findIndex((p: unknown) => isRecord(p) && p.type === type && p.toolCallId === callId)
}

export function withToolResultText(message: CanonicalMessage, callId: string, text: string): CanonicalMessage {
  assertOwnFormat('ai-sdk', message)
  const j = findContentPart(message, 'tool-result', callId)
  if (j === -1) missingToolPart(message, 'result', callId)
  const raw = message.raw as JsonObject
  const content = raw.content as JsonObject[]
  const old = content[j]
  const part = message.parts[j] as ToolResultPart
  // v5 output keeps its error-ness; v4 keeps `result` (and its isError flag).
  const edited =
    old.output === undefined && 'result' in old
      ? { ...old, result: text }
      : { ...old, output: { type: part.isError ? 'error-text' : 'text', value: text } }
  return { ...message, raw: { ...raw, content: replaceAt(content, j, edited) }, parts: replaceAt(message.parts, j, { ...part, text }) }
}

export function withToolCallArgs(message: CanonicalMessage, callId: string, argsText: string): CanonicalMessage {
  assertOwnFormat('ai-sdk', message)
  const j = findContentPart(message, 'tool-call', callId)
  if (j === -1) missingToolPart(message, 'call', callId)
  const raw = message.raw as JsonObject
  const content = raw.content as JsonObject[]
  const old = content[j]
  const input = inputFromArgsText(argsText, COMPACTED_ARGS_KEY)
  const edited = old.input === undefined && old.args !== undefined ? { ...old, args: input } : { ...old, input }
  const part = message.parts[j]
  return {
    ...message,
    raw: { ...raw, content: replaceAt(content, j, edited) },
    parts: replaceAt(message.parts, j, { ...part, argsText: JSON.stringify(input) } as CanonicalPart),
  }
}

/** Text parts merged into the first one (its providerOptions kept); reasoning, files, calls and results untouched. */
export function withText(message: CanonicalMessage, text: string): CanonicalMessage {
  assertOwnFormat('ai-sdk', message)
  const raw = message.raw
  if (firstTextPart(message.parts) === -1 || !isRecord(raw)) return message
  const content = raw.content
  let edited: unknown
  if (typeof content === 'string') edited = text
  else if (Array.isArray(content)) edited = replaceTextElements(content, message.parts, (p) => ({ ...p, text }), text === '')
  else return message
  return { ...message, raw: { ...raw, content: edited }, parts: replaceTextParts(message.parts, text, text === '') }
}

/** Removes the result from a tool message (or, for a provider-executed tool, an assistant message). */
export function withoutToolResult(message: CanonicalMessage, callId: string): CanonicalMessage | null {
  assertOwnFormat('ai-sdk', message)
  const j = findContentPart(message, 'tool-result', callId)
  if (j === -1) missingToolPart(message, 'result', callId)
  return withoutContentElement(message, j)
}

/**
 * One tool message of tool-result parts with v5 `output: {type: 'text', value}`. When
 * `callMessage` writes its calls the v4 way (`args`, no `input`), results are written the
 * v4 way too (`result`): a v4 caller's SDK does not know `output`.
 */
export function createToolResults(callMessage: CanonicalMessage, calls: readonly { id: string; name: string }[], text: string): CanonicalMessage[] {
  if (calls.length === 0) return []
  const v4 = calls.some((c) => {
    if (callMessage.format !== 'ai-sdk') return false
    const j = findContentPart(callMessage, 'tool-call', c.id)
    const call = j === -1 ? undefined : ((callMessage.raw as JsonObject).content as JsonObject[])[j]
    return call !== undefined && call.input === undefined && call.args !== undefined
  })
  const content = calls.map((c) =>
    v4 ? { type: 'tool-result', toolCallId: c.id, toolName: c.name, result: text } : { type: 'tool-result', toolCallId: c.id, toolName: c.name, output: { type: 'text', value: text } },
  )
  return [parseMessage({ role: 'tool', content }, CREATED_INDEX)]
}

/** Tool input must be a JSON object: other arguments are wrapped, as conversion does. */
export function createToolCalls(text: string, calls: readonly { id: string; name: string; argsText: string }[]): CanonicalMessage {
  const content = [
    ...(text === '' ? [] : [{ type: 'text', text }]),
    ...calls.map((c) => ({ type: 'tool-call', toolCallId: c.id, toolName: c.name, input: inputFromArgsText(c.argsText, CONVERTED_ARGS_KEY) })),
  ]
  return parseMessage({ role: 'assistant', content }, CREATED_INDEX)
}
