/** autocannon in a separate process against a URL; returns req/s and latency percentiles. */
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

export interface LoadResult {
  name: string
  requestsPerSec: number
  p50Ms: number
  p99Ms: number
  non2xx: number
  errors: number
}

export const BENCH_CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
export const BENCH_DURATION_S = Number(process.env.BENCH_DURATION ?? 10)

export async function load(name: string, url: string, body: unknown, opts: { method?: string; headers?: Record<string, string>; duration?: number; connections?: number } = {}): Promise<LoadResult> {
  const args = ['-c', String(opts.connections ?? BENCH_CONNECTIONS), '-d', String(opts.duration ?? BENCH_DURATION_S), '-j', '-m', opts.method ?? 'POST']
  const headers = { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...opts.headers }
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}=${v}`)
  if (body !== undefined) {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-')), 'body.json')
    fs.writeFileSync(file, JSON.stringify(body))
    args.push('-i', file)
  }
  args.push(url)
  const bin = path.resolve(import.meta.dirname, '../../node_modules/.bin/autocannon')
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(bin, args, { maxBuffer: 64 * 1024 * 1024 }, (err, out) => (err ? reject(err) : resolve(out))),
  )
  const r = JSON.parse(stdout)
  return {
    name,
    requestsPerSec: r.requests.average,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
  }
}

/**
 * Run several targets in interleaved rounds (A B C, A B C, ...) and average each target's
 * rounds, so a burst of background load does not land on one target only.
 */
export async function interleaved(targets: { name: string; url: string; body: unknown; opts?: Parameters<typeof load>[3] }[], rounds = Number(process.env.BENCH_ROUNDS ?? 3)): Promise<LoadResult[]> {
  const all: LoadResult[][] = targets.map(() => [])
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < targets.length; k++) all[k]!.push(await load(targets[k]!.name, targets[k]!.url, targets[k]!.body, targets[k]!.opts))
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
  return all.map((rs) => ({
    name: rs[0]!.name,
    requestsPerSec: mean(rs.map((r) => r.requestsPerSec)),
    p50Ms: Math.round(mean(rs.map((r) => r.p50Ms))),
    p99Ms: Math.round(mean(rs.map((r) => r.p99Ms))),
    non2xx: rs.reduce((a, r) => a + r.non2xx, 0),
    errors: rs.reduce((a, r) => a + r.errors, 0),
  }))
}

export function table(rows: LoadResult[], baseline: LoadResult): string {
  const lines = ['| target | req/s | p50 ms | p99 ms | req/s vs bare | non-2xx |', '|---|---:|---:|---:|---:|---:|']
  for (const r of rows) {
    lines.push(`| ${r.name} | ${r.requestsPerSec.toFixed(0)} | ${r.p50Ms} | ${r.p99Ms} | ${((r.requestsPerSec / baseline.requestsPerSec) * 100).toFixed(0)}% | ${r.non2xx + r.errors} |`)
  }
  return lines.join('\n')
}
