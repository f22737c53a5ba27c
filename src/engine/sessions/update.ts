/**
 * Seed 000's update, the public algorithm: new exchanges in, aging, the continuation
 * block, then the budget. No I/O and no clock: time is always `now`.
 */
import type { TokenCounter } from '../tokens/count.ts'
import { cloneDoc, toMs, type SummaryDocument } from './document.ts'
import { updateContinuation } from './continuation.ts'
import type { Exchange } from './exchanges.ts'
import { age, fit, type SummaryUpdate } from './fit.ts'
import { summarizeBatch } from './items.ts'

export interface UpdateInput {
  doc: SummaryDocument
  /** Newly evicted exchanges, oldest first. */
  exchanges: readonly Exchange[]
  /** The update's time: ages items and stamps exchanges without timestamps. */
  now: string | number | Date
  budgetTokens: number
  counter: TokenCounter
}

/**
 * Seed 000's update: the new exchanges' items into "Previously in This Session" (one per
 * exchange with something to say, plus the sections of any earlier compaction summary),
 * fold them into the continuation block, age every item by its own time, then compress
 * to the budget. The input document is not modified.
 */
export function updateSummary(input: UpdateInput): SummaryUpdate {
  const nowMs = toMs(input.now)
  const doc = cloneDoc(input.doc)
  const exchanges = input.exchanges.filter((e) => e.messages.length > 0)
  if (exchanges.length > 0) {
    // One reading of the whole batch (read.ts); exchanges of harness text only add no item.
    const { done, reading } = summarizeBatch(exchanges, nowMs, input.counter)
    doc.sections.session.push(...done.flatMap((d) => d.items))
    updateContinuation(doc.continuation, done, reading, input.budgetTokens)
  }
  const dropped = age(doc, nowMs)
  return fit(doc, input.budgetTokens, input.counter, dropped)
}

/** The daily re-aging without new messages: same aging and budget rules. */
export function ageSummary(input: Omit<UpdateInput, 'exchanges'>): SummaryUpdate {
  return updateSummary({ ...input, exchanges: [] })
}
