/**
 * The TypeScript client (clients/typescript, @compactd/client) against a real compactd
 * listening on a port: its generated types are current, the package builds and resolves
 * by its name with its types, every route answers through it, errors come back typed,
 * and 429/503 are retried honouring Retry-After (an append only with an Idempotency-Key).
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import t from 'tap'
import { generateTypeScript, TS_SCHEMA_PATH } from '../../clients/generate.ts'
import { CompactdError, createCompactdClient, retryAfterMs, unwrap, type RetryInfo } from '../../clients/typescript/src/index.ts'
import { build } from '../../src/app.ts'
import { testConfig } from '../../src/config.ts'
import { createApiKey } from '../../src/tenancy/api-keys.ts'
import { buildTestApp } from '../helpers/build.ts'
import { startDbProxy } from '../helpers/db-proxy.ts'
import { createTestDatabase, POSTGRES_SKIP_REASON, postgresAvailable } from '../helpers/databases.ts'
import { prose } from '../helpers/prose.ts'
import { exchange } from '../helpers/session-conversations.ts'

const root = path.resolve(import.meta.dirname, '../..')
const packageDir = path.join(root, 'clients/typescript')

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  if (!address || typeof address === 'string') throw new Error('no port')
  return `http://127.0.0.1:${address.port}`
}

/** A coding agent's conversation (OpenAI format): a task, then `calls` tool calls with long results. */
function agentConversation(calls: number, chars: number): Record<string, unknown>[] {
  const messages: Record<string, unknown>[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Fix the failing test in src/db.ts' },
  ]
  for (let i = 0; i < calls; i++) {
    const id = `call_${i}`
    messages.push({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: `src/file${i}.ts` }) } }] })
    messages.push({ role: 'tool', tool_call_id: id, content: prose(chars, i + 1) })
  }
  messages.push({ role: 'assistant', content: 'The pool is closed twice; I removed the afterEach call.' })
  messages.push({ role: 'user', content: 'Good. Also make close() idempotent.' })
  return messages
}

/** The CompactdError that unwrap throws for this call (fails the test when it does not throw one). */
async function failure(pending: Promise<{ data?: unknown; error?: unknown; response: Response }>): Promise<CompactdError> {
  try {
    await unwrap(pending)
  } catch (err) {
    if (err instanceof CompactdError) return err
    throw err
  }
  throw new Error('expected a CompactdError')
}

const pgOk = await postgresAvailable()

t.test('the generated types are what openapi.yaml gives now (run `npx tsx clients/generate.ts` or `npm run openapi`)', async (t) => {
  t.equal(fs.readFileSync(TS_SCHEMA_PATH, 'utf8'), await generateTypeScript(), 'clients/typescript/src/schema.ts is current')
})

t.test('the package builds, and resolves by its name to ESM with types (package.json exports)', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'compactd-client-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  const pkg = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8'))
  t.equal(pkg.name, '@compactd/client')
  t.equal(pkg.type, 'module')
  t.ok(pkg.dependencies['openapi-fetch'], 'openapi-fetch is a dependency')

  // An installed copy: node_modules/@compactd/client holds package.json and the build.
  const installed = path.join(dir, 'node_modules/@compactd/client')
  fs.mkdirSync(installed, { recursive: true })
  fs.copyFileSync(path.join(packageDir, 'package.json'), path.join(installed, 'package.json'))
  const tsc = spawnSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(packageDir, 'tsconfig.json'), '--outDir', path.join(installed, 'dist')], { encoding: 'utf8' })
  t.equal(tsc.status, 0, `tsc builds the package: ${tsc.stdout}${tsc.stderr}`)
  for (const dep of ['openapi-fetch', 'ai', 'zod', '@ai-sdk', '@standard-schema', '@opentelemetry', '@vercel', 'typescript', '@types']) {
    if (fs.existsSync(path.join(root, 'node_modules', dep))) fs.symlinkSync(path.join(root, 'node_modules', dep), path.join(dir, 'node_modules', dep))
  }
  for (const [entry, target] of Object.entries<{ types: string; import: string }>(pkg.exports)) {
    t.ok(fs.existsSync(path.join(installed, target.types)), `${entry}: ${target.types} is built`)
    t.ok(fs.existsSync(path.join(installed, target.import)), `${entry}: ${target.import} is built`)
  }

  // Node resolves both entry points by name.
  fs.writeFileSync(
    path.join(dir, 'consumer.mjs'),
    `import * as client from '@compactd/client'\nimport * as aiSdk from '@compactd/client/ai-sdk'\nconsole.log(JSON.stringify([Object.keys(client).sort(), Object.keys(aiSdk).sort()]))\n`,
  )
  const run = spawnSync(process.execPath, [path.join(dir, 'consumer.mjs')], { cwd: dir, encoding: 'utf8' })
  t.equal(run.status, 0, run.stderr)
  t.same(JSON.parse(run.stdout), [
    ['CompactdError', 'createCompactdClient', 'recallToolsAnthropic', 'recallToolsOpenAI', 'retryAfterMs', 'unwrap'],
    ['compactdPrepareStep', 'recallTools'],
  ])

  // TypeScript finds the types through the same exports: a consumer type-checks, and a wrong body does not.
  fs.writeFileSync(
    path.join(dir, 'consumer.ts'),
    [
      `import { createCompactdClient, unwrap, type Schemas } from '@compactd/client'`,
      `import { compactdPrepareStep, recallTools } from '@compactd/client/ai-sdk'`,
      `const compactd = createCompactdClient({ baseUrl: 'http://127.0.0.1:3000' })`,
      `export async function f(): Promise<Schemas['EstimateResponse']> {`,
      `  const estimate = await unwrap(compactd.POST('/estimate', { body: { model: 'gpt-4o', messages: [] } }))`,
      `  const n: number = estimate.totalTokens`,
      `  void n`,
      `  void compactdPrepareStep({ client: compactd, model: 'gpt-4o' })`,
      `  void recallTools('s', { client: compactd }).search_context`,
      `  const hits: Schemas['ArchiveHit'][] = (await compactd.search('s', 'the failing test', { limit: 2 })).hits`,
      `  const read: string | undefined = (await compactd.read('s', hits[0]!.ref, { lines: '1-20' })).text`,
      `  const answer: string | undefined = await compactd.answerRecall('s', 'search_context', { query: 'x' })`,
      `  void read, answer`,
      `  return estimate`,
      `}`,
      `// @ts-expect-error: targetTokens is a number`,
      `void compactd.POST('/compact', { body: { messages: [], targetTokens: 'many' } })`,
      `// @ts-expect-error: lines is a string such as "120-180"`,
      `void compactd.read('s', 'abcdefgh', { lines: [1, 2] })`,
      `// @ts-expect-error: the path parameter is required`,
      `void compactd.GET('/sessions/{id}', {})`,
      '',
    ].join('\n'),
  )
  fs.writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, lib: ['ES2022', 'DOM'], types: [] }, files: ['consumer.ts'] }),
  )
  const check = spawnSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(dir, 'tsconfig.json')], { encoding: 'utf8' })
  t.equal(check.status, 0, `a consumer type-checks against the built .d.ts: ${check.stdout}${check.stderr}`)
})

t.test('every route, through the client, against a listening compactd', async (t) => {
  const { app } = await buildTestApp(t, { config: { WORKERS: 0 } })
  const compactd = createCompactdClient({ baseUrl: await listen(app) })

  const health = await unwrap(compactd.GET('/healthz'))
  t.same(health, { status: 'ok' })
  const ready = await unwrap(compactd.GET('/readyz'))
  t.equal(ready.status, 'ready')

  const messages = agentConversation(12, 3000)
  const estimate = await unwrap(compactd.POST('/estimate', { body: { model: 'gpt-4o', messages } }))
  t.equal(estimate.format, 'openai')
  t.ok(estimate.totalTokens > 5000, `counted ${estimate.totalTokens} tokens`)
  t.equal(estimate.perMessage?.length, messages.length)

  const compacted = await unwrap(compactd.POST('/compact', { body: { model: 'gpt-4o', messages, targetTokens: 3000, sessionId: 'ts-client' } }))
  t.equal(compacted.compacted, true)
  t.ok(compacted.event!.tokensAfter <= 3000, `compacted to ${compacted.event!.tokensAfter} tokens`)
  t.same(compacted.checkpoint, { sessionId: 'ts-client', checkpointNum: 1 })

  const page = await unwrap(compactd.GET('/sessions/{id}/checkpoints', { params: { path: { id: 'ts-client' }, query: { limit: 5 } } }))
  t.equal(page.items.length, 1)
  const checkpoint = await unwrap(compactd.GET('/sessions/{id}/checkpoints/{num}', { params: { path: { id: 'ts-client', num: 1 } } }))
  t.equal(checkpoint.checkpointNum, 1)
  const stats = await unwrap(compactd.GET('/sessions/{id}/stats', { params: { path: { id: 'ts-client' } } }))
  t.equal(stats.checkpoints, 1)
  // What the compaction dropped is archived (test/clients/typescript/recall.test.ts has the rest).
  const { hits } = await compactd.search('ts-client', 'the scheduler reads each card', { limit: 2 })
  t.ok(hits.length > 0, 'GET /sessions/{id}/search')
  const archived = await unwrap(compactd.GET('/sessions/{id}/archive/{ref}', { params: { path: { id: 'ts-client', ref: hits[0]!.ref }, query: { lines: '1' } } }))
  t.equal(archived.ref, hits[0]!.ref, 'GET /sessions/{id}/archive/{ref}')

  const created = await compactd.PUT('/sessions/{id}', { params: { path: { id: 'agent-1' } }, body: { windowMessages: 6, batchSize: 1, system: 'You are a coding agent.' } })
  t.equal(created.response.status, 201)
  t.equal(created.data!.id, 'agent-1')
  const first = await compactd.POST('/sessions/{id}/messages', { params: { path: { id: 'agent-1' }, header: { 'idempotency-key': 'append-1' } }, body: { messages: exchange(1) } })
  t.equal(first.data!.messageCount, 6)
  const replay = await compactd.POST('/sessions/{id}/messages', { params: { path: { id: 'agent-1' }, header: { 'idempotency-key': 'append-1' } }, body: { messages: exchange(1) } })
  t.equal(replay.response.headers.get('idempotent-replayed'), 'true', 'the Idempotency-Key header is sent')
  await unwrap(compactd.POST('/sessions/{id}/messages', { params: { path: { id: 'agent-1' } }, body: { messages: exchange(2) } }))
  const session = await unwrap(compactd.GET('/sessions/{id}', { params: { path: { id: 'agent-1' } } }))
  t.equal(session.messageCount, 12)

  const refresh = await compactd.POST('/sessions/{id}/summary/refresh', { params: { path: { id: 'agent-1' } } })
  t.equal(refresh.response.status, 202)
  t.equal(refresh.data!.priority, 'high')
  await app.summaryWorker.runOnce()
  const summary = await unwrap(compactd.GET('/sessions/{id}/summary', { params: { path: { id: 'agent-1' } } }))
  t.equal(summary.version, 1)
  t.match(summary.text, /src\/module1\.ts/)
  const edited = await unwrap(
    compactd.PUT('/sessions/{id}/summary', { params: { path: { id: 'agent-1' } }, body: { baseVersion: 1, content: `${summary.content}\n- Decided to keep one pg.Pool per process\n` } }),
  )
  t.equal(edited.version, 2)
  t.equal(edited.source, 'manual')
  const versions = await unwrap(compactd.GET('/sessions/{id}/summary/versions', { params: { path: { id: 'agent-1' }, query: { limit: 5 } } }))
  t.same(versions.items.map((v) => v.version), [2, 1])
  const version = await unwrap(compactd.GET('/sessions/{id}/summary/versions/{version}', { params: { path: { id: 'agent-1', version: 2 } } }))
  t.match(version.content, /pg\.Pool/)
  const window = await unwrap(compactd.GET('/sessions/{id}/messages', { params: { path: { id: 'agent-1' }, query: { status: 'window' } } }))
  t.equal(window.items.length, 6)
  const list = await unwrap(compactd.GET('/sessions', { params: { query: { q: 'agent', sort: 'id' } } }))
  t.same(list.items.map((s) => s.id), ['agent-1'])
  const context = await unwrap(compactd.GET('/sessions/{id}/context', { params: { path: { id: 'agent-1' }, query: { budget: 4000, format: 'anthropic' } } }))
  t.equal(context.format, 'anthropic')
  t.ok(context.tokens <= 4000)
  const continuation = await unwrap(compactd.GET('/sessions/{id}/continuation', { params: { path: { id: 'agent-1' } } }))
  t.match(continuation.prompt, /^\[Previous Session Context\]/)

  const log = [
    { type: 'session', version: 3, id: 'pi-1', timestamp: '2026-11-22T08:00:00.000Z', cwd: '/home/dev/blog' },
    { type: 'message', id: 'e1', parentId: null, timestamp: '2026-11-22T08:00:00.000Z', message: { role: 'user', content: [{ type: 'text', text: 'Add an RSS feed.' }] } },
  ]
  const imported = await unwrap(compactd.POST('/import', { body: { log: log.map((l) => JSON.stringify(l)).join('\n'), format: 'anthropic' } }))
  t.equal(imported.source, 'pi')
  t.same(imported.messages, [{ role: 'user', content: 'Add an RSS feed.' }])

  const metrics = await compactd.GET('/metrics', { parseAs: 'text' })
  t.match(metrics.data, /compactd_http_request_duration_seconds/)

  const deleted = await compactd.DELETE('/sessions/{id}', { params: { path: { id: 'agent-1' } } })
  t.equal(deleted.response.status, 204)
  const gone = await compactd.GET('/sessions/{id}', { params: { path: { id: 'agent-1' } } })
  t.equal(gone.response.status, 404)
})

t.test('errors come back typed: { error, message, issues, requestId }, and unwrap throws them as CompactdError', async (t) => {
  const { app } = await buildTestApp(t)
  const compactd = createCompactdClient({ baseUrl: await listen(app) })

  // Returned, as openapi-fetch does: `error` is the spec's Error schema.
  const { data, error, response } = await compactd.POST('/compact', { body: { messages: [], keepRecent: 2, keepRecentTokens: 100 } })
  t.equal(data, undefined)
  t.equal(response.status, 400)
  t.equal(error!.error, 'validation_error')
  t.same(error!.issues, [{ path: 'body.keepRecentTokens', message: 'mutually exclusive with keepRecent' }])
  t.equal(error!.requestId, response.headers.get('x-request-id'))

  // Thrown, with the route's extra fields on body.
  const err = await failure(compactd.POST('/compact', { body: { model: 'gpt-4o', messages: agentConversation(6, 2000), targetTokens: 20 } }))
  t.equal(err.status, 422)
  t.equal(err.error, 'budget_unreachable')
  t.match(err.message, /cannot fit 20 tokens/)
  t.type(err.body.minimumTokens, 'number', 'extra fields stay on body')
  t.type(err.requestId, 'string')

  const unknownField = await failure(compactd.POST('/estimate', { body: { messages: [], summarizer: 'x' } as never }))
  t.equal(unknownField.error, 'validation_error')
  t.same(unknownField.issues.map((i) => i.path), ['body.summarizer'])

  const missing = await failure(compactd.GET('/sessions/{id}', { params: { path: { id: 'nobody' } } }))
  t.equal(missing.status, 404)
  t.equal(missing.error, 'not_found')

  // What a gateway in between may send (an HTML page) still comes back in the API's shape.
  const gateway = createCompactdClient({
    baseUrl: `http://127.0.0.1:${(app.server.address() as { port: number }).port}`,
    retry: false,
    fetch: async (input) => (new URL(input.url).pathname === '/readyz' ? new Response('<html><h1>502 Bad Gateway</h1></html>', { status: 502, headers: { 'content-type': 'text/html' } }) : fetch(input)),
  })
  const bad = await gateway.GET('/readyz')
  t.equal(bad.error!.error, 'unexpected_response')
  t.match(bad.error!.message, /^HTTP 502 .*502 Bad Gateway/)
  t.same(await unwrap(gateway.GET('/healthz')), { status: 'ok' }, 'other routes go through')
})

t.test('the API key is sent as a bearer token; without it a 401 comes back typed', async (t) => {
  const { app, database } = await buildTestApp(t)
  const { key } = await createApiKey(database.db, 'acme')
  await app.authOpenMode({ refresh: true }) // the server notices new keys within 2 s; now
  const baseUrl = await listen(app)
  const anonymous = await failure(createCompactdClient({ baseUrl }).GET('/sessions/{id}', { params: { path: { id: 's' } } }))
  t.equal(anonymous.status, 401)
  t.equal(anonymous.error, 'unauthorized')
  const compactd = createCompactdClient({ baseUrl, apiKey: key })
  const put = await compactd.PUT('/sessions/{id}', { params: { path: { id: 's' } }, body: {} })
  t.equal(put.response.status, 201)
})

t.test('429: the client waits the Retry-After the server sent, then succeeds; without retries the error says when', async (t) => {
  const { app } = await buildTestApp(t, { config: { RATE_LIMIT_OPEN_MAX: 2, RATE_LIMIT_WINDOW_MS: 1000 } })
  const baseUrl = await listen(app)
  const body = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }] }
  /** Requests until the first 429 (2 are allowed per second): the CompactdError that ends it. */
  const first429 = async (compactd: ReturnType<typeof createCompactdClient>) => {
    for (let i = 0; i < 10; i++) {
      const res = await compactd.POST('/estimate', { body })
      if (!res.response.ok) return failure(Promise.resolve(res))
    }
    throw new Error('no 429 after 10 requests at a limit of 2 a second')
  }

  const retries: RetryInfo[] = []
  const compactd = createCompactdClient({ baseUrl, retry: { retries: 3, onRetry: (info) => retries.push(info) } })
  let waited = 0
  for (let i = 0; i < 10 && retries.length === 0; i++) {
    const started = performance.now()
    const estimate = await unwrap(compactd.POST('/estimate', { body }))
    waited = performance.now() - started
    t.ok(estimate.totalTokens > 0, 'answered (a retried request with its body too)')
  }
  t.equal(retries.length, 1, 'one retry')
  t.match(retries[0], { attempt: 1, status: 429, retryAfterMs: 1000, delayMs: 1000, method: 'POST' }, "the server's Retry-After is what the client waits")
  t.ok(waited >= 990, `the retried call took the Retry-After (${Math.round(waited)} ms)`)

  // No retries: a typed 429 with the server's Retry-After.
  const limited = await first429(createCompactdClient({ baseUrl, retry: false }))
  t.equal(limited.status, 429)
  t.equal(limited.error, 'rate_limited')
  t.equal(limited.retryAfterSeconds, 1)
  t.equal(limited.body.retryAfterSeconds, 1)

  // A Retry-After longer than maxDelayMs is not waited for.
  const impatient: RetryInfo[] = []
  const refused = await first429(createCompactdClient({ baseUrl, retry: { maxDelayMs: 500, onRetry: (i) => impatient.push(i) } }))
  t.equal(refused.status, 429)
  t.same(impatient, [], 'returned without a retry')
})

t.test('503 overloaded: retried after its Retry-After, and the retry is answered', async (t) => {
  const { app } = await buildTestApp(t, { config: { COMPUTE_THREADS: 1, COMPUTE_QUEUE_MAX: 0, COMPUTE_INLINE_MAX_BYTES: 0 } })
  const baseUrl = await listen(app)
  app.compute.pause() // every pooled task must wait, and no request may: the next /compact is a 503
  const retries: RetryInfo[] = []
  const compactd = createCompactdClient({
    baseUrl,
    retry: {
      onRetry: (info) => {
        retries.push(info)
        app.compute.resume() // the pool frees up while the client waits
      },
    },
  })
  const result = await unwrap(compactd.POST('/compact', { body: { model: 'gpt-4o', messages: agentConversation(10, 2000), targetTokens: 3000 } }))
  t.equal(result.compacted, true)
  t.equal(retries.length, 1)
  t.equal(retries[0]!.status, 503)
  t.ok(retries[0]!.retryAfterMs! >= 1000 && retries[0]!.delayMs === retries[0]!.retryAfterMs, `waited the server's Retry-After (${retries[0]!.retryAfterMs} ms)`)
  t.equal(app.compute.stats().overloaded, 1)
})

t.test('a 503 append is retried only with an Idempotency-Key (its COMMIT may have happened)', { skip: pgOk ? false : POSTGRES_SKIP_REASON }, async (t) => {
  const direct = await createTestDatabase('postgres')
  const target = new URL(direct.url!)
  const proxy = await startDbProxy({ host: target.hostname, port: Number(target.port || 5432) })
  const viaProxy = new URL(direct.url!)
  viaProxy.host = `127.0.0.1:${proxy.port}`
  const app = await build({ config: testConfig({ LOG_LEVEL: 'silent', WORKERS: 0, DATABASE_URL: viaProxy.toString() }), logger: false })
  t.teardown(async () => {
    await proxy.restore()
    await app.close()
    await proxy.close()
    await direct.close()
  })
  const retries: RetryInfo[] = []
  const compactd = createCompactdClient({ baseUrl: await listen(app), retry: { onRetry: (i) => retries.push(i) } })
  const stored = async () => (await direct.db.selectFrom('session_messages').select('seq').where('session_id', '=', 's1').execute()).length
  const append = (messages: unknown[], key?: string) =>
    compactd.POST('/sessions/{id}/messages', { params: { path: { id: 's1' }, header: key ? { 'idempotency-key': key } : {} }, body: { messages } })

  // The COMMIT reaches PostgreSQL, its answer is lost: the append is stored and answered 503.
  let lost = proxy.cutWhen({ sql: /^commit$/i, ackLost: true })
  const noKey = await append(exchange(1))
  await lost.fired
  t.equal(noKey.response.status, 503)
  t.equal(noKey.error!.error, 'database_unavailable')
  t.equal(retries.length, 0, 'without a key the client does not retry: that could store it twice')
  t.equal(await stored(), 6, 'stored once')

  lost = proxy.cutWhen({ sql: /^commit$/i, ackLost: true })
  const withKey = await append(exchange(2), 'k2')
  await lost.fired
  t.equal(withKey.response.status, 200, 'with a key the client retries after Retry-After')
  t.equal(withKey.response.headers.get('idempotent-replayed'), 'true', 'and the retry finds the stored append')
  t.match(retries, [{ status: 503, retryAfterMs: 5000, delayMs: 5000 }])
  t.equal(await stored(), 12, 'stored once')
})

t.test('Retry-After: delay-seconds or an HTTP date', async (t) => {
  const now = Date.parse('2026-11-24T12:00:00Z')
  t.equal(retryAfterMs('5', now), 5000)
  t.equal(retryAfterMs('0.5', now), 500)
  t.equal(retryAfterMs('Tue, 24 Nov 2026 12:00:07 GMT', now), 7000)
  t.equal(retryAfterMs('Tue, 24 Nov 2026 11:00:00 GMT', now), 0, 'a date in the past: now')
  t.equal(retryAfterMs('soon', now), undefined)
  t.equal(retryAfterMs(null, now), undefined)
})
