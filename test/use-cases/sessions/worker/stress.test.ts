/**
 * Issue 10, defect 1: an append that commits while a summary update finishes must never
 * leave evicted messages without a queue entry (they would stay unsummarised for good).
 *
 * The invariant (src/use-cases/sessions/worker.ts, docs/internals.md): every session whose
 * evicted-but-unsummarised messages make at least batchSize exchanges has an entry in
 * summary_update_queue (pending, leased or failed). With batchSize 1, as here: every
 * session with an evicted message has one. Appends and updates commit it atomically, so
 * it holds in every committed snapshot, which one SQL statement sees.
 *
 * - the exact interleaving, made deterministic on PostgreSQL with a third transaction
 *   holding the session row: an append waits for the row, the update's first statement
 *   waits behind it, the append commits first;
 * - the concurrent stress: two app instances (own pools, own workers) on one database.
 */
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { sql, type Kysely } from 'kysely'
import pg from 'pg'
import type { Database } from '../../../../src/db/schema.ts'
import { build } from '../../../../src/app.ts'
import { testConfig } from '../../../../src/config.ts'
import { openDatabase } from '../../../../src/db/database.ts'
import { claim } from '../../../../src/sessions/queue.ts'
import { buildTestApp } from '../../../helpers/build.ts'
import { createTestDatabase, POSTGRES_SKIP_REASON, postgresAvailable } from '../../../helpers/databases.ts'

const pgOk = await postgresAvailable()
const skip = pgOk ? false : POSTGRES_SKIP_REASON
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Four messages: two plain exchanges (with windowMessages 6, each append evicts some). */
function turn(session: string, k: number): Record<string, unknown>[] {
  return [
    { role: 'user', content: `${session}: request ${k}.a — look at src/file${k}a.ts` },
    { role: 'assistant', content: `Done ${k}.a: src/file${k}a.ts updated.` },
    { role: 'user', content: `${session}: request ${k}.b — and src/file${k}b.ts` },
    { role: 'assistant', content: `Done ${k}.b: src/file${k}b.ts updated.` },
  ]
}

async function append(app: FastifyInstance, id: string, messages: unknown[]) {
  const res = await app.inject({ method: 'POST', url: `/sessions/${id}/messages`, payload: { messages } })
  if (res.statusCode !== 200) throw new Error(`append ${res.statusCode}: ${res.body}`)
  return res.json()
}

/** Sessions breaking the invariant (batchSize 1), in one statement: one snapshot. */
async function orphans(db: Kysely<Database>): Promise<string[]> {
  const r = await sql<{ session_id: string }>`
    select distinct m.session_id from session_messages m
    where m.status = 'evicted' and not exists (
      select 1 from summary_update_queue q where q.tenant_id = m.tenant_id and q.session_id = m.session_id)
    order by 1`.execute(db)
  return r.rows.map((x) => x.session_id)
}

/** Backends of this database waiting for a lock. */
async function lockWaiters(db: Kysely<Database>): Promise<number> {
  const r = await sql<{ n: number }>`
    select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(db)
  return r.rows[0]!.n
}

async function until(what: string, fn: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(5)
  }
}

t.test('postgres: an append that commits while the update waits for the session row keeps its evictions queued', { skip }, async (t) => {
  const { app, database } = await buildTestApp(t, { backend: 'postgres', config: { WORKERS: 0 } })
  await app.inject({ method: 'PUT', url: '/sessions/r', payload: { windowMessages: 2, batchSize: 1 } })
  await append(app, 'r', turn('r', 0))
  const [entry] = await claim(app.db, app.summaryWorker.id, 60_000, 1)
  t.equal(entry?.sessionId, 'r', 'the first eviction queued an update, claimed by the worker')

  // A third transaction holds the session row, so both the append and the update queue up behind it.
  const holder = new pg.Client({ connectionString: database.url })
  await holder.connect()
  t.teardown(() => holder.end())
  await holder.query('begin')
  await holder.query(`select 1 from sessions where id = 'r' for no key update`)

  const appended = append(app, 'r', turn('r', 1))
  await until('the append to wait for the session row', async () => (await lockWaiters(app.db)) === 1)
  // The update reads its snapshot (no lock), then its first transactional statement waits:
  // that statement's snapshot is taken now, before the append commits.
  const updated = app.summaryWorker.process(entry!)
  await until('the update to wait behind the append', async () => (await lockWaiters(app.db)) === 2)
  await holder.query('commit')
  const res = await appended
  await updated

  t.ok(res.evicted > 0 && res.updateQueued, `the append evicted ${res.evicted} messages and asked for an update`)
  const evicted = await app.db.selectFrom('session_messages').select('seq').where('session_id', '=', 'r').where('status', '=', 'evicted').execute()
  const entryNow = await app.db.selectFrom('summary_update_queue').selectAll().where('session_id', '=', 'r').executeTakeFirst()
  t.ok(evicted.length > 0, `${evicted.length} messages still await their summary (the update folded its snapshot only)`)
  t.ok(entryNow, 'and their update is still queued')
  t.same(await orphans(app.db), [], 'no session with evicted messages and no queued update')

  // Converges without a manual refresh.
  await app.summaryWorker.runOnce()
  const s = (await app.inject({ method: 'GET', url: '/sessions/r/summary' })).json()
  t.equal(s.evictedAwaitingSummary, 0, 'everything evicted was folded')
  t.equal(s.stale, false)
  t.match(s.content, /request 1\.a/, "the append's evictions are in the summary")
})

t.test('postgres: two appends that both waited for the session row get consecutive seqs (no duplicate key, no 500)', { skip }, async (t) => {
  const { app, database } = await buildTestApp(t, { backend: 'postgres', config: { WORKERS: 0 } })
  await append(app, 'q', turn('q', 0))
  const holder = new pg.Client({ connectionString: database.url })
  await holder.connect()
  t.teardown(() => holder.end())
  await holder.query('begin')
  await holder.query(`select 1 from sessions where id = 'q' for no key update`)
  // Both appends' first statements start (and take their snapshots) before either commits.
  const first = append(app, 'q', turn('q', 1))
  await until('the first append to wait', async () => (await lockWaiters(app.db)) === 1)
  const second = append(app, 'q', turn('q', 2))
  await until('the second append to wait', async () => (await lockWaiters(app.db)) === 2)
  await holder.query('commit')
  const results = await Promise.allSettled([first, second])
  t.same(
    results.map((r) => (r.status === 'fulfilled' ? [r.value.firstSeq, r.value.lastSeq] : String(r.reason))),
    [
      [5, 8],
      [9, 12],
    ],
    'both appended, in order, seqs without gaps or duplicates',
  )
  const seqs = await app.db.selectFrom('session_messages').select('seq').where('session_id', '=', 'q').orderBy('seq').execute()
  t.same(
    seqs.map((r) => Number(r.seq)),
    Array.from({ length: 12 }, (_, i) => i + 1),
  )
})

t.test('postgres stress: two instances, 50 sessions × 12 concurrent 4-message appends: the invariant holds throughout, everything converges once', { skip }, async (t) => {
  const SESSIONS = 50
  const APPENDS = 12
  const started = Date.now()
  const database = await createTestDatabase('postgres')
  // The second instance has its own pool and its own worker, as another process would.
  const second = await openDatabase({ databaseUrl: database.url!, poolSize: 20 })
  const config = testConfig({ LOG_LEVEL: 'silent', WORKERS: 4, WORKER_POLL_MS: 10, LEASE_MS: 30_000, RATE_LIMIT_MAX: 10_000_000 })
  const logger = process.env.STRESS_LOG ? { level: 'error' } : false
  const apps = [await build({ config, database, logger }), await build({ config, database: second, logger })]
  t.teardown(async () => {
    await Promise.all(apps.map((x) => x.close()))
    await second.close()
    await database.close()
  })
  await Promise.all(apps.map((x) => x.ready()))
  const a = { app: apps[0]! }
  t.not(apps[0]!.summaryWorker.id, apps[1]!.summaryWorker.id)

  const ids = Array.from({ length: SESSIONS }, (_, i) => `st${i}`)
  for (const id of ids) await apps[0]!.inject({ method: 'PUT', url: `/sessions/${id}`, payload: { windowMessages: 6, batchSize: 1 } })

  // The invariant, sampled in single-statement snapshots while everything runs.
  let sampling = true
  let samples = 0
  const seen = new Set<string>()
  const sampler = (async () => {
    while (sampling) {
      for (const id of await orphans(a.app.db)) seen.add(id)
      samples++
      await sleep(2)
    }
  })()

  // Appends alternate between the instances, a session's 12 appends side by side, so they
  // race for its row. Each instance sends at most 8 at once, as a client's connection pool
  // would: hundreds queued at once would hold every database connection, and the
  // instances' workers (which claim through the same pools) would wait behind them, so
  // one instance could end up running every update and the test would not show two.
  const jobs: Array<Array<() => Promise<unknown>>> = [[], []]
  let n = 0
  for (const id of ids) for (let k = 0; k < APPENDS; k++) jobs[n++ % 2]!.push(() => append(apps[(n - 1) % 2]!, id, turn(id, k)))
  await Promise.all(
    jobs.flatMap((list) =>
      Array.from({ length: 8 }, async () => {
        for (let job = list.shift(); job; job = list.shift()) await job()
      }),
    ),
  )
  const appendedIn = Date.now() - started

  // Quiescence: nothing queued or running any more (or the deadline).
  const deadline = Date.now() + 30_000
  while (Date.now() < deadline) {
    const q = await sql<{ n: number }>`select count(*)::int as n from summary_update_queue`.execute(a.app.db)
    if (q.rows[0]!.n === 0) break
    await sleep(20)
  }
  sampling = false
  await sampler
  t.comment(`${SESSIONS} sessions × ${APPENDS} appends (${SESSIONS * APPENDS * 4} messages) through 2 instances in ${appendedIn} ms; quiescent after ${Date.now() - started} ms; ${samples} invariant samples`)

  t.same([...seen], [], 'never a session with evicted messages and no queued or running update')
  t.same(await orphans(a.app.db), [], 'none after quiescence either')

  const total = SESSIONS * APPENDS * 4
  const msgs = await sql<{ session_id: string; total: number; evicted: number; summarized: number; window: number; max_seq: number }>`
    select session_id, count(*)::int as total, max(seq)::int as max_seq,
           count(*) filter (where status = 'evicted')::int as evicted,
           count(*) filter (where status = 'summarized')::int as summarized,
           count(*) filter (where status = 'window')::int as window
    from session_messages group by session_id`.execute(a.app.db)
  t.equal(msgs.rows.reduce((s, r) => s + r.total, 0), total, `nothing lost: all ${total} messages stored`)
  t.ok(
    msgs.rows.every((r) => r.total === APPENDS * 4 && r.max_seq === r.total),
    'every session holds its 48 messages, seqs without gaps',
  )
  const stale = msgs.rows.filter((r) => r.evicted > 0).map((r) => `${r.session_id}:${r.evicted}`)
  t.same(stale, [], 'every session converged: nothing evicted is left unsummarised')

  // Nothing folded twice: the runs' folded counts add up to the summarized messages, their ranges never overlap.
  const runs = await a.app.db.selectFrom('summary_update_runs').select(['session_id', 'worker', 'finished_at', 'folded_from_seq', 'folded_to_seq', 'folded_messages']).orderBy('session_id').orderBy('started_at').execute()
  t.ok(
    runs.every((r) => r.finished_at !== null),
    `${runs.length} runs, all finished`,
  )
  let foldedTwice = 0
  for (const m of msgs.rows) {
    const list = runs.filter((r) => r.session_id === m.session_id)
    if (list.reduce((s, r) => s + (r.folded_messages ?? 0), 0) !== m.summarized) foldedTwice++
    const ranges = list.filter((r) => r.folded_messages).map((r) => [Number(r.folded_from_seq), Number(r.folded_to_seq)] as const)
    for (let i = 1; i < ranges.length; i++) if (ranges[i]![0] <= ranges[i - 1]![1]) foldedTwice++
  }
  t.equal(foldedTwice, 0, 'every summarized message was folded by exactly one update')
  t.equal(new Set(runs.map((r) => r.worker)).size, 2, 'both instances ran updates')

  const views = await Promise.all(ids.map(async (id) => (await a.app.inject({ method: 'GET', url: `/sessions/${id}/summary` })).json()))
  t.same(
    views.filter((v) => v.stale || v.evictedAwaitingSummary !== 0).map((v) => v.sessionId),
    [],
    'GET /summary: no summary stale',
  )
  t.ok(Date.now() - started < 45_000, `well under a minute: ${Date.now() - started} ms`)
})
