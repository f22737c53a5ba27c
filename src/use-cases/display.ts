/**
 * POST /display: a request's messages in the canonical display form the dashboard shows
 * (role, text, tool calls and results), so the dashboard reads every format without a
 * parser of its own; and GET /formats, the list of formats. Pure: they need no infrastructure.
 */
import { DEFAULT_FORMAT, detectFormat, displayWire, FORMAT_ADAPTERS, MessageFormatError } from '../engine/messages/index.ts'
import type { DisplayRequest, DisplayResult, FormatsList } from './shapes/display.ts'

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

/** GET /formats: the message formats of the engine's registry, so a client (the dashboard's menu) keeps no copy of the list. */
export function makeFormats() {
  const list: FormatsList = { formats: FORMAT_ADAPTERS.map((a) => ({ name: a.format, label: a.label })), default: DEFAULT_FORMAT }
  return function formats(): FormatsList {
    return list
  }
}
