/**
 * The archive of originals (migrations/0006_archive.ts): writes in the caller's
 * transaction (a compaction's checkpoint, a session's append), reads by reference, the
 * per-tenant byte usage behind the quota, and the retention sweep. Always filtered by
 * tenant. Search is ./search.ts.
 */
import { sql, type Kysely, type Transaction } from 'kysely'
import type { ArchivedMessagesTable, Database } from '../db/schema.ts'
import type { IndexChunk } from '../engine/archive/search-text.ts'
import type { ArchiveRecord } from '../engine/archive/record.ts'
import { decodeJson, decodeText, encodeJson, encodeNullableText, encodeText } from '../db/nul.ts'
import { decryptArchived, encryptArchived } from './cipher.ts'

type Db = Kysely<Database> | Transaction<Database>

export interface ArchiveWrite {
  /** Messages stored by this write. */
  archived: number
  /** Messages already in the session's archive (a resent history): stored once. */
  deduplicated: number
  /** Bytes the new messages take. */
  bytes: number
  /** Secrets redacted in the messages this write stored. */
  redactions: number
  /** The tenant's archive size after this write (what the quota is checked against). */
  usedBytes: number
}

/** Records per statement: each carries its `raw` as its own bind parameter (PostgreSQL takes at most 65,535). */
const BATCH = 500

/**
 * Stores `records` in the session's archive, each once (by hash), and adds their bytes to
 * the tenant's usage. Run it in the transaction of what caused the archiving, so both
 * exist or neither. Their search index is made after (pendingIndex, storeChunks): it costs
 * more than the compaction.
 *
 * One statement per batch of 500 (archiveBatch) inserts the rows, adds what it stored to
 * archive_usage and reads the usage back: one round trip where there were three. The
 * session's known hashes are looked up first and those messages are not sent at all: a
 * resent history costs a lookup of hashes, not its bytes on the wire (0.56 MB resent: 15
 * ms → 3 ms on PostgreSQL), and the lookup costs a fresh session no measurable time. ON
 * CONFLICT still guards the insert, so a message a concurrent transaction stores between
 * the lookup and the insert is stored once all the same, and counted as deduplicated.
 */
export async function archiveMessages(
  trx: Transaction<Database>,
  tenantId: string,
  sessionId: string,
  records: readonly ArchiveRecord[],
  opts: { checkpointNum: number | null; source: ArchivedMessagesTable['source']; key?: Buffer },
): Promise<ArchiveWrite> {
  const unique = [...new Map(records.map((r) => [r.hash, r])).values()]
  const known = unique.length === 0 ? new Set<string>() : await archivedHashes(trx, tenantId, sessionId, unique.map((r) => r.hash))
  const fresh = unique.filter((r) => !known.has(r.hash))
  const write: ArchiveWrite = { archived: 0, deduplicated: records.length - fresh.length, bytes: 0, redactions: 0, usedBytes: 0 }
  // Nothing to send: the usage is still read, for the report.
  if (fresh.length === 0) return { ...write, usedBytes: (await archiveUsage(trx, tenantId)).bytes }
  for (let i = 0; i < fresh.length; i += BATCH) {
    const batch = fresh.slice(i, i + BATCH)
    const stored = await archiveBatch(trx, tenantId, sessionId, batch, opts)
    write.archived += stored.messages
    write.deduplicated += batch.length - stored.messages
    write.bytes += stored.bytes
    write.redactions += stored.redactions
    write.usedBytes = stored.usedBytes
  }
  return write
}

/** Which of `hashes` the session's archive holds already (the primary key's index only). */
async function archivedHashes(db: Db, tenantId: string, sessionId: string, hashes: readonly string[]): Promise<Set<string>> {
  const rows = await sql<{ hash: string }>`
    select hash from archived_messages where tenant_id = ${tenantId} and session_id = ${sessionId} and hash = any(${sql.val(hashes)}::text[])`.execute(db)
  return new Set(rows.rows.map((r) => r.hash))
}

/**
 * One batch in one statement: the rows inserted (a hash the session holds is skipped),
 * what was stored added to the tenant's usage, and the usage after it. The short columns
 * go as one array parameter each and `raw` as one parameter per row inside ARRAY[…], so
 * the messages' bytes reach the server as they are, not escaped into an array literal or
 * a JSON document (about 500 parameters for 500 rows instead of 7,500). When nothing was
 * stored the usage CTE inserts no row and the usage is read as it was.
 */
async function archiveBatch(
  trx: Transaction<Database>,
  tenantId: string,
  sessionId: string,
  batch: readonly ArchiveRecord[],
  opts: { checkpointNum: number | null; source: ArchivedMessagesTable['source']; key?: Buffer },
): Promise<{ messages: number; bytes: number; redactions: number; usedBytes: number }> {
  const column = <T>(value: (r: ArchiveRecord) => T) => sql.val(batch.map(value))
  // Tool names and call ids are the caller's strings: NUL-escaped like every stored string.
  const raws = batch.map((r) => sql.val(opts.key ? encryptArchived(opts.key, r.raw) : r.raw))
  const result = await sql<{ messages: number; bytes: string; redactions: number; used_bytes: string }>`
    with stored as (
      insert into archived_messages
        (tenant_id, session_id, hash, ref, position, checkpoint_num, source, role, tool_name, call_ids, format, raw, encrypted, bytes, redactions)
      select ${tenantId}, ${sessionId}, m.hash, m.ref, m.position, ${opts.checkpointNum}::integer, ${opts.source}, m.role, m.tool_name, m.call_ids::jsonb, m.format, m.raw, ${opts.key !== undefined}, m.bytes, m.redactions
      from unnest(
        ${column((r) => r.hash)}::text[], ${column((r) => r.ref)}::text[], ${column((r) => r.position)}::integer[], ${column((r) => r.role)}::text[],
        ${column((r) => encodeNullableText(r.toolName ?? null))}::text[], ${column((r) => encodeJson(r.callIds))}::text[], ${column((r) => r.format)}::text[],
        array[${sql.join(raws)}]::text[], ${column((r) => Buffer.byteLength(r.raw))}::integer[], ${column((r) => r.redactions)}::integer[]
      ) as m(hash, ref, position, role, tool_name, call_ids, format, raw, bytes, redactions)
      on conflict (tenant_id, session_id, hash) do nothing
      returning bytes, redactions
    ), added as (
      select count(*)::integer as messages, coalesce(sum(bytes), 0)::bigint as bytes, coalesce(sum(redactions), 0)::integer as redactions from stored
    ), usage as (
      insert into archive_usage (tenant_id, bytes, messages)
      select ${tenantId}, bytes, messages from added where messages > 0
      on conflict (tenant_id) do update set bytes = archive_usage.bytes + excluded.bytes, messages = archive_usage.messages + excluded.messages
      returning bytes
    )
    select a.messages, a.bytes, a.redactions, coalesce((select bytes from usage), (select bytes from archive_usage where tenant_id = ${tenantId}), 0) as used_bytes
    from added a`.execute(trx)
  const row = result.rows[0]!
  return { messages: Number(row.messages), bytes: Number(row.bytes), redactions: Number(row.redactions), usedBytes: Number(row.used_bytes) }
}

/** A tenant's archive size, for the quota. */
export async function archiveUsage(db: Db, tenantId: string): Promise<{ bytes: number; messages: number }> {
  const row = await db.selectFrom('archive_usage').select(['bytes', 'messages']).where('tenant_id', '=', tenantId).executeTakeFirst()
  return { bytes: Number(row?.bytes ?? 0), messages: Number(row?.messages ?? 0) }
}

/** Subtracts deleted rows from the tenant's usage (never below zero). */
async function releaseUsage(db: Db, tenantId: string, bytes: number, messages: number): Promise<void> {
  if (messages === 0) return
  await sql`update archive_usage set bytes = greatest(0, bytes - ${bytes}), messages = greatest(0, messages - ${messages}) where tenant_id = ${tenantId}`.execute(db)
}

/** Deletes a session's archive (its chunks cascade). Run in DELETE /sessions/:id's transaction. */
export async function deleteSessionArchive(trx: Transaction<Database>, tenantId: string, sessionId: string): Promise<number> {
  const gone = await trx.deleteFrom('archived_messages').where('tenant_id', '=', tenantId).where('session_id', '=', sessionId).returning('bytes').execute()
  await releaseUsage(trx, tenantId, gone.reduce((n, r) => n + r.bytes, 0), gone.length)
  return gone.length
}

/**
 * Deletes the tenant's archived messages older than `retentionDays` (at most `limit` per
 * call, so a write that sweeps stays bounded). Reads also skip expired rows, so retention
 * holds while a sweep is behind. Returns how many were deleted.
 */
export async function sweepExpired(db: Kysely<Database>, tenantId: string, retentionDays: number, limit = 1_000): Promise<number> {
  if (retentionDays <= 0) return 0
  return db.transaction().execute(async (trx) => {
    const gone = await sql<{ bytes: number }>`
      delete from archived_messages where (tenant_id, session_id, hash) in (
        select tenant_id, session_id, hash from archived_messages
        where tenant_id = ${tenantId} and created_at < now() - make_interval(days => ${retentionDays})
        limit ${limit})
      returning bytes`.execute(trx)
    await releaseUsage(trx, tenantId, gone.rows.reduce((n, r) => n + Number(r.bytes), 0), gone.rows.length)
    return gone.rows.length
  })
}

/** The SQL condition "not past retention" on archived_messages (alias `a`). */
export function withinRetention(retentionDays: number) {
  return retentionDays > 0 ? sql<boolean>`a.created_at >= now() - make_interval(days => ${retentionDays})` : sql<boolean>`true`
}

export interface ArchivedMessage {
  ref: string
  hash: string
  position: number
  checkpointNum: number | null
  source: string
  role: string
  toolName: string | null
  callIds: string[]
  format: string
  /** The caller's message as archived (secrets redacted), parsed. */
  raw: unknown
  redactions: number
  createdAt: Date
}

type Row = Omit<ArchivedMessagesTable, 'call_ids' | 'created_at'> & { call_ids: unknown; created_at: Date | string }

function toArchived(row: Row, key: Buffer | undefined): ArchivedMessage {
  if (row.encrypted && !key) throw new Error('archived message is encrypted and ARCHIVE_ENCRYPTION_KEY is not set')
  const json = row.encrypted ? decryptArchived(key!, row.raw) : row.raw
  const callIds = typeof row.call_ids === 'string' ? (JSON.parse(row.call_ids) as string[]) : (row.call_ids as string[])
  return {
    ref: row.ref,
    hash: row.hash,
    position: row.position,
    checkpointNum: row.checkpoint_num,
    source: row.source,
    role: row.role,
    toolName: row.tool_name === null ? null : decodeText(row.tool_name),
    callIds: decodeJson(callIds),
    format: row.format,
    raw: JSON.parse(json),
    redactions: row.redactions,
    createdAt: new Date(row.created_at),
  }
}

/** The session's readable archive (tenant-scoped, within retention), oldest first: what both reads narrow. */
function readable(db: Db, tenantId: string, sessionId: string, retentionDays: number) {
  return db
    .selectFrom('archived_messages as a')
    .selectAll()
    .where('a.tenant_id', '=', tenantId)
    .where('a.session_id', '=', sessionId)
    .where(withinRetention(retentionDays))
    .orderBy('a.created_at')
    .orderBy('a.position')
}

/** The archived message a reference names (the oldest, in the rare case two share one). */
export async function readArchived(db: Db, tenantId: string, sessionId: string, ref: string, opts: { retentionDays: number; key?: Buffer }): Promise<ArchivedMessage | undefined> {
  const row = await readable(db, tenantId, sessionId, opts.retentionDays).where('a.ref', '=', ref).limit(1).executeTakeFirst()
  return row ? toArchived(row as unknown as Row, opts.key) : undefined
}

/** Archived messages that carry any of `callIds` other than `except` (an assistant message's tool results). */
export async function archivedWithCalls(db: Db, tenantId: string, sessionId: string, callIds: readonly string[], except: string, opts: { retentionDays: number; key?: Buffer }): Promise<ArchivedMessage[]> {
  if (callIds.length === 0) return []
  const rows = await readable(db, tenantId, sessionId, opts.retentionDays)
    .where('a.hash', '!=', except)
    .where(sql<boolean>`a.call_ids ?| ${sql.val(callIds.map(encodeText))}::text[]`)
    .limit(100)
    .execute()
  return rows.map((r) => toArchived(r as unknown as Row, opts.key))
}

/** Whether the tenant has anything archived for the session. */
export async function hasArchive(db: Db, tenantId: string, sessionId: string): Promise<boolean> {
  const row = await db.selectFrom('archived_messages').select('hash').where('tenant_id', '=', tenantId).where('session_id', '=', sessionId).limit(1).executeTakeFirst()
  return row !== undefined
}

// ---------------------------------------------------------------------------
// The deferred index: messages stored unindexed, their chunks added after
// ---------------------------------------------------------------------------

export interface PendingMessage {
  hash: string
  format: string
  /** The stored JSON, or its `v1:` ciphertext when `encrypted`. */
  raw: string
  encrypted: boolean
}

/** Up to `limit` of the session's messages not indexed yet, oldest first. */
export async function pendingIndex(db: Db, tenantId: string, sessionId: string, limit: number): Promise<PendingMessage[]> {
  return db
    .selectFrom('archived_messages')
    .select(['hash', 'format', 'raw', 'encrypted'])
    .where('tenant_id', '=', tenantId)
    .where('session_id', '=', sessionId)
    .where('indexed', '=', false)
    .orderBy('created_at')
    .orderBy('position')
    .limit(limit)
    .execute()
}

export async function countPendingIndex(db: Db, tenantId: string, sessionId: string): Promise<number> {
  const row = await db
    .selectFrom('archived_messages')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', tenantId)
    .where('session_id', '=', sessionId)
    .where('indexed', '=', false)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/**
 * The tsvector weight class of an original message's lexemes ('D', to_tsvector's own, so
 * chunks indexed before derived ones were told apart need no rewrite) and of compactd's
 * own earlier summaries ('C'); search gives each class its weight (ARCHIVE_RANK_WEIGHTS).
 */
export const ORIGINAL_WEIGHT_CLASS = 'D'
export const DERIVED_WEIGHT_CLASS = 'C'

/**
 * Indexes messages: their chunks' tsvectors (to_tsvector 'simple' of the expanded text),
 * and `body` for snippets unless the archive is encrypted; then marks them indexed. Two
 * instances indexing the same message both succeed (the chunks are keyed).
 */
export async function storeChunks(
  db: Kysely<Database>,
  tenantId: string,
  sessionId: string,
  items: readonly { hash: string; derived?: boolean; chunks: readonly IndexChunk[] }[],
  opts: { keepBody: boolean },
): Promise<void> {
  if (items.length === 0) return
  await db.transaction().execute(async (trx) => {
    const rows = items.flatMap((it) => it.chunks.map((c, chunk) => ({ hash: it.hash, chunk, weight: it.derived ? DERIVED_WEIGHT_CLASS : ORIGINAL_WEIGHT_CLASS, ...c })))
    for (let i = 0; i < rows.length; i += BATCH) {
      const values = rows
        .slice(i, i + BATCH)
        .map((c) => sql`(${tenantId}, ${sessionId}, ${c.hash}, ${c.chunk}, ${opts.keepBody ? c.body : null}, setweight(to_tsvector('simple', ${c.expanded}), ${c.weight}::"char"))`)
      await sql`insert into archive_chunks (tenant_id, session_id, hash, chunk, body, tsv) values ${sql.join(values)} on conflict do nothing`.execute(trx)
    }
    await trx
      .updateTable('archived_messages')
      .set({ indexed: true })
      .where('tenant_id', '=', tenantId)
      .where('session_id', '=', sessionId)
      .where('hash', 'in', items.map((it) => it.hash))
      .execute()
  })
}

/**
 * Planner statistics for the archive's tables. Without them (right after a burst of
 * writes; always on PGlite, which has no autovacuum) a search read every chunk of the
 * session per word: seconds at 10,000 messages (docs/benchmarks.md).
 */
export async function analyzeArchive(db: Kysely<Database>): Promise<void> {
  await sql`analyze archive_chunks`.execute(db)
  await sql`analyze archived_messages`.execute(db)
}
