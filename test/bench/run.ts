/**
 * npm run bench — HTTP benchmarks. Servers run in this process; load comes from
 * autocannon in a separate process. Every figure is compared with a baseline measured
 * in the same run (a bare Fastify route taking the same body), because these machines
 * are noisy. Env: BENCH_DURATION (s, default 10), BENCH_CONNECTIONS (default 50).
 */
import Fastify from 'fastify'
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { build } from '../../src/app.ts'
import { testConfig } from '../../src/config.ts'
import { openDatabase } from '../../src/db/database.ts'
import { syntheticConversation } from './conversation.ts'
import { BENCH_CONNECTIONS, BENCH_DURATION_S, load, table, type LoadResult } from './http.ts'

const LOG_LEVEL = 'warn' as const

async function bareServer() {
  // The same framework, logger level and body, doing nothing but parse and reply.
  const app = Fastify({ logger: { level: LOG_LEVEL }, bodyLimit: 20 * 1024 * 1024 })
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

async function main() {
  const database = await openDatabase({ pgliteDataDir: 'memory://' })
  const app = await build({
    config: testConfig({ LOG_LEVEL, RATE_LIMIT_MAX: 1_000_000_000 }),
    database,
    logger: { level: LOG_LEVEL },
  })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const bare = await bareServer()
  const appUrl = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
  const bareUrl = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}`

  const messages = syntheticConversation(20)
  const bodyBytes = JSON.stringify({ messages }).length
  console.log(`# /estimate benchmark: 20-message conversation (${bodyBytes} bytes), ${BENCH_CONNECTIONS} connections, ${BENCH_DURATION_S} s each`)

  // Warm up JIT and caches (tokenizer tables load lazily).
  await load('warmup', `${appUrl}/estimate`, { model: 'gpt-4o', method: 'tokenizer', messages }, { duration: 2 })

  const rows: LoadResult[] = []
  rows.push(await load('bare Fastify route (baseline)', `${bareUrl}/bare`, { model: 'gpt-4o', method: 'heuristic', messages }))
  rows.push(await load('bare route + zod validation', `${bareUrl}/bare-zod`, { model: 'gpt-4o', method: 'heuristic', messages }))
  rows.push(await load('/estimate heuristic', `${appUrl}/estimate`, { model: 'gpt-4o', method: 'heuristic', messages }))
  rows.push(await load('/estimate tokenizer (o200k)', `${appUrl}/estimate`, { model: 'gpt-4o', method: 'tokenizer', messages }))
  console.log(table(rows, rows[0]!))
  const [baseline, zodRow, heuristic, tokenizer] = rows as [LoadResult, LoadResult, LoadResult, LoadResult]
  console.log(`\nheuristic/bare: ${(heuristic.requestsPerSec / baseline.requestsPerSec).toFixed(2)} (goal >= 0.80)`)
  console.log(`tokenizer/bare: ${(tokenizer.requestsPerSec / baseline.requestsPerSec).toFixed(2)}`)
  console.log(`zod validation alone costs ${((1 - zodRow.requestsPerSec / baseline.requestsPerSec) * 100).toFixed(0)}% of the bare route's req/s`)

  await app.close()
  await bare.close()
  await database.close()
}

await main()
