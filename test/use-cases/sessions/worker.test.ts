/**
 * Background summary updates: a real conversation appended in chunks, aging at the
 * documented ages of the session's own activity (not the clock), the queue (one entry per session, leases,
 * SKIP LOCKED, backoff, MAX_RETRIES → failed + alert), the hard budget, the database's
 * refusal of concurrent runs, the scheduler started with the app, and crash safety
 * with a worker process killed by SIGKILL in the middle of an update.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import { extractHandover } from '../../../src/engine/facts/handover.ts'
import { parseConversation } from '../../../src/engine/messages/index.ts'
import { parseSummary, renderSummary, SECTION_TITLES, sessionExchanges } from '../../../src/engine/sessions/index.ts'
import { createMetrics } from '../../../src/plugins/metrics.ts'
import { claim, claimDailyAging, complete, enqueue, fail, finish, PRIORITY_HIGH, PRIORITY_LOW, type QueueEntry } from '../../../src/sessions/queue.ts'
import { toCanonical, type StoredMessage } from '../../../src/sessions/repository.ts'
import { makeSummaryWorker } from '../../../src/use-cases/sessions/worker.ts'
import { buildTestApp } from '../../helpers/build.ts'
import { BACKENDS, defaultBackend, POSTGRES_SKIP_REASON, postgresAvailable } from '../../helpers/databases.ts'
import { CONVERSATIONS, conversationsSkip } from '../../helpers/fixtures.ts'
import { exchange, type Message } from '../../helpers/session-conversations.ts'

const pgOk = await postgresAvailable()
const root = path.resolve(import.meta.dirname, '../../..')
const silent = { info() {}, warn() {}, error() {} }
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const HOUR = 3_600_000
const DAY = 24 * HOUR

async function append(app: FastifyInstance, id: string, messages: Message[]) {
  const res = await app.inject({ method: 'POST', url: `/sessions/${id}/messages`, payload: { messages } })
  if (res.statusCode !== 200) throw new Error(`append ${res.statusCode}: ${res.body}`)
  return res.json()
}

async function tenantOf(app: FastifyInstance, sessionId: string): Promise<string> {
  return (await app.db.selectFrom('sessions').select('tenant_id').where('id', '=', sessionId).executeTakeFirstOrThrow()).tenant_id
}

async function queueRow(app: FastifyInstance, sessionId: string) {
  return app.db.selectFrom('summary_update_queue').selectAll().where('session_id', '=', sessionId).executeTakeFirst()
}

// ---------------------------------------------------------------------------

const FIXTURE = 'deepseek_chat_test_1-100__django__django-11019.json'
const fixturePath = path.join(CONVERSATIONS, FIXTURE)

t.test('a real conversation appended in chunks ends with a well-formed summary, within budget, naming the files and errors it lost', { skip: conversationsSkip([FIXTURE]) }, async (t) => {
  const { app } = await buildTestApp(t, { backend: await defaultBackend() })
  const messages = (JSON.parse(fs.readFileSync(fixturePath, 'utf8')) as { messages: Message[] }).messages
  t.ok(messages.length > 100, `${FIXTURE}: ${messages.length} messages`)
  let updates = 0
  for (let i = 0; i < messages.length; i += 6) {
    await append(app, 'fx', messages.slice(i, i + 6))
    updates += await app.summaryWorker.runOnce() // the background, made deterministic
  }
  t.ok(updates >= 3, `${updates} background updates ran`)
  await app.inject({ method: 'POST', url: '/sessions/fx/summary/refresh' })
  await app.summaryWorker.runOnce()

  const s = (await app.inject({ method: 'GET', url: '/sessions/fx/summary' })).json()
  t.ok(s.tokens > 0 && s.tokens <= 10_000, `within the default budget: ${s.tokens} tokens`)
  t.equal(renderSummary(parseSummary(s.content, Date.now())), s.content, 'well formed: it parses back to itself')
  // Every message is from today: only this session's section, no empty headings for the others.
  t.ok(s.content.startsWith(`## ${SECTION_TITLES.session}\n`), "this session's section first")
  t.notMatch(s.content, new RegExp(`## (${SECTION_TITLES.yesterday}|${SECTION_TITLES.week})\\n`), 'no empty section')
  const items = parseSummary(s.content, Date.now()).sections.session
  t.ok(items.length >= 10, `${items.length} items`)
  for (const item of items) t.match(renderSummary({ sections: { session: [item], yesterday: [], week: [] }, continuation: { currentTask: '', completedSteps: [], pendingSteps: [], keyDecisions: [], relevantFiles: [] } }, { meta: false }), /^## Previously in This Session\n1\. .+ \(\d{4}-\d\d-\d\d \d\d:\d\dZ, ~[\d.]+k? tokens\)\n/)

  // What was evicted and folded: its changed files and its errors are named.
  const folded = await app.db.selectFrom('session_messages').select('raw').where('session_id', '=', 'fx').where('status', '=', 'summarized').orderBy('seq').execute()
  t.ok(folded.length > messages.length / 2, `${folded.length} messages folded`)
  const facts = extractHandover(parseConversation(folded.map((r) => r.raw), { format: 'openai' }).messages, { preserveErrorDetails: true })
  const changed = facts.files.filter((f) => f.fate === 'edited' || f.fate === 'created').map((f) => path.basename(f.path))
  const named = changed.filter((f) => s.content.includes(f))
  t.ok(changed.length >= 5 && named.length >= 0.8 * changed.length, `changed files named: ${named.length}/${changed.length}`)
  t.match(s.content, /django\/forms\/widgets\.py/, 'the file the fix is in')
  const errors = [...new Set(facts.failures.map((f) => f.errorLine))]
  t.ok(errors.length >= 2)
  for (const e of errors) t.ok(s.content.includes(e.slice(0, 50)), `error named: ${e.slice(0, 50)}`)
  const runs = await app.db.selectFrom('summary_update_runs').select(['folded_messages']).where('session_id', '=', 'fx').execute()
  t.equal(
    runs.reduce((n, r) => n + (r.folded_messages ?? 0), 0),
    folded.length,
    'every folded message was folded exactly once',
  )
})

t.test('aging with controlled timestamps: Session → Yesterday → This Week → dropped at exactly the documented ages of the session', async (t) => {
  const { app } = await buildTestApp(t, { backend: await defaultBackend() })
  const A = Date.parse('2026-03-10T12:00:00.000Z')
  let clock = A + HOUR
  const worker = makeSummaryWorker({ db: app.db, config: app.config, log: silent, now: () => clock })
  await app.inject({ method: 'PUT', url: '/sessions/age', payload: { windowMessages: 4, batchSize: 1 } })
  await append(app, 'age', exchange(0, { at: A }))
  await append(app, 'age', exchange(1, { at: A + HOUR - 1000 }))
  await append(app, 'age', exchange(2, { at: A + HOUR }))
  await worker.runOnce()
  const sectionOf = async (file: string) => {
    const s = (await app.inject({ method: 'GET', url: '/sessions/age/summary' })).json()
    const doc = parseSummary(s.content, clock)
    for (const key of ['session', 'yesterday', 'week'] as const) if (doc.sections[key].some((i) => i.files?.includes(file))) return key
    return 'dropped'
  }
  t.equal(await sectionOf('src/module0.ts'), 'session')
  // The clock alone ages nothing: items age against the session's latest activity.
  clock = A + 30 * DAY
  await worker.runDailyAging()
  await worker.runOnce()
  t.equal(await sectionOf('src/module0.ts'), 'session', 'an idle session, a month later: nothing aged')
  // The session moves on: an exchange stamped `ms` is appended (its first units are
  // evicted and folded), then the daily job runs.
  let next = 20
  const at = async (ms: number) => {
    clock = ms
    await append(app, 'age', exchange(next++, { at: ms }))
    await worker.runOnce()
    await worker.runDailyAging()
    await worker.runOnce()
    return sectionOf('src/module0.ts')
  }
  t.equal(await at(A + DAY), 'session', 'exactly 24 h old: still in this session')
  t.equal(await at(A + DAY + 1), 'yesterday', 'older than 24 h: Yesterday')
  t.equal(await at(A + 7 * DAY), 'yesterday', 'exactly 7 days: still Yesterday')
  t.equal(await at(A + 7 * DAY + 1), 'week', 'older than 7 days: This Week')
  t.equal(await at(A + 14 * DAY), 'week', 'exactly 14 days: still This Week')
  // module0's exchange is the session's first request: its original task, pinned.
  t.equal(await at(A + 14 * DAY + 1), 'week', 'older than 14 days: the original task is never aged out')
  t.equal(await sectionOf('src/module1.ts'), 'week', 'a younger item (59 min 59 s younger) is still there')
  clock = A + HOUR - 1000 + 14 * DAY + 1
  await at(clock)
  t.equal(await sectionOf('src/module1.ts'), 'dropped', 'older than 14 days: dropped')

  // Messages without a timestamp age from when they were appended.
  await append(app, 'age', exchange(7))
  await append(app, 'age', exchange(8))
  clock = Date.now()
  await worker.runOnce()
  t.equal(await sectionOf('src/module7.ts'), 'session')
  t.equal(await at(Date.now() + DAY + 60_000), 'week', 'the original task stays')
  t.equal(await sectionOf('src/module7.ts'), 'yesterday', 'undated messages take their append time')

  // The daily job runs once per period, whichever instance asks first.
  await sql`update scheduler_state set last_run_at = now() - interval '2 days' where name = 'daily_aging'`.execute(app.db)
  const wins = await Promise.all([1, 2, 3].map(() => claimDailyAging(app.db, DAY)))
  t.same(
    wins.filter(Boolean).length,
    1,
    'one instance wins the daily aging',
  )
})

t.test('the daily job deletes expired Idempotency-Keys and old audit rows, and keeps fresh ones', async (t) => {
  const { app } = await buildTestApp(t, { backend: await defaultBackend() })
  const worker = makeSummaryWorker({ db: app.db, config: app.config, log: silent })
  const post = (key: string, i: number) => app.inject({ method: 'POST', url: '/sessions/ttl/messages', payload: { messages: exchange(i) }, headers: { 'idempotency-key': key } })
  await app.inject({ method: 'PUT', url: '/sessions/ttl', payload: { windowMessages: 4, batchSize: 1 } })
  t.equal((await post('old', 0)).statusCode, 200)
  t.equal((await post('new', 1)).statusCode, 200)
  await worker.runOnce()
  await post('x', 2)
  await worker.runOnce()
  await sql`update idempotency_keys set created_at = now() - interval '25 hours' where key = 'old'`.execute(app.db)
  await sql`update summary_update_runs set finished_at = now() - interval '8 days', started_at = now() - interval '8 days' where to_version = 1`.execute(app.db)
  const runsBefore = Number((await sql<{ n: number }>`select count(*) as n from summary_update_runs`.execute(app.db)).rows[0]!.n)
  await worker.runDailyAging()
  const keys = (await app.db.selectFrom('idempotency_keys').select('key').orderBy('key').execute()).map((r) => r.key)
  t.same(keys, ['new', 'x'], 'the key past IDEMPOTENCY_TTL_MS (24 h) is gone, fresh ones stay')
  const runsAfter = Number((await sql<{ n: number }>`select count(*) as n from summary_update_runs`.execute(app.db)).rows[0]!.n)
  t.equal(runsAfter, runsBefore - 1, 'the run finished 8 days ago is gone (RUN_HISTORY_MS: 7 days)')
  const replay = await post('new', 1)
  t.equal(replay.headers['idempotent-replayed'], 'true', 'a fresh key still replays')
  const again = await post('old', 0)
  t.equal(again.statusCode, 200)
  t.not(again.headers['idempotent-replayed'], 'true', 'an expired key appends again')
})

for (const backend of BACKENDS) {
  const skip = backend === 'postgres' && !pgOk ? POSTGRES_SKIP_REASON : false

  t.test(`${backend}: the queue: one entry per session, priorities, leases, SKIP LOCKED`, { skip }, async (t) => {
    const { app } = await buildTestApp(t, { backend })
    await append(app, 'q1', exchange(0))
    const tenant = await tenantOf(app, 'q1')
    t.equal(await enqueue(app.db, tenant, 'q1', PRIORITY_LOW), 'new')
    t.equal(await enqueue(app.db, tenant, 'q1', PRIORITY_LOW), 'merged')
    t.equal(await enqueue(app.db, tenant, 'q1', PRIORITY_HIGH), 'merged')
    t.equal(await enqueue(app.db, tenant, 'q1', PRIORITY_LOW), 'merged')
    const row = await queueRow(app, 'q1')
    t.equal(row!.priority, PRIORITY_HIGH, 'the higher priority is kept')
    t.equal(Number((await sql<{ n: number }>`select count(*) as n from summary_update_queue`.execute(app.db)).rows[0]!.n), 1, 'one entry')

    const [mine] = await claim(app.db, 'w1', 60_000, 5)
    t.equal(mine?.sessionId, 'q1')
    t.equal(mine?.attempts, 1, 'the attempt is counted')
    t.same(await claim(app.db, 'w2', 60_000, 5), [], 'a leased entry is not claimed again')
    await sql`update summary_update_queue set lease_expires_at = now() - interval '1 second'`.execute(app.db)
    const [stolen] = await claim(app.db, 'w2', 60_000, 5)
    t.equal(stolen?.sessionId, 'q1', 'an expired lease is claimable again')
    t.equal(stolen?.attempts, 2)
    t.equal(await complete(app.db, mine!, 'w1'), false, 'the worker that lost its lease cannot complete it')
    t.equal(await complete(app.db, stolen!, 'w2'), true)
    t.equal(await queueRow(app, 'q1'), undefined)

    // Backoff: a failed attempt is not available again at once.
    await enqueue(app.db, tenant, 'q1', PRIORITY_LOW)
    const [e] = await claim(app.db, 'w1', 60_000, 1)
    t.equal(await fail(app.db, e!, 'w1', 'boom', { maxRetries: 5, baseMs: 60_000 }), 'pending')
    t.same(await claim(app.db, 'w1', 60_000, 1), [], 'backing off')
    const r = await queueRow(app, 'q1')
    t.ok(new Date(r!.available_at as unknown as string).getTime() > Date.now() + 50_000, 'available again after the backoff')
    t.equal(r!.last_error, 'boom')

    // Priority order.
    for (const id of ['q2', 'q3']) await append(app, id, exchange(0))
    await sql`delete from summary_update_queue`.execute(app.db)
    await enqueue(app.db, tenant, 'q2', PRIORITY_LOW)
    await enqueue(app.db, tenant, 'q3', PRIORITY_HIGH)
    t.same(
      (await claim(app.db, 'w1', 60_000, 2)).map((x) => x.sessionId),
      ['q3', 'q2'],
      'high priority first',
    )

    if (backend === 'postgres') {
      await sql`delete from summary_update_queue`.execute(app.db)
      for (let i = 0; i < 30; i++) {
        await append(app, `p${i}`, exchange(0))
        await enqueue(app.db, tenant, `p${i}`, PRIORITY_LOW)
      }
      const batches = await Promise.all([1, 2, 3].map((w) => claim(app.db, `w${w}`, 60_000, 12)))
      const ids = batches.flat().map((x) => x.sessionId)
      t.equal(ids.length, 30, 'every entry claimed')
      t.equal(new Set(ids).size, 30, 'by exactly one worker each (SKIP LOCKED)')
    }
  })

  t.test(`${backend}: an entry re-queued during its update: a refresh gets its own run, an append's merge waits for its batch`, { skip }, async (t) => {
    const { app } = await buildTestApp(t, { backend })
    for (let i = 0; i < 4; i++) await append(app, 'g1', exchange(i))
    const tenant = await tenantOf(app, 'g1')
    const claimOne = async () => (await claim(app.db, 'w1', 60_000, 1))[0]!
    // finish() counts what is evicted when it runs (in the update's transaction): set it here.
    const evictExchanges = async (n: number) => {
      await sql`update session_messages set status = 'window' where session_id = 'g1'`.execute(app.db)
      if (n > 0) await sql`update session_messages set status = 'evicted' where session_id = 'g1' and seq <= ${n * exchange(0).length}`.execute(app.db)
    }
    const work = { batchSize: 4, exchanges: (rows: StoredMessage[]) => sessionExchanges(toCanonical(rows, 'openai')).length }
    const fin = (e: QueueEntry, worker = 'w1') => app.db.transaction().execute(async (trx) => (await finish(trx, e, worker, work)).outcome)

    await evictExchanges(0)
    await enqueue(app.db, tenant, 'g1', PRIORITY_LOW)
    let e = await claimOne()
    t.equal(await fin(e), 'completed', 'nothing re-queued, nothing waiting: done')
    t.equal(await queueRow(app, 'g1'), undefined)

    await enqueue(app.db, tenant, 'g1', PRIORITY_LOW)
    e = await claimOne()
    t.equal(await enqueue(app.db, tenant, 'g1', PRIORITY_HIGH), 'merged', 'a refresh while the update runs')
    await evictExchanges(1)
    t.equal(await fin(e), 'released', 'the refresh is not lost: evictions left after the fold get a run now')
    const row = await queueRow(app, 'g1')
    t.equal(row?.lease_owner, null, 'released')
    t.equal(row?.priority, PRIORITY_HIGH)
    e = await claimOne()
    t.equal(e.sessionId, 'g1', 'claimable again at once')
    await evictExchanges(0)
    t.equal(await fin(e), 'completed')

    await enqueue(app.db, tenant, 'g1', PRIORITY_LOW)
    e = await claimOne()
    await enqueue(app.db, tenant, 'g1', PRIORITY_LOW)
    await evictExchanges(1)
    t.equal(await fin(e), 'completed', "an append's merge with fewer than batchSize exchanges waiting waits for its batch")
    await enqueue(app.db, tenant, 'g1', PRIORITY_LOW)
    e = await claimOne()
    await evictExchanges(4)
    t.equal(await fin(e), 'released', 'a whole batch waiting runs again, whether or not the entry was re-queued')
    await sql`update summary_update_queue set lease_owner = 'w2'`.execute(app.db)
    t.equal(await fin(e), 'lost', 'a lost lease finishes nothing')
  })

  t.test(`${backend}: the default batch is 4 evicted exchanges, counted in exchanges, not messages`, { skip }, async (t) => {
    const { app } = await buildTestApp(t, { backend })
    t.equal((await app.inject({ method: 'PUT', url: '/sessions/b4', payload: { windowMessages: 6 } })).statusCode, 201)
    t.equal((await app.inject({ method: 'GET', url: '/sessions/b4' })).json().settings.batchSize, 4, 'default batchSize')
    const seen: { evicted: number; exchanges: number; queued: boolean }[] = []
    for (let i = 0; i < 6; i++) {
      const r = await append(app, 'b4', exchange(i)) // 6 messages each: the window holds one exchange
      seen.push({ evicted: r.evictedAwaitingSummary, exchanges: r.evictedExchangesAwaitingSummary, queued: r.updateQueued })
    }
    t.same(
      seen.map((x) => x.exchanges),
      [0, 1, 2, 3, 4, 5],
    )
    t.same(
      seen.map((x) => x.evicted),
      [0, 6, 12, 18, 24, 30],
      'whole exchanges leave the window',
    )
    t.same(
      seen.map((x) => x.queued),
      [false, false, false, false, true, true],
      'queued from the 4th evicted exchange (24 messages), not at the 4th evicted message',
    )
  })

  t.test(`${backend}: failures back off, count attempts, and past MAX_RETRIES are marked failed and alerted`, { skip }, async (t) => {
    const { app } = await buildTestApp(t, { backend, config: { MAX_RETRIES: 2, WORKER_RETRY_BASE_MS: 1 } })
    await app.inject({ method: 'PUT', url: '/sessions/bad', payload: { windowMessages: 4, batchSize: 1 } })
    for (let i = 0; i < 3; i++) await append(app, 'bad', exchange(i))
    t.ok(await queueRow(app, 'bad'), 'queued')
    const alerts: object[] = []
    const metrics = createMetrics({ defaultMetrics: false })
    // Every update of this session fails (after it read, before it writes).
    const hooks = {
      beforeWrite: async () => {
        throw Object.assign(new Error('simulated failure: expected a working summarizer'), { code: 'simulated' })
      },
    }
    const worker = makeSummaryWorker({ db: app.db, config: app.config, log: { ...silent, error: (o: object) => alerts.push(o) }, metrics, hooks })
    for (let attempt = 1; attempt <= 3; attempt++) {
      await sleep(20)
      t.equal(await worker.runOnce({ max: 1 }), 1, `attempt ${attempt} ran`)
      const row = await queueRow(app, 'bad')
      t.equal(row!.attempts, attempt)
      t.equal(row!.status, attempt <= 2 ? 'pending' : 'failed', `status after attempt ${attempt}`)
      t.match(row!.last_error, /message|expected/i)
    }
    await sleep(20)
    t.equal(await worker.runOnce(), 0, 'a failed entry is not retried')
    t.equal(alerts.length, 1, 'one alert')
    t.match(alerts[0], { alert: true, sessionId: 'bad', attempts: 3 })
    const text = await metrics.registry.metrics()
    t.match(text, /compactd_summary_updates_failed_total\{reason="simulated"\} 3/)
    t.match(text, /compactd_summary_updates_gave_up_total 1\b/)
    t.equal((await app.inject({ method: 'GET', url: '/sessions/bad/summary' })).json().update.status, 'failed')
    const appMetrics = (await app.inject({ method: 'GET', url: '/metrics' })).body
    t.match(appMetrics, /compactd_summary_queue_failed 1/, 'failed entries are visible on /metrics')

    // More evictions do not revive it; a refresh does.
    await append(app, 'bad', exchange(3))
    t.equal((await queueRow(app, 'bad'))!.status, 'failed')
    t.equal((await app.inject({ method: 'POST', url: '/sessions/bad/summary/refresh' })).statusCode, 202)
    const revived = await queueRow(app, 'bad')
    t.equal(revived!.status, 'pending')
    t.equal(revived!.attempts, 0)
    t.equal(revived!.priority, PRIORITY_HIGH)
  })
}

t.test('the hard budget: emergency truncation keeps the summary within it, logged and counted', async (t) => {
  const { app } = await buildTestApp(t, { backend: await defaultBackend() })
  await app.inject({ method: 'PUT', url: '/sessions/tight', payload: { windowMessages: 4, batchSize: 1, summaryBudget: 100 } })
  for (let i = 0; i < 6; i++) await append(app, 'tight', exchange(i))
  const warnings: string[] = []
  const metrics = createMetrics({ defaultMetrics: false })
  const worker = makeSummaryWorker({ db: app.db, config: app.config, log: { ...silent, warn: (_o: object, m: string) => warnings.push(m) }, metrics })
  await worker.runOnce()
  const s = (await app.inject({ method: 'GET', url: '/sessions/tight/summary' })).json()
  t.ok(s.tokens <= 100, `${s.tokens} tokens ≤ 100`)
  t.match(s.content, /## Continuation\nCurrent task: Fix the failing test for src\/module5\.ts/, 'the most recent state is what survives')
  t.ok(warnings.some((w) => /emergency truncation/.test(w)), 'a warning is logged')
  t.match(await metrics.registry.metrics(), /compactd_summary_emergency_truncations_total 1/)
})

t.test('the database refuses two unfinished runs of one session', async (t) => {
  const { app } = await buildTestApp(t, { backend: await defaultBackend() })
  await append(app, 'runs', exchange(0))
  const tenant = await tenantOf(app, 'runs')
  const run = (worker: string) => app.db.insertInto('summary_update_runs').values({ tenant_id: tenant, session_id: 'runs', worker }).returning('id').executeTakeFirstOrThrow()
  const first = await run('w1')
  await t.rejects(run('w2'), { code: '23505' }, 'a second running update is a unique violation')
  await app.db.updateTable('summary_update_runs').set({ finished_at: new Date() }).where('id', '=', first.id).execute()
  await t.resolves(run('w2'), 'once the first finished, the next may start')
})

t.test('the scheduler starts with the app, updates in the background, and drains on close', async (t) => {
  const { app, database } = await buildTestApp(t, { backend: await defaultBackend(), config: { WORKERS: 2, WORKER_POLL_MS: 20 } })
  await app.inject({ method: 'PUT', url: '/sessions/bg', payload: { windowMessages: 4, batchSize: 2 } })
  for (let i = 0; i < 4; i++) await append(app, 'bg', exchange(i))
  const deadline = Date.now() + 15_000
  let version = 0
  while (Date.now() < deadline && version === 0) {
    await sleep(25)
    version = (await app.inject({ method: 'GET', url: '/sessions/bg/summary' })).json().version
  }
  t.ok(version >= 1, 'a summary was written without anyone asking')
  for (let i = 4; i < 8; i++) await append(app, 'bg', exchange(i))
  await app.close()
  t.equal(app.summaryWorker.running, 0, 'no update is left running after close')
  const q = await database.db.selectFrom('summary_update_queue').select(['lease_owner']).where('session_id', '=', 'bg').executeTakeFirst()
  t.ok(!q || q.lease_owner === null, 'no entry is left leased: it was completed or released')
  const runs = await database.db.selectFrom('summary_update_runs').select(['finished_at']).where('session_id', '=', 'bg').execute()
  t.ok(runs.length >= 1 && runs.every((r) => r.finished_at !== null), 'every run finished')

  const { app: api } = await buildTestApp(t, { backend: await defaultBackend(), config: { WORKERS: 0, WORKER_POLL_MS: 20 } })
  await api.inject({ method: 'PUT', url: '/sessions/api', payload: { windowMessages: 4, batchSize: 1 } })
  for (let i = 0; i < 3; i++) await append(api, 'api', exchange(i))
  await sleep(200)
  t.equal((await api.inject({ method: 'GET', url: '/sessions/api/summary' })).json().version, 0, 'WORKERS=0: a pure API node runs no updates')
  t.ok(await queueRow(api, 'api'), 'the work waits in the queue for a worker instance')
})

t.test('bounded concurrency: at most WORKERS updates run at once, and they do run in parallel', { skip: pgOk ? false : POSTGRES_SKIP_REASON }, async (t) => {
  // PostgreSQL: on PGlite (one connection) transactions serialise, so parallelism is 1 there by construction.
  const { app } = await buildTestApp(t, { backend: 'postgres' })
  for (let i = 0; i < 6; i++) {
    await app.inject({ method: 'PUT', url: `/sessions/c${i}`, payload: { windowMessages: 4, batchSize: 1 } })
    for (let k = 0; k < 2; k++) await append(app, `c${i}`, exchange(k))
  }
  t.equal(Number((await sql<{ n: number }>`select count(*) as n from summary_update_queue`.execute(app.db)).rows[0]!.n), 6, 'six updates queued')
  let running = 0
  let most = 0
  const worker = makeSummaryWorker({
    db: app.db,
    config: { ...app.config, WORKERS: 2, WORKER_POLL_MS: 20 },
    log: silent,
    hooks: {
      beforeCommit: async () => {
        running++
        most = Math.max(most, running)
        await sleep(150)
        running--
      },
    },
  })
  worker.start()
  const deadline = Date.now() + 20_000
  while (Number((await sql<{ n: number }>`select count(*) as n from summary_update_queue`.execute(app.db)).rows[0]!.n) > 0 && Date.now() < deadline) await sleep(50)
  await worker.stop()
  t.equal(most, 2, `at most 2 at once, and 2 did overlap (max seen ${most})`)
  t.equal(Number((await sql<{ n: number }>`select count(distinct session_id) as n from session_summaries`.execute(app.db)).rows[0]!.n), 6, 'every session updated')
})

t.test('crash safety: a worker killed by SIGKILL mid-update; the next one completes it after the lease expires', { skip: pgOk ? false : POSTGRES_SKIP_REASON }, async (t) => {
  const { app, database } = await buildTestApp(t, { backend: 'postgres', config: { LEASE_MS: 1500 } })
  await app.inject({ method: 'PUT', url: '/sessions/crash', payload: { windowMessages: 4, batchSize: 1 } })
  for (let i = 0; i < 5; i++) await append(app, 'crash', exchange(i))
  const evicted = await app.db.selectFrom('session_messages').select('seq').where('session_id', '=', 'crash').where('status', '=', 'evicted').execute()
  t.ok(evicted.length >= 18, `${evicted.length} messages await the update`)

  const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/summary-worker-child.ts'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: database.url!, LEASE_MS: '1500', WORKER_ID: 'doomed' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout!.on('data', (d) => (out += d))
  child.stderr!.on('data', (d) => (out += d))
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)))
  t.teardown(() => child.kill('SIGKILL'))
  const deadline = Date.now() + 30_000
  while (!out.includes('IN_UPDATE') && Date.now() < deadline) await sleep(20)
  t.match(out, /IN_UPDATE/, 'the child is inside the update transaction, its writes done but not committed')
  t.equal((await queueRow(app, 'crash'))!.lease_owner, 'doomed')
  t.equal((await app.inject({ method: 'GET', url: '/sessions/crash/summary' })).json().version, 0, 'nothing is visible before commit')

  child.kill('SIGKILL')
  t.equal(await exited, 'SIGKILL')
  const worker = makeSummaryWorker({ db: app.db, config: app.config, log: silent, workerId: 'survivor' })
  t.equal(await worker.runOnce(), 0, 'the lease is still held right after the crash')
  await sleep(1700)
  t.equal(await worker.runOnce(), 1, 'after the lease expired another worker claims it')

  const s = (await app.inject({ method: 'GET', url: '/sessions/crash/summary' })).json()
  t.equal(s.version, 1)
  t.equal(s.stale, false)
  const statuses = await app.db.selectFrom('session_messages').select(['seq', 'status']).where('session_id', '=', 'crash').execute()
  const summarized = statuses.filter((r) => r.status === 'summarized').map((r) => Number(r.seq))
  t.same(
    summarized.sort((a, b) => a - b),
    evicted.map((r) => Number(r.seq)).sort((a, b) => a - b),
    'every evicted message was folded; none lost',
  )
  const runs = await app.db.selectFrom('summary_update_runs').selectAll().where('session_id', '=', 'crash').execute()
  t.equal(runs.length, 1, "the killed worker's run rolled back with its transaction")
  t.equal(runs[0]!.worker, 'survivor')
  t.equal(runs[0]!.folded_messages, evicted.length, 'folded exactly once')
  for (let i = 0; i < 3; i++) {
    const asked = s.content.split('\n').filter((l: string) => l.includes(`src/module${i}.ts (task ${i})`) || l.includes(`Fix the failing test for src/module${i}.ts`))
    t.equal(asked.length >= 1, true, `exchange ${i} is in the summary`)
  }
  const items = parseSummary(s.content, Date.now()).sections.session
  t.equal(new Set(items.map((i) => i.text)).size, items.length, 'no item twice')
  t.equal(await queueRow(app, 'crash'), undefined, 'the queue entry is done')
})
