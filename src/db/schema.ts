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

/** One stored compaction of a session (migrations/0002_checkpoints.ts). */
export interface CheckpointSummariesTable {
  id: Generated<string>
  tenant_id: string
  session_id: string
  checkpoint_num: number
  from_message_index: number | null
  to_message_index: number | null
  messages_compressed: number | null
  summary_content: string
  /** jsonb: write JSON.stringify(value) (pg would turn a bare array into a SQL array). */
  key_facts: ColumnType<unknown, string | null, string | null>
  original_tokens: number | null
  compressed_tokens: number | null
  compression_ratio: number | null
  summary_cost_usd: number | null
  strategy: string | null
  round: number | null
  /** jsonb array of checkpoint numbers this row stands for, when it is a fold. */
  folded_from: ColumnType<number[] | null, string | null, string | null>
  created_at: Generated<Timestamp>
}

export interface Database {
  tenants: TenantsTable
  api_keys: ApiKeysTable
  checkpoint_summaries: CheckpointSummariesTable
}
