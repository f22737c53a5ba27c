/**
 * The wire formats compactd reads and writes, listed once. Each is one folder of this
 * layer (detection, parsing, writing, edits, error wording) exporting its adapter; adding
 * a format is adding its folder and one line here. Everything else (the API's `format`
 * enums, error messages, detection) is derived from this list.
 */
import type { FormatAdapter } from './adapter.ts'
import type { MessageFormat } from './canonical.ts'
import { aiSdkAdapter } from './ai-sdk/index.ts'
import { anthropicAdapter } from './anthropic/index.ts'
import { openaiAdapter } from './openai-chat/index.ts'
import { responsesAdapter } from './responses/index.ts'

/** In the order they are listed to people (API enums, docs); detection has its own ranks. */
export const FORMAT_ADAPTERS = [openaiAdapter, anthropicAdapter, aiSdkAdapter, responsesAdapter] as const

export type { MessageFormat } from './canonical.ts'

// Every format name a folder declares (canonical.ts) has its adapter in the list above.
type FormatWithoutAdapter = Exclude<MessageFormat, (typeof FORMAT_ADAPTERS)[number]['format']>
const everyFormatListed: [FormatWithoutAdapter] extends [never] ? true : FormatWithoutAdapter = true
void everyFormatListed

/** The formats' names, e.g. for a zod enum: `z.enum(FORMAT_NAMES)`. */
export const FORMAT_NAMES = FORMAT_ADAPTERS.map((a) => a.format) as [MessageFormat, ...MessageFormat[]]

/** The default when a caller gives no format and there is nothing to detect from. */
export const DEFAULT_FORMAT: MessageFormat = FORMAT_ADAPTERS[0].format

export function isMessageFormat(value: unknown): value is MessageFormat {
  return typeof value === 'string' && (FORMAT_NAMES as readonly string[]).includes(value)
}

export function findAdapter(format: unknown): FormatAdapter | undefined {
  return FORMAT_ADAPTERS.find((a) => a.format === format)
}

/** The formats a provider endpoint speaks (the proxy's routes), with their format names. */
export const REQUEST_WIRES = FORMAT_ADAPTERS.flatMap((a) => (a.request ? [{ format: a.format as MessageFormat, wire: a.request }] : []))
