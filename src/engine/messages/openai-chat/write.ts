/** Canonical messages -> OpenAI Chat Completions messages (the mapping is in parse.ts's comment, under Output). */
import type { CanonicalMessage, ImagePart, TextPart, ToolCallPart, ToolResultPart } from '../canonical.ts'
import { UNCONVERTIBLE_IMAGE_TEXT, type JsonObject, toDataUrl } from '../adapter.ts'

export function serialize(messages: readonly CanonicalMessage[]): { messages: unknown[] } {
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
