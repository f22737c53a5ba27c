/**
 * One Kysely instance over either a real PostgreSQL (DATABASE_URL) or an embedded PGlite.
 * Both go through pg.Pool and Kysely's PostgresDialect, so every query, transaction and
 * migration runs on one code path. PGlite has a single connection: its pool has size 1,
 * which serializes transactions (never use the outer db inside db.transaction()).
 */
import fs from 'node:fs'
import path from 'node:path'
import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import type { Database } from './schema.ts'

export type DatabaseKind = 'postgres' | 'pglite'

export interface DatabaseHandle {
  db: Kysely<Database>
  kind: DatabaseKind
  /** Where the data lives, without credentials, for logs. */
  location: string
  close(): Promise<void>
  /** PGlite only: the data directory as a tar file, which `pgliteSnapshot` starts a new database from. */
  snapshot?(): Promise<Blob>
}

export interface DatabaseOptions {
  databaseUrl?: string
  /** PGlite data directory, or 'memory://' for an in-memory database. */
  pgliteDataDir?: string
  /**
   * An in-memory PGlite starts from this data directory (a handle's snapshot()) instead of
   * running initdb: the tests' fresh databases, each from one migrated template, in about a
   * tenth of the time.
   */
  pgliteSnapshot?: Blob
  poolSize?: number
}

// pg returns BIGINT (int8) as string by default; our counters fit in a JS number.
pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10))
// NUMERIC as number: used for costs and ratios.
pg.types.setTypeParser(1700, (v) => Number.parseFloat(v))

/** Longest wait for a new connection to PostgreSQL (TCP connect and startup), in ms. */
export const CONNECT_TIMEOUT_MS = 5_000

/**
 * A pg client whose connecting gives up after CONNECT_TIMEOUT_MS. Without it a database
 * host that stops answering (a network partition, a host gone, a SYN dropped) left
 * every request that needed a new connection waiting for good, instead of the
 * documented 503 (issue 10, faults). Set on the client, not the pool: the pool's own
 * connectionTimeoutMillis would also bound the wait for a free connection under load.
 */
class BoundedConnectClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(typeof config === 'string' ? { connectionString: config, connectionTimeoutMillis: CONNECT_TIMEOUT_MS } : { ...config, connectionTimeoutMillis: CONNECT_TIMEOUT_MS })
  }
}

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize ?? 10, Client: BoundedConnectClient })
    // An idle client's network error must not crash the process; the next query reports it.
    pool.on('error', () => {})
    // Nor a checked-out client's: pg-pool listens only while a client is idle, and a
    // connection lost in the middle of a query or transaction makes pg emit 'error' on
    // the client as well as rejecting the query. Unheard, that event was an uncaught
    // exception, and close-with-grace shut the instance down for a database blip (issue
    // 10, faults). The query's rejection reports it (a 503); the pool discards the client
    // when it is released, since it is no longer queryable.
    pool.on('connect', (client) => {
      client.on('error', () => {})
    })
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
    return {
      db,
      kind: 'postgres',
      location: options.databaseUrl.replace(/\/\/[^@/]*@/, '//'),
      close: () => db.destroy(),
    }
  }
  return openPglite(options.pgliteDataDir ?? './data', options.pgliteSnapshot)
}

async function openPglite(dataDir: string, snapshot?: Blob): Promise<DatabaseHandle> {
  const { PGlite } = await import('@electric-sql/pglite')
  const { createPgConfig } = await import('@electric-sql/pglite/node-postgres')
  const inMemory = dataDir.startsWith('memory://')
  const release = inMemory ? () => {} : lockDataDir(dataDir)
  try {
    if (snapshot && !inMemory) throw new Error('pgliteSnapshot: only an in-memory database starts from a snapshot')
    const pglite = inMemory ? new PGlite(snapshot ? { loadDataDir: snapshot } : {}) : new PGlite(path.resolve(dataDir))
    await pglite.waitReady
    const pool = new pg.Pool({ ...createPgConfig(pglite), max: 1 })
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
    return {
      db,
      kind: 'pglite',
      location: inMemory ? 'memory://' : path.resolve(dataDir),
      close: async () => {
        await db.destroy()
        await pglite.close()
        release()
      },
      snapshot: () => pglite.dumpDataDir('none'),
    }
  } catch (err) {
    release()
    throw err
  }
}

/** The PGlite data directory is held by another live process (a running service, or a CLI). */
export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(`PGlite data directory ${dataDir} is in use by process ${pid}; stop it, or set DATABASE_URL to share a PostgreSQL server between instances`)
    this.name = 'DataDirLockedError'
  }
}

/**
 * PGlite does not lock its data directory, and two processes writing one directory
 * corrupt it. Take an exclusive lock file holding our pid; a lock left by a dead
 * process is taken over.
 */
function lockDataDir(dataDir: string): () => void {
  fs.mkdirSync(dataDir, { recursive: true })
  const lockPath = path.join(dataDir, '.compactd.lock')
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lockPath, String(process.pid), { flag: 'wx' })
      return () => fs.rmSync(lockPath, { force: true })
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      const owner = Number.parseInt(fs.readFileSync(lockPath, 'utf8'), 10)
      if (Number.isInteger(owner) && isAlive(owner)) throw new DataDirLockedError(path.resolve(dataDir), owner)
      fs.rmSync(lockPath, { force: true })
    }
  }
  throw new Error(`could not lock ${lockPath}`)
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

const UNAVAILABLE_NET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH'])
// "timeout expired": pg's connect timeout (BoundedConnectClient).
const UNAVAILABLE_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|^timeout expired$|not currently accepting connections|driver has already been destroyed|Client has encountered a connection error|the database system is (starting up|shutting down)/i

/**
 * Whether `err` says the database cannot be reached now (down, restarting, refusing
 * connections, connection lost), as opposed to a bad query: the API answers 503 then.
 * SQLSTATE classes 08 (connection exception) and 57P (operator intervention), and
 * 53300 (too many connections).
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null
  if (!e || typeof e !== 'object') return false
  const code = typeof e.code === 'string' ? e.code : ''
  if (UNAVAILABLE_NET_CODES.has(code) || code.startsWith('08') || code.startsWith('57P') || code === '53300') return true
  return typeof e.message === 'string' && UNAVAILABLE_MESSAGES.test(e.message)
}
