/**
 * The rules-mode summary update of one snapshot (seed 000's algorithm, updateSummary()),
 * as a function of its input alone: no I/O and no clock. The background worker
 * (worker.ts) runs it in the compute pool (src/plugins/compute-pool.ts), or on the event
 * loop for small updates; what goes in and comes out is structured-cloneable.
 */
import type { Config } from '../../config.ts'
import { emptySummary, parseSummary, sessionExchanges, updateSummary } from '../../engine/sessions/index.ts'
import { defaultCounter, modelFor } from '../model-budget.ts'
import { toCanonical, type SessionSettings, type StoredMessage } from '../../sessions/repository.ts'

export interface RulesUpdateInput {
  settings: SessionSettings
  /** The version the update starts from (none: an empty document). */
  summary: { content: string } | undefined
  /** The evicted messages to fold in, oldest first. */
  evicted: StoredMessage[]
  /** The update's time (aging). */
  now: number
  /** The session's newest message time, folded or not (ms): items age against it. */
  activityAt?: number
}

/** The new document: text, its tokens, and whether the hard budget cut into it. */
export interface RulesUpdateResult {
  text: string
  tokens: number
  emergencyTruncated: boolean
}

export function computeRulesUpdate(config: Config, input: RulesUpdateInput): RulesUpdateResult {
  const { settings, now } = input
  const base = input.summary ? parseSummary(input.summary.content, now) : emptySummary()
  const exchanges = sessionExchanges(toCanonical(input.evicted, settings.format ?? 'openai'))
  const update = updateSummary({ doc: base, exchanges, now, ...(input.activityAt !== undefined ? { activityAt: input.activityAt } : {}), budgetTokens: settings.summaryBudget, counter: defaultCounter(modelFor(config, settings.model)) })
  return { text: update.text, tokens: update.tokens, emergencyTruncated: update.emergencyTruncated }
}

/** The size of an update's input in bytes, roughly (≈4 bytes a token): what decides inline or pool. */
export function rulesUpdateBytes(input: RulesUpdateInput): number {
  let tokens = 0
  for (const m of input.evicted) tokens += m.tokens
  return (input.summary?.content.length ?? 0) + 4 * tokens
}
