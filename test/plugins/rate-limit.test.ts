/**
 * Rate limit defaults (issue 10, defect 9): one busy agent host in open mode is never
 * throttled (88,598 of a 5-second run were 429 at the old 600 a minute per IP); keyed
 * mode keeps a limit per key. RATE_LIMIT_OPEN_MAX limits open mode when set; 0 turns
 * either limit off.
 */
import { execFileSync } from 'node:child_process'
import t from 'tap'
import { loadConfig } from '../../src/config.ts'
import { uiBuildDir } from '../../src/plugins/ui.ts'
import { createApiKey } from '../../src/tenancy/api-keys.ts'
import { buildTestApp } from '../helpers/build.ts'

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

// The dashboard's routes set rateLimit: false in their own context's onRoute hook, which
// ran after the rate limiter's (registered at the root) had already given them a limit:
// /ui/app.js was a 429 after RATE_LIMIT_OPEN_MAX loads from one address.
t.test('the dashboard (/ui, its config and static files) is never rate limited, in open or keyed mode', async (t) => {
  if (!uiBuildDir()) execFileSync('npm', ['run', 'build:ui'], { cwd: new URL('../..', import.meta.url), stdio: 'inherit' })
  t.ok(uiBuildDir(), 'the UI bundle exists (its static routes are registered)')
  const { app, database } = await buildTestApp(t, { config: { RATE_LIMIT_OPEN_MAX: 3, RATE_LIMIT_MAX: 3 } })
  const urls = ['/ui/app.js', '/ui/app.css', '/ui/', '/ui', '/ui/config.json']
  const load = async (label: string, headers: Record<string, string> = {}) => {
    for (const url of urls) {
      const statuses = new Set<number>()
      for (let i = 0; i < 50; i++) statuses.add((await app.inject({ method: 'GET', url, headers })).statusCode)
      t.notOk(statuses.has(429), `${label}: 50 loads of ${url}, no 429 (${[...statuses].join(', ')})`)
      t.ok([...statuses].every((s) => s < 400), `${label}: ${url} answered ${[...statuses].join(', ')}`)
    }
    const head = await app.inject({ method: 'HEAD', url: '/ui/app.js', headers })
    t.equal(head.statusCode, 200, `${label}: HEAD too`)
  }
  await load('open mode')
  // The API is still limited per address in open mode, and per key once keys exist.
  const api = () => app.inject({ method: 'POST', url: '/estimate', payload: body })
  for (let i = 0; i < 3; i++) t.equal((await api()).statusCode, 200)
  t.equal((await api()).statusCode, 429, 'the API still is (RATE_LIMIT_OPEN_MAX)')
  const { key } = await createApiKey(database.db, 'acme')
  await app.authOpenMode({ refresh: true })
  await load('keyed, no key')
  await load('keyed, with a key', { authorization: `Bearer ${key}` })
  const keyed = () => app.inject({ method: 'POST', url: '/estimate', payload: body, headers: { authorization: `Bearer ${key}` } })
  for (let i = 0; i < 3; i++) t.equal((await keyed()).statusCode, 200, 'the dashboard\'s loads did not use the key\'s budget')
  t.equal((await keyed()).statusCode, 429, 'the API still is (RATE_LIMIT_MAX)')
  t.ok(app.routeInventory.filter((r) => r.url === '/ui' || r.url.startsWith('/ui/')).every((r) => (r.config as { rateLimit?: unknown }).rateLimit === false), 'every /ui route says rateLimit: false')
})
