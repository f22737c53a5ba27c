/**
 * Read-only listings for the dashboard (issue 13) and any client that pages through a
 * tenant's data: the sessions list (sessions and compaction series together), a
 * session's summary versions, and its stored messages. Every query filters by the
 * caller's tenant (docs/internals.md). Pages are keyset pages: a cursor is the sort
 * value and id of the page's last row, so a page costs the same wherever it is.
 */
import { sql } from 'kysely'
import { decodeJson, decodeText, sqlTextProblem } from '../db/nul.ts'
import type { SessionMessageStatus } from '../db/schema.ts'
import { ApiError } from '../errors.ts'
import { parseJson, toDate, type Db } from './repository.ts'

export const MAX_LIST_PAGE = 200

export const SESSION_SORTS = ['lastActivity', 'id', 'messageCount', 'checkpoints', 'tokensSaved', 'summaryTokens', 'summaryVersion', 'updateFailures'] as const
export type SessionSort = (typeof SESSION_SORTS)[number]

export interface SessionListItem {
  id: string
  /** A session (PUT /sessions/:id, appends), a compaction series (only checkpoints), or both. */
  kind: 'session' | 'series' | 'both'
  lastActivity: Date
  messageCount: number
  windowMessages: number
  windowTokens: number
  windowLimit: { messages: number; tokens: number } | null
  summaryVersion: number
  summaryTokens: number
  checkpoints: number
  tokensSaved: number
  update: { status: 'pending' | 'running' | 'failed'; attempts: number; lastError: string | null } | null
  updateFailures: number
}

/** The SQL of each sort key: never null, so keyset comparisons hold. */
const SORT_SQL: Record<SessionSort, string> = {
  lastActivity: 'last_activity_us',
  id: 'id',
  messageCount: 'message_count',
  checkpoints: 'checkpoints',
  tokensSaved: 'tokens_saved',
  summaryTokens: 'summary_tokens',
  summaryVersion: 'summary_version',
  updateFailures: 'update_failures',
}

interface ListCursor {
  s: SessionSort
  d: 'asc' | 'desc'
  v: number | string
  id: string
}

function invalidCursor(): ApiError {
  return new ApiError(400, 'invalid_cursor', 'cursor is not one this service returned for this sort', [{ path: 'querystring.cursor', message: 'invalid cursor' }])
}

function encodeListCursor(c: ListCursor): string {
  return Buffer.from(JSON.stringify(c), 'utf8').toString('base64url')
}

function decodeListCursor(cursor: string, sort: SessionSort, dir: 'asc' | 'desc'): ListCursor {
  let c: ListCursor
  try {
    c = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as ListCursor
  } catch {
    throw invalidCursor()
  }
  // Its id (and, sorted by id, its value) reaches SQL: text this service wrote (a session
  // id), never NUL or a lone surrogate, which PostgreSQL refuses (a 500 before).
  const okValue = sort === 'id' ? typeof c?.v === 'string' && sqlTextProblem(c.v) === undefined : typeof c?.v === 'number' && Number.isSafeInteger(c.v)
  if (!c || c.s !== sort || c.d !== dir || !okValue || typeof c.id !== 'string' || sqlTextProblem(c.id) !== undefined) throw invalidCursor()
  return c
}

/**
 * One page of the tenant's sessions and compaction series. `q` matches the id, case
 * insensitively, anywhere in it. Sorted by `sort` then id, in `order`.
 */
export async function listSessions(
  db: Db,
  tenantId: string,
  opts: { q?: string; sort?: SessionSort; order?: 'asc' | 'desc'; cursor?: string; limit?: number } = {},
): Promise<{ items: SessionListItem[]; nextCursor: string | null; total: number }> {
  const sort = opts.sort ?? 'lastActivity'
  const dir = opts.order ?? (sort === 'id' ? 'asc' : 'desc')
  const limit = Math.min(MAX_LIST_PAGE, Math.max(1, opts.limit ?? 50))
  const after = opts.cursor ? decodeListCursor(opts.cursor, sort, dir) : undefined
  const q = opts.q?.trim() ? opts.q.trim().toLowerCase() : null
  const col = sql.raw(SORT_SQL[sort])
  const cmp = sql.raw(dir === 'asc' ? '>' : '<')
  const ord = sql.raw(dir)
  const keyset = after ? sql`where (${col}, id) ${cmp} (${after.v}, ${after.id})` : sql``

  const res = await sql<{
    id: string
    has_session: boolean
    has_series: boolean
    settings: unknown
    last_activity: Date | string
    last_activity_us: string | number
    message_count: string | number
    window_messages: string | number
    window_tokens: string | number
    summary_version: number
    summary_tokens: number
    checkpoints: string | number
    tokens_saved: string | number
    queue_status: 'pending' | 'failed' | null
    running: boolean | null
    attempts: number | null
    last_error: string | null
    update_failures: number
    total: string | number
  }>`
    with cps as (
      select session_id, count(*) as checkpoints,
        coalesce(sum(coalesce(original_tokens, 0) - coalesce(compressed_tokens, 0)), 0) as tokens_saved,
        max(created_at) as last_at
      from checkpoint_summaries where tenant_id = ${tenantId} group by session_id
    ), ids as (
      select id from sessions where tenant_id = ${tenantId}
      union
      select session_id from cps
    ), base as (
      select i.id, s.id is not null as has_session, c.session_id is not null as has_series, s.settings,
        coalesce(c.checkpoints, 0) as checkpoints, coalesce(c.tokens_saved, 0) as tokens_saved,
        coalesce((select max(seq) from session_messages m where m.tenant_id = ${tenantId} and m.session_id = i.id), 0) as message_count,
        w.window_messages, w.window_tokens,
        coalesce(v.version, 0) as summary_version, coalesce(v.tokens, 0) as summary_tokens,
        q.status as queue_status, (q.lease_owner is not null and q.lease_expires_at > now()) as running, q.attempts, q.last_error,
        case when q.last_error is null then 0
             when q.lease_owner is not null and q.lease_expires_at > now() then greatest(q.attempts - 1, 0)
             else q.attempts end as update_failures,
        greatest(s.updated_at, c.last_at, v.updated_at) as last_activity
      from ids i
      left join sessions s on s.tenant_id = ${tenantId} and s.id = i.id
      left join cps c on c.session_id = i.id
      left join lateral (
        select version, tokens, updated_at from session_summaries x
        where x.tenant_id = ${tenantId} and x.session_id = i.id order by version desc limit 1
      ) v on true
      left join lateral (
        select count(*) filter (where role not in ('system', 'developer')) as window_messages,
          coalesce(sum(tokens) filter (where role not in ('system', 'developer')), 0) as window_tokens
        from session_messages m where m.tenant_id = ${tenantId} and m.session_id = i.id and m.status = 'window'
      ) w on true
      left join summary_update_queue q on q.tenant_id = ${tenantId} and q.session_id = i.id
      where ${q === null ? sql`true` : sql`strpos(lower(i.id), ${q}) > 0`}
    ), ranked as (
      select *, (extract(epoch from last_activity) * 1000000)::bigint as last_activity_us, count(*) over () as total from base
    )
    select * from ranked ${keyset}
    order by ${col} ${ord}, id ${ord}
    limit ${limit + 1}`.execute(db)

  let total = Number(res.rows[0]?.total ?? 0)
  if (res.rows.length === 0 && after) {
    const t = await sql<{ n: string | number }>`
      select count(*) as n from (select id from sessions where tenant_id = ${tenantId} union select session_id from checkpoint_summaries where tenant_id = ${tenantId}) i
      where ${q === null ? sql`true` : sql`strpos(lower(i.id), ${q}) > 0`}`.execute(db)
    total = Number(t.rows[0]!.n)
  }
  const rows = res.rows.slice(0, limit)
  const items = rows.map((r): SessionListItem => {
    const settings = r.settings === null ? null : (decodeJson(parseJson(r.settings)) as { windowMessages?: number; windowTokens?: number } | null)
    const running = r.running === true
    return {
      id: r.id,
      kind: r.has_session && r.has_series ? 'both' : r.has_session ? 'session' : 'series',
      lastActivity: toDate(r.last_activity),
      messageCount: Number(r.message_count),
      windowMessages: Number(r.window_messages ?? 0),
      windowTokens: Number(r.window_tokens ?? 0),
      windowLimit: r.has_session ? { messages: settings?.windowMessages ?? 20, tokens: settings?.windowTokens ?? 16_000 } : null,
      summaryVersion: Number(r.summary_version),
      summaryTokens: Number(r.summary_tokens),
      checkpoints: Number(r.checkpoints),
      tokensSaved: Number(r.tokens_saved),
      update: r.queue_status
        ? { status: r.queue_status === 'failed' ? 'failed' : running ? 'running' : 'pending', attempts: Number(r.attempts ?? 0), lastError: r.last_error === null ? null : decodeText(r.last_error) }
        : null,
      updateFailures: Number(r.update_failures),
    }
  })
  const last = res.rows[limit - 1]
  const nextCursor =
    res.rows.length > limit && last
      ? encodeListCursor({ s: sort, d: dir, v: sort === 'id' ? last.id : Number((last as unknown as Record<string, unknown>)[SORT_SQL[sort]]), id: last.id })
      : null
  return { items, nextCursor, total }
}

// ---------------------------------------------------------------------------
// Summary versions

export interface SummaryVersionInfo {
  version: number
  tokens: number
  updatedAt: Date
  source: 'background' | 'manual'
  /** Who wrote it: a background update that folded messages in, the daily aging (nothing new folded), or a PUT. */
  writtenBy: 'background' | 'aging' | 'manual'
  /** The update's mode (rules, llm, llm-fallback) and how many messages it folded in; null when its run record is gone or for a manual version. */
  mode: string | null
  foldedMessages: number | null
}

type VersionRow = {
  version: number
  tokens: number
  updated_at: Date | string
  source: 'background' | 'manual'
  mode: string | null
  folded_messages: number | null
  content?: string
}

function versionInfo(r: VersionRow): SummaryVersionInfo {
  const folded = r.folded_messages === null || r.folded_messages === undefined ? null : Number(r.folded_messages)
  return {
    version: Number(r.version),
    tokens: Number(r.tokens),
    updatedAt: toDate(r.updated_at),
    source: r.source,
    writtenBy: r.source === 'manual' ? 'manual' : folded === 0 ? 'aging' : 'background',
    mode: r.source === 'manual' ? null : (r.mode ?? null),
    foldedMessages: r.source === 'manual' ? null : folded,
  }
}

const versionCols = (content: boolean) => sql`
  v.version, v.tokens, v.updated_at, v.source, ${content ? sql`v.content,` : sql``}
  r.mode, r.folded_messages`

const runJoin = sql`
  left join lateral (
    select mode, folded_messages from summary_update_runs r
    where r.tenant_id = v.tenant_id and r.session_id = v.session_id and r.to_version = v.version
      and r.finished_at is not null and r.to_version > coalesce(r.from_version, 0)
    order by r.finished_at desc limit 1
  ) r on true`

/** Newest first; the cursor is the last version of the previous page. Undefined when the session does not exist. */
export async function listSummaryVersions(
  db: Db,
  tenantId: string,
  sessionId: string,
  opts: { cursor?: string; limit?: number } = {},
): Promise<{ items: SummaryVersionInfo[]; nextCursor: string | null } | undefined> {
  const limit = Math.min(MAX_LIST_PAGE, Math.max(1, opts.limit ?? 50))
  let before: number | undefined
  if (opts.cursor) {
    const m = /^v:(\d{1,10})$/.exec(Buffer.from(opts.cursor, 'base64url').toString('utf8'))
    if (!m) throw invalidCursor()
    before = Number(m[1])
  }
  const exists = await db.selectFrom('sessions').select('id').where('tenant_id', '=', tenantId).where('id', '=', sessionId).executeTakeFirst()
  if (!exists) return undefined
  const res = await sql<VersionRow>`
    select ${versionCols(false)} from session_summaries v ${runJoin}
    where v.tenant_id = ${tenantId} and v.session_id = ${sessionId} ${before !== undefined ? sql`and v.version < ${before}` : sql``}
    order by v.version desc limit ${limit + 1}`.execute(db)
  const items = res.rows.slice(0, limit).map(versionInfo)
  return { items, nextCursor: res.rows.length > limit ? Buffer.from(`v:${items.at(-1)!.version}`, 'utf8').toString('base64url') : null }
}

export async function getSummaryVersion(db: Db, tenantId: string, sessionId: string, version: number): Promise<(SummaryVersionInfo & { content: string }) | undefined> {
  const res = await sql<VersionRow>`
    select ${versionCols(true)} from session_summaries v ${runJoin}
    where v.tenant_id = ${tenantId} and v.session_id = ${sessionId} and v.version = ${version}`.execute(db)
  const r = res.rows[0]
  return r ? { ...versionInfo(r), content: decodeText(r.content ?? '') } : undefined
}

// ---------------------------------------------------------------------------
// Stored messages

export interface BrowsedMessage {
  seq: number
  role: string
  tokens: number
  status: SessionMessageStatus
  messageAt: Date
  message: unknown
}

/** Oldest first from `after` (a seq), `status` filtering; undefined when the session does not exist. */
export async function listMessages(
  db: Db,
  tenantId: string,
  sessionId: string,
  opts: { status?: SessionMessageStatus; cursor?: string; limit?: number } = {},
): Promise<{ format: string | null; items: BrowsedMessage[]; nextCursor: string | null } | undefined> {
  const limit = Math.min(MAX_LIST_PAGE, Math.max(1, opts.limit ?? 50))
  let after = 0
  if (opts.cursor) {
    const m = /^m:(\d{1,15})$/.exec(Buffer.from(opts.cursor, 'base64url').toString('utf8'))
    if (!m) throw invalidCursor()
    after = Number(m[1])
  }
  const session = await db.selectFrom('sessions').select('settings').where('tenant_id', '=', tenantId).where('id', '=', sessionId).executeTakeFirst()
  if (!session) return undefined
  let q = db
    .selectFrom('session_messages')
    .select(['seq', 'raw', 'role', 'tokens', 'message_at', 'status'])
    .where('tenant_id', '=', tenantId)
    .where('session_id', '=', sessionId)
    .where('seq', '>', after)
  if (opts.status) q = q.where('status', '=', opts.status)
  const rows = await q
    .orderBy('seq')
    .limit(limit + 1)
    .execute()
  const items = rows.slice(0, limit).map(
    (r): BrowsedMessage => ({ seq: Number(r.seq), role: r.role, tokens: r.tokens, status: r.status, messageAt: toDate(r.message_at), message: decodeJson(parseJson(r.raw)) }),
  )
  const settings = decodeJson(parseJson(session.settings)) as { format?: string } | null
  return {
    format: settings?.format ?? null,
    items,
    nextCursor: rows.length > limit ? Buffer.from(`m:${items.at(-1)!.seq}`, 'utf8').toString('base64url') : null,
  }
}
