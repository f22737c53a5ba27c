/**
 * The OWASP API Security Top 10 (2023) pass: one group per item that applies, listed in
 * docs/security.md. Routes come from the app's own route table (app.routeInventory), so
 * a route added later is held to every rule here without anyone listing it: a route
 * that takes a body or a path parameter this file does not know fails until it is
 * taught what to send.
 */
import diagnostics from 'node:diagnostics_channel'
import fs from 'node:fs'
import http from 'node:http'
import net from 'node:net'
import { Writable } from 'node:stream'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse, RouteOptions } from 'fastify'
import { sql, type Kysely } from 'kysely'
import t from 'tap'
import type * as Tap from 'tap'
import { parse } from 'yaml'
import { z } from 'zod'
import { build, loggerOptions } from '../src/app.ts'
import { ConfigError, loadConfig, testConfig, type Config } from '../src/config.ts'
import type { Database } from '../src/db/schema.ts'
import { API_CSP, PRE_ROUTING_HEADERS } from '../src/plugins/security-headers.ts'
import { UI_CSP, UI_PREFIX } from '../src/plugins/ui.ts'
import { createApiKey } from '../src/tenancy/api-keys.ts'
import { startFakeProvider, type FakeProvider } from './fakes/fake-llm-provider.ts'
import { buildTestApp } from './helpers/build.ts'
import { createTestDatabase, defaultBackend } from './helpers/databases.ts'
// Imported up front, as test/ui.test.ts does. (This file's SIGABRT in CI, first blamed on
// importing it mid-run, came from compute threads terminated while they loaded: see
// test/plugins/compute-pool/shutdown.test.ts.)
import { chromium } from 'playwright-core'

type Test = Tap.Test
type Response = LightMyRequestResponse

// ---------------------------------------------------------------------------
// The route table

interface Route {
  method: string
  url: string
  /** "METHOD /url", e.g. "GET /sessions/:id". */
  key: string
  config: { auth?: boolean; rateLimit?: unknown; proxy?: boolean }
  schema: RouteOptions['schema']
}

function routesOf(app: FastifyInstance): Route[] {
  const out: Route[] = []
  for (const r of app.routeInventory) {
    for (const method of [r.method].flat()) {
      out.push({ method, url: r.url, key: `${method} ${r.url}`, config: (r.config ?? {}) as Route['config'], schema: r.schema })
    }
  }
  return out
}

const isDocs = (url: string) => url === '/docs' || url.startsWith('/docs/')
const isUi = (url: string) => url === UI_PREFIX || url.startsWith(`${UI_PREFIX}/`)
/** Pages for browsers, not the API: Swagger UI and the dashboard (they hold no data). */
const isPage = (url: string) => isDocs(url) || isUi(url)
/**
 * The provider-compatible proxy's routes (routes/proxy.ts): the providers' wire format, not
 * compactd's API. Their bodies pass on with unknown fields, their errors take the
 * provider's shape, and compactd's key travels in x-compactd-key: test/routes/proxy.test.ts
 * holds them to those rules. Here they meet the rules every response meets (credentials in
 * the URL, security headers, no CORS).
 */
const isProxy = (r: Route) => r.config.proxy === true
/** Every route of compactd's own API: not the pages', not the proxy's. */
const apiRoutes = (app: FastifyInstance) => routesOf(app).filter((r) => !isPage(r.url) && !isProxy(r))

/** Routes anyone may call: probes and metrics (Swagger UI's are public as well). */
const PUBLIC = new Set(['GET /healthz', 'HEAD /healthz', 'GET /readyz', 'HEAD /readyz', 'GET /metrics', 'HEAD /metrics'])

/** Writes that create the caller's own session of that id (ids are per tenant). */
const CREATES_OWN = new Set(['PUT /sessions/:id', 'POST /sessions/:id/messages'])

function pathFor(route: Route, id: string): string {
  return route.url.replace(/:(\w+)/g, (_, name: string) => {
    if (name === 'id') return encodeURIComponent(id)
    if (name === 'num' || name === 'version') return '1'
    // An archive reference of the right shape (8 Crockford base32 characters).
    if (name === 'ref') return '7hq2k9xa'
    throw new Error(`${route.key}: unknown path parameter :${name}; teach pathFor() in test/security.test.ts what to put there`)
  })
}

/** A conversation long enough to compact to 3,000 tokens. */
function toolSession(seed = 0): Record<string, unknown>[] {
  const messages: Record<string, unknown>[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Read the files and fix the failing test.' },
  ]
  for (let i = 0; i < 12; i++) {
    const id = `c${seed}_${i}`
    messages.push(
      { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: `src/f${i}.ts` }) } }] },
      { role: 'tool', tool_call_id: id, content: `export const v${i} = ${seed}\n`.repeat(120) },
    )
  }
  messages.push({ role: 'assistant', content: 'All files read.' }, { role: 'user', content: 'Now fix it.' })
  return messages
}

/** A valid body for each route that takes one. */
/** A valid query string for routes that require one (by URL: GET and HEAD alike). */
const QUERIES: Record<string, string> = {
  '/sessions/:id/search': 'q=Secret',
}

const BODIES: Record<string, () => Record<string, unknown>> = {
  'POST /estimate': () => ({ messages: [{ role: 'user', content: 'hello' }] }),
  'POST /compact': () => ({ messages: toolSession(), targetTokens: 3000 }),
  'POST /display': () => ({ messages: [{ role: 'user', content: 'hello' }] }),
  'POST /import': () => ({ log: '{"type":"user","uuid":"u1","message":{"role":"user","content":"hello"}}\n' }),
  'PUT /sessions/:id': () => ({ windowMessages: 2, batchSize: 1 }),
  'POST /sessions/:id/messages': () => ({ messages: [{ role: 'user', content: 'next step' }, { role: 'assistant', content: 'done' }] }),
  'PUT /sessions/:id/summary': () => ({ content: '## Previously in This Session\n1. Written by hand\n' }),
  'POST /v1/chat/completions': () => ({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }] }),
  'POST /v1/responses': () => ({ model: 'gpt-4o', input: [{ role: 'user', content: 'hello' }] }),
  'POST /v1/messages': () => ({ model: 'claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'hello' }] }),
  'POST /v1/messages/count_tokens': () => ({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'hello' }] }),
}

function takesBody(route: Route): boolean {
  return route.schema?.body !== undefined
}

function bodyFor(route: Route): Record<string, unknown> | undefined {
  if (!takesBody(route)) return undefined
  const make = BODIES[route.key]
  if (!make) throw new Error(`${route.key} takes a body: add a valid one to BODIES in test/security.test.ts`)
  return make()
}

interface CallOptions {
  id?: string
  key?: string
  body?: unknown
  /** Raw payload (a string), instead of body. */
  payload?: string
  headers?: Record<string, string>
  query?: string
}

function call(app: FastifyInstance, route: Route, o: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...(o.key ? { authorization: `Bearer ${o.key}` } : {}), ...o.headers }
  const query = o.query ?? QUERIES[route.url]
  const req: InjectOptions = { method: route.method as 'GET', url: pathFor(route, o.id ?? 'sec-1') + (query ? `?${query}` : ''), headers }
  if (o.payload !== undefined) {
    req.payload = o.payload
    headers['content-type'] ??= 'application/json'
  } else if (o.body !== undefined) req.payload = o.body as Record<string, unknown>
  return app.inject(req)
}

const as = (key: string) => ({ authorization: `Bearer ${key}` })

/** The one error shape: exactly error, message, requestId (and issues/details when given). */
function errorBody(t: Test, res: Response, label: string): Record<string, unknown> {
  const body = res.json() as Record<string, unknown>
  t.type(body.error, 'string', `${label}: error code`)
  t.type(body.message, 'string', `${label}: message`)
  t.equal(body.requestId, res.headers['x-request-id'], `${label}: requestId`)
  t.notMatch(res.body, /\n\s+at |node:internal|\.ts:\d+|\/work\/|\/src\/|stack/i, `${label}: no stack trace or source path`)
  return body
}

// ---------------------------------------------------------------------------
// Database snapshots

async function tablesWith(db: Kysely<Database>, column: string): Promise<string[]> {
  const res = await sql<{ table_name: string }>`
    select table_name from information_schema.columns
    where table_schema = current_schema() and column_name = ${column} order by table_name`.execute(db)
  return res.rows.map((r) => r.table_name)
}

/** Every row of every tenant-scoped table that belongs to the tenant, as text. */
async function tenantSnapshot(db: Kysely<Database>, tenantId: string): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {}
  for (const table of await tablesWith(db, 'tenant_id')) {
    const res = await sql<{ row: string }>`select row_to_json(x)::text as row from ${sql.table(table)} x where tenant_id = ${tenantId}`.execute(db)
    out[table] = res.rows.map((r) => r.row).sort()
  }
  return out
}

/** Every row of every table, as text. */
async function databaseDump(db: Kysely<Database>): Promise<string> {
  const tables = await sql<{ table_name: string }>`
    select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db)
  const parts: string[] = []
  for (const { table_name } of tables.rows) {
    const res = await sql<{ row: string }>`select row_to_json(x)::text as row from ${sql.table(table_name)} x`.execute(db)
    parts.push(...res.rows.map((r) => r.row))
  }
  return parts.join('\n')
}

// ---------------------------------------------------------------------------
// An app whose log lines are kept

async function buildLogged(
  t: Test,
  config: Partial<Config> = {},
  before?: (app: FastifyInstance) => void,
): Promise<{ app: FastifyInstance; lines: string[] }> {
  const lines: string[] = []
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean))
      done()
    },
  })
  const cfg = testConfig({ WORKERS: 0, LOG_LEVEL: 'trace', ...config })
  const database = await createTestDatabase(await defaultBackend())
  // The service's own logger options (level, redaction), writing here.
  const app = await build({ config: cfg, database, logger: { ...loggerOptions(cfg), stream } })
  before?.(app)
  await app.ready()
  t.teardown(async () => {
    await app.close()
    await database.close()
  })
  return { app, lines }
}

async function keyedApp(t: Test, config: Partial<Config> = {}) {
  const built = await buildTestApp(t, { config })
  const a = await createApiKey(built.app.db, 'tenant-a')
  const b = await createApiKey(built.app.db, 'tenant-b')
  t.equal(await built.app.authOpenMode({ refresh: true }), false)
  return { ...built, a, b }
}

// ===========================================================================
// API1:2023 Broken Object Level Authorization

t.test("API1 BOLA: on every route that takes an id, another tenant's session is a 404 (as if it never existed) and nothing of it changes", async (t) => {
  const { app, a, b } = await keyedApp(t)
  const A = (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    app.inject({ method: method as 'GET', url, headers: { ...as(a.key), ...headers }, ...(payload !== undefined ? { payload: payload as object } : {}) })

  // A's session: messages (some evicted), a summary written by hand, two checkpoints.
  t.equal((await A('PUT', '/sessions/shared', { windowMessages: 2, batchSize: 1, system: 'System of A' })).statusCode, 201)
  for (let i = 0; i < 3; i++) {
    const res = await A('POST', '/sessions/shared/messages', { messages: [{ role: 'user', content: `Secret of A ${i}` }, { role: 'assistant', content: 'ok' }] })
    t.equal(res.statusCode, 200)
  }
  t.equal((await A('PUT', '/sessions/shared/summary', { content: '## Previously in This Session\n1. Secret of A\n' })).statusCode, 200)
  for (let k = 0; k < 2; k++) {
    const res = await A('POST', '/compact', { messages: toolSession(k), targetTokens: 3000, sessionId: 'shared' })
    t.equal(res.json().checkpoint?.checkpointNum, k + 1)
  }
  // What A's compactions archived is indexed in the background: done before the snapshot.
  await app.useCases.archiveIndexer.drain()
  const before = await tenantSnapshot(app.db, a.tenantId)
  t.equal(before.checkpoint_summaries?.length, 2, 'A has two checkpoints')
  t.equal(before.session_summaries?.length, 1, 'A has a summary')
  t.equal(before.session_messages?.length, 6, 'A has six messages')

  const idRoutes = apiRoutes(app).filter((r) => r.url.includes(':'))
  t.ok(idRoutes.length >= 19, `${idRoutes.length} routes take an id`)
  t.ok(idRoutes.every((r) => /^\/sessions\/:id(\/|$)/.test(r.url)), 'every id is a session id (and a number within it)')
  for (const route of idRoutes) {
    const body = bodyFor(route)
    const res = await call(app, route, { id: 'shared', key: b.key, body })
    const ghost = await call(app, route, { id: 'never-existed', key: b.key, body })
    t.notMatch(res.body, /Secret of A|System of A/, `${route.key}: nothing of A's`)
    if (CREATES_OWN.has(route.key)) {
      // Ids are per tenant: B's write makes B's own, empty session of that id.
      t.ok(res.statusCode === 200 || res.statusCode === 201, `${route.key}: B writes its own session (${res.statusCode})`)
      const json = res.json()
      if (route.key === 'PUT /sessions/:id') t.same([res.statusCode, json.messageCount, json.settings.system], [201, 0, undefined], 'a new session, not A\'s')
      else t.same([json.firstSeq, json.messageCount], [1, 2], 'numbered from 1, not after A\'s messages')
      for (const id of ['shared', 'never-existed']) t.equal((await app.inject({ method: 'DELETE', url: `/sessions/${id}`, headers: as(b.key) })).statusCode, 204)
    } else {
      t.equal(res.statusCode, 404, `${route.key}: B on A's session is a 404`)
      t.equal(res.statusCode, ghost.statusCode, `${route.key}: as for an id that never existed`)
      if (route.method !== 'HEAD') {
        t.equal(errorBody(t, res, route.key).error, 'not_found')
        const normalise = (r: Response, id: string) => ({ ...r.json(), requestId: undefined, message: r.json().message.split(id).join('<id>') })
        t.same(normalise(res, 'shared'), normalise(ghost, 'never-existed'), `${route.key}: the same body as for an id that never existed`)
      }
    }
    t.same(await tenantSnapshot(app.db, a.tenantId), before, `${route.key}: A's rows unchanged`)
  }

  // Routes that list: B sees nothing of A's.
  const lists = apiRoutes(app).filter((r) => !r.url.includes(':') && !PUBLIC.has(r.key) && (r.method === 'GET'))
  for (const route of lists) {
    const res = await call(app, route, { key: b.key })
    t.equal(res.statusCode, 200, `${route.key} as B`)
    t.notMatch(res.body, /shared|Secret of A|System of A/, `${route.key}: none of A's sessions`)
  }
  t.ok(lists.some((r) => r.key === 'GET /sessions'), 'GET /sessions is among them')
  t.match((await app.inject({ method: 'GET', url: '/sessions', headers: as(a.key) })).body, /shared/, 'while A sees its own there (so the check can fail)')

  // Ids in bodies: the only one is /compact's sessionId, checked here (a new one fails this list).
  const bodyIds = apiRoutes(app).flatMap((r) => {
    const body = r.schema?.body
    return body instanceof z.ZodObject ? Object.keys(body.shape).filter((k) => /id$/i.test(k)).map((k) => `${r.key} body.${k}`) : []
  })
  t.same(bodyIds, ['POST /compact body.sessionId'], 'every id a body carries is checked below')
  const theirs = await app.inject({ method: 'POST', url: '/compact', headers: as(b.key), payload: { messages: toolSession(5), targetTokens: 3000, sessionId: 'shared' } })
  t.equal(theirs.statusCode, 200)
  t.same(theirs.json().checkpoint, { sessionId: 'shared', checkpointNum: 1 }, "B's checkpoints are numbered apart from A's")
  t.equal(theirs.json().event.round, 1, "B's round does not continue A's")
  t.same(await tenantSnapshot(app.db, a.tenantId), before, "B's compaction with A's sessionId left A's rows unchanged")
  t.equal((await A('GET', '/sessions/shared/stats')).json().checkpoints, 2)

  // An Idempotency-Key is the tenant's own: B reusing A's never replays A's response.
  const first = await A('POST', '/sessions/shared/messages', { messages: [{ role: 'user', content: 'keyed' }] }, { 'idempotency-key': 'same-key' })
  t.equal(first.json().firstSeq, 7)
  const replay = await app.inject({ method: 'POST', url: '/sessions/shared/messages', headers: { ...as(b.key), 'idempotency-key': 'same-key' }, payload: { messages: [{ role: 'user', content: 'B' }] } })
  t.equal(replay.statusCode, 200)
  t.equal(replay.headers['idempotent-replayed'], undefined, "not A's stored response")
  t.same([replay.json().firstSeq, replay.json().messageCount], [1, 1])
})

// ===========================================================================
// API2:2023 Broken Authentication

t.test('API2 broken authentication: every non-public route is a 401 in the one shape for any bad key; keys are stored hashed and never logged', async (t) => {
  const { app, lines } = await buildLogged(t)
  const { key, keyId } = await createApiKey(app.db, 'acme')
  const revoked = await createApiKey(app.db, 'acme')
  await app.db.updateTable('api_keys').set({ revoked_at: new Date() }).where('id', '=', revoked.keyId).execute()
  t.equal(await app.authOpenMode({ refresh: true }), false)

  const wrong = `cpd_${'A'.repeat(43)}`
  const bad: [string, Record<string, string>][] = [
    ['no key', {}],
    ['wrong key', { authorization: `Bearer ${wrong}` }],
    ['revoked key', { authorization: `Bearer ${revoked.key}` }],
    ['empty bearer', { authorization: 'Bearer ' }],
    ['Basic scheme', { authorization: `Basic ${Buffer.from(`x:${key}`).toString('base64')}` }],
    ['key without scheme', { authorization: key }],
    ['two tokens', { authorization: `Bearer ${key} ${key}` }],
    ['key in another header', { 'x-api-key': key }],
  ]
  const messages = new Set<string>()
  const routes = apiRoutes(app).filter((r) => !PUBLIC.has(r.key))
  t.ok(routes.length >= 21, `${routes.length} routes need a key`)
  for (const route of routes) {
    for (const [label, headers] of bad) {
      const res = await call(app, route, { headers, body: bodyFor(route) })
      t.equal(res.statusCode, 401, `${route.key}, ${label}: 401`)
      t.equal(res.headers['www-authenticate'], 'Bearer', `${route.key}, ${label}: WWW-Authenticate`)
      if (route.method === 'HEAD') continue
      const body = errorBody(t, res, `${route.key}, ${label}`)
      t.same(Object.keys(body).sort(), ['error', 'message', 'requestId'], `${route.key}, ${label}: nothing but the error shape`)
      t.equal(body.error, 'unauthorized')
      messages.add(body.message as string)
      t.notMatch(res.body, /acme|tenant|revoked|expired|cpd_/i, `${route.key}, ${label}: no hint of what exists`)
    }
  }
  t.equal(messages.size, 1, 'one message for every kind of bad key')
  const good = await app.inject({ method: 'POST', url: '/estimate', headers: { authorization: `bearer  ${key}` }, payload: BODIES['POST /estimate']!() })
  t.equal(good.statusCode, 200, 'the scheme is case-insensitive (RFC 9110)')

  // Stored as SHA-256 only: no table holds the key, nor its secret beyond the 12-character display prefix.
  const dump = await databaseDump(app.db)
  t.ok(dump.includes(keyId), 'the dump covers api_keys')
  for (const k of [key, revoked.key]) {
    t.notOk(dump.includes(k), 'the key is in no table')
    t.notOk(dump.includes(k.slice(12)), 'nor its secret part')
  }

  // Logs: every request above at trace level, and a 500 with the key in its headers.
  t.ok(lines.length > 100, `${lines.length} log lines captured`)
  t.ok(lines.some((l) => l.includes('"reqId"')), 'request logs are there')
  const logs = lines.join('\n')
  for (const secret of [key, key.slice(12), revoked.key.slice(12), wrong]) t.notOk(logs.includes(secret), 'no key in any log line')
  t.notMatch(logs, /Basic [A-Za-z0-9+/=]{8,}/, 'no credentials of other schemes')
})

t.test('API2 credentials in the URL: refused with a 400 credentials_in_url on every route, before authentication; no query value is logged', async (t) => {
  const { app, lines } = await buildLogged(t)
  const { key } = await createApiKey(app.db, 'acme')
  t.equal(await app.authOpenMode({ refresh: true }), false)
  const names = ['api_key', 'apikey', 'API-Key', 'key', 'x-compactd-key', 'x-api-key', 'access_token', 'token', 'authorization']
  const routes = routesOf(app).filter((r) => r.method !== 'HEAD')
  t.ok(routes.some((r) => isUi(r.url)) && routes.some((r) => isDocs(r.url)) && routes.some((r) => PUBLIC.has(r.key)), 'pages and public routes included')
  for (const route of routes) {
    for (const [label, query] of [...names.map((n) => [n, `${n}=${key}`]), ['a value with the key prefix', `q=${key}`], ['the key as a name', key], ['a key as a second value', `limit=5&sort=${encodeURIComponent(key)}`]] as const) {
      // With the right key in the header too: the URL still must not carry it.
      for (const headers of [{}, as(key)]) {
        const res = await call(app, route, { query, headers, body: bodyFor(route) })
        t.equal(res.statusCode, 400, `${route.key} ?${label}: 400`)
        t.notOk(res.body.includes(key.slice(4)), 'the key is not echoed')
        if (isProxy(route)) {
          // The provider's error shape (OpenAI's or Anthropic's), the same refusal.
          t.match(JSON.stringify(res.json()), /credentials are not accepted in the URL/, `${route.key} ?${label}: refused in the provider's shape`)
          continue
        }
        const body = errorBody(t, res, `${route.key} ?${label}`)
        t.equal(body.error, 'credentials_in_url')
        t.match(body.message as string, /Authorization header/, 'says where the key goes')
        t.notOk(res.body.includes(key.slice(4)), 'the key is not echoed')
      }
    }
  }
  const unknown = await app.inject({ method: 'GET', url: `/no/such/route?api_key=${key}` })
  t.equal(unknown.json().error, 'credentials_in_url', 'an unknown route too')
  const named = await app.inject({ method: 'GET', url: `/sessions?api_key=${key}` })
  t.same(named.json().issues, [{ path: 'querystring.api_key', message: 'a credential in the URL; send it in the Authorization header' }], 'names the parameter')

  // A request whose query values are text: logged with the values redacted, except harmless ones.
  const listed = await app.inject({ method: 'GET', url: '/sessions?q=private-words&limit=5&sort=id', headers: as(key) })
  t.equal(listed.statusCode, 200)
  const logs = lines.join('\n')
  t.notOk(logs.includes(key.slice(4)), 'no key in any log line')
  t.notOk(logs.includes('private-words'), 'no query text in any log line')
  const urls = lines.map((l) => (JSON.parse(l) as { req?: { url?: string } }).req?.url).filter((u): u is string => typeof u === 'string')
  t.ok(urls.includes('/sessions?api_key=[redacted]'), 'the refused request is logged with its value redacted')
  t.ok(urls.includes('/sessions?q=[redacted]&limit=5&sort=id'), 'enum and number values are kept')
  t.ok(urls.includes('/sessions?[redacted]'), 'a name that is a key is redacted')
})

// ===========================================================================
// API3:2023 Broken Object Property Level Authorization (mass assignment)

/** Fields the server owns; no request body may set them. */
const SERVER_OWNED_BUT = {
  /** The agent that wrote the log, not who wrote a summary. */
  'POST /import': ['source'],
} as Record<string, string[]>
const SERVER_OWNED = ['tenantId', 'tenant_id', 'tenant', 'keyId', 'id', 'seq', 'version', 'createdAt', 'updatedAt', 'created_at', 'messageCount', 'status', 'source', 'checkpointNum', 'round']

t.test('API3 mass assignment: unknown body fields are a 400 on every route, and no body can set a field the server owns', async (t) => {
  const { app, database } = await buildTestApp(t)
  t.equal((await app.inject({ method: 'PUT', url: '/sessions/sec-1', payload: {} })).statusCode, 201)
  const bodyRoutes = apiRoutes(app).filter(takesBody)
  t.same(bodyRoutes.map((r) => r.key).sort(), Object.keys(BODIES).filter((k) => !k.startsWith('POST /v1/')).sort(), "every route with a body is checked (and only those take one; the proxy's pass unknown fields on)")
  for (const route of bodyRoutes) {
    const shape = (route.schema!.body as z.ZodObject).shape
    const own = SERVER_OWNED_BUT[route.key] ?? []
    t.same(SERVER_OWNED.filter((f) => f in shape), own, `${route.key}: declares none of the server's fields (but a field of its own of that name)`)
    const control = await call(app, route, { body: bodyFor(route) })
    t.ok(control.statusCode < 300, `${route.key}: the valid body is accepted (${control.statusCode})`)
    for (const field of [...SERVER_OWNED.filter((f) => !own.includes(f)), 'x_unknown']) {
      const res = await call(app, route, { body: { ...bodyFor(route), [field]: field === 'tenantId' ? 'another-tenant' : 1 } })
      t.equal(res.statusCode, 400, `${route.key} with ${field}: 400`)
      const body = errorBody(t, res, `${route.key} ${field}`)
      t.equal(body.error, 'validation_error')
      t.same(body.issues, [{ path: `body.${field}`, message: 'unknown field' }], `${route.key}: names body.${field}`)
    }
  }
  // Nested objects are strict too.
  const nested = await app.inject({ method: 'PUT', url: '/sessions/sec-1', payload: { summarizer: { provider: 'openai', tenantId: 'x' } } })
  t.same(nested.json().issues, [{ path: 'body.summarizer.tenantId', message: 'unknown field' }])

  // A message is the caller's own object: fields named like the server's are kept in it,
  // byte for byte, and set nothing (seq, tenant, status come from the server).
  const forged = { role: 'user', content: 'hello', seq: 999, tenant_id: 'another-tenant', session_id: 'other', status: 'summarized' }
  t.equal((await app.inject({ method: 'POST', url: '/sessions/forged/messages', payload: { messages: [forged] } })).statusCode, 200)
  const rows = await database.db.selectFrom('session_messages').select(['seq', 'status', 'tenant_id', 'session_id', sql<string>`raw::text`.as('raw')]).where('session_id', '=', 'forged').execute()
  const tenantId = (await database.db.selectFrom('tenants').select('id').where('name', '=', 'default').executeTakeFirstOrThrow()).id
  t.same(rows.map((r) => [Number(r.seq), r.status, r.tenant_id, r.session_id]), [[1, 'window', tenantId, 'forged']], 'seq, status and tenant are the server\'s')
  t.equal(rows[0]!.raw, JSON.stringify(forged), 'the message itself is kept byte for byte')

  // Versions are the server's: a client names the version it read, never the one written.
  const ahead = await app.inject({ method: 'PUT', url: '/sessions/sec-1/summary', payload: { content: '## Previously in This Session\n1. x\n', baseVersion: 99 } })
  t.equal(ahead.statusCode, 409, 'a baseVersion ahead of the current one is a conflict')
  const versions = await database.db.selectFrom('session_summaries').select('version').where('session_id', '=', 'sec-1').execute()
  t.same(versions.map((v) => Number(v.version)), [1], 'versions go 1, 2, ... whatever the client sends')

  // Nor does any response expose the server's own fields: no tenant id on any route.
  for (const route of apiRoutes(app).filter((r) => r.method !== 'HEAD' && r.method !== 'DELETE')) {
    const res = await call(app, route, { body: bodyFor(route) })
    t.notOk(res.body.includes(tenantId), `${route.key} (${res.statusCode}): no tenant id in the response`)
  }
})

// ===========================================================================
// API4:2023 Unrestricted Resource Consumption

t.test('API4 resource limits: body size, nesting, array and string lengths, ids', async (t) => {
  const { app } = await buildTestApp(t, { config: { BODY_LIMIT_BYTES: 64 * 1024 } })
  const bodyRoutes = apiRoutes(app).filter(takesBody)
  for (const route of bodyRoutes) {
    const big = await call(app, route, { body: { messages: [{ role: 'user', content: 'x'.repeat(70 * 1024) }] } })
    t.equal(big.statusCode, 413, `${route.key}: 413 over BODY_LIMIT_BYTES`)
    t.equal(errorBody(t, big, route.key).error, 'payload_too_large')
    let deep: unknown = 'leaf'
    for (let i = 0; i < 70; i++) deep = { d: deep }
    const tooDeep = await call(app, route, { body: { ...bodyFor(route), deep } })
    t.equal(tooDeep.statusCode, 400, `${route.key}: nesting over 64 levels is a 400`)
    t.equal(errorBody(t, tooDeep, route.key).error, 'nesting_too_deep')
  }

  const { app: roomy } = await buildTestApp(t)
  const cases: [string, InjectOptions, string][] = [
    ['messages over 100,000', { method: 'POST', url: '/estimate', payload: { messages: new Array(100_001).fill(0) } }, 'body.messages'],
    ['compact messages over 100,000', { method: 'POST', url: '/compact', payload: { messages: new Array(100_001).fill(0) } }, 'body.messages'],
    ['appended messages over 100,000', { method: 'POST', url: '/sessions/lim/messages', payload: { messages: new Array(100_001).fill(0) } }, 'body.messages'],
    ['instructions over 20,000 characters', { method: 'POST', url: '/compact', payload: { messages: [], instructions: 'x'.repeat(20_001) } }, 'body.instructions'],
    ['excludeTools over 1,000', { method: 'POST', url: '/compact', payload: { messages: [], excludeTools: new Array(1_001).fill('t') } }, 'body.excludeTools'],
    ['a summary over 4,000,000 characters', { method: 'PUT', url: '/sessions/lim/summary', payload: { content: 'x'.repeat(4_000_001) } }, 'body.content'],
    ['a system prompt over 1,000,000 characters', { method: 'PUT', url: '/sessions/lim', payload: { system: 'x'.repeat(1_000_001) } }, 'body.system'],
    ['a model name over 200 characters', { method: 'POST', url: '/estimate', payload: { messages: [], model: 'm'.repeat(201) } }, 'body.model'],
    ['a page over 100 checkpoints', { method: 'GET', url: '/sessions/lim/checkpoints?limit=101' }, 'querystring.limit'],
    ['a page of the session list over 200', { method: 'GET', url: '/sessions?limit=201' }, 'querystring.limit'],
    ['a page of summary versions over 200', { method: 'GET', url: '/sessions/lim/summary/versions?limit=201' }, 'querystring.limit'],
    ['a page of stored messages over 200', { method: 'GET', url: '/sessions/lim/messages?limit=201' }, 'querystring.limit'],
    ['a context budget over 100,000,000', { method: 'GET', url: '/sessions/lim/context?budget=100000001' }, 'querystring.budget'],
    ['an Idempotency-Key over 200 characters', { method: 'POST', url: '/sessions/lim/messages', headers: { 'idempotency-key': 'k'.repeat(201) }, payload: { messages: [{ role: 'user', content: 'a' }] } }, 'headers.idempotency-key'],
    ['a session id over 200 characters', { method: 'GET', url: `/sessions/${'s'.repeat(201)}` }, 'params.id'],
  ]
  for (const [label, req, path] of cases) {
    const res = await roomy.inject(req)
    t.equal(res.statusCode, 400, label)
    t.equal((errorBody(t, res, label).issues as { path: string }[] | undefined)?.[0]?.path, path, `${label}: names ${path}`)
  }
  t.equal((await roomy.inject({ method: 'GET', url: `/sessions/${'s'.repeat(5000)}` })).statusCode, 414, 'a URL parameter past the router limit is a 414')
  // The largest pages are accepted (docs/api.md, docs/security.md: 200 for the session listings, 100 for checkpoints).
  t.equal((await roomy.inject({ method: 'PUT', url: '/sessions/lim', payload: {} })).statusCode, 201)
  for (const url of ['/sessions?limit=200', '/sessions/lim/summary/versions?limit=200', '/sessions/lim/messages?limit=200']) t.equal((await roomy.inject({ method: 'GET', url })).statusCode, 200, `${url}: 200`)
  t.not((await roomy.inject({ method: 'GET', url: '/sessions/lim/checkpoints?limit=100' })).statusCode, 400, 'checkpoints?limit=100: accepted (a 404: none yet)')
})

t.test('API4 rate limit: every route that needs a key is limited per key, invalid requests included, with a 429 and Retry-After', async (t) => {
  const { app } = await buildTestApp(t, { config: { RATE_LIMIT_MAX: 2, RATE_LIMIT_WINDOW_MS: 60_000 } })
  await createApiKey(app.db, 'warm-up')
  t.equal(await app.authOpenMode({ refresh: true }), false)
  const limited = apiRoutes(app).filter((r) => !PUBLIC.has(r.key))
  for (const route of limited) {
    t.not(route.config.rateLimit, false, `${route.key} is rate limited`)
    const { key } = await createApiKey(app.db, `rl-${route.key}`.replace(/[^\w.@-]/g, '_'))
    // Two invalid requests (an unknown query parameter: a 400) use up the budget: a client
    // cannot make the service parse and validate bodies without limit.
    for (let i = 0; i < 2; i++) t.equal((await call(app, route, { key, body: bodyFor(route), query: 'not_a_parameter=1' })).statusCode, 400, `${route.key}: invalid request ${i + 1}`)
    const res = await call(app, route, { key, payload: '{"not json' })
    t.equal(res.statusCode, 429, `${route.key}: 429 once the key's budget is spent, before the body is read`)
    const retryAfter = Number(res.headers['retry-after'])
    t.ok(retryAfter > 0 && retryAfter <= 60, `${route.key}: Retry-After ${retryAfter}`)
    if (route.method !== 'HEAD') t.equal(errorBody(t, res, route.key).error, 'rate_limited')
  }
  t.ok(limited.length >= 21, `${limited.length} routes checked`)
})

t.test('API4 slow clients: a request that does not arrive within REQUEST_TIMEOUT_MS is a 408 and its connection is closed', async (t) => {
  const { app } = await buildTestApp(t, { config: { REQUEST_TIMEOUT_MS: 1000 } })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as net.AddressInfo
  const started = Date.now()
  const socket = net.connect(port, '127.0.0.1')
  socket.write('POST /estimate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"messages":')
  let received = ''
  socket.on('data', (d) => (received += d))
  await new Promise((resolve) => socket.on('close', resolve))
  const elapsed = Date.now() - started
  t.ok(elapsed >= 900 && elapsed < 5000, `closed after ${elapsed} ms`)
  t.match(received, /^HTTP\/1\.1 408 /, 'a 408')
  t.match(received, /"error":"request_timeout"/, 'in the error shape')
})

// ===========================================================================
// API5:2023 Broken Function Level Authorization

t.test('API5 function level: the public routes are an allow-list, no route manages keys or tenants, and a tenant key does not open /metrics', async (t) => {
  const token = 'm'.repeat(16) + 'etrics-token-0123456789'
  const { app, a } = await keyedApp(t, { METRICS_TOKEN: token })
  const routes = apiRoutes(app)
  t.same(routes.filter((r) => r.config.auth === false).map((r) => r.key).sort(), [...PUBLIC].sort(), 'routes without an API key: exactly the probes and /metrics')
  t.same(routes.filter((r) => r.config.rateLimit === false).map((r) => r.key).sort(), [...PUBLIC].sort(), 'routes without a rate limit: the same')
  t.ok(routesOf(app).filter((r) => isPage(r.url)).every((r) => r.config.auth === false && /^(GET|HEAD) /.test(r.key)), 'Swagger UI and the dashboard page: read-only routes, no data')
  t.same(routes.filter((r) => /key|tenant|admin|user|account|token/i.test(r.url)).map((r) => r.key), [], 'no HTTP route manages keys or tenants (npm run key:create does)')
  t.same(routesOf(app).filter(isProxy).map((r) => r.key).sort(), ['GET /v1/models', 'HEAD /v1/models', 'POST /v1/chat/completions', 'POST /v1/messages', 'POST /v1/messages/count_tokens', 'POST /v1/responses'], "the proxy's routes: the providers' endpoints only")
  t.ok(routesOf(app).filter(isProxy).every((r) => r.config.auth !== false && r.config.rateLimit !== false), "the proxy's routes need a key (x-compactd-key) and are rate limited")

  const metrics = (headers: Record<string, string>) => app.inject({ method: 'GET', url: '/metrics', headers })
  for (const [label, headers] of [
    ['no credential', {}],
    ["a tenant's API key", as(a.key)],
    ['a wrong token', as(`${token}x`)],
    ['the token in another scheme', { authorization: `Basic ${token}` }],
  ] as const) {
    const res = await metrics(headers)
    t.equal(res.statusCode, 401, `/metrics with ${label}: 401`)
    t.equal(errorBody(t, res, label).error, 'unauthorized')
    t.match(res.headers['www-authenticate'], /^Bearer/)
  }
  const ok = await metrics(as(token))
  t.equal(ok.statusCode, 200, 'the metrics token opens /metrics')
  t.match(ok.body, /compactd_http_request_duration_seconds/)
  t.equal((await app.inject({ method: 'GET', url: '/sessions/x', headers: as(token) })).statusCode, 401, 'and nothing else: it is not an API key')

  // Too short a token stops the service, naming the variable but not the value.
  const refused = (() => {
    try {
      loadConfig({ METRICS_TOKEN: 'short-secret' })
    } catch (err) {
      return err
    }
  })()
  t.ok(refused instanceof ConfigError, 'a token under 32 characters is refused')
  t.match((refused as Error).message, /^invalid configuration: METRICS_TOKEN="\[redacted\]": must be at least 32 characters/)
})

t.test('API5 /metrics without a token (public): totals only, nothing of any tenant', async (t) => {
  const { app, a } = await keyedApp(t)
  const secretId = 'acme-private-session-7'
  const content = 'CONTENT-SECRET-4711'
  await app.inject({ method: 'POST', url: `/sessions/${secretId}/messages`, headers: as(a.key), payload: { messages: [{ role: 'user', content }] } })
  await app.inject({ method: 'POST', url: '/compact', headers: as(a.key), payload: { messages: toolSession(), targetTokens: 3000, sessionId: secretId } })
  await app.inject({ method: 'GET', url: `/sessions/${secretId}/nope?x=${content}`, headers: as(a.key) })
  const res = await app.inject({ method: 'GET', url: '/metrics' })
  t.equal(res.statusCode, 200)
  t.match(res.body, /compactd_compactions_total\{strategy="\w+"\} 1/, 'the compaction is counted')
  for (const secret of [secretId, content, a.tenantId, a.keyId, a.key, 'tenant-a']) t.notOk(res.body.includes(secret), `no ${secret.slice(0, 12)}… in /metrics`)
  t.match(res.body, /route="\/sessions\/:id\/messages"/, 'routes by pattern, never by id')
  t.match(res.body, /route="unmatched"/, 'an unknown URL is "unmatched", not its text')
})

// ===========================================================================
// API7:2023 Server Side Request Forgery

/**
 * A canary server, answering `answer` (any connection to it means something was fetched
 * that must not be), and every outbound TCP connection of this process, by destination port.
 */
async function watchOutbound(t: Test, answer: string): Promise<{ canaryOrigin: string; canaryHits(): number; outbound: number[] }> {
  let hits = 0
  const canary = http.createServer((_req, res) => res.end(answer)).on('connection', () => hits++)
  await new Promise<void>((resolve) => canary.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => canary.close(resolve)))
  const outbound: number[] = []
  const onSocket = ({ socket }: { socket: net.Socket }) => socket.once('connect', () => outbound.push(socket.remotePort!))
  diagnostics.subscribe('net.client.socket', onSocket as (m: unknown) => void)
  t.teardown(() => diagnostics.unsubscribe('net.client.socket', onSocket as (m: unknown) => void))
  return { canaryOrigin: `http://127.0.0.1:${(canary.address() as net.AddressInfo).port}`, canaryHits: () => hits, outbound }
}

t.test('API7 SSRF: no request field is ever used as a URL; providers are reached only at their configured base URL', async (t) => {
  const fake = await startFakeProvider({ apiKey: 'sk-fake-0123456789abcdef' })
  t.teardown(() => fake.close())
  // A canary: any connection to it means a request field was fetched.
  const watch = await watchOutbound(t, 'canary')
  const canaryUrl = `${watch.canaryOrigin}/latest/meta-data?from=`
  const outbound = watch.outbound

  const { app } = await buildTestApp(t, {
    backend: 'pglite',
    config: {
      OPENAI_API_KEY: fake.apiKey,
      OPENAI_BASE_URL: fake.openaiBaseURL,
      ANTHROPIC_API_KEY: fake.apiKey,
      ANTHROPIC_BASE_URL: fake.anthropicBaseURL,
      PROVIDER_MAX_RETRIES: 0,
    },
  })
  const url = (field: string) => canaryUrl + field
  const openaiMessages = [
    { role: 'system', content: `See ${url('system')}` },
    { role: 'user', content: [{ type: 'text', text: `Fetch ${url('text')}` }, { type: 'image_url', image_url: { url: url('image') } }] },
    ...toolSession().slice(2, -2),
    { role: 'assistant', content: null, tool_calls: [{ id: 'web', type: 'function', function: { name: 'fetch', arguments: JSON.stringify({ url: url('tool-args') }) } }] },
    { role: 'tool', tool_call_id: 'web', content: `redirected to ${url('tool-output')}` },
    { role: 'user', content: `Continue with ${url('last')}` },
  ]
  const compact = await app.inject({
    method: 'POST',
    url: '/compact',
    payload: { messages: openaiMessages, model: url('model').slice(0, 200), targetTokens: 3000, strategy: 'llm', summarizer: { provider: 'openai' }, instructions: `Also read ${url('instructions')}` },
  })
  t.equal(compact.statusCode, 200)
  t.equal(compact.json().strategy, 'llm', 'the summary came from the configured provider')
  const estimate = await app.inject({
    method: 'POST',
    url: '/estimate',
    payload: {
      model: 'claude-sonnet-4-5',
      method: 'provider',
      system: url('anthropic-system'),
      messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'url', url: url('anthropic-image') } }, { type: 'text', text: 'what is this?' }] }],
    },
  })
  t.equal(estimate.statusCode, 200)
  t.equal(estimate.json().method, 'provider', 'counted by the configured provider')
  const imported = await app.inject({
    method: 'POST',
    url: '/import',
    payload: { log: `${JSON.stringify({ type: 'user', uuid: 'u1', parentUuid: null, sessionId: url('import'), timestamp: '2026-11-20T09:00:00.000Z', message: { role: 'user', content: `See ${url('import-text')}` } })}\n` },
  })
  t.equal(imported.statusCode, 200, 'an imported log with URLs in it')
  t.equal((await app.inject({ method: 'PUT', url: '/sessions/ssrf', payload: { mode: 'llm', summarizer: { provider: 'openai' }, windowMessages: 2, batchSize: 1 } })).statusCode, 201)
  for (let i = 0; i < 3; i++) {
    const res = await app.inject({ method: 'POST', url: '/sessions/ssrf/messages', payload: { messages: [{ role: 'user', content: `Open ${url(`session-${i}`)}` }, { role: 'assistant', content: `Opened ${url(`answer-${i}`)}` }] } })
    t.equal(res.statusCode, 200)
  }
  t.ok((await app.summaryWorker.runOnce()) > 0, 'a background llm summary ran')
  t.ok(fake.requests.filter((r) => r.route === 'chat.completions').length >= 2, 'the provider wrote the summaries (compact, session)')
  t.ok(fake.requests.some((r) => r.route === 'messages.count_tokens'), 'and counted the tokens')
  t.ok(fake.requests.some((r) => r.rawBody.includes(canaryUrl)), 'URLs reach the provider as text, nothing more')

  t.equal(watch.canaryHits(), 0, 'no request field was fetched')
  t.ok(outbound.length > 0, `${outbound.length} outbound connections seen`)
  t.same([...new Set(outbound)], [fake.port], 'every outbound connection went to the configured provider')

  // A request cannot point a provider elsewhere: base URLs and keys are configuration only.
  for (const field of ['baseURL', 'baseUrl', 'url', 'apiKey', 'headers']) {
    for (const [method, path, payload] of [
      ['POST', '/compact', { messages: [], summarizer: { provider: 'openai', [field]: url(field) } }],
      ['PUT', '/sessions/ssrf', { summarizer: { provider: 'openai', [field]: url(field) } }],
    ] as const) {
      const res = await app.inject({ method, url: path, payload })
      t.equal(res.statusCode, 400, `${method} ${path} summarizer.${field}: 400`)
      t.same(res.json().issues, [{ path: `body.summarizer.${field}`, message: 'unknown field' }])
    }
  }
  t.equal(watch.canaryHits(), 0)
})

t.test('API7 SSRF: a provider answering a redirect (307 to a canary) is a provider error; nothing is re-sent to the Location', async (t) => {
  const secret = 'sk-fake-redirect-0123456789'
  const fake = await startFakeProvider({ apiKey: secret })
  t.teardown(() => fake.close())
  // The canary: any connection to it means the prompt followed the redirect.
  const watch = await watchOutbound(t, '{}')
  const canaryUrl = `${watch.canaryOrigin}/canary`
  const outbound = watch.outbound

  const { app } = await buildTestApp(t, {
    backend: 'pglite',
    config: { OPENAI_API_KEY: secret, OPENAI_BASE_URL: fake.openaiBaseURL, ANTHROPIC_API_KEY: secret, ANTHROPIC_BASE_URL: fake.anthropicBaseURL, PROVIDER_MAX_RETRIES: 2 },
  })
  for (const status of [301, 302, 303, 307, 308]) {
    fake.reset()
    fake.setDefault({ kind: 'http-error', status, route: '*', headers: { location: canaryUrl } })
    for (const provider of ['openai', 'anthropic']) {
      const res = await app.inject({ method: 'POST', url: '/compact', payload: { messages: toolSession(), targetTokens: 3000, strategy: 'llm', summarizer: { provider } } })
      t.not(res.statusCode, 500, `${status}, ${provider} summary: not a 500`)
      t.notOk(res.body.includes(secret) || res.body.includes(canaryUrl), `${status}, ${provider}: neither the key nor the Location in the answer`)
      const body = res.json()
      // The provider-error path of the llm strategy: the fallback, with the reason.
      t.equal(res.statusCode, 200, `${status}, ${provider}: answered`)
      t.not(body.strategy, 'llm', `${status}, ${provider}: the summary fell back (${body.strategy})`)
      t.match(body.fallbacks?.[0]?.reason, new RegExp(`HTTP ${status}.*does not follow redirects`), `${status}, ${provider}: the reason says so`)
    }
    const estimate = await app.inject({ method: 'POST', url: '/estimate', payload: { model: 'claude-sonnet-4-5', method: 'provider', messages: [{ role: 'user', content: 'count me' }] } })
    t.not(estimate.statusCode, 500, `${status}, count_tokens: not a 500`)
    t.notOk(estimate.body.includes(secret) || estimate.body.includes(canaryUrl), `${status}, count_tokens: neither the key nor the Location`)
    t.equal(estimate.json().method, 'heuristic', `${status}, count_tokens: not counted by the provider`)
    t.match(estimate.json().fallback?.reason, new RegExp(`count_tokens HTTP ${status}`), `${status}, count_tokens: the reason`)
    t.ok(fake.requests.length >= 3, `${status}: the provider was asked`)
    t.ok(fake.requests.length <= 3, `${status}: and only once per call: a refused redirect is not retried`)
  }
  t.equal(watch.canaryHits(), 0, 'nothing reached the Location')
  t.same([...new Set(outbound)], [fake.port], 'every outbound connection went to the configured provider')
})

// ===========================================================================
// API8:2023 Security Misconfiguration

const SECURITY_HEADER_NAMES = Object.keys(PRE_ROUTING_HEADERS)

function securityHeaders(res: { headers: Record<string, unknown> }): Record<string, unknown> {
  return Object.fromEntries(SECURITY_HEADER_NAMES.map((h) => [h, res.headers[h]]))
}

t.test('API8 security headers on every response: every route, every error, and responses written before routing', async (t) => {
  const { app } = await keyedApp(t, { BODY_LIMIT_BYTES: 4096, RATE_LIMIT_MAX: 1 })
  // The constant used where no hook runs is what helmet gives an API response, header for header.
  const healthz = await app.inject({ method: 'GET', url: '/healthz' })
  const own = ['content-type', 'content-length', 'date', 'connection', 'keep-alive', 'x-request-id']
  t.same(Object.fromEntries(Object.entries(healthz.headers).filter(([h]) => !own.includes(h))), PRE_ROUTING_HEADERS, 'PRE_ROUTING_HEADERS is exactly what an API response carries')
  // The values (captured from helmet once at start-up): what docs/security.md promises.
  t.match(
    PRE_ROUTING_HEADERS,
    {
      'content-security-policy': API_CSP,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
      'strict-transport-security': /^max-age=\d+; includeSubDomains$/,
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-resource-policy': 'same-origin',
    },
    'the API headers are the documented ones',
  )
  t.equal(Object.keys(PRE_ROUTING_HEADERS).length, 13, 'helmet gave its eleven headers, plus the policy and cache-control')

  const docsCsp = /^default-src 'self';.*script-src 'self';/
  for (const route of routesOf(app)) {
    const res = await call(app, route, { body: bodyFor(route) })
    const label = `${route.key} (${res.statusCode})`
    t.notOk(res.headers['x-powered-by'] ?? res.headers.server, `${label}: no x-powered-by or server`)
    if (isDocs(route.url)) {
      t.match(res.headers['content-security-policy'], docsCsp, `${label}: Swagger UI's policy`)
      t.same({ ...securityHeaders(res), 'content-security-policy': API_CSP, 'cache-control': 'no-store' }, PRE_ROUTING_HEADERS, `${label}: the other headers`)
    } else if (isUi(route.url)) {
      t.equal(res.headers['content-security-policy'], UI_CSP, `${label}: the dashboard's policy`)
      t.same({ ...securityHeaders(res), 'content-security-policy': API_CSP }, PRE_ROUTING_HEADERS, `${label}: the other headers`)
    } else {
      t.same(securityHeaders(res), PRE_ROUTING_HEADERS, label)
    }
  }

  // Every kind of error, each with a key of its own (RATE_LIMIT_MAX is 1).
  const json = { 'content-type': 'application/json' }
  const errors: [string, InjectOptions, number][] = [
    ['no key', { method: 'GET', url: '/sessions/x' }, 401],
    ['unknown route', { method: 'GET', url: '/nope' }, 404],
    ['not found', { method: 'GET', url: '/sessions/x' }, 404],
    ['invalid', { method: 'POST', url: '/estimate', payload: {} }, 400],
    ['malformed JSON', { method: 'POST', url: '/estimate', headers: json, payload: '{' }, 400],
    ['too large', { method: 'POST', url: '/estimate', headers: json, payload: JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(5000) }] }) }, 413],
    ['wrong content type', { method: 'POST', url: '/estimate', headers: { 'content-type': 'text/xml' }, payload: '<x/>' }, 415],
    ['bad URL', { method: 'GET', url: '/sessions/%E0%A4%A' }, 400],
    ['parameter too long', { method: 'GET', url: `/sessions/${'c'.repeat(3000)}` }, 414],
  ]
  for (const [i, [label, req, status]] of errors.entries()) {
    const { key } = await createApiKey(app.db, `headers-${i}`)
    const res = await app.inject({ ...req, headers: { ...(label === 'no key' ? {} : as(key)), ...req.headers } })
    t.equal(res.statusCode, status, label)
    t.same(securityHeaders(res), PRE_ROUTING_HEADERS, `${label}: security headers`)
    errorBody(t, res, label)
  }
  const { key } = await createApiKey(app.db, 'headers-limited')
  await app.inject({ method: 'GET', url: '/sessions/x', headers: as(key) })
  const limited = await app.inject({ method: 'GET', url: '/sessions/x', headers: as(key) })
  t.equal(limited.statusCode, 429)
  t.same(securityHeaders(limited), PRE_ROUTING_HEADERS, '429: security headers')

  // Malformed HTTP never becomes a request: the raw answer carries them too.
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as net.AddressInfo
  for (const [label, raw, status] of [
    ['not HTTP', 'HELLO\r\n\r\n', 400],
    ['headers too large', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`, 431],
  ] as const) {
    const answer = await new Promise<string>((resolve) => {
      let out = ''
      const s = net.connect(port, '127.0.0.1', () => s.write(raw))
      s.on('data', (d) => (out += d)).on('close', () => resolve(out)).on('error', () => {})
    })
    t.match(answer, new RegExp(`^HTTP/1\\.1 ${status} `), label)
    const head = answer.split('\r\n\r\n')[0]!.toLowerCase()
    for (const [h, v] of Object.entries(PRE_ROUTING_HEADERS)) t.ok(head.includes(`\r\n${h}: ${v.toLowerCase()}`), `${label}: ${h}`)
  }
})

t.test('API8 Swagger UI still works under its policy: no inline script, every asset from the same origin', async (t) => {
  const { app } = await buildTestApp(t)
  const page = await app.inject({ method: 'GET', url: '/docs/' })
  t.equal(page.statusCode, 200)
  const csp = String(page.headers['content-security-policy'])
  t.match(csp, /script-src 'self'(;|$)/, "scripts from 'self' only")
  t.match(csp, /connect-src 'self'/, 'the OpenAPI document is fetched from the same origin')
  t.match(csp, /frame-ancestors 'none'/)
  t.notMatch(csp, /upgrade-insecure-requests/, 'works over plain HTTP')
  const scripts = [...page.body.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)]
  t.ok(scripts.length >= 3)
  for (const [, attrs, inline] of scripts) {
    t.match(attrs, /src="/, 'every script is a file')
    t.equal(inline!.trim(), '', 'no inline script (the policy has no unsafe-inline for scripts)')
  }
  t.notMatch(page.body, /\son\w+=/i, 'no inline event handlers')
  const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!)
  t.ok(assets.length >= 5)
  for (const asset of assets) {
    t.notMatch(asset, /^(https?:)?\/\//, `${asset}: same origin`)
    const res = await app.inject({ method: 'GET', url: new URL(asset, 'http://x/docs/').pathname })
    t.equal(res.statusCode, 200, `${asset} loads`)
  }
  const initializer = await app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' })
  t.match(initializer.body, /resolveUrl\('\.\/json'\)/, 'the page loads ./json')
  const doc = await app.inject({ method: 'GET', url: '/docs/json' })
  t.equal(doc.statusCode, 200)
  t.equal(doc.json().openapi, '3.1.0')
})

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

t.test('API8 Swagger UI renders in a real browser under its policy, with no violation', { skip: fs.existsSync(CHROMIUM) ? false : `no browser at ${CHROMIUM} (CHROMIUM_PATH)` }, async (t) => {
  const { app } = await buildTestApp(t)
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as net.AddressInfo
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] })
  t.teardown(() => browser.close())
  const page = await browser.newPage()
  const problems: string[] = []
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text())
  })
  page.on('pageerror', (e) => problems.push(String(e)))
  // Browser-side code as text (this file is compiled without the DOM types).
  await page.addInitScript({
    content: "document.addEventListener('securitypolicyviolation', (e) => console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI))",
  })
  await page.goto(`http://127.0.0.1:${port}/docs/`)
  await page.waitForSelector('.swagger-ui .info .title', { timeout: 20_000 })
  t.match(await page.textContent('.swagger-ui .info .title'), /^compactd/, 'the document is loaded and rendered')
  const operations = routesOf(app).filter((r) => !isPage(r.url) && r.method !== 'HEAD').length
  t.equal(await page.locator('.opblock').count(), operations, 'every operation is listed')
  await page.click('.opblock-summary >> nth=0')
  await page.waitForSelector('.opblock-body', { timeout: 5_000 })
  t.same(problems, [], 'no policy violation or script error')
  // The listener works: an inline script is blocked, and reported.
  await page.evaluate("{ const s = document.createElement('script'); s.textContent = 'window.inlineRan = true'; document.head.appendChild(s) }")
  t.equal(await page.evaluate('window.inlineRan'), undefined, 'an inline script does not run')
  await page.waitForTimeout(200)
  t.match(problems.join('\n'), /CSP violation: script-src/, 'and the violation is seen')
})

t.test('API8 errors leak nothing: an internal error and a broken database answer a bare 500; the log keeps the detail', async (t) => {
  const secret = 'internal detail: password=hunter2 at /srv/compactd/src/secret.ts:42'
  const { app, lines } = await buildLogged(t, {}, (app) => {
    app.get('/test-only/boom', async () => {
      const err = new Error(secret) as Error & { code: string; detail: string }
      err.code = 'E_INTERNAL_SECRET'
      err.detail = secret
      throw err
    })
    app.get('/test-only/type-error', async () => (null as unknown as { x: { y: number } }).x.y)
  })
  for (const url of ['/test-only/boom', '/test-only/type-error']) {
    const res = await app.inject({ method: 'GET', url })
    t.equal(res.statusCode, 500, url)
    t.same(res.json(), { error: 'internal_error', message: 'internal server error', requestId: res.headers['x-request-id'] }, `${url}: nothing but the error shape`)
    t.same(securityHeaders(res), PRE_ROUTING_HEADERS, `${url}: security headers`)
  }
  t.ok(lines.some((l) => l.includes('unhandled error') && l.includes('hunter2')), 'the log has the detail for operators')

  // A broken dependency: a table gone under a running service.
  t.equal((await app.inject({ method: 'PUT', url: '/sessions/broken', payload: {} })).statusCode, 201)
  await sql`drop table session_summaries cascade`.execute(app.db)
  for (const url of ['/sessions/broken/context', '/sessions/broken']) {
    const res = await app.inject({ method: 'GET', url })
    t.equal(res.statusCode, 500, `${url}: 500`)
    t.same(res.json(), { error: 'internal_error', message: 'internal server error', requestId: res.headers['x-request-id'] }, `${url}: no SQL, table or driver message`)
  }
  // The summary reads degrade instead (by design: the placeholder, as when the database is down).
  const summary = await app.inject({ method: 'GET', url: '/sessions/broken/summary' })
  t.equal(summary.statusCode, 503)
  t.same([summary.json().content, summary.json().degraded], ['[Summary temporarily unavailable]', true])
  const continuation = await app.inject({ method: 'GET', url: '/sessions/broken/continuation' })
  t.equal(continuation.statusCode, 503)
  t.equal(errorBody(t, continuation, 'continuation').error, 'summary_unavailable')
  for (const res of [summary, continuation]) t.notMatch(res.body, /relation|session_summaries|42P01|exist|sql/i, 'no SQL, table or driver message')
  t.ok(lines.some((l) => l.includes('session_summaries')), 'the log has the database error')
})

t.test('API8 CORS: none. No Access-Control-* header on any response; a preflight is a 404', async (t) => {
  const { app } = await buildTestApp(t)
  const origin = { origin: 'https://evil.example' }
  for (const route of routesOf(app)) {
    const res = await call(app, route, { body: bodyFor(route), headers: origin })
    t.same(Object.keys(res.headers).filter((h) => h.startsWith('access-control-')), [], route.key)
  }
  const preflight = await app.inject({ method: 'OPTIONS', url: '/estimate', headers: { ...origin, 'access-control-request-method': 'POST' } })
  t.equal(preflight.statusCode, 404)
  t.equal(preflight.headers['access-control-allow-origin'], undefined)
})

// ===========================================================================
// API9:2023 Improper Inventory Management

t.test('API9 inventory: openapi.yaml documents exactly the routes that exist, with the credential each needs', async (t) => {
  const { app } = await buildTestApp(t)
  const doc = parse(fs.readFileSync(new URL('../openapi.yaml', import.meta.url), 'utf8')) as {
    paths: Record<string, Record<string, { security?: unknown[] }>>
    security: unknown[]
  }
  const documented = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p.replace(/\{(\w+)\}/g, ':$1')}`))
  const routes = routesOf(app).filter((r) => !isPage(r.url) && r.method !== 'HEAD')
  t.same(documented.sort(), routes.map((r) => r.key).sort(), 'every route is documented, and nothing else is')
  t.same(doc.security, [{ bearerAuth: [] }], 'an API key by default')
  for (const route of routes) {
    const op = doc.paths[route.url.replace(/:(\w+)/g, '{$1}')]![route.method.toLowerCase()]!
    const expected = route.url === '/metrics' ? [{ metricsToken: [] }] : isProxy(route) ? [{ compactdKey: [] }] : route.config.auth === false ? [] : undefined
    t.same(op.security, expected, `${route.key}: security ${JSON.stringify(expected ?? doc.security)}`)
  }
})

// ===========================================================================
// API10:2023 Unsafe Consumption of APIs

t.test('API10 provider answers are untrusted: huge, hanging, malformed or key-echoing answers fall back, fit the budget and leak nothing', async (t) => {
  const apiKey = 'sk-fake-secret-0123456789abcdef'
  const fake: FakeProvider = await startFakeProvider({ apiKey })
  t.teardown(() => fake.close())
  const { app } = await buildTestApp(t, {
    config: { OPENAI_API_KEY: apiKey, OPENAI_BASE_URL: fake.openaiBaseURL, PROVIDER_MAX_RETRIES: 0, PROVIDER_TIMEOUT_MS: 1000 },
  })
  const compact = () =>
    app.inject({ method: 'POST', url: '/compact', payload: { messages: toolSession(), targetTokens: 3000, strategy: 'llm', summarizer: { provider: 'openai' } } })

  fake.enqueue({ kind: 'ok', content: `## Session Summary\n${'An enormous answer. '.repeat(200_000)}` })
  const huge = await compact()
  t.equal(huge.statusCode, 200, 'a 4 MB answer')
  t.ok(huge.json().event.tokensAfter <= 3000, `still fits the budget (${huge.json().event.tokensAfter} tokens)`)

  for (const [label, behaviour, reason] of [
    ['hangs', { kind: 'timeout' }, /timeout/],
    ['not JSON', { kind: 'malformed-json' }, /malformed/],
    ['empty', { kind: 'empty' }, /empty/],
    ['echoes the key', { kind: 'http-error', status: 400, message: `invalid request for key ${apiKey} (Authorization: Bearer ${apiKey})` }, /bad_request/],
  ] as const) {
    const started = Date.now()
    fake.enqueue(behaviour as never)
    const res = await compact()
    t.equal(res.statusCode, 200, `${label}: answered`)
    t.ok(Date.now() - started < 10_000, `${label}: within the provider timeout`)
    const body = res.json()
    t.equal(body.strategy, 'rules', `${label}: fell back to the offline summary`)
    t.match(body.fallbacks[0], { strategy: 'llm', reason }, `${label}: the reason`)
    t.notOk(res.body.includes(apiKey), `${label}: the provider key is nowhere in the response`)
    t.ok(body.event.tokensAfter <= 3000)
  }
})
