import t from 'tap'
import { createApiKey, hashApiKey } from '../../src/tenancy/api-keys.ts'
import { buildTestApp } from '../helpers/build.ts'

const body = { messages: [{ role: 'user', content: 'hello' }] }

t.test('open single-tenant mode while no key exists', async (t) => {
  const { app } = await buildTestApp(t)
  t.equal(await app.authOpenMode(), true)
  const res = await app.inject({ method: 'POST', url: '/estimate', payload: body })
  t.equal(res.statusCode, 200)
})

t.test('once a key exists, requests need it; failures give no hint', async (t) => {
  const { app, database } = await buildTestApp(t)
  const { key } = await createApiKey(database.db, 'acme')
  await createApiKey(database.db, 'globex')
  // The server re-checks within OPEN_MODE_RECHECK_MS (2 s); force it now.
  t.equal(await app.authOpenMode({ refresh: true }), false)

  const missing = await app.inject({ method: 'POST', url: '/estimate', payload: body })
  const wrong = await app.inject({ method: 'POST', url: '/estimate', payload: body, headers: { authorization: 'Bearer cpd_nope' } })
  const malformed = await app.inject({ method: 'POST', url: '/estimate', payload: body, headers: { authorization: 'Basic abc' } })
  for (const res of [missing, wrong, malformed]) {
    t.equal(res.statusCode, 401)
    t.equal(res.json().error, 'unauthorized')
    t.notMatch(res.body, /acme|globex|tenant/i, 'no tenant names leak')
  }
  t.equal(missing.json().message, wrong.json().message, 'same message for missing and wrong keys')

  const ok = await app.inject({ method: 'POST', url: '/estimate', payload: body, headers: { authorization: `Bearer ${key}` } })
  t.equal(ok.statusCode, 200)

  const health = await app.inject({ method: 'GET', url: '/healthz' })
  t.equal(health.statusCode, 200, 'probes stay public')
  const docs = await app.inject({ method: 'GET', url: '/docs/json' })
  t.equal(docs.statusCode, 200, 'docs stay public')
})

t.test('AUTH_KEY_CACHE_MS: a verified key is trusted that long, then looked up again; 0 looks up every request', async (t) => {
  for (const cacheMs of [0, 400]) {
    const { app, database } = await buildTestApp(t, { config: { AUTH_KEY_CACHE_MS: cacheMs } })
    const { key } = await createApiKey(database.db, 'acme')
    await app.authOpenMode({ refresh: true })
    const send = () => app.inject({ method: 'POST', url: '/estimate', payload: body, headers: { authorization: `Bearer ${key}` } })
    t.equal((await send()).statusCode, 200, `${cacheMs}: the key works`)
    await database.db.updateTable('api_keys').set({ revoked_at: new Date().toISOString() }).where('key_hash', '=', hashApiKey(key)).execute()
    if (cacheMs === 0) {
      t.equal((await send()).statusCode, 401, 'revoked: refused at once')
      continue
    }
    t.equal((await send()).statusCode, 200, 'revoked, but verified less than AUTH_KEY_CACHE_MS ago: still trusted')
    await new Promise((r) => setTimeout(r, cacheMs + 50))
    t.equal((await send()).statusCode, 401, 'refused once the trust has expired')
  }
})

t.test('keys are stored only as hashes', async (t) => {
  const { database } = await buildTestApp(t)
  const { key } = await createApiKey(database.db, 'acme')
  t.match(key, /^cpd_[\w-]{43}$/)
  const rows = await database.db.selectFrom('api_keys').selectAll().execute()
  t.equal(rows.length, 1)
  t.equal(rows[0]!.key_hash, hashApiKey(key))
  t.notOk(JSON.stringify(rows).includes(key), 'the key itself is nowhere in the table')
})

t.test('per-key rate limit answers 429 with Retry-After', async (t) => {
  const { app, database } = await buildTestApp(t, { config: { RATE_LIMIT_MAX: 3, RATE_LIMIT_WINDOW_MS: 60_000 } })
  const a = (await createApiKey(database.db, 'a')).key
  const b = (await createApiKey(database.db, 'b')).key
  await app.authOpenMode({ refresh: true })
  const call = (key: string) => app.inject({ method: 'POST', url: '/estimate', payload: body, headers: { authorization: `Bearer ${key}` } })
  for (let i = 0; i < 3; i++) t.equal((await call(a)).statusCode, 200)
  const limited = await call(a)
  t.equal(limited.statusCode, 429)
  t.equal(limited.json().error, 'rate_limited')
  t.ok(Number(limited.headers['retry-after']) > 0, 'Retry-After in seconds')
  t.equal((await call(b)).statusCode, 200, 'another key has its own budget')
  t.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200, 'probes are not limited')
})
