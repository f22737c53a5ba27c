/**
 * Canonical messages -> OpenAI Responses input items.
 *
 * A message of this format is written as its items, untouched. Another format's message
 * is converted part by part, in order: text runs become a `message` item (plain string
 * content for a single text; assistant parts `output_text`, others `input_text`), images
 * `input_image` (not in assistant messages), tool calls `function_call` items, tool
 * results `function_call_output` items (a user message's results, Anthropic's, before
 * its other content). Reasoning is dropped: the API takes back only its own reasoning
 * items (with their ids and encrypted content). Opaque parts are written as text.
 */
import type { CanonicalMessage, CanonicalPart, ImagePart, TextPart } from '../canonical.ts'
import { type JsonObject, UNCONVERTIBLE_IMAGE_TEXT, toDataUrl } from '../adapter.ts'

/** The items of a message of this format (`raw` is an item, or an array of items). */
export function itemsOf(message: CanonicalMessage): JsonObject[] {
  return (Array.isArray(message.raw) ? message.raw : [message.raw]) as JsonObject[]
}

export function serialize(messages: readonly CanonicalMessage[]): { messages: unknown[] } {
  const out: unknown[] = []
  for (const message of messages) {
    if (message.format === 'responses') out.push(...itemsOf(message))
    else out.push(...convert(message))
  }
  return { messages: out }
}

function convert(message: CanonicalMessage): JsonObject[] {
  const role = message.role === 'tool' ? 'user' : message.role
  const results: JsonObject[] = []
  const body: JsonObject[] = []
  let run: (TextPart | ImagePart)[] = []
  const flush = (): void => {
    if (run.length > 0) body.push(messageItem(role, run))
    run = []
  }
  for (const part of message.parts) {
    switch (part.type) {
      case 'text':
        run.push(part)
        break
      case 'opaque':
        run.push({ type: 'text', text: part.text })
        break
      case 'image':
        if (role !== 'assistant') run.push(part)
        break
      case 'reasoning':
        break
      case 'tool-call':
        flush()
        body.push({ type: 'function_call', call_id: part.id, name: part.name, arguments: part.argsText })
        break
      case 'tool-result':
        results.push(outputItem(part.callId, part.text))
        break
    }
  }
  flush()
  // An empty message stays a message, as it parsed (no parts).
  if (body.length === 0 && results.length === 0 && message.role !== 'tool') return [{ type: 'message', role, content: '' }]
  // A user message's results answer the turn before it; provider-executed results (AI SDK) follow their calls.
  return role === 'assistant' ? [...body, ...results] : [...results, ...body]
}

export function outputItem(callId: string, text: string, custom = false): JsonObject {
  return { type: custom ? 'custom_tool_call_output' : 'function_call_output', call_id: callId, output: text }
}

function messageItem(role: string, parts: readonly (TextPart | ImagePart)[]): JsonObject {
  if (parts.length === 1 && parts[0]!.type === 'text') return { type: 'message', role, content: parts[0].text }
  return { type: 'message', role, content: parts.map((p) => contentPart(role, p)) }
}

function contentPart(role: string, part: CanonicalPart): JsonObject {
  if (part.type === 'text') return role === 'assistant' ? { type: 'output_text', text: part.text, annotations: [] } : { type: 'input_text', text: part.text }
  const image = part as ImagePart
  if (image.url === undefined && image.data === undefined) return { type: 'input_text', text: UNCONVERTIBLE_IMAGE_TEXT }
  return { type: 'input_image', image_url: image.url ?? toDataUrl(image.mediaType, image.data!), detail: 'auto' }
}
