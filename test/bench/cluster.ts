/**
 * Cluster benchmark (issue 25): `npm run bench -- cluster`.
 *
 * N = 1, 2 and 4 instances of compactd (dist/server.js, as `npm start` runs it, each with
 * the production defaults: 2 summary workers, pool 10, the compute pool) on this machine,
 * against one fresh PostgreSQL database, directly and through PgBouncer in transaction mode
 * (when the package is installed). The load balancer is undici's BalancedPool in this
 * process, over keep-alive connections. The workload is the soak's (test/bench/mix.ts):
 * appends, summary reads, context reads and compactions, in a closed loop of
 * CLUSTER_CONNECTIONS requests in flight for CLUSTER_SECONDS after CLUSTER_WARMUP_SECONDS.
 *
 * Reported per run:
 * - throughput (2xx/s), and per CPU-second: the instances' own CPU time (/proc/<pid>/stat,
 *   threads included) and the whole machine's (PostgreSQL, PgBouncer and this driver
 *   included). On 2 cores more instances cannot add CPU: the question is what they cost;
 * - p50 and p99 per route;
 * - summary convergence: seconds from the end of the load until the queue is empty, and
 *   until every session's summary is current (sessions below their batch refreshed);
 * - PostgreSQL connections (pg_stat_activity for the database, sampled every 500 ms):
 *   the most open and the most active at once;
 * - the queue's claim latency: compactd_summary_claim_wait_seconds summed over the
 *   instances (bucket bounds of p50 and p99, and the mean).
 * Then the soak's invariants (test/bench/mix-checks.ts): every acknowledged message stored
 * once, in order, byte for byte; nothing folded twice; the queue empty; checkpoints as
 * acknowledged.
 *
 * The kill run (CLUSTER_KILL, default on): at the largest N, one instance is SIGKILLed
 * halfway through and taken out of the balancer (as a health check would). Appends whose
 * answer was lost are retried with their Idempotency-Key on another instance; a compaction
 * whose answer was lost may or may not have stored its checkpoint (counted, not guessed).
 * The dead instance's leased summary updates are claimed again once their lease expires
 * (LEASE_MS), so convergence includes that wait.
 *
 * Env: CLUSTER_SIZES (1,2,4), CLUSTER_VIA (direct,pgbouncer), CLUSTER_SECONDS (30),
 * CLUSTER_WARMUP_SECONDS (5), CLUSTER_CONNECTIONS (16), CLUSTER_SESSIONS (200),
 * CLUSTER_MIX (append:5,summary:3,context:1,compact:1), CLUSTER_KILL (true),
 * CLUSTER_BOUNCER_POOL (20: PgBouncer's server connections), CLUSTER_LEASE_MS (60000).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { BalancedPool } from 'undici'
import { createTestDatabase, postgresAvailable } from '../helpers/databases.ts'
import { pgbouncerBinary, startPgbouncer, type Bouncer } from '../helpers/pgbouncer.ts'
import { emptyOps, newSessions, OPS, quantile, parseMix, workload, type ErrorSamples, type Op, type OpStats, type Request } from './mix.ts'
import { checkSessionsApi, checkSessionsDb } from './mix-checks.ts'
import { bucketQuantile, cpuSeconds, histogramBuckets, machineCpuSeconds, metricSum, metricValue, rssMb, sleep, startService, type Service } from './service.ts'

const env = process.env
const SIZES = (env.CLUSTER_SIZES ?? '1,2,4').split(',').map(Number)
const VIA = (env.CLUSTER_VIA ?? 'direct,pgbouncer').split(',') as ('direct' | 'pgbouncer')[]
const SECONDS = Number(env.CLUSTER_SECONDS ?? 30)
const WARMUP_SECONDS = Number(env.CLUSTER_WARMUP_SECONDS ?? 5)
const CONNECTIONS = Number(env.CLUSTER_CONNECTIONS ?? 16)
const SESSIONS = Number(env.CLUSTER_SESSIONS ?? 200)
const MIX = parseMix(env.CLUSTER_MIX ?? 'append:5,summary:3,context:1,compact:1')
const KILL = env.CLUSTER_KILL !== 'false'
const BOUNCER_POOL = Number(env.CLUSTER_BOUNCER_POOL ?? 20)
const LEASE_MS = Number(env.CLUSTER_LEASE_MS ?? 60_000)
const CONVERGE_SECONDS = 120 + LEASE_MS / 1000

interface RunResult {
  label: string
  rps: number
  instanceCpuPerS: number
  machineCpuPerS: number
  perInstanceCpu: number
  ops: Record<Op, OpStats>
  drained?: number
  converged?: number
  connections: { open: number; active: number }
  claim: { p50: number; p99: number; mean: number; count: number }
  rssMax: number
  failures: string[]
  note: string
}

async function run(n: number, via: 'direct' | 'pgbouncer', kill: boolean): Promise<RunResult> {
  const label = `N=${n}, ${via}${kill ? ', one killed' : ''}`
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'compactd-cluster-'))
  const database = await createTestDatabase('postgres')
  const dbName = new URL(database.url!).pathname.slice(1)
  const bouncer: Bouncer | undefined = via === 'pgbouncer' ? await startPgbouncer({ poolSize: BOUNCER_POOL }) : undefined
  const url = bouncer ? bouncer.through(database.url!) : database.url!
  const instances: Service[] = []
  const watcher = new pg.Client({ connectionString: database.url! })
  await watcher.connect()
  let balancer: BalancedPool | undefined
  const failures: string[] = []
  let note = ''
  try {
    // Connections that are not the instances' (the check handle's pool, from its migration): subtracted.
    const before = (await watcher.query<{ n: number }>(`select count(*)::int as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()`, [dbName])).rows[0]!.n
    const serviceEnv = { DATABASE_URL: url, LEASE_MS: String(LEASE_MS) }
    // The first instance migrates the database; the others then find it current.
    instances.push(await startService(serviceEnv, path.join(work, 'instance-0.log'), { from: 'build' }))
    instances.push(...(await Promise.all(Array.from({ length: n - 1 }, (_, i) => startService(serviceEnv, path.join(work, `instance-${i + 1}.log`), { from: 'build' })))))
    const live = new Set(instances)
    balancer = new BalancedPool(
      instances.map((s) => s.origin),
      { connections: CONNECTIONS, pipelining: 1, headersTimeout: 120_000, bodyTimeout: 120_000, keepAliveTimeout: 30_000 },
    )
    const pool = balancer
    const request: Request = async (method, p, body, headers = {}) => {
      const res = await pool.request({
        method,
        path: p,
        headers: body !== undefined ? { 'content-type': 'application/json', ...headers } : headers,
        ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
      })
      return { status: res.statusCode, headers: res.headers, text: await res.body.text() }
    }
    const scrapeAll = async () => Promise.all([...live].map((s) => fetch(`${s.origin}/metrics`).then((r) => r.text())))

    const sessions = newSessions('cluster', SESSIONS)
    const errors: ErrorSamples = new Map()
    let stats = emptyOps()
    const { runOne, configure } = workload({ request, sessions, mix: MIX, seed: 11, stats: () => stats, errors, lostIsUnknown: kill })
    await configure()

    // PostgreSQL connections, sampled.
    const conn = { open: 0, active: 0 }
    const sampler = setInterval(() => {
      void watcher
        .query<{ open: number; active: number }>(
          `select count(*)::int as open, (count(*) filter (where state not in ('idle')))::int as active from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()`,
          [dbName],
        )
        .then((r) => ((conn.open = Math.max(conn.open, r.rows[0]!.open - before)), (conn.active = Math.max(conn.active, r.rows[0]!.active))))
        .catch(() => {})
    }, 500)

    const closedLoop = async (seconds: number, during?: { at: number; action: () => Promise<void> }) => {
      const t0 = performance.now()
      const until = t0 + seconds * 1000
      let fired = false
      const timer = during
        ? setTimeout(() => {
            fired = true
            void during.action()
          }, during.at * 1000)
        : undefined
      await Promise.all(
        Array.from({ length: CONNECTIONS }, async () => {
          while (performance.now() < until) await runOne()
        }),
      )
      clearTimeout(timer)
      return fired
    }
    await closedLoop(WARMUP_SECONDS)
    stats = emptyOps()
    conn.open = 0
    conn.active = 0
    const cpu0 = instances.map((s) => cpuSeconds(s.pid))
    const machine0 = machineCpuSeconds()
    const t0 = performance.now()
    let killedCpu = 0
    const victim = instances[n - 1]!
    await closedLoop(
      SECONDS,
      kill
        ? {
            at: SECONDS / 2,
            action: async () => {
              killedCpu = cpuSeconds(victim.pid) - cpu0[n - 1]!
              live.delete(victim)
              pool.removeUpstream(victim.origin)
              await victim.kill()
              note = `instance ${n - 1} (pid ${victim.pid}) SIGKILLed at ${SECONDS / 2} s`
            },
          }
        : undefined,
    )
    const secs = (performance.now() - t0) / 1000
    const instanceCpu = instances.reduce((sum, s, i) => sum + (live.has(s) ? cpuSeconds(s.pid) - cpu0[i]! : killedCpu), 0)
    const machineCpu = machineCpuSeconds() - machine0
    const rssMax = Math.max(...[...live].map((s) => rssMb(s.pid).hwm))
    const ok = OPS.reduce((sum, op) => sum + stats[op].ok, 0)
    const ops = stats

    // Convergence: the queue drains, then sessions below their batch are refreshed.
    const tEnd = performance.now()
    const deadline = tEnd + CONVERGE_SECONDS * 1000
    const queueEmpty = async () => {
      while (performance.now() < deadline) {
        const [text] = await scrapeAll()
        if (metricValue(text!, 'compactd_summary_queue_depth') === 0) return (performance.now() - tEnd) / 1000
        await sleep(250)
      }
      return undefined
    }
    const drained = await queueEmpty()
    for (const s of sessions) {
      if (s.acked.length === 0) continue
      const v = JSON.parse((await request('GET', `/sessions/${s.id}`)).text) as { evictedAwaitingSummary: number }
      if (v.evictedAwaitingSummary > 0) await request('POST', `/sessions/${s.id}/summary/refresh`)
    }
    const converged = await queueEmpty()
    if (converged === undefined) failures.push(`the queue did not drain within ${CONVERGE_SECONDS} s`)
    clearInterval(sampler)

    const texts = await scrapeAll()
    const buckets = histogramBuckets(texts, 'compactd_summary_claim_wait_seconds')
    const claimCount = texts.reduce((sum, t) => sum + metricSum(t, 'compactd_summary_claim_wait_seconds_count'), 0)
    const claimSum = texts.reduce((sum, t) => sum + metricSum(t, 'compactd_summary_claim_wait_seconds_sum'), 0)
    if (texts.some((t) => metricValue(t, 'compactd_summary_updates_gave_up_total') > 0)) failures.push('summary updates given up')

    const api = await checkSessionsApi(request, sessions)
    failures.push(...api.failures)
    // A 503 `overloaded` (or a 429) is the service shedding load as documented, not a fault: counted.
    let shed = 0
    for (const [key, e] of errors) {
      if (/ (503|429)$/.test(key) && /overloaded|rate/.test(e.first[0] ?? '')) shed += e.count
      else if (!(kill && key.endsWith('network'))) failures.push(`${key} × ${e.count}, e.g. ${e.first[0]}`)
    }
    if (shed > 0) note += `${note ? '; ' : ''}${shed} requests shed (503 overloaded)`
    for (const s of [...live]) {
      const code = await s.stop()
      if (code !== 0) failures.push(`${s.origin} exited with ${code} on SIGTERM`)
    }
    live.clear()
    for (const s of instances) {
      const errorLines = fs.readFileSync(s.logFile, 'utf8').split('\n').filter((l) => /"level":(50|60)/.test(l))
      if (errorLines.length > 0) failures.push(`${errorLines.length} error lines in ${s.logFile}, first: ${errorLines[0]!.slice(0, 300)}`)
    }
    failures.push(...(await checkSessionsDb(database.db, sessions, { unfinishedRunsAllowed: kill })))
    const lost = sessions.reduce((sum, s) => sum + s.compactsUnknown, 0)
    if (kill) note += `; ${lost} compaction answers lost, ${errors.get('append network')?.count ?? 0} appends retried after a network error`
    return {
      label,
      rps: ok / secs,
      instanceCpuPerS: instanceCpu / secs,
      machineCpuPerS: machineCpu / secs,
      perInstanceCpu: ok / instanceCpu,
      ops,
      ...(drained !== undefined ? { drained } : {}),
      ...(converged !== undefined ? { converged } : {}),
      connections: conn,
      claim: { p50: bucketQuantile(buckets, 0.5), p99: bucketQuantile(buckets, 0.99), mean: claimCount ? claimSum / claimCount : NaN, count: claimCount },
      rssMax,
      failures,
      note,
    }
  } finally {
    await balancer?.close().catch(() => {})
    await Promise.all(instances.map((s) => s.kill()))
    await watcher.end().catch(() => {})
    await bouncer?.stop()
    await database.close()
    if (failures.length === 0) fs.rmSync(work, { recursive: true, force: true })
    else console.log(`(${label}: logs kept in ${work})`)
  }
}

const ms = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : '–')
const bound = (x: number) => (x === Infinity ? '> 300' : Number.isFinite(x) ? `≤ ${x}` : '–')

export async function benchCluster(): Promise<void> {
  if (!(await postgresAvailable())) throw new Error('cluster: PostgreSQL is not reachable')
  const vias = VIA.filter((v) => v === 'direct' || pgbouncerBinary())
  if (vias.length < VIA.length) console.log('(pgbouncer is not installed: the runs through it are skipped; apt-get install pgbouncer)')
  console.log(
    `\n## Cluster (issue 25): ${SIZES.join(', ')} instances on one PostgreSQL, ${vias.join(' and ')}; ${CONNECTIONS} requests in flight through undici's BalancedPool for ${SECONDS} s after ${WARMUP_SECONDS} s; ${SESSIONS} sessions; mix ${JSON.stringify(MIX)}; ${os.cpus().length} cores\n`,
  )
  const results: RunResult[] = []
  const runs: [number, 'direct' | 'pgbouncer', boolean][] = []
  for (const via of vias) {
    for (const n of SIZES) runs.push([n, via, false])
    if (KILL && Math.max(...SIZES) > 1) runs.push([Math.max(...SIZES), via, true])
  }
  for (const [n, via, kill] of runs) {
    const r = await run(n, via, kill)
    results.push(r)
    console.log(`${r.label}: ${r.rps.toFixed(1)} 2xx/s, ${r.failures.length === 0 ? 'invariants OK' : `${r.failures.length} FAILURES`}${r.note ? ` (${r.note})` : ''}`)
    for (const f of r.failures.slice(0, 20)) console.log(`  - ${f}`)
  }
  const base = results[0]!
  console.log(
    `\n| run | 2xx/s | ÷ N=1 | instances' CPU (cores) | machine CPU (cores) | 2xx per instance CPU-s | 2xx per machine CPU-s | ${OPS.filter((o) => MIX[o] > 0).map((o) => `${o} p50 / p99 ms`).join(' | ')} | queue empty after, s | converged after, s | PG connections open / active (max) | claim wait p50 / p99 s (mean) | RSS peak per instance MB | invariants |`,
  )
  console.log(`|---|---:|---:|---:|---:|---:|---:|${OPS.filter((o) => MIX[o] > 0).map(() => '---:|').join('')}---:|---:|---:|---:|---:|---|`)
  for (const r of results) {
    const perOp = OPS.filter((o) => MIX[o] > 0).map((o) => `${ms(quantile(r.ops[o].latencies, 0.5))} / ${ms(quantile(r.ops[o].latencies, 0.99))}`)
    console.log(
      `| ${r.label} | ${r.rps.toFixed(1)} | ${(r.rps / base.rps).toFixed(2)} | ${r.instanceCpuPerS.toFixed(2)} | ${r.machineCpuPerS.toFixed(2)} | ${r.perInstanceCpu.toFixed(1)} | ${(r.rps / r.machineCpuPerS).toFixed(1)} | ${perOp.join(' | ')} | ${r.drained?.toFixed(1) ?? 'not reached'} | ${r.converged?.toFixed(1) ?? 'not reached'} | ${r.connections.open} / ${r.connections.active} | ${bound(r.claim.p50)} / ${bound(r.claim.p99)} (${r.claim.mean.toFixed(2)}, ${r.claim.count} claims) | ${r.rssMax.toFixed(0)} | ${r.failures.length === 0 ? 'OK' : `${r.failures.length} failed`} |`,
    )
  }
  for (const r of results) if (r.note) console.log(`- ${r.label}: ${r.note}`)
  if (results.some((r) => r.failures.length > 0)) process.exitCode = 1
}
