/** Idempotency keys of appends, and the daily clean-up of what expires (keys, old update runs). */
import { sql } from 'kysely'
import { decodeJson, encodeJson } from '../../db/nul.ts'
import { parseJson, type Db } from './rows.ts'

export async function findIdempotentResponse(db: Db, tenantId: string, sessionId: string, key: string): Promise<{ requestHash: string; response: unknown } | undefined> {
  const r = await db
    .selectFrom('idempotency_keys')
    .select(['request_hash', 'response'])
    .where('tenant_id', '=', tenantId)
    .where('session_id', '=', sessionId)
    .where('key', '=', key)
    .executeTakeFirst()
  return r ? { requestHash: r.request_hash, response: decodeJson(parseJson(r.response)) } : undefined
}

export async function storeIdempotentResponse(db: Db, tenantId: string, sessionId: string, key: string, requestHash: string, response: unknown): Promise<void> {
  await db.insertInto('idempotency_keys').values({ tenant_id: tenantId, session_id: sessionId, key, request_hash: requestHash, response: encodeJson(response) }).execute()
}

/** The daily job's clean-up: Idempotency-Keys past their TTL and old finished update runs. */
export async function purgeExpired(db: Db, opts: { idempotencyTtlMs: number; runHistoryMs: number }): Promise<{ idempotencyKeys: number; runs: number }> {
  const keys = await sql`delete from idempotency_keys where created_at < now() - ${opts.idempotencyTtlMs}::float8 * interval '1 millisecond'`.execute(db)
  const runs = await sql`
    delete from summary_update_runs
    where finished_at is not null and finished_at < now() - ${opts.runHistoryMs}::float8 * interval '1 millisecond'`.execute(db)
  return { idempotencyKeys: Number(keys.numAffectedRows ?? 0), runs: Number(runs.numAffectedRows ?? 0) }
}
