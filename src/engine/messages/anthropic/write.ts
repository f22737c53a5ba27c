/** Canonical messages -> Anthropic Messages (the mapping is in parse.ts's comment, under Output). */
import type { CanonicalMessage, CanonicalPart, ImagePart, ReasoningPart, ToolCallPart } from '../canonical.ts'
import { CONVERTED_ARGS_KEY, type JsonObject, UNCONVERTIBLE_IMAGE_TEXT, inputFromArgsText, isRecord, parseDataUrl, reasoningSignature } from '../adapter.ts'

/**
 * Text of the user message inserted when a converted or compacted conversation would
 * otherwise start with an assistant message (Anthropic requires a user message first).
 */
export const CONTINUATION_TEXT = '(conversation continues)'

export function serialize(messages: readonly CanonicalMessage[]): { messages: unknown[]; system?: unknown } {
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
