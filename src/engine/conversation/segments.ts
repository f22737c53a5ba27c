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
import { IMAGE_TOKENS, messageCacheKey, TOOL_CALL_OVERHEAD, type MessageCounts, type TokenCounter } from '../tokens/count.ts'
import { mediaTokens } from '../tokens/media.ts'
import { TOKENS_PER_MESSAGE, TOKENS_PER_NAME } from '../tokens/tokenizer.ts'
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

/**
 * Split at unit starts where the side changes: boundaries every format has. Messages in
 * `isolated` (an earlier compaction summary that is a message of its own, as compactd
 * and other agents write them) always get a segment of their own.
 */
export function segmentsOf(messages: readonly CanonicalMessage[], units: readonly Unit[], isolated: ReadonlySet<number> = new Set()): Segment[] {
  const out: Segment[] = []
  let alone = false
  for (const u of units) {
    const side = sideOf(messages[u.start]!)
    const last = out.at(-1)
    const isolate = u.start === u.end && isolated.has(u.start)
    // A unit ends where its last result is; the side that matters for the cut is where the previous one ended.
    if (last && !alone && !isolate && sideOf(messages[last.end]!) === side) {
      last.end = u.end
      continue
    }
    out.push({ start: u.start, end: u.end, side })
    alone = isolate
  }
  return out
}

/** Per-message overhead of one event: OpenAI's per-message tokens plus its role. */
export const EVENT_OVERHEAD = TOKENS_PER_MESSAGE + 1

/**
 * Events a run of messages holds as OpenAI chat would send it: one per tool result,
 * one for the user's own words (however many messages carry them), one per assistant
 * turn; none for system messages.
 */
export function neutralMessageCount(messages: readonly CanonicalMessage[]): number {
  let n = 0
  let prev: Side | undefined
  let userWords = false
  for (const m of messages) {
    const side = sideOf(m)
    // System text counts no event of its own: Anthropic gathers it all into one top-level
    // system prompt (the plan's reserve covers that one), so it never splits a run either.
    if (side === 'system') continue
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
 * separators and non-ASCII escaped (Python's json.dumps, the widest of the common
 * spellings, so the real count rarely exceeds it); unparsable arguments as they are.
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

/**
 * Tool arguments as compact JSON, whatever spacing or escaping the caller used (text
 * that is not JSON as it is): what extractors read, so their output is the same in
 * every format.
 */
export function compactArgs(argsText: string): string {
  const c = argsText.charCodeAt(0)
  if (c !== 123 && c !== 91) return argsText
  try {
    return JSON.stringify(JSON.parse(argsText))
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
  const json = JSON.stringify(v) ?? 'null'
  return typeof v === 'string' ? json.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : json
}

function neutralPartTokens(part: CanonicalPart, counter: TokenCounter): number {
  // A part's own text is covered by its message's cache entry (partText); a call's
  // canonical arguments are not (a message with calls stores no neutral count): `text`.
  const own = counter.partText ?? counter.text
  switch (part.type) {
    case 'opaque':
      return part.media ? mediaTokens(part.media) : own(part.text)
    case 'text':
    case 'reasoning':
    case 'tool-result':
      return own(part.text)
    case 'tool-call':
      return TOOL_CALL_OVERHEAD + own(part.name) + counter.text(canonicalArgs(part.argsText))
    case 'image':
      return IMAGE_TOKENS
  }
}

/** A token counter for planning that reads every format the same way; cached per message object. */
export interface NeutralCounter {
  /** Content tokens of one message, without event overhead, margin not applied. */
  content(message: CanonicalMessage): number
  /**
   * The message's real tokens in its own format, exactly as tokens/count.ts `messageTokens`
   * counts them, sharing the text counts with the neutral count (one tokenizer pass, not two).
   */
  actual(message: CanonicalMessage): number
  /** Tokens of a run of messages as planning counts them (margin applied). */
  tokens(messages: readonly CanonicalMessage[]): number
}

export function neutralCounter(counter: TokenCounter): NeutralCounter {
  // Per message, both counts before the margin: the real one (tokens/count.ts
  // messageTokens) and the neutral content. Every part but tool calls counts the same in
  // both; a tool call's arguments are counted as sent and, when that differs, canonical.
  // Remembered per message object, and across requests in the counter's cache (by content).
  const local = new WeakMap<CanonicalMessage, Required<MessageCounts>>()
  const countBoth = (m: CanonicalMessage): Required<MessageCounts> => {
    let shared = 0
    let neutralCalls = 0
    let actualCalls = 0
    for (const p of m.parts) {
      if (p.type !== 'tool-call') {
        shared += neutralPartTokens(p, counter)
        continue
      }
      const head = TOOL_CALL_OVERHEAD + counter.text(p.name)
      const own = counter.text(p.argsText)
      const canonical = canonicalArgs(p.argsText)
      actualCalls += head + own
      neutralCalls += head + (canonical === p.argsText ? own : counter.text(canonical))
    }
    let actual = TOKENS_PER_MESSAGE + counter.text(m.role) + shared + actualCalls
    if (m.name) actual += TOKENS_PER_NAME + counter.text(m.name)
    return { actual, neutral: shared + neutralCalls }
  }
  const countsOf = (m: CanonicalMessage): Required<MessageCounts> => {
    let hit = local.get(m)
    if (hit) return hit
    const key = messageCacheKey(m, counter)
    const stored = key === undefined ? undefined : counter.cache!.store.get(key)
    if (stored?.neutral !== undefined) hit = stored as Required<MessageCounts>
    else {
      // Not seen, or seen by /estimate only (which needs no neutral count of tool calls).
      hit = countBoth(m)
      if (key !== undefined) counter.cache!.store.set(key, hit)
    }
    local.set(m, hit)
    return hit
  }
  const content = (m: CanonicalMessage): number => countsOf(m).neutral
  const actual = (m: CanonicalMessage): number => Math.ceil(countsOf(m).actual * counter.margin)
  return {
    content,
    actual,
    tokens(messages) {
      if (messages.length === 0) return 0
      let n = 0
      for (const m of messages) n += content(m)
      // OpenAI may send each result with its tool's name; count it for every format (the
      // call is in the same unit, so its name is at hand).
      const names = new Map<string, string>()
      for (const m of messages) for (const p of m.parts) if (p.type === 'tool-call') names.set(p.id, p.name)
      for (const m of messages) for (const p of m.parts) if (p.type === 'tool-result') n += TOKENS_PER_NAME + counter.text(names.get(p.callId) ?? 'tool')
      return Math.ceil((n + EVENT_OVERHEAD * neutralMessageCount(messages)) * counter.margin)
    },
  }
}
