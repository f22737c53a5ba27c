/**
 * OpenAI Responses API input items -> canonical messages.
 *
 * The Responses API takes a flat list of items, where Chat Completions has messages:
 * an assistant turn is a `reasoning` item, a `message` item and `function_call` items
 * one after another, and its results are `function_call_output` items. So items are
 * grouped into canonical messages the way the other formats hold a turn:
 * - a user, system or developer `message` item is one message;
 * - an assistant group is reasoning, then at most one assistant `message`, then calls
 *   (`function_call`, `custom_tool_call`) and other tool items the model emitted
 *   (web_search_call...); a reasoning or assistant message after a message or a call
 *   starts the next group;
 * - consecutive outputs (`function_call_output`, `custom_tool_call_output`, other
 *   `*_output` items) are one 'tool' message, like the AI SDK's.
 * A group's `raw` is its item, or the array of its items when there are several; an
 * element of the caller's array that is itself an array is such a group (how sessions
 * store a group as one message). `index` is the group's first element.
 *
 * Parts, one per content element or item, in order: input_text / output_text /
 * refusal -> text (string content: one text part, none when empty), input_image ->
 * image, input_file / input_audio -> media, reasoning -> one reasoning part (its
 * summary and content text; `encrypted_content` stays in raw only, untouched), calls ->
 * tool-call (`argsText` = the `arguments` string, or a custom call's `input`), outputs
 * -> tool-result (text = the string, or its text items joined by newlines; the name
 * from the call), any other item -> opaque.
 */
import type { CanonicalConversation, CanonicalMessage, CanonicalPart, CanonicalRole, ImagePart, ToolResultPart } from '../canonical.ts'
import { type JsonObject, expected, fail, isNonEmptyString, isRecord, parseDataUrl, timestampOf } from '../adapter.ts'
import { mediaKind, mediaPart, opaquePart } from '../media.ts'

const CALL_TYPES = new Set(['function_call', 'custom_tool_call'])
const OUTPUT_TYPES = new Set(['function_call_output', 'custom_tool_call_output'])
const MESSAGE_ROLES = 'one of "user", "assistant", "system", "developer"'

/** Tool names by call id, so an output's result carries the name of its call. */
export interface ParseState {
  names: Map<string, string>
}

type Side = 'assistant' | 'tool' | 'message'

/** Which kind of group an item belongs to (items are validated as objects first). */
export function sideOf(item: JsonObject): Side {
  const type = itemType(item)
  if (type === 'message') return item.role === 'assistant' ? 'assistant' : 'message'
  if (OUTPUT_TYPES.has(type) || type.endsWith('_output')) return 'tool'
  return 'assistant'
}

/** An item's type; a message may leave it out (the API's "easy" input message). */
export function itemType(item: JsonObject): string {
  return typeof item.type === 'string' ? item.type : 'message'
}

export function parse(items: readonly unknown[]): CanonicalConversation {
  const state: ParseState = { names: new Map() }
  const out: CanonicalMessage[] = []
  let i = 0
  while (i < items.length) {
    const first = items[i]
    if (Array.isArray(first)) {
      out.push(parseGroup(first, i, state, true))
      i++
      continue
    }
    const item = checkItem(first, `messages[${i}]`, i)
    const side = sideOf(item)
    let end = i + 1
    if (side !== 'message') {
      let hasOutput = side === 'assistant' && (isAssistantMessage(item) || CALL_TYPES.has(itemType(item)))
      while (end < items.length) {
        const next = items[end]
        if (!isRecord(next) || sideOf(next) !== side) break
        if (side === 'assistant') {
          const type = itemType(next)
          // Reasoning or a message after the turn's message or calls: the next turn.
          if ((type === 'reasoning' || isAssistantMessage(next)) && hasOutput) break
          if (isAssistantMessage(next) || CALL_TYPES.has(type)) hasOutput = true
        }
        end++
      }
    }
    out.push(parseGroup(end === i + 1 ? item : items.slice(i, end), i, state, false))
    i = end
  }
  return { format: 'responses', messages: out }
}

function isAssistantMessage(item: JsonObject): boolean {
  return itemType(item) === 'message' && item.role === 'assistant'
}

function checkItem(item: unknown, at: string, i: number): JsonObject {
  if (!isRecord(item)) expected(i, at, 'an input item object (a message, function_call, function_call_output, reasoning...)', item)
  if (item.type !== undefined && typeof item.type !== 'string') expected(i, `${at}.type`, 'a string such as "message" or "function_call"', item.type)
  return item
}

/**
 * One canonical message from a group: `raw` an item or an array of items (the caller's
 * element `index`, or from `index` on when `stored`: an array element of the caller's).
 */
export function parseGroup(raw: unknown, index: number, state: ParseState, stored: boolean): CanonicalMessage {
  const items = Array.isArray(raw) ? raw : [raw]
  if (items.length === 0) expected(index, `messages[${index}]`, 'an input item, or a non-empty array of items', raw)
  const at = (k: number) => (stored ? `messages[${index}][${k}]` : `messages[${index + k}]`)
  const itemIndex = (k: number) => (stored ? index : index + k)
  const parts: CanonicalPart[] = []
  let role: CanonicalRole | undefined
  for (let k = 0; k < items.length; k++) {
    const item = checkItem(items[k], at(k), itemIndex(k))
    const side = sideOf(item)
    const itemRole: CanonicalRole = side === 'tool' ? 'tool' : side === 'assistant' ? 'assistant' : messageRole(item, at(k), itemIndex(k))
    if (role !== undefined && itemRole !== role) fail(itemIndex(k), at(k), `a stored group holds items of one turn, but this ${itemType(item)} item does not belong with the ${role} items before it`)
    role = itemRole
    parts.push(...itemParts(item, at(k), itemIndex(k), state))
  }
  const message: CanonicalMessage = { role: role!, parts, index, format: 'responses', raw }
  const timestamp = timestampOf(items[0] as JsonObject)
  if (timestamp !== undefined) message.timestamp = timestamp
  return message
}

function messageRole(item: JsonObject, at: string, i: number): CanonicalRole {
  const role = item.role
  if (role === 'user' || role === 'system' || role === 'developer' || role === 'assistant') return role
  if (typeof role !== 'string') expected(i, `${at}.role`, `a string, ${MESSAGE_ROLES}`, role)
  const hint = role === 'tool' ? '; tool results are function_call_output items' : ''
  fail(i, `${at}.role`, `expected ${MESSAGE_ROLES} (OpenAI Responses), got ${JSON.stringify(role)}${hint}`)
}

/** The parts one item yields: one per content element of a message, else one. */
function itemParts(item: JsonObject, at: string, i: number, state: ParseState): CanonicalPart[] {
  const type = itemType(item)
  switch (type) {
    case 'message':
      return contentParts(item.content, `${at}.content`, i)
    case 'reasoning':
      return [{ type: 'reasoning', text: reasoningText(item, at, i) }]
    case 'function_call': {
      const { id, name } = callIdentity(item, at, i)
      if (typeof item.arguments !== 'string') expected(i, `${at}.arguments`, 'a string', item.arguments, 'the Responses API sends function arguments as a JSON string')
      state.names.set(id, name)
      return [{ type: 'tool-call', id, name, argsText: item.arguments }]
    }
    case 'custom_tool_call': {
      const { id, name } = callIdentity(item, at, i)
      if (typeof item.input !== 'string') expected(i, `${at}.input`, 'a string', item.input, "a custom tool's input is free text")
      state.names.set(id, name)
      return [{ type: 'tool-call', id, name, argsText: item.input }]
    }
    case 'function_call_output':
    case 'custom_tool_call_output': {
      if (!isNonEmptyString(item.call_id)) expected(i, `${at}.call_id`, 'a non-empty string', item.call_id, `the call_id of the ${type.replace('_output', '')} item this output answers`)
      const result: ToolResultPart = { type: 'tool-result', callId: item.call_id, text: outputText(item.output, `${at}.output`, i) }
      const name = state.names.get(item.call_id)
      if (name !== undefined) result.name = name
      return [result]
    }
    default:
      // Hosted tools' calls and outputs (web_search_call, computer_call_output...), item references, newer types.
      return [opaquePart(item)]
  }
}

function callIdentity(item: JsonObject, at: string, i: number): { id: string; name: string } {
  if (!isNonEmptyString(item.call_id)) expected(i, `${at}.call_id`, 'a non-empty string', item.call_id, 'the id its output item answers')
  if (!isNonEmptyString(item.name)) expected(i, `${at}.name`, 'a non-empty string', item.name)
  return { id: item.call_id, name: item.name }
}

function reasoningText(item: JsonObject, at: string, i: number): string {
  const texts: string[] = []
  for (const key of ['summary', 'content'] as const) {
    const list = item[key]
    if (list == null) continue
    if (!Array.isArray(list)) expected(i, `${at}.${key}`, 'an array of text items', list)
    for (let k = 0; k < list.length; k++) {
      const entry: unknown = list[k]
      if (!isRecord(entry) || typeof entry.text !== 'string') expected(i, `${at}.${key}[${k}].text`, 'a string', isRecord(entry) ? entry.text : entry)
      texts.push(entry.text)
    }
  }
  return texts.join('\n\n')
}

/** A message's content as parts: a string is one text part (none when empty). */
export function contentParts(content: unknown, at: string, i: number): CanonicalPart[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }]
  if (!Array.isArray(content)) expected(i, at, 'a string or an array of content parts (input_text, output_text, input_image...)', content)
  const parts: CanonicalPart[] = new Array(content.length)
  for (let j = 0; j < content.length; j++) parts[j] = contentPart(content[j], `${at}[${j}]`, i)
  return parts
}

function contentPart(part: unknown, at: string, i: number): CanonicalPart {
  if (!isRecord(part)) expected(i, at, 'a content part object', part)
  switch (part.type) {
    case 'input_text':
    case 'output_text':
      if (typeof part.text !== 'string') expected(i, `${at}.text`, 'a string', part.text)
      return { type: 'text', text: part.text }
    case 'refusal':
      if (typeof part.refusal !== 'string') expected(i, `${at}.refusal`, 'a string', part.refusal)
      return { type: 'text', text: part.refusal }
    case 'input_image': {
      const image: ImagePart = { type: 'image' }
      if (typeof part.image_url === 'string') {
        image.url = part.image_url
        const inline = parseDataUrl(part.image_url)
        if (inline) image.mediaType = inline.mediaType
      }
      return image // by file_id: the part only says "an image"
    }
    case 'input_file': {
      const filename = typeof part.filename === 'string' ? part.filename : undefined
      return mediaPart(part, mediaKind(undefined, filename), undefined, typeof part.file_data === 'string' ? part.file_data : undefined)
    }
    case 'input_audio': {
      const audio = isRecord(part.input_audio) ? part.input_audio : undefined
      return mediaPart(part, 'audio', typeof audio?.format === 'string' ? `audio/${audio.format}` : undefined, typeof audio?.data === 'string' ? audio.data : undefined)
    }
    default:
      if (typeof part.type !== 'string') expected(i, `${at}.type`, 'a string such as "input_text" or "output_text"', part.type)
      if (part.type === 'text') fail(i, `${at}.type`, '"text" is not a Responses content part; use "input_text" (or "output_text" in assistant messages), or send the format of these messages')
      return opaquePart(part)
  }
}

/** An output's text: the string, or its text items joined by newlines (an image as "[image]"). */
function outputText(output: unknown, at: string, i: number): string {
  if (typeof output === 'string') return output
  if (!Array.isArray(output)) expected(i, at, 'a string or an array of content items', output)
  return contentParts(output, at, i)
    .map((p) => (p.type === 'text' || p.type === 'opaque' ? p.text : p.type === 'image' ? '[image]' : ''))
    .join('\n')
}
