/**
 * npm run key:create -- --tenant NAME
 * Creates the tenant if needed and prints a new API key once. Only its hash is stored.
 */
import { parseArgs } from 'node:util'
import { loadConfig } from '../config.ts'
import { openDatabase } from '../db/database.ts'
import { migrateToLatest } from '../db/migrate.ts'
import { createApiKey } from '../tenancy/api-keys.ts'

const { values } = parseArgs({ options: { tenant: { type: 'string' } } })
const tenant = values.tenant?.trim()
if (!tenant || !/^[\w.@-]{1,100}$/.test(tenant)) {
  console.error('usage: npm run key:create -- --tenant NAME   (NAME: 1-100 letters, digits, _ . @ -)')
  process.exit(2)
}
const config = loadConfig()
const handle = await openDatabase({ databaseUrl: config.DATABASE_URL, pgliteDataDir: config.PGLITE_DATA_DIR })
try {
  await migrateToLatest(handle.db)
  const { key } = await createApiKey(handle.db, tenant)
  console.error(`created an API key for tenant "${tenant}" (${handle.kind}). It is shown once; store it now:`)
  console.log(key)
} catch (err) {
  console.error(`compactd: ${err instanceof Error ? err.message : String(err)}`)
  process.exitCode = 1
} finally {
  await handle.close()
}
