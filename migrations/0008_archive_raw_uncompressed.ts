/**
 * archived_messages.raw without TOAST compression (storage `external`: large values still
 * move out of line, uncompressed). A compaction stores what it dropped in its checkpoint's
 * transaction, so pglz compressing every archived byte was on the request's path: 28% of
 * the insert of the largest fixture's 0.56 MB on PostgreSQL (34 → 24 ms, interleaved, at
 * load 3–4), while it saved only 30% of the table's size (16.1 → 11.2 MB for 10 MB of
 * messages): tool output and JSON compress poorly in pglz's 4 KB window, and encrypted
 * rows not at all. The quota counts the messages' bytes as before, so it still bounds
 * what the archive takes on disk. lz4 would be cheaper than pglz but PGlite is built
 * without it, and both backends run the same migrations.
 *
 * Numbered 0008: 0007 is taken by the proxy's prefixes (another branch). Rows written
 * before stay compressed; reads decompress them as before.
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table archived_messages alter column raw set storage external`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table archived_messages alter column raw set storage extended`.execute(db)
}
