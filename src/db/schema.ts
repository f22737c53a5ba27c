/**
 * Kysely table types. One interface per table; migrations/ creates them.
 * Rule: every session-scoped table carries tenant_id (docs/architecture.md).
 */
import type { ColumnType, Generated } from 'kysely'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>

export interface TenantsTable {
  id: string
  name: string
  created_at: Generated<Timestamp>
}

export interface ApiKeysTable {
  id: string
  tenant_id: string
  /** SHA-256 of the key, hex. The key itself is never stored. */
  key_hash: string
  /** First characters of the key, to recognise it in listings and logs. */
  key_prefix: string
  created_at: Generated<Timestamp>
  revoked_at: Timestamp | null
}

export interface Database {
  tenants: TenantsTable
  api_keys: ApiKeysTable
}
