/**
 * npm run bench [-- estimate engine compact compact-floor sessions appends pool pool-threshold resent token-cache adversarial startup archive proxy controls footprint | soak [--pglite] | cluster] — benchmarks. Servers run in this process;
 * HTTP load comes from autocannon in a separate process. Every figure is compared with
 * a baseline measured in the same run, because these machines are noisy.
 * Env: BENCH_DURATION (s per run, default 10), BENCH_ROUNDS (interleaved rounds, default 3),
 * BENCH_CONNECTIONS (default 50).
 */
import Fastify from 'fastify'
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { build } from '../../src/app.ts'
import { testConfig, type Config } from '../../src/config.ts'
import { openDatabase } from '../../src/db/database.ts'
import { syntheticConversation } from './conversation.ts'
import { benchEngine, largestConversation } from './engine.ts'
import { benchAdversarial } from './adversarial.ts'
import { benchArchive } from './archive.ts'
import { benchProxy } from './proxy.ts'
import { benchControls } from './controls.ts'
import { benchFootprint } from './footprint.ts'
import { benchCompactFloor } from './compact-floor.ts'
import { benchComputePool, benchInlineThreshold } from './compute.ts'
import { benchSessionAppends, benchSessionSummaryReads } from './sessions.ts'
import { benchSoak } from './soak.ts'
import { benchCluster } from './cluster.ts'
import { benchStartup } from './startup.ts'
import { benchCacheBySize, benchResentHistory } from './token-cache.ts'
import { BENCH_CONNECTIONS, BENCH_DURATION_S, interleaved, load, table, type LoadResult } from './http.ts'

const LOG_LEVEL = 'warn' as const

async function bareServer() {
  // The same framework, logger level and body, doing nothing but parse and reply.
  const app = Fastify({ logger: { level: LOG_LEVEL }, bodyLimit: 50 * 1024 * 1024 })
  app.post('/bare', async (req) => ({ ok: Array.isArray((req.body as { messages?: unknown[] }).messages) }))
  // Same, plus zod validation of the /estimate request shape: isolates zod's cost.
  app.setValidatorCompiler(validatorCompiler)
  app.setSerializerCompiler(serializerCompiler)
  app.withTypeProvider<ZodTypeProvider>().post('/bare-zod', {
    schema: {
      body: z.strictObject({ messages: z.array(z.unknown()), model: z.string().optional(), method: z.enum(['tokenizer', 'heuristic', 'provider']).optional() }),
      response: { 200: z.object({ ok: z.boolean() }) },
    },
    handler: async (req) => ({ ok: req.body.messages.length > 0 }),
  })
  await app.listen({ host: '127.0.0.1', port: 0 })
  return app
}

async function compactd(config: Partial<Config> = {}) {
  const database = await openDatabase({ pgliteDataDir: 'memory://' })
  const app = await build({ config: testConfig({ LOG_LEVEL, RATE_LIMIT_MAX: 1_000_000_000, BODY_LIMIT_BYTES: 50 * 1024 * 1024, ...config }), database, logger: { level: LOG_LEVEL } })
  await app.listen({ host: '127.0.0.1', port: 0 })
  return { app, close: async () => (await app.close(), await database.close()) }
}

const url = (app: { server: { address(): unknown } }) => `http://127.0.0.1:${(app.server.address() as { port: number }).port}`

async function benchEstimate() {
  const { app, close } = await compactd()
  // The same service without the token-count cache: what the cache buys on this body.
  const uncached = await compactd({ TOKEN_CACHE_ENTRIES: 0 })
  const bare = await bareServer()
  const messages = syntheticConversation(20)
  console.log(`\n## /estimate: 20-message conversation (${JSON.stringify({ messages }).length} bytes), ${BENCH_CONNECTIONS} connections, ${BENCH_DURATION_S} s per run, rounds interleaved and averaged\n`)
  await load('warmup', `${url(app)}/estimate`, { model: 'gpt-4o', method: 'tokenizer', messages }, { duration: 2 })
  await load('warmup', `${url(uncached.app)}/estimate`, { model: 'gpt-4o', method: 'tokenizer', messages }, { duration: 2 })
  const body = { model: 'gpt-4o', method: 'heuristic', messages }
  const rows = await interleaved([
    { name: 'bare Fastify route (baseline)', url: `${url(bare)}/bare`, body },
    { name: 'bare route + zod validation', url: `${url(bare)}/bare-zod`, body },
    { name: '/estimate heuristic', url: `${url(app)}/estimate`, body },
    { name: '/estimate heuristic, ?perMessage=false', url: `${url(app)}/estimate?perMessage=false`, body },
    { name: '/estimate tokenizer (o200k)', url: `${url(app)}/estimate`, body: { ...body, method: 'tokenizer' } },
    { name: '/estimate heuristic, no token cache', url: `${url(uncached.app)}/estimate`, body },
    { name: '/estimate tokenizer, no token cache', url: `${url(uncached.app)}/estimate`, body: { ...body, method: 'tokenizer' } },
  ])
  console.log(table(rows, rows[0]!))
  const [baseline, zodRow, heuristic, lean, tokenizer, heuristicUncached, tokenizerUncached] = rows as [LoadResult, LoadResult, LoadResult, LoadResult, LoadResult, LoadResult, LoadResult]
  const ratio = (r: LoadResult) => (r.requestsPerSec / baseline.requestsPerSec).toFixed(2)
  console.log(`\nheuristic/bare: ${ratio(heuristic)} (goal >= 0.65, issue 25); ?perMessage=false ${ratio(lean)}; without the token cache ${ratio(heuristicUncached)}`)
  console.log(`tokenizer/bare: ${ratio(tokenizer)}; without the token cache ${ratio(tokenizerUncached)}`)
  console.log(`zod validation alone costs ${((1 - zodRow.requestsPerSec / baseline.requestsPerSec) * 100).toFixed(0)}% of the bare route's req/s`)
  await close()
  await uncached.close()
  await bare.close()
}

async function benchEngineSection() {
  const r = await benchEngine()
  console.log(`\n## Engine: ${r.name}: ${r.messages} messages, ${r.chars} characters, ${r.tokens} o200k tokens, rules to 10%\n`)
  console.log('| step | median ms | vs floor |')
  console.log('|---|---:|---:|')
  console.log(`| floor: JSON.parse + one exact o200k pass | ${r.floorMs.toFixed(1)} | 1.00× |`)
  console.log(`| compactd engine (parse + compact, rules) | ${r.engineMs.toFixed(1)} | ${(r.engineMs / r.floorMs).toFixed(2)}× (goal <= 3×) |`)
  console.log(`| compactd engine (parse + compact, mask + rules: the default) | ${r.pipelineMs.toFixed(1)} | ${(r.pipelineMs / r.floorMs).toFixed(2)}× (goal <= 3×) |`)
  console.log(`| LangChain trimMessages, same counter | ${r.trimMs.toFixed(1)} | ${(r.trimMs / r.floorMs).toFixed(2)}× |`)
  console.log(`\nengine vs trimMessages: ${(r.trimMs / r.engineMs).toFixed(1)}× faster`)
}

async function benchCompactHttp() {
  const { app, close } = await compactd()
  const bare = await bareServer()
  const { name, messages } = largestConversation()
  const body = { model: 'gpt-4o', messages, strategy: 'rules', targetTokens: 18_000 }
  const connections = 4
  console.log(`\n## POST /compact over HTTP: ${name} (${JSON.stringify(body).length} bytes), rules to 18k tokens, ${connections} connections, ${BENCH_DURATION_S} s each\n`)
  await load('warmup', `${url(app)}/compact`, body, { duration: 2, connections })
  const rows = await interleaved([
    { name: 'bare Fastify route, same body (baseline)', url: `${url(bare)}/bare`, body, opts: { connections } },
    { name: '/compact rules', url: `${url(app)}/compact`, body, opts: { connections } },
  ])
  console.log(table(rows, rows[0]!))
  await close()
  await bare.close()
}

const args = process.argv.slice(2)
const sections = args.filter((a) => !a.startsWith('--'))
// soak and cluster run only when named (5 and ~15 minutes): npm run bench -- soak [--pglite] | cluster
const wants = (s: string) => (sections.length === 0 && s !== 'soak' && s !== 'cluster') || sections.includes(s)
if (wants('estimate')) await benchEstimate()
if (wants('engine')) await benchEngineSection()
if (wants('compact')) await benchCompactHttp()
if (wants('sessions')) await benchSessionSummaryReads()
if (wants('appends')) await benchSessionAppends()
if (wants('pool')) await benchComputePool()
if (wants('pool-threshold')) await benchInlineThreshold()
if (wants('resent')) await benchResentHistory()
if (wants('token-cache')) await benchCacheBySize()
if (wants('adversarial')) await benchAdversarial()
if (wants('startup')) await benchStartup()
if (wants('archive')) await benchArchive()
if (wants('proxy')) await benchProxy()
if (wants('controls')) await benchControls()
if (wants('footprint')) await benchFootprint()
if (wants('compact-floor')) await benchCompactFloor()
if (wants('cluster')) await benchCluster()
if (wants('soak')) await benchSoak({ pglite: args.includes('--pglite') })
