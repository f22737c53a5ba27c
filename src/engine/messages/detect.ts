/**
 * Automatic detection of the message format from structural signals.
 *
 * The features detection looks at are the same for every format: a top-level system
 * prompt, each message's role, its top-level fields, null or string content, and the
 * type of each content part. Each format says which of them its messages can have
 * (`FormatAdapter.detection`, in the format's folder); a feature some formats take and
 * others do not is a signal that narrows the candidates to those that take it.
 *
 * Resolution: when one format remains, it wins. When several remain (no distinguishing
 * signal), the one of lowest `detection.rank` is chosen: a plain array of string-content
 * user/assistant messages is valid and means the same in all of them, so the choice
 * cannot change the result. When a signal leaves no format at all, the input mixes
 * formats: a MessageFormatError names the first conflicting message and field, the
 * earlier signal it contradicts, and asks for an explicit `format`.
 */
import type { MessageFormat } from './canonical.ts'
import { isRecord, type FormatAdapter, type FormatDetection, type JsonObject } from './adapter.ts'
import { MessageFormatError } from './errors.ts'

interface Signal {
  formats: readonly MessageFormat[]
  index: number | null
  field: string
  /** What was seen, e.g. `a "tool_use" part`. */
  what: string
}

/** Detects among `adapters` (the registry's, passed in so this module does not import the formats). */
export function detectAmong(adapters: readonly FormatAdapter[], messages: readonly unknown[], hint?: { system?: unknown }): MessageFormat {
  let candidates: readonly MessageFormat[] = adapters.map((a) => a.format)
  const applied: Signal[] = []
  const taking = (accepts: (d: FormatDetection) => boolean): MessageFormat[] => adapters.filter((a) => accepts(a.detection)).map((a) => a.format)
  const apply = (index: number | null, field: string, what: string, accepts: (d: FormatDetection) => boolean): void => {
    const formats = taking(accepts)
    // Taken by every format (neutral) or by none (a parse error to come): no signal.
    if (formats.length === 0 || formats.length === adapters.length) return
    const signal = { formats, index, field, what }
    const next = candidates.filter((f) => formats.includes(f))
    if (next.length === 0) throw ambiguity(signal, applied, adapters)
    if (next.length < candidates.length) applied.push(signal)
    candidates = next
  }

  if (hint?.system !== undefined && hint.system !== null) apply(null, 'system', 'a top-level system prompt', (d) => d.topLevelSystem)
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]
    if (isRecord(message)) messageSignals(message, i, adapters, apply)
  }
  const ranked = adapters.filter((a) => candidates.includes(a.format)).sort((a, b) => a.detection.rank - b.detection.rank)
  return ranked[0]!.format
}

type Apply = (index: number | null, field: string, what: string, accepts: (d: FormatDetection) => boolean) => void

function messageSignals(message: JsonObject, i: number, adapters: readonly FormatAdapter[], apply: Apply): void {
  const at = `messages[${i}]`
  const role = message.role
  if (typeof role === 'string') apply(i, `${at}.role`, `role ${JSON.stringify(role)} inside messages`, (d) => d.roles.includes(role))
  const fields = new Set(adapters.flatMap((a) => a.detection.fields))
  for (const field of fields) {
    if (message[field] !== undefined && message[field] !== null) apply(i, `${at}.${field}`, field, (d) => d.fields.includes(field))
  }
  const content = message.content
  if (content === null) apply(i, `${at}.content`, 'null content', (d) => d.nullContent(role))
  else if (typeof content === 'string') apply(i, `${at}.content`, `string content on a ${JSON.stringify(role)} message`, (d) => d.stringContent(role))
  else if (Array.isArray(content)) {
    for (let j = 0; j < content.length; j++) {
      const part: unknown = content[j]
      if (isRecord(part) && typeof part.type === 'string') apply(i, `${at}.content[${j}].type`, `a ${JSON.stringify(part.type)} part`, (d) => d.part(part))
    }
  }
}

function ambiguity(signal: Signal, applied: readonly Signal[], adapters: readonly FormatAdapter[]): MessageFormatError {
  // The earliest signal that, with those before it, rules out every format `signal` allows.
  let left = signal.formats
  let earlier = applied[applied.length - 1]!
  for (const previous of applied) {
    left = left.filter((f) => previous.formats.includes(f))
    if (left.length === 0) {
      earlier = previous
      break
    }
  }
  const labelOf = (f: MessageFormat) => adapters.find((a) => a.format === f)!.label
  const label = (formats: readonly MessageFormat[]) => formats.map(labelOf).join(' or ')
  const seen = [...new Set([...earlier.formats, ...signal.formats])].map(labelOf)
  return new MessageFormatError(
    signal.field,
    `ambiguous message format: found ${signal.what} (${label(signal.formats)}) here, but ${earlier.what} (${label(earlier.formats)}) ` +
      `at ${earlier.field}. Formats seen: ${seen.join(', ')}. Use one format for all messages, or set the request's "format" ` +
      `field to ${orList(adapters.map((a) => JSON.stringify(a.format)))}.`,
    signal.index,
  )
}

/** `"a", "b" or "c"`. */
export function orList(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`
}
