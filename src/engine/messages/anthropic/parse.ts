/**
 * Anthropic Messages <-> canonical messages.
 *
 * Mapping:
 * - The top-level `system` (string or text blocks) becomes a canonical 'system' message
 *   with index -1, placed first; its `raw` is the original value.
 * - Array content becomes exactly one part per block, in order (the edit helpers and
 *   `reasoningSignature` rely on this): text -> text, image -> image, tool_use ->
 *   tool-call (`argsText` = JSON of `input`), tool_result -> tool-result (text = the
 *   string, or its blocks' text joined by newlines), thinking / redacted_thinking ->
 *   reasoning (a redacted block's text is its opaque `data`), anything else (document,
 *   server_tool_use, web_search_tool_result...) -> opaque. String content is one text
 *   part, or none when empty.
 * - A user message holding tool_result blocks stays role 'user'.
 *
 * Output (see `serialize`): system/developer go to the top-level `system`; tool results
 * become user tool_result blocks placed first; converted same-role neighbours are merged
 * (original Anthropic messages never are); the conversation starts with a user message.
 */
import type { CanonicalConversation, CanonicalMessage, CanonicalPart, ImagePart, ToolResultPart, OpaquePart } from '../canonical.ts'
import { type JsonObject, expected, fail, isNonEmptyString, isRecord, reasoningSignature, timestampOf } from '../adapter.ts'
import { mediaKind, mediaPart, opaquePart } from '../media.ts'

export function parse(messages: readonly unknown[], system?: unknown): CanonicalConversation {
  const hasSystem = system !== undefined && system !== null
  const out: CanonicalMessage[] = new Array(messages.length + (hasSystem ? 1 : 0))
  let k = 0
  if (hasSystem) out[k++] = parseSystem(system)
  for (let i = 0; i < messages.length; i++) out[k++] = parseMessage(messages[i], i)
  const conversation: CanonicalConversation = { format: 'anthropic', messages: out }
  if (hasSystem) conversation.anthropicSystem = system
  return conversation
}

function parseSystem(system: unknown): CanonicalMessage {
  let parts: CanonicalPart[]
  if (typeof system === 'string') {
    parts = system === '' ? [] : [{ type: 'text', text: system }]
  } else if (Array.isArray(system)) {
    parts = new Array(system.length)
    for (let j = 0; j < system.length; j++) {
      const block: unknown = system[j]
      if (!isRecord(block)) expected(null, `system[${j}]`, 'a text block {type: "text", text}', block)
      if (block.type !== 'text') expected(null, `system[${j}].type`, '"text"', block.type, "Anthropic's system prompt takes text blocks only")
      if (typeof block.text !== 'string') expected(null, `system[${j}].text`, 'a string', block.text)
      parts[j] = { type: 'text', text: block.text }
    }
  } else {
    expected(null, 'system', 'a string or an array of text blocks', system)
  }
  return { role: 'system', parts, index: -1, format: 'anthropic', raw: system }
}

export function parseMessage(raw: unknown, i: number): CanonicalMessage {
  if (!isRecord(raw)) expected(i, `messages[${i}]`, 'a message object {role, content}', raw)
  const role = raw.role
  if (role !== 'user' && role !== 'assistant') {
    if (typeof role !== 'string') expected(i, `messages[${i}].role`, 'a string, "user" or "assistant"', role)
    const hint = role === 'system' ? '; pass the system prompt as the top-level `system`' : role === 'tool' ? '; tool results go in a user message as tool_result blocks' : ''
    fail(i, `messages[${i}].role`, `expected "user" or "assistant" (Anthropic Messages), got ${JSON.stringify(role)}${hint}`)
  }
  const content = raw.content
  let parts: CanonicalPart[]
  if (typeof content === 'string') {
    parts = content === '' ? [] : [{ type: 'text', text: content }]
  } else if (Array.isArray(content)) {
    parts = new Array(content.length)
    for (let j = 0; j < content.length; j++) parts[j] = parseBlock(content[j], i, j, role)
  } else {
    expected(i, `messages[${i}].content`, 'a string or an array of content blocks', content)
  }
  const message: CanonicalMessage = { role, parts, index: i, format: 'anthropic', raw }
  const timestamp = timestampOf(raw)
  if (timestamp !== undefined) message.timestamp = timestamp
  return message
}

function parseBlock(block: unknown, i: number, j: number, role: 'user' | 'assistant'): CanonicalPart {
  const at = `messages[${i}].content[${j}]`
  if (!isRecord(block)) expected(i, at, 'a content block object', block)
  switch (block.type) {
    case 'text':
      if (typeof block.text !== 'string') expected(i, `${at}.text`, 'a string', block.text)
      return { type: 'text', text: block.text }
    case 'image':
      return parseImage(block, i, at)
    case 'tool_use': {
      if (role !== 'assistant') fail(i, `${at}.type`, 'tool_use blocks belong in assistant messages')
      if (!isNonEmptyString(block.id)) expected(i, `${at}.id`, 'a non-empty string', block.id)
      if (!isNonEmptyString(block.name)) expected(i, `${at}.name`, 'a non-empty string', block.name)
      if (!isRecord(block.input)) expected(i, `${at}.input`, 'an object', block.input, 'Anthropic tool input is a JSON object, not a string')
      return { type: 'tool-call', id: block.id, name: block.name, argsText: JSON.stringify(block.input) }
    }
    case 'tool_result': {
      if (role !== 'user') fail(i, `${at}.type`, 'tool_result blocks belong in user messages')
      if (!isNonEmptyString(block.tool_use_id)) {
        expected(i, `${at}.tool_use_id`, 'a non-empty string', block.tool_use_id, 'the id of the tool_use block this result answers')
      }
      if (block.is_error !== undefined && typeof block.is_error !== 'boolean') expected(i, `${at}.is_error`, 'a boolean', block.is_error)
      const result: ToolResultPart = { type: 'tool-result', callId: block.tool_use_id, text: toolResultText(block.content, i, at) }
      if (block.is_error === true) result.isError = true
      return result
    }
    case 'thinking':
      if (typeof block.thinking !== 'string') expected(i, `${at}.thinking`, 'a string', block.thinking)
      if (block.signature !== undefined && typeof block.signature !== 'string') expected(i, `${at}.signature`, 'a string', block.signature)
      return { type: 'reasoning', text: block.thinking }
    case 'redacted_thinking':
      if (typeof block.data !== 'string') expected(i, `${at}.data`, 'a string', block.data)
      return { type: 'reasoning', text: block.data, redacted: true }
    default:
      if (typeof block.type !== 'string') expected(i, `${at}.type`, 'a string such as "text", "tool_use" or "tool_result"', block.type)
      return otherBlock(block)
  }
}

/**
 * A block this model does not interpret: a document given as a payload is media; search_result,
 * server_tool_use, web_search_tool_result, a text document and future types are their JSON
 * (or media, if they carry a payload: opaquePart).
 */
function otherBlock(block: JsonObject): OpaquePart {
  return (block.type === 'document' ? documentMedia(block) : undefined) ?? opaquePart(block)
}

function parseImage(block: JsonObject, i: number, at: string): ImagePart {
  const source = block.source
  if (!isRecord(source)) expected(i, `${at}.source`, 'an object {type: "base64", media_type, data} or {type: "url", url}', source)
  const image: ImagePart = { type: 'image' }
  if (source.type === 'base64') {
    if (typeof source.media_type !== 'string') expected(i, `${at}.source.media_type`, 'a string such as "image/png"', source.media_type)
    if (typeof source.data !== 'string') expected(i, `${at}.source.data`, 'a base64 string', source.data)
    image.mediaType = source.media_type
    image.data = source.data
  } else if (source.type === 'url') {
    if (typeof source.url !== 'string') expected(i, `${at}.source.url`, 'a string', source.url)
    image.url = source.url
  } else if (typeof source.type !== 'string') {
    expected(i, `${at}.source.type`, '"base64" or "url"', source.type)
  }
  // Other source types (file ids) stay in raw; the part only says "an image".
  return image
}

/**
 * A document given as base64 (a PDF) or by URL or file id, as media; undefined for a text
 * document (`source.type` "text" or "content"), which is counted as the text it is.
 */
function documentMedia(block: JsonObject): OpaquePart | undefined {
  const source = block.source
  if (!isRecord(source)) return undefined
  const mediaType = typeof source.media_type === 'string' ? source.media_type : undefined
  if (source.type === 'base64' && typeof source.data === 'string') return mediaPart(block, mediaKind(mediaType) === 'file' ? 'document' : mediaKind(mediaType), mediaType, source.data)
  if (source.type === 'url' || source.type === 'file') return mediaPart(block, 'document', mediaType, undefined)
  return undefined
}

/** tool_result content flattened: the string, or its blocks' text joined by newlines. */
function toolResultText(content: unknown, i: number, at: string): string {
  if (content === undefined) return ''
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) expected(i, `${at}.content`, 'a string or an array of content blocks', content)
  const texts: string[] = new Array(content.length)
  for (let k = 0; k < content.length; k++) {
    const block: unknown = content[k]
    if (!isRecord(block)) expected(i, `${at}.content[${k}]`, 'a content block object', block)
    if (block.type === 'text') {
      if (typeof block.text !== 'string') expected(i, `${at}.content[${k}].text`, 'a string', block.text)
      texts[k] = block.text
    } else if (block.type === 'image') {
      texts[k] = '[image]'
    } else {
      if (typeof block.type !== 'string') expected(i, `${at}.content[${k}].type`, 'a string such as "text"', block.type)
      // A payload becomes its note: the result's text never holds base64.
      texts[k] = otherBlock(block).text
    }
  }
  return texts.join('\n')
}
