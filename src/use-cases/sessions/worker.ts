/**
 * Background summary updates (seed 000): an in-process scheduler that claims queued
 * updates (src/sessions/queue.ts) and folds each session's evicted messages into its
 * rolling summary, outside any request.
 *
 * Scheduler: polls every WORKER_POLL_MS (sooner while work remains), at most WORKERS
 * updates at once, timers unref'd; never awaited by a request. `stop()` stops polling
 * and waits for the running updates (the app's onClose).
 *
 * One update (what it reads, computes and commits, and the invariant it keeps with the
 * append) is ./summary-update.ts.
 */
import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import { isDatabaseUnavailable } from '../../db/database.ts'
import { SummarizerError } from '../../engine/compaction/types.ts'
import { claim, claimDailyAging, enqueueAgingForAll, fail, renewLease, type QueueEntry } from '../../sessions/queue.ts'
import { purgeExpired } from '../../sessions/repository.ts'
import { inlineCompute } from '../compute.ts'
import type { UseCaseDeps } from '../deps.ts'
import { brief, makeSummaryUpdate, type SummaryUpdateDeps, type UpdateOutcome } from './summary-update.ts'

export { BACKGROUND_AGENT_SYSTEM, type UpdateOutcome, type WorkerHooks } from './summary-update.ts'

/** A failure that could not be recorded (connection lost) is recorded again this many times, this long apart. */
const FAIL_RECORD_RETRIES = 2
const FAIL_RECORD_RETRY_MS = 100

export type SummaryWorkerOptions = Pick<UseCaseDeps, 'db' | 'config' | 'log' | 'metrics'> &
  Partial<Pick<UseCaseDeps, 'summarizers' | 'compute'>> &
  Pick<SummaryUpdateDeps, 'onSummaryWritten' | 'hooks'> & {
    /** Clock of the summary document (aging); default Date.now. */
    now?: () => number
    workerId?: string
  }

export function makeSummaryWorker(opts: SummaryWorkerOptions) {
  const { db, config, log } = opts
  const id = opts.workerId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`
  // Without a compute pool (tests, a bench), rules updates run on this thread.
  const update = makeSummaryUpdate({ ...opts, compute: opts.compute ?? inlineCompute(config), workerId: id, now: opts.now ?? Date.now })
  const inflight = new Set<Promise<void>>()
  let timer: NodeJS.Timeout | undefined
  let started = false
  let stopped = false
  let polling = false
  let pollDone: Promise<void> | undefined
  let lastAgingCheck = 0

  /** Starts polling (no-op when WORKERS is 0). */
  function start(): void {
    if (started || stopped || config.WORKERS <= 0) return
    started = true
    schedule(0)
  }

  /** Stops polling and waits for the running updates to finish. */
  async function stop(): Promise<void> {
    stopped = true
    if (timer) clearTimeout(timer)
    timer = undefined
    // A poll in progress may still claim entries: let it, then drain them too.
    await pollDone
    while (inflight.size > 0) await Promise.allSettled([...inflight])
  }

  function schedule(ms: number): void {
    if (stopped) return
    if (timer) clearTimeout(timer)
    timer = setTimeout(() => void poll(), ms)
    timer.unref()
  }

  function poll(): Promise<void> {
    timer = undefined
    if (stopped || polling) return Promise.resolve()
    polling = true
    pollDone = pollOnce()
    return pollDone
  }

  async function pollOnce(): Promise<void> {
    let claimedAll = false
    try {
      await maybeRunDailyAging()
      const free = config.WORKERS - inflight.size
      if (free > 0) {
        const entries = await claim(db, id, config.LEASE_MS, free)
        claimedAll = entries.length === free
        if (entries.length > 0) opts.metrics?.onUpdatesClaimed(entries.map((e) => e.waitedMs / 1000))
        for (const entry of entries) track(entry)
      }
    } catch (err) {
      log.warn({ err: brief(err), worker: id }, 'summary worker: polling failed; retrying')
    } finally {
      polling = false
    }
    if (!stopped && !timer) schedule(claimedAll && inflight.size < config.WORKERS ? 0 : config.WORKER_POLL_MS)
  }

  function track(entry: QueueEntry): void {
    const p = processEntry(entry).finally(() => {
      inflight.delete(p)
      // A slot is free: look for more work now rather than after a full poll interval.
      if (!stopped && !polling) schedule(0)
    })
    inflight.add(p)
  }

  /** Claims and processes updates until none is available (tests, and draining by hand). Returns how many ran. */
  async function runOnce(limit: { max?: number } = {}): Promise<number> {
    let n = 0
    const max = limit.max ?? Infinity
    while (n < max) {
      const [entry] = await claim(db, id, config.LEASE_MS, 1)
      if (!entry) break
      opts.metrics?.onUpdatesClaimed([entry.waitedMs / 1000])
      await processEntry(entry)
      n++
    }
    return n
  }

  /**
   * The daily job, forced: queues an aging update for every session with a summary, and
   * deletes expired Idempotency-Keys and old audit rows of finished updates.
   */
  async function runDailyAging(): Promise<number> {
    const n = await enqueueAgingForAll(db)
    if (n > 0) opts.metrics?.onUpdateQueued('aging', 'new', n)
    const purged = await purgeExpired(db, { idempotencyTtlMs: config.IDEMPOTENCY_TTL_MS, runHistoryMs: config.RUN_HISTORY_MS })
    log.info({ sessions: n, purged, worker: id }, 'daily aging: summaries queued for re-aging')
    return n
  }

  async function maybeRunDailyAging(): Promise<void> {
    const t = Date.now()
    if (t - lastAgingCheck < Math.min(60_000, config.DAILY_AGING_MS / 4)) return
    lastAgingCheck = t
    if (await claimDailyAging(db, config.DAILY_AGING_MS)) await runDailyAging()
  }

  /** One claimed entry: update, then complete / back off / give up. Never throws. */
  async function processEntry(entry: QueueEntry): Promise<void> {
    const started = performance.now()
    const { tenantId, sessionId } = entry
    const maxRetries = config.MAX_RETRIES
    // Claimed more times than allowed (e.g. every attempt crashed its process): give up.
    if (entry.attempts > maxRetries + 1) {
      await failed(entry, new Error(`claimed ${entry.attempts} times without completing (crashed or lost leases)`), 'abandoned')
      return
    }
    const heartbeat = setInterval(() => {
      renewLease(db, entry, id, config.LEASE_MS).catch(() => {})
    }, Math.max(50, Math.floor(config.LEASE_MS / 3)))
    heartbeat.unref()
    try {
      const outcome = await update(entry)
      const seconds = (performance.now() - started) / 1000
      opts.metrics?.onUpdateCompleted({
        mode: outcome.mode,
        seconds,
        ...(outcome.written ? { written: { tokens: outcome.written.tokens, budget: outcome.budget ?? 0 } } : {}),
        emergencyTruncated: outcome.emergencyTruncated,
      })
      if (outcome.emergencyTruncated) {
        log.warn({ tenantId, sessionId, tokens: outcome.written?.tokens }, 'summary exceeded its budget: emergency truncation applied')
      }
    } catch (err) {
      await failed(entry, err, err instanceof SummarizerError ? err.kind : errorCode(err))
    } finally {
      clearInterval(heartbeat)
    }
  }

  async function failed(entry: QueueEntry, err: unknown, reason: string): Promise<void> {
    const { tenantId, sessionId } = entry
    opts.metrics?.onUpdateFailed(reason)
    let status: 'pending' | 'failed' | undefined
    for (let attempt = 0; ; attempt++) {
      try {
        status = await fail(db, entry, id, brief(err).message, { maxRetries: config.MAX_RETRIES, baseMs: config.WORKER_RETRY_BASE_MS })
        break
      } catch (e) {
        // When the database drops every connection at once, the update's failure and this
        // statement can both meet a connection that died with the others (the pool has not
        // discarded it yet): once more, shortly, on a fresh one, rather than leave the entry
        // to its lease (LEASE_MS) for a blip (issue 10, faults).
        if (attempt < FAIL_RECORD_RETRIES && isDatabaseUnavailable(e)) {
          await new Promise((r) => setTimeout(r, FAIL_RECORD_RETRY_MS))
          continue
        }
        log.warn({ err: brief(e), tenantId, sessionId }, 'summary update failed and could not be rescheduled; its lease will expire')
        return
      }
    }
    if (status === 'failed') {
      opts.metrics?.onUpdateGaveUp()
      log.error(
        { alert: true, tenantId, sessionId, attempts: entry.attempts, err: brief(err) },
        `summary updates failing repeatedly for session ${sessionId}: gave up after ${entry.attempts} attempts (MAX_RETRIES=${config.MAX_RETRIES}); POST /sessions/:id/summary/refresh retries`,
      )
    } else {
      log.warn({ tenantId, sessionId, attempts: entry.attempts, err: brief(err) }, 'summary update failed; retrying with backoff')
    }
  }

  return {
    id,
    get concurrency(): number {
      return config.WORKERS
    },
    get running(): number {
      return inflight.size
    },
    start,
    stop,
    runOnce,
    runDailyAging,
    process: processEntry,
    update,
  }
}

export type SummaryWorker = ReturnType<typeof makeSummaryWorker>

function errorCode(err: unknown): string {
  const code = (err as { code?: unknown })?.code
  return typeof code === 'string' && /^[\w-]{1,40}$/.test(code) ? code : 'error'
}
