/**
 * The summary update queue: a table (summary_update_queue), not pg-boss. Why, in short
 * (docs/internals.md has the long form): one SQL path that runs unchanged on PGlite
 * and PostgreSQL; seed 000's semantics of at most one entry per session (the primary key,
 * enqueue is an upsert that keeps the higher priority) that a job queue does not give;
 * and leases we control, so a crashed worker's entry is claimed again by any instance.
 *
 * - enqueue: upsert; a pending entry keeps the higher priority and the earlier
 *   availability. A failed entry (past MAX_RETRIES) is revived only by a high-priority
 *   enqueue (POST /summary/refresh), so appends do not retry a broken session forever.
 * - claim: `FOR UPDATE SKIP LOCKED` over available, unleased (or lease-expired) entries,
 *   highest priority first; sets a lease and counts the attempt.
 * - complete / release / fail: only by the lease owner. Failures back off exponentially;
 *   past MAX_RETRIES the entry is marked failed.
 */
import { sql } from 'kysely'
import { encodeText } from '../db/nul.ts'
import { evictedFromJson, type Db, type StoredMessage } from './repository.ts'

export const PRIORITY_AGING = 0
export const PRIORITY_LOW = 1
export const PRIORITY_HIGH = 10
/** Longest retry delay. */
export const MAX_BACKOFF_MS = 600_000

export type PriorityName = 'aging' | 'low' | 'high'
export const priorityName = (p: number): PriorityName => (p >= PRIORITY_HIGH ? 'high' : p <= PRIORITY_AGING ? 'aging' : 'low')

export interface QueueEntry {
  tenantId: string
  sessionId: string
  priority: number
  /** Attempts including this one. */
  attempts: number
  queuedAt: Date
  /** How long the entry waited to be claimed once it was available (ms): the queue's claim latency. */
  waitedMs: number
  /** The entry's generation when claimed: finish() tells from it whether the entry was re-queued since. */
  generation: number
}

/** Returns 'new' when an entry was created, 'merged' when it joined the pending one. */
export async function enqueue(db: Db, tenantId: string, sessionId: string, priority: number): Promise<'new' | 'merged'> {
  const revive = priority >= PRIORITY_HIGH
  const res = await sql<{ inserted: boolean }>`
    insert into summary_update_queue as q (tenant_id, session_id, priority)
    values (${tenantId}, ${sessionId}, ${priority})
    on conflict (tenant_id, session_id) do update set
      priority = greatest(q.priority, excluded.priority),
      available_at = case
        when q.status = 'failed' and ${revive}::boolean then now()
        when excluded.priority > q.priority then least(q.available_at, now())
        else q.available_at end,
      status = case when ${revive}::boolean then 'pending' else q.status end,
      attempts = case when q.status = 'failed' and ${revive}::boolean then 0 else q.attempts end,
      last_error = case when q.status = 'failed' and ${revive}::boolean then null else q.last_error end,
      generation = q.generation + 1
    returning (xmax = 0) as inserted`.execute(db)
  return res.rows[0]?.inserted ? 'new' : 'merged'
}

/** Claims up to `limit` entries for `worker`, leased for `leaseMs`. */
export async function claim(db: Db, worker: string, leaseMs: number, limit: number): Promise<QueueEntry[]> {
  if (limit <= 0) return []
  const res = await sql<{ tenant_id: string; session_id: string; priority: number; attempts: number; queued_at: Date | string; generation: number; waited_ms: number }>`
    update summary_update_queue q
    set lease_owner = ${worker},
        lease_expires_at = now() + ${leaseMs}::float8 * interval '1 millisecond',
        attempts = q.attempts + 1
    from (
      select tenant_id, session_id from summary_update_queue
      where status = 'pending' and available_at <= now()
        and (lease_expires_at is null or lease_expires_at < now())
      order by priority desc, available_at, queued_at
      limit ${limit}
      for update skip locked
    ) c
    where q.tenant_id = c.tenant_id and q.session_id = c.session_id
    returning q.tenant_id, q.session_id, q.priority, q.attempts, q.queued_at, q.generation,
      (extract(epoch from (now() - q.available_at)) * 1000)::float8 as waited_ms`.execute(db)
  return res.rows
    .map((r) => ({ tenantId: r.tenant_id, sessionId: r.session_id, priority: r.priority, attempts: r.attempts, queuedAt: new Date(r.queued_at), waitedMs: Math.max(0, Number(r.waited_ms)), generation: r.generation }))
    .sort((a, b) => b.priority - a.priority)
}

/** Extends the lease while an update runs. False when the lease was lost. */
export async function renewLease(db: Db, entry: QueueEntry, worker: string, leaseMs: number): Promise<boolean> {
  const res = await sql`
    update summary_update_queue set lease_expires_at = now() + ${leaseMs}::float8 * interval '1 millisecond'
    where tenant_id = ${entry.tenantId} and session_id = ${entry.sessionId} and lease_owner = ${worker}`.execute(db)
  return Number(res.numAffectedRows ?? 0) > 0
}

/** Done: removes the entry (only while this worker holds it). */
export async function complete(db: Db, entry: QueueEntry, worker: string): Promise<boolean> {
  const res = await sql`
    delete from summary_update_queue
    where tenant_id = ${entry.tenantId} and session_id = ${entry.sessionId} and lease_owner = ${worker}`.execute(db)
  return Number(res.numAffectedRows ?? 0) > 0
}

/** Evicted messages finish() reads at most; beyond this a batch is assumed waiting. */
export const FINISH_READ_LIMIT = 2_000

/**
 * The end of a successful update, inside its transaction, after markFolded(). It keeps
 * the invariant of the queue: every session whose evicted-but-unsummarised messages make
 * at least batchSize exchanges has an entry (pending, leased or failed).
 *
 * The decision is taken on the evicted messages left AFTER the fold, read here by a
 * statement that starts with the session row locked (beginUpdate took the lock earlier in
 * this transaction): it sees every append committed before, and no append can evict more
 * until this transaction commits (an append locks the row first). Not on beginUpdate's
 * own list: that statement's snapshot predates its wait for the lock, so it misses what an
 * append committed meanwhile, and deleting on it orphaned those evictions (issue 10).
 *
 * Release the entry for another run when a batch is waiting, or anything at all after a
 * refresh re-queued it at high priority during the update; else remove it (what is left
 * is below the batch, and the append that completes a batch queues it again).
 */
export async function finish(
  trx: Db,
  entry: QueueEntry,
  worker: string,
  work: { batchSize: number; exchanges(rows: StoredMessage[]): number },
): Promise<{ outcome: 'completed' | 'released' | 'lost'; remaining: number }> {
  const res = await sql<{ priority: number; generation: number; evicted: unknown; remaining: number | string }>`
    select q.priority, q.generation,
      (select coalesce(json_agg(json_build_object('seq', m.seq, 'raw', m.raw, 'role', m.role, 'tokens', m.tokens, 'message_at', m.message_at) order by m.seq), '[]'::json)
        from (select seq, raw, role, tokens, message_at from session_messages
              where tenant_id = q.tenant_id and session_id = q.session_id and status = 'evicted' order by seq limit ${FINISH_READ_LIMIT + 1}) m) as evicted,
      (select count(*) from session_messages
        where tenant_id = q.tenant_id and session_id = q.session_id and status = 'evicted') as remaining
    from summary_update_queue q
    where q.tenant_id = ${entry.tenantId} and q.session_id = ${entry.sessionId} and q.lease_owner = ${worker}
    for update of q`.execute(trx)
  const row = res.rows[0]
  if (!row) return { outcome: 'lost', remaining: -1 }
  const rows = evictedFromJson(row.evicted)
  const remaining = Number(row.remaining)
  const waiting = rows.length > FINISH_READ_LIMIT ? Number.MAX_SAFE_INTEGER : rows.length > 0 ? work.exchanges(rows) : 0
  const refreshed = row.generation !== entry.generation && row.priority >= PRIORITY_HIGH
  if (waiting >= work.batchSize || (refreshed && remaining > 0)) {
    await release(trx, entry, worker)
    return { outcome: 'released', remaining }
  }
  await complete(trx, entry, worker)
  return { outcome: 'completed', remaining }
}

/** Done, but work remains: the entry becomes available again at once, attempts reset. */
export async function release(db: Db, entry: QueueEntry, worker: string): Promise<void> {
  await sql`
    update summary_update_queue
    set lease_owner = null, lease_expires_at = null, attempts = 0, available_at = now(), last_error = null
    where tenant_id = ${entry.tenantId} and session_id = ${entry.sessionId} and lease_owner = ${worker}`.execute(db)
}

/**
 * A failed attempt: back off `baseMs × 2^(attempts−1)` (capped), or mark the entry failed
 * once `attempts` exceeds `maxRetries`. Returns the entry's new status, or undefined
 * when the lease had been lost (another worker owns the entry now).
 */
export async function fail(db: Db, entry: QueueEntry, worker: string, error: string, opts: { maxRetries: number; baseMs: number }): Promise<'pending' | 'failed' | undefined> {
  const res = await sql<{ status: 'pending' | 'failed' }>`
    update summary_update_queue
    set lease_owner = null, lease_expires_at = null, last_error = ${encodeText(error.slice(0, 2000))},
        status = case when attempts > ${opts.maxRetries} then 'failed' else 'pending' end,
        available_at = now() + least(${opts.baseMs}::float8 * power(2, greatest(attempts - 1, 0)), ${MAX_BACKOFF_MS}) * interval '1 millisecond'
    where tenant_id = ${entry.tenantId} and session_id = ${entry.sessionId} and lease_owner = ${worker}
    returning status`.execute(db)
  return res.rows[0]?.status
}

/** Queues an aging update for every session that has a summary (existing entries are left alone). */
export async function enqueueAgingForAll(db: Db): Promise<number> {
  const res = await sql`
    insert into summary_update_queue (tenant_id, session_id, priority)
    select distinct tenant_id, session_id, ${PRIORITY_AGING}::int from session_summaries
    on conflict (tenant_id, session_id) do nothing`.execute(db)
  return Number(res.numAffectedRows ?? 0)
}

/**
 * Whether this instance should run the daily aging now: one instance wins per period
 * (an atomic conditional update of scheduler_state).
 */
export async function claimDailyAging(db: Db, periodMs: number): Promise<boolean> {
  const res = await sql`
    update scheduler_state set last_run_at = now()
    where name = 'daily_aging' and last_run_at <= now() - ${periodMs}::float8 * interval '1 millisecond'`.execute(db)
  return Number(res.numAffectedRows ?? 0) > 0
}
