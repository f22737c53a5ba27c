/**
 * The archive of what compaction dropped (issue 21): each message a stored compaction
 * replaced, summarised or masked, and each message a session evicted, once per session
 * (keyed by the hash of its redacted bytes), with its text indexed for full-text search.
 *
 * - archived_messages: the caller's bytes (secrets redacted; AES-GCM encrypted when a key
 *   is configured) and what read-back and hits show (role, tool, checkpoint, position).
 * - archive_chunks: the searchable text in chunks of at most 16 KB (word positions stop at
 *   16,383 and a tsvector holds 1 MB), with a `simple` tsvector filled at insert from the
 *   identifier-expanded text (src/engine/archive/search-text.ts). `body` is the chunk's text
 *   for snippets; null when the archive is encrypted (the index then holds only lexemes).
 *   The GIN index has fastupdate off: with the default pending list, after a bulk insert
 *   the planner stopped using the index (p50 189 ms against 9 ms at 10,000 messages).
 * - archive_usage: bytes per tenant, kept in the writing transaction, for the quota.
 *
 * Indexing is deferred (`indexed`): a compaction stores the messages in its transaction,
 * and their chunks are indexed after it (in the background, and by a search before it
 * reads): to_tsvector over the largest fixture's 0.7 MB took longer than the compaction.
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table archived_messages (
      tenant_id text not null,
      session_id text not null,
      hash text not null,
      ref text not null,
      position integer not null,
      checkpoint_num integer,
      source text not null,
      role text not null,
      tool_name text,
      call_ids jsonb not null default '[]',
      format text not null,
      raw text not null,
      encrypted boolean not null default false,
      bytes integer not null,
      redactions integer not null default 0,
      indexed boolean not null default false,
      created_at timestamptz not null default now(),
      primary key (tenant_id, session_id, hash)
    )`.execute(db)
  await sql`create index archived_messages_ref on archived_messages (tenant_id, session_id, ref)`.execute(db)
  await sql`create index archived_messages_age on archived_messages (tenant_id, created_at)`.execute(db)
  await sql`create index archived_messages_unindexed on archived_messages (tenant_id, session_id) where not indexed`.execute(db)
  await sql`
    create table archive_chunks (
      tenant_id text not null,
      session_id text not null,
      hash text not null,
      chunk integer not null,
      body text,
      tsv tsvector not null,
      primary key (tenant_id, session_id, hash, chunk),
      foreign key (tenant_id, session_id, hash) references archived_messages (tenant_id, session_id, hash) on delete cascade
    )`.execute(db)
  await sql`create index archive_chunks_tsv on archive_chunks using gin (tsv) with (fastupdate = off)`.execute(db)
  await sql`
    create table archive_usage (
      tenant_id text primary key,
      bytes bigint not null default 0,
      messages bigint not null default 0
    )`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists archive_chunks`.execute(db)
  await sql`drop table if exists archived_messages`.execute(db)
  await sql`drop table if exists archive_usage`.execute(db)
}
