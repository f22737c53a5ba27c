/**
 * npm run bench -- startup: how long a Claude Code hook and the CLI take, start to exit, as
 * Claude Code runs them (a new process each time), against a compactd listening here. The
 * baseline is a bare `node -e 0` measured in the same rounds; runs are interleaved.
 * The build is made current first (test/helpers/service-process.ts).
 */
import { spawn } from 'node:child_process'
import os from 'node:os'
import path from 'node:path'
import { build } from '../../src/app.ts'
import { testConfig } from '../../src/config.ts'
import { openDatabase } from '../../src/db/database.ts'
import { ensureBuilt, root } from '../helpers/service-process.ts'

const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 15)

function timed(args: string[], env: Record<string, string>, stdin: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now()
    const child = spawn(process.execPath, args, { cwd: root, env: { PATH: process.env.PATH!, HOME: os.tmpdir(), ...env }, stdio: ['pipe', 'ignore', 'pipe'] })
    let err = ''
    child.stderr.on('data', (d) => (err += d))
    child.on('error', reject)
    child.on('close', (code) => (code === 0 ? resolve(performance.now() - start) : reject(new Error(`${args.join(' ')}: exit ${code}: ${err}`))))
    child.stdin.end(stdin)
  })
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

export async function benchStartup(): Promise<void> {
  await ensureBuilt()
  const database = await openDatabase({ pgliteDataDir: 'memory://' })
  const app = await build({ config: testConfig({ LOG_LEVEL: 'warn', WORKERS: 0 }), database, logger: false })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
  const transcript = path.join(root, 'docs/examples/logs/session.jsonl')
  const bin = path.join(root, 'bin/compactd.mjs')
  const env = { COMPACTD_URL: url }
  // A checkpoint for session-start to print: what pre-compact stores.
  const preCompact = JSON.stringify({ session_id: 'bench', transcript_path: transcript, trigger: 'auto', hook_event_name: 'PreCompact' })
  await timed([bin, 'hook', 'pre-compact'], { ...env, COMPACTD_FROM_DIST: '1' }, preCompact)
  const sessionStart = JSON.stringify({ session_id: 'bench', source: 'compact', hook_event_name: 'SessionStart' })

  const cases: { name: string; args: string[]; env: Record<string, string>; stdin: string }[] = [
    { name: 'node -e 0 (baseline)', args: ['-e', '0'], env: {}, stdin: '' },
    { name: 'hook session-start, from dist/ (the default)', args: [bin, 'hook', 'session-start'], env: { ...env, COMPACTD_FROM_DIST: '1' }, stdin: sessionStart },
    { name: 'hook pre-compact, from dist/', args: [bin, 'hook', 'pre-compact'], env: { ...env, COMPACTD_FROM_DIST: '1' }, stdin: preCompact },
    { name: 'compactd --version, from dist/', args: [bin, '--version'], env: { COMPACTD_FROM_DIST: '1' }, stdin: '' },
    { name: 'hook session-start, from the sources (tsx)', args: [bin, 'hook', 'session-start'], env: { ...env, COMPACTD_FROM_SOURCE: '1' }, stdin: sessionStart },
  ]
  const times = cases.map(() => [] as number[])
  for (let round = 0; round < RUNS; round++) {
    for (const [i, c] of cases.entries()) times[i]!.push(await timed(c.args, c.env, c.stdin))
  }
  const base = median(times[0]!)
  console.log(`\n## Start-up: a new process per run, as Claude Code runs a hook; ${RUNS} interleaved runs, median\n`)
  console.log('| command | median ms | vs bare node |')
  console.log('|---|---:|---:|')
  for (const [i, c] of cases.entries()) console.log(`| ${c.name} | ${median(times[i]!).toFixed(0)} | ${(median(times[i]!) / base).toFixed(2)}× |`)
  console.log(`\nsession-start hook from dist/: ${median(times[1]!).toFixed(0)} ms (goal < 300 ms)`)
  await app.close()
  await database.close()
}
