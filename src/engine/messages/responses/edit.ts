/**
 * Creating and editing Responses messages. An edit builds the message's new items (every
 * other item and field untouched, same references) and parses them again, so its parts
 * always read as `parse` reads them.
 */
import type { CanonicalMessage } from '../canonical.ts'
import { CREATED_INDEX, type JsonObject, assertOwnFormat, findToolPart, firstTextPart, isRecord, missingToolPart, replaceAt } from '../adapter.ts'
import { itemType, parseGroup, type ParseState } from './parse.ts'
import { itemsOf, outputItem } from './write.ts'

/** The message with new items, parsed again (result names kept from its parts). */
function withItems(message: CanonicalMessage, items: JsonObject[]): CanonicalMessage {
  const state: ParseState = { names: new Map() }
  for (const part of message.parts) if (part.type === 'tool-result' && part.name !== undefined) state.names.set(part.callId, part.name)
  const edited = parseGroup(items.length === 1 ? items[0] : items, message.index, state, false)
  if (message.timestamp !== undefined) edited.timestamp = message.timestamp
  return edited
}

function itemWithCallId(items: readonly JsonObject[], callId: string, output: boolean): number {
  return items.findIndex((item) => item.call_id === callId && (itemType(item).endsWith('_output') === output))
}

export function createTextMessage(role: 'system' | 'developer' | 'user' | 'assistant', text: string): CanonicalMessage {
  return parseGroup({ role, content: text }, CREATED_INDEX, { names: new Map() }, false)
}

export function createToolCalls(text: string, calls: readonly { id: string; name: string; argsText: string }[]): CanonicalMessage {
  const items: JsonObject[] = text === '' ? [] : [{ type: 'message', role: 'assistant', content: text }]
  for (const c of calls) items.push({ type: 'function_call', call_id: c.id, name: c.name, arguments: c.argsText })
  return parseGroup(items.length === 1 ? items[0] : items, CREATED_INDEX, { names: new Map() }, false)
}

/** Outputs for `calls`; a custom tool call of `callMessage` is answered by a custom_tool_call_output. */
export function createToolResults(callMessage: CanonicalMessage, calls: readonly { id: string; name: string }[], text: string): CanonicalMessage[] {
  if (calls.length === 0) return []
  const callItems = callMessage.format === 'responses' ? itemsOf(callMessage) : []
  const items = calls.map((c) => outputItem(c.id, text, callItems.some((item) => item.call_id === c.id && item.type === 'custom_tool_call')))
  return [parseGroup(items.length === 1 ? items[0] : items, CREATED_INDEX, { names: new Map(calls.map((c) => [c.id, c.name])) }, false)]
}

export function withToolResultText(message: CanonicalMessage, callId: string, text: string): CanonicalMessage {
  assertOwnFormat('responses', message)
  const items = itemsOf(message)
  const k = itemWithCallId(items, callId, true)
  if (k === -1 || findToolPart(message.parts, 'tool-result', callId) === -1) missingToolPart(message, 'result', callId)
  return withItems(message, replaceAt(items, k, { ...items[k], output: text }))
}

export function withToolCallArgs(message: CanonicalMessage, callId: string, argsText: string): CanonicalMessage {
  assertOwnFormat('responses', message)
  const items = itemsOf(message)
  const k = itemWithCallId(items, callId, false)
  if (k === -1) missingToolPart(message, 'call', callId)
  const item = items[k]!
  return withItems(message, replaceAt(items, k, item.type === 'custom_tool_call' ? { ...item, input: argsText } : { ...item, arguments: argsText }))
}

/**
 * The first text (of the first message item holding text) becomes `text` ('' drops it);
 * later texts are dropped, and a message item left with no content goes. Reasoning, calls, images
 * and every other field stay as they are.
 */
export function withText(message: CanonicalMessage, text: string): CanonicalMessage {
  assertOwnFormat('responses', message)
  if (firstTextPart(message.parts) === -1) return message
  const out: JsonObject[] = []
  let placed = false
  for (const item of itemsOf(message)) {
    if (itemType(item) !== 'message') {
      out.push(item)
      continue
    }
    const content = item.content
    if (typeof content === 'string') {
      if (content === '') out.push(item)
      else if (!placed) {
        placed = true
        if (text !== '') out.push({ ...item, content: text })
      }
      continue
    }
    const kept: unknown[] = []
    for (const part of content as unknown[]) {
      const isText = isRecord(part) && (part.type === 'input_text' || part.type === 'output_text' || part.type === 'refusal')
      if (!isText) kept.push(part)
      else if (!placed) {
        placed = true
        if (text !== '') kept.push(part.type === 'refusal' ? { ...part, refusal: text } : { ...part, text })
      }
    }
    if (kept.length > 0) out.push({ ...item, content: kept })
  }
  return withItems(message, out)
}

/** Removes the output answering `callId`; null when the message had no other item. */
export function withoutToolResult(message: CanonicalMessage, callId: string): CanonicalMessage | null {
  assertOwnFormat('responses', message)
  const items = itemsOf(message)
  const k = itemWithCallId(items, callId, true)
  if (k === -1) missingToolPart(message, 'result', callId)
  if (items.length === 1) return null
  return withItems(message, items.filter((_, j) => j !== k))
}

/**
 * Without its reasoning items, unless another item of the turn carries a server `id`
 * (`fc_…`, `msg_…`): the API ties such items to the reasoning item they were produced
 * with and refuses them alone, so that turn's reasoning stays.
 */
export function withoutReasoning(message: CanonicalMessage): CanonicalMessage | null {
  assertOwnFormat('responses', message)
  const items = itemsOf(message)
  const reasoning = items.map((item) => itemType(item) === 'reasoning')
  if (!reasoning.includes(true)) return message
  const rest = items.filter((_, k) => !reasoning[k])
  if (rest.length === 0) return null
  if (rest.some((item) => typeof item.id === 'string' && item.id !== '')) return message
  return withItems(message, rest)
}
