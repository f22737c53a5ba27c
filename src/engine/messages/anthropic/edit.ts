/** Creating and editing Anthropic messages: every other field of `raw` kept (one part per block). */
import type { CanonicalMessage, ToolCallPart, ToolResultPart } from '../canonical.ts'
import { COMPACTED_ARGS_KEY, CONVERTED_ARGS_KEY, CREATED_INDEX, type JsonObject, assertOwnFormat, firstTextPart, inputFromArgsText, isRecord, missingToolPart, replaceAt, replaceTextElements, replaceTextParts, withoutContentElement } from '../adapter.ts'
import { parseMessage } from './parse.ts'

/**
 * Anthropic has no system role inside messages: a system (or developer) text is a system
 * message whose raw is the text itself, as the top-level `system` it is written to
 * (serialize puts every system message there).
 */
export function createTextMessage(role: 'system' | 'developer' | 'user' | 'assistant', text: string): CanonicalMessage {
  if (role !== 'user' && role !== 'assistant') return { role: 'system', parts: text === '' ? [] : [{ type: 'text', text }], index: CREATED_INDEX, format: 'anthropic', raw: text }
  return { role, parts: text === '' ? [] : [{ type: 'text', text }], index: CREATED_INDEX, format: 'anthropic', raw: { role, content: text } }
}

/** Index of the block (= part, one per block) of the given type and id; -1 when absent. */
function findBlock(message: CanonicalMessage, type: 'tool_use' | 'tool_result', callId: string): number {
  const raw = message.raw
  if (!isRecord(raw) || !Array.isArray(raw.content)) return -1
  const key = type === 'tool_use' ? 'id' : 'tool_use_id'
  return raw.content.findIndex((b: unknown) => isRecord(b) && b.type === type && b[key] === callId)
}

export function withToolResultText(message: CanonicalMessage, callId: string, text: string): CanonicalMessage {
  assertOwnFormat('anthropic', message)
  const j = findBlock(message, 'tool_result', callId)
  if (j === -1) missingToolPart(message, 'result', callId)
  const raw = message.raw as JsonObject
  const blocks = raw.content as JsonObject[]
  const part = message.parts[j] as ToolResultPart
  return {
    ...message,
    raw: { ...raw, content: replaceAt(blocks, j, { ...blocks[j], content: text }) },
    parts: replaceAt(message.parts, j, { ...part, text }),
  }
}

export function withToolCallArgs(message: CanonicalMessage, callId: string, argsText: string): CanonicalMessage {
  assertOwnFormat('anthropic', message)
  const j = findBlock(message, 'tool_use', callId)
  if (j === -1) missingToolPart(message, 'call', callId)
  const raw = message.raw as JsonObject
  const blocks = raw.content as JsonObject[]
  const input = inputFromArgsText(argsText, COMPACTED_ARGS_KEY)
  const part = message.parts[j] as ToolCallPart
  return {
    ...message,
    raw: { ...raw, content: replaceAt(blocks, j, { ...blocks[j], input }) },
    parts: replaceAt(message.parts, j, { ...part, argsText: JSON.stringify(input) }),
  }
}

/**
 * Text blocks merged into the first one (its other fields, e.g. cache_control, kept;
 * its citations dropped, as they cite the old text). Thinking blocks and their
 * signatures are other parts and stay as they are. The top-level system message (role
 * 'system', whose raw is the system value itself) is edited the same way.
 */
export function withText(message: CanonicalMessage, text: string): CanonicalMessage {
  assertOwnFormat('anthropic', message)
  if (firstTextPart(message.parts) === -1) return message
  const isSystem = message.role === 'system'
  const raw = message.raw
  const content = isSystem ? raw : isRecord(raw) ? raw.content : undefined
  let edited: unknown
  if (typeof content === 'string') edited = text
  else if (Array.isArray(content)) edited = replaceTextElements(content, message.parts, ({ citations: _citations, ...block }) => ({ ...block, text }), text === '')
  else return message
  return {
    ...message,
    raw: isSystem ? edited : { ...(raw as JsonObject), content: edited },
    parts: replaceTextParts(message.parts, text, text === ''),
  }
}

export function withoutToolResult(message: CanonicalMessage, callId: string): CanonicalMessage | null {
  assertOwnFormat('anthropic', message)
  const j = findBlock(message, 'tool_result', callId)
  if (j === -1) missingToolPart(message, 'result', callId)
  return withoutContentElement(message, j)
}

/**
 * One user message of tool_result blocks. Anthropic results carry no tool name (the
 * call has it), so, as after `parse`, the parts have none. Empty text is written as a
 * block without content, as conversion does.
 */
export function createToolResults(_callMessage: CanonicalMessage, calls: readonly { id: string; name: string }[], text: string): CanonicalMessage[] {
  if (calls.length === 0) return []
  const content = calls.map((c) => (text === '' ? { type: 'tool_result', tool_use_id: c.id } : { type: 'tool_result', tool_use_id: c.id, content: text }))
  return [parseMessage({ role: 'user', content }, CREATED_INDEX)]
}

/** Tool input must be a JSON object: other arguments are wrapped, as conversion does. */
export function createToolCalls(text: string, calls: readonly { id: string; name: string; argsText: string }[]): CanonicalMessage {
  const content = [
    ...(text === '' ? [] : [{ type: 'text', text }]),
    ...calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: inputFromArgsText(c.argsText, CONVERTED_ARGS_KEY) })),
  ]
  return parseMessage({ role: 'assistant', content }, CREATED_INDEX)
}
