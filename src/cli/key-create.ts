/**
 * npm run key:create -- --tenant NAME [--adopt-open-data]
 * Creates the tenant if needed and prints a new API key once. Only its hash is stored.
 * --adopt-open-data moves what was stored in open mode (no key yet) to NAME.
 *
 * With PGlite, a running service holds the data directory: the key is then created by
 * the service itself, through its admin socket (src/tenancy/admin-socket.ts). Any
 * failure is one line on stderr; the key alone goes to stdout.
 */
import fs from 'node:fs'
import { parseArgs } from 'node:util'
import { ConfigError, loadConfig } from '../config.ts'
import { DataDirLockedError, openDatabase, type DatabaseHandle } from '../db/database.ts'
import { migrateToLatest } from '../db/migrate.ts'
import { AdminSocketUnavailableError, requestAdmin } from '../tenancy/admin-socket.ts'
import { describeAdoption, provisionKey, TENANT_NAME, type CreatedKey } from '../tenancy/provision.ts'

const USAGE = 'usage: npm run key:create -- --tenant NAME [--adopt-open-data]   (NAME: 1-100 letters, digits, _ . @ -)'

function fail(message: string, code = 1): never {
  // Synchronous, so the line is out before exit even on a pipe.
  fs.writeSync(2, `compactd: ${message.replace(/\s*\n\s*/g, ' ')}\n`)
  process.exit(code)
}

let values
try {
  values = parseArgs({ options: { tenant: { type: 'string' }, 'adopt-open-data': { type: 'boolean' } } }).values
} catch (err) {
  fail(`${(err as Error).message}\n${USAGE}`, 2)
}
const tenant = values.tenant?.trim()
if (!tenant || !TENANT_NAME.test(tenant)) fail(USAGE, 2)
const adoptOpenData = values['adopt-open-data'] ?? false

let config
try {
  config = loadConfig()
} catch (err) {
  if (err instanceof ConfigError) fail(err.message)
  throw err
}

let created: CreatedKey & { via: string; note?: string }
let handle: DatabaseHandle | undefined
try {
  handle = await openDatabase({ databaseUrl: config.DATABASE_URL, pgliteDataDir: config.PGLITE_DATA_DIR })
} catch (err) {
  if (!(err instanceof DataDirLockedError)) fail(err instanceof Error ? err.message : String(err))
  created = await throughService(err)
}
if (handle) {
  try {
    await migrateToLatest(handle.db)
    created = { ...(await provisionKey(handle.db, { tenant, adoptOpenData })), via: handle.kind }
  } catch (err) {
    await handle.close().catch(() => {})
    fail(err instanceof Error ? err.message : String(err))
  }
  await handle.close()
}

process.stderr.write(`created an API key for tenant "${tenant}" (${created!.via}). It is shown once; store it now:\n`)
process.stdout.write(created!.key + '\n')
if (created!.adopted) process.stderr.write(describeAdoption(tenant, created!.adopted) + '\n')
if (created!.note) process.stderr.write(created!.note + '\n')

/** The service that holds the PGlite directory creates the key. */
async function throughService(locked: DataDirLockedError): Promise<CreatedKey & { via: string; note?: string }> {
  try {
    const res = await requestAdmin(locked.dataDir, { op: 'create-key', tenant: tenant!, ...(adoptOpenData ? { adoptOpenData } : {}) })
    if (!res.ok) fail(res.error)
    return { key: res.key, tenantId: res.tenantId, keyId: res.keyId, adopted: res.adopted, note: res.note, via: `pglite, through the running service, pid ${res.pid}` }
  } catch (err) {
    if (err instanceof AdminSocketUnavailableError) {
      fail(
        `process ${locked.pid} holds the PGlite data directory ${locked.dataDir}, and no running compactd service ` +
          `answers on its admin socket (${err.reason}); wait for that process to finish or stop it, then run this again`,
      )
    }
    fail(err instanceof Error ? err.message : String(err))
  }
}
