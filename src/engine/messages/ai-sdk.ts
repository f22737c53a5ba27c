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
import type { CanonicalConversation, CanonicalMessage, CanonicalPart, CanonicalRole, ImagePart, ToolResultPart, OpaquePart } from './canonical.ts'
import {
  CONVERTED_ARGS_KEY,
  COMPACTED_ARGS_KEY,
  CREATED_INDEX,
  UNCONVERTIBLE_IMAGE_TEXT,
  type FormatAdapter,
  type JsonObject,
  ToolNames,
  assertOwnFormat,
  expected,
  fail,
  firstTextPart,
  inputFromArgsText,
  isNonEmptyString,
  isRecord,
  jsonText,
  missingToolPart,
  parseDataUrl,
  reasoningSignature,
  replaceAt,
  replaceTextElements,
  replaceTextParts,
  timestampOf,
} from './adapter.ts'
import { mediaKind, mediaPart, opaquePart } from './media.ts'

const ROLES = 'one of "system", "user", "assistant", "tool"'

function parse(messages: readonly unknown[]): CanonicalConversation {
  const out: CanonicalMessage[] = new Array(messages.length)
  for (let i = 0; i < messages.length; i++) out[i] = parseMessage(messages[i], i)
  return { format: 'ai-sdk', messages: out }
}

function parseMessage(raw: unknown, i: number): CanonicalMessage {
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

// ---------------------------------------------------------------------------
// Output

function serialize(messages: readonly CanonicalMessage[]): { messages: unknown[] } {
  const out: unknown[] = []
  const names = new ToolNames()
  for (const message of messages) {
    names.note(message)
    if (message.format === 'ai-sdk') out.push(message.raw)
    else emitConverted(message, names, out)
  }
  return { messages: out }
}

function emitConverted(message: CanonicalMessage, names: ToolNames, out: unknown[]): void {
  const results: JsonObject[] = []
  const content: JsonObject[] = []
  message.parts.forEach((part, k) => {
    if (part.type === 'tool-result') results.push(toolResultPart(part, names))
    else {
      const converted = toPart(message, part, k)
      if (converted !== undefined) content.push(converted)
    }
  })
  const toolMessage = results.length > 0 ? { role: 'tool', content: results } : undefined

  switch (message.role) {
    case 'system':
    case 'developer': {
      // AI SDK system content is a single string; several text parts become several system messages.
      const texts = content.filter((p) => p.type === 'text').map((p) => p.text as string)
      if (texts.length <= 1) out.push({ role: 'system', content: texts[0] ?? '' })
      else for (const text of texts) out.push({ role: 'system', content: text })
      return
    }
    case 'tool':
      if (toolMessage) out.push(toolMessage)
      return
    case 'assistant':
      out.push({ role: 'assistant', content: partsContent(content) })
      if (toolMessage) out.push(toolMessage) // provider-executed results follow their calls
      return
    case 'user':
      if (toolMessage) out.push(toolMessage) // Anthropic user tool_result blocks answer the previous assistant turn
      if (toolMessage && content.length === 0) return
      out.push({ role: 'user', content: partsContent(content.filter((p) => p.type !== 'reasoning' && p.type !== 'tool-call')) })
  }
}

/** A lone text part is written as plain string content. */
function partsContent(parts: JsonObject[]): string | JsonObject[] {
  if (parts.length === 0) return ''
  if (parts.length === 1 && parts[0].type === 'text') return parts[0].text as string
  return parts
}

function toPart(message: CanonicalMessage, part: CanonicalPart, k: number): JsonObject | undefined {
  switch (part.type) {
    case 'text':
    case 'opaque':
      return part.text === '' ? undefined : { type: 'text', text: part.text }
    case 'image': {
      if (part.url === undefined && part.data === undefined) return { type: 'text', text: UNCONVERTIBLE_IMAGE_TEXT }
      const out: JsonObject = { type: message.role === 'assistant' ? 'file' : 'image' }
      const data = part.url ?? part.data
      if (out.type === 'file') out.data = data
      else out.image = data
      const mediaType = part.mediaType ?? (part.url === undefined ? undefined : parseDataUrl(part.url)?.mediaType)
      if (mediaType !== undefined || out.type === 'file') out.mediaType = mediaType ?? 'image/png'
      return out
    }
    case 'reasoning': {
      if (part.redacted) return { type: 'reasoning', text: '', providerOptions: { anthropic: { redactedData: part.text } } }
      const signature = reasoningSignature(message, k)
      return signature === undefined ? { type: 'reasoning', text: part.text } : { type: 'reasoning', text: part.text, providerOptions: { anthropic: { signature } } }
    }
    case 'tool-call':
      return { type: 'tool-call', toolCallId: part.id, toolName: part.name, input: inputFromArgsText(part.argsText, CONVERTED_ARGS_KEY) }
    case 'tool-result':
      return undefined // handled by the caller
  }
}

function toolResultPart(part: ToolResultPart, names: ToolNames): JsonObject {
  return {
    type: 'tool-result',
    toolCallId: part.callId,
    toolName: names.nameOf(part.callId, part.name),
    output: { type: part.isError ? 'error-text' : 'text', value: part.text },
  }
}

// ---------------------------------------------------------------------------
// Edits

/** AI SDK has no developer role: a developer message is written (and parsed back) as system. */
function createTextMessage(role: 'system' | 'developer' | 'user' | 'assistant', text: string): CanonicalMessage {
  const sdkRole = role === 'developer' ? 'system' : role
  return { role: sdkRole, parts: text === '' ? [] : [{ type: 'text', text }], index: CREATED_INDEX, format: 'ai-sdk', raw: { role: sdkRole, content: text } }
}

/** Index of the content part (= canonical part, one per content part) of the given type and id; -1 when absent. */
function findContentPart(message: CanonicalMessage, type: 'tool-call' | 'tool-result', callId: string): number {
  const raw = message.raw
  if (!isRecord(raw) || !Array.isArray(raw.content)) return -1
  return raw.content.findIndex((p: unknown) => isRecord(p) && p.type === type && p.toolCallId === callId)
}

function withToolResultText(message: CanonicalMessage, callId: string, text: string): CanonicalMessage {
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

function withToolCallArgs(message: CanonicalMessage, callId: string, argsText: string): CanonicalMessage {
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
function withText(message: CanonicalMessage, text: string): CanonicalMessage {
  assertOwnFormat('ai-sdk', message)
  const raw = message.raw
  if (firstTextPart(message.parts) === -1 || !isRecord(raw)) return message
  const content = raw.content
  let edited: unknown
  if (typeof content === 'string') edited = text
  else if (Array.isArray(content)) edited = replaceTextElements(content, message.parts, (p) => ({ ...p, text }))
  else return message
  return { ...message, raw: { ...raw, content: edited }, parts: replaceTextParts(message.parts, text, typeof content === 'string' && text === '') }
}

/** Removes the result from a tool message (or, for a provider-executed tool, an assistant message). */
function withoutToolResult(message: CanonicalMessage, callId: string): CanonicalMessage | null {
  assertOwnFormat('ai-sdk', message)
  const j = findContentPart(message, 'tool-result', callId)
  if (j === -1) missingToolPart(message, 'result', callId)
  const raw = message.raw as JsonObject
  const content = raw.content as unknown[]
  if (content.length === 1) return null
  return {
    ...message,
    raw: { ...raw, content: content.filter((_, k) => k !== j) },
    parts: message.parts.filter((_, k) => k !== j),
  }
}

/**
 * One tool message of tool-result parts with v5 `output: {type: 'text', value}`. When
 * `callMessage` writes its calls the v4 way (`args`, no `input`), results are written the
 * v4 way too (`result`): a v4 caller's SDK does not know `output`.
 */
function createToolResults(callMessage: CanonicalMessage, calls: readonly { id: string; name: string }[], text: string): CanonicalMessage[] {
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

export const aiSdkAdapter: FormatAdapter = {
  format: 'ai-sdk',
  parse,
  serialize,
  createTextMessage,
  withToolResultText,
  withToolCallArgs,
  withText,
  withoutToolResult,
  createToolResults,
}
