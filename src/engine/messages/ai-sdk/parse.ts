/**
 * Vercel AI SDK `ModelMessage` (v5; v4 `CoreMessage` names accepted) <-> canonical messages.
 *
 * Mapping:
 * - Array content becomes exactly one part per content part, in order (the edit helpers
 *   and `reasoningSignature` rely on this): text -> text, image -> image, file -> opaque,
 *   reasoning -> reasoning (v5 `providerOptions.anthropic.redactedData` or v4
 *   `redacted-reasoning` -> redacted, text = the data), tool-call -> tool-call (`argsText`
 *   = JSON of v5 `input` or v4 `args`), tool-result -> tool-result (name = `toolName`;
 *   text = v5 `output` flattened: text value, JSON of json value, text items of
 *   `content`; or the v4 `result`, JSON unless a string), other types -> opaque.
 * - Tool results stay where they are: in 'tool' messages, or in assistant messages for
 *   provider-executed tools.
 * - `providerOptions` and every unknown field live on in `raw`.
 *
 * Output for other formats' messages uses v5 names (`input`, `output`), writes one tool
 * message per source message holding results, and puts a user message's results (from
 * Anthropic) in a tool message before it. A developer message becomes a system message.
 */
import type { CanonicalConversation, CanonicalMessage, CanonicalPart, CanonicalRole, ImagePart, ToolResultPart, OpaquePart } from '../canonical.ts'
import { type JsonObject, expected, fail, isNonEmptyString, isRecord, jsonText, parseDataUrl, reasoningSignature, timestampOf } from '../adapter.ts'
import { mediaKind, mediaPart, opaquePart } from '../media.ts'

const ROLES = 'one of "system", "user", "assistant", "tool"'

export function parse(messages: readonly unknown[]): CanonicalConversation {
  const out: CanonicalMessage[] = new Array(messages.length)
  for (let i = 0; i < messages.length; i++) out[i] = parseMessage(messages[i], i)
  return { format: 'ai-sdk', messages: out }
}

export function parseMessage(raw: unknown, i: number): CanonicalMessage {
  if (!isRecord(raw)) expected(i, `messages[${i}]`, 'a message object {role, content}', raw)
  const role = raw.role
  const content = raw.content
  let parts: CanonicalPart[]
  switch (role) {
    case 'system':
      if (typeof content !== 'string') expected(i, `messages[${i}].content`, 'a string', content, 'AI SDK system messages hold plain text')
      parts = content === '' ? [] : [{ type: 'text', text: content }]
      break
    case 'user':
    case 'assistant':
      if (typeof content === 'string') {
        parts = content === '' ? [] : [{ type: 'text', text: content }]
        break
      }
      if (!Array.isArray(content)) expected(i, `messages[${i}].content`, 'a string or an array of parts', content)
      parts = new Array(content.length)
      for (let j = 0; j < content.length; j++) parts[j] = parsePart(content[j], i, j, role)
      break
    case 'tool':
      if (!Array.isArray(content)) expected(i, `messages[${i}].content`, 'an array of tool-result parts', content)
      parts = new Array(content.length)
      for (let j = 0; j < content.length; j++) parts[j] = parsePart(content[j], i, j, role)
      break
    default:
      if (typeof role !== 'string') expected(i, `messages[${i}].role`, `a string, ${ROLES}`, role)
      fail(i, `messages[${i}].role`, `expected ${ROLES} (AI SDK ModelMessage), got ${JSON.stringify(role)}`)
  }
  const message: CanonicalMessage = { role: role as CanonicalRole, parts, index: i, format: 'ai-sdk', raw }
  const timestamp = timestampOf(raw)
  if (timestamp !== undefined) message.timestamp = timestamp
  return message
}

function parsePart(part: unknown, i: number, j: number, role: 'user' | 'assistant' | 'tool'): CanonicalPart {
  const at = `messages[${i}].content[${j}]`
  if (!isRecord(part)) expected(i, at, 'a part object', part)
  switch (part.type) {
    case 'text':
      if (typeof part.text !== 'string') expected(i, `${at}.text`, 'a string', part.text)
      return { type: 'text', text: part.text }
    case 'image':
      return parseImage(part, i, at)
    case 'file':
      if (part.data === undefined || part.data === null) expected(i, `${at}.data`, 'file data (base64 string, URL or bytes)', part.data)
      if (typeof (part.mediaType ?? part.mimeType) !== 'string') expected(i, `${at}.mediaType`, 'a string such as "application/pdf"', part.mediaType)
      return fileMedia(part)
    case 'reasoning': {
      if (typeof part.text !== 'string') expected(i, `${at}.text`, 'a string', part.text)
      const redactedData = anthropicOption(part, 'redactedData')
      return typeof redactedData === 'string' ? { type: 'reasoning', text: redactedData, redacted: true } : { type: 'reasoning', text: part.text }
    }
    case 'redacted-reasoning': // v4
      if (typeof part.data !== 'string') expected(i, `${at}.data`, 'a string', part.data)
      return { type: 'reasoning', text: part.data, redacted: true }
    case 'tool-call': {
      if (role !== 'assistant') fail(i, `${at}.type`, 'tool-call parts belong in assistant messages')
      if (!isNonEmptyString(part.toolCallId)) expected(i, `${at}.toolCallId`, 'a non-empty string', part.toolCallId)
      if (!isNonEmptyString(part.toolName)) expected(i, `${at}.toolName`, 'a non-empty string', part.toolName)
      const input = part.input !== undefined ? part.input : part.args
      if (input === undefined) fail(i, `${at}.input`, 'missing; expected the tool input (`input` in AI SDK v5, `args` in v4)')
      return { type: 'tool-call', id: part.toolCallId, name: part.toolName, argsText: jsonText(input) }
    }
    case 'tool-result':
      if (role === 'user') fail(i, `${at}.type`, 'tool-result parts belong in tool messages')
      return parseToolResult(part, i, at)
    default:
      if (typeof part.type !== 'string') expected(i, `${at}.type`, 'a string such as "text", "tool-call" or "tool-result"', part.type)
      if (role === 'tool' && part.type !== 'tool-approval-response') {
        fail(i, `${at}.type`, `expected "tool-result" in a tool message, got ${JSON.stringify(part.type)}`)
      }
      return opaquePart(part)
  }
}

/** A file part as media: inline base64 (or a data: URL) is sized; a URL is a reference. Bytes sent as a JSON array are counted as JSON. */
function fileMedia(part: JsonObject): OpaquePart {
  const mediaType = String(part.mediaType ?? part.mimeType)
  const data = part.data
  if (typeof data !== 'string') return { type: 'opaque', text: jsonText(part) }
  const byReference = /^[a-z][a-z0-9+.-]*:\/\//i.test(data)
  return mediaPart(part, mediaKind(mediaType, typeof part.filename === 'string' ? part.filename : undefined), mediaType, byReference ? undefined : data)
}

function parseImage(part: JsonObject, i: number, at: string): ImagePart {
  const image = part.image
  if (image === undefined || image === null) expected(i, `${at}.image`, 'image data (base64 string, URL or bytes)', image)
  const out: ImagePart = { type: 'image' }
  const mediaType = part.mediaType ?? part.mimeType
  if (typeof mediaType === 'string') out.mediaType = mediaType
  if (typeof image === 'string') {
    const inline = parseDataUrl(image)
    if (inline) {
      out.url = image
      out.mediaType ??= inline.mediaType
    } else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(image)) {
      out.url = image
    } else {
      out.data = image
    }
  }
  return out
}

function parseToolResult(part: JsonObject, i: number, at: string): ToolResultPart {
  if (!isNonEmptyString(part.toolCallId)) expected(i, `${at}.toolCallId`, 'a non-empty string', part.toolCallId)
  if (typeof part.toolName !== 'string') expected(i, `${at}.toolName`, 'a string', part.toolName)
  const result: ToolResultPart = { type: 'tool-result', callId: part.toolCallId, name: part.toolName, text: '' }
  const output = part.output
  if (output !== undefined) {
    if (!isRecord(output) || typeof output.type !== 'string') {
      expected(i, `${at}.output`, 'an object {type, value}', output, 'AI SDK v5 tool output, e.g. {type: "text", value: "..."}')
    }
    result.text = outputText(output, i, at)
    if (output.type === 'error-text' || output.type === 'error-json') result.isError = true
  } else if ('result' in part) {
    // v4: any JSON value, plus an optional isError flag.
    result.text = typeof part.result === 'string' ? part.result : jsonText(part.result)
    if (part.isError === true) result.isError = true
  } else {
    fail(i, `${at}.output`, 'missing; expected the tool output (`output` in AI SDK v5, `result` in v4)')
  }
  return result
}

function outputText(output: JsonObject, i: number, at: string): string {
  const value = output.value
  switch (output.type) {
    case 'text':
    case 'error-text':
      if (typeof value !== 'string') expected(i, `${at}.output.value`, 'a string', value)
      return value
    case 'json':
    case 'error-json':
      return jsonText(value)
    case 'content': {
      if (!Array.isArray(value)) expected(i, `${at}.output.value`, 'an array of content items', value)
      return value.map((item: unknown) => (isRecord(item) && item.type === 'text' && typeof item.text === 'string' ? item.text : `[${isRecord(item) ? String(item.type) : 'content'}]`)).join('\n')
    }
    default:
      // Newer output types (e.g. execution-denied): their text, else their JSON.
      return typeof value === 'string' ? value : typeof output.reason === 'string' ? output.reason : jsonText(value ?? output)
  }
}

/** `providerOptions.anthropic[key]` (also the `providerMetadata` spelling) of a part. */
function anthropicOption(part: JsonObject, key: string): unknown {
  for (const holder of [part.providerOptions, part.providerMetadata]) {
    if (isRecord(holder) && isRecord(holder.anthropic) && holder.anthropic[key] !== undefined) return holder.anthropic[key]
  }
  return undefined
}
