/**
 * Fault injection (issue 10): the database going away mid-append and mid-update, and
 * the summarizer provider answering 429 / 500 / a hang / garbage in `llm` mode.
 * Every fault ends with nothing lost and the one error shape.
 *
 * Database faults run on real PostgreSQL through a loopback TCP proxy
 * (test/helpers/db-proxy.ts) that cuts connections or refuses new ones at chosen
 * statements. Provider faults use the fake provider (test/fakes/fake-llm-provider.ts)
 * through the real SDKs.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import type * as Tap from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { build, LOG_REDACT_PATHS } from '../src/app.ts'
import { testConfig, type Config } from '../src/config.ts'
import { CONNECT_TIMEOUT_MS, openDatabase } from '../src/db/database.ts'
import { startFakeProvider, type FakeBehaviour, type FakeProvider } from './fakes/fake-llm-provider.ts'
import { startDbProxy, type DbProxy } from './helpers/db-proxy.ts'
import { createTestDatabase, defaultBackend, POSTGRES_SKIP_REASON, postgresAvailable, type TestDatabase } from './helpers/databases.ts'
import { exchange, type Message } from './helpers/session-conversations.ts'
import { ensureBuilt, startServer } from './helpers/service-process.ts'

const pgOk = await postgresAvailable()
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
/** The provider key: it must appear in no response and no log line. */
const KEY = 'sk-fault-SECRET-4f1c9a7e2b0d'
const MODEL = 'gpt-4o-mini'

/** Summarizer configuration against the fake provider (both protocols, one key). */
function llmConfig(fake: FakeProvider, over: Partial<Config> = {}): Partial<Config> {
  return {
    OPENAI_API_KEY: KEY,
    OPENAI_BASE_URL: fake.openaiBaseURL,
    ANTHROPIC_API_KEY: KEY,
    ANTHROPIC_BASE_URL: fake.anthropicBaseURL,
    SUMMARIZER_OPENAI_MODELS: [MODEL],
    PROVIDER_MAX_RETRIES: 0,
    PROVIDER_TIMEOUT_MS: 5_000,
    ...over,
  }
}

function generations(fake: FakeProvider) {
  return fake.requests.filter((r) => r.route === 'chat.completions' || r.route === 'messages')
}

interface Teardown {
  teardown(fn: () => unknown): void
}

interface FaultApp {
  app: FastifyInstance
  /** Straight to PostgreSQL (not through the proxy): what is really stored. */
  direct: TestDatabase
  proxy: DbProxy
  logs: string[]
}

/** An app whose DATABASE_URL goes through the fault proxy; it owns its pool, as in production. */
async function proxiedApp(t: Teardown, config: Partial<Config> = {}): Promise<FaultApp> {
  const direct = await createTestDatabase('postgres')
  const target = new URL(direct.url!)
  const proxy = await startDbProxy({ host: target.hostname, port: Number(target.port || 5432) })
  const viaProxy = new URL(direct.url!)
  viaProxy.host = `127.0.0.1:${proxy.port}`
  const logs: string[] = []
  const app = await build({
    config: testConfig({ LOG_LEVEL: 'debug', WORKERS: 0, DATABASE_URL: viaProxy.toString(), DATABASE_POOL_SIZE: 4, ...config }),
    logger: { level: 'debug', redact: { paths: LOG_REDACT_PATHS, censor: '[redacted]' }, stream: { write: (line: string) => void logs.push(line) } },
  })
  await app.ready()
  t.teardown(async () => {
    await proxy.restore()
    await app.close()
    await proxy.close()
    await direct.close()
  })
  return { app, direct, proxy, logs }
}

/** The one error shape, as a 503 the client may retry. */
function assertUnavailable(t: Tap.Test, res: LightMyRequestResponse, what: string): void {
  t.equal(res.statusCode, 503, `${what}: 503 (${res.body.slice(0, 200)})`)
  const body = res.json()
  t.same(Object.keys(body).sort(), ['error', 'message', 'requestId'], `${what}: the error shape, nothing else`)
  t.equal(body.error, 'database_unavailable', what)
  t.equal(body.requestId, res.headers['x-request-id'], `${what}: requestId is the x-request-id header`)
  t.equal(res.headers['retry-after'], '5', `${what}: Retry-After`)
  t.notMatch(res.body, /at .+\.ts:\d+|Error:|ECONN|terminated|127\.0\.0\.1/, `${what}: no stack, no driver text, no address`)
}

/** Messages of `session` straight from the database, by seq. */
async function stored(direct: TestDatabase, session: string) {
  return direct.db.selectFrom('session_messages').select(['seq', 'raw', 'status']).where('session_id', '=', session).orderBy('seq').execute()
}

/** One exchange whose user message carries `tag`, so an append can be found again. */
function tagged(i: number, tag: string): Message[] {
  return exchange(i).map((m) => (m.role === 'user' ? { ...m, content: `${String(m.content)} [${tag}]` } : m))
}

function append(app: FastifyInstance, session: string, messages: Message[], key?: string) {
  return app.inject({ method: 'POST', url: `/sessions/${session}/messages`, payload: { messages }, headers: key ? { 'idempotency-key': key } : {} })
}

/** An append the way a client should send one: with an Idempotency-Key, retried on a 503. */
async function appendRetrying(app: FastifyInstance, session: string, messages: Message[], key: string): Promise<LightMyRequestResponse> {
  for (let attempt = 0; ; attempt++) {
    const res = await append(app, session, messages, key)
    if (res.statusCode !== 503 || attempt >= 200) return res
    await sleep(50)
  }
}

/** Polls `check` until it returns a value (not undefined), or fails after `ms`. */
async function waitFor<T>(what: string, check: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const until = Date.now() + ms
  for (;;) {
    const v = await check().catch(() => undefined)
    if (v !== undefined) return v
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await sleep(25)
  }
}

/** The session once its background work is done: nothing awaiting summary, no queue entry. */
function converged(app: FastifyInstance, session: string) {
  return waitFor(`${session} to converge`, async () => {
    const res = await app.inject({ method: 'GET', url: `/sessions/${session}` })
    const s = res.statusCode === 200 ? res.json() : undefined
    return s && s.evictedAwaitingSummary === 0 && s.update === null && s.summary ? s : undefined
  })
}

/**
 * The stored copies of an append: the seq of each stored copy of its first message,
 * negated when the rest of the append does not follow it at the next seqs (half-applied).
 */
function copiesOf(rows: { seq: number; raw: unknown }[], messages: Message[]): number[] {
  const first = JSON.stringify(messages[0])
  const found: number[] = []
  rows.forEach((r, i) => {
    if (JSON.stringify(r.raw) !== first) return
    const whole = messages.every((m, k) => rows[i + k] !== undefined && JSON.stringify(rows[i + k]!.raw) === JSON.stringify(m) && rows[i + k]!.seq === r.seq + k)
    found.push(whole ? r.seq : -r.seq)
  })
  return found
}

/** Checks what the queue promises (docs/internals.md), with batchSize 1: a session with an evicted message has an entry. */
async function queueInvariant(direct: TestDatabase): Promise<string[]> {
  const evicted = await direct.db.selectFrom('session_messages').select('session_id').distinct().where('status', '=', 'evicted').execute()
  const queued = new Set((await direct.db.selectFrom('summary_update_queue').select('session_id').execute()).map((r) => r.session_id))
  return evicted.map((r) => r.session_id).filter((id) => !queued.has(id))
}

async function unfinishedRuns(direct: TestDatabase): Promise<number> {
  return (await direct.db.selectFrom('summary_update_runs').select('id').where('finished_at', 'is', null).execute()).length
}

async function metric(app: FastifyInstance, name: string): Promise<number> {
  const text = (await app.inject({ method: 'GET', url: '/metrics' })).body
  let sum = 0
  for (const line of text.split('\n')) {
    const m = /^(\w+)(\{[^}]*\})? (\S+)$/.exec(line)
    if (m?.[1] === name) sum += Number(m[3])
  }
  return sum
}

// ---------------------------------------------------------------------------
// The database going away (PostgreSQL, through the fault proxy)

t.test('postgres: the database cut in the middle of an append', { skip: pgOk ? false : POSTGRES_SKIP_REASON }, async (t) => {
  const { app, direct, proxy, logs } = await proxiedApp(t)
  t.equal((await app.inject({ method: 'PUT', url: '/sessions/s1', payload: { windowMessages: 4, batchSize: 1 } })).statusCode, 201)
  for (let i = 0; i < 2; i++) t.equal((await append(app, 's1', tagged(i, `a${i}`), `k${i}`)).statusCode, 200)
  const before = await stored(direct, 's1')

  // The INSERT of the messages is on its way when every connection drops: the
  // transaction never commits. (Before the fix in src/db/database.ts this crashed the
  // process: pg emitted 'error' on the checked-out client, which nothing listened to.)
  const rule = proxy.cutWhen({ sql: /insert into "session_messages"/ })
  const cut = await append(app, 's1', tagged(2, 'a2'), 'k2')
  await rule.fired
  assertUnavailable(t, cut, 'append cut mid-transaction')
  t.same(await stored(direct, 's1'), before, 'nothing of it was stored')
  t.equal((await direct.db.selectFrom('idempotency_keys').select('key').where('key', '=', 'k2').execute()).length, 0, 'nor its Idempotency-Key')
  const retried = await append(app, 's1', tagged(2, 'a2'), 'k2')
  t.equal(retried.statusCode, 200, 'the retry with the same key appends')
  t.equal(retried.headers['idempotent-replayed'], undefined, 'for the first time')
  t.equal(retried.json().firstSeq, before.at(-1)!.seq + 1, 'right after the last stored message')

  // The COMMIT reaches the server and its answer is lost: the client sees a 503 for an
  // append that is stored. Retrying with the same Idempotency-Key returns the stored
  // response and appends nothing (docs/api.md, GET /summary: "When the database is down").
  // The archive indexes evicted messages in the background after an append: let it finish,
  // so the COMMIT cut is the append's.
  await app.useCases.archiveIndexer.drain()
  const lost = proxy.cutWhen({ sql: /^commit$/i, ackLost: true })
  const ambiguous = await append(app, 's1', tagged(3, 'a3'), 'k3')
  await lost.fired
  assertUnavailable(t, ambiguous, 'append whose COMMIT was not acknowledged')
  const replay = await append(app, 's1', tagged(3, 'a3'), 'k3')
  t.equal(replay.statusCode, 200)
  t.equal(replay.headers['idempotent-replayed'], 'true', 'the retry finds the stored append')
  const rows = await stored(direct, 's1')
  t.same(rows.map((r) => r.seq), rows.map((_, i) => i + 1), 'seqs 1..n: no gap, no duplicate')
  t.same(copiesOf(rows, tagged(3, 'a3')), [replay.json().firstSeq], 'the ambiguous append is stored once, whole')
  t.same(await queueInvariant(direct), [], 'every session with evicted messages has a queued update')
  t.notMatch(logs.join(''), /unhandled error|"level":50/, 'no 500, no error logged')
})

t.test('postgres: appends in flight while the database goes away and comes back; every route answers in the one shape', { skip: pgOk ? false : POSTGRES_SKIP_REASON }, async (t) => {
  const { app, direct, proxy, logs } = await proxiedApp(t)
  const sessions = ['c0', 'c1', 'c2']
  for (const s of sessions) await app.inject({ method: 'PUT', url: `/sessions/${s}`, payload: { windowMessages: 4, batchSize: 1 } })
  // Seen once, so GET /summary can serve it from memory during the outage.
  await append(app, 'c0', tagged(99, 'seed'))
  await app.summaryWorker.runOnce()
  t.equal((await app.inject({ method: 'GET', url: '/sessions/c0/summary' })).json().version, 1)
  const jobs = sessions.flatMap((s) => Array.from({ length: 8 }, (_, i) => ({ s, key: `${s}-${i}`, messages: tagged(i, `${s}-${i}`), status: 0 })))

  // Let 5 appends' INSERTs through, then cut everything and refuse new connections.
  const outage = proxy.cutWhen({ sql: /insert into "session_messages"/, skip: 5, refuse: true })
  let next = 0
  const chains = Array.from({ length: 4 }, async () => {
    while (next < jobs.length) {
      const job = jobs[next++]!
      const res = await append(app, job.s, job.messages, job.key)
      job.status = res.statusCode
      if (res.statusCode !== 200) assertUnavailable(t, res, `append ${job.key} during the outage`)
      await sleep(15)
    }
  })
  await outage.fired

  // While it is down: every route that needs the database is a 503 in the one shape ...
  const conv = { messages: [{ role: 'user', content: 'Fix the failing test in src/db.ts' }, ...exchange(1).slice(1)] }
  for (const [method, url, payload] of [
    ['PUT', '/sessions/c9', { windowMessages: 4 }],
    ['GET', '/sessions/c0', undefined],
    ['DELETE', '/sessions/c1', undefined],
    ['GET', '/sessions/c0/context', undefined],
    ['PUT', '/sessions/c0/summary', { content: '## Previously in This Session\n1. manual\n' }],
    ['POST', '/sessions/c0/summary/refresh', undefined],
    ['GET', '/sessions/c0/checkpoints', undefined],
    ['GET', '/sessions/c0/stats', undefined],
    ['POST', '/compact', { ...conv, force: true, sessionId: 'c0' }],
  ] as const) {
    assertUnavailable(t, await app.inject({ method, url, ...(payload ? { payload } : {}) }), `${method} ${url}`)
  }
  // ... the summary this process saw is served, marked stale and degraded, ...
  const summary = await app.inject({ method: 'GET', url: '/sessions/c0/summary' })
  t.equal(summary.statusCode, 200)
  t.match(summary.json(), { version: 1, stale: true, degraded: true })
  const unseen = await app.inject({ method: 'GET', url: '/sessions/c2/summary' })
  t.equal(unseen.statusCode, 503, 'a summary never seen: the documented placeholder')
  t.match(unseen.json(), { content: '[Summary temporarily unavailable]', degraded: true })
  // ... what needs no database keeps working, and readiness says so.
  t.equal((await app.inject({ method: 'POST', url: '/estimate', payload: conv })).statusCode, 200, '/estimate needs no database')
  t.equal((await app.inject({ method: 'POST', url: '/compact', payload: { ...conv, force: true } })).statusCode, 200, '/compact without sessionId needs no database')
  t.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200)
  const notReady = await app.inject({ method: 'GET', url: '/readyz' })
  t.equal(notReady.statusCode, 503)
  t.match(notReady.json(), { status: 'unavailable', error: 'not_ready', message: 'database unreachable' })
  t.equal(notReady.json().requestId, notReady.headers['x-request-id'], '/readyz 503 carries the requestId like every error')

  await sleep(100)
  await proxy.restore()
  await Promise.all(chains)
  const ready = await waitFor('readyz', async () => ((await app.inject({ method: 'GET', url: '/readyz' })).statusCode === 200 ? true : undefined))
  t.ok(ready, '/readyz recovers with the database')

  const ok = jobs.filter((j) => j.status === 200)
  const failed = jobs.filter((j) => j.status !== 200)
  // Five INSERTs went through before the cut; at most three of them were still uncommitted.
  t.ok(ok.length >= 2 && failed.length >= 1, `${ok.length} appends answered 200, ${failed.length} answered 503`)
  t.ok(failed.every((j) => j.status === 503), 'never anything but 200 or 503')
  for (const s of sessions) {
    const rows = await stored(direct, s)
    for (const j of jobs.filter((j) => j.s === s)) {
      const copies = copiesOf(rows, j.messages)
      t.ok(copies.every((seq) => seq > 0), `${j.key}: never half-applied`)
      if (j.status === 200) t.equal(copies.length, 1, `${j.key}: answered 200, stored once`)
      else t.ok(copies.length <= 1, `${j.key}: answered 503, stored ${copies.length} time(s) (1: its COMMIT was cut after it happened)`)
    }
  }
  t.same(await queueInvariant(direct), [], 'every session with evicted messages has a queued update')

  // The client retries what failed, with the same keys: everything is there exactly once.
  let replayed = 0
  for (const j of failed) {
    const res = await append(app, j.s, j.messages, j.key)
    t.equal(res.statusCode, 200, `retry of ${j.key}`)
    if (res.headers['idempotent-replayed'] === 'true') replayed++
  }
  t.comment(`${replayed} of ${failed.length} retries found their append already stored`)
  for (const s of sessions) {
    const rows = await stored(direct, s)
    t.same(rows.map((r) => r.seq), rows.map((_, i) => i + 1), `${s}: seqs 1..n, no gap, no duplicate`)
    for (const j of jobs.filter((j) => j.s === s)) t.equal(copiesOf(rows, j.messages).length, 1, `${j.key} stored once`)
  }
  // The background catches up: every session's summary converges.
  await app.summaryWorker.runOnce()
  for (const s of sessions) {
    const view = await converged(app, s)
    t.equal(view.summarizedMessages + view.windowMessages + view.systemMessages, view.messageCount, `${s}: every message is in the window or the summary`)
  }
  t.equal(await unfinishedRuns(direct), 0, 'no update left unfinished')
  t.notMatch(logs.join(''), /unhandled error|"level":50/, 'no 500, no error logged')
})

t.test('postgres: a database host that stops answering (a partition): the one 503 after the connect timeout, not a hang', { skip: pgOk ? false : POSTGRES_SKIP_REASON }, async (t) => {
  const { app, direct, proxy, logs } = await proxiedApp(t)
  t.equal((await append(app, 'p1', tagged(0, 'p0'), 'p0')).statusCode, 200)
  proxy.stall()
  await sleep(100) // the pool has dropped its cut connections: every request needs a new one
  const started = performance.now()
  const [appended, read, ready] = await Promise.all([
    append(app, 'p1', tagged(1, 'p1'), 'p1'),
    app.inject({ method: 'GET', url: '/sessions/p1' }),
    app.inject({ method: 'GET', url: '/readyz' }),
  ])
  const ms = performance.now() - started
  assertUnavailable(t, appended, 'append while the host does not answer')
  assertUnavailable(t, read, 'read while the host does not answer')
  t.equal(ready.statusCode, 503)
  // Before the connect timeout (src/db/database.ts) these waited for good.
  t.ok(ms >= CONNECT_TIMEOUT_MS - 500 && ms < CONNECT_TIMEOUT_MS + 2_000, `answered after ${ms.toFixed(0)} ms (connect timeout ${CONNECT_TIMEOUT_MS} ms)`)
  await proxy.restore()
  const retried = await append(app, 'p1', tagged(1, 'p1'), 'p1')
  t.equal(retried.statusCode, 200)
  t.equal(retried.headers['idempotent-replayed'], undefined, 'the refused append had stored nothing')
  const rows = await stored(direct, 'p1')
  t.same(rows.map((r) => r.seq), rows.map((_, i) => i + 1))
  t.same([copiesOf(rows, tagged(0, 'p0')).length, copiesOf(rows, tagged(1, 'p1')).length], [1, 1])
  t.equal((await app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200)
  t.notMatch(logs.join(''), /unhandled error|"level":50/, 'no 500')
})

t.test('postgres: the database cut in the middle of a background update: retried, the session converges', { skip: pgOk ? false : POSTGRES_SKIP_REASON }, async (t) => {
  const { app, direct, proxy, logs } = await proxiedApp(t, { WORKERS: 1, WORKER_POLL_MS: 20, WORKER_RETRY_BASE_MS: 50, LEASE_MS: 1_000 })
  await app.inject({ method: 'PUT', url: '/sessions/u1', payload: { windowMessages: 4, batchSize: 1 } })
  // The update's transaction loses its connection as it writes the new version; the
  // database is back at once, so the failure is recorded and retried after the backoff.
  const rule = proxy.cutWhen({ sql: /insert into "session_summaries"/ })
  // One append of three exchanges: one update, which the scheduler runs by itself.
  const first = [0, 1, 2].flatMap((i) => tagged(i, `u${i}`))
  t.equal((await appendRetrying(app, 'u1', first, 'u-first')).statusCode, 200)
  await rule.fired
  const view = await converged(app, 'u1')
  t.equal(view.summary.version, 1, 'one version written, by the retry')
  t.equal(view.summarizedMessages, (await direct.db.selectFrom('session_messages').select('seq').where('session_id', '=', 'u1').where('status', '=', 'summarized').execute()).length)
  t.ok(view.summarizedMessages >= 6, `${view.summarizedMessages} messages folded`)
  t.equal(await unfinishedRuns(direct), 0, 'the cut run rolled back: no unfinished run row')
  t.ok((await metric(app, 'compactd_summary_updates_failed_total')) >= 1, 'the failed attempt is counted')
  t.match(logs.join(''), /summary update failed; retrying with backoff/)

  // Now the database stays away for longer than the lease: the worker cannot even record
  // the failure, so the entry is claimed again when its lease expires.
  proxy.clearLog()
  const outage = proxy.cutWhen({ sql: /insert into "session_summaries"/, refuse: true })
  const second = [3, 4].flatMap((i) => tagged(i, `u${i}`))
  t.equal((await appendRetrying(app, 'u1', second, 'u-second')).statusCode, 200)
  await outage.fired
  const during = await app.inject({ method: 'GET', url: '/sessions/u1/summary' })
  t.match(during.json(), { version: 1, stale: true, degraded: true }, 'the last summary seen, served while it is down')
  assertUnavailable(t, await append(app, 'u1', tagged(7, 'refused')), 'append while the database refuses connections')
  await sleep(1_500)
  await proxy.restore()
  const after = await converged(app, 'u1')
  t.equal(after.summary.version, 2)
  t.equal(after.messageCount, 30, 'the refused append stored nothing')
  t.equal(await unfinishedRuns(direct), 0)
  t.match(logs.join(''), /its lease will expire/, 'the unrecorded failure waited for its lease')
  t.equal((await app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200)
  t.notMatch(logs.join(''), /unhandled error/, 'no 500')
})

/** A document in the rolling-summary format, as an llm-mode model would write it. */
function llmDocument(label: string): string {
  const at = new Date().toISOString().slice(0, 16).replace('T', ' ') + 'Z'
  return `## Previously in This Session\n1. ${label} fixed src/module0.ts (${at}, ~200 tokens)\n`
}

t.test('postgres: llm mode, the database gone while the model writes the update: redone once it is back', { skip: pgOk ? false : POSTGRES_SKIP_REASON }, async (t) => {
  const fake = await startFakeProvider({ apiKey: KEY })
  t.teardown(() => fake.close())
  fake.setDefault({ kind: 'ok', delayMs: 400, content: llmDocument('LLM-DOC') })
  const { app, direct, proxy, logs } = await proxiedApp(t, { ...llmConfig(fake), WORKERS: 1, WORKER_POLL_MS: 20, WORKER_RETRY_BASE_MS: 50, LEASE_MS: 1_000 })
  t.equal((await app.inject({ method: 'PUT', url: '/sessions/l1', payload: { windowMessages: 4, batchSize: 1, mode: 'llm', summarizer: { provider: 'openai' } } })).statusCode, 201)
  for (let i = 0; i < 2; i++) t.equal((await appendRetrying(app, 'l1', tagged(i, `l${i}`), `l${i}`)).statusCode, 200)
  // The model is writing (outside any transaction): the database goes away meanwhile.
  await waitFor('the model call', async () => (generations(fake).length >= 1 ? true : undefined))
  await proxy.refuse()
  await waitFor('the model to answer', async () => (generations(fake)[0]!.status === 200 ? true : undefined))
  await sleep(1_300)
  t.equal((await direct.db.selectFrom('session_summaries').select('version').where('session_id', '=', 'l1').execute()).length, 0, 'nothing written while it was down')
  await proxy.restore()
  const view = await converged(app, 'l1')
  t.equal(view.summary.version, 1)
  t.match((await app.inject({ method: 'GET', url: '/sessions/l1/summary' })).json().content, /LLM-DOC/, "the model's document, from the redone update")
  const runs = await direct.db.selectFrom('summary_update_runs').select(['mode', 'finished_at']).where('session_id', '=', 'l1').execute()
  t.same(runs.map((r) => r.mode), ['llm'], 'one run committed, in llm mode')
  t.ok(generations(fake).length >= 2, 'the model was asked again')
  t.notOk(logs.join('').includes(KEY), 'the provider key is in no log line')
})

t.test('postgres: updates that failed for good are reported until a refresh recovers them', { skip: pgOk ? false : POSTGRES_SKIP_REASON }, async (t) => {
  const { app, direct, proxy, logs } = await proxiedApp(t, { WORKERS: 1, WORKER_POLL_MS: 20, WORKER_RETRY_BASE_MS: 20, LEASE_MS: 1_000, MAX_RETRIES: 1 })
  await app.inject({ method: 'PUT', url: '/sessions/f1', payload: { windowMessages: 4, batchSize: 1 } })
  // Every attempt loses its connection as it writes: MAX_RETRIES + 1 attempts, then 'failed'.
  const rule = proxy.cutWhen({ sql: /insert into "session_summaries"/, times: Infinity })
  for (let i = 0; i < 3; i++) t.equal((await appendRetrying(app, 'f1', tagged(i, `f${i}`), `f${i}`)).statusCode, 200)
  const failed = await waitFor('the entry to fail', async () => {
    const s = (await app.inject({ method: 'GET', url: '/sessions/f1' })).json()
    return s.update?.status === 'failed' ? s : undefined
  })
  t.equal(rule.count, 2, 'two attempts (MAX_RETRIES 1), both cut')
  t.ok(failed.evictedAwaitingSummary > 0, `${failed.evictedAwaitingSummary} messages wait for the summary`)
  t.equal(failed.summary, null)

  // Until a refresh it says so everywhere, and nothing is lost meanwhile.
  const summary = (await app.inject({ method: 'GET', url: '/sessions/f1/summary' })).json()
  t.match(summary, { version: 0, stale: true, update: { status: 'failed' }, evictedAwaitingSummary: failed.evictedAwaitingSummary })
  t.equal(await metric(app, 'compactd_summary_updates_gave_up_total'), 1)
  t.equal(await metric(app, 'compactd_summary_queue_failed'), 1)
  t.match(logs.join(''), /"alert":true.*gave up after 2 attempts/, 'an alert is logged')
  t.equal((await appendRetrying(app, 'f1', tagged(3, 'f3'), 'f3')).statusCode, 200)
  await sleep(200)
  t.equal((await app.inject({ method: 'GET', url: '/sessions/f1' })).json().update.status, 'failed', 'an append does not revive it')
  const context = (await app.inject({ method: 'GET', url: '/sessions/f1/context?budget=100000' })).json()
  t.equal(context.stale, true)
  for (let i = 0; i < 4; i++) t.match(JSON.stringify(context.messages), `[f${i}]`, `/context still carries exchange f${i}`)
  t.equal(rule.count, 2, 'no attempt since it failed')

  // The cause is gone; a manual refresh revives it at high priority, attempts reset.
  rule.remove()
  const refresh = await app.inject({ method: 'POST', url: '/sessions/f1/summary/refresh' })
  t.equal(refresh.statusCode, 202)
  t.match(refresh.json(), { queued: 'merged', priority: 'high' })
  const view = await converged(app, 'f1')
  t.equal(view.summary.version, 1)
  t.equal(view.summarizedMessages + view.windowMessages, view.messageCount, 'every message is in the window or the summary')
  t.match((await app.inject({ method: 'GET', url: '/sessions/f1/summary' })).json(), { stale: false, update: null })
  t.equal(await metric(app, 'compactd_summary_queue_failed'), 0)
  t.equal(await unfinishedRuns(direct), 0)
})

// ---------------------------------------------------------------------------
// The provider failing in llm mode (fake provider, real SDKs)

/** An app on the default backend with its logs captured, for provider faults. */
async function loggedApp(t: Teardown, config: Partial<Config>): Promise<{ app: FastifyInstance; logs: string[] }> {
  const database = await createTestDatabase(await defaultBackend())
  const logs: string[] = []
  const app = await build({
    config: testConfig({ LOG_LEVEL: 'debug', WORKERS: 0, ...config }),
    database,
    logger: { level: 'debug', redact: { paths: LOG_REDACT_PATHS, censor: '[redacted]' }, stream: { write: (line: string) => void logs.push(line) } },
  })
  await app.ready()
  t.teardown(async () => {
    await app.close()
    await database.close()
  })
  return { app, logs }
}

interface ProviderFault {
  name: string
  behaviour: FakeBehaviour
  /** The SummarizerError kind the fallback names. */
  kind: string
  /** Text of the fault that must never become the summary. */
  leak?: RegExp
}

const PROVIDER_FAULTS: ProviderFault[] = [
  { name: '429 with retry-after', behaviour: { kind: 'rate-limit', retryAfterSeconds: 1 }, kind: 'rate_limited', leak: /Rate limit|rate limit/ },
  { name: '429 asking for an hour', behaviour: { kind: 'rate-limit', retryAfterSeconds: 3600 }, kind: 'rate_limited', leak: /Rate limit|rate limit/ },
  { name: '500', behaviour: { kind: 'server-error', status: 500 }, kind: 'server_error', leak: /Internal server error|had an error/ },
  { name: '529 overloaded', behaviour: { kind: 'server-error', status: 529 }, kind: 'server_error', leak: /Overloaded/ },
  { name: 'hang past the timeout', behaviour: { kind: 'timeout' }, kind: 'timeout' },
  { name: 'connection dropped', behaviour: { kind: 'disconnect' }, kind: 'unreachable' },
  { name: 'truncated JSON (200)', behaviour: { kind: 'malformed-json' }, kind: 'malformed', leak: /chatcmpl-broken|msg_broken/ },
  { name: 'JSON of the wrong shape', behaviour: { kind: 'wrong-shape' }, kind: 'malformed', leak: /not.+a.+completion/ },
  { name: 'an HTML page instead of JSON', behaviour: { kind: 'garbage' }, kind: 'malformed', leak: /Bad Gateway|<html>/ },
  { name: 'body cut off halfway', behaviour: { kind: 'truncated' }, kind: 'unreachable', leak: /prompt digest/ },
  { name: 'empty completion', behaviour: { kind: 'empty' }, kind: 'empty' },
]
/** PROVIDER_TIMEOUT_MS of the provider-fault tests: a hang must cost about this, and no more. */
const PROVIDER_TIMEOUT = 700

/** A conversation long enough that compacting it to 8000 tokens summarises its middle. */
function longConversation(exchanges = 40): Message[] {
  const out: Message[] = [{ role: 'system', content: 'You are a coding agent.' }]
  for (let i = 0; i < exchanges; i++) out.push(...exchange(i, { padding: 12 }))
  return out
}

for (const provider of ['openai', 'anthropic'] as const) {
  t.test(`${provider}: POST /compact with strategy llm degrades to rules on every provider fault, never a 5xx, never the key`, async (t) => {
    const fake = await startFakeProvider({ apiKey: KEY })
    t.teardown(() => fake.close())
    // Retries on: the SDK may retry a short retry-after, never wait an hour.
    const { app, logs } = await loggedApp(t, llmConfig(fake, { PROVIDER_MAX_RETRIES: 1, PROVIDER_TIMEOUT_MS: PROVIDER_TIMEOUT }))
    const messages = longConversation()
    // The compaction runs on a compute thread: start the threads first, so the timings below are the provider's.
    t.equal((await app.inject({ method: 'POST', url: '/compact', payload: { messages, targetTokens: 8000, strategy: 'rules' } })).statusCode, 200)
    for (const fault of PROVIDER_FAULTS) {
      fake.reset()
      fake.setDefault(fault.behaviour)
      const started = performance.now()
      const res = await app.inject({ method: 'POST', url: '/compact', payload: { messages, targetTokens: 8000, strategy: ['llm'], summarizer: { provider } } })
      const ms = performance.now() - started
      t.equal(res.statusCode, 200, `${fault.name}: 200`)
      const body = res.json()
      t.match(body, { compacted: true, strategy: 'rules' }, `${fault.name}: the rules summary instead`)
      t.same(body.fallbacks.map((f: { strategy: string }) => f.strategy), ['llm'], `${fault.name}: one fallback, from llm`)
      t.match(body.fallbacks[0].reason, new RegExp(`^${fault.kind}: ${provider} `), `${fault.name}: ${body.fallbacks[0].reason}`)
      t.ok(generations(fake).length >= 1, `${fault.name}: the provider was asked`)
      t.equal(generations(fake)[0]!.headers.authorization, `Bearer ${KEY}`, `${fault.name}: with the configured key`)
      t.notOk(res.body.includes(KEY), `${fault.name}: the key is not in the response`)
      if (fault.leak) t.notMatch(body.summary.text, fault.leak, `${fault.name}: the fault's text is not the summary`)
      // Bounded: at most two attempts of PROVIDER_TIMEOUT each, and a retry-after over it is not waited for.
      t.ok(ms < 3 * PROVIDER_TIMEOUT + 1_500, `${fault.name}: answered in ${ms.toFixed(0)} ms`)
      if (fault.name === '429 asking for an hour') t.equal(generations(fake).length, 1, 'an hour is not waited for: no retry')
      if (fault.name === '429 with retry-after') t.equal(generations(fake).length, 1, 'a retry-after longer than PROVIDER_TIMEOUT_MS is not waited for')
    }

    // A short retry-after is honoured: the retry succeeds and the model writes the summary.
    fake.reset()
    fake.enqueue({ kind: 'rate-limit', retryAfterMs: 100 })
    const short = longConversation(12)
    const retried = await app.inject({ method: 'POST', url: '/compact', payload: { messages: short, targetTokens: 8000, force: true, strategy: ['llm'], summarizer: { provider }, sessionId: `${provider}-cp` } })
    t.equal(retried.statusCode, 200)
    t.match(retried.json(), { strategy: 'llm', fallbacks: [] }, `retried after 100 ms, then written by the model ${JSON.stringify(retried.json().fallbacks)}`)
    t.match(retried.json().summary.text, /prompt digest/, "the fake model's summary")
    t.same(generations(fake).map((r) => r.status), [429, 200], 'one retry')

    // Nothing lost on a fallback either: with a sessionId the rules summary is the checkpoint.
    fake.setDefault({ kind: 'server-error', status: 500 })
    const stored = await app.inject({ method: 'POST', url: '/compact', payload: { messages, targetTokens: 8000, strategy: ['llm'], summarizer: { provider }, sessionId: `${provider}-cp` } })
    t.equal(stored.statusCode, 200)
    t.match(stored.json(), { strategy: 'rules', checkpoint: { sessionId: `${provider}-cp`, checkpointNum: 2 } })
    const checkpoint = await app.inject({ method: 'GET', url: `/sessions/${provider}-cp/checkpoints/2` })
    t.equal(checkpoint.statusCode, 200)
    t.notOk(checkpoint.body.includes(KEY))

    const all = logs.join('')
    t.notOk(all.includes(KEY), 'the key is in no log line')
    t.notMatch(all, /unhandled error|"level":50/, 'no 500, no error logged')
  })
}

t.test('llm-mode background updates: every provider fault falls back to rules, folds everything, leaves nothing queued', async (t) => {
  const fake = await startFakeProvider({ apiKey: KEY })
  t.teardown(() => fake.close())
  const { app, logs } = await loggedApp(t, llmConfig(fake, { PROVIDER_MAX_RETRIES: 1, PROVIDER_TIMEOUT_MS: PROVIDER_TIMEOUT }))
  let n = 0
  for (const fault of PROVIDER_FAULTS) {
    const provider = n % 2 === 0 ? 'openai' : 'anthropic'
    const id = `bg-${n++}`
    const put = await app.inject({ method: 'PUT', url: `/sessions/${id}`, payload: { windowMessages: 4, batchSize: 1, mode: 'llm', summarizer: { provider } } })
    t.equal(put.statusCode, 201)
    for (let i = 0; i < 3; i++) t.equal((await append(app, id, tagged(i, `${id}-${i}`))).statusCode, 200)
    const before = (await app.inject({ method: 'GET', url: `/sessions/${id}` })).json()
    t.ok(before.evictedAwaitingSummary > 0 && before.update?.status === 'pending', `${fault.name}: an update is queued`)

    fake.reset()
    fake.setDefault(fault.behaviour)
    const started = performance.now()
    t.equal(await app.summaryWorker.runOnce(), 1, `${fault.name}: the update ran`)
    const ms = performance.now() - started
    t.ok(ms < 3 * PROVIDER_TIMEOUT + 1_500, `${fault.name} (${provider}): the update took ${ms.toFixed(0)} ms`)
    t.ok(generations(fake).length >= 1, `${fault.name}: the model was asked`)

    const after = (await app.inject({ method: 'GET', url: `/sessions/${id}` })).json()
    t.match(after, { evictedAwaitingSummary: 0, update: null, summary: { version: 1, source: 'background' } }, `${fault.name}: folded, nothing queued`)
    t.equal(after.summarizedMessages, before.evictedAwaitingSummary, `${fault.name}: every evicted message is in the summary`)
    const summary = (await app.inject({ method: 'GET', url: `/sessions/${id}/summary` })).json()
    t.match(summary, { stale: false, degraded: false })
    t.match(summary.content, /src\/module0\.ts/, `${fault.name}: the rules summary of the evicted exchanges`)
    if (fault.leak) t.notMatch(summary.content, fault.leak, `${fault.name}: the fault's text is not the summary`)
    t.notOk(summary.content.includes(KEY))
    const runs = await app.db.selectFrom('summary_update_runs').select('mode').where('session_id', '=', id).execute()
    t.same(runs.map((r) => r.mode), ['llm-fallback'], `${fault.name}: recorded as an llm fallback`)
  }
  const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body
  t.match(metrics, new RegExp(`compactd_summary_updates_completed_total\\{mode="llm-fallback"\\} ${PROVIDER_FAULTS.length}\\b`))
  t.notMatch(metrics, /compactd_summary_updates_failed_total\{/, 'no attempt failed: the fallback is not a failure')
  const all = logs.join('')
  t.equal(all.split('llm summary failed: falling back to rules').length - 1, PROVIDER_FAULTS.length, 'each fallback is logged once')
  t.notOk(all.includes(KEY), 'the key is in no log line')
  t.notMatch(all, /"level":50/, 'no error logged')
})

// ---------------------------------------------------------------------------
// PGlite: the database is the process. It has no connection to lose (no network, one
// in-process connection), so the proxy's faults do not exist there; its fault is the
// process dying with it, in the middle of a transaction, and restarting on the same
// data directory.

t.test('pglite: the process killed (SIGKILL) in the middle of appends and of an llm update; after a restart nothing acknowledged is lost, nothing is half-applied, the update is redone', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'compactd-faults-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  const fake = await startFakeProvider({ apiKey: KEY })
  t.teardown(() => fake.close())
  // The model is still writing the llm session's update when the process dies.
  fake.setDefault({ kind: 'ok', delayMs: 60_000, content: llmDocument('LLM-DOC') })
  const port = 20_000 + Math.floor(Math.random() * 20_000)
  await ensureBuilt()
  const server = startServer({
    PGLITE_DATA_DIR: dir,
    PORT: String(port),
    LOG_LEVEL: 'warn',
    WORKERS: '2',
    WORKER_POLL_MS: '20',
    LEASE_MS: '1000',
    RATE_LIMIT_MAX: '1000000',
    OPENAI_API_KEY: KEY,
    OPENAI_BASE_URL: fake.openaiBaseURL,
    SUMMARIZER_OPENAI_MODELS: MODEL,
    PROVIDER_MAX_RETRIES: '0',
    PROVIDER_TIMEOUT_MS: '120000',
  })
  const child = server.child
  const output = () => server.output()
  const exited = server.exited
  t.teardown(() => void child.kill('SIGKILL'))
  const base = `http://127.0.0.1:${port}`
  await waitFor('the server', async () => ((await fetch(`${base}/healthz`)).ok ? true : undefined), 60_000).catch((err) => {
    t.comment(output())
    throw err
  })
  const call = (method: string, url: string, body?: unknown, key?: string) =>
    fetch(`${base}${url}`, {
      method,
      headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(key ? { 'idempotency-key': key } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    })
  t.equal((await call('PUT', '/sessions/k-llm', { windowMessages: 4, batchSize: 1, mode: 'llm', summarizer: { provider: 'openai' } })).status, 201)
  t.equal((await call('PUT', '/sessions/k-rules', { windowMessages: 4, batchSize: 1 })).status, 201)
  t.equal((await call('POST', '/sessions/k-llm/messages', { messages: [0, 1].flatMap((i) => tagged(i, `llm-${i}`)) })).status, 200)
  await waitFor('the llm update to call the model', async () => (generations(fake).length >= 1 ? true : undefined))

  // Appends from four clients; the process is killed after the 10th acknowledgement,
  // with others in their transactions and the rules updates running.
  const jobs = Array.from({ length: 24 }, (_, i) => ({ key: `r-${i}`, messages: tagged(i, `r-${i}`), status: 0 }))
  let next = 0
  let acked = 0
  let killed = false
  const chains = Array.from({ length: 4 }, async () => {
    while (next < jobs.length && !killed) {
      const job = jobs[next++]!
      const res = await call('POST', '/sessions/k-rules/messages', { messages: job.messages }, job.key).catch(() => undefined)
      job.status = res?.status ?? -1
      if (job.status === 200 && ++acked === 10) {
        killed = true
        child.kill('SIGKILL')
      }
    }
  })
  await Promise.all(chains)
  await exited
  const ok = jobs.filter((j) => j.status === 200)
  const lost = jobs.filter((j) => j.status === -1)
  // The kill lands while other appends are finishing: at least 10 are acknowledged (how many
  // more is scheduling); the invariant, checked below, is that each acknowledged one is stored once.
  t.ok(ok.length >= 10, `${ok.length} appends acknowledged before the kill (at least 10)`)
  t.ok(jobs.every((j) => j.status === 200 || j.status === -1 || j.status === 0), 'nothing but 200 (or no answer: killed)')
  t.comment(`${lost.length} appends in flight when the process died`)

  // Restart on the same directory (the dead process's lock is taken over).
  const database = await openDatabase({ pgliteDataDir: dir })
  let app: FastifyInstance | undefined
  t.teardown(async () => {
    await app?.close()
    await database.close()
  })
  app = await build({ config: testConfig({ LOG_LEVEL: 'silent', WORKERS: 0, LEASE_MS: 1000, ...llmConfig(fake) }), database, logger: false })
  await app.ready()
  const rows = await app.db.selectFrom('session_messages').select(['seq', 'raw', 'status']).where('session_id', '=', 'k-rules').orderBy('seq').execute()
  t.same(rows.map((r) => r.seq), rows.map((_, i) => i + 1), 'seqs 1..n: no gap, no duplicate')
  for (const j of jobs.filter((j) => j.status !== 0)) {
    const copies = copiesOf(rows, j.messages)
    t.ok(copies.every((seq) => seq > 0), `${j.key}: never half-applied`)
    t.equal(copies.length, j.status === 200 ? 1 : copies.length, `${j.key}: ${j.status === 200 ? 'acknowledged, stored' : `unanswered, stored ${copies.length} time(s)`}`)
    if (j.status === 200) t.equal(copies.length, 1, `${j.key} survived the kill`)
  }
  const llmSession = await app.db.selectFrom('session_summaries').select('version').where('session_id', '=', 'k-llm').execute()
  t.same(llmSession, [], 'the llm update the kill interrupted wrote nothing')
  const sessionsWithEvicted = await app.db.selectFrom('session_messages').select('session_id').distinct().where('status', '=', 'evicted').execute()
  const queued = new Set((await app.db.selectFrom('summary_update_queue').select('session_id').execute()).map((r) => r.session_id))
  t.same(sessionsWithEvicted.map((r) => r.session_id).filter((id) => !queued.has(id)), [], 'every session with evicted messages still has a queued update')

  // The client retries what got no answer; the interrupted update is claimed again once its lease expires.
  for (const j of jobs.filter((j) => j.status !== 200)) {
    const res = await app.inject({ method: 'POST', url: '/sessions/k-rules/messages', payload: { messages: j.messages }, headers: { 'idempotency-key': j.key } })
    t.equal(res.statusCode, 200, `retry of ${j.key}`)
  }
  fake.setDefault({ kind: 'ok', content: llmDocument('LLM-DOC') })
  await sleep(1_100)
  await app.summaryWorker.runOnce()
  for (const id of ['k-rules', 'k-llm']) {
    const view = await converged(app, id)
    t.equal(view.summarizedMessages + view.windowMessages, view.messageCount, `${id}: every message is in the window or the summary`)
  }
  const after = await app.db.selectFrom('session_messages').select(['seq', 'raw']).where('session_id', '=', 'k-rules').orderBy('seq').execute()
  for (const j of jobs) t.equal(copiesOf(after, j.messages).length, 1, `${j.key} stored once`)
  t.match((await app.inject({ method: 'GET', url: '/sessions/k-llm/summary' })).json().content, /LLM-DOC/, 'the llm update, redone')
  t.equal((await app.db.selectFrom('summary_update_runs').select('id').where('finished_at', 'is', null).execute()).length, 0, 'no unfinished run')
})
