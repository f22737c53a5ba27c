/**
 * Tenants and API keys. Keys are random 256-bit secrets shown once; the database keeps
 * only their SHA-256 (a fast hash is enough for high-entropy keys, unlike passwords).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { Database } from '../db/schema.ts'

export const KEY_PREFIX = 'cpd_'
/** Tenant used while the service runs open (no API key exists yet). */
export const DEFAULT_TENANT_NAME = 'default'

export interface AuthenticatedTenant {
  tenantId: string
  /** Rate limits and logs key on this; never the key itself. */
  keyId: string
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex')
}

export async function ensureTenant(db: Kysely<Database>, name: string): Promise<string> {
  const existing = await db.selectFrom('tenants').select('id').where('name', '=', name).executeTakeFirst()
  if (existing) return existing.id
  await db
    .insertInto('tenants')
    .values({ id: randomUUID(), name })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute()
  const row = await db.selectFrom('tenants').select('id').where('name', '=', name).executeTakeFirstOrThrow()
  return row.id
}

/** Create a key for a tenant (created if new). Returns the only copy of the key. */
export async function createApiKey(db: Kysely<Database>, tenantName: string): Promise<{ key: string; tenantId: string; keyId: string }> {
  const tenantId = await ensureTenant(db, tenantName)
  const key = KEY_PREFIX + randomBytes(32).toString('base64url')
  const keyId = randomUUID()
  await db
    .insertInto('api_keys')
    .values({ id: keyId, tenant_id: tenantId, key_hash: hashApiKey(key), key_prefix: key.slice(0, 12) })
    .execute()
  return { key, tenantId, keyId }
}

/** A tenant's name (what its keys were created for), by id. */
export async function tenantNameOf(db: Kysely<Database>, tenantId: string): Promise<string | undefined> {
  return (await db.selectFrom('tenants').select('name').where('id', '=', tenantId).executeTakeFirst())?.name
}

export async function findTenantByKey(db: Kysely<Database>, key: string): Promise<AuthenticatedTenant | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .select(['id', 'tenant_id'])
    .where('key_hash', '=', hashApiKey(key))
    .where('revoked_at', 'is', null)
    .executeTakeFirst()
  return row ? { tenantId: row.tenant_id, keyId: row.id } : undefined
}

export async function activeKeyCount(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('revoked_at', 'is', null)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}
