/**
 * Two compactd server processes on one PostgreSQL, 200 sessions receiving messages
 * concurrently through both: every session's summary converges, nothing is lost or
 * folded twice, and no session is ever updated by two workers at once (the audit rows of
 * summary_update_runs never overlap in time, on top of the partial unique index).
 */
import t from 'tap'
import { sql } from 'kysely'
import { migrateToLatest } from '../../../../src/db/migrate.ts'
import { parseSummary } from '../../../../src/engine/sessions/index.ts'
import { createTestDatabase, POSTGRES_SKIP_REASON, postgresAvailable } from '../../../helpers/databases.ts'
import { exchange } from '../../../helpers/session-conversations.ts'
import { ensureBuilt, startServer } from '../../../helpers/service-process.ts'

const pgOk = await postgresAvailable()
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const SESSIONS = 200
const EXCHANGES = 6

/** Runs `fn` over `items` with at most `limit` in flight. */
async function pool<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await fn(items[next++]!)
    }),
  )
}

t.test('two server processes, one PostgreSQL, 200 sessions: summaries converge, no concurrent update of a session, nothing lost', { skip: pgOk ? false : POSTGRES_SKIP_REASON }, async (t) => {
  const database = await createTestDatabase('postgres')
  t.teardown(() => database.close())
  await migrateToLatest(database.db)

  await ensureBuilt()
  const base = 20000 + Math.floor(Math.random() * 20000)
  const ports = [base, base + 1]
  const servers = ports.map((port) =>
    startServer({
      DATABASE_URL: database.url!,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      WORKERS: '4',
      WORKER_POLL_MS: '20',
      LEASE_MS: '10000',
      RATE_LIMIT_MAX: '10000000',
      DATABASE_POOL_SIZE: '10',
    }),
  )
  t.teardown(() => servers.forEach((s) => s.child.kill('SIGKILL')))
  for (const [i, port] of ports.entries()) {
    const deadline = Date.now() + 60_000
    let up = false
    while (!up && Date.now() < deadline) {
      up = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false)
      if (!up) await sleep(100)
    }
    t.ok(up, `server ${i} is up`)
    if (!up) {
      t.comment(servers[i]!.output())
      return
    }
  }

  let requests = 0
  const call = async (method: string, url: string, body?: unknown) => {
    const port = ports[requests++ % 2]!
    const res = await fetch(`http://127.0.0.1:${port}${url}`, {
      method,
      headers: body !== undefined ? { 'content-type': 'application/json' } : {},
      body: body !== undefined ? JSON.stringify(body) : undefined,
    })
    if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`)
    return res.json()
  }

  const ids = Array.from({ length: SESSIONS }, (_, i) => `s${i}`)
  const started = Date.now()
  // Every session gets its exchanges in order; sessions run concurrently, through both servers.
  await pool(ids, 40, async (id) => {
    await call('PUT', `/sessions/${id}`, { windowMessages: 4, batchSize: 2 })
    for (let e = 0; e < EXCHANGES; e++) await call('POST', `/sessions/${id}/messages`, { messages: exchange(e) })
  })
  t.comment(`${SESSIONS * EXCHANGES} appends in ${Date.now() - started} ms`)
  // Fold what is below the batch size too: the summaries converge on everything evicted.
  await pool(ids, 40, async (id) => void (await call('POST', `/sessions/${id}/summary/refresh`)))

  const deadline = Date.now() + 120_000
  let pending = Infinity
  while (Date.now() < deadline) {
    const r = await sql<{ queued: number; evicted: number }>`
      select (select count(*)::int from summary_update_queue) as queued,
             (select count(*)::int from session_messages where status = 'evicted') as evicted`.execute(database.db)
    pending = r.rows[0]!.queued + r.rows[0]!.evicted
    if (pending === 0) break
    await sleep(100)
  }
  t.equal(pending, 0, `converged in ${Date.now() - started} ms: no queued update, no evicted message left`)

  const perMessage = EXCHANGES * exchange(0).length
  const msgs = await sql<{ session_id: string; total: number; summarized: number; window: number }>`
    select session_id, count(*)::int as total,
           count(*) filter (where status = 'summarized')::int as summarized,
           count(*) filter (where status = 'window')::int as window
    from session_messages group by session_id`.execute(database.db)
  t.equal(msgs.rows.length, SESSIONS, 'every session has its messages')
  t.ok(
    msgs.rows.every((r) => r.total === perMessage && r.window <= 4 && r.summarized + r.window === perMessage),
    `every session: ${perMessage} messages, none lost, all but the window summarized`,
  )

  const runs = await database.db
    .selectFrom('summary_update_runs')
    .select(['session_id', 'worker', 'started_at', 'finished_at', 'folded_from_seq', 'folded_to_seq', 'folded_messages'])
    .orderBy('session_id')
    .orderBy('started_at')
    .execute()
  t.ok(
    runs.every((r) => r.finished_at !== null),
    `${runs.length} runs, all finished`,
  )
  const bySession = new Map<string, typeof runs>()
  for (const r of runs) bySession.set(r.session_id, [...(bySession.get(r.session_id) ?? []), r])
  let overlaps = 0
  let foldedTwice = 0
  for (const [id, list] of bySession) {
    for (let i = 1; i < list.length; i++) if (new Date(list[i]!.started_at).getTime() < new Date(list[i - 1]!.finished_at!).getTime()) overlaps++
    const summarized = msgs.rows.find((m) => m.session_id === id)!.summarized
    if (list.reduce((n, r) => n + (r.folded_messages ?? 0), 0) !== summarized) foldedTwice++
    const ranges = list.filter((r) => r.folded_messages).map((r) => [Number(r.folded_from_seq), Number(r.folded_to_seq)] as const)
    for (let i = 1; i < ranges.length; i++) if (ranges[i]![0] <= ranges[i - 1]![1]) foldedTwice++
  }
  t.equal(overlaps, 0, 'no two updates of one session overlapped in time')
  t.equal(foldedTwice, 0, 'every summarized message was folded by exactly one update')
  const workers = new Set(runs.map((r) => r.worker.split(':')[1]))
  t.equal(workers.size, 2, 'both processes ran updates')

  const latest = await sql<{ session_id: string; content: string; tokens: number }>`
    select distinct on (session_id) session_id, content, tokens from session_summaries
    order by session_id, version desc`.execute(database.db)
  t.equal(latest.rows.length, SESSIONS, 'every session has a summary')
  let complete = 0
  for (const row of latest.rows) {
    const doc = parseSummary(row.content, Date.now())
    // Exchanges 0..EXCHANGES-2 were evicted whole: each is named by its request.
    if (Array.from({ length: EXCHANGES - 1 }, (_, e) => row.content.includes(`src/module${e}.ts (task ${e})`)).every(Boolean) && doc.sections.session.length >= EXCHANGES - 1) complete++
  }
  t.equal(complete, SESSIONS, 'every summary names every evicted exchange')

  for (const s of servers) s.child.kill('SIGTERM')
  t.same(await Promise.all(servers.map((s) => s.exited)), [0, 0], 'both servers drain and exit cleanly')
})
