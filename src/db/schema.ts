/**
 * Kysely table types. One interface per table; migrations/ creates them.
 * Rule: every session-scoped table carries tenant_id (docs/internals.md).
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
  /** migrations/0005_checkpoint_details.ts: null on rows stored before it. */
  target_tokens: ColumnType<number | null, number | null | undefined, number | null>
  model: ColumnType<string | null, string | null | undefined, string | null>
  duration_ms: ColumnType<number | null, number | null | undefined, number | null>
  summary_tokens: ColumnType<number | null, number | null | undefined, number | null>
}

/** One archived original (migrations/0006_archive.ts). */
export interface ArchivedMessagesTable {
  tenant_id: string
  session_id: string
  /** sha256 hex of the redacted message: unique per session (dedupe across resends). */
  hash: string
  ref: string
  position: number
  checkpoint_num: number | null
  source: 'compact' | 'session' | 'proxy'
  role: string
  tool_name: string | null
  /** jsonb array of tool-call ids: write JSON.stringify(value). */
  call_ids: ColumnType<string[], string, string>
  format: string
  /** Redacted JSON, or `v1:` + base64 of AES-256-GCM when encrypted. */
  raw: string
  encrypted: boolean
  bytes: number
  redactions: number
  /** Its chunks are in archive_chunks (indexing runs after the writing transaction). */
  indexed: Generated<boolean>
  created_at: Generated<Timestamp>
}

export interface ArchiveChunksTable {
  tenant_id: string
  session_id: string
  hash: string
  chunk: number
  body: string | null
  tsv: ColumnType<string, never, never>
}

export interface ArchiveUsageTable {
  tenant_id: string
  bytes: ColumnType<number | string, number, number>
  messages: ColumnType<number | string, number, number>
}

/** A session with a rolling summary (migrations/0003_sessions.ts). */
export interface SessionsTable {
  tenant_id: string
  id: string
  /** jsonb: write JSON.stringify(value). */
  settings: ColumnType<Record<string, unknown>, string | undefined, string>
  created_at: Timestamp
  updated_at: Timestamp
  /** The archive backfill's next seq (migration 0010), or null: nothing to backfill. */
  archive_backfill_seq: ColumnType<number | string | null, number | null | undefined, number | null>
}

export type SessionMessageStatus = 'window' | 'evicted' | 'summarized'

export interface SessionMessagesTable {
  tenant_id: string
  session_id: string
  seq: number
  /** json (not jsonb: key order kept): write JSON.stringify(value). */
  raw: ColumnType<unknown, string, string>
  format: string
  role: string
  tokens: number
  /** The message's own timestamp, else when it was appended. */
  message_at: Timestamp
  appended_at: Timestamp
  status: ColumnType<SessionMessageStatus, SessionMessageStatus | undefined, SessionMessageStatus>
}

export interface SessionSummariesTable {
  tenant_id: string
  session_id: string
  version: number
  content: string
  tokens: number
  updated_at: Timestamp
  source: 'background' | 'manual'
}

export interface SummaryUpdateQueueTable {
  tenant_id: string
  session_id: string
  priority: number
  queued_at: Timestamp
  available_at: Timestamp
  attempts: Generated<number>
  lease_owner: string | null
  lease_expires_at: Timestamp | null
  status: ColumnType<'pending' | 'failed', 'pending' | 'failed' | undefined, 'pending' | 'failed'>
  last_error: string | null
  /** Bumped by each enqueue merged into the entry (migrations/0004). */
  generation: Generated<number>
}

export interface SummaryUpdateRunsTable {
  id: Generated<string>
  tenant_id: string
  session_id: string
  worker: string
  started_at: Timestamp
  finished_at: Timestamp | null
  mode: string | null
  from_version: number | null
  to_version: number | null
  folded_from_seq: number | null
  folded_to_seq: number | null
  folded_messages: number | null
}

export interface IdempotencyKeysTable {
  tenant_id: string
  session_id: string
  key: string
  request_hash: string
  /** jsonb: write JSON.stringify(value). */
  response: ColumnType<unknown, string, string>
  created_at: Timestamp
}

/** Singleton jobs shared by every instance (daily aging). */
export interface SchedulerStateTable {
  name: string
  last_run_at: Timestamp
}

/** migrations/0007_proxy_prefixes.ts: the compacted prefix a proxied session's requests reuse. */
export interface ProxyPrefixesTable {
  tenant_id: string
  session_id: string
  covered_count: number
  covered_hash: string
  /** JSON text (not jsonb: its bytes are what the provider's cache sees again). */
  parts: string
  system: string | null
  checkpoint_num: number
  updated_at: Generated<Timestamp>
}

/** migrations/0009_compaction_breakers.ts: a session's compaction circuit breaker. */
export interface CompactionBreakersTable {
  tenant_id: string
  session_id: string
  /** src/engine/compaction/breaker.ts BreakerState. */
  state: ColumnType<unknown, string, string>
  updated_at: Generated<Timestamp>
}

export interface Database {
  tenants: TenantsTable
  api_keys: ApiKeysTable
  checkpoint_summaries: CheckpointSummariesTable
  sessions: SessionsTable
  session_messages: SessionMessagesTable
  session_summaries: SessionSummariesTable
  summary_update_queue: SummaryUpdateQueueTable
  summary_update_runs: SummaryUpdateRunsTable
  idempotency_keys: IdempotencyKeysTable
  scheduler_state: SchedulerStateTable
  archived_messages: ArchivedMessagesTable
  archive_chunks: ArchiveChunksTable
  archive_usage: ArchiveUsageTable
  proxy_prefixes: ProxyPrefixesTable
  compaction_breakers: CompactionBreakersTable
}
