/**
 * Soak benchmark (issue 10): `npm run bench -- soak [--pglite]`.
 *
 * The service runs as a child process (`node --import tsx src/server.ts`, as the sessions
 * bench's worker node, plus a GC hook: see below), on a fresh PostgreSQL database (or, with
 * --pglite, PGlite in a fresh data directory on disk), with its production defaults
 * (2 workers, WORKER_POLL_MS 1000, pool 10) except the rate limit, which is lifted.
 * The driver is this process, over keep-alive HTTP connections (undici).
 *
 * 1. Peak: a closed loop of SOAK_PEAK_CONNECTIONS requests in flight for
 *    SOAK_PEAK_SECONDS after SOAK_WARMUP_SECONDS, with the mixed workload below; peak = 2xx/s.
 * 2. Soak: an open loop at SOAK_LOAD (0.8) × peak for SOAK_SECONDS (300), the same mix
 *    (test/bench/mix.ts; SOAK_MIX may add `context:N`, GET /sessions/:id/context):
 *    - appends to SOAK_SESSIONS sessions: agent exchanges (a user request, an assistant
 *      message with tool calls, their results, an edit call and its result, a closing
 *      answer), sent whole or turn by turn; one append in flight per session at most,
 *      each with an Idempotency-Key and retried on a network error, 429 or 5xx;
 *    - GET /sessions/:id/summary of sessions that hold messages;
 *    - POST /compact of an 80-200 message agent conversation with the session's id
 *      (a checkpoint is stored per compaction);
 *    while the service's workers fold the evictions into rolling summaries. A quarter of
 *    the sessions use a 10-message window and batchSize 1; the rest the defaults.
 *    Every minute: offered and completed req/s, p99 per operation, errors (429, 5xx,
 *    other non-2xx, network), the service's RSS (/proc/<pid>/status VmRSS) and the
 *    summary queue depth (compactd_summary_queue_depth from /metrics, sampled every 5 s).
 *    Before and after the soak, the V8 heap used after a full GC (the service runs with
 *    --expose-gc and test/bench/gc-on-signal.mjs: SIGWINCH) is what it retains: growth
 *    there, unlike RSS or heap used under load, is memory held.
 * 3. Convergence (bounded by SOAK_CONVERGE_SECONDS): the queue drains; sessions whose
 *    evicted messages are below their batch get a refresh (POST …/summary/refresh), and
 *    the queue drains again. Then, for every session:
 *    - API: messageCount = messages the driver got a 2xx for; nothing evicted awaiting
 *      summary, no update queued; window + summarized + system = messageCount; the
 *      summary is not stale, not degraded, within its budget; the latest checkpoint is
 *      the number of 2xx compactions;
 *    - /metrics: no update given up, none failed in the queue;
 *    - after a graceful stop (SIGTERM, exit code 0), in the database: seqs 1..N without a
 *      gap, each stored message byte for byte the JSON the driver sent, in order; no
 *      message 'evicted'; summary_update_queue empty; no unfinished summary_update_runs.
 *    Any failure is printed and the exit code is 1.
 *
 * Env: SOAK_SECONDS (300), SOAK_SESSIONS (400), SOAK_LOAD (0.8), SOAK_RATE (req/s; skips
 * the peak phase), SOAK_PEAK_SECONDS (30), SOAK_WARMUP_SECONDS (5), SOAK_PEAK_CONNECTIONS (16), SOAK_MIX
 * ("append:5,summary:4,compact:1"), SOAK_CONVERGE_SECONDS (180), SOAK_INTERVAL_SECONDS (60: the
 * reporting window).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Pool } from 'undici'
import { openDatabase, type DatabaseHandle } from '../../src/db/database.ts'
import { createTestDatabase, postgresAvailable } from '../helpers/databases.ts'
import { emptyOp, emptyOps, newSessions, OPS, p99, parseMix, workload, type ErrorSamples, type Op, type OpStats } from './mix.ts'
import { checkSessionsApi, checkSessionsDb } from './mix-checks.ts'
import { metricSum, metricValue, rssMb, sleep, startService, type Service } from './service.ts'

const SOAK_SECONDS = Number(process.env.SOAK_SECONDS ?? 300)
const SESSIONS = Number(process.env.SOAK_SESSIONS ?? 400)
const LOAD = Number(process.env.SOAK_LOAD ?? 0.8)
const FIXED_RATE = process.env.SOAK_RATE ? Number(process.env.SOAK_RATE) : undefined
const PEAK_SECONDS = Number(process.env.SOAK_PEAK_SECONDS ?? 30)
const WARMUP_SECONDS = Number(process.env.SOAK_WARMUP_SECONDS ?? 5)
const PEAK_CONNECTIONS = Number(process.env.SOAK_PEAK_CONNECTIONS ?? 16)
const CONVERGE_SECONDS = Number(process.env.SOAK_CONVERGE_SECONDS ?? 180)
const MINUTE_S = Number(process.env.SOAK_INTERVAL_SECONDS ?? 60)
const CONNECTIONS = 32
/** Requests in flight at most; past it the driver counts the request as not sent (its backlog). */
const MAX_IN_FLIGHT = 512
const MIX = parseMix(process.env.SOAK_MIX ?? 'append:5,summary:4,compact:1')

interface Window {
  start: number
  offered: number
  notSent: number
  ops: Record<Op, OpStats>
  queueMax: number
}
const newWindow = (): Window => ({ start: performance.now(), offered: 0, notSent: 0, ops: emptyOps(), queueMax: 0 })

// ---------------------------------------------------------------------------

export async function benchSoak(opts: { pglite: boolean }): Promise<void> {
  const backend = opts.pglite ? 'pglite' : 'postgres'
  if (!opts.pglite && !(await postgresAvailable())) throw new Error('soak: PostgreSQL is not reachable (or run with --pglite)')
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'compactd-soak-'))
  const logFile = path.join(work, 'service.log')
  const failures: string[] = []
  let database: (DatabaseHandle & { url?: string }) | undefined
  let pgliteDir: string | undefined
  let service: Service | undefined
  const cleanup = async () => {
    if (service) await service.stop()
    await database?.close()
  }
  const onSignal = () => void cleanup().finally(() => process.exit(130))
  process.once('SIGINT', onSignal)
  try {
    const env: Record<string, string> = {}
    if (opts.pglite) {
      pgliteDir = path.join(work, 'pglite')
      env.PGLITE_DATA_DIR = pgliteDir
    } else {
      database = await createTestDatabase('postgres')
      env.DATABASE_URL = database.url!
    }
    service = await startService(env, logFile)
    const svc = service
    const startedRss = rssMb(svc.pid)
    console.log(`\n## Soak (${backend}): service pid ${svc.pid}, log ${logFile}; RSS after start-up ${startedRss.rss.toFixed(0)} MB`)

    const http = new Pool(svc.origin, { connections: CONNECTIONS, pipelining: 1, headersTimeout: 60_000, bodyTimeout: 60_000, keepAliveTimeout: 30_000 })
    const request = async (method: 'GET' | 'POST' | 'PUT', p: string, body?: unknown, headers: Record<string, string> = {}) => {
      const res = await http.request({
        method,
        path: p,
        headers: body !== undefined ? { 'content-type': 'application/json', ...headers } : headers,
        ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
      })
      const text = await res.body.text()
      return { status: res.statusCode, headers: res.headers, text }
    }

    const sessions = newSessions('soak', SESSIONS)
    const errorSamples: ErrorSamples = new Map()
    let window = newWindow()
    const { runOne, configure } = workload({ request, sessions, mix: MIX, seed: 7, stats: () => window.ops, errors: errorSamples })
    await configure()

    // Sampling: RSS and queue depth every 5 s.
    const samples: { t: number; rss: number; queue: number }[] = []
    let scraping: Promise<{ queue: number; rss: number; heap: number; heapTotal: number; external: number; cpu: number; t: number; text: string }> | undefined
    const scrape = () =>
      (scraping ??= (async () => {
        try {
          const r = await request('GET', '/metrics')
          const queue = metricValue(r.text, 'compactd_summary_queue_depth')
          const rss = rssMb(svc.pid).rss
          const t = performance.now()
          samples.push({ t, rss, queue })
          window.queueMax = Math.max(window.queueMax, queue)
          const heap = metricValue(r.text, 'compactd_nodejs_heap_size_used_bytes') / 2 ** 20
          const heapTotal = metricValue(r.text, 'compactd_nodejs_heap_size_total_bytes') / 2 ** 20
          const external = metricValue(r.text, 'compactd_nodejs_external_memory_bytes') / 2 ** 20
          const cpu = metricValue(r.text, 'compactd_process_cpu_seconds_total')
          return { queue, rss, heap, heapTotal, external, cpu, t, text: r.text }
        } finally {
          scraping = undefined
        }
      })())
    const sampler = setInterval(() => void scrape().catch(() => {}), 5_000)

    /** Heap used after a full GC (SIGWINCH, test/bench/gc-on-signal.mjs): what the service retains. */
    const retained = async () => {
      for (let i = 0; i < 2; i++) {
        process.kill(svc.pid, 'SIGWINCH')
        await sleep(1_000)
      }
      const s = await scrape()
      return { heap: s.heap, rss: rssMb(svc.pid).rss }
    }

    // 1. Peak: closed loop.
    let rate = FIXED_RATE
    if (rate === undefined) {
      const closedLoop = async (seconds: number) => {
        const until = performance.now() + seconds * 1000
        await Promise.all(
          Array.from({ length: PEAK_CONNECTIONS }, async () => {
            while (performance.now() < until) await runOne()
          }),
        )
      }
      await closedLoop(WARMUP_SECONDS) // JIT, connection pools
      window = newWindow()
      const cpu0 = await scrape()
      await closedLoop(PEAK_SECONDS)
      const cpu1 = await scrape()
      const secs = (performance.now() - window.start) / 1000
      const ok = OPS.reduce((n, op) => n + window.ops[op].ok, 0)
      const peak = ok / secs
      rate = LOAD * peak
      console.log(
        `\n### Peak (closed loop, ${PEAK_CONNECTIONS} requests in flight, ${PEAK_SECONDS} s after ${WARMUP_SECONDS} s of warm-up): ${peak.toFixed(1)} 2xx/s; service CPU ${((100 * (cpu1.cpu - cpu0.cpu)) / ((cpu1.t - cpu0.t) / 1000)).toFixed(0)}%, load average ${os.loadavg()[0]!.toFixed(1)}; per op:`,
      )
      for (const op of OPS.filter((o) => MIX[o] > 0)) {
        const s = window.ops[op]
        console.log(`- ${op}: ${(s.ok / secs).toFixed(1)}/s, p99 ${p99(s.latencies).toFixed(0)} ms, non-2xx ${s.s429 + s.s5xx + s.s4xx + s.network}`)
      }
      // Let the workers catch up, so the soak starts from an empty queue.
      const t0 = performance.now()
      while ((await scrape()).queue !== 0 && performance.now() - t0 < 120_000) await sleep(500)
      console.log(`queue drained ${((performance.now() - t0) / 1000).toFixed(1)} s after the peak phase`)
    }
    const retainedBefore = await retained()
    console.log(`\n### Soak: ${rate.toFixed(1)} req/s offered (${FIXED_RATE ? 'SOAK_RATE' : `${LOAD} × peak`}) for ${SOAK_SECONDS} s; mix ${JSON.stringify(MIX)}; ${SESSIONS} sessions\n`)

    // 2. Soak: open loop.
    const soakStartRss = rssMb(svc.pid)
    const rows: string[] = []
    const totals = { ...emptyOp(), offered: 0, notSent: 0 }
    const byOp: Record<Op, OpStats> = emptyOps()
    let inFlight = 0
    const inFlightDone = new Set<Promise<void>>()
    window = newWindow()
    const soakStart = performance.now()
    let issued = 0
    let minute = 0
    const header =
      '| minute | offered req/s | 2xx/s | append p99 ms | summary p99 ms | compact p99 ms | 429 | 5xx | other 4xx | network | not sent | RSS MB | V8 heap used / total MB | queue depth (end / max) | service CPU | load avg (1 min) |'
    console.log(header)
    console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
    let lastCpu = await scrape()
    const closeWindow = async () => {
      const w = window
      window = newWindow()
      minute++
      const s = await scrape().catch(() => undefined)
      const secs = (performance.now() - w.start) / 1000
      const sum = (k: keyof Omit<OpStats, 'latencies'>) => OPS.reduce((n, op) => n + w.ops[op][k], 0)
      for (const op of OPS) {
        byOp[op].latencies.push(...w.ops[op].latencies)
        for (const k of ['ok', 's429', 's5xx', 's4xx', 'network'] as const) byOp[op][k] += w.ops[op][k]
      }
      totals.offered += w.offered
      totals.notSent += w.notSent
      const cpu = s && Number.isFinite(s.cpu) ? `${((100 * (s.cpu - lastCpu.cpu)) / ((s.t - lastCpu.t) / 1000)).toFixed(0)}%` : '?'
      if (s) lastCpu = s
      const row = `| ${rows.length + 1} | ${(w.offered / secs).toFixed(1)} | ${(sum('ok') / secs).toFixed(1)} | ${p99(w.ops.append.latencies).toFixed(0)} | ${p99(w.ops.summary.latencies).toFixed(0)} | ${p99(w.ops.compact.latencies).toFixed(0)} | ${sum('s429')} | ${sum('s5xx')} | ${sum('s4xx')} | ${sum('network')} | ${w.notSent} | ${s ? s.rss.toFixed(0) : '?'} | ${s ? `${s.heap.toFixed(0)} / ${s.heapTotal.toFixed(0)}` : '?'} | ${s ? s.queue : '?'} / ${Math.max(w.queueMax, s?.queue ?? 0)} | ${cpu} | ${os.loadavg()[0]!.toFixed(1)} |`
      rows.push(row)
      console.log(row)
    }
    await new Promise<void>((resolve) => {
      const tick = setInterval(() => {
        const now = performance.now()
        const elapsed = (now - soakStart) / 1000
        if (elapsed >= SOAK_SECONDS) {
          clearInterval(tick)
          resolve()
          return
        }
        if (elapsed >= (minute + 1) * MINUTE_S) void closeWindow()
        const due = Math.floor(rate! * elapsed) - issued
        for (let k = 0; k < due; k++) {
          issued++
          window.offered++
          if (inFlight >= MAX_IN_FLIGHT) {
            window.notSent++
            continue
          }
          inFlight++
          const p: Promise<void> = runOne().finally(() => {
            inFlight--
            inFlightDone.delete(p)
          })
          inFlightDone.add(p)
        }
      }, 5)
    })
    await Promise.all([...inFlightDone])
    await closeWindow()
    const soakEndRss = rssMb(svc.pid)
    clearInterval(sampler)

    // 3. Convergence.
    const tConverge = performance.now()
    const deadline = tConverge + CONVERGE_SECONDS * 1000
    const waitQueueEmpty = async (): Promise<boolean> => {
      while (performance.now() < deadline) {
        const s = await scrape()
        if (s.queue === 0) return true
        await sleep(500)
      }
      return false
    }
    const drainedAfter = (await waitQueueEmpty()) ? (performance.now() - tConverge) / 1000 : undefined
    // Below-batch evictions wait for the append that completes the batch, by design: ask for them.
    let refreshed = 0
    for (const s of sessions) {
      if (s.acked.length === 0) continue
      const r = await request('GET', `/sessions/${s.id}`)
      const v = JSON.parse(r.text) as { evictedAwaitingSummary: number }
      if (v.evictedAwaitingSummary > 0) {
        const rr = await request('POST', `/sessions/${s.id}/summary/refresh`)
        if (rr.status !== 202) failures.push(`${s.id}: refresh answered ${rr.status}`)
        refreshed++
      }
    }
    const convergedAfter = (await waitQueueEmpty()) ? (performance.now() - tConverge) / 1000 : undefined
    if (convergedAfter === undefined) failures.push(`the queue did not drain within ${CONVERGE_SECONDS} s`)
    const convergedRss = rssMb(svc.pid)
    const mem = await scrape()
    const retainedAfter = await retained()

    // API checks.
    const api = await checkSessionsApi(request, sessions)
    failures.push(...api.failures)
    const { messages: messagesTotal, summaries, checkpoints: checkpointsTotal } = api
    const metrics = (await scrape()).text
    const gaveUp = metricValue(metrics, 'compactd_summary_updates_gave_up_total')
    const failedInQueue = metricValue(metrics, 'compactd_summary_queue_failed')
    const updatesFailed = metricSum(metrics, 'compactd_summary_updates_failed_total')
    const updatesCompleted = metricSum(metrics, 'compactd_summary_updates_completed_total')
    const emergency = metricValue(metrics, 'compactd_summary_emergency_truncations_total')
    if (gaveUp > 0) failures.push(`${gaveUp} summary updates given up`)
    if (failedInQueue > 0) failures.push(`${failedInQueue} queue entries failed`)
    await http.close()

    // Graceful stop, then the database.
    const exitCode = await svc.stop()
    service = undefined
    if (exitCode !== 0) failures.push(`the service exited with ${exitCode} on SIGTERM`)
    const logText = fs.readFileSync(logFile, 'utf8')
    const errorLogs = logText.split('\n').filter((l) => /"level":(50|60)/.test(l))
    if (errorLogs.length > 0) failures.push(`${errorLogs.length} error lines in the service log, first: ${errorLogs[0]!.slice(0, 400)}`)
    const checkDb = database ?? (await openDatabase({ pgliteDataDir: pgliteDir! }))
    try {
      failures.push(...(await checkSessionsDb(checkDb.db, sessions)))
    } finally {
      if (!database) await checkDb.close()
    }

    // Report.
    const minutes = rows.length
    const all = (k: keyof Omit<OpStats, 'latencies'>) => OPS.reduce((n, op) => n + byOp[op][k], 0)
    console.log(`\nWhole soak (${SOAK_SECONDS} s, ${minutes} windows): ${totals.offered} requests offered, ${all('ok')} 2xx, 429: ${all('s429')}, 5xx: ${all('s5xx')}, other 4xx: ${all('s4xx')}, network: ${all('network')}, not sent (driver backlog): ${totals.notSent}`)
    for (const op of OPS.filter((o) => MIX[o] > 0)) {
      const o = byOp[op]
      console.log(`- ${op}: ${o.ok} 2xx, p99 ${p99(o.latencies).toFixed(0)} ms over the soak; 429: ${o.s429}, 5xx: ${o.s5xx}, other 4xx: ${o.s4xx}, network: ${o.network}`)
    }
    for (const [key, e] of errorSamples) console.log(`  non-2xx (whole run, peak phase included): ${key} × ${e.count}, e.g. ${e.first.map((t) => JSON.stringify(t)).join(' | ')}`)
    console.log(
      `retained (V8 heap used after a full GC): before the soak ${retainedBefore.heap.toFixed(0)} MB (RSS ${retainedBefore.rss.toFixed(0)} MB), after it ${retainedAfter.heap.toFixed(0)} MB (RSS ${retainedAfter.rss.toFixed(0)} MB)`,
    )
    console.log(`memory after convergence: V8 heap used ${mem.heap.toFixed(0)} MB of ${mem.heapTotal.toFixed(0)} MB, external ${mem.external.toFixed(0)} MB, RSS ${mem.rss.toFixed(0)} MB`)
    const queues = samples.map((s) => s.queue).filter((q) => Number.isFinite(q))
    console.log(`RSS (VmRSS): after start-up ${startedRss.rss.toFixed(0)} MB, soak start ${soakStartRss.rss.toFixed(0)} MB, soak end ${soakEndRss.rss.toFixed(0)} MB, after convergence ${convergedRss.rss.toFixed(0)} MB; peak (VmHWM) ${convergedRss.hwm.toFixed(0)} MB`)
    console.log(`queue depth: max ${Math.max(0, ...queues)} over the run`)
    console.log(
      `convergence: queue empty ${drainedAfter !== undefined ? `${drainedAfter.toFixed(1)} s` : 'not reached'} after the load stopped; ${refreshed} sessions below their batch refreshed; converged ${convergedAfter !== undefined ? `${convergedAfter.toFixed(1)} s` : 'not reached'} after the load stopped`,
    )
    console.log(
      `end state: ${sessions.filter((s) => s.acked.length > 0).length} sessions, ${messagesTotal} messages, ${summaries} with a summary, ${checkpointsTotal} checkpoints; updates completed ${updatesCompleted}, failed attempts ${updatesFailed}, given up ${gaveUp}, emergency truncations ${emergency}; error log lines ${errorLogs.length}`,
    )
    if (failures.length === 0) console.log('\nINVARIANTS OK: every session converged, every acknowledged message stored in order, byte for byte; queue empty; nothing failed.')
    else {
      console.log(`\nINVARIANTS FAILED (${failures.length}):`)
      for (const f of failures.slice(0, 50)) console.log(`- ${f}`)
      if (failures.length > 50) console.log(`- … ${failures.length - 50} more`)
      process.exitCode = 1
    }
  } catch (err) {
    process.exitCode = 1
    throw err
  } finally {
    process.off('SIGINT', onSignal)
    await cleanup()
    database = undefined
    if (failures.length === 0 && process.exitCode !== 1) fs.rmSync(work, { recursive: true, force: true })
    else {
      if (pgliteDir) fs.rmSync(pgliteDir, { recursive: true, force: true })
      console.log(`service log kept: ${logFile}`)
    }
  }
}
