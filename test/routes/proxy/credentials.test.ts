/**
 * The proxy's credentials (routes/proxy.ts, issue 23): compactd's key in x-compactd-key,
 * the caller's provider key passed on and never kept (not in a log line, a database row or
 * a metric), and a client that goes away cancels the provider's request.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { Writable } from 'node:stream'
import { sql } from 'kysely'
import OpenAI from 'openai'
import t from 'tap'
import { build, loggerOptions } from '../../../src/app.ts'
import { testConfig } from '../../../src/config.ts'
import { createApiKey } from '../../../src/tenancy/api-keys.ts'
import { startFakeProvider } from '../../fakes/fake-llm-provider.ts'
import { buildTestApp } from '../../helpers/build.ts'
import { createTestDatabase, defaultBackend } from '../../helpers/databases.ts'
import { exchange, type Message } from '../../helpers/session-conversations.ts'

const PROVIDER_KEY = 'sk-proxy-secret-7f3a9c2e5b1d4f60'

function longConversation(): Message[] {
  const out: Message[] = [{ role: 'system', content: 'You are a coding agent.' }]
  for (let i = 0; i < 10; i++) out.push(...exchange(i, { padding: 40 }))
  return out
}

t.test("once keys exist, the proxy takes compactd's key in x-compactd-key, in the provider's error shape", async (t) => {
  const fake = await startFakeProvider({ apiKey: PROVIDER_KEY })
  t.teardown(() => fake.close())
  const { app } = await buildTestApp(t, { config: { UPSTREAM_OPENAI_URL: fake.openaiBaseURL, UPSTREAM_ANTHROPIC_URL: fake.anthropicBaseURL } })
  const { key } = await createApiKey(app.db, 'acme')
  t.equal(await app.authOpenMode({ refresh: true }), false)
  const payload = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }
  const without = await app.inject({ method: 'POST', url: '/v1/chat/completions', headers: { authorization: `Bearer ${PROVIDER_KEY}` }, payload })
  t.equal(without.statusCode, 401)
  t.match(without.json(), { error: { type: 'authentication_error', message: /x-compactd-key/ } })
  t.equal(fake.requests.length, 0, 'nothing reached the provider')
  const asBearer = await app.inject({ method: 'POST', url: '/v1/chat/completions', headers: { authorization: `Bearer ${key}` }, payload })
  t.equal(asBearer.statusCode, 401, "compactd's key in Authorization is the provider's credential, not compactd's")
  const ok = await app.inject({ method: 'POST', url: '/v1/chat/completions', headers: { authorization: `Bearer ${PROVIDER_KEY}`, 'x-compactd-key': key }, payload })
  t.equal(ok.statusCode, 200)
  t.equal(fake.lastRequest!.headers['x-compactd-key'], undefined, "compactd's key is not passed on")
  const anthropic = await app.inject({ method: 'POST', url: '/v1/messages', headers: { 'x-api-key': PROVIDER_KEY }, payload: { ...payload, max_tokens: 10 } })
  t.equal(anthropic.statusCode, 401)
  t.match(anthropic.json(), { type: 'error', error: { type: 'authentication_error' } }, "Anthropic's shape on /v1/messages")
})

t.test("the provider's key reaches no log line, database row or metric, through a compaction and an upstream error", async (t) => {
  const fake = await startFakeProvider({ apiKey: PROVIDER_KEY })
  t.teardown(() => fake.close())
  const lines: string[] = []
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk))
      done()
    },
  })
  const config = testConfig({ WORKERS: 0, LOG_LEVEL: 'trace', UPSTREAM_OPENAI_URL: fake.openaiBaseURL, UPSTREAM_ANTHROPIC_URL: fake.anthropicBaseURL })
  const database = await createTestDatabase(await defaultBackend())
  const app = await build({ config, database, logger: { ...loggerOptions(config), stream } })
  t.teardown(async () => {
    await app.close()
    await database.close()
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const port = (app.server.address() as AddressInfo).port
  const client = new OpenAI({ apiKey: PROVIDER_KEY, baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0, defaultHeaders: { 'x-compactd-threshold': '2000', 'x-compactd-session': 'keyed' } })
  const { response } = await client.chat.completions.create({ model: 'gpt-4o', messages: longConversation() as never }).withResponse()
  t.equal(response.headers.get('x-compactd-compacted'), 'true', 'a compaction, a checkpoint and an archive were written')
  fake.enqueue({ kind: 'http-error', status: 400, message: `bad request for key ${PROVIDER_KEY}` })
  await t.rejects(client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }), 'the upstream error passed through')
  const metrics = await app.inject({ method: 'GET', url: '/metrics' })
  t.match(metrics.body, /compactd_proxy_requests_total\{endpoint="\/v1\/chat\/completions",outcome="compacted"\} 1/)
  t.notOk(metrics.body.includes(PROVIDER_KEY.slice(3)), 'not in /metrics')
  t.ok(lines.length > 0, 'the service logged')
  t.notOk(lines.join('\n').includes(PROVIDER_KEY.slice(3)), 'not in any log line')
  await app.useCases.archiveIndexer.drain()
  const tables = await sql<{ table_name: string }>`select table_name from information_schema.tables where table_schema = current_schema()`.execute(app.db)
  let rows = 0
  for (const { table_name } of tables.rows) {
    const dump = await sql<{ row: string }>`select t::text as row from ${sql.table(table_name)} t`.execute(app.db)
    rows += dump.rows.length
    t.notOk(dump.rows.some((r) => r.row.includes(PROVIDER_KEY.slice(3))), `not in ${table_name}`)
  }
  t.ok(rows > 0, 'the database holds rows')
})

t.test("a client that goes away cancels the provider's request", async (t) => {
  let upstreamClosed: () => void
  const closed = new Promise<void>((resolve) => (upstreamClosed = resolve))
  // An upstream that streams one event, then waits for ever.
  const upstream = http.createServer((req, res) => {
    req.resume()
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.write('data: {"choices":[{"delta":{"content":"hel"}}]}\n\n')
    res.on('close', () => upstreamClosed())
  })
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    upstream.closeAllConnections()
    return new Promise<void>((resolve) => upstream.close(() => resolve()))
  })
  const { app } = await buildTestApp(t, { config: { UPSTREAM_OPENAI_URL: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1` } })
  await app.listen({ port: 0, host: '127.0.0.1' })
  // The client reads the first event, then goes away (its socket closed).
  const port = (app.server.address() as AddressInfo).port
  const first = await new Promise<string>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/v1/chat/completions', headers: { 'content-type': 'application/json' } }, (res) => {
      res.once('data', (chunk: Buffer) => {
        req.destroy()
        resolve(chunk.toString())
      })
    })
    req.on('error', reject)
    req.end(JSON.stringify({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'hi' }] }))
  })
  t.match(first, /hel/, 'the first event arrived as it was sent')
  const outcome = await Promise.race([closed.then(() => 'cancelled'), new Promise((resolve) => setTimeout(() => resolve('still open'), 5_000))])
  t.equal(outcome, 'cancelled', "the provider's request was closed")
})
