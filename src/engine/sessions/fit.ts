/**
 * Fitting a summary document to time and to its budget: aging items by their own time,
 * seed 000's compression, and the hard budget (emergency truncation).
 *
 * Aging boundaries (inclusive on the younger side), age = activity − item.at, where
 * activity is the session's latest activity (update.ts: its newest message, never later
 * than now), not the wall clock: a session imported or resumed with old timestamps is as
 * fresh as its own newest message, and an idle session's summary does not decay.
 *   age ≤ 24 h → Previously in This Session;  24 h < age ≤ 7 d → Yesterday;
 *   7 d < age ≤ 14 d → This Week;  age > 14 d → dropped, unless pinned (the original
 *   task, a standing constraint: SummaryItem.pin), which stays in This Week.
 * Items never move back to a younger section (a hand-written "Yesterday" line stamped
 * `now` stays in Yesterday).
 */
import { clipText } from './clip.ts'
import type { TokenCounter } from '../tokens/count.ts'
import { iso, renderItem, renderSummary, roundTokens, SECTION_KEYS, sortByTime, type Importance, type SectionKey, type SummaryDocument, type SummaryItem } from './document.ts'
import { ITEM_MAX_CHARS } from './rank.ts'

const HOUR_MS = 3_600_000
const DAY_MS = 24 * HOUR_MS
/** Items at most this old stay in "Previously in This Session" (boundary inclusive). */
export const SESSION_MAX_AGE_MS = DAY_MS
/** Items older than SESSION_MAX_AGE_MS and at most this old are in "Yesterday". */
export const YESTERDAY_MAX_AGE_MS = 7 * DAY_MS
/** Items older than YESTERDAY_MAX_AGE_MS and at most this old are in "This Week"; older ones are dropped. */
export const WEEK_MAX_AGE_MS = 14 * DAY_MS
/** Seed 000's hard limit. */
export const DEFAULT_SUMMARY_BUDGET_TOKENS = 10_000

/** Longest item text per section: recent detailed, Yesterday compressed, This Week very compressed. */
export const SECTION_TEXT_CHARS: Record<SectionKey, number> = { session: 240, yesterday: 120, week: 60 }
/** The last compression step: every item cut to its lead (the request, the first change) before any is dropped by age. */
const TERSE_TEXT_CHARS: Record<SectionKey, number> = { session: 120, yesterday: 60, week: 40 }
/** Files a tersely condensed item keeps in its comment. */
const TERSE_FILES = 2
/** A pinned item is never condensed below this: its lead, the human's words ("Asked …", up to 200 characters), survives. */
const PINNED_TEXT_CHARS = 210
/** At most this many items merged into one (larger merges lose too much once condensed). */
const MAX_MERGE = 5
const RANK: Record<Importance, number> = { low: 0, medium: 1, high: 2 }

/** Section an item of this age belongs in; undefined when it is to be dropped. Boundaries are inclusive. */
export function sectionForAge(ageMs: number): SectionKey | undefined {
  if (ageMs <= SESSION_MAX_AGE_MS) return 'session'
  if (ageMs <= YESTERDAY_MAX_AGE_MS) return 'yesterday'
  if (ageMs <= WEEK_MAX_AGE_MS) return 'week'
  return undefined
}

/**
 * Moves items to the section their age at `activityMs` (the session's latest activity)
 * calls for, never to a younger one; pinned items are never dropped. Returns how many were dropped.
 */
export function age(doc: SummaryDocument, activityMs: number): number {
  let dropped = 0
  const next: Record<SectionKey, SummaryItem[]> = { session: [], yesterday: [], week: [] }
  SECTION_KEYS.forEach((key, rank) => {
    for (const item of doc.sections[key]) {
      const by = sectionForAge(activityMs - Date.parse(item.at)) ?? (item.pin ? 'week' : undefined)
      if (!by) {
        dropped++
        continue
      }
      next[SECTION_KEYS[Math.max(rank, SECTION_KEYS.indexOf(by))]!].push(item)
    }
  })
  for (const key of SECTION_KEYS) sortByTime(next[key])
  doc.sections = next
  return dropped
}

/** Keeps the leading "; " segments that fit; clips the first when even it does not. */
export function condense(text: string, max: number): string {
  if (text.length <= max) return text
  let out = ''
  for (const s of text.split('; ')) {
    const cand = out ? `${out}; ${s}` : s
    if (cand.length > max) break
    out = cand
  }
  return out || clipText(text.split('; ')[0]!, max)
}

function related(a: SummaryItem, b: SummaryItem): boolean {
  // A pinned item stays itself: merged, the task or constraint would blur into a range.
  if (a.pin || b.pin) return false
  if (a.files?.some((f) => b.files?.includes(f))) return true
  return a.kind !== undefined && a.kind === b.kind && a.kind !== 'trivial'
}

function mergeItems(group: SummaryItem[]): SummaryItem {
  if (group.length === 1) return group[0]!
  // Interleave segments (all first segments, then all second...) so condensing keeps each part's lead.
  const parts = group.map((g) => g.text.split('; '))
  const segs: string[] = []
  for (let i = 0; parts.some((p) => i < p.length); i++) for (const p of parts) if (i < p.length && !segs.includes(p[i]!)) segs.push(p[i]!)
  const top = group.reduce((a, b) => (RANK[b.importance] > RANK[a.importance] ? b : a))
  const times = group.flatMap((g) => [Date.parse(g.at), Date.parse(g.since ?? g.at)])
  const files = [...new Set(group.flatMap((g) => g.files ?? []))].slice(0, 4)
  const merged: SummaryItem = {
    text: condense(segs.join('; '), ITEM_MAX_CHARS),
    at: iso(Math.max(...times)),
    since: iso(Math.min(...times)),
    tokens: roundTokens(group.reduce((n, g) => n + g.tokens, 0)),
    importance: top.importance,
  }
  const kind = group.every((g) => g.kind === group[0]!.kind) ? group[0]!.kind : top.kind
  if (kind) merged.kind = kind
  if (files.length) merged.files = files
  return merged
}

/** Runs of consecutive related items (shared file, or same kind), at most MAX_MERGE each, oldest first. */
function relatedRuns(items: readonly SummaryItem[]): SummaryItem[][] {
  const out: SummaryItem[][] = []
  let group: SummaryItem[] = []
  for (const item of items) {
    if (group.length && group.length < MAX_MERGE && related(group[group.length - 1]!, item)) group.push(item)
    else {
      if (group.length) out.push(group)
      group = [item]
    }
  }
  if (group.length) out.push(group)
  return out
}

export interface SummaryUpdate {
  doc: SummaryDocument
  /** renderSummary(doc), never more than the budget in tokens (a clipped prefix of it only when even the empty document does not fit). */
  text: string
  tokens: number
  /** True when compression was not enough and high-importance items, the continuation or the text itself were cut. */
  emergencyTruncated: boolean
  /** Items removed: aged out (> 14 d before the session's latest activity), dropped by compression or by emergency truncation (merges not counted). */
  dropped: number
}

function measure(doc: SummaryDocument, counter: TokenCounter): { text: string; tokens: number } {
  const text = renderSummary(doc)
  return { text, tokens: Math.ceil(counter.text(text) * counter.margin) }
}

/** Longest prefix of `text` within `budget` tokens (last resort when even an empty document is too big). */
function clipToTokens(text: string, budget: number, counter: TokenCounter): string {
  const count = (s: string) => Math.ceil(counter.text(s) * counter.margin)
  let lo = 0
  let hi = text.length
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2)
    if (count(text.slice(0, mid)) <= budget) lo = mid
    else hi = mid - 1
  }
  let out = text.slice(0, lo)
  while (out && count(out) > budget) out = out.slice(0, -1)
  return out
}

/**
 * Seed 000's compression, cheapest loss first, stopping as soon as the text fits (each
 * step works oldest first, one item or run at a time, so the summary keeps as much as
 * its budget holds): merge related items and condense text in This Week, then
 * Yesterday; drop LOW items; condense and merge This Session; drop MEDIUM items;
 * condense every remaining item to its lead.
 * HIGH and pinned items are kept by compression (a pinned item keeps at least its lead
 * and is never merged). Then the hard budget (emergency): drop the oldest remaining
 * unpinned items whatever their importance (the most recent survive), then trim the
 * continuation block's lists, then drop the pinned items, then cut its current task,
 * then clip the text.
 */
export function fit(doc: SummaryDocument, budget: number, counter: TokenCounter, dropped: number): SummaryUpdate {
  let m = measure(doc, counter)
  let emergency = false
  const done = (): SummaryUpdate => ({ doc, text: m.text, tokens: m.tokens, emergencyTruncated: emergency, dropped })
  const over = () => m.tokens > budget
  if (!over()) return done()

  const lineTokens = (item: SummaryItem, key: SectionKey) => Math.ceil(counter.text(renderItem(item, 1, key, true)) * counter.margin) + 1
  /** Drops matching items oldest first; drops several per re-count when the estimate says one is not enough. */
  const dropWhile = (pred: (i: SummaryItem) => boolean): number => {
    const cands = SECTION_KEYS.flatMap((key) => doc.sections[key].filter(pred).map((item) => ({ key, item })))
    cands.sort((a, b) => Date.parse(a.item.at) - Date.parse(b.item.at) || SECTION_KEYS.indexOf(b.key) - SECTION_KEYS.indexOf(a.key))
    let n = 0
    while (over() && cands.length) {
      let need = m.tokens - budget
      while (need > 0 && cands.length) {
        const { key, item } = cands.shift()!
        doc.sections[key] = doc.sections[key].filter((x) => x !== item)
        need -= lineTokens(item, key)
        n++
      }
      m = measure(doc, counter)
    }
    dropped += n
    return n
  }
  /**
   * Rewrites `units` (runs of a section's items, oldest first) one at a time until the
   * text fits, so that the document stays near its budget instead of shrinking a whole
   * section at once; several per re-count when the estimate says one is not enough.
   */
  const shrink = (key: SectionKey, units: SummaryItem[][], rewrite: (unit: SummaryItem[]) => SummaryItem[]) => {
    const cost = (items: readonly SummaryItem[]) => items.reduce((n, i) => n + lineTokens(i, key), 0)
    let k = 0
    while (over() && k < units.length) {
      let need = m.tokens - budget
      while (need > 0 && k < units.length) {
        const next = rewrite(units[k]!)
        need -= cost(units[k]!) - cost(next)
        units[k++] = next
      }
      doc.sections[key] = units.flat()
      m = measure(doc, counter)
    }
  }
  const merge = (key: SectionKey) => shrink(key, relatedRuns(doc.sections[key]), (run) => (run.length > 1 ? [mergeItems(run)] : run))
  const condenseTo = (key: SectionKey, chars: Record<SectionKey, number> = SECTION_TEXT_CHARS) =>
    shrink(
      key,
      doc.sections[key].map((i) => [i]),
      ([i]) => {
        const next = { ...i!, text: condense(i!.text, i!.pin ? Math.max(chars[key], PINNED_TEXT_CHARS) : chars[key]) }
        if (chars === TERSE_TEXT_CHARS && next.files && next.files.length > TERSE_FILES) next.files = next.files.slice(0, TERSE_FILES)
        return [next]
      },
    )
  const steps: (() => void)[] = []
  for (const key of ['week', 'yesterday'] as const) {
    steps.push(() => merge(key))
    steps.push(() => condenseTo(key))
  }
  steps.push(() => dropWhile((i) => i.importance === 'low' && !i.pin))
  // This session: each item condensed before any is merged (a merge keeps less of each).
  steps.push(() => condenseTo('session'))
  steps.push(() => merge('session'))
  steps.push(() => dropWhile((i) => i.importance === 'medium' && !i.pin))
  // High items are kept, tersely, rather than lost by age: oldest sections first.
  for (const key of ['week', 'yesterday', 'session'] as const) steps.push(() => condenseTo(key, TERSE_TEXT_CHARS))
  for (const step of steps) {
    step()
    m = measure(doc, counter)
    if (!over()) return done()
  }

  emergency = true
  dropWhile((i) => !i.pin)
  if (!over()) return done()
  // Continuation last: it is what an agent resumes from. Least useful entries go first;
  // the pinned items (the original task, standing constraints) go after its lists, before
  // the current task is cut.
  const c = doc.continuation
  const trims: (() => boolean)[] = [
    () => c.completedSteps.shift() !== undefined,
    () => c.keyDecisions.shift() !== undefined,
    () => c.relevantFiles.pop() !== undefined,
    () => c.pendingSteps.pop() !== undefined,
    () => dropWhile(() => true) > 0,
    () => (c.currentTask.length > 80 ? ((c.currentTask = clipText(c.currentTask, 80)), true) : false),
    () => (c.currentTask ? ((c.currentTask = ''), true) : false),
  ]
  for (const trim of trims) {
    while (over() && trim()) m = measure(doc, counter)
    if (!over()) return done()
  }
  const text = clipToTokens(m.text, Math.max(0, budget), counter)
  m = { text, tokens: Math.ceil(counter.text(text) * counter.margin) }
  return done()
}
