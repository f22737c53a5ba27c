/**
 * Compute pool benchmarks (issue 11).
 *
 * `npm run bench -- pool`: the service in child processes (`node --import tsx
 * src/server.ts`), one per target, so each one's RSS is its own (VmRSS sampled, VmHWM at
 * the end): COMPUTE_THREADS=0 (everything on the event loop: the behaviour before the
 * pool, the baseline) and the default pool, on PGlite and on PostgreSQL. Targets run in
 * interleaved rounds; per target and round:
 *   - idle: GET /healthz and GET /sessions/:id/summary at a fixed rate (PROBE_RATE/s each);
 *   - busy: the same probes while 4 clients POST /compact back to back on the largest
 *     fixture (pinion 04, ~194k tokens), the /compact figures of that run included;
 *   - /compact alone at 1, 2 and 4 connections.
 *
 * `npm run bench -- pool-threshold`: where COMPUTE_INLINE_MAX_BYTES comes from. In this
 * process, conversations of growing size compacted inline and through an idle pool of
 * one thread: the inline time (what the event loop is blocked for), the pool's round
 * trip, and what the event loop itself spends on a pooled task (the structured clones of
 * the input and of the result).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { testConfig } from '../../src/config.ts'
import { ComputePool } from '../../src/plugins/compute-pool.ts'
import { runInline } from '../../src/use-cases/compute.ts'
import { postgresAvailable, TEST_DATABASE_URL } from '../helpers/databases.ts'
import { CONVERSATIONS as FIXTURES } from '../helpers/fixtures.ts'
import { syntheticConversation, type ChatMessage } from './conversation.ts'
import { largestConversation } from './engine.ts'
import { BENCH_DURATION_S, load, type LoadResult } from './http.ts'
import { freePort, runChild, type ChildResult } from './sessions.ts'

const ROOT = path.resolve(import.meta.dirname, '../..')
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
/** Offered rate of each latency probe (/healthz, the summary read), requests per second. */
const PROBE_RATE = Number(process.env.BENCH_PROBE_RATE ?? 20)
const SESSIONS = 20
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length)

/** The fixture with the most tokens: pinion 04 (≈194k o200k tokens); else the engine bench's largest. */
export function largestByTokens(): { name: string; messages: ChatMessage[] } {
  const name = 'pinion05__agent-complex-task__04-awesome-agent-ide.json'
  const file = path.join(FIXTURES, name)
  if (fs.existsSync(file)) return { name, messages: (JSON.parse(fs.readFileSync(file, 'utf8')) as { messages: ChatMessage[] }).messages }
  return largestConversation()
}

// ---------------------------------------------------------------------------
// Child processes: the service, and autocannon (load-child.mjs)



export interface Service {
  name: string
  origin: string
  pid: number
  child: ChildProcess
  stop(): Promise<void>
}

export async function startService(name: string, env: Record<string, string>): Promise<Service> {
  const port = await freePort()
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH!, PORT: String(port), LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '1000000000', DOCS_ENABLED: 'false', WORKERS: '0', BODY_LIMIT_BYTES: String(50 * 1024 * 1024), ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  let dead = false
  const exited = new Promise<void>((resolve) => child.on('exit', () => ((dead = true), resolve())))
  const origin = `http://127.0.0.1:${port}`
  for (let i = 0; ; i++) {
    if (await fetch(`${origin}/readyz`).then((r) => r.ok, () => false)) break
    if (dead || i > 600) throw new Error(`${name}: the service did not start`)
    await sleep(100)
  }
  return {
    name,
    origin,
    pid: child.pid!,
    child,
    stop: async () => {
      if (!dead) child.kill('SIGTERM')
      await exited
    },
  }
}

function memoryMb(pid: number): { rss: number; hwm: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN)
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 }
}

/** Samples the service's RSS every 100 ms while `fn` runs; returns fn's result and the highest sample. */
async function withPeakRss<T>(pid: number, fn: () => Promise<T>): Promise<{ value: T; peakMb: number }> {
  let peak = memoryMb(pid).rss
  const timer = setInterval(() => {
    peak = Math.max(peak, memoryMb(pid).rss)
  }, 100)
  try {
    const value = await fn()
    return { value, peakMb: Math.max(peak, memoryMb(pid).rss) }
  } finally {
    clearInterval(timer)
  }
}

/** Sessions with a summary written by hand (PUT …/summary): what the read returns. */
async function seedSessions(origin: string): Promise<string[]> {
  const ids = Array.from({ length: SESSIONS }, (_, i) => `pool-bench-${i}`)
  const put = async (url: string, body: unknown) => {
    const res = await fetch(`${origin}${url}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    if (res.status >= 300) throw new Error(`seed ${url}: ${res.status} ${await res.text()}`)
  }
  for (const id of ids) {
    await put(`/sessions/${id}`, {})
    await put(`/sessions/${id}/summary`, { content: `## Previously in This Session\n- Fixed the failing test in src/${id}.ts (the off-by-one in the total).\n- Ran npm test: 42 passed.\n` })
  }
  return ids.map((id) => `/sessions/${id}/summary`)
}

interface Target {
  name: string
  backend: 'PGlite' | 'PostgreSQL'
  threads: string
  service: Service
  summaryPaths: string[]
}

interface RoundResult {
  idleHealth: ChildResult
  idleSummary: ChildResult
  busyHealth: ChildResult
  busySummary: ChildResult
  busyCompact: LoadResult
  compact: Record<1 | 2 | 4, LoadResult>
  peakRssMb: number
}

async function measure(t: Target, body: unknown): Promise<RoundResult> {
  const { origin } = t.service
  const probe = (paths: string[]) => runChild({ origin, paths, method: 'GET', connections: 2, duration: BENCH_DURATION_S, overallRate: PROBE_RATE })
  // autocannon's CLI (the body is too large for load-child's argv).
  const compactLoad = (connections: number, duration = BENCH_DURATION_S) => load(`${connections} conns`, `${origin}/compact`, body, { connections, duration })
  const [idleHealth, idleSummary] = await Promise.all([probe(['/healthz']), probe(t.summaryPaths)])
  const { value, peakMb } = await withPeakRss(t.service.pid, async () => {
    // Busy: 4 clients compact for the whole probe window (they start 1 s before it).
    const load = compactLoad(4, BENCH_DURATION_S + 2)
    await sleep(1000)
    const [busyHealth, busySummary] = await Promise.all([probe(['/healthz']), probe(t.summaryPaths)])
    const busyCompact = await load
    const compact = { 1: await compactLoad(1), 2: await compactLoad(2), 4: await compactLoad(4) }
    return { busyHealth, busySummary, busyCompact, compact }
  })
  return { idleHealth, idleSummary, ...value, peakRssMb: peakMb }
}

export async function benchComputePool(): Promise<void> {
  const { name, messages } = largestByTokens()
  const body = { model: 'gpt-4o', messages, strategy: 'rules', targetTokens: 18_000 }
  const bytes = JSON.stringify(body).length
  // BENCH_POOL_BACKENDS=pglite,postgres; BENCH_POOL_MODES=0,2 (threads, optionally :nice, e.g. 2:0);
  // BENCH_TOKEN_CACHE: TOKEN_CACHE_ENTRIES of the services (default 0: every request does
  // the whole count, as before the cache; repeated bodies would otherwise be cache hits).
  const wanted = (process.env.BENCH_POOL_BACKENDS ?? 'pglite,postgres').split(',')
  const modes = (process.env.BENCH_POOL_MODES ?? `0,${os.availableParallelism()}`).split(',')
  const cacheEntries = process.env.BENCH_TOKEN_CACHE ?? '0'
  const backends: { backend: Target['backend']; env: Record<string, string> }[] = []
  if (wanted.includes('pglite')) backends.push({ backend: 'PGlite', env: { PGLITE_DATA_DIR: 'memory://' } })
  const databases: string[] = []
  if (wanted.includes('postgres') && (await postgresAvailable())) backends.push({ backend: 'PostgreSQL', env: {} })
  const targets: Target[] = []
  for (const b of backends) {
    for (const mode of modes) {
      const [threads, nice] = mode.split(':')
      const env: Record<string, string> = { ...b.env, COMPUTE_THREADS: threads!, TOKEN_CACHE_ENTRIES: cacheEntries, ...(nice !== undefined ? { COMPUTE_THREAD_NICE: nice } : {}) }
      if (b.backend === 'PostgreSQL') {
        const db = `compactd_bench_pool_${process.pid}_${mode.replace(':', '_')}`
        await admin(`drop database if exists ${db}`)
        await admin(`create database ${db}`)
        databases.push(db)
        const u = new URL(TEST_DATABASE_URL)
        u.pathname = `/${db}`
        Object.assign(env, { DATABASE_URL: u.toString() })
      }
      const label = `${b.backend}, ${threads === '0' ? 'COMPUTE_THREADS=0 (event loop: before)' : `pool of ${threads} threads${nice !== undefined ? `, nice +${nice}` : ''} (after)`}`
      const service = await startService(label, env)
      targets.push({ name: label, backend: b.backend, threads: threads!, service, summaryPaths: await seedSessions(service.origin) })
    }
  }
  const startRss = new Map(targets.map((t) => [t, memoryMb(t.service.pid).rss]))
  // Warm-up: every target compacts for 3 s (JIT, the tokenizer's tables in every thread).
  for (const t of targets) await load('warm-up', `${t.service.origin}/compact`, body, { connections: 4, duration: 3 })

  console.log(
    `\n## Compute pool: ${name} (${bytes} bytes), rules to 18k tokens; ${os.cpus().length} cores, ${ROUNDS} interleaved rounds of ${BENCH_DURATION_S} s runs, averaged; probes at ${PROBE_RATE} req/s each, 2 connections; TOKEN_CACHE_ENTRIES=${cacheEntries}; load average at the start ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}\n`,
  )
  const results = new Map<Target, RoundResult[]>(targets.map((t) => [t, []]))
  for (let r = 0; r < ROUNDS; r++) {
    for (const t of targets) {
      results.get(t)!.push(await measure(t, body))
      process.stderr.write(`round ${r + 1}/${ROUNDS}: ${t.name} done\n`)
    }
  }
  const ends = targets.map((t) => ({ t, hwm: memoryMb(t.service.pid).hwm }))
  for (const t of targets) await t.service.stop()
  for (const db of databases) await admin(`drop database if exists ${db}`).catch(() => {})

  const avg = (t: Target, pick: (r: RoundResult) => number) => mean(results.get(t)!.map(pick))
  console.log('### Latency of /healthz and the summary read while 4 clients compact (fixed rate)\n')
  console.log('| target | /healthz idle p99 ms | /healthz busy p50 ms | /healthz busy p99 ms | summary idle p99 ms | summary busy p50 ms | summary busy p99 ms | /compact req/s meanwhile | non-2xx |')
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|')
  for (const t of targets) {
    const bad = results.get(t)!.reduce((n, r) => n + [r.idleHealth, r.idleSummary, r.busyHealth, r.busySummary, r.busyCompact].reduce((m, x) => m + x.non2xx + x.errors, 0), 0)
    console.log(
      `| ${t.name} | ${avg(t, (r) => r.idleHealth.p99Ms).toFixed(1)} | ${avg(t, (r) => r.busyHealth.p50Ms).toFixed(1)} | ${avg(t, (r) => r.busyHealth.p99Ms).toFixed(1)} | ${avg(t, (r) => r.idleSummary.p99Ms).toFixed(1)} | ${avg(t, (r) => r.busySummary.p50Ms).toFixed(1)} | ${avg(t, (r) => r.busySummary.p99Ms).toFixed(1)} | ${avg(t, (r) => r.busyCompact.requestsPerSec).toFixed(1)} | ${bad} |`,
    )
  }
  const perRound = (t: Target, pick: (r: RoundResult) => number) => results.get(t)!.map((r) => pick(r).toFixed(0)).join(', ')
  for (const t of targets) console.log(`\n${t.name}: /healthz busy p99 per round ${perRound(t, (r) => r.busyHealth.p99Ms)} ms; summary busy p99 per round ${perRound(t, (r) => r.busySummary.p99Ms)} ms`)

  console.log('\n### POST /compact alone: throughput by connections\n')
  console.log('| target | 1 conn req/s | p50 ms | p99 ms | 2 conns req/s | p50 ms | p99 ms | 4 conns req/s | p50 ms | p99 ms | 2 vs 1 | non-2xx |')
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
  for (const t of targets) {
    const c = (n: 1 | 2 | 4, k: 'requestsPerSec' | 'p50Ms' | 'p99Ms') => avg(t, (r) => r.compact[n][k])
    const bad = results.get(t)!.reduce((n, r) => n + [1, 2, 4].reduce((m, k) => m + r.compact[k as 1 | 2 | 4].non2xx + r.compact[k as 1 | 2 | 4].errors, 0), 0)
    console.log(
      `| ${t.name} | ${c(1, 'requestsPerSec').toFixed(2)} | ${c(1, 'p50Ms').toFixed(0)} | ${c(1, 'p99Ms').toFixed(0)} | ${c(2, 'requestsPerSec').toFixed(2)} | ${c(2, 'p50Ms').toFixed(0)} | ${c(2, 'p99Ms').toFixed(0)} | ${c(4, 'requestsPerSec').toFixed(2)} | ${c(4, 'p50Ms').toFixed(0)} | ${c(4, 'p99Ms').toFixed(0)} | ${(c(2, 'requestsPerSec') / c(1, 'requestsPerSec')).toFixed(2)}× | ${bad} |`,
    )
  }

  console.log('\n### Memory (the service process, worker threads included)\n')
  console.log('| target | RSS after start-up MB | RSS peak under load MB (sampled) | VmHWM MB |')
  console.log('|---|---:|---:|---:|')
  for (const { t, hwm } of ends) {
    console.log(`| ${t.name} | ${startRss.get(t)!.toFixed(0)} | ${Math.max(...results.get(t)!.map((r) => r.peakRssMb)).toFixed(0)} | ${hwm.toFixed(0)} |`)
  }
  console.log(`\nload average at the end: ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`)
}

async function admin(statement: string): Promise<void> {
  const pg = (await import('pg')).default
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL })
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}

// ---------------------------------------------------------------------------
// The inline threshold

/** A synthetic agent conversation of about `bytes` bytes of JSON. */
function conversationOf(bytes: number): ChatMessage[] {
  let n = 4
  let messages = syntheticConversation(n)
  while (JSON.stringify({ messages }).length < bytes) messages = syntheticConversation((n = Math.ceil(n * 1.15)))
  return messages
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}

export async function benchInlineThreshold(): Promise<void> {
  const config = testConfig()
  const pool = new ComputePool({ config, threads: 1, inlineMaxBytes: 0 })
  const sizes = [1_024, 2_048, 4_096, 8_192, 16_384, 32_768, 65_536, 131_072, 262_144]
  const runs = Number(process.env.BENCH_THRESHOLD_RUNS ?? 41)
  console.log(`\n## Inline or pool: /compact's compute task by body size (default pipeline, target 60% of the input), medians of ${runs} runs after warm-up, one idle thread\n`)
  console.log('| body bytes | messages | inline ms (event loop blocked) | pool round trip ms | trip cost ms (round trip − inline) | of which clones on the event loop ms (input out, result back) | faster |')
  console.log('|---:|---:|---:|---:|---:|---:|---|')
  // Warm both sides (JIT, tokenizer tables in the thread).
  for (let i = 0; i < 20; i++) {
    const req = { request: { messages: conversationOf(65_536), targetTokens: 2_000, force: true } }
    await runInline(config, 'compact', req)
    await pool.run('compact', req)
  }
  for (const size of sizes) {
    const messages = conversationOf(size)
    const body = { messages, force: true, targetTokens: 1 }
    // A target the conversation can reach: 60% of what the engine counts.
    const probe = await runInline(config, 'compact', { request: { ...body, dryRun: true, targetTokens: 100_000_000 } })
    const request = { ...body, targetTokens: Math.max(200, Math.floor(probe.response.event.tokensBefore * 0.6)) }
    const inline: number[] = []
    const trip: number[] = []
    const clones: number[] = []
    for (let i = 0; i < runs; i++) {
      // Each run gets a fresh copy, as a request does (its own parsed body).
      const a = { request: structuredClone(request) }
      let t0 = performance.now()
      const result = await runInline(config, 'compact', a)
      inline.push(performance.now() - t0)
      const b = { request: structuredClone(request) }
      t0 = performance.now()
      await pool.run('compact', b)
      trip.push(performance.now() - t0)
      // What the event loop itself spends on a pooled task: serializing the input, reading the result.
      t0 = performance.now()
      structuredClone(b)
      structuredClone({ ok: true, value: result })
      clones.push(performance.now() - t0)
    }
    const i = median(inline)
    const p = median(trip)
    console.log(
      `| ${JSON.stringify({ messages }).length} | ${messages.length} | ${i.toFixed(3)} | ${p.toFixed(3)} | ${(p - i).toFixed(3)} | ${median(clones).toFixed(3)} | ${i < p - i ? 'inline (the work costs less than the trip)' : 'pool'} |`,
    )
  }
  await pool.close()
  console.log(`\nload average: ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`)
}
