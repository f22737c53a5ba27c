/**
 * Test databases. PostgreSQL: a fresh database per call on the machine's server
 * (TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test), dropped at
 * teardown. PGlite: a fresh in-memory instance.
 */
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { openDatabase, type DatabaseHandle } from '../../src/db/database.ts'
import { migrateToLatest } from '../../src/db/migrate.ts'

export type Backend = 'postgres' | 'pglite'
export const BACKENDS: Backend[] = ['postgres', 'pglite']

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'

let available: Promise<boolean> | undefined
/** Whether the test PostgreSQL answers. In CI its absence is an error, not a skip. */
export function postgresAvailable(): Promise<boolean> {
  available ??= (async () => {
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 3000 })
    try {
      await client.connect()
      await client.query('select 1')
      return true
    } catch (err) {
      if (process.env.CI) throw new Error(`CI: test PostgreSQL at ${TEST_DATABASE_URL} is unreachable: ${(err as Error).message}`)
      return false
    } finally {
      await client.end().catch(() => {})
    }
  })()
  return available
}

export const POSTGRES_SKIP_REASON = `PostgreSQL not reachable at ${TEST_DATABASE_URL} (start it, or set TEST_DATABASE_URL); PGlite variants still run`

function urlFor(database: string): string {
  const u = new URL(TEST_DATABASE_URL)
  u.pathname = `/${database}`
  return u.toString()
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL })
  await client.connect()
  try {
    return await fn(client)
  } finally {
    await client.end()
  }
}

export interface TestDatabase extends DatabaseHandle {
  /** Connection URL (PostgreSQL only), e.g. for child processes. */
  url?: string
}

/**
 * A fresh database on the given backend: PGlite already migrated (from the template), unless
 * `empty`; PostgreSQL empty (creating one is fast). Close it with handle.close().
 */
export async function createTestDatabase(backend: Backend, opts: { empty?: boolean } = {}): Promise<TestDatabase> {
  if (backend === 'pglite') return openDatabase({ pgliteDataDir: 'memory://', ...(opts.empty ? {} : { pgliteSnapshot: await migratedPgliteTemplate() }) })
  const name = `compactd_t_${process.pid}_${randomBytes(4).toString('hex')}`
  await admin((c) => c.query(`create database ${name} template template0`))
  const url = urlFor(name)
  const handle = await openDatabase({ databaseUrl: url, poolSize: 20 })
  return {
    ...handle,
    url,
    close: async () => {
      await handle.close()
      await admin((c) => c.query(`drop database if exists ${name} with (force)`))
    },
  }
}

let pgliteTemplate: Promise<Blob> | undefined

/**
 * One migrated PGlite per test process, as a data directory every fresh PGlite starts
 * from: initdb and the migrations once, not per test (2-3 s each on a busy 2-core machine).
 */
function migratedPgliteTemplate(): Promise<Blob> {
  pgliteTemplate ??= (async () => {
    const handle = await openDatabase({ pgliteDataDir: 'memory://' })
    try {
      await migrateToLatest(handle.db)
      return await handle.snapshot!()
    } finally {
      await handle.close()
    }
  })()
  return pgliteTemplate
}

/** PostgreSQL when reachable (fast), else PGlite, for tests that are not about storage. */
export async function defaultBackend(): Promise<Backend> {
  return (await postgresAvailable()) ? 'postgres' : 'pglite'
}
