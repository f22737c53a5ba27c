/**
 * The compaction circuit breakers' rows (migrations/0009_compaction_breakers.ts): read,
 * and changed under a row lock so that two instances recording at once both count.
 */
import { sql, type Kysely } from 'kysely'
import type { Database } from '../db/schema.ts'
import { CLOSED, type BreakerState } from '../engine/compaction/breaker.ts'

export async function readBreaker(db: Kysely<Database>, tenantId: string, sessionId: string): Promise<BreakerState> {
  const row = await db.selectFrom('compaction_breakers').select('state').where('tenant_id', '=', tenantId).where('session_id', '=', sessionId).executeTakeFirst()
  return row ? (row.state as BreakerState) : CLOSED
}

/** Applies `change` to the stored state (closed when none) and stores the result, in one transaction. */
export async function changeBreaker(db: Kysely<Database>, tenantId: string, sessionId: string, change: (state: BreakerState) => BreakerState): Promise<BreakerState> {
  return db.transaction().execute(async (trx) => {
    await trx
      .insertInto('compaction_breakers')
      .values({ tenant_id: tenantId, session_id: sessionId, state: JSON.stringify(CLOSED) })
      .onConflict((oc) => oc.columns(['tenant_id', 'session_id']).doNothing())
      .execute()
    const row = await trx.selectFrom('compaction_breakers').select('state').where('tenant_id', '=', tenantId).where('session_id', '=', sessionId).forUpdate().executeTakeFirstOrThrow()
    const next = change(row.state as BreakerState)
    await trx
      .updateTable('compaction_breakers')
      .set({ state: JSON.stringify(next), updated_at: sql`now()` })
      .where('tenant_id', '=', tenantId)
      .where('session_id', '=', sessionId)
      .execute()
    return next
  })
}

/** A manual compaction or a reset: the row goes (a session without one is closed). */
export async function clearBreaker(db: Kysely<Database>, tenantId: string, sessionId: string): Promise<boolean> {
  const res = await db.deleteFrom('compaction_breakers').where('tenant_id', '=', tenantId).where('session_id', '=', sessionId).executeTakeFirst()
  return Number(res.numDeletedRows) > 0
}
