/**
 * Background updates (src/use-cases/sessions/summary-update.ts): few round trips, since
 * each costs the event loop a system call or two, and the API shares it.
 */
import { sql, type Transaction } from 'kysely'
import { decodeJson, decodeText } from '../../db/nul.ts'
import type { Database } from '../../db/schema.ts'
import type { StoredMessage } from './messages.ts'
import { parseJson, type Db } from './rows.ts'
import { readSettings, type SessionSettings } from './settings.ts'

/** What an update computes from, read outside any transaction in one round trip. */
export interface UpdateSnapshot {
  settings: SessionSettings
  summary: { version: number; content: string } | undefined
  evicted: StoredMessage[]
  /** The time of the session's newest message, in the window or not: what items age against. */
  latestMessageAt?: Date
}

export async function readUpdateSnapshot(db: Db, tenantId: string, sessionId: string): Promise<UpdateSnapshot | undefined> {
  const res = await sql<{ settings: unknown; version: number | null; content: string | null; evicted: unknown; latest_message_at: Date | string | null }>`
    select s.settings, v.version, v.content,
      (select coalesce(json_agg(json_build_object('seq', m.seq, 'raw', m.raw, 'role', m.role, 'tokens', m.tokens, 'message_at', m.message_at) order by m.seq), '[]'::json)
        from session_messages m where m.tenant_id = s.tenant_id and m.session_id = s.id and m.status = 'evicted') as evicted,
      (select max(m.message_at) from session_messages m where m.tenant_id = s.tenant_id and m.session_id = s.id) as latest_message_at
    from sessions s
    left join lateral (
      select version, content from session_summaries x
      where x.tenant_id = s.tenant_id and x.session_id = s.id order by version desc limit 1
    ) v on true
    where s.tenant_id = ${tenantId} and s.id = ${sessionId}`.execute(db)
  const r = res.rows[0]
  if (!r) return undefined
  return {
    settings: readSettings(r.settings),
    summary: r.version === null ? undefined : { version: Number(r.version), content: decodeText(r.content ?? '') },
    evicted: evictedFromJson(r.evicted),
    ...(r.latest_message_at !== null ? { latestMessageAt: new Date(r.latest_message_at) } : {}),
  }
}

/** The time of the session's newest message, in the window or not. */
export async function latestMessageAt(db: Db, tenantId: string, sessionId: string): Promise<Date | undefined> {
  const r = await db.selectFrom('session_messages').select((eb) => eb.fn.max('message_at').as('latest')).where('tenant_id', '=', tenantId).where('session_id', '=', sessionId).executeTakeFirst()
  return r?.latest ? new Date(r.latest as Date | string) : undefined
}

/** Evicted messages aggregated by json_agg(json_build_object(seq, raw, role, tokens, message_at)). */
export function evictedFromJson(v: unknown): StoredMessage[] {
  return (parseJson(v) as { seq: number; raw: unknown; role: string; tokens: number; message_at: string }[]).map(
    (m): StoredMessage => ({ seq: Number(m.seq), raw: decodeJson(m.raw), role: m.role, tokens: m.tokens, messageAt: new Date(m.message_at), status: 'evicted' }),
  )
}

/**
 * An update's first statement: locks the session row (appends of the session wait;
 * reads never do), inserts its summary_update_runs row (the partial unique index
 * refuses a second unfinished run of the session), and returns the settings, the
 * current version and the seqs of the evicted messages. Undefined when the session is
 * gone. The version and seqs come from the statement's snapshot: after a wait for the
 * lock they may predate what the lock holder committed. They only validate the update's
 * snapshot, where that is safe (the compare-and-set on the version and the status check
 * in markFolded() catch a concurrent writer; a newer eviction is simply not folded).
 * Never decide on them what depends on the newest evictions: finish() reads those itself.
 */
export async function beginUpdate(
  trx: Transaction<Database>,
  tenantId: string,
  sessionId: string,
  worker: string,
): Promise<{ runId: string; settings: SessionSettings; version: number; evictedSeqs: number[] } | undefined> {
  const res = await sql<{ run_id: string; settings: unknown; version: number | string; evicted: (number | string)[] | string }>`
    with locked as (
      select tenant_id, id, settings from sessions where tenant_id = ${tenantId} and id = ${sessionId} for no key update
    ), run as (
      insert into summary_update_runs (tenant_id, session_id, worker) select tenant_id, id, ${worker} from locked returning id
    )
    select run.id as run_id, locked.settings,
      (select coalesce(max(version), 0) from session_summaries v where v.tenant_id = ${tenantId} and v.session_id = ${sessionId}) as version,
      (select coalesce(array_agg(seq order by seq), '{}') from session_messages m
        where m.tenant_id = ${tenantId} and m.session_id = ${sessionId} and m.status = 'evicted') as evicted
    from locked, run`.execute(trx)
  const r = res.rows[0]
  if (!r) return undefined
  const seqs = typeof r.evicted === 'string' ? (r.evicted.replace(/[{}]/g, '') ? r.evicted.replace(/[{}]/g, '').split(',') : []) : r.evicted
  return { runId: r.run_id, settings: readSettings(r.settings), version: Number(r.version), evictedSeqs: seqs.map(Number) }
}

/**
 * An update's last write: marks the folded messages summarized (only those still
 * evicted) and finishes its run row, in one statement. Returns how many changed.
 */
export async function markFolded(
  trx: Transaction<Database>,
  tenantId: string,
  sessionId: string,
  run: { id: string; mode: string; fromVersion: number; toVersion: number; seqs: readonly number[] },
): Promise<number> {
  const seqs = `{${run.seqs.join(',')}}`
  const res = await sql<{ changed: number | string }>`
    with folded as (
      update session_messages set status = 'summarized'
      where tenant_id = ${tenantId} and session_id = ${sessionId} and seq = any(${seqs}::bigint[]) and status = 'evicted'
      returning seq
    ), finished as (
      update summary_update_runs set finished_at = clock_timestamp(), mode = ${run.mode},
        from_version = ${run.fromVersion}, to_version = ${run.toVersion},
        folded_from_seq = ${run.seqs[0] ?? null}, folded_to_seq = ${run.seqs.at(-1) ?? null}, folded_messages = ${run.seqs.length}
      where id = ${run.id}
    )
    select count(*) as changed from folded`.execute(trx)
  return Number(res.rows[0]!.changed)
}
