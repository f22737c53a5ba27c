/**
 * Proxy benchmark (issue 23): `npm run bench -- proxy`. Both figures are ratios or
 * differences measured in the same run, against the fake provider (test/fakes) on loopback.
 *
 * 1. What the proxy adds to a request that needs no compaction. A 20-message OpenAI chat
 *    request (conversation.ts, the /estimate bench's body, under COMPUTE_INLINE_MAX_BYTES;
 *    and the first 20 messages of the loop's conversation below, over it), sent one at a time with undici
 *    (a keep-alive Pool of one connection per target) (a) straight to the fake's
 *    /v1/chat/completions, (b) through compactd on a loopback port in open mode, (c) through
 *    compactd with an API key (x-compactd-key), each app over its own fresh PostgreSQL
 *    database. Requests interleave a, b, c (the order rotating), after a warm-up; p50 and
 *    p99 of the whole response, then for `stream: true` of the time to the first body chunk.
 *    Every query the apps send to their database is counted (a Kysely plugin) during the
 *    measured requests: the passthrough path should send none.
 * 2. The cacheable share over a 50-turn agent loop. A fixture conversation (a generated one
 *    when ../shared/fixtures is absent) replayed through the proxy: turn k sends the history
 *    so far plus the next 2 messages (a cut never separates a tool call from its result),
 *    with a fixed x-compactd-threshold. For each upstream request (the fake's rawBody): its
 *    messages' o200k tokens, and those of the leading messages byte-identical to the
 *    previous upstream request's (what a provider's prompt cache can serve). Twice: one
 *    x-compactd-session for the loop (the prefix reused), and a fresh session per request
 *    (a compaction on every request past the threshold: the baseline).
 *
 * Env: BENCH_ROUNDS (default 3: max(500, 200 × rounds) requests per target and mode);
 * PROXY_BENCH=cache runs the agent loop alone.
 */
import type { FastifyInstance } from 'fastify'
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely'
import { Pool } from 'undici'
import { build } from '../../src/app.ts'
import { testConfig } from '../../src/config.ts'
import { migrateToLatest } from '../../src/db/migrate.ts'
import { parseConversation } from '../../src/engine/messages/index.ts'
import { messageTokens, tokenizerCounter } from '../../src/engine/tokens/count.ts'
import { createApiKey } from '../../src/tenancy/api-keys.ts'
import { startFakeProvider, type FakeProvider } from '../fakes/fake-llm-provider.ts'
import { createTestDatabase, postgresAvailable, type Backend, type TestDatabase } from '../helpers/databases.ts'
import { fixtureConversation, fixtureFiles } from '../helpers/fixtures.ts'
import { exchange, type Message } from '../helpers/session-conversations.ts'
import { syntheticConversation } from './conversation.ts'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const REQUESTS = Math.max(500, 200 * ROUNDS)
const WARMUP = 100
const TURNS = 50

const quantile = (xs: readonly number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!
}
const ms = (x: number) => x.toFixed(2)
const pct = (x: number) => `${(x * 100).toFixed(1)}%`

/** Every query an app sends to its database: the first table it names (or the raw SQL's start). */
class QueryLog implements KyselyPlugin {
  counting = false
  readonly seen = new Map<string, number>()
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (this.counting) {
      const node = args.node as unknown as { kind: string; sqlFragments?: string[] }
      const table = node.sqlFragments ? node.sqlFragments.join('?').replace(/\s+/g, ' ').trim().slice(0, 40) : /"kind":"IdentifierNode","name":"([^"]+)"/.exec(JSON.stringify(args.node))?.[1]
      const key = `${node.kind.replace(/Node$/, '')} ${table ?? '?'}`
      this.seen.set(key, (this.seen.get(key) ?? 0) + 1)
    }
    return args.node
  }
  transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return Promise.resolve(args.result)
  }
}

interface ProxyApp {
  app: FastifyInstance
  pool: Pool
  log: QueryLog
  key?: string
  close(): Promise<void>
}

/** compactd on a loopback port over a fresh database, pointed at the fake; with an API key when `keyed`. */
async function proxyApp(backend: Backend, fake: FakeProvider, keyed = false, keyCacheMs = 0): Promise<ProxyApp> {
  const raw: TestDatabase = await createTestDatabase(backend)
  const log = new QueryLog()
  const database = { ...raw, db: raw.db.withPlugin(log) }
  let key: string | undefined
  if (keyed) {
    await migrateToLatest(raw.db)
    key = (await createApiKey(raw.db, 'bench')).key
  }
  const config = testConfig({ LOG_LEVEL: 'warn', ...(process.env.PROXY_COMPACT_TO ? { PROXY_COMPACT_TO: Number(process.env.PROXY_COMPACT_TO) } : {}), RATE_LIMIT_MAX: 1_000_000_000, BODY_LIMIT_BYTES: 50 * 1024 * 1024, UPSTREAM_OPENAI_URL: fake.openaiBaseURL, UPSTREAM_ANTHROPIC_URL: fake.anthropicBaseURL, AUTH_KEY_CACHE_MS: keyCacheMs })
  const app = await build({ config, database, logger: { level: 'warn' } })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const pool = new Pool(`http://127.0.0.1:${(app.server.address() as { port: number }).port}`, { connections: 1 })
  return { app, pool, log, ...(key ? { key } : {}), close: async () => (await pool.close(), await app.close(), await raw.close()) }
}

interface Timed {
  totalMs: number
  firstByteMs: number
  headers: Record<string, string | string[] | undefined>
}

/** One POST, its body read to the end: time to the first body chunk and to the last. */
async function timed(pool: Pool, path: string, body: string, headers: Record<string, string>): Promise<Timed> {
  const t0 = performance.now()
  const res = await pool.request({ path, method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })
  let first = 0
  for await (const _ of res.body) if (first === 0) first = performance.now()
  const end = performance.now()
  if (res.statusCode !== 200) throw new Error(`POST ${path}: ${res.statusCode}`)
  return { totalMs: end - t0, firstByteMs: (first || end) - t0, headers: res.headers }
}

interface OverheadRow {
  scenario: string
  target: string
  p50: number
  p99: number
  /** Database queries during the measured requests, by kind and table. */
  queries?: Map<string, number>
}

export async function benchProxyOverhead(backend: Backend): Promise<OverheadRow[]> {
  const fake = await startFakeProvider()
  const open = await proxyApp(backend, fake)
  const keyed = await proxyApp(backend, fake, true)
  const trusted = await proxyApp(backend, fake, true, 5_000)
  const direct = new Pool(fake.url, { connections: 1 })
  const auth = { authorization: `Bearer ${fake.apiKey}` }
  const targets = [
    { name: '(a) straight to the fake provider', pool: direct, headers: auth, log: undefined },
    { name: '(b) through compactd (open mode)', pool: open.pool, headers: auth, log: open.log },
    { name: '(c) through compactd (x-compactd-key)', pool: keyed.pool, headers: { ...auth, 'x-compactd-key': keyed.key! }, log: keyed.log },
    { name: '(d) through compactd (x-compactd-key, AUTH_KEY_CACHE_MS=5000)', pool: trusted.pool, headers: { ...auth, 'x-compactd-key': trusted.key! }, log: trusted.log },
  ]
  const synthetic = syntheticConversation(20)
  const agent = agentConversation()
  const whole = JSON.stringify({ model: 'gpt-4o', messages: synthetic })
  const fixture = JSON.stringify({ model: 'gpt-4o', messages: agent.messages.slice(0, 20) })
  const inline = open.app.config.COMPUTE_INLINE_MAX_BYTES
  const where = (body: string) => (body.length <= inline ? 'counted inline' : 'counted in the compute pool')
  const scenarios = [
    { name: `20 synthetic messages, ${whole.length} B (${where(whole)}): whole response`, body: whole, firstByte: false },
    { name: `same, \`stream: true\`: time to the first body chunk`, body: JSON.stringify({ model: 'gpt-4o', stream: true, messages: synthetic }), firstByte: true },
    { name: `first 20 messages of the ${agent.name.replace(/^fixture /, '')}, ${fixture.length} B (${where(fixture)}): whole response`, body: fixture, firstByte: false },
  ]
  try {
    console.log(`\n## Proxy (issue 23): what the proxy adds to a request under the threshold\n`)
    console.log(`OpenAI chat requests, one at a time over a keep-alive undici Pool per target, targets interleaved (order rotating), ${WARMUP} warm-up then ${REQUESTS} measured requests per target and scenario; COMPUTE_INLINE_MAX_BYTES ${inline}, WORKERS ${open.app.config.WORKERS}; ${backend}, a fresh database per app\n`)
    // The passthrough is byte for byte.
    fake.reset()
    const check = await timed(open.pool, '/v1/chat/completions', whole, auth)
    if (check.headers['x-compactd-compacted'] !== 'false' || fake.lastRequest!.rawBody !== whole) throw new Error('the request under the threshold was not passed on byte for byte')
    const rows: OverheadRow[] = []
    for (const sc of scenarios) {
      const samples = targets.map(() => [] as number[])
      for (let i = 0; i < WARMUP + REQUESTS; i++) {
        if (i === WARMUP) for (const t of targets) if (t.log) t.log.seen.clear(), (t.log.counting = true)
        for (let j = 0; j < targets.length; j++) {
          const k = (i + j) % targets.length
          const r = await timed(targets[k]!.pool, '/v1/chat/completions', sc.body, targets[k]!.headers)
          if (i >= WARMUP) samples[k]!.push(sc.firstByte ? r.firstByteMs : r.totalMs)
        }
        if (i % 200 === 0) fake.reset()
      }
      targets.forEach((t, k) => {
        if (t.log) t.log.counting = false
        rows.push({ scenario: sc.name, target: t.name, p50: quantile(samples[k]!, 0.5), p99: quantile(samples[k]!, 0.99), ...(t.log ? { queries: new Map(t.log.seen) } : {}) })
      })
    }
    return rows
  } finally {
    await direct.close()
    await open.close()
    await keyed.close()
    await trusted.close()
    await fake.close()
  }
}

/** The agent conversation: the first fixture with enough strictly paired turns, else a generated one. */
function agentConversation(): { name: string; messages: Message[] } {
  const need = 4 + 2 * TURNS + 4
  for (const f of fixtureFiles()) {
    const messages = fixtureConversation(f)
    const parallel = messages.slice(0, need).some((m) => Array.isArray(m.tool_calls) && (m.tool_calls as unknown[]).length > 1)
    if (messages.length >= need && !parallel) return { name: `fixture ${f}`, messages }
  }
  const messages: Message[] = [{ role: 'system', content: 'You are a coding agent. Never edit generated files.' }]
  for (let i = 0; messages.length < need; i++) messages.push(...exchange(i, { padding: 60 }))
  return { name: 'generated (fixtures absent): exchange() with padding 60', messages }
}

/** Where each turn's request ends: 2 messages further, then on past any tool result of the last call. */
function turnCuts(messages: readonly Message[], turns: number): number[] {
  const cuts: number[] = []
  let at = 2
  for (let k = 0; k < turns; k++) {
    at += 2
    while (at < messages.length && (messages[at]!.role === 'tool' || Array.isArray(messages[at - 1]!.tool_calls))) at++
    cuts.push(Math.min(at, messages.length))
  }
  return cuts
}

const counter = tokenizerCounter('o200k_base')
const tokenMemo = new Map<string, number>()
/** One message's o200k tokens (overhead included), by its JSON. */
function tokensOf(json: string): number {
  let n = tokenMemo.get(json)
  if (n === undefined) tokenMemo.set(json, (n = messageTokens(parseConversation([JSON.parse(json)], { format: 'openai', allowDuplicateCallIds: true }).messages[0]!, counter)))
  return n
}

interface LoopResult {
  compactions: number
  reused: number
  firstCompaction: number
  /** From the first compaction on (that request included): upstream input tokens, and those in a byte-identical prefix of the previous request. */
  afterTokens: number
  afterCached: number
  /** Of the uncached tokens from the first compaction on: those of the compaction requests. */
  afterMissAtCompaction: number
  upstreamTokens: number
  fullTokens: number
  /** All turns: upstream tokens in a byte-identical prefix of the previous request; the same for the full history sent as is. */
  allCached: number
  fullCached: number
  newMs: number[]
  reusedMs: number[]
  passMs: number[]
}

async function agentLoop(pa: ProxyApp, fake: FakeProvider, messages: readonly Message[], cuts: readonly number[], threshold: number, session: (k: number) => string): Promise<LoopResult> {
  const r: LoopResult = { compactions: 0, reused: 0, firstCompaction: -1, afterTokens: 0, afterCached: 0, afterMissAtCompaction: 0, upstreamTokens: 0, fullTokens: 0, allCached: 0, fullCached: 0, newMs: [], reusedMs: [], passMs: [] }
  let previous: string[] = []
  let previousFull = 0
  for (let k = 0; k < cuts.length; k++) {
    const history = messages.slice(0, cuts[k])
    fake.reset()
    const res = await timed(pa.pool, '/v1/chat/completions', JSON.stringify({ model: 'gpt-4o', messages: history }), { authorization: `Bearer ${fake.apiKey}`, 'x-compactd-threshold': String(threshold), 'x-compactd-session': session(k) })
    const prefix = res.headers['x-compactd-prefix']
    if (prefix === 'new') r.compactions++, r.newMs.push(res.totalMs)
    else if (prefix === 'reused') r.reused++, r.reusedMs.push(res.totalMs)
    else r.passMs.push(res.totalMs)
    if (prefix === 'new' && r.firstCompaction < 0) r.firstCompaction = k
    const sent = (JSON.parse(fake.lastRequest!.rawBody) as { messages: unknown[] }).messages.map((m) => JSON.stringify(m))
    let same = 0
    while (same < sent.length && same < previous.length && sent[same] === previous[same]) same++
    const tokens = sent.reduce((a, m) => a + tokensOf(m), 0)
    r.upstreamTokens += tokens
    const full = history.reduce((a, m) => a + tokensOf(JSON.stringify(m)), 0)
    const cached = sent.slice(0, same).reduce((a, m) => a + tokensOf(m), 0)
    r.fullTokens += full
    r.fullCached += previousFull // each history extends the previous one
    previousFull = full
    r.allCached += cached
    if (r.firstCompaction >= 0) (r.afterTokens += tokens), (r.afterCached += cached), prefix === 'new' && (r.afterMissAtCompaction += tokens - cached)
    previous = sent
  }
  return r
}

export async function benchProxyCache(backend: Backend): Promise<void> {
  const { name, messages } = agentConversation()
  const cuts = turnCuts(messages, TURNS)
  const finalTokens = messages.slice(0, cuts.at(-1)).reduce((a, m) => a + tokensOf(JSON.stringify(m)), 0)
  // Crossed first at about 40% of the loop, then every ~20% (compaction to half of it).
  const threshold = Math.round((finalTokens * 0.4) / 100) * 100
  const fake = await startFakeProvider()
  const pa = await proxyApp(backend, fake)
  try {
    console.log(`\n## Proxy (issue 23): the cacheable share over a ${TURNS}-turn agent loop\n`)
    console.log(`${name}: turns send messages [0, ${cuts[0]}) … [0, ${cuts.at(-1)}) (${cuts.at(-1)} messages, ${finalTokens} o200k tokens at the last turn); x-compactd-threshold ${threshold} (40% of that), PROXY_COMPACT_TO ${pa.app.config.PROXY_COMPACT_TO}; ${backend}. "Cached": the leading upstream messages byte-identical to the previous upstream request's, in o200k tokens (per message, overhead included), from the first compaction on (that request included)\n`)
    const run = `${process.pid}-${Date.now()}`
    await agentLoop(pa, fake, messages, cuts, threshold, () => `bench-proxy-${run}-warmup`) // the app warm, as for the second run
    const reuse = await agentLoop(pa, fake, messages, cuts, threshold, () => `bench-proxy-${run}`)
    const fresh = await agentLoop(pa, fake, messages, cuts, threshold, (k) => `bench-proxy-${run}-fresh-${k}`)
    // What the input would cost if a cached token were billed at a tenth (OpenAI's and Anthropic's cache reads are 10-50% of the price).
    const effective = (total: number, cached: number) => Math.round(total - 0.9 * cached)
    console.log('| run | turns | compactions (prefix new) | reused turns | first compaction at turn | upstream input tokens from it on | of which a byte-identical prefix of the previous request | upstream tokens, all turns | ÷ full history | all turns, cached billed at 0.1× | ms p50: new / reused / passthrough |')
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
    const p50 = (xs: number[]) => (xs.length ? quantile(xs, 0.5).toFixed(0) : '–')
    for (const [label, r] of [['compactd (one session: the prefix reused)', reuse], ['baseline: a fresh session per request (re-compacted every time)', fresh]] as const) {
      console.log(
        `| ${label} | ${TURNS} | ${r.compactions} | ${r.reused} | ${r.firstCompaction + 1} | ${r.afterTokens} | ${r.afterCached} (**${pct(r.afterCached / r.afterTokens)}**) | ${r.upstreamTokens} | ${(r.upstreamTokens / r.fullTokens).toFixed(2)} | ${effective(r.upstreamTokens, r.allCached)} | ${p50(r.newMs)} / ${p50(r.reusedMs)} / ${p50(r.passMs)} |`,
      )
    }
    console.log(`| no compaction: the full history every turn | ${TURNS} | 0 | – | – | – | – | ${reuse.fullTokens} | 1.00 | ${effective(reuse.fullTokens, reuse.fullCached)} | – |`)
    const miss = reuse.afterTokens - reuse.afterCached
    console.log(`\nuncached from the first compaction on, with the reused prefix: ${miss} tokens, ${reuse.afterMissAtCompaction} of them in the ${reuse.compactions} compaction requests, ${miss - reuse.afterMissAtCompaction} the new messages of the other turns (were the compactions free of cache misses, the share would be ${pct(1 - (miss - reuse.afterMissAtCompaction) / reuse.afterTokens)})`)
    console.log(`cacheable share with the reused prefix: ${pct(reuse.afterCached / reuse.afterTokens)} (goal >= 90%); re-compacting every request: ${pct(fresh.afterCached / fresh.afterTokens)}`)
  } finally {
    await pa.close()
    await fake.close()
  }
}

export async function benchProxy(): Promise<void> {
  const backend: Backend = (await postgresAvailable()) ? 'postgres' : 'pglite'
  if (backend === 'pglite') console.log('\n(PostgreSQL not reachable: PGlite)')
  // PROXY_BENCH=cache: the agent loop alone.
  if (process.env.PROXY_BENCH === 'cache') return benchProxyCache(backend)
  const rows = await benchProxyOverhead(backend)
  console.log('| scenario | target | p50 ms | p99 ms | added p50 ms | added p99 ms | database queries during the measured requests |')
  console.log('|---|---|---:|---:|---:|---:|---|')
  const per = 4 // targets per scenario
  for (let i = 0; i < rows.length; i += per) {
    const a = rows[i]!
    for (const r of rows.slice(i, i + per)) {
      const added = (x: number, y: number) => (r === a ? '–' : `${x - y >= 0 ? '+' : ''}${ms(x - y)}`)
      const total = r.queries ? [...r.queries.values()].reduce((x, y) => x + y, 0) : 0
      const q = r.queries ? `${total} in ${REQUESTS} requests${total ? `: ${[...r.queries].map(([k, n]) => `${k} ×${n}`).join(', ')}` : ''}` : '–'
      console.log(`| ${r === a ? r.scenario : ''} | ${r.target} | ${ms(r.p50)} | ${ms(r.p99)} | ${added(r.p50, a.p50)} | ${added(r.p99, a.p99)} | ${q} |`)
    }
  }
  const added = (k: number) => [0, per, 2 * per].map((i) => ms(rows[i + k]!.p50 - rows[i]!.p50)).join(' / ')
  console.log(`\nadded at p50, open mode: ${added(1)} ms; with a key: ${added(2)} ms; with a key trusted for 5 s: ${added(3)} ms (the three scenarios; goal <= 2 ms)`)
  await benchProxyCache(backend)
}
