/**
 * What the sessions domain reports to metrics, as an injected hook: the metrics plugin
 * implements it (AppMetrics) and the sessions plugin passes it in, so the domain never
 * imports the HTTP layer. Without one, nothing is reported.
 */
import type { CompactionMetrics } from '../compact/compute.ts'
import type { PriorityName } from '../../sessions/queue.ts'

/** How a summary update was computed: rules, the model, or rules after the model failed. */
export type UpdateMode = 'rules' | 'llm' | 'llm-fallback'

export interface SessionMetrics extends CompactionMetrics {
  /** Summary updates queued: `new` entries, or `merged` into the session's pending one. */
  onUpdateQueued(priority: PriorityName, outcome: 'new' | 'merged', count?: number): void
  /** Updates claimed by a worker, with how long each waited once available (the claim latency). */
  onUpdatesClaimed(waitedSeconds: number[]): void
  /**
   * One update finished (claim to commit). `written`: the version it wrote, with the
   * session's budget; `emergencyTruncated`: the hard budget cut it.
   */
  onUpdateCompleted(update: { mode: UpdateMode; seconds: number; written?: { tokens: number; budget: number }; emergencyTruncated: boolean }): void
  /** One failed attempt (retried with backoff until MAX_RETRIES). */
  onUpdateFailed(reason: string): void
  /** An update given up on after MAX_RETRIES attempts. */
  onUpdateGaveUp(): void
}
