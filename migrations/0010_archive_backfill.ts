/**
 * sessions.archive_backfill_seq (issue 21): where a session's archive backfill goes on, or
 * null when it has none to do. The archive (0006) indexes what a session evicts from then
 * on; messages evicted before it were stored but never archived, so a search could not
 * find them. This migration marks every session that holds messages out of its window
 * (evicted or summarized) with 0; the backfill (src/use-cases/archive/backfill.ts) archives
 * them in the background, a page at a time, and sets the column to the next seq to read,
 * then to null. Sessions that evicted after 0006 are marked too: their messages are
 * archived already, and the backfill's content-hash dedupe stores nothing twice.
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table sessions add column archive_backfill_seq bigint`.execute(db)
  await sql`
    update sessions s set archive_backfill_seq = 0
    where exists (select 1 from session_messages m where m.tenant_id = s.tenant_id and m.session_id = s.id and m.status <> 'window')`.execute(db)
  // The backfill looks for its next session by this partial index: empty once it is done.
  await sql`create index sessions_archive_backfill on sessions (tenant_id, id) where archive_backfill_seq is not null`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists sessions_archive_backfill`.execute(db)
  await sql`alter table sessions drop column archive_backfill_seq`.execute(db)
}
