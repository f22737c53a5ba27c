/**
 * Opens the database (PostgreSQL or PGlite), applies migrations at start-up, and
 * closes it when the app closes. Exposes `app.database` and `app.db`.
 */
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Kysely } from 'kysely'
import type { Config } from '../config.ts'
import { openDatabase, type DatabaseHandle } from '../db/database.ts'
import { migrateToLatest } from '../db/migrate.ts'
import type { Database } from '../db/schema.ts'

declare module 'fastify' {
  interface FastifyInstance {
    database: DatabaseHandle
    db: Kysely<Database>
  }
}

export interface DatabasePluginOptions {
  config: Config
  /** An already open database (tests share one); the app then does not close it. */
  database?: DatabaseHandle
}

export default fp(
  async function databasePlugin(app: FastifyInstance, opts: DatabasePluginOptions) {
    const owned = !opts.database
    const handle =
      opts.database ??
      (await openDatabase({
        databaseUrl: opts.config.DATABASE_URL,
        pgliteDataDir: opts.config.PGLITE_DATA_DIR,
        poolSize: opts.config.DATABASE_POOL_SIZE,
      }))
    try {
      const applied = await migrateToLatest(handle.db)
      if (applied.length > 0) app.log.info({ migrations: applied }, 'migrations applied')
    } catch (err) {
      if (owned) await handle.close()
      throw err
    }
    app.log.info({ database: handle.kind, location: handle.location }, 'database ready')
    app.decorate('database', handle)
    app.decorate('db', handle.db)
    if (owned) app.addHook('onClose', async () => handle.close())
  },
  { name: 'database' },
)
