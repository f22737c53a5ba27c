/** npm run migrate: apply pending migrations to DATABASE_URL, or to the PGlite in PGLITE_DATA_DIR. */
import { loadConfig } from '../config.ts'
import { openDatabase } from '../db/database.ts'
import { migrateToLatest } from '../db/migrate.ts'

const config = loadConfig()
const handle = await openDatabase({ databaseUrl: config.DATABASE_URL, pgliteDataDir: config.PGLITE_DATA_DIR })
try {
  const applied = await migrateToLatest(handle.db)
  console.log(applied.length ? `applied: ${applied.join(', ')}` : 'already up to date')
  console.log(`database: ${handle.kind} ${handle.location}`)
} catch (err) {
  console.error(`compactd: ${err instanceof Error ? err.message : String(err)}`)
  process.exitCode = 1
} finally {
  await handle.close()
}
