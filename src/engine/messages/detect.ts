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
  // Hot path (every request without a `format`): which formats take a feature is a bit
  // mask, computed once per role (featuresOf), and a signal's wording is built only when
  // it narrows the candidates or conflicts.
  const all = (1 << adapters.length) - 1
  let candidates = all
  const applied: Signal[] = []
  const formatsOf = (mask: number): MessageFormat[] => adapters.filter((_, k) => mask & (1 << k)).map((a) => a.format)
  const apply: Apply = (mask, seen) => {
    // Taken by every format (neutral) or by none (a parse error to come): no signal.
    if (mask === 0 || mask === all) return
    const next = candidates & mask
    if (next === candidates) return
    const signal = { formats: formatsOf(mask), ...describe(seen) }
    if (next === 0) throw ambiguity(signal, applied, adapters)
    applied.push(signal)
    candidates = next
  }
  const features = featuresOf(adapters)

  if (hint?.system !== undefined && hint.system !== null) apply(features.topLevelSystem, { kind: 'system', index: null })
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]
    if (isRecord(message)) messageSignals(message, i, features, apply)
  }
  const ranked = adapters.filter((_, k) => candidates & (1 << k)).sort((a, b) => a.detection.rank - b.detection.rank)
  return ranked[0]!.format
}

/**
 * A feature seen, as data: its wording is built only when it narrows the candidates or
 * conflicts (describe), so the common case allocates nothing per message but this.
 */
type Seen =
  | { kind: 'system'; index: null }
  | { kind: 'role'; index: number; role: string }
  | { kind: 'field'; index: number; field: string }
  | { kind: 'null-content' | 'string-content'; index: number; role: unknown }
  | { kind: 'part'; index: number; part: number; type: unknown }

/** Applies a feature: which formats take it (a mask over the adapters) and what it was. */
type Apply = (mask: number, seen: Seen) => void

function describe(seen: Seen): Omit<Signal, 'formats'> {
  if (seen.kind === 'system') return { index: null, field: 'system', what: 'a top-level system prompt' }
  const at = `messages[${seen.index}]`
  switch (seen.kind) {
    case 'role':
      return { index: seen.index, field: `${at}.role`, what: `role ${JSON.stringify(seen.role)} inside messages` }
    case 'field':
      return { index: seen.index, field: `${at}.${seen.field}`, what: seen.field }
    case 'null-content':
      return { index: seen.index, field: `${at}.content`, what: 'null content' }
    case 'string-content':
      return { index: seen.index, field: `${at}.content`, what: `string content on a ${JSON.stringify(seen.role)} message` }
    case 'part':
      return { index: seen.index, field: `${at}.content[${seen.part}].type`, what: `a ${JSON.stringify(seen.type)} part` }
  }
}

interface Features {
  topLevelSystem: number
  fields: readonly { field: string; mask: number }[]
  role(role: string): number
  nullContent(role: unknown): number
  stringContent(role: unknown): number
  part(part: JsonObject): number
}

function maskOf(adapters: readonly FormatAdapter[], accepts: (d: FormatDetection) => boolean): number {
  let mask = 0
  for (let k = 0; k < adapters.length; k++) if (accepts(adapters[k]!.detection)) mask |= 1 << k
  return mask
}

const featuresByAdapters = new WeakMap<readonly FormatAdapter[], Features>()

/**
 * The masks of the features that do not depend on the input, computed once per adapter
 * list: top-level fields, and every role some format names (with undefined, an item
 * without a role). A role no format names is answered without caching, so a caller's
 * strings never grow the table.
 */
function featuresOf(adapters: readonly FormatAdapter[]): Features {
  let features = featuresByAdapters.get(adapters)
  if (features) return features
  const mask = (accepts: (d: FormatDetection) => boolean) => maskOf(adapters, accepts)
  const roles = [...new Set(adapters.flatMap((a) => a.detection.roles))]
  const byRole = (answer: (d: FormatDetection, role: unknown) => boolean) => {
    const known = new Map<unknown, number>([undefined, ...roles].map((role) => [role, mask((d) => answer(d, role))]))
    return (role: unknown) => known.get(role) ?? mask((d) => answer(d, role))
  }
  const roleMask = byRole((d, role) => d.roles.includes(role as string))
  features = {
    topLevelSystem: mask((d) => d.topLevelSystem),
    fields: [...new Set(adapters.flatMap((a) => a.detection.fields))].map((field) => ({ field, mask: mask((d) => d.fields.includes(field)) })),
    role: roleMask,
    nullContent: byRole((d, role) => d.nullContent(role)),
    stringContent: byRole((d, role) => d.stringContent(role)),
    part: (part) => mask((d) => d.part(part)),
  }
  featuresByAdapters.set(adapters, features)
  return features
}

function messageSignals(message: JsonObject, i: number, features: Features, apply: Apply): void {
  const role = message.role
  if (typeof role === 'string') apply(features.role(role), { kind: 'role', index: i, role })
  for (const { field, mask } of features.fields) {
    if (message[field] !== undefined && message[field] !== null) apply(mask, { kind: 'field', index: i, field })
  }
  const content = message.content
  if (content === null) apply(features.nullContent(role), { kind: 'null-content', index: i, role })
  else if (typeof content === 'string') apply(features.stringContent(role), { kind: 'string-content', index: i, role })
  else if (Array.isArray(content)) {
    for (let j = 0; j < content.length; j++) {
      const part: unknown = content[j]
      if (isRecord(part) && typeof part.type === 'string') apply(features.part(part), { kind: 'part', index: i, part: j, type: part.type })
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
