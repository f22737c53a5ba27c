/**
 * POST /display: a request's messages in the canonical display form the dashboard shows
 * (role, text, tool calls and results), so the dashboard reads every format without a
 * parser of its own. Pure: it needs no infrastructure.
 */
import { DEFAULT_FORMAT, detectFormat, displayWire, MessageFormatError } from '../engine/messages/index.ts'
import type { DisplayRequest, DisplayResult } from './shapes/display.ts'

export function makeDisplay() {
  return function display(input: DisplayRequest): DisplayResult {
    let format = input.format
    if (format === undefined) {
      try {
        format = detectFormat(input.messages, { system: input.system })
      } catch (err) {
        // Mixed formats: shown as the first format that reads each message.
        if (!(err instanceof MessageFormatError)) throw err
        format = DEFAULT_FORMAT
      }
    }
    return { format, ...displayWire(input.messages, format, input.system) }
  }
}
