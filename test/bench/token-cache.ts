/**
 * The token-count cache (issue 11), in this process:
 *
 * - benchCacheBySize: per message, a count against a warm cache's hash and lookup, by
 *   message size and method: where hashing stops paying (CACHE_MIN_CHARS in
 *   src/engine/tokens/count.ts comes from this table);
 * - benchResentHistory: an agent resending its history with one more message per call,
 *   through the whole app (app.inject: JSON parsing, validation, hooks, the service,
 *   serialization; compaction in the compute pool as configured by default), for
 *   POST /estimate (tokenizer) and POST /compact, with the cache and without it
 *   (TOKEN_CACHE_ENTRIES=0), each call set against JSON.parse of the same body. Both are
 *   timed in CPU time of the process (all its threads), which a busy machine's scheduler
 *   does not inflate as it does wall time.
 */
import { hash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import v8 from 'node:v8'
import vm from 'node:vm'
import Fastify, { type FastifyInstance } from 'fastify'
import { build } from '../../src/app.ts'
import { testConfig, type Config } from '../../src/config.ts'
import { openDatabase } from '../../src/db/database.ts'
import type { CanonicalMessage } from '../../src/engine/messages/canonical.ts'
import { parseConversation } from '../../src/engine/messages/index.ts'
import { heuristicCounter, messageCacheKey, messageTokens, tokenizerCounter, type MessageCounts, type TokenCounter } from '../../src/engine/tokens/count.ts'
import { TokenCache } from '../../src/plugins/token-cache.ts'
import { estimate } from '../../src/use-cases/estimate/count.ts'
import { CONVERSATIONS as FIXTURES, fixtureFiles } from '../helpers/fixtures.ts'
import type { ChatMessage } from './conversation.ts'
import { largestConversation } from './engine.ts'


function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}

const countable = (m: CanonicalMessage) => m.parts.reduce((n, p) => n + (p.type === 'tool-call' ? p.name.length + p.argsText.length : p.type === 'image' ? 0 : p.text.length), 0)

function allMessages(): CanonicalMessage[] {
  const out: CanonicalMessage[] = []
  const files = fixtureFiles()
  if (files.length) {
    for (const f of files) {
      const body = JSON.parse(fs.readFileSync(path.join(FIXTURES, f), 'utf8')) as { messages: unknown[] }
      out.push(...parseConversation(body.messages, {}).messages)
    }
  } else out.push(...parseConversation(largestConversation().messages, {}).messages)
  return out
}

export async function benchCacheBySize(): Promise<void> {
  const messages = allMessages()
  const buckets = [0, 16, 32, 64, 128, 256, 512, 1024, 4096, Infinity]
  // The server's LRU, large enough that nothing is evicted.
  const store = new TokenCache(1_000_000)
  const cache = store.for('bench-tenant')
  const counters: [string, () => TokenCounter, () => TokenCounter][] = [
    ['heuristic', () => heuristicCounter(false), () => heuristicCounter(false, cache)],
    ['tokenizer (o200k)', () => tokenizerCounter('o200k_base'), () => tokenizerCounter('o200k_base', cache)],
  ]
  console.log(`\n## Token-count cache: one message counted vs its hash and lookup in a warm cache, by size (${messages.length} fixture messages)\n`)
  console.log('median ns per message over 5 interleaved rounds. cold: counted; warm: its key (SHA-256) and an LRU lookup. CACHE_MIN_CHARS caches where warm < cold.')
  console.log('\n| countable chars | messages | heuristic cold | heuristic warm | warm/cold | o200k cold | o200k warm | warm/cold |')
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|')
  for (let b = 0; b < buckets.length - 1; b++) {
    const ms = messages.filter((m) => countable(m) >= buckets[b]! && countable(m) < buckets[b + 1]!).slice(0, 400)
    if (ms.length === 0) continue
    const chars = ms.reduce((n, m) => n + countable(m) + 20, 0)
    const cells: string[] = []
    for (const [, cold, warm] of counters) {
      const coldC = cold()
      const warmC = warm()
      // Warm: what a cached message costs whatever its size (CACHE_MIN_CHARS set aside): its key and a lookup.
      const keys = ms.map((m) => messageCacheKey(m, warmC, 0)!)
      ms.forEach((m, k) => store.set(keys[k]!, { actual: messageTokens(m, coldC) }))
      const fromCache = (m: CanonicalMessage) => Math.ceil(store.get(messageCacheKey(m, warmC, 0)!)!.actual * warmC.margin)
      const time = (f: (m: CanonicalMessage) => number, reps: number) => {
        const t0 = process.hrtime.bigint()
        for (let r = 0; r < reps; r++) for (const m of ms) f(m)
        return Number(process.hrtime.bigint() - t0) / (reps * ms.length)
      }
      const counted = (m: CanonicalMessage) => messageTokens(m, coldC)
      const reps = Math.max(1, Math.round((coldC.method === 'tokenizer' ? 2e5 : 2e6) / chars))
      time(counted, 1)
      time(fromCache, 1)
      const colds: number[] = []
      const warms: number[] = []
      for (let round = 0; round < 5; round++) {
        colds.push(time(counted, reps))
        warms.push(time(fromCache, reps * 4))
      }
      const c = median(colds)
      const w = median(warms)
      cells.push(c.toFixed(0), w.toFixed(0), (w / c).toFixed(2))
    }
    const label = buckets[b + 1] === Infinity ? `≥ ${buckets[b]}` : `${buckets[b]}–${buckets[b + 1]! - 1}`
    console.log(`| ${label} | ${ms.length} | ${cells.join(' | ')} |`)
  }
  const bytesPerEntry = await entryBytes()
  console.log(`\nheap per cache entry (key, counts, LRU bookkeeping), 100,000 entries: ${bytesPerEntry.toFixed(0)} bytes`)
}

/** Heap bytes an entry costs, measured over 100,000 entries. */
async function entryBytes(): Promise<number> {
  v8.setFlagsFromString('--expose-gc')
  const gc = vm.runInNewContext('gc') as () => void
  gc()
  const before = process.memoryUsage().heapUsed
  const c = new TokenCache(100_000)
  for (let i = 0; i < 100_000; i++) c.set(hash('sha256', `message ${i}`, 'base64'), { actual: 100 + i, neutral: 90 + i } satisfies MessageCounts)
  gc()
  const after = process.memoryUsage().heapUsed
  const bytes = (after - before) / 100_000
  c.clear()
  return bytes
}

const LOG_LEVEL = 'warn' as const
/** The tenant of the service rows (the HTTP rows run as the open-mode tenant). */
const TENANT = 'bench-tenant'

async function appWith(config: Partial<Config>): Promise<{ app: FastifyInstance; close: () => Promise<void> }> {
  const database = await openDatabase({ pgliteDataDir: 'memory://' })
  const app = await build({ config: testConfig({ LOG_LEVEL, WORKERS: 0, RATE_LIMIT_MAX: 1_000_000_000, BODY_LIMIT_BYTES: 50 * 1024 * 1024, ...config }), database, logger: { level: LOG_LEVEL } })
  await app.ready()
  return { app, close: async () => (await app.close(), await database.close()) }
}

/** CPU milliseconds of this process (every thread: the event loop, compute threads, GC) during `fn`. */
async function cpuMs(fn: () => unknown): Promise<number> {
  const c0 = process.cpuUsage()
  await fn()
  const c = process.cpuUsage(c0)
  return (c.user + c.system) / 1000
}

interface Target {
  name: string
  /** One call with this JSON body (its bytes as sent), on whatever it targets. */
  call(json: string, payload: Buffer): Promise<void>
}

interface Series {
  name: string
  callMs: number[]
  parseMs: number[]
}

/** A target that POSTs to `url` on `app` (app.inject: the whole HTTP pipeline in this process, no socket). */
function viaHttp(name: string, app: FastifyInstance, url: string): Target {
  return {
    name,
    async call(_json, payload) {
      const res = await app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json' } })
      if (res.statusCode !== 200) throw new Error(`${name}: ${res.statusCode} ${res.body.slice(0, 300)}`)
    },
  }
}

/**
 * Each target called with the history growing from `start` messages by one per call,
 * the targets in turn (interleaved); every call is set against JSON.parse of its own
 * body, timed right before it. The first `warm` calls only fill the caches.
 */
async function growingHistory(targets: Target[], history: ChatMessage[], bodyOf: (messages: ChatMessage[]) => Record<string, unknown>, opts: { start: number; calls: number; warm: number }): Promise<Series[]> {
  const series: Series[] = targets.map((t) => ({ name: t.name, callMs: [], parseMs: [] }))
  for (let k = 0; k < opts.warm + opts.calls; k++) {
    const json = JSON.stringify(bodyOf(history.slice(0, opts.start + k)))
    const payload = Buffer.from(json)
    for (let i = 0; i < targets.length; i++) {
      const parseMs = await cpuMs(() => JSON.parse(json))
      const callMs = await cpuMs(() => targets[i]!.call(json, payload))
      if (k >= opts.warm) {
        series[i]!.parseMs.push(parseMs)
        series[i]!.callMs.push(callMs)
      }
    }
  }
  return series
}

function report(title: string, series: Series[], bytes: [number, number], baseline: string): void {
  console.log(`\n### ${title}: body ${(bytes[0] / 1024).toFixed(0)}–${(bytes[1] / 1024).toFixed(0)} KB\n`)
  console.log(`| target | call: median CPU ms | JSON.parse of the same body: median CPU ms | call / JSON.parse | vs ${baseline} |`)
  console.log('|---|---:|---:|---:|---:|')
  const base = median(series.find((s) => s.name.startsWith(baseline))!.callMs)
  for (const s of series) {
    const call = median(s.callMs)
    const parse = median(s.parseMs)
    console.log(`| ${s.name} | ${call.toFixed(2)} | ${parse.toFixed(2)} | ${(call / parse).toFixed(2)}× | ${(base / call).toFixed(2)}× faster |`)
  }
}

export async function benchResentHistory(): Promise<void> {
  const { name, messages: history } = largestConversation()
  const start = Math.min(100, Math.max(1, history.length - 40))
  const calls = Math.min(30, history.length - start)
  const warm = 3
  const opts = { start, calls, warm }
  const sizes = (body: (m: ChatMessage[]) => unknown): [number, number] => [JSON.stringify(body(history.slice(0, start + warm))).length, JSON.stringify(body(history.slice(0, start + warm + calls - 1))).length]
  console.log(`\n## Resent history: ${name}, from ${start + warm} to ${start + warm + calls - 1} messages, one more per call (${calls} calls measured after ${warm} that fill the cache)`)
  console.log('\nCPU time of this process (all threads) per call, medians; each call against JSON.parse of its own body, timed just before it.')
  console.log('HTTP: app.inject (the whole pipeline in this process: body decoding and parsing, hooks, validation, the route, serialization; no socket).')
  console.log("Service: the route's own work on the parsed body (estimate(), compactConversation()): what the cache can change.")

  // Compaction through the default compute pool: bodies over COMPUTE_INLINE_MAX_BYTES run on a thread, with that thread's cache.
  const off = await appWith({ TOKEN_CACHE_ENTRIES: 0 })
  const on = await appWith({})
  const bare = Fastify({ logger: { level: LOG_LEVEL }, bodyLimit: 50 * 1024 * 1024 })
  bare.post('/bare', async (req) => ({ ok: Array.isArray((req.body as { messages?: unknown[] }).messages) }))
  await bare.ready()
  const bareTarget = viaHttp('HTTP: bare Fastify route, same body (the floor)', bare, '/bare')
  const estimateService = (name: string, app: FastifyInstance): Target => ({
    name,
    call: async (json) => void (await estimate(app.config, JSON.parse(json), app.providers.anthropicCounter, app.tokenCache?.for(TENANT))),
  })
  const compactService = (name: string, app: FastifyInstance): Target => ({
    name,
    call: async (json, payload) =>
      void (await app.useCases.compact({ tenantId: TENANT, bodyBytes: payload.length }, JSON.parse(json))),
  })
  // The service rows parse the body inside the timed call: subtract JSON.parse to read the service alone.
  const sections: [string, string, (m: ChatMessage[]) => Record<string, unknown>, (name: string, app: FastifyInstance) => Target, number][] = [
    ['POST /estimate, method tokenizer (o200k)', '/estimate', (messages) => ({ model: 'gpt-4o', method: 'tokenizer', messages }), estimateService, calls],
    // Under the target: the common turn, where /compact counts and returns the history unchanged.
    ['POST /compact under its target (returned unchanged)', '/compact', (messages) => ({ model: 'gpt-4o', messages, targetTokens: 10_000_000 }), compactService, calls],
    // Over the target: every call compacts (mask + rules, the default) to 18k tokens.
    ['POST /compact over its target (compacts to 18k tokens)', '/compact', (messages) => ({ model: 'gpt-4o', messages, targetTokens: 18_000 }), compactService, Math.min(calls, 15)],
  ]
  for (const [title, url, body, service, n] of sections) {
    const series = await growingHistory(
      [
        bareTarget,
        viaHttp('HTTP: no cache (TOKEN_CACHE_ENTRIES=0, before)', off.app, url),
        viaHttp('HTTP: token-count cache (after)', on.app, url),
        service('service + JSON.parse: no cache (before)', off.app),
        service('service + JSON.parse: token-count cache (after)', on.app),
      ],
      history,
      body,
      { ...opts, calls: n },
    )
    report(title, series, sizes(body), 'HTTP: no cache')
  }

  const hits = on.app.tokenCache!.hits
  const misses = on.app.tokenCache!.misses
  console.log(`\ncache after the run: ${on.app.tokenCache!.size} entries, ${hits} hits, ${misses} misses`)
  await off.close()
  await on.close()
  await bare.close()
}
