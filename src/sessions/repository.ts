/**
 * Storage of sessions (migrations/0003_sessions.ts): settings, messages and their window
 * status, summary versions. Every function takes the caller's tenant and filters by it
 * (docs/architecture.md): another tenant's session is simply not found.
 *
 * Functions taking `Db` run on the app's Kysely instance or on a transaction handle;
 * inside a transaction pass the handle (PGlite has one connection).
 *
 * Caller content (messages, settings, summaries, stored responses) may hold NUL, which
 * PostgreSQL cannot store: it is escaped here on write and unescaped on read
 * (src/db/nul.ts), so it round-trips byte for byte. SQL that builds JSON from these
 * columns (json_agg) passes the escaped form through; decode where it is parsed.
 */
import { sql, type Kysely, type Transaction } from 'kysely'
import { decodeJson, decodeText, encodeJson, encodeText } from '../db/nul.ts'
import type { Database, SessionMessageStatus } from '../db/schema.ts'
import type { MessageFormat } from '../engine/messages/canonical.ts'
import { parseConversation, type CanonicalMessage } from '../engine/messages/index.ts'

export type Db = Kysely<Database> | Transaction<Database>

export const DEFAULT_WINDOW_MESSAGES = 20
export const DEFAULT_WINDOW_TOKENS = 16_000
export const DEFAULT_SUMMARY_BUDGET = 10_000
/** Seed 000's BATCH_SIZE: evicted exchanges that trigger a background update. */
export const BATCH_SIZE = 4

export type SummaryMode = 'rules' | 'llm'

export interface SessionSettings {
  /** Format of the stored messages; set by the first append when not given. */
  format?: MessageFormat
  /** Model the session talks to: token counts and the context's default budget. Default DEFAULT_MODEL. */
  model?: string
  /** System prompt sent first by GET /context (string, or Anthropic text blocks). */
  system?: string | unknown[]
  windowMessages: number
  windowTokens: number
  summaryBudget: number
  batchSize: number
  mode: SummaryMode
  summarizer?: { provider: 'openai' | 'anthropic'; model?: string }
}

export function defaultSettings(): SessionSettings {
  return {
    windowMessages: DEFAULT_WINDOW_MESSAGES,
    windowTokens: DEFAULT_WINDOW_TOKENS,
    summaryBudget: DEFAULT_SUMMARY_BUDGET,
    batchSize: BATCH_SIZE,
    mode: 'rules',
  }
}

/** Stored settings over the defaults (tolerates rows written by older versions). */
export function resolveSettings(stored: unknown): SessionSettings {
  const s = stored && typeof stored === 'object' ? (stored as Partial<SessionSettings>) : {}
  return { ...defaultSettings(), ...s }
}

/** The settings column as read (jsonb, NUL-escaped: src/db/nul.ts; `system` is the caller's). */
function readSettings(v: unknown): SessionSettings {
  return resolveSettings(decodeJson(parseJson(v)))
}

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
 * idempotency keys cascade; checkpoints of the same session id are deleted too) in one
 * transaction. Returns false when there was nothing to delete.
 */
export async function deleteSession(db: Kysely<Database>, tenantId: string, id: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const cps = await trx.deleteFrom('checkpoint_summaries').where('tenant_id', '=', tenantId).where('session_id', '=', id).executeTakeFirst()
    const s = await trx.deleteFrom('sessions').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst()
    return Number(s.numDeletedRows) + Number(cps.numDeletedRows) > 0
  })
}

// ---------------------------------------------------------------------------
// Messages

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
type MessageRow = { seq: number | string; raw: unknown; role: string; tokens: number; message_at: Date | string; status: SessionMessageStatus }

function toStored(r: MessageRow): StoredMessage {
  return { seq: Number(r.seq), raw: decodeJson(parseJson(r.raw)), role: r.role, tokens: r.tokens, messageAt: toDate(r.message_at), status: r.status }
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

// ---------------------------------------------------------------------------
// Summaries

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

// ---------------------------------------------------------------------------
// Idempotency keys

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

// ---------------------------------------------------------------------------

/** json/jsonb arrives parsed from pg; be tolerant of a driver that hands back text. */
export function parseJson(v: unknown): unknown {
  if (typeof v !== 'string') return v ?? null
  try {
    return JSON.parse(v)
  } catch {
    return v
  }
}

export function toDate(v: Date | string): Date {
  return v instanceof Date ? v : new Date(v)
}

/** PostgreSQL unique_violation (also raised by PGlite). */
export function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '23505'
}

/** The daily job's clean-up: Idempotency-Keys past their TTL and old finished update runs. */
export async function purgeExpired(db: Db, opts: { idempotencyTtlMs: number; runHistoryMs: number }): Promise<{ idempotencyKeys: number; runs: number }> {
  const keys = await sql`delete from idempotency_keys where created_at < now() - ${opts.idempotencyTtlMs}::float8 * interval '1 millisecond'`.execute(db)
  const runs = await sql`
    delete from summary_update_runs
    where finished_at is not null and finished_at < now() - ${opts.runHistoryMs}::float8 * interval '1 millisecond'`.execute(db)
  return { idempotencyKeys: Number(keys.numAffectedRows ?? 0), runs: Number(runs.numAffectedRows ?? 0) }
}

// ---------------------------------------------------------------------------
// Background updates (src/sessions/worker.ts): few round trips, since each costs the
// event loop a system call or two, and the API shares it.

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
