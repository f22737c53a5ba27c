/**
 * Rate limit defaults (issue 10, defect 9): one busy agent host in open mode is never
 * throttled (88,598 of a 5-second run were 429 at the old 600 a minute per IP); keyed
 * mode keeps a limit per key. RATE_LIMIT_OPEN_MAX limits open mode when set; 0 turns
 * either limit off.
 */
import t from 'tap'
import { loadConfig } from '../src/config.ts'
import { createApiKey } from '../src/tenancy/api-keys.ts'
import { buildTestApp } from './helpers/build.ts'

const body = { messages: [{ role: 'user', content: 'hello' }] }

t.test('defaults: no limit in open mode, 6,000 a minute per key', async (t) => {
  const config = loadConfig({})
  t.equal(config.RATE_LIMIT_OPEN_MAX, 0)
  t.equal(config.RATE_LIMIT_MAX, 6_000)
  t.equal(config.RATE_LIMIT_WINDOW_MS, 60_000)
  t.throws(() => loadConfig({ RATE_LIMIT_OPEN_MAX: '-1' }), /^invalid configuration: RATE_LIMIT_OPEN_MAX="-1"/)
  t.throws(() => loadConfig({ RATE_LIMIT_MAX: 'many' }), /^invalid configuration: RATE_LIMIT_MAX="many"/)
})

t.test('open mode with the defaults: a burst far over the old limit is never a 429', async (t) => {
  const { app } = await buildTestApp(t, { config: { RATE_LIMIT_OPEN_MAX: loadConfig({}).RATE_LIMIT_OPEN_MAX, RATE_LIMIT_MAX: 5 } })
  t.equal(await app.authOpenMode(), true)
  const statuses = new Map<number, number>()
  for (let round = 0; round < 20; round++) {
    const batch = await Promise.all(Array.from({ length: 50 }, () => app.inject({ method: 'POST', url: '/estimate', payload: body })))
    for (const res of batch) statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1)
  }
  t.same(Object.fromEntries(statuses), { 200: 1000 }, '1,000 requests from one address, RATE_LIMIT_MAX (per key) not applied')
})

t.test('RATE_LIMIT_OPEN_MAX limits open mode per client address', async (t) => {
  const { app } = await buildTestApp(t, { config: { RATE_LIMIT_OPEN_MAX: 3, RATE_LIMIT_MAX: 1000 } })
  const call = (ip: string) => app.inject({ method: 'POST', url: '/estimate', payload: body, remoteAddress: ip })
  for (let i = 0; i < 3; i++) t.equal((await call('127.0.0.1')).statusCode, 200)
  const limited = await call('127.0.0.1')
  t.equal(limited.statusCode, 429)
  t.match(limited.json().message, /^rate limit of 3 requests per 60 s exceeded/)
  t.equal((await call('127.0.0.2')).statusCode, 200, 'another address has its own budget')
})

t.test('once a key exists the per-key limit applies, and open mode no longer counts', async (t) => {
  const { app, database } = await buildTestApp(t, { config: { RATE_LIMIT_MAX: 2, RATE_LIMIT_OPEN_MAX: 0 } })
  for (let i = 0; i < 5; i++) t.equal((await app.inject({ method: 'POST', url: '/estimate', payload: body })).statusCode, 200, 'open mode: unlimited')
  const { key } = await createApiKey(database.db, 'acme')
  await app.authOpenMode({ refresh: true })
  const call = () => app.inject({ method: 'POST', url: '/estimate', payload: body, headers: { authorization: `Bearer ${key}` } })
  t.equal((await call()).statusCode, 200)
  t.equal((await call()).statusCode, 200)
  const limited = await call()
  t.equal(limited.statusCode, 429)
  t.ok(Number(limited.headers['retry-after']) > 0)
})

t.test('RATE_LIMIT_MAX=0: no limit per key', async (t) => {
  const { app, database } = await buildTestApp(t, { config: { RATE_LIMIT_MAX: 0, RATE_LIMIT_OPEN_MAX: 1 } })
  const { key } = await createApiKey(database.db, 'acme')
  await app.authOpenMode({ refresh: true })
  const batch = await Promise.all(Array.from({ length: 200 }, () => app.inject({ method: 'POST', url: '/estimate', payload: body, headers: { authorization: `Bearer ${key}` } })))
  t.same([...new Set(batch.map((r) => r.statusCode))], [200])
})
