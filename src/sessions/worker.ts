/**
 * Background summary updates (seed 000): an in-process scheduler that claims queued
 * updates (src/sessions/queue.ts) and folds each session's evicted messages into its
 * rolling summary, outside any request.
 *
 * Scheduler: polls every WORKER_POLL_MS (sooner while work remains), at most WORKERS
 * updates at once, timers unref'd; never awaited by a request. `stop()` stops polling
 * and waits for the running updates (the app's onClose).
 *
 * One update:
 *   1. outside any transaction, read a snapshot (settings, current version, evicted
 *      messages) and compute the new document from it: updateSummary() in `rules` mode
 *      (aging, compression, the hard budget), the summarizer with BACKGROUND_AGENT_PROMPT
 *      in `llm` mode (any provider failure falls back to rules; a document over budget
 *      is an emergency truncation). Nothing is held meanwhile: on PGlite (one connection)
 *      reads would wait for an open transaction;
 *   2. in ONE short transaction, beginUpdate(): lock the session row (appends of the
 *      session wait; reads never do) and insert a summary_update_runs row (the partial
 *      unique index admits one unfinished run per session, so the database itself
 *      refuses a concurrent update); the snapshot must still be current (same version,
 *      its messages still evicted; newer evictions wait for the next run), else prepare
 *      again; after two stale snapshots the document is computed under the lock;
 *   3. write version N+1: the primary key (tenant, session, version) is the
 *      compare-and-set. A lost race (a manual PUT took N+1) rolls back and retries on the
 *      new version, so a manual summary is never overwritten by a stale result;
 *   4. markFolded(): the folded messages 'summarized' and the run row finished; then
 *      finish() the queue entry (delete it, or release it when work must not wait),
 *      decided on the evicted messages it reads after the fold, under the lock.
 * A crash anywhere rolls the transaction back: nothing is folded twice or lost, and the
 * entry is claimed again when its lease expires.
 *
 * Invariant (with the append, src/sessions/service.ts): every session whose evicted,
 * unsummarised messages make at least batchSize exchanges has a queue entry. Appends
 * evict and enqueue in one transaction; an update folds and finishes in one; both hold
 * the session row's lock, and each decides on reads made after taking it (a statement
 * that waited for the lock sees other tables as of before the wait: issue 10).
 */
import { hostname } from 'node:os'
import { randomUUID } from 'node:crypto'
import type { Kysely, Transaction } from 'kysely'
import type { Config } from '../config.ts'
import { isDatabaseUnavailable } from '../db/database.ts'
import type { Database } from '../db/schema.ts'
import { SummarizerError } from '../engine/compaction/types.ts'
import {
  ageSummary,
  BACKGROUND_AGENT_PROMPT,
  formatExchangesForPrompt,
  parseSummary,
  SECTION_KEYS,
  sessionExchanges,
  type SummaryUpdate,
} from '../engine/sessions/index.ts'
import type { TokenCounter } from '../engine/tokens/count.ts'
import type { SummarizerRegistry } from '../providers/summarizer-clients.ts'
import type { ComputeRunner } from '../services/compute-tasks.ts'
import { defaultCounter, modelFor } from '../services/estimate.ts'
import type { SessionMetrics, UpdateMode } from './metrics.ts'
import { computeRulesUpdate, rulesUpdateBytes, type RulesUpdateInput } from './rules-update.ts'
import { claim, claimDailyAging, enqueueAgingForAll, fail, finish, renewLease, type QueueEntry } from './queue.ts'
import {
  beginUpdate,
  insertSummaryVersion,
  isUniqueViolation,
  latestSummary,
  markFolded,
  messagesWithStatus,
  purgeExpired,
  latestMessageAt,
  readUpdateSnapshot,
  toCanonical,
  type SessionSettings,
  type StoredSummary,
  type UpdateSnapshot,
} from './repository.ts'

/** System prompt of the llm mode's background agent (the task itself is BACKGROUND_AGENT_PROMPT). */
export const BACKGROUND_AGENT_SYSTEM = 'You maintain the rolling summary document of an AI agent session. Follow the requested format exactly and answer with the document only.'
/** Model calls per update in llm mode before falling back to rules when the snapshot keeps changing. */
const LLM_CALLS = 2
/** Compare-and-set retries of one update (lost races to manual PUTs or other writers). */
const CAS_RETRIES = 5
/** Snapshots prepared outside the transaction before the update is computed inside it. */
const SNAPSHOT_TRIES = 2
/** A failure that could not be recorded (connection lost) is recorded again this many times, this long apart. */
const FAIL_RECORD_RETRIES = 2
const FAIL_RECORD_RETRY_MS = 100

interface Log {
  info(obj: object, msg: string): void
  warn(obj: object, msg: string): void
  error(obj: object, msg: string): void
}

export interface WorkerHooks {
  /** Inside the update's transaction, after it read the current version and the evicted messages, before it writes (tests: lose a race). */
  beforeWrite?(info: { tenantId: string; sessionId: string; trx: Transaction<Database>; baseVersion: number }): Promise<void>
  /** Inside the update's transaction, after its writes, before commit (tests: hold an update open, crash mid-update). */
  beforeCommit?(info: { tenantId: string; sessionId: string; trx: Transaction<Database> }): Promise<void>
}

export interface SummaryWorkerOptions {
  db: Kysely<Database>
  config: Config
  log: Log
  metrics?: SessionMetrics
  summarizers?: SummarizerRegistry
  /** Told about each written version (the service's LRU of summaries seen). */
  onSummaryWritten?(tenantId: string, sessionId: string, settings: SessionSettings, summary: StoredSummary, evictedAwaitingSummary: number): void
  /** Clock of the summary document (aging); default Date.now. */
  now?: () => number
  workerId?: string
  hooks?: WorkerHooks
  /** Runs rules updates in the compute pool (src/plugins/compute-pool.ts); absent: on the event loop. */
  compute?: ComputeRunner
}

export interface UpdateOutcome {
  tenantId: string
  sessionId: string
  skipped?: 'deleted'
  mode: UpdateMode
  written?: StoredSummary
  folded: number
  emergencyTruncated: boolean
  remaining: number
  /** The session's summary budget, in tokens. */
  budget?: number
  settings?: SessionSettings
}

class SnapshotChanged extends Error {}

/** The session was deleted before or during its update: nothing to do. */
function deletedOutcome(tenantId: string, sessionId: string): UpdateOutcome {
  return { tenantId, sessionId, skipped: 'deleted', mode: 'rules', folded: 0, emergencyTruncated: false, remaining: 0 }
}

export class SummaryWorker {
  readonly id: string
  private readonly db: Kysely<Database>
  private readonly config: Config
  private readonly log: Log
  private readonly now: () => number
  private readonly inflight = new Set<Promise<void>>()
  private timer: NodeJS.Timeout | undefined
  private started = false
  private stopped = false
  private polling = false
  private pollDone: Promise<void> | undefined
  private lastAgingCheck = 0

  constructor(private readonly opts: SummaryWorkerOptions) {
    this.db = opts.db
    this.config = opts.config
    this.log = opts.log
    this.now = opts.now ?? Date.now
    this.id = opts.workerId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`
  }

  get concurrency(): number {
    return this.config.WORKERS
  }

  get running(): number {
    return this.inflight.size
  }

  /** Starts polling (no-op when WORKERS is 0). */
  start(): void {
    if (this.started || this.stopped || this.concurrency <= 0) return
    this.started = true
    this.schedule(0)
  }

  /** Stops polling and waits for the running updates to finish. */
  async stop(): Promise<void> {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    // A poll in progress may still claim entries: let it, then drain them too.
    await this.pollDone
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight])
  }

  private schedule(ms: number): void {
    if (this.stopped) return
    if (this.timer) clearTimeout(this.timer)
    this.timer = setTimeout(() => void this.poll(), ms)
    this.timer.unref()
  }

  private poll(): Promise<void> {
    this.timer = undefined
    if (this.stopped || this.polling) return Promise.resolve()
    this.polling = true
    this.pollDone = this.pollOnce()
    return this.pollDone
  }

  private async pollOnce(): Promise<void> {
    let claimedAll = false
    try {
      await this.maybeRunDailyAging()
      const free = this.concurrency - this.inflight.size
      if (free > 0) {
        const entries = await claim(this.db, this.id, this.config.LEASE_MS, free)
        claimedAll = entries.length === free
        for (const entry of entries) this.track(entry)
      }
    } catch (err) {
      this.log.warn({ err: brief(err), worker: this.id }, 'summary worker: polling failed; retrying')
    } finally {
      this.polling = false
    }
    if (!this.stopped && !this.timer) this.schedule(claimedAll && this.inflight.size < this.concurrency ? 0 : this.config.WORKER_POLL_MS)
  }

  private track(entry: QueueEntry): void {
    const p = this.process(entry).finally(() => {
      this.inflight.delete(p)
      // A slot is free: look for more work now rather than after a full poll interval.
      if (!this.stopped && !this.polling) this.schedule(0)
    })
    this.inflight.add(p)
  }

  /** Claims and processes updates until none is available (tests, and draining by hand). Returns how many ran. */
  async runOnce(opts: { max?: number } = {}): Promise<number> {
    let n = 0
    const max = opts.max ?? Infinity
    while (n < max) {
      const [entry] = await claim(this.db, this.id, this.config.LEASE_MS, 1)
      if (!entry) break
      await this.process(entry)
      n++
    }
    return n
  }

  /**
   * The daily job, forced: queues an aging update for every session with a summary, and
   * deletes expired Idempotency-Keys and old audit rows of finished updates.
   */
  async runDailyAging(): Promise<number> {
    const n = await enqueueAgingForAll(this.db)
    if (n > 0) this.opts.metrics?.onUpdateQueued('aging', 'new', n)
    const purged = await purgeExpired(this.db, { idempotencyTtlMs: this.config.IDEMPOTENCY_TTL_MS, runHistoryMs: this.config.RUN_HISTORY_MS })
    this.log.info({ sessions: n, purged, worker: this.id }, 'daily aging: summaries queued for re-aging')
    return n
  }

  private async maybeRunDailyAging(): Promise<void> {
    const t = Date.now()
    if (t - this.lastAgingCheck < Math.min(60_000, this.config.DAILY_AGING_MS / 4)) return
    this.lastAgingCheck = t
    if (await claimDailyAging(this.db, this.config.DAILY_AGING_MS)) await this.runDailyAging()
  }

  /** One claimed entry: update, then complete / back off / give up. Never throws. */
  async process(entry: QueueEntry): Promise<void> {
    const started = performance.now()
    const { tenantId, sessionId } = entry
    const maxRetries = this.config.MAX_RETRIES
    // Claimed more times than allowed (e.g. every attempt crashed its process): give up.
    if (entry.attempts > maxRetries + 1) {
      await this.failed(entry, new Error(`claimed ${entry.attempts} times without completing (crashed or lost leases)`), 'abandoned')
      return
    }
    const heartbeat = setInterval(() => {
      renewLease(this.db, entry, this.id, this.config.LEASE_MS).catch(() => {})
    }, Math.max(50, Math.floor(this.config.LEASE_MS / 3)))
    heartbeat.unref()
    try {
      const outcome = await this.update(entry)
      const seconds = (performance.now() - started) / 1000
      this.opts.metrics?.onUpdateCompleted({
        mode: outcome.mode,
        seconds,
        ...(outcome.written ? { written: { tokens: outcome.written.tokens, budget: outcome.budget ?? 0 } } : {}),
        emergencyTruncated: outcome.emergencyTruncated,
      })
      if (outcome.emergencyTruncated) {
        this.log.warn({ tenantId, sessionId, tokens: outcome.written?.tokens }, 'summary exceeded its budget: emergency truncation applied')
      }
    } catch (err) {
      await this.failed(entry, err, err instanceof SummarizerError ? err.kind : errorCode(err))
    } finally {
      clearInterval(heartbeat)
    }
  }

  private async failed(entry: QueueEntry, err: unknown, reason: string): Promise<void> {
    const { tenantId, sessionId } = entry
    this.opts.metrics?.onUpdateFailed(reason)
    let status: 'pending' | 'failed' | undefined
    for (let attempt = 0; ; attempt++) {
      try {
        status = await fail(this.db, entry, this.id, brief(err).message, { maxRetries: this.config.MAX_RETRIES, baseMs: this.config.WORKER_RETRY_BASE_MS })
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
        this.log.warn({ err: brief(e), tenantId, sessionId }, 'summary update failed and could not be rescheduled; its lease will expire')
        return
      }
    }
    if (status === 'failed') {
      this.opts.metrics?.onUpdateGaveUp()
      this.log.error(
        { alert: true, tenantId, sessionId, attempts: entry.attempts, err: brief(err) },
        `summary updates failing repeatedly for session ${sessionId}: gave up after ${entry.attempts} attempts (MAX_RETRIES=${this.config.MAX_RETRIES}); POST /sessions/:id/summary/refresh retries`,
      )
    } else {
      this.log.warn({ tenantId, sessionId, attempts: entry.attempts, err: brief(err) }, 'summary update failed; retrying with backoff')
    }
  }

  /** The update of one session (see the module comment). */
  async update(entry: QueueEntry): Promise<UpdateOutcome> {
    const { tenantId, sessionId } = entry
    const now = this.now()
    let llmCalls = 0
    let llmSession = false
    for (let attempt = 0; ; attempt++) {
      let prepared: Prepared | undefined
      if (attempt < SNAPSHOT_TRIES || (llmSession && llmCalls < LLM_CALLS)) {
        const snap = await readUpdateSnapshot(this.db, tenantId, sessionId)
        if (!snap) return deletedOutcome(tenantId, sessionId)
        llmSession = snap.settings.mode === 'llm'
        // Aging alone (nothing evicted) is exact by rules, with no model call.
        if (llmSession && snap.evicted.length > 0 && llmCalls < LLM_CALLS) {
          llmCalls++
          prepared = await this.prepareLlm(snap, now).catch((err) => {
            this.log.warn({ tenantId, sessionId, err: brief(err) }, 'llm summary failed: falling back to rules')
            llmCalls = LLM_CALLS
            return undefined
          })
        }
        if (!prepared && attempt < SNAPSHOT_TRIES) prepared = await this.prepareRules(snap, now)
      }
      try {
        const outcome = await this.db.transaction().execute((trx) => this.commit(trx, entry, prepared, now))
        if (outcome.written && !outcome.skipped) this.opts.onSummaryWritten?.(tenantId, sessionId, outcome.settings!, outcome.written, outcome.remaining)
        return outcome
      } catch (err) {
        if ((err instanceof SnapshotChanged || isUniqueViolation(err)) && attempt < CAS_RETRIES) continue
        throw err
      }
    }
  }

  private async commit(trx: Transaction<Database>, entry: QueueEntry, prepared: Prepared | undefined, now: number): Promise<UpdateOutcome> {
    const { tenantId, sessionId } = entry
    const begun = await beginUpdate(trx, tenantId, sessionId, this.id)
    if (!begun) return deletedOutcome(tenantId, sessionId)
    const { settings } = begun
    const format = settings.format ?? 'openai'

    let p = prepared
    if (p) {
      const present = new Set(begun.evictedSeqs)
      if (p.baseVersion !== begun.version || !p.seqs.every((s) => present.has(s))) throw new SnapshotChanged()
    } else {
      // Stale snapshots twice: compute under the lock, which always makes progress.
      const current = await latestSummary(trx, tenantId, sessionId)
      if ((current?.version ?? 0) !== begun.version) throw new SnapshotChanged()
      const latest = await latestMessageAt(trx, tenantId, sessionId)
      p = await this.prepareRules({ settings, summary: current, evicted: await messagesWithStatus(trx, tenantId, sessionId, 'evicted'), ...(latest ? { latestMessageAt: latest } : {}) }, now)
    }
    const { update, mode, baseContent, seqs: foldedSeqs } = p

    await this.opts.hooks?.beforeWrite?.({ tenantId, sessionId, trx, baseVersion: begun.version })
    let written: StoredSummary | undefined
    if (baseContent !== undefined ? update.text !== baseContent : foldedSeqs.length > 0) {
      // The compare-and-set: a concurrent writer of this version makes this insert fail.
      written = await insertSummaryVersion(trx, tenantId, sessionId, { version: begun.version + 1, content: update.text, tokens: update.tokens, source: 'background' })
    }
    const changed = await markFolded(trx, tenantId, sessionId, { id: begun.runId, mode, fromVersion: begun.version, toVersion: written?.version ?? begun.version, seqs: foldedSeqs })
    if (changed !== foldedSeqs.length) throw new SnapshotChanged()
    await this.opts.hooks?.beforeCommit?.({ tenantId, sessionId, trx })

    // The queue entry, decided on what is evicted now (read under the lock), never on
    // begun.evictedSeqs: see finish() for the interleaving that orphaned evictions.
    const { remaining } = await finish(trx, entry, this.id, { batchSize: settings.batchSize, exchanges: (rows) => sessionExchanges(toCanonical(rows, format)).length })
    return { tenantId, sessionId, mode, written, folded: foldedSeqs.length, emergencyTruncated: update.emergencyTruncated, remaining: Math.max(0, remaining), budget: settings.summaryBudget, settings }
  }

  /** llm mode, outside any transaction: the background agent's document for the snapshot. */
  private async prepareLlm(snap: UpdateSnapshot, now: number): Promise<Prepared> {
    const { settings } = snap
    if (!this.opts.summarizers) throw new SummarizerError('unavailable', 'no summarizer configured')
    const client = this.opts.summarizers.get(settings.summarizer?.provider, settings.summarizer?.model)
    const counter = counterFor(this.config, settings)
    const exchanges = sessionExchanges(toCanonical(snap.evicted, settings.format ?? 'openai'))
    const prompt = BACKGROUND_AGENT_PROMPT(snap.summary?.content ?? '', formatExchangesForPrompt(exchanges, counter), settings.summaryBudget)
    const maxOutputTokens = Math.min(Math.ceil(settings.summaryBudget * 1.5) + 500, 32_000)
    if (client.countTokens(BACKGROUND_AGENT_SYSTEM + prompt) + maxOutputTokens > client.contextLimit) {
      throw new SummarizerError('context_overflow', `the update prompt does not fit ${client.model}'s context window`)
    }
    const res = await client.complete({ system: BACKGROUND_AGENT_SYSTEM, prompt, maxOutputTokens })
    if (res.truncated) throw new SummarizerError('over_budget', 'the summarizer stopped at its output limit')
    if (!res.text.trim()) throw new SummarizerError('empty', 'the summarizer returned nothing')
    const doc = parseSummary(res.text, now)
    if (SECTION_KEYS.every((k) => doc.sections[k].length === 0)) throw new SummarizerError('malformed', 'the summarizer returned no summary items')
    // The hard budget and aging, whatever the model wrote. A model that overshot the
    // budget failed to compress (seed 000): the system's truncation is an emergency,
    // logged and counted by process().
    const update = ageSummary({ doc, now, ...(snap.latestMessageAt ? { activityAt: snap.latestMessageAt } : {}), budgetTokens: settings.summaryBudget, counter })
    if (Math.ceil(counter.text(res.text) * counter.margin) > settings.summaryBudget) update.emergencyTruncated = true
    return { baseVersion: snap.summary?.version ?? 0, baseContent: snap.summary?.content, seqs: snap.evicted.map((r) => r.seq), update, mode: 'llm' }
  }

  /** rules mode (and the llm fallback): updateSummary() over a snapshot, in the compute pool when there is one. */
  private async prepareRules(snap: UpdateSnapshot, now: number): Promise<Prepared> {
    const { settings } = snap
    const input: RulesUpdateInput = { settings, summary: snap.summary ? { content: snap.summary.content } : undefined, evicted: snap.evicted, now, ...(snap.latestMessageAt ? { activityAt: snap.latestMessageAt.getTime() } : {}) }
    const update = this.opts.compute
      ? await this.opts.compute.run('summary', input, { bytes: rulesUpdateBytes(input), background: true })
      : computeRulesUpdate(this.config, input)
    return { baseVersion: snap.summary?.version ?? 0, baseContent: snap.summary?.content, seqs: snap.evicted.map((r) => r.seq), update, mode: rulesMode(settings, snap.evicted.length) }
  }
}

interface Prepared {
  baseVersion: number
  /** The content of baseVersion (undefined when there was none). */
  baseContent: string | undefined
  seqs: number[]
  update: Pick<SummaryUpdate, 'text' | 'tokens' | 'emergencyTruncated'>
  mode: UpdateMode
}

/** An llm session's rules update is a fallback, except aging alone (nothing new to summarise), which rules do exactly. */
function rulesMode(settings: SessionSettings, evicted: number): UpdateMode {
  return settings.mode === 'llm' && evicted > 0 ? 'llm-fallback' : 'rules'
}

function counterFor(config: Config, settings: SessionSettings): TokenCounter {
  return defaultCounter(modelFor(config, settings.model))
}

function brief(err: unknown): { message: string; code?: string } {
  const e = err as { message?: unknown; code?: unknown }
  return { message: String(e?.message ?? err), ...(typeof e?.code === 'string' ? { code: e.code } : {}) }
}

function errorCode(err: unknown): string {
  const code = (err as { code?: unknown })?.code
  return typeof code === 'string' && /^[\w-]{1,40}$/.test(code) ? code : 'error'
}
