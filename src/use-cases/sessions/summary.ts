/**
 * The rolling summary: GET reads the last committed version by a plain SELECT (never
 * waiting on an update); when the database is unreachable (or slower than
 * SUMMARY_READ_TIMEOUT_MS) the last summary this process saw is served marked stale, if
 * the database confirmed it within SUMMARY_FALLBACK_MAX_AGE_MS, else seed 000's
 * placeholder with a 503. PUT writes a manual version (compare-and-set on the version the
 * caller read); refresh queues an update now.
 */
import { withCarriedOverContinuation, type ContinuationField } from '../../engine/sessions/index.ts'
import { ApiError } from '../../errors.ts'
import { enqueue, PRIORITY_HIGH } from '../../sessions/queue.ts'
import {
  getSession as readSession,
  insertSummaryVersion,
  isUniqueViolation,
  latestSummary,
  messageCounters,
  readSummaryState,
  type SessionSettings,
  type StoredSummary,
  type SummaryState,
} from '../../sessions/repository.ts'
import type { UseCaseDeps } from '../deps.ts'
import { defaultCounter, modelFor } from '../model-budget.ts'
import { SUMMARY_UNAVAILABLE } from '../shapes/session-summary.ts'
import { sessionNotFound } from './not-found.ts'
import { toView, type SummaryCache, type SummaryView } from './summary-cache.ts'

export { SUMMARY_UNAVAILABLE }

/** A summary read slower than this is treated as a database outage (served from the LRU). */
export const SUMMARY_READ_TIMEOUT_MS = 2_000

export type SessionSummaryDeps = Pick<UseCaseDeps, 'db' | 'config' | 'metrics' | 'log'> & { cache: SummaryCache; summaryReadTimeoutMs?: number }

export function makeSessionSummary(deps: SessionSummaryDeps) {
  const { db, config, cache } = deps
  const readTimeoutMs = deps.summaryReadTimeoutMs ?? SUMMARY_READ_TIMEOUT_MS

  /**
   * The current summary. `status` 503 only when the database is unreachable and this
   * process has never seen the session's summary.
   */
  async function getSummary(tenantId: string, sessionId: string): Promise<{ status: 200 | 503; view: SummaryView }> {
    let state: SummaryState | undefined
    try {
      state = await withTimeout(readSummaryState(db, tenantId, sessionId), readTimeoutMs)
    } catch (err) {
      deps.log?.warn({ err: errorSummary(err), sessionId }, 'summary read failed: serving the last summary this process saw')
      // Only what the database confirmed recently: another instance may have deleted the session since (privacy).
      const cached = cache.fresh(tenantId, sessionId, config.SUMMARY_FALLBACK_MAX_AGE_MS)
      if (cached) return { status: 200, view: { ...cached, stale: true, degraded: true } }
      return {
        status: 503,
        view: {
          sessionId,
          version: 0,
          content: SUMMARY_UNAVAILABLE,
          text: SUMMARY_UNAVAILABLE,
          tokens: 0,
          budget: 0,
          updatedAt: null,
          source: null,
          stale: true,
          evictedAwaitingSummary: 0,
          update: null,
          degraded: true,
        },
      }
    }
    if (!state) {
      cache.delete(tenantId, sessionId)
      throw sessionNotFound(sessionId)
    }
    const view = toView(sessionId, state)
    cache.set(tenantId, sessionId, view)
    return { status: 200, view }
  }

  /**
   * PUT /summary: a manual version. CAS: `baseVersion` (the version the caller read) must
   * still be current. Continuation fields the text does not state are carried over from
   * the version it replaces (engine/sessions/manual-edit.ts) and listed in the answer.
   */
  async function putSummary(tenantId: string, sessionId: string, input: { content: string; baseVersion?: number }): Promise<SummaryView & { continuationCarriedOver: ContinuationField[] }> {
    const session = await readSession(db, tenantId, sessionId)
    if (!session) throw sessionNotFound(sessionId)
    const counter = defaultCounter(modelFor(config, session.settings.model))
    const conflict = (current: number) =>
      new ApiError(409, 'version_conflict', `the summary is at version ${current}, not ${input.baseVersion}: read it again and retry`, [{ path: 'body.baseVersion', message: `current version is ${current}` }], { currentVersion: current })
    let carriedOver: ContinuationField[] = []
    try {
      await db.transaction().execute(async (trx) => {
        const latest = await latestSummary(trx, tenantId, sessionId)
        const current = latest?.version ?? 0
        if (input.baseVersion !== undefined && input.baseVersion !== current) throw conflict(current)
        const written = withCarriedOverContinuation(input.content, latest?.content, Date.now())
        carriedOver = written.carriedOver
        // The budget holds for what is stored, carried-over fields included.
        const tokens = Math.ceil(counter.text(written.content) * counter.margin)
        if (tokens > session.settings.summaryBudget) {
          const carried = carriedOver.length ? ` (with ${carriedOver.join(', ')} carried over from version ${current}; state them to replace them)` : ''
          throw new ApiError(422, 'summary_over_budget', `the summary has ${tokens} tokens${carried}, over the session's budget of ${session.settings.summaryBudget}`, [
            { path: 'body.content', message: `${tokens} tokens > summaryBudget ${session.settings.summaryBudget}` },
          ])
        }
        await insertSummaryVersion(trx, tenantId, sessionId, { version: current + 1, content: written.content, tokens, source: 'manual' })
      })
    } catch (err) {
      // A concurrent writer (a background update) took the same version first.
      if (isUniqueViolation(err)) throw conflict((await latestSummary(db, tenantId, sessionId))?.version ?? 0)
      throw err
    }
    return { ...(await getSummary(tenantId, sessionId)).view, continuationCarriedOver: carriedOver }
  }

  /** POST /summary/refresh: queue an update now, at high priority. */
  async function refresh(tenantId: string, sessionId: string): Promise<{ queued: 'new' | 'merged'; evictedAwaitingSummary: number }> {
    const session = await readSession(db, tenantId, sessionId)
    if (!session) throw sessionNotFound(sessionId)
    const queued = await enqueue(db, tenantId, sessionId, PRIORITY_HIGH)
    deps.metrics?.onUpdateQueued('high', queued)
    const counters = await messageCounters(db, tenantId, sessionId)
    return { queued, evictedAwaitingSummary: counters.evictedAwaitingSummary }
  }

  /** Called by the worker after it wrote a version (keeps the LRU current). */
  function noteSummaryWritten(tenantId: string, sessionId: string, settings: SessionSettings, s: StoredSummary, evictedAwaitingSummary: number): void {
    cache.set(tenantId, sessionId, toView(sessionId, { settings, summary: s, evictedAwaitingSummary, queue: undefined }))
  }

  return { getSummary, putSummary, refresh, noteSummaryWritten }
}

async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms)
      }),
    ])
  } finally {
    clearTimeout(timer)
  }
}

function errorSummary(err: unknown): { message: string; code?: string } {
  const e = err as { message?: unknown; code?: unknown }
  return { message: String(e?.message ?? err), ...(typeof e?.code === 'string' ? { code: e.code } : {}) }
}
