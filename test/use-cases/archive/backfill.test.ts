/**
 * The archive backfill (migration 0010, src/use-cases/archive/backfill.ts): messages a
 * session evicted before the archive existed become archived, searchable and read back,
 * redacted, once each, a page at a time; past the retention age they are skipped; a
 * tenant at its quota ends the backfill; several instances share the work.
 */
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import { migrations } from '../../../migrations/index.ts'
import { countBackfillPending } from '../../../src/sessions/repository.ts'
import { makeArchiveBackfill } from '../../../src/use-cases/archive/backfill.ts'
import { buildTestApp } from '../../helpers/build.ts'
import { BACKENDS, POSTGRES_SKIP_REASON, postgresAvailable } from '../../helpers/databases.ts'

const pgOk = await postgresAvailable()
const silent = { info() {}, warn() {}, error() {}, debug() {}, child() { return silent } }
const SECRET = 'sk-proj-' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0'

const exchange = (k: number) => [
  { role: 'user', content: `Step ${k}: what is the retry budget of worker_${k}?` },
  { role: 'assistant', content: null, tool_calls: [{ id: `call_${k}`, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command: `cat config/worker_${k}.yaml` }) } }] },
  { role: 'tool', tool_call_id: `call_${k}`, content: `retries: ${k * 7 + 3}\nbackoff: exponential_${k}\n${k === 1 ? `OPENAI_API_KEY=${SECRET}\n` : ''}` },
  { role: 'assistant', content: `Worker ${k} retries ${k * 7 + 3} times (config/worker_${k}.yaml).` },
]

/** A session whose evictions were stored but, as before migration 0006, never archived. */
async function sessionBeforeTheArchive(app: FastifyInstance, id: string, exchanges: number): Promise<number> {
  if ((await app.inject({ method: 'PUT', url: `/sessions/${id}`, payload: { windowMessages: 4, windowTokens: 100_000, batchSize: 1000 } })).statusCode !== 201) throw new Error('PUT failed')
  for (let k = 0; k < exchanges; k++) {
    const res = await app.inject({ method: 'POST', url: `/sessions/${id}/messages`, payload: { messages: exchange(k) } })
    if (res.statusCode !== 200) throw new Error(`append: ${res.body}`)
  }
  await app.useCases.archiveIndexer.drain()
  await sql`delete from archived_messages where session_id = ${id}`.execute(app.db)
  await sql`update archive_usage set bytes = 0, messages = 0`.execute(app.db)
  const r = await sql<{ n: number }>`select count(*)::int as n from session_messages where session_id = ${id} and status <> 'window'`.execute(app.db)
  return r.rows[0]!.n
}

/** Migration 0010 as an upgrade runs it: down, then up, marks the sessions to backfill. */
async function upgrade(app: FastifyInstance): Promise<void> {
  await migrations['0010_archive_backfill']!.down!(app.db as never)
  await migrations['0010_archive_backfill']!.up(app.db as never)
}

const archived = async (app: FastifyInstance, id: string) =>
  (await sql<{ position: number; raw: string; tool_name: string | null; source: string }>`select position, raw, tool_name, source from archived_messages where session_id = ${id} order by position`.execute(app.db)).rows

for (const backend of BACKENDS) {
  const skip = backend === 'postgres' && !pgOk ? POSTGRES_SKIP_REASON : false

  t.test(`${backend}: evictions from before the archive are archived, page by page, redacted, searchable, once`, { skip }, async (t) => {
    const { app } = await buildTestApp(t, { backend })
    const out = await sessionBeforeTheArchive(app, 'old', 6)
    t.ok(out >= 16, `${out} messages out of the window`)
    t.same(await archived(app, 'old'), [], 'nothing archived: the state before migration 0006')
    t.equal((await app.inject({ method: 'PUT', url: '/sessions/fresh', payload: {} })).statusCode, 201)

    await upgrade(app)
    t.equal(await countBackfillPending(app.db), 1, 'the migration marks the session with evictions, not the empty one')

    const backfill = makeArchiveBackfill({ db: app.db, config: app.config, log: silent as never, archiveIndexer: app.useCases.archiveIndexer }, { pageMessages: 5 })
    const pages = await backfill.runAll()
    t.equal(pages, Math.floor(out / 5) + 1, `${pages} pages of at most 5`)
    t.equal(await countBackfillPending(app.db), 0, 'done: nothing waits')
    t.same(await backfill.step(), { outcome: 'idle' })

    const rows = await archived(app, 'old')
    t.equal(rows.length, out, 'every evicted message archived once')
    t.ok(rows.every((r) => r.source === 'session'), "as a session's evictions are")
    const seqs = (await sql<{ seq: number }>`select seq from session_messages where session_id = 'old' and status <> 'window' order by seq`.execute(app.db)).rows.map((r) => Number(r.seq))
    t.same(rows.map((r) => r.position), seqs, 'positions are the seqs')
    t.notOk(rows.some((r) => r.raw.includes(SECRET)), 'the key is redacted before it reaches the archive')
    t.ok(rows.filter((r) => r.tool_name === 'bash').length >= 8, 'tool results carry their tool, across pages too')

    await app.useCases.archiveIndexer.drain()
    const found = (await app.inject({ method: 'GET', url: `/sessions/old/search?q=${encodeURIComponent('backoff exponential_2')}` })).json()
    const hit = found.hits.find((h: { snippet: string }) => h.snippet.includes('exponential_2'))
    t.ok(hit, 'an old eviction is found by search')
    const read = (await app.inject({ method: 'GET', url: `/sessions/old/archive/${hit.ref}` })).json()
    t.match(JSON.stringify(read.messages), 'exponential_2', 'and read back')
    const secret = (await app.inject({ method: 'GET', url: `/sessions/old/search?q=${encodeURIComponent(SECRET)}` })).json()
    t.notOk(JSON.stringify(secret).includes(SECRET), 'nor in the index')

    // Again (a second upgrade, a second instance): nothing is stored twice.
    await upgrade(app)
    await backfill.runAll()
    t.equal((await archived(app, 'old')).length, out, 'a second backfill stores nothing twice')
  })

  t.test(`${backend}: past the retention age skipped; at the quota the backfill ends; the background loop`, { skip }, async (t) => {
    const { app } = await buildTestApp(t, { backend, config: { ARCHIVE_RETENTION_DAYS: 30 } })
    const out = await sessionBeforeTheArchive(app, 'aged', 5)
    await sql`update session_messages set appended_at = now() - interval '90 days' where session_id = 'aged' and seq <= 4`.execute(app.db)
    await upgrade(app)
    const loop = makeArchiveBackfill({ db: app.db, config: app.config, log: silent as never }, { pauseMs: 1 })
    loop.start()
    for (let i = 0; i < 200 && (await countBackfillPending(app.db)) > 0; i++) await new Promise((r) => setTimeout(r, 20))
    await loop.stop()
    t.equal(await countBackfillPending(app.db), 0, 'the background loop finished it')
    const rows = await archived(app, 'aged')
    t.equal(rows.length, out - 4, 'the 4 messages past the retention age are not archived')
    t.ok(rows.every((r) => r.position > 4))

    const full = await buildTestApp(t, { backend, config: { ARCHIVE_QUOTA_BYTES: 1000 } })
    await sessionBeforeTheArchive(full.app, 'full', 4)
    await sql`update archive_usage set bytes = 5000`.execute(full.app.db)
    await upgrade(full.app)
    const warned: unknown[] = []
    const atQuota = makeArchiveBackfill({ db: full.app.db, config: full.app.config, log: { ...silent, warn: (o: unknown) => warned.push(o) } as never })
    t.match(await atQuota.step(), { outcome: 'skipped', sessionId: 'full', reason: 'over_quota' })
    t.same(await archived(full.app, 'full'), [], 'nothing archived over the quota')
    t.equal(await countBackfillPending(full.app.db), 0, 'and the session does not wait forever')
    t.equal(warned.length, 1, 'the log says so')

    const off = await buildTestApp(t, { backend, config: { ARCHIVE_ENABLED: false } })
    const idle = makeArchiveBackfill({ db: off.app.db, config: off.app.config, log: silent as never })
    idle.start()
    await idle.stop()
    t.pass('with the archive off the loop does not start')
  })
}

t.test('postgres: two instances backfill 8 sessions at once; every message archived once', { skip: pgOk ? false : POSTGRES_SKIP_REASON }, async (t) => {
  const { app } = await buildTestApp(t, { backend: 'postgres' })
  let total = 0
  for (let s = 0; s < 8; s++) total += await sessionBeforeTheArchive(app, `s${s}`, 4)
  await upgrade(app)
  t.equal(await countBackfillPending(app.db), 8)
  const make = () => makeArchiveBackfill({ db: app.db, config: app.config, log: silent as never }, { pageMessages: 3 })
  const [a, b] = await Promise.all([make().runAll(), make().runAll()])
  t.ok(a > 0 && b > 0, `both took pages (${a}, ${b})`)
  const n = (await sql<{ n: number }>`select count(*)::int as n from archived_messages`.execute(app.db)).rows[0]!.n
  t.equal(n, total, `${total} messages, each archived once`)
  t.equal(await countBackfillPending(app.db), 0)
})
