/**
 * The canonical display form of messages: what the dashboard shows of a message in any
 * format (its role, text, tool calls and results), so the dashboard has no parser of
 * its own. Built from canonical messages, whatever format they came in.
 */
import type { CanonicalMessage, MessageFormat } from './canonical.ts'
import { isRecord } from './adapter.ts'
import { findAdapter } from './registry.ts'

export interface DisplayMessage {
  role: string
  /** Text, reasoning (prefixed "(reasoning) ") and images ("[image]"), one line each. */
  text: string
  calls: { id: string; name: string; args: string }[]
  results: { id: string; text: string; isError?: boolean }[]
}

export function displayMessages(messages: readonly CanonicalMessage[]): DisplayMessage[] {
  return messages.map(displayMessage)
}

function displayMessage(message: CanonicalMessage): DisplayMessage {
  const out: DisplayMessage = { role: message.role, text: '', calls: [], results: [] }
  const texts: string[] = []
  for (const part of message.parts) {
    switch (part.type) {
      case 'text':
        texts.push(part.text)
        break
      case 'reasoning':
        if (!part.redacted && part.text !== '') texts.push(`(reasoning) ${part.text}`)
        break
      case 'image':
        texts.push('[image]')
        break
      case 'opaque':
        if (part.media) texts.push(`[${part.media.kind}]`)
        break
      case 'tool-call':
        out.calls.push({ id: part.id, name: part.name, args: part.argsText })
        break
      case 'tool-result':
        out.results.push({ id: part.callId, text: part.text, ...(part.isError ? { isError: true } : {}) })
        break
    }
  }
  out.text = texts.join('\n')
  return out
}

/**
 * The display form of a request's messages, one per element of `messages` as the caller
 * sent them (a Responses item is one element, though parsing groups items into turns),
 * and of a top-level `system`. Each element is read on its own, so one the format
 * refuses is still shown (its role and JSON) rather than failing the others.
 */
export function displayWire(
  messages: readonly unknown[],
  format: MessageFormat,
  system?: unknown,
): { system?: DisplayMessage; messages: DisplayMessage[] } {
  const adapter = findAdapter(format)!
  const shown = messages.map((element) => {
    try {
      const parsed = adapter.parse([element]).messages
      const parts = parsed.flatMap((m) => m.parts)
      return displayMessage({ ...parsed[0]!, parts })
    } catch {
      const role = isRecord(element) && typeof element.role === 'string' ? element.role : 'unknown'
      return { role, text: JSON.stringify(element) ?? '', calls: [], results: [] }
    }
  })
  if (system === undefined || system === null) return { messages: shown }
  let head: DisplayMessage
  try {
    head = adapter.detection.topLevelSystem ? displayMessage(adapter.parse([], system).messages[0]!) : { role: 'system', text: typeof system === 'string' ? system : JSON.stringify(system), calls: [], results: [] }
  } catch {
    head = { role: 'system', text: JSON.stringify(system) ?? '', calls: [], results: [] }
  }
  return { system: head, messages: shown }
}
