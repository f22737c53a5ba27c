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
 * 2. Soak: an open loop at SOAK_LOAD (0.8) × peak for SOAK_SECONDS (300), the same mix:
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
import { spawn, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { sql } from 'kysely'
import { Pool } from 'undici'
import { openDatabase, type DatabaseHandle } from '../../src/db/database.ts'
import { createTestDatabase, postgresAvailable } from '../helpers/databases.ts'
import { exchange, type Message } from '../helpers/session-conversations.ts'
import { syntheticConversation } from './conversation.ts'
import { freePort } from './sessions.ts'

const ROOT = path.resolve(import.meta.dirname, '../..')
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
/** Open loop: requests beyond this many in flight are not sent (and counted). */
const MAX_IN_FLIGHT = 512
const APPEND_ATTEMPTS = 8

type Op = 'append' | 'summary' | 'compact'
const OPS: Op[] = ['append', 'summary', 'compact']

function parseMix(s: string): Record<Op, number> {
  const mix: Record<Op, number> = { append: 0, summary: 0, compact: 0 }
  for (const part of s.split(',')) {
    const [k, v] = part.split(':')
    if (!OPS.includes(k as Op) || !(Number(v) >= 0)) throw new Error(`SOAK_MIX: bad entry ${JSON.stringify(part)}`)
    mix[k as Op] = Number(v)
  }
  return mix
}
const MIX = parseMix(process.env.SOAK_MIX ?? 'append:5,summary:4,compact:1')

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const sha1 = (s: string) => createHash('sha1').update(s).digest('hex')

/** Deterministic pseudo-random numbers (the run is repeatable up to timing). */
function rng(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

// ---------------------------------------------------------------------------
// The service under test

interface Service {
  origin: string
  pid: number
  child: ChildProcess
  logFile: string
  exited: Promise<number | null>
  stop(): Promise<number | null>
}

async function startService(env: Record<string, string>, logFile: string): Promise<Service> {
  const port = await freePort()
  const log = fs.openSync(logFile, 'a')
  // As the sessions bench's worker node does: src/server.ts through tsx, so the service is
  // whatever the checkout holds, without a build step.
  const child = spawn(process.execPath, ['--expose-gc', '--import', path.join(import.meta.dirname, 'gc-on-signal.mjs'), '--import', 'tsx', 'src/server.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH!, PORT: String(port), LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '1000000000', DOCS_ENABLED: 'false', ...env },
    stdio: ['ignore', log, log],
  })
  fs.closeSync(log)
  let dead = false
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => ((dead = true), resolve(code))))
  const origin = `http://127.0.0.1:${port}`
  for (let i = 0; ; i++) {
    if (await fetch(`${origin}/readyz`).then((r) => r.ok, () => false)) break
    if (dead || i > 600) throw new Error(`the service did not start (log: ${logFile})`)
    await sleep(100)
  }
  return {
    origin,
    pid: child.pid!,
    child,
    logFile,
    exited,
    stop: async () => {
      if (!dead) child.kill('SIGTERM') // graceful: drains requests and running updates
      return exited
    },
  }
}

function rssMb(pid: number): { rss: number; hwm: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN)
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 }
}

function metricValue(text: string, name: string): number {
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.eE+-]+)$`, 'm').exec(text)
  return m ? Number(m[1]) : NaN
}

function metricSum(text: string, name: string): number {
  let sum = 0
  for (const m of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.eE+-]+)$`, 'gm'))) sum += Number(m[1])
  return sum
}

// ---------------------------------------------------------------------------
// The driver's model of each session

interface SessionState {
  id: string
  busyAppend: boolean
  busyCompact: boolean
  /** Exchange being sent, and which of its chunks is next. */
  exchange: number
  chunks: Message[][]
  chunk: number
  appendNo: number
  /** sha1 of each message acknowledged (2xx), in order: index = seq - 1. */
  acked: string[]
  compactsAcked: number
  /** An append or a compaction whose outcome the driver could not learn. */
  unknown: string[]
  /** Responses that contradicted the driver's model. */
  wrong: string[]
}

/** An exchange, sent whole or turn by turn (tool calls always with their results). */
function chunksOf(session: number, k: number): Message[][] {
  const messages = exchange(k, { parallel: k % 3 === 0 ? 2 : 1, padding: 4 + ((k * 7 + session) % 24), fail: k % 2 === 0 })
  const calls = 1 + (k % 3 === 0 ? 2 : 1) // assistant + its results
  switch ((session + k) % 3) {
    case 0:
      return [messages]
    case 1:
      return [messages.slice(0, 1), messages.slice(1, 1 + calls), messages.slice(1 + calls)]
    default:
      return [messages.slice(0, 1 + calls), messages.slice(1 + calls)]
  }
}

// ---------------------------------------------------------------------------
// Statistics

interface OpStats {
  latencies: number[]
  ok: number
  s429: number
  s5xx: number
  s4xx: number
  network: number
}
const emptyOp = (): OpStats => ({ latencies: [], ok: 0, s429: 0, s5xx: 0, s4xx: 0, network: 0 })

interface Window {
  start: number
  offered: number
  notSent: number
  ops: Record<Op, OpStats>
  queueMax: number
}
const newWindow = (): Window => ({ start: performance.now(), offered: 0, notSent: 0, ops: { append: emptyOp(), summary: emptyOp(), compact: emptyOp() }, queueMax: 0 })

function p99(xs: number[]): number {
  if (xs.length === 0) return NaN
  const s = Float64Array.from(xs).sort()
  return s[Math.min(s.length - 1, Math.ceil(0.99 * s.length) - 1)]!
}

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

    // Sessions: a quarter with a 10-message window and batchSize 1.
    const sessions: SessionState[] = Array.from({ length: SESSIONS }, (_, i) => ({
      id: `soak-${i}`,
      busyAppend: false,
      busyCompact: false,
      exchange: 0,
      chunks: chunksOf(i, 0),
      chunk: 0,
      appendNo: 0,
      acked: [],
      compactsAcked: 0,
      unknown: [],
      wrong: [],
    }))
    for (let i = 0; i < SESSIONS; i += 4) {
      const r = await request('PUT', `/sessions/${sessions[i]!.id}`, { format: 'openai', windowMessages: 10, batchSize: 1 })
      if (r.status !== 201) throw new Error(`PUT session: ${r.status} ${r.text}`)
    }

    // /compact bodies: agent conversations of 80, 140 and 200 messages.
    const compactBodies = [80, 140, 200].map((n) => ({ model: 'gpt-4o', targetTokens: 3_000, keepRecent: 6, messages: syntheticConversation(n) }))

    let window = newWindow()
    const random = rng(7)
    const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)]!
    const mixTotal = OPS.reduce((n, op) => n + MIX[op], 0)
    const chooseOp = (): Op => {
      let x = random() * mixTotal
      for (const op of OPS) if ((x -= MIX[op]) < 0) return op
      return 'summary'
    }
    const record = (op: Op, ms: number, status: number | 'network') => {
      const s = window.ops[op]
      s.latencies.push(ms)
      if (status === 'network') s.network++
      else if (status >= 200 && status < 300) s.ok++
      else if (status === 429) s.s429++
      else if (status >= 500) s.s5xx++
      else s.s4xx++
    }
    /** The first few non-2xx answers per operation and status, printed at the end. */
    const errorSamples = new Map<string, { count: number; first: string[] }>()
    const sampleError = (op: Op, status: number | 'network', text: string) => {
      const key = `${op} ${status}`
      const e = errorSamples.get(key) ?? { count: 0, first: [] }
      e.count++
      if (e.first.length < 3) e.first.push(text.slice(0, 300))
      errorSamples.set(key, e)
    }
    const timed = async (op: Op, fn: () => Promise<{ status: number; headers: Record<string, unknown>; text: string }>) => {
      const t0 = performance.now()
      try {
        const r = await fn()
        record(op, performance.now() - t0, r.status)
        if (r.status < 200 || r.status >= 300) sampleError(op, r.status, r.text)
        return r
      } catch (err) {
        record(op, performance.now() - t0, 'network')
        sampleError(op, 'network', String(err))
        return { status: 0, headers: {}, text: String(err) }
      }
    }

    const append = async (s: SessionState) => {
      s.busyAppend = true
      try {
        const messages = s.chunks[s.chunk]!
        const body = JSON.stringify({ messages })
        const key = `${s.id}-append-${s.appendNo}`
        for (let attempt = 0; ; attempt++) {
          const r = await timed('append', () => request('POST', `/sessions/${s.id}/messages`, body, { 'idempotency-key': key }))
          if (r.status === 200) {
            const res = JSON.parse(r.text) as { firstSeq: number; lastSeq: number; messageCount: number }
            const expected = s.acked.length + 1
            if (res.firstSeq !== expected || res.lastSeq !== expected + messages.length - 1 || res.messageCount !== res.lastSeq) {
              s.wrong.push(`append ${key}: seqs ${res.firstSeq}..${res.lastSeq} (count ${res.messageCount}), expected ${expected}..${expected + messages.length - 1}`)
            }
            for (const m of messages) s.acked.push(sha1(JSON.stringify(m)))
            break
          }
          if (r.status !== 0 && r.status !== 429 && r.status < 500) {
            s.wrong.push(`append ${key}: ${r.status} ${r.text.slice(0, 300)}`)
            s.unknown.push(key) // a 4xx appends nothing, but the driver's model is off from here
            break
          }
          if (attempt + 1 >= APPEND_ATTEMPTS) {
            s.unknown.push(`${key} (${APPEND_ATTEMPTS} attempts, last ${r.status || r.text.slice(0, 200)})`)
            break
          }
          await sleep(Math.min(5_000, 100 * 2 ** attempt))
        }
        s.appendNo++
        if (++s.chunk === s.chunks.length) {
          s.exchange++
          s.chunks = chunksOf(Number(s.id.slice(5)), s.exchange)
          s.chunk = 0
        }
      } finally {
        s.busyAppend = false
      }
    }

    const readSummary = async (s: SessionState) => {
      const r = await timed('summary', () => request('GET', `/sessions/${s.id}/summary`))
      if (r.status === 200) {
        const v = JSON.parse(r.text) as { tokens: number; budget: number; degraded: boolean }
        if (v.tokens > v.budget) s.wrong.push(`summary over budget: ${v.tokens} > ${v.budget}`)
      }
    }

    const compact = async (s: SessionState) => {
      s.busyCompact = true
      try {
        const body = { ...pick(compactBodies), sessionId: s.id }
        const r = await timed('compact', () => request('POST', '/compact', body))
        if (r.status === 200) {
          const res = JSON.parse(r.text) as { compacted: boolean; checkpoint?: { checkpointNum: number } }
          if (res.compacted) {
            s.compactsAcked++
            if (res.checkpoint?.checkpointNum !== s.compactsAcked) s.wrong.push(`compact: checkpoint ${res.checkpoint?.checkpointNum}, expected ${s.compactsAcked}`)
          }
        } else if (r.status === 0) s.unknown.push(`compact (network: ${r.text.slice(0, 200)})`)
      } finally {
        s.busyCompact = false
      }
    }

    /** One operation of the mix, on a session free for it (appends: one in flight per session). */
    const runOne = async (): Promise<void> => {
      const op = chooseOp()
      for (let tries = 0; tries < 20; tries++) {
        const s = pick(sessions)
        if (op === 'append' && !s.busyAppend) return append(s)
        if (op === 'summary' && s.acked.length > 0) return readSummary(s)
        if (op === 'compact' && !s.busyCompact) return compact(s)
      }
      // Early on few sessions hold messages: append instead.
      const free = sessions.find((s) => !s.busyAppend)
      if (free) return append(free)
    }

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
      for (const op of OPS) {
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
    const byOp: Record<Op, OpStats> = { append: emptyOp(), summary: emptyOp(), compact: emptyOp() }
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
    let messagesTotal = 0
    let summaries = 0
    let checkpointsTotal = 0
    for (const s of sessions) {
      for (const w of s.wrong) failures.push(`${s.id}: ${w}`)
      for (const u of s.unknown) failures.push(`${s.id}: outcome unknown: ${u}`)
      messagesTotal += s.acked.length
      checkpointsTotal += s.compactsAcked
      if (s.acked.length > 0) {
        const r = await request('GET', `/sessions/${s.id}`)
        if (r.status !== 200) {
          failures.push(`${s.id}: GET session ${r.status}`)
          continue
        }
        const v = JSON.parse(r.text) as {
          messageCount: number
          windowMessages: number
          systemMessages: number
          evictedAwaitingSummary: number
          summarizedMessages: number
          summary: unknown
          update: unknown
        }
        if (v.messageCount !== s.acked.length) failures.push(`${s.id}: messageCount ${v.messageCount}, the driver got 2xx for ${s.acked.length}`)
        if (v.evictedAwaitingSummary !== 0) failures.push(`${s.id}: ${v.evictedAwaitingSummary} messages evicted awaiting summary`)
        if (v.update !== null) failures.push(`${s.id}: update still queued: ${JSON.stringify(v.update)}`)
        if (v.windowMessages + v.summarizedMessages + v.systemMessages !== v.messageCount)
          failures.push(`${s.id}: window ${v.windowMessages} + summarized ${v.summarizedMessages} + system ${v.systemMessages} != ${v.messageCount}`)
        if (v.summarizedMessages > 0 && v.summary === null) failures.push(`${s.id}: ${v.summarizedMessages} summarized messages but no summary`)
        const sr = await request('GET', `/sessions/${s.id}/summary`)
        const sv = JSON.parse(sr.text) as { stale: boolean; degraded: boolean; tokens: number; budget: number; version: number }
        if (sr.status !== 200 || sv.stale || sv.degraded || sv.tokens > sv.budget) failures.push(`${s.id}: summary ${sr.status} stale=${sv.stale} degraded=${sv.degraded} tokens ${sv.tokens}/${sv.budget}`)
        if (sv.version > 0) summaries++
      }
      if (s.compactsAcked > 0) {
        const r = await request('GET', `/sessions/${s.id}/checkpoints?limit=1`)
        const latest = r.status === 200 ? (JSON.parse(r.text) as { items: { checkpointNum: number }[] }).items[0]?.checkpointNum : undefined
        if (latest !== s.compactsAcked) failures.push(`${s.id}: latest checkpoint ${latest} (${r.status}), the driver got 2xx for ${s.compactsAcked} compactions`)
      }
    }
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
      const db = checkDb.db
      for (const s of sessions) {
        const rows = await sql<{ seq: number; raw: string; status: string }>`
          select seq, raw::text as raw, status from session_messages where session_id = ${s.id} order by seq`.execute(db)
        if (rows.rows.length !== s.acked.length) failures.push(`${s.id}: ${rows.rows.length} messages stored, ${s.acked.length} acknowledged`)
        const misplaced = rows.rows.findIndex((r, i) => r.seq !== i + 1 || sha1(r.raw) !== s.acked[i])
        if (misplaced >= 0) failures.push(`${s.id}: stored message ${misplaced + 1} (seq ${rows.rows[misplaced]!.seq}) is not the message sent at that position`)
        const evicted = rows.rows.filter((r) => r.status === 'evicted').map((r) => r.seq)
        if (evicted.length > 0) failures.push(`${s.id}: ${evicted.length} messages still evicted (seq ${evicted[0]}..${evicted.at(-1)})`)
      }
      const q = await sql<{ n: number }>`select count(*)::int as n from summary_update_queue`.execute(db)
      if (q.rows[0]!.n !== 0) failures.push(`summary_update_queue holds ${q.rows[0]!.n} entries`)
      const runs = await sql<{ n: number }>`select count(*)::int as n from summary_update_runs where finished_at is null`.execute(db)
      if (runs.rows[0]!.n !== 0) failures.push(`${runs.rows[0]!.n} summary_update_runs unfinished`)
    } finally {
      if (!database) await checkDb.close()
    }

    // Report.
    const minutes = rows.length
    const all = (k: keyof Omit<OpStats, 'latencies'>) => OPS.reduce((n, op) => n + byOp[op][k], 0)
    console.log(`\nWhole soak (${SOAK_SECONDS} s, ${minutes} windows): ${totals.offered} requests offered, ${all('ok')} 2xx, 429: ${all('s429')}, 5xx: ${all('s5xx')}, other 4xx: ${all('s4xx')}, network: ${all('network')}, not sent (driver backlog): ${totals.notSent}`)
    for (const op of OPS) {
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
