/**
 * The canonical display form of messages: what the dashboard shows of a message in any
 * format (its role, text, tool calls and results), so the dashboard has no parser of
 * its own. Built from canonical messages, whatever format they came in.
 */
import type { CanonicalMessage } from './canonical.ts'

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
