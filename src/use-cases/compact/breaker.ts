/**
 * A session's compaction circuit breaker as the use cases use it (the rules are
 * src/engine/compaction/breaker.ts, the rows src/checkpoints/breakers.ts): automatic
 * compactions (the proxy's, GET /context's) ask `refusal` first and `recordAutomatic`
 * after; a manual compaction (POST /compact with the sessionId) and
 * POST /sessions/:id/breaker/reset close it.
 */
import type { Config } from '../../config.ts'
import { changeBreaker, clearBreaker, readBreaker } from '../../checkpoints/breakers.ts'
import { sessionStats } from '../../checkpoints/repository.ts'
import { getSession } from '../../sessions/repository.ts'
import { breakerStatus, recordAutomatic, type BreakerSettings, type BreakerStatus } from '../../engine/compaction/breaker.ts'
import { ApiError } from '../../errors.ts'
import type { UseCaseDeps } from '../deps.ts'
import type { BreakerMetrics, BreakerPath } from './breaker-metrics.ts'

export type { BreakerMetrics, BreakerPath } from './breaker-metrics.ts'


export type BreakerDeps = Pick<UseCaseDeps, 'db' | 'config'> & { metrics?: Partial<BreakerMetrics> }

export function breakerSettings(config: Config): BreakerSettings {
  return {
    failures: config.BREAKER_FAILURES,
    minFreedShare: config.BREAKER_MIN_FREED_SHARE,
    maxCompactions: config.BREAKER_MAX_COMPACTIONS,
    withinMessages: config.BREAKER_WITHIN_MESSAGES,
    cooldownSeconds: config.BREAKER_COOLDOWN_SECONDS,
  }
}

/** The refusal of an automatic compaction while the circuit is open: a 409 with a Retry-After hint. */
export function breakerOpen(sessionId: string, status: BreakerStatus): ApiError {
  return new ApiError(
    409,
    'breaker_open',
    `automatic compaction of session ${JSON.stringify(sessionId)} is paused: ${status.reason}. Compact it by hand (POST /compact with this sessionId, a larger budget or another strategy), reset the breaker (POST /sessions/${sessionId}/breaker/reset), or retry after ${status.retryAfterSeconds}s`,
    undefined,
    { retryAfterSeconds: status.retryAfterSeconds, breaker: status },
    { 'retry-after': String(status.retryAfterSeconds ?? 1) },
  )
}

export function makeBreaker(deps: BreakerDeps) {
  const { db, config } = deps
  const settings = breakerSettings(config)

  async function status(tenantId: string, sessionId: string, now = new Date()): Promise<BreakerStatus> {
    return breakerStatus(await readBreaker(db, tenantId, sessionId), now)
  }

  return {
    status,

    /** The open breaker's status when an automatic compaction must not run now (the metric counts it); else undefined. */
    async refusal(tenantId: string, sessionId: string, path: BreakerPath, now = new Date()): Promise<BreakerStatus | undefined> {
      const s = await status(tenantId, sessionId, now)
      if (s.state === 'closed') return undefined
      deps.metrics?.onBreakerRefused?.(path)
      return s
    },

    /** An automatic compaction refused by a caller that read the status itself (the metric). */
    refused(path: BreakerPath): void {
      deps.metrics?.onBreakerRefused?.(path)
    },

    /**
     * One automatic compaction done: recorded, and the circuit opened when it thrashes.
     * `known`, the status read before it: the same conversation compacted again (a repeated
     * GET /context, no new message) is no new compaction, and writes nothing.
     */
    async recordAutomatic(tenantId: string, sessionId: string, c: { messages: number; freedTokens: number; windowTokens: number }, now = new Date(), known?: BreakerStatus): Promise<BreakerStatus> {
      if (known && known.recent.at(-1)?.messages === c.messages) return known
      let opened = false
      const next = await changeBreaker(db, tenantId, sessionId, (state) => {
        // A repeated read of the same conversation (GET /context again, no new message) is not another compaction.
        const last = state.recent.at(-1)
        if (last && last.messages === c.messages) return state
        const after = recordAutomatic(state, { at: now.toISOString(), ...c }, settings)
        opened = after.open !== undefined && after.open.since !== state.open?.since
        return after
      })
      if (opened) deps.metrics?.onBreakerOpened?.()
      return breakerStatus(next, now)
    },

    /** A successful manual compaction: closed, its history cleared. */
    async close(tenantId: string, sessionId: string): Promise<BreakerStatus> {
      await clearBreaker(db, tenantId, sessionId)
      return breakerStatus({ recent: [] }, new Date())
    },

    /** POST /sessions/:id/breaker/reset: as close; a session this tenant has no trace of (no breaker, checkpoint or stored session) is a 404. */
    async reset(tenantId: string, sessionId: string): Promise<BreakerStatus> {
      const had = await clearBreaker(db, tenantId, sessionId)
      if (!had) {
        const [session, stats] = await Promise.all([getSession(db, tenantId, sessionId), sessionStats(db, tenantId, sessionId)])
        if (!session && stats.checkpoints === 0) throw new ApiError(404, 'not_found', `no session ${JSON.stringify(sessionId)}`)
      }
      return breakerStatus({ recent: [] }, new Date())
    },
  }
}

export type Breaker = ReturnType<typeof makeBreaker>
