/** Canonical messages -> AI SDK ModelMessages (the mapping is in parse.ts's comment, under Output). */
import type { CanonicalMessage, CanonicalPart, ToolResultPart } from '../canonical.ts'
import { CONVERTED_ARGS_KEY, UNCONVERTIBLE_IMAGE_TEXT, type JsonObject, ToolNames, inputFromArgsText, parseDataUrl, reasoningSignature } from '../adapter.ts'

export function serialize(messages: readonly CanonicalMessage[]): { messages: unknown[] } {
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
