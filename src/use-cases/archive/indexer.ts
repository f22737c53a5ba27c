/**
 * The archive's deferred index. A compaction (or an append that evicts) stores the
 * messages in its transaction; their chunks are indexed after it: in the background right
 * away (`schedule`), and by a search before it reads (`beforeSearch`), so a search finds
 * every message archived before it, on any instance, even one whose background indexing
 * a crash cut short. After enough new messages it analyses the tables (PGlite has no
 * autovacuum, and without statistics a search reads every chunk). The CPU part runs in the compute pool, in batches, so neither the
 * event loop nor one transaction holds a 500 KB output's indexing for long.
 */
import { decryptArchived } from '../../archive/cipher.ts'
import { analyzeArchive, countPendingIndex, pendingIndex, storeChunks } from '../../archive/repository.ts'
import type { UseCaseDeps } from '../deps.ts'
import { archivePolicy } from './policy.ts'

export type ArchiveIndexerDeps = Pick<UseCaseDeps, 'db' | 'config' | 'compute' | 'log'>

/** Messages per batch: one compute task and one short transaction each. */
const BATCH_MESSAGES = 100
/** What a search indexes before it reads, at most; past it the answer says how many wait. */
const SEARCH_INDEXES_AT_MOST = 2_000
/** The tables are analysed after this many newly indexed messages, at most once a minute per process. */
const ANALYZE_AFTER_MESSAGES = 500
const ANALYZE_EVERY_MS = 60_000

export interface ArchiveIndexer {
  /** Index the session's unindexed messages in the background (coalesced per session). */
  schedule(tenantId: string, sessionId: string): void
  /** Waits for the session's background indexing, then indexes what is left (bounded); returns how many still wait. */
  beforeSearch(tenantId: string, sessionId: string): Promise<number>
  /** Waits for every background indexing (a test's settle point). */
  drain(): Promise<void>
  /** The app's close: no new batch starts; waits for the ones in flight (what is left, a later search indexes). */
  stop(): Promise<void>
}

export function makeArchiveIndexer(deps: ArchiveIndexerDeps): ArchiveIndexer {
  const { db } = deps
  const policy = archivePolicy(deps.config)
  const running = new Map<string, Promise<void>>()
  const rerun = new Set<string>()
  const keyOf = (tenantId: string, sessionId: string) => `${tenantId}\u0000${sessionId}`
  let stopped = false
  let sinceAnalyze = 0
  let lastAnalyze = 0

  /** Indexes one batch; how many messages it indexed. */
  async function indexBatch(tenantId: string, sessionId: string, background: boolean): Promise<number> {
    const rows = await pendingIndex(db, tenantId, sessionId, BATCH_MESSAGES)
    if (rows.length === 0) return 0
    const items = rows.map((r) => ({ hash: r.hash, format: r.format, raw: r.encrypted ? decryptArchived(policy.key!, r.raw) : r.raw }))
    const bytes = items.reduce((n, it) => n + it.raw.length, 0)
    const indexed = await deps.compute.run('archive-chunks', items, { bytes, background, cacheScope: tenantId })
    await storeChunks(db, tenantId, sessionId, indexed, { keepBody: policy.key === undefined })
    sinceAnalyze += rows.length
    if (sinceAnalyze >= ANALYZE_AFTER_MESSAGES && Date.now() - lastAnalyze >= ANALYZE_EVERY_MS) {
      sinceAnalyze = 0
      lastAnalyze = Date.now()
      await analyzeArchive(db)
    }
    return rows.length
  }

  /** Indexes up to `most` messages; whether some may be left (the cap or a stop came first). */
  async function indexUpTo(tenantId: string, sessionId: string, most: number, background: boolean): Promise<boolean> {
    let done = 0
    while (done < most && !stopped) {
      const n = await indexBatch(tenantId, sessionId, background)
      if (n < BATCH_MESSAGES) return false
      done += n
    }
    return true
  }

  function schedule(tenantId: string, sessionId: string): void {
    const key = keyOf(tenantId, sessionId)
    if (stopped) return
    if (running.has(key)) {
      rerun.add(key)
      return
    }
    // Started on the next turn of the event loop, not now: the request that scheduled it
    // still has its own queries and its response to finish, and PGlite runs one query at a
    // time on this thread (its first batch read went ahead of the compaction's last query:
    // that query took 4.7 ms instead of 0.6, docs/benchmarks.md).
    const run = new Promise<void>((resolve) => setImmediate(resolve))
      .then(async () => {
        do {
          rerun.delete(key)
          await indexUpTo(tenantId, sessionId, Number.POSITIVE_INFINITY, true)
        } while (rerun.has(key) && !stopped)
      })
      .catch((err: unknown) => deps.log.warn({ err: err instanceof Error ? err.message : String(err), sessionId }, 'archive indexing failed; the next search of the session indexes it'))
      .finally(() => running.delete(key))
    running.set(key, run)
  }

  return {
    schedule,
    async beforeSearch(tenantId, sessionId) {
      await running.get(keyOf(tenantId, sessionId))
      // Counted only when the cap was reached: an archive indexed to its end has nothing waiting.
      const more = await indexUpTo(tenantId, sessionId, SEARCH_INDEXES_AT_MOST, false)
      return more ? countPendingIndex(db, tenantId, sessionId) : 0
    },
    async drain() {
      while (running.size > 0) await Promise.allSettled([...running.values()])
    },
    async stop() {
      stopped = true
      await Promise.allSettled([...running.values()])
    },
  }
}
