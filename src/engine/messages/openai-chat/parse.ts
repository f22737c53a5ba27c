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
import type { CanonicalConversation, CanonicalMessage, CanonicalPart, CanonicalRole, ImagePart, OpaquePart, TextPart, ToolCallPart, ToolResultPart } from '../canonical.ts'
import { type JsonObject, expected, fail, isNonEmptyString, isRecord, parseDataUrl, timestampOf } from '../adapter.ts'
import { mediaKind, mediaPart, opaquePart } from '../media.ts'

const ROLES = 'one of "system", "developer", "user", "assistant", "tool"'
export const LEGACY_ID_PREFIX = 'legacy_fn_'

/** Parser state carried across messages: tool names by call id, unanswered legacy calls. */
export interface ParseState {
  names: Map<string, string>
  legacyPending: { id: string; name: string }[]
}

export function parse(messages: readonly unknown[]): CanonicalConversation {
  const state: ParseState = { names: new Map(), legacyPending: [] }
  const out: CanonicalMessage[] = new Array(messages.length)
  for (let i = 0; i < messages.length; i++) out[i] = parseMessage(messages[i], i, state)
  return { format: 'openai', messages: out }
}

export function parseMessage(raw: unknown, i: number, state: ParseState): CanonicalMessage {
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
