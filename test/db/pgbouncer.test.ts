/**
 * compactd through PgBouncer in transaction mode (issue 25): a server connection serves a
 * client only for one transaction, so anything that leans on a session (session-level
 * advisory locks, LISTEN/NOTIFY, named prepared statements, SET) would break. compactd
 * uses none: its locks are transaction-level (pg_advisory_xact_lock), its queue claims
 * rows with FOR UPDATE SKIP LOCKED, and pg sends unnamed statements. This runs the
 * migrations and a mixed workload through PgBouncer with a pool smaller than the
 * concurrency, and checks that nothing is lost, doubled or left half-done.
 */
import t from 'tap'
import { openDatabase } from '../../src/db/database.ts'
import { buildTestApp } from '../helpers/build.ts'
import { createTestDatabase, postgresAvailable, POSTGRES_SKIP_REASON } from '../helpers/databases.ts'
import { PGBOUNCER_SKIP_REASON, pgbouncerBinary, startPgbouncer } from '../helpers/pgbouncer.ts'
import { exchange } from '../helpers/session-conversations.ts'

const skip = !pgbouncerBinary() ? PGBOUNCER_SKIP_REASON : !(await postgresAvailable()) ? POSTGRES_SKIP_REASON : false

t.test('migrations and a mixed workload through PgBouncer (transaction mode, 4 server connections)', { skip }, async (t) => {
  const bouncer = await startPgbouncer({ poolSize: 4 })
  t.teardown(() => bouncer.stop())
  const direct = await createTestDatabase('postgres', { empty: true })
  t.teardown(() => direct.close())
  const handle = await openDatabase({ databaseUrl: bouncer.through(direct.url!), poolSize: 20 })
  const { app } = await buildTestApp(t, { database: { ...handle, url: bouncer.through(direct.url!) } })
  t.teardown(() => handle.close())

  const ok = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, headers: Record<string, string> = {}) => {
    const res = await app.inject({ method, url, ...(payload !== undefined ? { payload: payload as object } : {}), headers })
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 300)}`)
    return res.statusCode === 204 ? null : res.json()
  }
  t.equal((await ok('GET', '/readyz')).status, 'ready', 'migrated and ready through PgBouncer')

  // Appends to 8 sessions at once, twice each, one of them retried with its idempotency key.
  await ok('PUT', '/sessions/pb-0', { windowMessages: 6, batchSize: 1 })
  await Promise.all(
    Array.from({ length: 8 }, async (_, s) => {
      for (let i = 0; i < 2; i++) await ok('POST', `/sessions/pb-${s}/messages`, { messages: exchange(i) }, { 'idempotency-key': `pb-${s}-${i}` })
    }),
  )
  const replay = await app.inject({ method: 'POST', url: '/sessions/pb-0/messages', payload: { messages: exchange(1) }, headers: { 'idempotency-key': 'pb-0-1' } })
  t.equal(replay.headers['idempotent-replayed'], 'true')
  for (let s = 0; s < 8; s++) t.equal((await ok('GET', `/sessions/pb-${s}`)).messageCount, 2 * exchange(0).length, `pb-${s}: every append once`)

  // The summary queue's claims (FOR UPDATE SKIP LOCKED) and an update, through the bouncer.
  for (let k = 0; k < 10 && (await ok('GET', '/sessions/pb-0')).evictedAwaitingSummary > 0; k++) await app.summaryWorker.runOnce()
  const summary = await ok('GET', '/sessions/pb-0/summary')
  t.ok(summary.version >= 1, 'the rolling summary was written')

  // Concurrent compactions of one session: the transaction-level advisory lock numbers them.
  const conversation = [{ role: 'system', content: 'You are a coding agent.' }, ...Array.from({ length: 10 }, (_, i) => exchange(i, { padding: 30 })).flat()]
  const results = await Promise.all(Array.from({ length: 6 }, () => ok('POST', '/compact', { messages: conversation, targetTokens: 1500, sessionId: 'pb-compact' })))
  t.same(
    results.map((r) => r.checkpoint.checkpointNum).sort((a: number, b: number) => a - b),
    [1, 2, 3, 4, 5, 6],
    'six checkpoints, numbered once each',
  )
  const hits = await ok('GET', `/sessions/pb-compact/search?q=${encodeURIComponent('expected 4 to equal 5')}`)
  t.ok(hits.hits.length > 0, 'the archive, searchable')
  const stats = await ok('GET', '/sessions/pb-compact/stats')
  t.ok(stats.checkpoints >= 1 && stats.checkpoints <= 6, `stats: ${stats.checkpoints} checkpoints (older ones folded past COMPACTION_MAX_CHECKPOINTS)`)
  t.equal((await ok('GET', '/sessions/pb-0/context?budget=4000')).sessionId, 'pb-0')
  await ok('DELETE', '/sessions/pb-compact')
  t.equal((await app.inject({ method: 'GET', url: '/sessions/pb-compact/stats' })).statusCode, 404, 'deleted, in one transaction')

  // The server saw at most the bouncer's pool, however many clients compactd opened.
  const rows = await direct.db.selectFrom('pg_stat_activity' as never).select('pid' as never).where('datname' as never, '=', new URL(direct.url!).pathname.slice(1) as never).execute()
  t.ok(rows.length <= 4 + 1, `server connections to the database: ${rows.length} (pool 4, plus this check's own)`)
})
