import t from 'tap'
import { ConfigError, loadConfig } from '../src/config.ts'

t.test('defaults follow the seeds and the issue', async (t) => {
  const c = loadConfig({})
  t.equal(c.HOST, '127.0.0.1')
  t.equal(c.PORT, 3000)
  t.equal(c.BODY_LIMIT_BYTES, 20 * 1024 * 1024)
  t.equal(c.DATABASE_URL, undefined, 'no DATABASE_URL means embedded PGlite')
  t.equal(c.PGLITE_DATA_DIR, './data')
  t.same(
    [c.COMPACTION_SYSTEM_RESERVE, c.COMPACTION_OUTPUT_RESERVE, c.COMPACTION_SAFETY_BUFFER, c.COMPACTION_THRESHOLD_PERCENT],
    [2000, 4000, 5000, 0.8],
  )
})

t.test('a bad value fails with one line naming the variable', async (t) => {
  for (const [env, name] of [
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ COMPACTION_THRESHOLD_PERCENT: '1.5' }, 'COMPACTION_THRESHOLD_PERCENT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ OPENAI_BASE_URL: 'not a url' }, 'OPENAI_BASE_URL'],
    [{ PROXY_TENANTS: '{acme: 1' }, 'PROXY_TENANTS'],
    [{ PROXY_TENANTS: '{"acme": {"upstreamOpenaiUrl": "not a url"}}' }, 'PROXY_TENANTS'],
    [{ PROXY_TENANTS: '{"acme": {"threshold": 5000, "color": "red"}}' }, 'PROXY_TENANTS'],
  ] as const) {
    const err = t.throws(() => loadConfig(env as Record<string, string>)) as Error
    t.ok(err instanceof ConfigError, `${name}: ConfigError`)
    t.match(err.message, new RegExp(`^invalid configuration: ${name}=`), `${name} is named`)
    t.notMatch(err.message, /\n/, 'one line')
  }
})

t.test('secrets and database credentials are never echoed in config errors', async (t) => {
  const err = t.throws(() => loadConfig({ DATABASE_URL: 'mysql://user:hunter2@db/x' })) as Error
  t.notMatch(err.message, /hunter2/)
  const err2 = t.throws(() => loadConfig({ PROVIDER_TIMEOUT_MS: 'x', OPENAI_API_KEY: 'sk-secret' })) as Error
  t.notMatch(err2.message, /sk-secret/)
})

t.test('PROXY_TENANTS: per-tenant proxy settings as JSON, by tenant name', async (t) => {
  t.same(loadConfig({}).PROXY_TENANTS, {}, 'none by default')
  const c = loadConfig({ PROXY_TENANTS: '{"acme": {"upstreamOpenaiUrl": "https://openai.acme.internal/v1", "threshold": 60000}, "globex": {"threshold": 0.5}}' })
  t.same(c.PROXY_TENANTS, { acme: { upstreamOpenaiUrl: 'https://openai.acme.internal/v1', threshold: 60000 }, globex: { threshold: 0.5 } })
})

t.test('numbers and booleans are coerced from strings', async (t) => {
  const c = loadConfig({ PORT: '8080', DOCS_ENABLED: 'false', COMPACTION_THRESHOLD_PERCENT: '0.9' })
  t.equal(c.PORT, 8080)
  t.equal(c.DOCS_ENABLED, false)
  t.equal(c.COMPACTION_THRESHOLD_PERCENT, 0.9)
})
