/**
 * The service under test as a child process, and what the benchmarks read of it: its
 * memory and CPU from /proc, and its /metrics. Shared by the soak and the cluster bench.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { ensureBuilt } from '../helpers/service-process.ts'
import { freePort } from './sessions.ts'

export const ROOT = path.resolve(import.meta.dirname, '../..')
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export interface Service {
  origin: string
  pid: number
  child: ChildProcess
  logFile: string
  exited: Promise<number | null>
  /** SIGTERM: the graceful stop, which drains requests and running updates. */
  stop(): Promise<number | null>
  /** SIGKILL: a crash, as an instance lost to the OOM killer or a node failure. */
  kill(): Promise<number | null>
}

/**
 * Starts compactd, with the memory settings `npm start` uses. `from: 'source'` runs src/server.ts through tsx with a GC hook (the
 * soak: the checkout as it is, and SIGWINCH forces a full GC: test/bench/gc-on-signal.mjs);
 * `from: 'build'` runs dist/server.js as `npm start` does (rebuilt first when stale), which
 * starts faster and smaller: the cluster bench runs four.
 */
export async function startService(env: Record<string, string>, logFile: string, opts: { from?: 'source' | 'build' } = {}): Promise<Service> {
  const from = opts.from ?? 'source'
  if (from === 'build') await ensureBuilt(['server'])
  const port = await freePort()
  const log = fs.openSync(logFile, 'a')
  // The memory settings `npm start` and the image run with (package.json, Dockerfile);
  // BENCH_PLAIN_NODE=1 leaves them out (plain `node dist/server.js`), to compare.
  const plain = process.env.BENCH_PLAIN_NODE === '1'
  const asStarted = plain ? [] : ['--max-semi-space-size=4']
  const args = from === 'build' ? [...asStarted, 'dist/server.js'] : [...asStarted, '--expose-gc', '--import', path.join(import.meta.dirname, 'gc-on-signal.mjs'), '--import', 'tsx', 'src/server.ts']
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH!, ...(plain ? {} : { MALLOC_ARENA_MAX: '2' }), PORT: String(port), LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '1000000000', DOCS_ENABLED: 'false', ...env },
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
      if (!dead) child.kill('SIGTERM')
      return exited
    },
    kill: async () => {
      if (!dead) child.kill('SIGKILL')
      return exited
    },
  }
}

export function rssMb(pid: number): { rss: number; hwm: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN)
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 }
}

/** CPU seconds (user + system) a process has used, its threads included (/proc/<pid>/stat; USER_HZ is 100 on Linux). */
export function cpuSeconds(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return NaN // exited
  }
}

/** The whole machine's busy CPU seconds so far (/proc/stat: everything but idle and iowait). */
export function machineCpuSeconds(): number {
  const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!
  const v = line.trim().split(/\s+/).slice(1).map(Number)
  const total = v.reduce((a, b) => a + b, 0)
  return (total - v[3]! - v[4]!) / 100
}

export function metricValue(text: string, name: string): number {
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.eE+-]+)$`, 'm').exec(text)
  return m ? Number(m[1]) : NaN
}

export function metricSum(text: string, name: string): number {
  let sum = 0
  for (const m of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.eE+-]+)$`, 'gm'))) sum += Number(m[1])
  return sum
}

/** A histogram's cumulative buckets summed over several scrapes (instances): upper bound → count. */
export function histogramBuckets(texts: string[], name: string): Map<number, number> {
  const buckets = new Map<number, number>()
  for (const text of texts) {
    for (const m of text.matchAll(new RegExp(`^${name}_bucket\\{(?:[^}]*,)?le="([^"]+)"[^}]*\\} ([0-9.eE+-]+)$`, 'gm'))) {
      const le = m[1] === '+Inf' ? Infinity : Number(m[1])
      buckets.set(le, (buckets.get(le) ?? 0) + Number(m[2]))
    }
  }
  return buckets
}

/** The upper bound of the bucket that holds quantile `q` (as Prometheus' histogram_quantile, without interpolation). */
export function bucketQuantile(buckets: Map<number, number>, q: number): number {
  const sorted = [...buckets].sort((a, b) => a[0] - b[0])
  const total = sorted.at(-1)?.[1] ?? 0
  if (total === 0) return NaN
  for (const [le, count] of sorted) if (count >= q * total) return le
  return Infinity
}
