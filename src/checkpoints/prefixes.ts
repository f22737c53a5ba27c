/**
 * The proxy's reusable prefixes (migrations/0007_proxy_prefixes.ts): one per session,
 * replaced at each compaction, read when a request of the session is past its threshold.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../db/schema.ts'
import type { ReusablePrefix } from '../engine/compaction/reusable-prefix.ts'

export interface StoredPrefix extends ReusablePrefix {
  /** The system prompt the compaction wrote (a summary folded into Anthropic's `system`); undefined: the caller's. */
  system?: unknown
  checkpointNum: number
}

export async function readPrefix(db: Kysely<Database>, tenantId: string, sessionId: string): Promise<StoredPrefix | undefined> {
  const row = await db.selectFrom('proxy_prefixes').selectAll().where('tenant_id', '=', tenantId).where('session_id', '=', sessionId).executeTakeFirst()
  if (!row) return undefined
  return {
    coveredCount: row.covered_count,
    coveredHash: row.covered_hash,
    parts: JSON.parse(row.parts) as StoredPrefix['parts'],
    ...(row.system !== null ? { system: JSON.parse(row.system) as unknown } : {}),
    checkpointNum: row.checkpoint_num,
  }
}

export async function writePrefix(db: Kysely<Database>, tenantId: string, sessionId: string, prefix: StoredPrefix): Promise<void> {
  const values = {
    covered_count: prefix.coveredCount,
    covered_hash: prefix.coveredHash,
    parts: JSON.stringify(prefix.parts),
    system: prefix.system === undefined ? null : JSON.stringify(prefix.system),
    checkpoint_num: prefix.checkpointNum,
  }
  await db
    .insertInto('proxy_prefixes')
    .values({ tenant_id: tenantId, session_id: sessionId, ...values })
    .onConflict((oc) => oc.columns(['tenant_id', 'session_id']).doUpdateSet({ ...values, updated_at: new Date().toISOString() }))
    .execute()
}

export async function deletePrefix(db: Kysely<Database>, tenantId: string, sessionId: string): Promise<number> {
  const r = await db.deleteFrom('proxy_prefixes').where('tenant_id', '=', tenantId).where('session_id', '=', sessionId).executeTakeFirst()
  return Number(r.numDeletedRows)
}
