/**
 * build() for tests, as in fastify/demo: one app per test file over a fresh database,
 * closed at teardown. Tests talk to it with app.inject().
 */
import type { FastifyInstance } from 'fastify'
import { build } from '../../src/app.ts'
import { testConfig, type Config } from '../../src/config.ts'
import { createTestDatabase, defaultBackend, type Backend, type TestDatabase } from './databases.ts'

export interface TestApp {
  app: FastifyInstance
  database: TestDatabase
  backend: Backend
}

interface Teardown {
  teardown(fn: () => unknown): void
}

export async function buildTestApp(
  t: Teardown,
  opts: { backend?: Backend; config?: Partial<Config>; database?: TestDatabase } = {},
): Promise<TestApp> {
  const backend = opts.backend ?? (await defaultBackend())
  const database = opts.database ?? (await createTestDatabase(backend))
  const app = await build({ config: testConfig({ LOG_LEVEL: 'silent', WORKERS: 0, ...opts.config }), database, logger: false })
  await app.ready()
  t.teardown(async () => {
    await app.close()
    if (!opts.database) await database.close()
  })
  return { app, database, backend }
}
