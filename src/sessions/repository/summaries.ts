/** Summary versions (session_summaries): the latest, a new one, and a summary read with its session's state. */
import { sql } from 'kysely'
import { decodeText, encodeText } from '../../db/nul.ts'
import { toDate, type Db } from './rows.ts'
import { readSettings, type SessionSettings } from './settings.ts'

export interface StoredSummary {
  version: number
  content: string
  tokens: number
  updatedAt: Date
  source: 'background' | 'manual'
}

/** The last committed version: a plain SELECT, no lock, never waits on a running update. */
export async function latestSummary(db: Db, tenantId: string, sessionId: string): Promise<StoredSummary | undefined> {
  const r = await db
    .selectFrom('session_summaries')
    .select(['version', 'content', 'tokens', 'updated_at', 'source'])
    .where('tenant_id', '=', tenantId)
    .where('session_id', '=', sessionId)
    .orderBy('version', 'desc')
    .limit(1)
    .executeTakeFirst()
  return r ? { version: r.version, content: decodeText(r.content), tokens: r.tokens, updatedAt: toDate(r.updated_at), source: r.source } : undefined
}

/**
 * Writes `version` (the compare-and-set: the primary key refuses a second writer of the
 * same version, whichever commits last). Throws the database's unique violation then.
 */
export async function insertSummaryVersion(db: Db, tenantId: string, sessionId: string, s: Omit<StoredSummary, 'updatedAt'>): Promise<StoredSummary> {
  const r = await db
    .insertInto('session_summaries')
    .values({ tenant_id: tenantId, session_id: sessionId, version: s.version, content: encodeText(s.content), tokens: s.tokens, source: s.source })
    .returning(['updated_at'])
    .executeTakeFirstOrThrow()
  return { ...s, updatedAt: toDate(r.updated_at) }
}

/** A summary read with the session's state in one round trip (GET /summary). */
export interface SummaryState {
  settings: SessionSettings
  summary: StoredSummary | undefined
  evictedAwaitingSummary: number
  queue: { status: 'pending' | 'failed'; running: boolean } | undefined
}

export async function readSummaryState(db: Db, tenantId: string, sessionId: string): Promise<SummaryState | undefined> {
  const res = await sql<{
    settings: unknown
    version: number | null
    content: string | null
    tokens: number | null
    updated_at: Date | string | null
    source: 'background' | 'manual' | null
    evicted: number | string
    queue_status: 'pending' | 'failed' | null
    running: boolean | null
  }>`
    select s.settings, v.version, v.content, v.tokens, v.updated_at, v.source,
      (select count(*) from session_messages m
        where m.tenant_id = s.tenant_id and m.session_id = s.id and m.status = 'evicted') as evicted,
      q.status as queue_status,
      (q.lease_owner is not null and q.lease_expires_at > now()) as running
    from sessions s
    left join lateral (
      select version, content, tokens, updated_at, source from session_summaries x
      where x.tenant_id = s.tenant_id and x.session_id = s.id
      order by version desc limit 1
    ) v on true
    left join summary_update_queue q on q.tenant_id = s.tenant_id and q.session_id = s.id
    where s.tenant_id = ${tenantId} and s.id = ${sessionId}`.execute(db)
  const r = res.rows[0]
  if (!r) return undefined
  return {
    settings: readSettings(r.settings),
    summary:
      r.version === null
        ? undefined
        : { version: Number(r.version), content: decodeText(r.content ?? ''), tokens: Number(r.tokens ?? 0), updatedAt: toDate(r.updated_at!), source: r.source ?? 'background' },
    evictedAwaitingSummary: Number(r.evicted),
    queue: r.queue_status ? { status: r.queue_status, running: r.running === true } : undefined,
  }
}
