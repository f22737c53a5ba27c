/**
 * Seed 000's update, the public algorithm: new exchanges in, aging, the continuation
 * block, then the budget. No I/O and no clock: time is always `now`, and items age
 * against the session's own latest activity (`activityAt`), never later than `now`.
 */
import type { TokenCounter } from '../tokens/count.ts'
import { cloneDoc, SECTION_KEYS, toMs, type SummaryDocument } from './document.ts'
import { updateContinuation } from './continuation.ts'
import { exchangeTime, type Exchange } from './exchanges.ts'
import { age, fit, type SummaryUpdate } from './fit.ts'
import { summarizeBatch } from './items.ts'

export interface UpdateInput {
  doc: SummaryDocument
  /** Newly evicted exchanges, oldest first. */
  exchanges: readonly Exchange[]
  /** The update's time: stamps exchanges without timestamps; the session's activity is never taken later than it. */
  now: string | number | Date
  /**
   * The session's latest activity: the time of its newest message, folded or not (the
   * service: max(message_at)). Items age against it, not against `now`. Absent: the
   * newest time of the new exchanges and of the document's items.
   */
  activityAt?: string | number | Date
  budgetTokens: number
  counter: TokenCounter
}

/**
 * The time items age against: the latest of `activityAt`, the new exchanges' times and
 * the items' own times, never later than `now` (a clock ahead of the server's ages
 * nothing early). Wall-clock time alone never ages an item: a session whose messages
 * are four months old is as fresh as its newest message, and an idle session's summary
 * stays as it was until the session moves on.
 */
export function sessionActivity(doc: SummaryDocument, exchanges: readonly Exchange[], now: string | number | Date, activityAt?: string | number | Date): number {
  const nowMs = toMs(now)
  let latest = activityAt !== undefined ? toMs(activityAt) : -Infinity
  for (const e of exchanges) {
    const t = exchangeTime(e)
    latest = Math.max(latest, t ? Date.parse(t) : nowMs)
  }
  for (const key of SECTION_KEYS) for (const item of doc.sections[key]) latest = Math.max(latest, Date.parse(item.at))
  return Number.isFinite(latest) ? Math.min(latest, nowMs) : nowMs
}

/**
 * Seed 000's update: the new exchanges' items into "Previously in This Session" (one per
 * exchange with something to say, plus the sections of any earlier compaction summary),
 * fold them into the continuation block, age every item by its own time against the
 * session's latest activity (the original task and standing constraints are pinned:
 * never aged out), then compress to the budget. The input document is not modified.
 */
export function updateSummary(input: UpdateInput): SummaryUpdate {
  const nowMs = toMs(input.now)
  const doc = cloneDoc(input.doc)
  const exchanges = input.exchanges.filter((e) => e.messages.length > 0)
  if (exchanges.length > 0) {
    // One reading of the whole batch (read.ts); exchanges of harness text only add no item.
    const { done, reading } = summarizeBatch(exchanges, nowMs, input.counter)
    // The first task the session's summary ever gets is its original task.
    const hasTask = SECTION_KEYS.some((key) => doc.sections[key].some((i) => i.pin === 'task'))
    const first = hasTask ? undefined : done.find((d) => d.task)?.task
    if (first) first.pin = 'task'
    doc.sections.session.push(...done.flatMap((d) => d.items))
    updateContinuation(doc.continuation, done, reading, input.budgetTokens)
  }
  const dropped = age(doc, sessionActivity(doc, exchanges, nowMs, input.activityAt))
  return fit(doc, input.budgetTokens, input.counter, dropped)
}

/** The daily re-aging without new messages: same aging and budget rules. */
export function ageSummary(input: Omit<UpdateInput, 'exchanges'>): SummaryUpdate {
  return updateSummary({ ...input, exchanges: [] })
}
