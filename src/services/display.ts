/**
 * POST /display: a request's messages in the canonical display form the dashboard shows
 * (role, text, tool calls and results), so the dashboard reads every format without a
 * parser of its own.
 */
import { detectFormat, displayWire, MessageFormatError, type DisplayMessage, type MessageFormat } from '../engine/messages/index.ts'

export interface DisplayInput {
  messages: unknown[]
  format?: MessageFormat
  system?: unknown
}

export function displayConversation(input: DisplayInput): { format: MessageFormat; system?: DisplayMessage; messages: DisplayMessage[] } {
  let format = input.format
  if (format === undefined) {
    try {
      format = detectFormat(input.messages, { system: input.system })
    } catch (err) {
      // Mixed formats: shown as the first format that reads each message.
      if (!(err instanceof MessageFormatError)) throw err
      format = 'openai'
    }
  }
  return { format, ...displayWire(input.messages, format, input.system) }
}
