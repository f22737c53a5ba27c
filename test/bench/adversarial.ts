/**
 * `npm run bench -- adversarial` (issue 18): does a hostile or careless client stall the
 * service? The service runs in a child process (`node --import tsx src/server.ts`, PGlite
 * in a temporary directory, TOKEN_CACHE_ENTRIES=0 so nothing is answered from memory),
 * with two API keys: an attacker and a victim. While the attacker sends, each request
 * with a fresh random run of letters (load-child.mjs's `fresh`), so neither cache helps:
 *   - 2 clients: /estimate (gpt-4o, exact) of one 100,000-character run;
 *   - 2 clients: /compact with the llm strategy (the fake provider, on loopback) of a
 *     conversation with a 150,000-character run in its compacted range;
 *   - 1 client: /estimate of an 8,000-character run at 50 requests a second;
 * the probes measure GET /healthz and the victim's GET /sessions/:id/summary at a fixed
 * rate. The baseline is the same probes on the idle service, in the same round. Targets:
 * the default pool, and COMPUTE_THREADS=0 (everything on the event loop) for contrast.
 * Goals: /healthz p99 ≤ 50 ms, the victim's summary read p99 ≤ 100 ms, and no attacker
 * request waits longer than COMPUTE_DEADLINE_MS (a 503 with Retry-After instead).
 */
import { execFile, execFileSync } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { countTextTokens } from '../../src/engine/tokens/tokenizer.ts'
import { startFakeProvider } from '../fakes/fake-llm-provider.ts'
import { startService, type Service } from './compute.ts'
import { BENCH_DURATION_S } from './http.ts'
import { runChild, type ChildResult } from './sessions.ts'

const ROOT = path.resolve(import.meta.dirname, '../..')
const LOAD_CHILD = path.resolve(import.meta.dirname, 'load-child.mjs')
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const PROBE_RATE = Number(process.env.BENCH_PROBE_RATE ?? 20)
const DEADLINE_MS = 30_000
const LETTERS = 'abcdefghijklmnopqrstuvwxyz'
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length)

interface AttackResult extends ChildResult {
  statusCodes: Record<string, number>
}

/** Hostile load in its own process (load-child.mjs): every request's body carries a fresh random run, so no cache answers it. */
function attack(cfg: { origin: string; path: string; key: string; template: unknown; runChars: number; connections: number; duration: number; overallRate?: number }): Promise<AttackResult> {
  const file = path.join(os.tmpdir(), `compactd-attack-${process.pid}-${Math.random().toString(36).slice(2)}.json`)
  const { path: url, key, template, runChars, ...load } = cfg
  fs.writeFileSync(file, JSON.stringify({ ...load, paths: [url], method: 'POST', body: template, headers: { authorization: `Bearer ${key}` }, fresh: { runChars, alphabet: LETTERS }, timeout: 120 }))
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [LOAD_CHILD, `@${file}`], { maxBuffer: 16 * 1024 * 1024 }, (err, out) => {
      fs.rmSync(file, { force: true })
      if (err) reject(err)
      else resolve(JSON.parse(out) as AttackResult)
    }),
  )
}

/** A conversation whose compacted range holds the run (a tool output), with room for a summary. */
function compactTemplate() {
  const messages: unknown[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Find why the bundle is so large and fix it.' },
  ]
  for (let k = 0; k < 6; k++) {
    messages.push({ role: 'assistant', content: `Step ${k}.`, tool_calls: [{ id: `c${k}`, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command: `cat dist/chunk-${k}.js` }) } }] })
    messages.push({ role: 'tool', tool_call_id: `c${k}`, content: k === 1 ? '__RUN__' : `chunk ${k}: 120 kB, vendor code inlined` })
  }
  messages.push({ role: 'assistant', content: 'The vendor chunk is inlined twice; next I will dedupe it.' })
  return { model: 'gpt-4o', messages, targetTokens: 4000, strategy: ['llm', 'rules'], summarizer: { provider: 'openai', model: 'gpt-4o-mini' } }
}

function createKey(env: Record<string, string>, tenant: string): string {
  return execFileSync(process.execPath, ['--import', 'tsx', 'src/cli/key-create.ts', '--tenant', tenant], { cwd: ROOT, env: { PATH: process.env.PATH!, ...env } }).toString().trim()
}

interface Target {
  name: string
  service: Service
  attacker: string
  victim: string
  summaryPaths: string[]
}

interface Round {
  idleHealth: ChildResult
  idleSummary: ChildResult
  busyHealth: ChildResult
  busySummary: ChildResult
  estimate: AttackResult
  compact: AttackResult
  small: AttackResult
}

async function start(name: string, threads: string, fake: { apiKey: string; openaiBaseURL: string }): Promise<Target> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'compactd-adversarial-'))
  const env = { PGLITE_DATA_DIR: dir }
  const attacker = createKey(env, 'attacker')
  const victim = createKey(env, 'victim')
  const service = await startService(name, {
    ...env,
    COMPUTE_THREADS: threads,
    COMPUTE_DEADLINE_MS: String(DEADLINE_MS),
    TOKEN_CACHE_ENTRIES: '0',
    OPENAI_API_KEY: fake.apiKey,
    OPENAI_BASE_URL: fake.openaiBaseURL,
    SUMMARIZER_OPENAI_MODELS: 'gpt-4o-mini',
  })
  const summaryPaths: string[] = []
  for (let i = 0; i < 10; i++) {
    const id = `victim-${i}`
    const put = (url: string, body: unknown) => fetch(`${service.origin}${url}`, { method: 'PUT', headers: { 'content-type': 'application/json', authorization: `Bearer ${victim}` }, body: JSON.stringify(body) })
    await put(`/sessions/${id}`, {})
    const res = await put(`/sessions/${id}/summary`, { content: `## Previously in This Session\n- Fixed the off-by-one in src/${id}.ts.\n- Ran npm test: 42 passed.\n` })
    if (res.status >= 300) throw new Error(`seeding ${id}: ${res.status} ${await res.text()}`)
    summaryPaths.push(`/sessions/${id}/summary`)
  }
  const stop = service.stop
  return { name, service: { ...service, stop: async () => (await stop(), fs.rmSync(dir, { recursive: true, force: true })) }, attacker, victim, summaryPaths }
}

async function measure(t: Target): Promise<Round> {
  const { origin } = t.service
  const auth = { authorization: `Bearer ${t.victim}` }
  const probe = (paths: string[], headers?: Record<string, string>) => runChild({ origin, paths, method: 'GET', connections: 2, duration: BENCH_DURATION_S, overallRate: PROBE_RATE, ...(headers ? { headers } : {}) })
  const [idleHealth, idleSummary] = await Promise.all([probe(['/healthz']), probe(t.summaryPaths, auth)])
  const duration = BENCH_DURATION_S + 2
  const estimate = attack({ origin, path: '/estimate', key: t.attacker, template: { model: 'gpt-4o', method: 'tokenizer', messages: [{ role: 'user', content: '__RUN__' }] }, runChars: 100_000, connections: 2, duration })
  const compact = attack({ origin, path: '/compact', key: t.attacker, template: compactTemplate(), runChars: 150_000, connections: 2, duration })
  const small = attack({ origin, path: '/estimate', key: t.attacker, template: { model: 'gpt-4o', method: 'tokenizer', messages: [{ role: 'user', content: '__RUN__' }] }, runChars: 8_000, connections: 1, duration, overallRate: 50 })
  await sleep(1000)
  const [busyHealth, busySummary] = await Promise.all([probe(['/healthz']), probe(t.summaryPaths, auth)])
  return { idleHealth, idleSummary, busyHealth, busySummary, estimate: await estimate, compact: await compact, small: await small }
}

/**
 * Counting one pathological message: gpt-tokenizer's countTokens on the whole text (what
 * compactd did before issue 18: one piece, a quadratic merge) against countTextTokens
 * (runs cut at 256 characters), in this process, on the same fresh text (random, seeded).
 */
function benchCounting(): void {
  const encoder = createRequire(import.meta.url)('gpt-tokenizer/encoding/o200k_base') as { countTokens(text: string, o?: unknown): number }
  const asText = { disallowedSpecial: new Set<string>() }
  let seed = 18
  const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32)
  const run = (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet[Math.floor(random() * alphabet.length)]).join('')
  const kinds: Record<string, (n: number) => string> = {
    '"A"×N': (n) => 'B'.repeat(Math.floor(random() * 8)) + 'A'.repeat(n),
    'random lowercase letters': (n) => run(LETTERS, n),
    'random CJK, no punctuation': (n) => run('的一是不了人我在有他这为之大来以个中上们到说国和地也子时道出而要于', n),
    'base64 of random bytes': (n) => Buffer.from(Array.from({ length: n }, () => Math.floor(random() * 256))).toString('base64').slice(0, n),
  }
  encoder.countTokens('warm up', asText)
  countTextTokens('warm up', 'o200k_base')
  console.log('\n## Counting one pathological message (o200k, exact): the whole text in one piece (before) vs runs cut at 256 (after)\n')
  console.log('| text | characters | before ms | after ms | before ÷ after | after µs/char | tokens before | tokens after |')
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|')
  for (const [label, make] of Object.entries(kinds)) {
    for (const n of [10_000, 20_000, 50_000]) {
      // The same text both ways: the pieces share no merge-cache entry with the whole.
      const text = make(n)
      let started = performance.now()
      const before = encoder.countTokens(text, asText)
      const beforeMs = performance.now() - started
      started = performance.now()
      const after = countTextTokens(text, 'o200k_base')
      const afterMs = performance.now() - started
      console.log(`| ${label} | ${n} | ${beforeMs.toFixed(0)} | ${afterMs.toFixed(1)} | ${(beforeMs / afterMs).toFixed(0)}× | ${((afterMs * 1000) / n).toFixed(2)} | ${before} | ${after} |`)
    }
  }
}

export async function benchAdversarial(): Promise<void> {
  benchCounting()
  const fake = await startFakeProvider({ apiKey: 'sk-fake-adversarial-0123456789' })
  const modes = (process.env.BENCH_ADVERSARIAL_MODES ?? `${os.availableParallelism()},0`).split(',')
  const targets: Target[] = []
  for (const threads of modes) targets.push(await start(threads === '0' ? 'COMPUTE_THREADS=0 (all on the event loop)' : `pool of ${threads} threads (default)`, threads, fake))
  // Warm-up: threads started, the engine compiled.
  for (const t of targets) await measure({ ...t }).catch(() => undefined)
  console.log(`\n## Adversarial load: ${os.cpus().length} cores, ${ROUNDS} interleaved rounds of ${BENCH_DURATION_S} s, probes at ${PROBE_RATE} req/s each; PGlite; TOKEN_CACHE_ENTRIES=0; COMPUTE_DEADLINE_MS=${DEADLINE_MS}; load average at the start ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}\n`)
  const results = new Map<Target, Round[]>(targets.map((t) => [t, []]))
  for (let r = 0; r < ROUNDS; r++) {
    for (const t of targets) {
      results.get(t)!.push(await measure(t))
      process.stderr.write(`round ${r + 1}/${ROUNDS}: ${t.name} done\n`)
    }
  }
  for (const t of targets) await t.service.stop()
  await fake.close()

  const avg = (t: Target, pick: (r: Round) => number) => mean(results.get(t)!.map(pick))
  const max = (t: Target, pick: (r: Round) => number) => Math.max(...results.get(t)!.map(pick))
  console.log('| target | /healthz idle p99 ms | /healthz under attack p99 ms | × idle | victim summary idle p99 ms | under attack p99 ms | × idle |')
  console.log('|---|---:|---:|---:|---:|---:|---:|')
  for (const t of targets) {
    const hIdle = avg(t, (r) => r.idleHealth.p99Ms)
    const hBusy = avg(t, (r) => r.busyHealth.p99Ms)
    const sIdle = avg(t, (r) => r.idleSummary.p99Ms)
    const sBusy = avg(t, (r) => r.busySummary.p99Ms)
    console.log(`| ${t.name} | ${hIdle.toFixed(1)} | ${hBusy.toFixed(1)} | ${(hBusy / hIdle).toFixed(1)}× | ${sIdle.toFixed(1)} | ${sBusy.toFixed(1)} | ${(sBusy / sIdle).toFixed(1)}× |`)
  }
  console.log('\n### The attacker\'s requests\n')
  console.log('| target | load | req/s | p50 ms | p99 ms | max ms | status codes (all rounds) |')
  console.log('|---|---|---:|---:|---:|---:|---|')
  for (const t of targets) {
    for (const [label, pick] of [
      ['/estimate 100k-char run, 2 clients', (r: Round) => r.estimate],
      ['/compact llm, 150k-char run, 2 clients', (r: Round) => r.compact],
      ['/estimate 8k-char run at 50/s', (r: Round) => r.small],
    ] as const) {
      const codes: Record<string, number> = {}
      for (const r of results.get(t)!) for (const [c, n] of Object.entries(pick(r).statusCodes)) codes[c] = (codes[c] ?? 0) + n
      console.log(`| ${t.name} | ${label} | ${avg(t, (r) => pick(r).requestsPerSec).toFixed(1)} | ${avg(t, (r) => pick(r).p50Ms).toFixed(0)} | ${avg(t, (r) => pick(r).p99Ms).toFixed(0)} | ${max(t, (r) => pick(r).maxMs).toFixed(0)} | ${Object.entries(codes).map(([c, n]) => `${c}: ${n}`).join(', ')} |`)
    }
  }
  const pool = targets[0]!
  console.log(`\ngoals (${pool.name}): /healthz p99 ${avg(pool, (r) => r.busyHealth.p99Ms).toFixed(1)} ms (≤ 50), victim summary p99 ${avg(pool, (r) => r.busySummary.p99Ms).toFixed(1)} ms (≤ 100), longest attacker request ${Math.max(max(pool, (r) => r.estimate.maxMs), max(pool, (r) => r.compact.maxMs), max(pool, (r) => r.small.maxMs)).toFixed(0)} ms (≤ ${DEADLINE_MS})`)
  console.log(`load average at the end: ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`)
}
