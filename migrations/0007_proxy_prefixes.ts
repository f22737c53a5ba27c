/**
 * proxy_prefixes (issue 23): per proxied session, the compacted prefix its later requests
 * reuse byte for byte, so the provider's prompt cache stays warm. It holds a recipe, not
 * the conversation: `parts` lists, in order, the caller's messages kept as they are (by
 * index, read from each new request) and the messages compactd created (the summary,
 * masked results), secrets redacted. `covered_hash` is the hash of the caller's messages
 * the compaction covered: a request reuses the prefix only when its own first
 * `covered_count` messages hash the same. One row per session, replaced at each compaction.
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table proxy_prefixes (
      tenant_id text not null,
      session_id text not null,
      covered_count integer not null,
      covered_hash text not null,
      parts text not null,
      system text,
      checkpoint_num integer not null,
      updated_at timestamptz not null default now(),
      primary key (tenant_id, session_id)
    )`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table proxy_prefixes`.execute(db)
}
