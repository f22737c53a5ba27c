/**
 * Sessions benchmark (issue 4).
 *
 * 1. GET /sessions/:id/summary over 1,000 sessions that each hold a summary, on
 *    PostgreSQL, in two phases run in interleaved rounds (idle, busy, idle, busy, ...):
 *    - idle: nothing else happens;
 *    - busy: a steady stream of appends (APPEND_RATE/s, spread over the same sessions)
 *      keeps the background workers folding evicted exchanges into new versions.
 *    Reads are measured twice per phase: at a fixed offered rate (the latency an agent
 *    sees; the p99 busy/idle ratio is the goal, <= 1.5) and saturated (max req/s).
 * 2. POST /sessions/:id/messages throughput on PostgreSQL and on PGlite, workers on,
 *    against a bare Fastify route taking the same body, in interleaved rounds.
 *
 * Load comes from autocannon in child processes (load-child.mjs), which spread requests
 * over the sessions' paths.
 */
import { execFile, spawn } from 'node:child_process'
import path from 'node:path'
import Fastify from 'fastify'
import { sql } from 'kysely'
import { build } from '../../src/app.ts'
import { testConfig } from '../../src/config.ts'
import { openDatabase, type DatabaseHandle } from '../../src/db/database.ts'
import { createTestDatabase, postgresAvailable } from '../helpers/databases.ts'
import { exchange } from '../helpers/session-conversations.ts'
import { freePort } from '../helpers/service-process.ts'
import { makeSummaryWorker } from '../../src/use-cases/sessions/worker.ts'
import { BENCH_DURATION_S } from './http.ts'

const LOG_LEVEL = 'warn' as const
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 1_000)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
/** Offered read rate of the fixed-rate runs, and the busy phase's append rate. */
const READ_RATE = Number(process.env.BENCH_READ_RATE ?? 500)
const APPEND_RATE = Number(process.env.BENCH_APPEND_RATE ?? 100)
const CHILD = path.resolve(import.meta.dirname, 'load-child.mjs')

/** What load-child.mjs (autocannon in a child process) reports; test/bench/compute.ts uses it too. */
export interface ChildResult {
  requestsPerSec: number
  total: number
  p50Ms: number
  p99Ms: number
  maxMs: number
  non2xx: number
  errors: number
}

export interface ChildConfig {
  origin: string
  paths: string[]
  method: 'GET' | 'POST'
  body?: unknown
  headers?: Record<string, string>
  connections: number
  duration: number
  overallRate?: number
}

export function runChild(cfg: ChildConfig): Promise<ChildResult> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [CHILD, JSON.stringify(cfg)], { maxBuffer: 16 * 1024 * 1024 }, (err, out) => (err ? reject(err) : resolve(JSON.parse(out) as ChildResult))),
  )
}

/** A steady append stream in a child process, until stopped (or `duration` s). */
function startStream(cfg: ChildConfig): { stop(): Promise<ChildResult | undefined> } {
  const child = spawn(process.execPath, [CHILD, JSON.stringify(cfg)], { stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  child.stdout.on('data', (d) => (out += d))
  const done = new Promise<ChildResult | undefined>((resolve) => child.on('close', () => resolve(out ? (JSON.parse(out) as ChildResult) : undefined)))
  return {
    stop: async () => {
      child.kill('SIGINT')
      return done
    },
  }
}

export { freePort }

function shuffled<T>(xs: T[]): T[] {
  const a = [...xs]
  let seed = 42
  for (let i = a.length - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff
    const j = seed % (i + 1)
    ;[a[i], a[j]] = [a[j]!, a[i]!]
  }
  return a
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length

async function compactd(database: DatabaseHandle, workers = 2) {
  const config = testConfig({ LOG_LEVEL, RATE_LIMIT_MAX: 1_000_000_000, WORKERS: workers, WORKER_POLL_MS: 250 })
  const app = await build({ config, database, logger: { level: LOG_LEVEL } })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const origin = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
  return { app, origin }
}

async function pendingUpdates(database: DatabaseHandle): Promise<number> {
  const r = await sql<{ n: number }>`select count(*)::int as n from summary_update_queue where status = 'pending'`.execute(database.db)
  return r.rows[0]!.n
}

async function summaryVersions(database: DatabaseHandle): Promise<number> {
  const r = await sql<{ n: number }>`select count(*)::int as n from session_summaries`.execute(database.db)
  return r.rows[0]!.n
}

/** SESSIONS sessions, each with 8 exchanges appended (some evicted) and a summary written by the workers. */
async function seed(app: Awaited<ReturnType<typeof compactd>>['app'], database: DatabaseHandle, ids: string[]): Promise<void> {
  const base = Date.now() - 3_600_000
  let next = 0
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++]!
      const messages = Array.from({ length: 8 }, (_, k) => exchange(k, { at: base + k * 60_000, padding: 8 })).flat()
      const res = await app.inject({ method: 'POST', url: `/sessions/${id}/messages`, payload: { messages } })
      if (res.statusCode !== 200) throw new Error(`seed append: ${res.statusCode} ${res.body}`)
    }
  }
  await Promise.all(Array.from({ length: 8 }, worker))
  const deadline = Date.now() + 300_000
  while ((await pendingUpdates(database)) > 0 || app.summaryWorker.running > 0) {
    if (Date.now() > deadline) throw new Error('seed: the workers did not drain the queue in 5 minutes')
    await sleep(200)
  }
  const withSummary = await sql<{ n: number }>`select count(distinct session_id)::int as n from session_summaries`.execute(database.db)
  if (withSummary.rows[0]!.n !== ids.length) throw new Error(`seed: ${withSummary.rows[0]!.n} of ${ids.length} sessions have a summary`)
}

type Phase = 'idle' | 'busy' | 'busy-split'

interface PhaseRow {
  phase: Phase
  fixed: ChildResult
  saturated: ChildResult
  appendsPerSec: number
  versionsWritten: number
  seconds: number
}

/** Workers for a phase: in this process (the same event loop as the API), or a separate worker node. */
interface Workers {
  stop(): Promise<void>
}

function inProcessWorkers(app: Awaited<ReturnType<typeof compactd>>['app']): Workers {
  const worker = makeSummaryWorker({ db: app.db, config: { ...app.config, WORKERS: 2 }, log: app.log })
  worker.start()
  return { stop: () => worker.stop() }
}

/** A second compactd process with WORKERS=2 on the same database: API nodes run WORKERS=0. */
async function workerNode(databaseUrl: string): Promise<Workers> {
  const port = await freePort()
  const root = path.resolve(import.meta.dirname, '../..')
  const env = { PATH: process.env.PATH!, DATABASE_URL: databaseUrl, WORKERS: '2', WORKER_POLL_MS: '250', PORT: String(port), LOG_LEVEL, RATE_LIMIT_MAX: '1000000000' }
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { cwd: root, env, stdio: ['ignore', 'ignore', 'inherit'] })
  let dead = false
  const exited = new Promise<void>((resolve) => child.on('exit', () => ((dead = true), resolve())))
  for (let i = 0; ; i++) {
    const up = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false)
    if (up) break
    if (dead || i > 300) throw new Error('the worker node did not start')
    await sleep(100)
  }
  return {
    stop: async () => {
      child.kill('SIGTERM') // graceful: drains its running updates
      await exited
    },
  }
}

export async function benchSessionSummaryReads(): Promise<void> {
  if (!(await postgresAvailable())) {
    console.log('\n## Sessions: skipped (PostgreSQL is not reachable)\n')
    return
  }
  const database = await createTestDatabase('postgres')
  // The API instance runs no workers of its own: each phase brings the workers it measures.
  const { app, origin } = await compactd(database, 0)
  const ids = Array.from({ length: SESSIONS }, (_, i) => `bench-${i}`)
  const t0 = performance.now()
  const seeding = inProcessWorkers(app)
  await seed(app, database, ids)
  await seeding.stop()
  const seedS = (performance.now() - t0) / 1000

  const summaryPaths = shuffled(ids).map((id) => `/sessions/${id}/summary`)
  const appendPaths = shuffled(ids).map((id) => `/sessions/${id}/messages`)
  const appendBody = { messages: exchange(100, { padding: 8 }) }
  const read = (mode: 'fixed' | 'saturated') =>
    runChild({ origin, paths: summaryPaths, method: 'GET', connections: 10, duration: BENCH_DURATION_S, ...(mode === 'fixed' ? { overallRate: READ_RATE } : {}) })
  const drain = async () => {
    const w = inProcessWorkers(app)
    while ((await pendingUpdates(database)) > 0) await sleep(200)
    await w.stop()
  }

  // Warm-up: both request kinds.
  await runChild({ origin, paths: summaryPaths, method: 'GET', connections: 10, duration: 2 })
  await runChild({ origin, paths: appendPaths, method: 'POST', body: appendBody, connections: 4, duration: 2, overallRate: APPEND_RATE })
  await drain()

  const rows: PhaseRow[] = []
  for (let r = 0; r < ROUNDS; r++) {
    for (const phase of ['idle', 'busy', 'busy-split'] as const) {
      const workers = phase === 'busy' ? inProcessWorkers(app) : phase === 'busy-split' ? await workerNode(database.url!) : undefined
      const before = await summaryVersions(database)
      const started = performance.now()
      const stream = workers
        ? startStream({ origin, paths: appendPaths, method: 'POST', body: appendBody, connections: 4, duration: 4 * BENCH_DURATION_S, overallRate: APPEND_RATE })
        : undefined
      if (stream) await sleep(2_000) // the workers have updates in hand before reads start
      const fixed = await read('fixed')
      const saturated = await read('saturated')
      const streamed = await stream?.stop()
      const seconds = (performance.now() - started) / 1000
      const versionsWritten = (await summaryVersions(database)) - before
      await workers?.stop()
      rows.push({ phase, fixed, saturated, appendsPerSec: streamed ? streamed.total / seconds : 0, versionsWritten, seconds })
      // Settle: the next phase starts with an empty queue.
      await drain()
    }
  }
  await app.close()
  await database.close()

  const avg = (phase: Phase) => {
    const rs = rows.filter((r) => r.phase === phase)
    return {
      fixedRps: mean(rs.map((r) => r.fixed.requestsPerSec)),
      fixedP50: mean(rs.map((r) => r.fixed.p50Ms)),
      fixedP99: mean(rs.map((r) => r.fixed.p99Ms)),
      satRps: mean(rs.map((r) => r.saturated.requestsPerSec)),
      satP99: mean(rs.map((r) => r.saturated.p99Ms)),
      appendsPerSec: mean(rs.map((r) => r.appendsPerSec)),
      updatesPerSec: mean(rs.map((r) => r.versionsWritten / r.seconds)),
      bad: rs.reduce((n, r) => n + r.fixed.non2xx + r.fixed.errors + r.saturated.non2xx + r.saturated.errors, 0),
    }
  }
  const idle = avg('idle')
  const busy = avg('busy')
  const split = avg('busy-split')
  console.log(
    `\n## GET /sessions/:id/summary over ${SESSIONS} sessions (PostgreSQL), idle vs busy; ${ROUNDS} interleaved rounds of ${BENCH_DURATION_S} s runs, averaged\n`,
  )
  console.log(`Seeding ${SESSIONS} sessions (8 exchanges each, summaries written by the workers): ${seedS.toFixed(1)} s. Busy: ${APPEND_RATE} appends/s offered (one 6-message exchange each) to the API instance, and 2 workers folding them.\n`)
  console.log('| phase | reads at fixed rate: req/s | p50 ms | p99 ms | p99 vs idle | saturated (10 conns): req/s | p99 ms | appends/s | summary versions written/s | non-2xx |')
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
  for (const [name, p] of [
    ['idle (baseline)', idle],
    ['busy: workers in the API process', busy],
    ['busy: workers in a separate worker node (API WORKERS=0)', split],
  ] as const) {
    console.log(
      `| ${name} | ${p.fixedRps.toFixed(0)} | ${p.fixedP50.toFixed(1)} | ${p.fixedP99.toFixed(1)} | ${(p.fixedP99 / idle.fixedP99).toFixed(2)} | ${p.satRps.toFixed(0)} | ${p.satP99.toFixed(1)} | ${p.appendsPerSec.toFixed(1)} | ${p.updatesPerSec.toFixed(1)} | ${p.bad} |`,
    )
  }
  const perRound = (phase: Phase) => rows.filter((r) => r.phase === phase).map((r) => r.fixed.p99Ms).join(', ')
  console.log(`\nfixed-rate p99 per round (ms): idle ${perRound('idle')}; busy ${perRound('busy')}; busy, worker node ${perRound('busy-split')}`)
  console.log(`p99 busy/idle at ${READ_RATE} req/s offered: ${(busy.fixedP99 / idle.fixedP99).toFixed(2)} with the workers in the API process, ${(split.fixedP99 / idle.fixedP99).toFixed(2)} with a separate worker node (goal <= 1.5)`)
  console.log(`saturated: p99 busy/idle ${(busy.satP99 / idle.satP99).toFixed(2)} / ${(split.satP99 / idle.satP99).toFixed(2)}; req/s busy/idle ${(busy.satRps / idle.satRps).toFixed(2)} / ${(split.satRps / idle.satRps).toFixed(2)}`)
}

export async function benchSessionAppends(): Promise<void> {
  const bare = Fastify({ logger: { level: LOG_LEVEL } })
  bare.post('/sessions/:id/messages', async (req) => ({ ok: Array.isArray((req.body as { messages?: unknown[] }).messages) }))
  await bare.listen({ host: '127.0.0.1', port: 0 })
  const bareOrigin = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}`

  const targets: { name: string; origin: string; database?: DatabaseHandle; close?: () => Promise<void> }[] = [{ name: 'bare Fastify route, same body (baseline)', origin: bareOrigin }]
  if (await postgresAvailable()) {
    const database = await createTestDatabase('postgres')
    const { app, origin } = await compactd(database)
    targets.push({ name: 'compactd on PostgreSQL', origin, database, close: async () => (await app.close(), await database.close()) })
  }
  {
    const database = await openDatabase({ pgliteDataDir: 'memory://' })
    const { app, origin } = await compactd(database)
    targets.push({ name: 'compactd on PGlite (in memory)', origin, database, close: async () => (await app.close(), await database.close()) })
  }
  const paths = shuffled(Array.from({ length: SESSIONS }, (_, i) => `/sessions/append-${i}/messages`))
  const body = { messages: exchange(7, { padding: 8 }) }
  const connections = 10
  for (const t of targets) await runChild({ origin: t.origin, paths, method: 'POST', body, connections, duration: 2 })

  const results = targets.map(() => [] as ChildResult[])
  for (let r = 0; r < ROUNDS; r++) {
    for (let k = 0; k < targets.length; k++) {
      results[k]!.push(await runChild({ origin: targets[k]!.origin, paths, method: 'POST', body, connections, duration: BENCH_DURATION_S }))
      // Let the workers catch up between runs, so one target's backlog does not slow the next.
      const db = targets[k]!.database
      if (db) while ((await pendingUpdates(db)) > 0) await sleep(200)
    }
  }
  console.log(`\n## POST /sessions/:id/messages over ${SESSIONS} sessions: one 6-message exchange per request (${JSON.stringify(body).length} bytes), ${connections} connections, workers on, ${ROUNDS} interleaved rounds of ${BENCH_DURATION_S} s\n`)
  console.log('| target | req/s | p50 ms | p99 ms | req/s vs bare | non-2xx |')
  console.log('|---|---:|---:|---:|---:|---:|')
  const baseRps = mean(results[0]!.map((x) => x.requestsPerSec))
  targets.forEach((t, k) => {
    const rs = results[k]!
    const rps = mean(rs.map((x) => x.requestsPerSec))
    console.log(
      `| ${t.name} | ${rps.toFixed(0)} | ${mean(rs.map((x) => x.p50Ms)).toFixed(1)} | ${mean(rs.map((x) => x.p99Ms)).toFixed(1)} | ${((rps / baseRps) * 100).toFixed(1)}% | ${rs.reduce((n, x) => n + x.non2xx + x.errors, 0)} |`,
    )
  })
  for (const t of targets) await t.close?.()
  await bare.close()
}
