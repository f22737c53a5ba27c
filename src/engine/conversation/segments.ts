/**
 * Format-neutral segmentation and counting: the reason the same conversation compacts
 * to the same summary whether it arrives as OpenAI, Anthropic or AI SDK messages.
 *
 * The three formats carry the same events (user words, assistant turns, tool calls and
 * their results) in different message layouts: Anthropic merges consecutive same-role
 * turns and puts tool results in user messages; OpenAI gives every result its own
 * message; the AI SDK groups results in one `tool` message. A compaction boundary may
 * therefore fall only where every layout has one: between atomic units (a tool call
 * never leaves its results) AND where the speaking side changes (user side: user words
 * and tool results; assistant side; system side). Such a stretch is a Segment.
 *
 * Planning counts tokens the same way in every layout (`neutralTokens`): content parts
 * as the counter reads them, tool arguments re-serialised one canonical way, and one
 * message overhead per event as OpenAI chat would send it. The real count in the
 * caller's format is used for what is reported and for the final budget check.
 */
import { isSystemLike, toolResultsOf, type CanonicalMessage, type CanonicalPart } from '../messages/canonical.ts'
import { IMAGE_TOKENS, TOOL_CALL_OVERHEAD, type TokenCounter } from '../tokens/count.ts'
import { TOKENS_PER_MESSAGE } from '../tokens/tokenizer.ts'
import type { Unit } from './pairing.ts'

export type Side = 'system' | 'user' | 'assistant'

export interface Segment {
  /** First and last message position (inclusive) in the list the segments were computed on. */
  start: number
  end: number
  side: Side
}

export function sideOf(message: CanonicalMessage): Side {
  if (isSystemLike(message)) return 'system'
  return message.role === 'assistant' ? 'assistant' : 'user'
}

/** Split at unit starts where the side changes: boundaries every format has. */
export function segmentsOf(messages: readonly CanonicalMessage[], units: readonly Unit[]): Segment[] {
  const out: Segment[] = []
  for (const u of units) {
    const side = sideOf(messages[u.start]!)
    const last = out.at(-1)
    // A unit ends where its last result is; the side that matters for the cut is where the previous one ended.
    if (last && sideOf(messages[last.end]!) === side) {
      last.end = u.end
      continue
    }
    out.push({ start: u.start, end: u.end, side })
  }
  return out
}

/** Per-message overhead of one event: OpenAI's per-message tokens plus its role. */
const EVENT_OVERHEAD = TOKENS_PER_MESSAGE + 1

/**
 * Events a run of messages holds as OpenAI chat would send it: one per tool result,
 * one for the user's own words (however many messages carry them), one per assistant
 * turn, one per system turn.
 */
export function neutralMessageCount(messages: readonly CanonicalMessage[]): number {
  let n = 0
  let prev: Side | undefined
  let userWords = false
  for (const m of messages) {
    const side = sideOf(m)
    if (side !== prev) userWords = false
    if (side === 'user') {
      n += toolResultsOf(m).length
      if (!userWords && m.parts.some((p) => p.type !== 'tool-result')) {
        userWords = true
        n++
      }
    } else if (side !== prev) n++
    prev = side
  }
  return n
}

/**
 * Tool arguments written one way whatever the caller sent: JSON with ", " and ": "
 * separators (the wider of the two common spellings, so the real count rarely exceeds
 * it); unparsable arguments as they are.
 */
export function canonicalArgs(argsText: string): string {
  if (!argsText) return argsText
  const c = argsText.charCodeAt(0)
  if (c !== 123 && c !== 91) return argsText // not an object or array: leave it
  try {
    return spacedJson(JSON.parse(argsText))
  } catch {
    return argsText
  }
}

function spacedJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(spacedJson).join(', ')}]`
  if (v && typeof v === 'object') {
    return `{${Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${JSON.stringify(k)}: ${spacedJson(x)}`)
      .join(', ')}}`
  }
  return JSON.stringify(v) ?? 'null'
}

function neutralPartTokens(part: CanonicalPart, counter: TokenCounter): number {
  switch (part.type) {
    case 'text':
    case 'reasoning':
    case 'opaque':
    case 'tool-result':
      return counter.text(part.text)
    case 'tool-call':
      return TOOL_CALL_OVERHEAD + counter.text(part.name) + counter.text(canonicalArgs(part.argsText))
    case 'image':
      return IMAGE_TOKENS
  }
}

/** A token counter for planning that reads every format the same way; cached per message object. */
export interface NeutralCounter {
  /** Content tokens of one message, without event overhead, margin not applied. */
  content(message: CanonicalMessage): number
  /** Tokens of a run of messages as planning counts them (margin applied). */
  tokens(messages: readonly CanonicalMessage[]): number
}

export function neutralCounter(counter: TokenCounter): NeutralCounter {
  const cache = new WeakMap<CanonicalMessage, number>()
  const content = (m: CanonicalMessage): number => {
    let n = cache.get(m)
    if (n === undefined) {
      n = 0
      for (const p of m.parts) n += neutralPartTokens(p, counter)
      cache.set(m, n)
    }
    return n
  }
  return {
    content,
    tokens(messages) {
      if (messages.length === 0) return 0
      let n = 0
      for (const m of messages) n += content(m)
      return Math.ceil((n + EVENT_OVERHEAD * neutralMessageCount(messages)) * counter.margin)
    },
  }
}
