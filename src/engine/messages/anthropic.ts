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
import type { CanonicalConversation, CanonicalMessage, CanonicalPart, ImagePart, ReasoningPart, ToolCallPart, ToolResultPart, OpaquePart } from './canonical.ts'
import {
  CONVERTED_ARGS_KEY,
  COMPACTED_ARGS_KEY,
  CREATED_INDEX,
  type FormatAdapter,
  type JsonObject,
  assertOwnFormat,
  expected,
  fail,
  firstTextPart,
  UNCONVERTIBLE_IMAGE_TEXT,
  inputFromArgsText,
  isNonEmptyString,
  isRecord,
  missingToolPart,
  parseDataUrl,
  reasoningSignature,
  replaceAt,
  replaceTextElements,
  replaceTextParts,
  timestampOf,
} from './adapter.ts'
import { mediaKind, mediaPart, opaquePart } from './media.ts'
import { MessageFormatError } from './errors.ts'

/**
 * Text of the user message inserted when a converted or compacted conversation would
 * otherwise start with an assistant message (Anthropic requires a user message first).
 */
export const CONTINUATION_TEXT = '(conversation continues)'

function parse(messages: readonly unknown[], system?: unknown): CanonicalConversation {
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

function parseMessage(raw: unknown, i: number): CanonicalMessage {
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

// ---------------------------------------------------------------------------
// Output

function serialize(messages: readonly CanonicalMessage[]): { messages: unknown[]; system?: unknown } {
  const systems: CanonicalMessage[] = []
  const out: JsonObject[] = []
  // Messages converted from another format are merged with a converted neighbour of the
  // same role, so parallel tool results land in one user message. Anthropic objects the
  // caller sent (and new ones the engine made) are never merged: kept messages must stay
  // byte-for-byte, and the API itself combines consecutive same-role turns.
  const converted = new WeakSet<JsonObject>()
  const push = (message: JsonObject, isConverted: boolean): void => {
    const last = out[out.length - 1]
    if (isConverted && last !== undefined && converted.has(last) && last.role === message.role) {
      const merged = merge(last, message)
      converted.add(merged)
      out[out.length - 1] = merged
    } else {
      if (isConverted) converted.add(message)
      out.push(message)
    }
  }
  for (const message of messages) {
    if (message.role === 'system' || message.role === 'developer') systems.push(message)
    else if (message.format === 'anthropic' && isRecord(message.raw)) push(message.raw, false)
    else for (const c of convert(message)) push(c, true)
  }
  // Anthropic requires the first message to be a user message. A conversation converted
  // from another format, or compacted, can start with the assistant: only then insert a
  // minimal user message.
  if (out.length > 0 && out[0].role !== 'user') out.unshift({ role: 'user', content: CONTINUATION_TEXT })
  const system = serializeSystem(systems)
  return system === undefined ? { messages: out } : { messages: out, system }
}

/**
 * Merges two same-role messages into a new object (inputs untouched): the first one's
 * other fields are kept, contents are concatenated as blocks, and in user messages
 * tool_result blocks move first (Anthropic requires them before any other content).
 */
function merge(first: JsonObject, second: JsonObject): JsonObject {
  const blocks = [...contentBlocks(first.content), ...contentBlocks(second.content)]
  const content =
    first.role === 'user' ? [...blocks.filter((b) => isToolResultBlock(b)), ...blocks.filter((b) => !isToolResultBlock(b))] : blocks
  return { ...first, content }
}

function contentBlocks(content: unknown): unknown[] {
  if (Array.isArray(content)) return content
  if (typeof content === 'string' && content !== '') return [{ type: 'text', text: content }]
  return []
}

function isToolResultBlock(block: unknown): boolean {
  return isRecord(block) && block.type === 'tool_result'
}

/**
 * Anthropic messages built from another format's message. Tool results (a 'tool'
 * message, Anthropic-style user results, or AI SDK provider-executed results inside an
 * assistant message) go to a user message; empty text is dropped (Anthropic rejects
 * empty text blocks) and a message left with no blocks is dropped.
 */
function convert(message: CanonicalMessage): JsonObject[] {
  const results: JsonObject[] = []
  const blocks: JsonObject[] = []
  message.parts.forEach((part, k) => {
    const block = toBlock(message, part, k)
    if (block === undefined) return
    if (block.type === 'tool_result') results.push(block)
    else blocks.push(block)
  })
  if (message.role === 'assistant') {
    const out: JsonObject[] = []
    if (blocks.length > 0) out.push({ role: 'assistant', content: compactContent(blocks) })
    if (results.length > 0) out.push({ role: 'user', content: results })
    return out
  }
  const content = [...results, ...blocks]
  return content.length === 0 ? [] : [{ role: 'user', content: compactContent(content) }]
}

/** A lone text block is written as plain string content, the common form. */
function compactContent(blocks: JsonObject[]): string | JsonObject[] {
  return blocks.length === 1 && blocks[0].type === 'text' ? (blocks[0].text as string) : blocks
}

function toBlock(message: CanonicalMessage, part: CanonicalPart, k: number): JsonObject | undefined {
  switch (part.type) {
    case 'text':
    case 'opaque':
      return part.text === '' ? undefined : { type: 'text', text: part.text }
    case 'image':
      return imageBlock(part)
    case 'reasoning':
      return reasoningBlock(message, part, k)
    case 'tool-call':
      return toolUseBlock(part, CONVERTED_ARGS_KEY)
    case 'tool-result': {
      const block: JsonObject = { type: 'tool_result', tool_use_id: part.callId }
      if (part.text !== '') block.content = part.text
      if (part.isError) block.is_error = true
      return block
    }
  }
}

function imageBlock(part: ImagePart): JsonObject {
  const inline = part.url === undefined ? undefined : parseDataUrl(part.url)
  if (inline) return { type: 'image', source: { type: 'base64', media_type: inline.mediaType, data: inline.data } }
  if (part.url !== undefined) return { type: 'image', source: { type: 'url', url: part.url } }
  if (part.data !== undefined) return { type: 'image', source: { type: 'base64', media_type: part.mediaType ?? 'image/png', data: part.data } }
  return { type: 'text', text: UNCONVERTIBLE_IMAGE_TEXT }
}

/** Redacted reasoning keeps its data; other reasoning needs a signature, else it is dropped (Anthropic rejects unsigned thinking). */
function reasoningBlock(message: CanonicalMessage, part: ReasoningPart, k: number): JsonObject | undefined {
  if (part.redacted) return { type: 'redacted_thinking', data: part.text }
  const signature = reasoningSignature(message, k)
  return signature === undefined ? undefined : { type: 'thinking', thinking: part.text, signature }
}

function toolUseBlock(part: ToolCallPart, wrapKey: string): JsonObject {
  return { type: 'tool_use', id: part.id, name: part.name, input: inputFromArgsText(part.argsText, wrapKey) }
}

/**
 * Top-level system: the caller's original value when the only system message is
 * Anthropic's own (index -1); otherwise built from all system/developer messages, as a
 * plain string when it is a single text, else as text blocks (Anthropic blocks kept).
 */
function serializeSystem(systems: readonly CanonicalMessage[]): unknown {
  if (systems.length === 1 && isOriginalSystem(systems[0])) return systems[0].raw
  const pieces: (string | unknown)[] = []
  for (const message of systems) {
    if (isOriginalSystem(message) && Array.isArray(message.raw)) pieces.push(...message.raw)
    else for (const part of message.parts) if ((part.type === 'text' || part.type === 'opaque') && part.text !== '') pieces.push(part.text)
  }
  if (pieces.length === 0) return undefined
  if (pieces.length === 1 && typeof pieces[0] === 'string') return pieces[0]
  return pieces.map((piece) => (typeof piece === 'string' ? { type: 'text', text: piece } : piece))
}

function isOriginalSystem(message: CanonicalMessage): boolean {
  return message.format === 'anthropic' && message.role === 'system' && message.index === -1
}

// ---------------------------------------------------------------------------
// Edits

function createTextMessage(role: 'system' | 'developer' | 'user' | 'assistant', text: string): CanonicalMessage {
  if (role !== 'user' && role !== 'assistant') {
    throw new MessageFormatError('role', `Anthropic messages take role "user" or "assistant", not ${JSON.stringify(role)}; system text goes in the top-level \`system\``)
  }
  return { role, parts: text === '' ? [] : [{ type: 'text', text }], index: CREATED_INDEX, format: 'anthropic', raw: { role, content: text } }
}

/** Index of the block (= part, one per block) of the given type and id; -1 when absent. */
function findBlock(message: CanonicalMessage, type: 'tool_use' | 'tool_result', callId: string): number {
  const raw = message.raw
  if (!isRecord(raw) || !Array.isArray(raw.content)) return -1
  const key = type === 'tool_use' ? 'id' : 'tool_use_id'
  return raw.content.findIndex((b: unknown) => isRecord(b) && b.type === type && b[key] === callId)
}

function withToolResultText(message: CanonicalMessage, callId: string, text: string): CanonicalMessage {
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

function withToolCallArgs(message: CanonicalMessage, callId: string, argsText: string): CanonicalMessage {
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
function withText(message: CanonicalMessage, text: string): CanonicalMessage {
  assertOwnFormat('anthropic', message)
  if (firstTextPart(message.parts) === -1) return message
  const isSystem = message.role === 'system'
  const raw = message.raw
  const content = isSystem ? raw : isRecord(raw) ? raw.content : undefined
  let edited: unknown
  if (typeof content === 'string') edited = text
  else if (Array.isArray(content)) edited = replaceTextElements(content, message.parts, ({ citations: _citations, ...block }) => ({ ...block, text }))
  else return message
  return {
    ...message,
    raw: isSystem ? edited : { ...(raw as JsonObject), content: edited },
    parts: replaceTextParts(message.parts, text, typeof content === 'string' && text === ''),
  }
}

function withoutToolResult(message: CanonicalMessage, callId: string): CanonicalMessage | null {
  assertOwnFormat('anthropic', message)
  const j = findBlock(message, 'tool_result', callId)
  if (j === -1) missingToolPart(message, 'result', callId)
  const raw = message.raw as JsonObject
  const blocks = raw.content as unknown[]
  if (blocks.length === 1) return null
  return {
    ...message,
    raw: { ...raw, content: blocks.filter((_, k) => k !== j) },
    parts: message.parts.filter((_, k) => k !== j),
  }
}

/**
 * One user message of tool_result blocks. Anthropic results carry no tool name (the
 * call has it), so, as after `parse`, the parts have none. Empty text is written as a
 * block without content, as conversion does.
 */
function createToolResults(_callMessage: CanonicalMessage, calls: readonly { id: string; name: string }[], text: string): CanonicalMessage[] {
  if (calls.length === 0) return []
  const content = calls.map((c) => (text === '' ? { type: 'tool_result', tool_use_id: c.id } : { type: 'tool_result', tool_use_id: c.id, content: text }))
  return [parseMessage({ role: 'user', content }, CREATED_INDEX)]
}

export const anthropicAdapter: FormatAdapter = {
  format: 'anthropic',
  parse,
  serialize,
  createTextMessage,
  withToolResultText,
  withToolCallArgs,
  withText,
  withoutToolResult,
  createToolResults,
}
