/**
 * OpenAI Chat Completions messages <-> canonical messages.
 *
 * Mapping:
 * - assistant: content text (and a top-level `refusal`) become text parts, then one
 *   tool-call part per `tool_calls` entry (`argsText` = the `arguments` string as sent;
 *   `custom` tool calls use their `input` string).
 * - tool: role 'tool' with one tool-result part; its name is the message's `name` when
 *   given, else the name of the most recent earlier call with that id.
 * - Legacy functions: an assistant `function_call` becomes a tool-call part with the
 *   synthetic id `legacy_fn_<message index>`, and a `{role:'function', name, content}`
 *   message becomes a 'tool' message whose result answers the oldest unanswered legacy
 *   call of that name (`legacy_fn_result_<index>` if there is none).
 * - Content parts: text and refusal -> text, image_url -> image, anything else
 *   (input_audio, file, future types) -> opaque. Empty string content yields no part.
 *
 * Output for other formats' messages drops reasoning (Chat Completions cannot take it
 * back), turns opaque parts into text, and emits tool results as `tool` messages right
 * after the message that carried them (before any remaining user content).
 */
import type { CanonicalConversation, CanonicalMessage, CanonicalPart, CanonicalRole, ImagePart, OpaquePart, TextPart, ToolCallPart, ToolResultPart } from './canonical.ts'
import {
  CREATED_INDEX,
  UNCONVERTIBLE_IMAGE_TEXT,
  type FormatAdapter,
  type JsonObject,
  assertOwnFormat,
  expected,
  fail,
  findToolPart,
  firstTextPart,
  isNonEmptyString,
  isRecord,
  missingToolPart,
  parseDataUrl,
  replaceAt,
  replaceTextElements,
  replaceTextParts,
  timestampOf,
  toDataUrl,
} from './adapter.ts'
import { mediaKind, mediaPart, opaquePart } from './media.ts'

const ROLES = 'one of "system", "developer", "user", "assistant", "tool"'
const LEGACY_ID_PREFIX = 'legacy_fn_'

/** Parser state carried across messages: tool names by call id, unanswered legacy calls. */
interface ParseState {
  names: Map<string, string>
  legacyPending: { id: string; name: string }[]
}

function parse(messages: readonly unknown[]): CanonicalConversation {
  const state: ParseState = { names: new Map(), legacyPending: [] }
  const out: CanonicalMessage[] = new Array(messages.length)
  for (let i = 0; i < messages.length; i++) out[i] = parseMessage(messages[i], i, state)
  return { format: 'openai', messages: out }
}

function parseMessage(raw: unknown, i: number, state: ParseState): CanonicalMessage {
  if (!isRecord(raw)) expected(i, `messages[${i}]`, 'a message object', raw)
  const role = raw.role
  if (typeof role !== 'string') expected(i, `messages[${i}].role`, `a string, ${ROLES}`, role)
  if (raw.name !== undefined && typeof raw.name !== 'string') expected(i, `messages[${i}].name`, 'a string', raw.name)

  let canonicalRole: CanonicalRole
  let parts: CanonicalPart[]
  switch (role) {
    case 'system':
    case 'developer':
    case 'user':
      canonicalRole = role
      parts = parseContent(raw.content, i, false)
      break
    case 'assistant':
      canonicalRole = 'assistant'
      parts = parseAssistant(raw, i, state)
      break
    case 'tool':
      canonicalRole = 'tool'
      parts = [parseToolMessage(raw, i, state)]
      break
    case 'function':
      canonicalRole = 'tool'
      parts = [parseFunctionMessage(raw, i, state)]
      break
    default:
      fail(i, `messages[${i}].role`, `expected ${ROLES} (OpenAI Chat Completions), got ${JSON.stringify(role)}`)
  }
  if (role !== 'assistant' && raw.tool_calls != null) {
    fail(i, `messages[${i}].tool_calls`, `only assistant messages carry tool calls, but this message has role ${JSON.stringify(role)}`)
  }

  const message: CanonicalMessage = { role: canonicalRole, parts, index: i, format: 'openai', raw }
  const timestamp = timestampOf(raw)
  if (timestamp !== undefined) message.timestamp = timestamp
  if (typeof raw.name === 'string') message.name = raw.name
  return message
}

/** `content` as parts. Null/absent is only allowed where `nullable` (assistant). */
function parseContent(content: unknown, i: number, nullable: boolean): CanonicalPart[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }]
  if (content == null && nullable) return []
  if (!Array.isArray(content)) expected(i, `messages[${i}].content`, 'a string or an array of content parts', content)
  const parts: CanonicalPart[] = new Array(content.length)
  for (let j = 0; j < content.length; j++) parts[j] = parseContentPart(content[j], i, j)
  return parts
}

/** Structural part types of the other formats, by format. */
const FOREIGN_PART_TYPES: Record<string, string> = {
  tool_use: 'Anthropic',
  tool_result: 'Anthropic',
  thinking: 'Anthropic',
  redacted_thinking: 'Anthropic',
  'tool-call': 'AI SDK',
  'tool-result': 'AI SDK',
  reasoning: 'AI SDK',
}

function parseContentPart(part: unknown, i: number, j: number): TextPart | ImagePart | OpaquePart {
  if (!isRecord(part)) expected(i, `messages[${i}].content[${j}]`, 'a content part object', part)
  switch (part.type) {
    case 'text':
      if (typeof part.text !== 'string') expected(i, `messages[${i}].content[${j}].text`, 'a string', part.text)
      return { type: 'text', text: part.text }
    case 'refusal':
      if (typeof part.refusal !== 'string') expected(i, `messages[${i}].content[${j}].refusal`, 'a string', part.refusal)
      return { type: 'text', text: part.refusal }
    case 'image_url': {
      const image = part.image_url
      if (!isRecord(image)) expected(i, `messages[${i}].content[${j}].image_url`, 'an object {url, detail?}', image)
      if (typeof image.url !== 'string') expected(i, `messages[${i}].content[${j}].image_url.url`, 'a string (an https: or data: URL)', image.url)
      const out: ImagePart = { type: 'image', url: image.url }
      const inline = parseDataUrl(image.url)
      if (inline) out.mediaType = inline.mediaType
      return out
    }
    default:
      if (typeof part.type !== 'string') {
        expected(i, `messages[${i}].content[${j}].type`, 'a string such as "text" or "image_url"', part.type)
      }
      if (FOREIGN_PART_TYPES[part.type]) {
        // Tool and reasoning blocks of another format would silently lose their pairing here.
        fail(
          i,
          `messages[${i}].content[${j}].type`,
          `"${part.type}" is a ${FOREIGN_PART_TYPES[part.type]} part, not valid in OpenAI messages; send format "${FOREIGN_PART_TYPES[part.type] === 'Anthropic' ? 'anthropic' : 'ai-sdk'}" or omit format`,
        )
      }
      if (part.type === 'input_audio' && isRecord(part.input_audio)) {
        const audio = part.input_audio
        const data = typeof audio.data === 'string' ? audio.data : undefined
        return mediaPart(part, 'audio', typeof audio.format === 'string' ? `audio/${audio.format}` : undefined, data)
      }
      if (part.type === 'file' && isRecord(part.file)) {
        const file = part.file
        const filename = typeof file.filename === 'string' ? file.filename : undefined
        const data = typeof file.file_data === 'string' ? file.file_data : undefined
        return mediaPart(part, mediaKind(undefined, filename), undefined, data)
      }
      // Part types newer than this adapter (or another format's image block): kept, counted as JSON or as the payload they carry.
      return opaquePart(part)
  }
}

function parseAssistant(raw: JsonObject, i: number, state: ParseState): CanonicalPart[] {
  const parts = parseContent(raw.content, i, true)
  if (raw.refusal != null) {
    if (typeof raw.refusal !== 'string') expected(i, `messages[${i}].refusal`, 'a string', raw.refusal)
    if (raw.refusal !== '') parts.push({ type: 'text', text: raw.refusal })
  }
  const calls = raw.tool_calls
  if (calls != null) {
    if (!Array.isArray(calls)) expected(i, `messages[${i}].tool_calls`, 'an array of tool calls', calls)
    for (let j = 0; j < calls.length; j++) {
      const part = parseToolCall(calls[j], i, j)
      state.names.set(part.id, part.name)
      parts.push(part)
    }
  }
  const legacy = raw.function_call
  if (legacy != null) {
    if (!isRecord(legacy)) expected(i, `messages[${i}].function_call`, 'an object {name, arguments}', legacy)
    if (!isNonEmptyString(legacy.name)) expected(i, `messages[${i}].function_call.name`, 'a non-empty string', legacy.name)
    if (typeof legacy.arguments !== 'string') {
      expected(i, `messages[${i}].function_call.arguments`, 'a string', legacy.arguments, 'OpenAI sends function arguments as a JSON string')
    }
    const id = LEGACY_ID_PREFIX + i
    state.legacyPending.push({ id, name: legacy.name })
    state.names.set(id, legacy.name)
    parts.push({ type: 'tool-call', id, name: legacy.name, argsText: legacy.arguments })
  }
  return parts
}

function parseToolCall(call: unknown, i: number, j: number): ToolCallPart {
  const at = `messages[${i}].tool_calls[${j}]`
  if (!isRecord(call)) expected(i, at, 'a tool call object {id, type: "function", function: {name, arguments}}', call)
  if (!isNonEmptyString(call.id)) expected(i, `${at}.id`, 'a non-empty string', call.id)
  if (call.type === 'function') {
    const fn = call.function
    if (!isRecord(fn)) expected(i, `${at}.function`, 'an object {name, arguments}', fn)
    if (!isNonEmptyString(fn.name)) expected(i, `${at}.function.name`, 'a non-empty string', fn.name)
    if (typeof fn.arguments !== 'string') {
      expected(i, `${at}.function.arguments`, 'a string', fn.arguments, 'OpenAI sends tool arguments as a JSON string')
    }
    return { type: 'tool-call', id: call.id, name: fn.name, argsText: fn.arguments }
  }
  if (call.type === 'custom') {
    const custom = call.custom
    if (!isRecord(custom)) expected(i, `${at}.custom`, 'an object {name, input}', custom)
    if (!isNonEmptyString(custom.name)) expected(i, `${at}.custom.name`, 'a non-empty string', custom.name)
    if (typeof custom.input !== 'string') expected(i, `${at}.custom.input`, 'a string', custom.input)
    return { type: 'tool-call', id: call.id, name: custom.name, argsText: custom.input }
  }
  expected(i, `${at}.type`, '"function" (or "custom")', call.type)
}

function parseToolMessage(raw: JsonObject, i: number, state: ParseState): ToolResultPart {
  if (!isNonEmptyString(raw.tool_call_id)) {
    expected(i, `messages[${i}].tool_call_id`, 'a non-empty string', raw.tool_call_id, 'the id of the assistant tool call this message answers')
  }
  const result: ToolResultPart = { type: 'tool-result', callId: raw.tool_call_id, text: toolText(raw.content, i) }
  const name = typeof raw.name === 'string' ? raw.name : state.names.get(raw.tool_call_id)
  if (name !== undefined) result.name = name
  return result
}

function parseFunctionMessage(raw: JsonObject, i: number, state: ParseState): ToolResultPart {
  if (!isNonEmptyString(raw.name)) expected(i, `messages[${i}].name`, 'a non-empty string', raw.name, 'a function message names the function it answers')
  const name = raw.name
  const pending = state.legacyPending.findIndex((call) => call.name === name)
  const callId = pending === -1 ? `${LEGACY_ID_PREFIX}result_${i}` : state.legacyPending.splice(pending, 1)[0].id
  const text = raw.content == null ? '' : toolText(raw.content, i)
  return { type: 'tool-result', callId, name, text }
}

/** Tool message content flattened: the string, or its parts' text joined by newlines. */
function toolText(content: unknown, i: number): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) expected(i, `messages[${i}].content`, 'a string or an array of text parts', content)
  const texts: string[] = new Array(content.length)
  for (let j = 0; j < content.length; j++) {
    const part = parseContentPart(content[j], i, j)
    texts[j] = part.type === 'image' ? '[image]' : part.text
  }
  return texts.join('\n')
}

// ---------------------------------------------------------------------------
// Output

function serialize(messages: readonly CanonicalMessage[]): { messages: unknown[] } {
  const out: unknown[] = []
  for (const message of messages) {
    if (message.format === 'openai') out.push(message.raw)
    else emitConverted(message, out)
  }
  return { messages: out }
}

/** Builds OpenAI messages from another format's message (may yield several: tool results split out). */
function emitConverted(message: CanonicalMessage, out: unknown[]): void {
  const results: ToolResultPart[] = []
  const calls: ToolCallPart[] = []
  const content: (TextPart | ImagePart)[] = []
  for (const part of message.parts) {
    switch (part.type) {
      case 'tool-result':
        results.push(part)
        break
      case 'tool-call':
        calls.push(part)
        break
      case 'text':
        content.push(part)
        break
      case 'opaque':
        content.push({ type: 'text', text: part.text })
        break
      case 'image':
        content.push(part)
        break
      case 'reasoning':
        break // Chat Completions takes no reasoning back
    }
  }
  const toolMessages = results.map((r) => ({ role: 'tool', tool_call_id: r.callId, content: r.text }))

  switch (message.role) {
    case 'tool':
      out.push(...toolMessages)
      return
    case 'assistant': {
      const texts = content.filter((p): p is TextPart => p.type === 'text') // images cannot be sent as assistant content
      const msg: JsonObject = { role: 'assistant', content: texts.length === 0 && calls.length > 0 ? null : textContent(texts) }
      if (message.name !== undefined) msg.name = message.name
      if (calls.length > 0) {
        msg.tool_calls = calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.argsText } }))
      }
      out.push(msg)
      out.push(...toolMessages) // provider-executed results (AI SDK) follow their calls
      return
    }
    default: {
      // system, developer, user. Results (Anthropic user tool_result blocks) come first, as tool messages.
      out.push(...toolMessages)
      if (results.length > 0 && content.length === 0) return
      const msg: JsonObject = { role: message.role, content: userContent(content) }
      if (message.name !== undefined) msg.name = message.name
      out.push(msg)
    }
  }
}

/** A single text stays a plain string; several become text parts. */
function textContent(texts: readonly TextPart[]): string | JsonObject[] {
  if (texts.length === 0) return ''
  if (texts.length === 1) return texts[0].text
  return texts.map((t) => ({ type: 'text', text: t.text }))
}

function userContent(parts: readonly (TextPart | ImagePart)[]): string | JsonObject[] {
  if (parts.every((p) => p.type === 'text')) return textContent(parts as TextPart[])
  return parts.map((p) => {
    if (p.type === 'text') return { type: 'text', text: p.text }
    if (p.url === undefined && p.data === undefined) return { type: 'text', text: UNCONVERTIBLE_IMAGE_TEXT }
    return { type: 'image_url', image_url: { url: p.url ?? toDataUrl(p.mediaType, p.data as string) } }
  })
}

// ---------------------------------------------------------------------------
// Edits

function createTextMessage(role: 'system' | 'developer' | 'user' | 'assistant', text: string): CanonicalMessage {
  return { role, parts: text === '' ? [] : [{ type: 'text', text }], index: CREATED_INDEX, format: 'openai', raw: { role, content: text } }
}

function withToolResultText(message: CanonicalMessage, callId: string, text: string): CanonicalMessage {
  assertOwnFormat('openai', message)
  const at = findToolPart(message.parts, 'tool-result', callId)
  if (at === -1 || !isRecord(message.raw)) missingToolPart(message, 'result', callId)
  const part = message.parts[at] as ToolResultPart
  return { ...message, raw: { ...message.raw, content: text }, parts: replaceAt(message.parts, at, { ...part, text }) }
}

function withToolCallArgs(message: CanonicalMessage, callId: string, argsText: string): CanonicalMessage {
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
function withText(message: CanonicalMessage, text: string): CanonicalMessage {
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
      next.content = replaceTextElements(content as unknown[], message.parts, (p) => (p.type === 'refusal' ? { ...p, refusal: text } : { ...p, text }))
    }
  } else {
    // The only text is the top-level refusal.
    next = { ...raw, refusal: text }
    drop = text === ''
  }
  return { ...message, raw: next, parts: replaceTextParts(message.parts, text, drop) }
}

/** An OpenAI message carries at most one result (a tool or function message), so removing it leaves nothing. */
function withoutToolResult(message: CanonicalMessage, callId: string): CanonicalMessage | null {
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
function createToolResults(callMessage: CanonicalMessage, calls: readonly { id: string; name: string }[], text: string): CanonicalMessage[] {
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

export const openaiAdapter: FormatAdapter = {
  format: 'openai',
  parse,
  serialize,
  createTextMessage,
  withToolResultText,
  withToolCallArgs,
  withText,
  withoutToolResult,
  createToolResults,
}
