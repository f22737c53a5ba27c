/**
 * A session's messages (session_messages) and their window status: window, evicted
 * (awaiting the summary), summarized.
 */
import { sql } from 'kysely'
import { decodeJson, encodeJson } from '../../db/nul.ts'
import type { SessionMessageStatus } from '../../db/schema.ts'
import type { MessageFormat } from '../../engine/messages/canonical.ts'
import { parseConversation, type CanonicalMessage } from '../../engine/messages/index.ts'
import { parseJson, toDate, type Db } from './rows.ts'

export interface StoredMessage {
  seq: number
  raw: unknown
  role: string
  tokens: number
  messageAt: Date
  status: SessionMessageStatus
}

export interface NewMessage {
  raw: unknown
  role: string
  tokens: number
  messageAt: Date
}

export async function maxSeq(db: Db, tenantId: string, sessionId: string): Promise<number> {
  const row = await db
    .selectFrom('session_messages')
    .select((eb) => eb.fn.max('seq').as('m'))
    .where('tenant_id', '=', tenantId)
    .where('session_id', '=', sessionId)
    .executeTakeFirst()
  return Number(row?.m ?? 0)
}

/** Inserts messages with seq after `afterSeq`, in order. Returns the seqs. */
export async function insertMessages(db: Db, tenantId: string, sessionId: string, format: MessageFormat, afterSeq: number, messages: readonly NewMessage[]): Promise<number[]> {
  if (messages.length === 0) return []
  const seqs = messages.map((_, i) => afterSeq + i + 1)
  // Chunked: PostgreSQL takes at most 65535 parameters per statement.
  for (let i = 0; i < messages.length; i += 2000) {
    await db
      .insertInto('session_messages')
      .values(
        messages.slice(i, i + 2000).map((m, k) => ({
          tenant_id: tenantId,
          session_id: sessionId,
          seq: seqs[i + k]!,
          raw: encodeJson(m.raw),
          format,
          role: m.role,
          tokens: m.tokens,
          message_at: m.messageAt,
          status: 'window' as const,
        })),
      )
      .execute()
  }
  return seqs
}

/** A session_messages row as read (seq may come back as a string: bigint). */
export type MessageRow = { seq: number | string; raw: unknown; role: string; tokens: number; message_at: Date | string; status: SessionMessageStatus }

function toStored(r: MessageRow): StoredMessage {
  return { seq: Number(r.seq), raw: decodeJson(parseJson(r.raw)), role: r.role, tokens: r.tokens, messageAt: toDate(r.message_at), status: r.status }
}

/** Rows read by raw SQL elsewhere in the repository (archive-backfill.ts), as stored messages. */
export function toStoredRows(rows: readonly MessageRow[]): StoredMessage[] {
  return rows.map(toStored)
}

export async function messagesWithStatus(db: Db, tenantId: string, sessionId: string, status: SessionMessageStatus, limit?: number): Promise<StoredMessage[]> {
  let q = db
    .selectFrom('session_messages')
    .select(['seq', 'raw', 'role', 'tokens', 'message_at', 'status'])
    .where('tenant_id', '=', tenantId)
    .where('session_id', '=', sessionId)
    .where('status', '=', status)
    .orderBy('seq')
  if (limit !== undefined) q = q.limit(limit)
  const rows = await q.execute()
  return rows.map(toStored)
}

/** Sets the status of the given messages, only where the current status is `from`. Returns how many changed. */
export async function setStatus(db: Db, tenantId: string, sessionId: string, seqs: readonly number[], from: SessionMessageStatus, to: SessionMessageStatus): Promise<number> {
  let changed = 0
  for (let i = 0; i < seqs.length; i += 5000) {
    const res = await db
      .updateTable('session_messages')
      .set({ status: to })
      .where('tenant_id', '=', tenantId)
      .where('session_id', '=', sessionId)
      .where('seq', 'in', seqs.slice(i, i + 5000))
      .where('status', '=', from)
      .executeTakeFirst()
    changed += Number(res.numUpdatedRows)
  }
  return changed
}

export interface MessageCounters {
  messageCount: number
  windowMessages: number
  windowTokens: number
  systemMessages: number
  evictedAwaitingSummary: number
  summarizedMessages: number
}

const SYSTEM_ROLES = ['system', 'developer']

/**
 * Reads only the unsummarised rows (the partial index): seqs run 1..n without gaps, so
 * the total is the last seq, and the summarised messages are the rest. Cost does not
 * grow with the session's history.
 */
export async function messageCounters(db: Db, tenantId: string, sessionId: string): Promise<MessageCounters> {
  const r = await db
    .selectFrom('session_messages')
    .select([
      sql<number>`(select coalesce(max(seq), 0) from session_messages m where m.tenant_id = ${tenantId} and m.session_id = ${sessionId})`.as('total'),
      sql<number>`count(*) filter (where status = 'window' and role not in ('system', 'developer'))`.as('window'),
      sql<number>`coalesce(sum(tokens) filter (where status = 'window' and role not in ('system', 'developer')), 0)`.as('window_tokens'),
      sql<number>`count(*) filter (where status = 'window' and role in ('system', 'developer'))`.as('system'),
      sql<number>`count(*) filter (where status = 'evicted')`.as('evicted'),
    ])
    .where('tenant_id', '=', tenantId)
    .where('session_id', '=', sessionId)
    .where('status', '<>', 'summarized')
    .executeTakeFirstOrThrow()
  return countersOf(Number(r.total), Number(r.window), Number(r.window_tokens), Number(r.system), Number(r.evicted))
}

export function countersOf(total: number, window: number, windowTokens: number, system: number, evicted: number): MessageCounters {
  return {
    messageCount: total,
    windowMessages: window,
    windowTokens,
    systemMessages: system,
    evictedAwaitingSummary: evicted,
    summarizedMessages: Math.max(0, total - window - system - evicted),
  }
}

/**
 * An append's read, in one round trip, under the session row's lock (so it sees every
 * committed append and update): the last seq, the window, and the oldest `evictedLimit`
 * evicted messages awaiting summary (the backlog is bounded only by the workers).
 */
export async function windowAndEvicted(db: Db, tenantId: string, sessionId: string, evictedLimit: number): Promise<{ lastSeq: number; window: StoredMessage[]; evicted: StoredMessage[] }> {
  const res = await sql<MessageRow & { last_seq: number | string }>`
    select l.last_seq, r.* from
      (select coalesce(max(seq), 0) as last_seq from session_messages where tenant_id = ${tenantId} and session_id = ${sessionId}) l
    left join lateral (
      (select seq, raw, role, tokens, message_at, status from session_messages
        where tenant_id = ${tenantId} and session_id = ${sessionId} and status = 'window')
      union all
      (select seq, raw, role, tokens, message_at, status from session_messages
        where tenant_id = ${tenantId} and session_id = ${sessionId} and status = 'evicted' order by seq limit ${evictedLimit})
    ) r on true
    order by r.seq`.execute(db)
  const window: StoredMessage[] = []
  const evicted: StoredMessage[] = []
  for (const r of res.rows) {
    if (r.seq === null) continue
    const m = toStored(r)
    ;(m.status === 'window' ? window : evicted).push(m)
  }
  return { lastSeq: Number(res.rows[0]?.last_seq ?? 0), window, evicted }
}

export async function countEvicted(db: Db, tenantId: string, sessionId: string): Promise<number> {
  const r = await sql<{ n: number | string }>`
    select count(*) as n from session_messages where tenant_id = ${tenantId} and session_id = ${sessionId} and status = 'evicted'`.execute(db)
  return Number(r.rows[0]!.n)
}

export const isSystemRole = (role: string) => SYSTEM_ROLES.includes(role)

/**
 * Stored messages back to canonical ones (the session's format). A message without its
 * own timestamp takes the time it was appended, so aging uses it.
 */
export function toCanonical(rows: readonly StoredMessage[], format: MessageFormat): CanonicalMessage[] {
  if (rows.length === 0) return []
  // Checked when appended; rows stored before a rule existed must still read back.
  const messages = parseConversation(
    rows.map((r) => r.raw),
    { format, allowDuplicateCallIds: true },
  ).messages
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!
    if (m.timestamp === undefined) m.timestamp = rows[i]!.messageAt.toISOString()
  }
  return messages
}

/** The messages with seq in [from, to], whatever their status, in order (pinned messages' neighbours). */
export async function messagesInSeqRange(db: Db, tenantId: string, sessionId: string, from: number, to: number): Promise<StoredMessage[]> {
  const rows = await db
    .selectFrom('session_messages')
    .select(['seq', 'raw', 'role', 'tokens', 'message_at', 'status'])
    .where('tenant_id', '=', tenantId)
    .where('session_id', '=', sessionId)
    .where('seq', '>=', from)
    .where('seq', '<=', to)
    .orderBy('seq')
    .execute()
  return rows.map(toStored)
}
