/**
 * A session's stored checkpoints (written by POST /compact with a sessionId) and its
 * compaction totals, scoped to the caller's tenant: another tenant's session, or one
 * with no checkpoints, is a 404. The route writes the results as JSON.
 */
import { foldedInto, getCheckpoint, listCheckpoints, sessionStats, type Checkpoint } from '../checkpoints/repository.ts'
import { ApiError } from '../errors.ts'
import type { UseCaseDeps } from './deps.ts'
import type { Breaker } from './compact/breaker.ts'
import type { BreakerStatus } from '../engine/compaction/breaker.ts'

export { MAX_PAGE_SIZE } from '../checkpoints/repository.ts'
export type { Checkpoint }

export type CheckpointsDeps = Pick<UseCaseDeps, 'db'> & { breaker?: Pick<Breaker, 'status'> }

export interface CheckpointTotals {
  sessionId: string
  checkpoints: number
  tokensSaved: number
  totalSummaryCostUsd: number
  /** Token-weighted: sum(originalTokens) / sum(compressedTokens), to two decimals. */
  averageCompressionRatio: number
  totalOriginalTokens: number
  totalCompressedTokens: number
  /** The session's compaction circuit breaker (closed when none was ever recorded). */
  breaker: BreakerStatus
}

const noCheckpoints = (id: string) => new ApiError(404, 'not_found', `no checkpoints for session ${JSON.stringify(id)}`)

export function makeCheckpoints(deps: CheckpointsDeps) {
  const { db } = deps
  return {
    /** Newest first, paged; a session without any checkpoint is a 404. */
    async list(tenantId: string, sessionId: string, page: { cursor?: string; limit?: number }): Promise<{ items: Checkpoint[]; nextCursor: string | null }> {
      const found = await listCheckpoints(db, tenantId, sessionId, page)
      if (found.items.length === 0 && (await sessionStats(db, tenantId, sessionId)).checkpoints === 0) throw noCheckpoints(sessionId)
      return found
    },

    /** One checkpoint; one folded into another is a 404 that names it (details.foldedInto). */
    async get(tenantId: string, sessionId: string, num: number): Promise<Checkpoint> {
      const checkpoint = await getCheckpoint(db, tenantId, sessionId, num)
      if (checkpoint) return checkpoint
      const into = await foldedInto(db, tenantId, sessionId, num)
      if (into !== undefined) {
        throw new ApiError(404, 'not_found', `checkpoint ${num} of session ${JSON.stringify(sessionId)} was folded into checkpoint ${into}`, undefined, { foldedInto: into })
      }
      throw new ApiError(404, 'not_found', `no checkpoint ${num} for session ${JSON.stringify(sessionId)}`)
    },

    async totals(tenantId: string, sessionId: string): Promise<CheckpointTotals> {
      const [s, breaker] = await Promise.all([sessionStats(db, tenantId, sessionId), deps.breaker ? deps.breaker.status(tenantId, sessionId) : ({ state: 'closed', recent: [] } satisfies BreakerStatus)])
      // A session compacted only automatically (GET /context) has no checkpoint, but a breaker to show.
      if (s.checkpoints === 0 && breaker.state === 'closed' && breaker.recent.length === 0) throw noCheckpoints(sessionId)
      return {
        breaker,
        sessionId,
        checkpoints: s.checkpoints,
        tokensSaved: s.tokensSaved,
        totalSummaryCostUsd: s.totalSummaryCostUsd,
        averageCompressionRatio: s.totalCompressedTokens > 0 ? Math.round((s.totalOriginalTokens / s.totalCompressedTokens) * 100) / 100 : 0,
        totalOriginalTokens: s.totalOriginalTokens,
        totalCompressedTokens: s.totalCompressedTokens,
      }
    },
  }
}

export type CheckpointsUseCase = ReturnType<typeof makeCheckpoints>
