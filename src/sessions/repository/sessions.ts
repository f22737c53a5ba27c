/** The sessions table: a session's row, created, locked, read, updated and deleted. */
import { deleteSessionArchive } from '../../archive/repository.ts'
import { deletePrefix } from '../../checkpoints/prefixes.ts'
import { clearBreaker } from '../../checkpoints/breakers.ts'
import { sql, type Kysely, type Transaction } from 'kysely'
import { encodeJson } from '../../db/nul.ts'
import type { Database } from '../../db/schema.ts'
import { toDate, type Db } from './rows.ts'
import { readSettings, type SessionSettings } from './settings.ts'

export interface SessionRow {
  tenantId: string
  id: string
  settings: SessionSettings
  createdAt: Date
  updatedAt: Date
}

function toSession(r: { tenant_id: string; id: string; settings: unknown; created_at: Date | string; updated_at: Date | string }): SessionRow {
  return { tenantId: r.tenant_id, id: r.id, settings: readSettings(r.settings), createdAt: toDate(r.created_at), updatedAt: toDate(r.updated_at) }
}

export async function getSession(db: Db, tenantId: string, id: string): Promise<SessionRow | undefined> {
  const row = await db.selectFrom('sessions').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst()
  return row ? toSession(row) : undefined
}

/**
 * The session row locked FOR NO KEY UPDATE: appends and updates of one session serialise
 * on it, while inserts that only reference the session (a manual summary's foreign key
 * takes FOR KEY SHARE) do not wait, and plain reads never do.
 */
export async function lockSession(trx: Transaction<Database>, tenantId: string, id: string): Promise<SessionRow | undefined> {
  const row = await trx.selectFrom('sessions').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).forNoKeyUpdate().executeTakeFirst()
  return row ? toSession(row) : undefined
}

/** Creates the session when missing (settings as given); returns whether it was created. */
export async function createSessionIfMissing(db: Db, tenantId: string, id: string, settings: SessionSettings): Promise<boolean> {
  const res = await db
    .insertInto('sessions')
    .values({ tenant_id: tenantId, id, settings: encodeJson(settings) })
    .onConflict((oc) => oc.columns(['tenant_id', 'id']).doNothing())
    .executeTakeFirst()
  return Number(res.numInsertedOrUpdatedRows ?? 0) > 0
}

/**
 * An append's first statement: creates the session when missing (with `settings`), else
 * touches its updated_at, and locks the row FOR NO KEY UPDATE either way (an upsert that
 * changes no key column takes that lock), returning the settings in force. One round
 * trip instead of insert + lock + touch.
 *
 * It reads nothing else: a READ COMMITTED statement that waited for the row lock sees the
 * locked row's newest version but every other table as of its start, i.e. without what
 * the previous holder (an append, an update) committed meanwhile. Whatever an append
 * decides on (the last seq, the window, the backlog) is read by the next statement
 * (windowAndEvicted), whose snapshot is taken with the lock held.
 */
export async function upsertAndLockSession(trx: Transaction<Database>, tenantId: string, id: string, settings: SessionSettings): Promise<{ settings: SessionSettings }> {
  const res = await sql<{ settings: unknown }>`
    insert into sessions as s (tenant_id, id, settings) values (${tenantId}, ${id}, ${encodeJson(settings)})
    on conflict (tenant_id, id) do update set updated_at = now()
    returning s.settings`.execute(trx)
  return { settings: readSettings(res.rows[0]!.settings) }
}

export async function saveSettings(db: Db, tenantId: string, id: string, settings: SessionSettings): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ settings: encodeJson(settings), updated_at: sql<Date>`now()` })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute()
}

/**
 * Deletes a session and everything it owns (messages, summaries, queue entry, runs,
 * idempotency keys cascade; checkpoints, the archive, the proxy's prefix and the compaction breaker of the same session id are deleted too) in one
 * transaction. Returns false when there was nothing to delete.
 */
export async function deleteSession(db: Kysely<Database>, tenantId: string, id: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const cps = await trx.deleteFrom('checkpoint_summaries').where('tenant_id', '=', tenantId).where('session_id', '=', id).executeTakeFirst()
    const archived = await deleteSessionArchive(trx, tenantId, id)
    const prefixes = await deletePrefix(trx, tenantId, id)
    await clearBreaker(trx, tenantId, id)
    const s = await trx.deleteFrom('sessions').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst()
    return Number(s.numDeletedRows) + Number(cps.numDeletedRows) + archived + prefixes > 0
  })
}
