/**
 * npm run bench -- compact-floor (issue 25): POST /compact of the largest fixture over HTTP
 * against the parse-and-count floor (JSON.parse of the same body and one exact o200k pass,
 * computed in this, the client's, process). The service is `node dist/server.js` in its own
 * process with npm start's settings (PGlite in memory: no session, nothing stored), one
 * request at a time, the default pipeline (mask + rules) to 10%. Twice: with the token-count
 * cache (a history resent, as agents resend it: its counts are known) and without it
 * (TOKEN_CACHE_ENTRIES=0: every message counted, as for a history never seen). Floor and
 * requests interleaved, medians; the client-observed time includes sending the 0.6 MB body
 * and reading the answer.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { parseConversation } from '../../src/engine/messages/index.ts'
import { countConversation, tokenizerCounter } from '../../src/engine/tokens/count.ts'
import { ensureBuilt, startBuilt, type ServiceProcess } from '../helpers/service-process.ts'
import { largestConversation, parseAndCountFloor } from './engine.ts'
import { freePort } from './sessions.ts'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3) * 5

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

async function service(env: Record<string, string>): Promise<{ origin: string; proc: ServiceProcess }> {
  const port = await freePort()
  const proc = startBuilt('server.js', { PORT: String(port), LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '1000000000', BODY_LIMIT_BYTES: String(50 * 1024 * 1024), PGLITE_DATA_DIR: 'memory://', MALLOC_ARENA_MAX: '2', NODE_OPTIONS: '--max-semi-space-size=4', ...env })
  const origin = `http://127.0.0.1:${port}`
  for (let i = 0; ; i++) {
    if (await fetch(`${origin}/readyz`).then((r) => r.ok, () => false)) break
    if (i > 600) throw new Error(`the service did not start: ${proc.output().slice(-2000)}`)
    await sleep(100)
  }
  return { origin, proc }
}

export async function benchCompactFloor(): Promise<void> {
  await ensureBuilt(['server'])
  const { name, messages } = largestConversation()
  const tokens = countConversation(parseConversation(messages, { format: 'openai' }).messages, tokenizerCounter('o200k_base')).totalTokens
  const request = JSON.stringify({ model: 'gpt-4o', messages, targetTokens: Math.floor(tokens / 10) })
  const floorBody = JSON.stringify({ messages })
  const cached = await service({})
  const uncached = await service({ TOKEN_CACHE_ENTRIES: '0' })
  try {
    const post = async (origin: string): Promise<number> => {
      const t = performance.now()
      const res = await fetch(`${origin}/compact`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: request })
      const json = (await res.json()) as { compacted?: boolean }
      if (!res.ok || json.compacted !== true) throw new Error(`/compact: ${res.status} ${JSON.stringify(json).slice(0, 300)}`)
      return performance.now() - t
    }
    const floor = () => {
      const t = performance.now()
      parseAndCountFloor(floorBody)
      return performance.now() - t
    }
    const samples = { floor: [] as number[], cached: [] as number[], uncached: [] as number[] }
    for (let i = 0; i < ROUNDS + 3; i++) {
      const f = floor()
      const c = await post(cached.origin)
      const u = await post(uncached.origin)
      if (i < 3) continue // warm-up: the threads, the tokenizer's tables, the cache
      samples.floor.push(f)
      samples.cached.push(c)
      samples.uncached.push(u)
    }
    const f = median(samples.floor)
    console.log(`\n## POST /compact over HTTP ÷ the parse-and-count floor (issue 25): ${name} (${request.length} bytes), default pipeline to 10%, one request at a time, ${ROUNDS} interleaved rounds, medians\n`)
    console.log('| step | median ms | ÷ floor |')
    console.log('|---|---:|---:|')
    console.log(`| floor: JSON.parse + one exact o200k pass, in the client | ${f.toFixed(1)} | 1.00× |`)
    console.log(`| /compact over HTTP, token cache on (a resent history) | ${median(samples.cached).toFixed(1)} | ${(median(samples.cached) / f).toFixed(2)}× (goal ≤ 2×) |`)
    console.log(`| /compact over HTTP, TOKEN_CACHE_ENTRIES=0 (every message counted) | ${median(samples.uncached).toFixed(1)} | ${(median(samples.uncached) / f).toFixed(2)}× (goal ≤ 2×) |`)
  } finally {
    for (const s of [cached, uncached]) {
      s.proc.child.kill('SIGTERM')
      await s.proc.exited
    }
  }
}
