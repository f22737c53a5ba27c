/**
 * Sessions (issue 4): a sliding window of recent messages, and a rolling summary of what
 * fell out of it, kept current by the background summary worker (./worker.ts). One use
 * case per concern, all on the same dependencies and one LRU of summaries seen:
 *
 * - settings (./settings.ts): PUT, GET and DELETE /sessions/:id;
 * - appendMessages (./append.ts): POST /sessions/:id/messages;
 * - summary (./summary.ts): GET and PUT /summary, refresh, and what the worker wrote;
 * - context and continuation (./context.ts): what to send to the model now.
 */
import type { ArchiveIndexer } from '../archive/indexer.ts'
import type { UseCaseDeps } from '../deps.ts'
import { makeAppendMessages } from './append.ts'
import { makeBreaker, type Breaker } from '../compact/breaker.ts'
import { makeSessionContext } from './context.ts'
import { makeSessionSettings } from './settings.ts'
import { SummaryCache } from './summary-cache.ts'
import { makeSessionSummary } from './summary.ts'

export type SessionsDeps = Pick<UseCaseDeps, 'db' | 'config' | 'summarizers' | 'compute' | 'metrics' | 'log' | 'tokenCache'> & {
  cache?: SummaryCache
  summaryReadTimeoutMs?: number
  /** Indexes what evictions archive, after the append's transaction. */
  archiveIndexer?: ArchiveIndexer
  /** The sessions' compaction circuit breaker (GET /context's automatic compactions); default: one on `db`. */
  breaker?: Breaker
}

export function makeSessions(deps: SessionsDeps) {
  const cache = deps.cache ?? new SummaryCache()
  const summary = makeSessionSummary({ ...deps, cache })
  return {
    cache,
    ...makeSessionSettings({ ...deps, cache }),
    appendMessages: makeAppendMessages(deps),
    ...summary,
    ...makeSessionContext({ ...deps, breaker: deps.breaker ?? makeBreaker(deps), getSummary: summary.getSummary }),
  }
}

export type SessionsUseCase = ReturnType<typeof makeSessions>

export { SUMMARY_UNAVAILABLE } from './summary.ts'
/** The settings' defaults, as the routes document them. */
export { BATCH_SIZE, DEFAULT_SUMMARY_BUDGET, DEFAULT_WINDOW_MESSAGES, DEFAULT_WINDOW_TOKENS } from '../../sessions/repository.ts'
export { displayText, SummaryCache, type SummaryView } from './summary-cache.ts'
