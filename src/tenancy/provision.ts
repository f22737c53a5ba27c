/**
 * Creating a key, as `npm run key:create` does: directly on the database, or inside the
 * running service through its admin socket (src/tenancy/admin-socket.ts). Both call this.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../db/schema.ts'
import { createApiKey } from './api-keys.ts'
import { adoptOpenData, type AdoptedOpenData } from './open-data.ts'

/** Tenant names: 1-100 letters, digits, _ . @ - */
export const TENANT_NAME = /^[\w.@-]{1,100}$/

export interface CreateKeyRequest {
  tenant: string
  /** Move the open-mode (`default` tenant) sessions and checkpoints to this tenant. */
  adoptOpenData?: boolean
}

export interface CreatedKey {
  /** The only copy of the key. */
  key: string
  tenantId: string
  keyId: string
  adopted?: AdoptedOpenData
}

/** Create the tenant if new and a key for it; with adoptOpenData, the move and the key commit together. */
export async function provisionKey(db: Kysely<Database>, req: CreateKeyRequest): Promise<CreatedKey> {
  if (!TENANT_NAME.test(req.tenant)) throw new Error('tenant: 1-100 letters, digits, _ . @ -')
  if (!req.adoptOpenData) return createApiKey(db, req.tenant)
  return db
    .transaction()
    .setIsolationLevel('read committed')
    .execute(async (trx) => {
      const created = await createApiKey(trx, req.tenant)
      const adopted = await adoptOpenData(trx, created.tenantId, req.tenant)
      return { ...created, adopted }
    })
}

/** One line for the CLI: what adoption moved. */
export function describeAdoption(tenant: string, a: AdoptedOpenData): string {
  if (a.sessions === 0 && a.checkpointSessions === 0) return 'no open-mode data to adopt'
  return (
    `adopted the open-mode data into tenant "${tenant}": ${a.sessions} session${a.sessions === 1 ? '' : 's'} ` +
    `(${a.messages} message${a.messages === 1 ? '' : 's'}), ${a.checkpoints} checkpoint${a.checkpoints === 1 ? '' : 's'} ` +
    `of ${a.checkpointSessions} session id${a.checkpointSessions === 1 ? '' : 's'}`
  )
}
