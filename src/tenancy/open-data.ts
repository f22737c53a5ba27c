/**
 * Open-mode data: while no API key exists every request runs as the `default` tenant,
 * and once a key exists that tenant is reachable by no key, so its sessions and
 * checkpoints become invisible. adoptOpenData() moves them, in the caller's transaction,
 * to the tenant of a new key (`npm run key:create -- --tenant NAME --adopt-open-data`).
 *
 * The session tables reference sessions(tenant_id, id) without ON UPDATE CASCADE, so a
 * session moves as: a copy of its row under the new tenant, its rows in every table
 * re-pointed to it, the old row deleted. The default tenant's sessions are locked first
 * (FOR UPDATE: appends and summary updates of those sessions wait, see
 * docs/internals.md), and its checkpointed sessions under the advisory lock that
 * insertCheckpoint() takes, so nothing is written to them half-way through. A session id
 * the new tenant already uses would merge two conversations: the move is refused, and
 * nothing changes.
 */
import { sql, type RawBuilder, type Transaction } from 'kysely'
import { CHECKPOINT_LOCK_CLASS } from '../checkpoints/repository.ts'
import type { Database } from '../db/schema.ts'
import { DEFAULT_TENANT_NAME } from './api-keys.ts'

export interface AdoptedOpenData {
  /** Sessions moved (with their messages, summaries, queued update, runs and Idempotency-Keys). */
  sessions: number
  messages: number
  /** Checkpoint rows moved, and the session ids they belong to. */
  checkpoints: number
  checkpointSessions: number
}

export class AdoptConflictError extends Error {
  constructor(
    readonly tenantName: string,
    readonly sessionIds: string[],
  ) {
    const shown = sessionIds.slice(0, 5).map((id) => JSON.stringify(id))
    const more = sessionIds.length > 5 ? ` and ${sessionIds.length - 5} more` : ''
    super(
      `cannot adopt the open-mode data: tenant "${tenantName}" already has session id${sessionIds.length === 1 ? '' : 's'} ` +
        `${shown.join(', ')}${more}; nothing was changed (no key created, nothing moved): delete one of them, or adopt into another tenant`,
    )
    this.name = 'AdoptConflictError'
  }
}

/** Session ids (JSON text) as a set expression for `col in (...)`. */
function idSet(ids: string[]): RawBuilder<unknown> {
  return sql`(select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))`
}

/** Tables whose rows belong to a session (tenant_id, session_id). */
const SESSION_TABLES = ['session_messages', 'session_summaries', 'summary_update_queue', 'summary_update_runs', 'idempotency_keys'] as const

/**
 * Move every session and checkpoint of the open-mode (`default`) tenant to `toTenantId`.
 * Run it inside a transaction (read committed); on AdoptConflictError roll it back.
 */
export async function adoptOpenData(trx: Transaction<Database>, toTenantId: string, toTenantName: string): Promise<AdoptedOpenData> {
  const none: AdoptedOpenData = { sessions: 0, messages: 0, checkpoints: 0, checkpointSessions: 0 }
  const open = await trx.selectFrom('tenants').select('id').where('name', '=', DEFAULT_TENANT_NAME).executeTakeFirst()
  if (!open || open.id === toTenantId) return none
  const from = open.id

  const sessionIds = (await trx.selectFrom('sessions').select('id').where('tenant_id', '=', from).orderBy('id').forUpdate().execute()).map((r) => r.id)
  const checkpointIds = (
    await sql<{ session_id: string }>`
      select s.session_id, pg_advisory_xact_lock(${CHECKPOINT_LOCK_CLASS}, hashtext(${from} || ':' || s.session_id))::text as locked
      from (select distinct session_id from checkpoint_summaries where tenant_id = ${from} order by session_id) s`.execute(trx)
  ).rows.map((r) => r.session_id)
  if (sessionIds.length === 0 && checkpointIds.length === 0) return none

  const clashes = await sql<{ id: string }>`
    select id from sessions where tenant_id = ${toTenantId} and id in ${idSet(sessionIds)}
    union
    select distinct session_id from checkpoint_summaries where tenant_id = ${toTenantId} and session_id in ${idSet(checkpointIds)}
    order by 1`.execute(trx)
  if (clashes.rows.length > 0) throw new AdoptConflictError(toTenantName, clashes.rows.map((r) => r.id))

  let messages = 0
  if (sessionIds.length > 0) {
    await sql`
      insert into sessions (tenant_id, id, settings, created_at, updated_at)
      select ${toTenantId}, id, settings, created_at, updated_at from sessions where tenant_id = ${from} and id in ${idSet(sessionIds)}`.execute(trx)
    for (const table of SESSION_TABLES) {
      // A lease held by a worker on the old entry would only delay the next update.
      const release = table === 'summary_update_queue' ? sql`, lease_owner = null, lease_expires_at = null` : sql``
      const res = await sql`
        update ${sql.table(table)} set tenant_id = ${toTenantId}${release}
        where tenant_id = ${from} and session_id in ${idSet(sessionIds)}`.execute(trx)
      if (table === 'session_messages') messages = Number(res.numAffectedRows ?? 0)
    }
    await sql`delete from sessions where tenant_id = ${from} and id in ${idSet(sessionIds)}`.execute(trx)
  }
  let checkpoints = 0
  if (checkpointIds.length > 0) {
    const res = await sql`
      update checkpoint_summaries set tenant_id = ${toTenantId}
      where tenant_id = ${from} and session_id in ${idSet(checkpointIds)}`.execute(trx)
    checkpoints = Number(res.numAffectedRows ?? 0)
  }
  return { sessions: sessionIds.length, messages, checkpoints, checkpointSessions: checkpointIds.length }
}
