/**
 * What the archive backfill reads and marks (migration 0010): the next session with
 * messages evicted before the archive existed, and a page of its messages out of the
 * window, from the seq the backfill reached.
 */
import { sql, type Transaction } from 'kysely'
import type { Database } from '../../db/schema.ts'
import type { Db } from './rows.ts'
import { readSettings, type SessionSettings } from './settings.ts'
import { toStoredRows, type MessageRow, type StoredMessage } from './messages.ts'

export interface BackfillClaim {
  tenantId: string
  sessionId: string
  settings: SessionSettings
  /** The first seq not yet backfilled. */
  fromSeq: number
}

/**
 * One session that still has a backfill to do, locked for this transaction as an append
 * locks it (so the two serialise); a session another transaction holds is skipped, so
 * several instances backfill different sessions at once.
 */
export async function claimBackfill(trx: Transaction<Database>): Promise<BackfillClaim | undefined> {
  const row = await trx
    .selectFrom('sessions')
    .select(['tenant_id', 'id', 'settings', 'archive_backfill_seq'])
    .where('archive_backfill_seq', 'is not', null)
    .limit(1)
    .forNoKeyUpdate()
    .skipLocked()
    .executeTakeFirst()
  if (!row) return undefined
  return { tenantId: row.tenant_id, sessionId: row.id, settings: readSettings(row.settings), fromSeq: Number(row.archive_backfill_seq) }
}

/**
 * Up to `limit` of the session's messages out of the window (evicted or summarized) from
 * `fromSeq` on, in order, skipping those appended before `since` (past the archive's
 * retention: they would be swept at once). `next` is where the following page starts, or
 * undefined when this page was the last.
 */
export async function backfillPage(trx: Transaction<Database>, c: BackfillClaim, limit: number, since?: Date): Promise<{ rows: StoredMessage[]; next?: number }> {
  const res = await sql<MessageRow>`
    select seq, raw, role, tokens, message_at, status from session_messages
    where tenant_id = ${c.tenantId} and session_id = ${c.sessionId} and seq >= ${c.fromSeq} and status <> 'window'
      ${since ? sql`and appended_at >= ${since}` : sql``}
    order by seq limit ${limit}`.execute(trx)
  const rows = toStoredRows(res.rows)
  return { rows, ...(rows.length === limit ? { next: rows.at(-1)!.seq + 1 } : {}) }
}

/** Where the session's backfill goes on next, or null: done. */
export async function markBackfill(trx: Transaction<Database>, c: BackfillClaim, next: number | null): Promise<void> {
  await trx.updateTable('sessions').set({ archive_backfill_seq: next }).where('tenant_id', '=', c.tenantId).where('id', '=', c.sessionId).execute()
}

/** How many sessions still wait for their backfill (what an operator asks, and a test's settle point). */
export async function countBackfillPending(db: Db): Promise<number> {
  const r = await sql<{ n: number | string }>`select count(*) as n from sessions where archive_backfill_seq is not null`.execute(db)
  return Number(r.rows[0]!.n)
}
