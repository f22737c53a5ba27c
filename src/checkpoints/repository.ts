/**
 * Checkpoints of a session: one row of checkpoint_summaries per stored compaction
 * (seed 001), always filtered by tenant (docs/architecture.md).
 *
 * Numbering. `insertCheckpoint` runs in ONE read-committed transaction that first takes
 * a transaction-scoped advisory lock on (tenant, session) and then reads
 * max(checkpoint_num) + 1, so concurrent compactions of one session get distinct,
 * gap-free numbers, and other sessions are not blocked (PostgreSQL and PGlite both have
 * advisory locks; PGlite's single connection serialises anyway).
 *
 * Folding. At most `maxCheckpoints` rows are kept per session. When an insert makes it
 * more, the oldest rows are folded into ONE "summary of summaries" in the same
 * transaction: the fold keeps the number (and id) of the newest row it replaces, so
 * numbering stays monotonic and the newest checkpoint always keeps its number. Its
 * summary is deterministic (no LLM): the newest folded summary's sections, with the older
 * ones' Completed Work rows, Key Technical Decisions and Errors bullets appended (deduped,
 * capped); key facts are merged (union of arrays); token totals and costs are summed, so
 * session statistics do not change when rows are folded. `folded_from` lists every
 * original checkpoint number the row stands for, its own included (e.g. [1, 2, 3] on
 * checkpoint 3).
 *
 * NUL. The summary and key facts quote the caller's messages, which may hold U+0000:
 * toColumns() escapes it and fromRow() restores it (src/db/nul.ts), the only two places
 * rows are written and read, so folds (read, merge, write) stay consistent.
 */
import { randomUUID } from 'node:crypto'
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely'
import { decodeJson, decodeText, encodeJson, encodeNullableText, encodeText } from '../db/nul.ts'
import type { CheckpointSummariesTable, Database } from '../db/schema.ts'
import { ApiError } from '../errors.ts'
import { normaliseTitle, SUMMARY_HEADER_RE } from '../engine/compaction/summary-format.ts'

/** What a compaction records. */
export interface CheckpointData {
  fromMessageIndex: number | null
  toMessageIndex: number | null
  messagesCompressed: number | null
  /** The summary text ('' when the compaction only masked and wrote no summary). */
  summaryContent: string
  keyFacts: Record<string, unknown> | null
  originalTokens: number | null
  compressedTokens: number | null
  compressionRatio: number | null
  summaryCostUsd: number | null
  strategy: string | null
  /** Round of the summary; null when no summary was written. */
  round: number | null
  /** The budget it compacted to, the model it counted for, its duration and the summary's tokens (absent on older rows). */
  targetTokens?: number | null
  model?: string | null
  durationMs?: number | null
  summaryTokens?: number | null
}

export interface Checkpoint extends CheckpointData {
  id: string
  sessionId: string
  checkpointNum: number
  /** Original checkpoint numbers this one stands for, when it is a fold; else null. */
  foldedFrom: number[] | null
  createdAt: Date
}

export interface InsertResult {
  checkpoint: Checkpoint
  /** Set when the insert made the session exceed maxCheckpoints and rows were folded. */
  folded?: { into: number; from: number[] }
}

export interface SessionStats {
  checkpoints: number
  /** sum(original_tokens − compressed_tokens). */
  tokensSaved: number
  totalSummaryCostUsd: number
  totalOriginalTokens: number
  totalCompressedTokens: number
}

type Row = Selectable<CheckpointSummariesTable>
type Db = Kysely<Database> | Transaction<Database>

/** Advisory lock class of checkpoint numbering (the two-key form keeps it apart from other users). */
const LOCK_CLASS = sql<number>`hashtext('compactd.checkpoint_summaries')`
/** Held, with hashtext(tenant_id || ':' || session_id), while a session's checkpoints change (src/tenancy/open-data.ts takes it too). */
export const CHECKPOINT_LOCK_CLASS = LOCK_CLASS
/** Caps of the folded summary's merged lists. */
const FOLD_MAX_TABLE_ROWS = 40
const FOLD_MAX_BULLETS = 20
const FOLD_MAX_FACTS = 50

// ---------------------------------------------------------------------------
// Writes
// ---------------------------------------------------------------------------

/** Default of COMPACTION_MAX_CHECKPOINTS. */
export const DEFAULT_MAX_CHECKPOINTS = 5

export async function insertCheckpoint(
  db: Kysely<Database>,
  tenantId: string,
  sessionId: string,
  data: CheckpointData,
  opts: { maxCheckpoints?: number } = {},
): Promise<InsertResult> {
  // Read committed explicitly: every statement after the lock must see the previous holder's commit.
  return db
    .transaction()
    .setIsolationLevel('read committed')
    .execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${LOCK_CLASS}, hashtext(${tenantId} || ':' || ${sessionId}))`.execute(trx)
      const last = await trx
        .selectFrom('checkpoint_summaries')
        .select((eb) => eb.fn.max('checkpoint_num').as('n'))
        .where('tenant_id', '=', tenantId)
        .where('session_id', '=', sessionId)
        .executeTakeFirst()
      const num = Number(last?.n ?? 0) + 1
      const inserted = await trx
        .insertInto('checkpoint_summaries')
        .values({ id: randomUUID(), tenant_id: tenantId, session_id: sessionId, checkpoint_num: num, ...toColumns(data), folded_from: null })
        .returningAll()
        .executeTakeFirstOrThrow()

      const folded = await foldExcess(trx, tenantId, sessionId, Math.max(1, opts.maxCheckpoints ?? DEFAULT_MAX_CHECKPOINTS))
      if (folded && folded.into === num) {
        const row = await trx.selectFrom('checkpoint_summaries').selectAll().where('id', '=', inserted.id).executeTakeFirstOrThrow()
        return { checkpoint: fromRow(row), folded }
      }
      return { checkpoint: fromRow(inserted), ...(folded ? { folded } : {}) }
    })
}

/** Folds the oldest rows of a session into one when it has more than `max`. */
async function foldExcess(trx: Transaction<Database>, tenantId: string, sessionId: string, max: number): Promise<{ into: number; from: number[] } | undefined> {
  const count = await trx
    .selectFrom('checkpoint_summaries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', tenantId)
    .where('session_id', '=', sessionId)
    .executeTakeFirstOrThrow()
  const excess = Number(count.n) - max
  if (excess <= 0) return undefined
  // Fold the oldest excess + 1 rows into one: the session is left with exactly `max`.
  const oldest = await trx
    .selectFrom('checkpoint_summaries')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('session_id', '=', sessionId)
    .orderBy('checkpoint_num', 'asc')
    .limit(excess + 1)
    .execute()
  const rows = oldest.map(fromRow)
  const newest = rows.at(-1)!
  const merged = foldCheckpoints(rows)
  await trx
    .updateTable('checkpoint_summaries')
    .set({ ...toColumns(merged.data), folded_from: JSON.stringify(merged.foldedFrom) })
    .where('id', '=', newest.id)
    .execute()
  await trx
    .deleteFrom('checkpoint_summaries')
    .where(
      'id',
      'in',
      rows.slice(0, -1).map((r) => r.id),
    )
    .execute()
  return { into: newest.checkpointNum, from: merged.foldedFrom }
}

function toColumns(d: CheckpointData) {
  return {
    from_message_index: d.fromMessageIndex,
    to_message_index: d.toMessageIndex,
    messages_compressed: d.messagesCompressed,
    summary_content: encodeText(d.summaryContent),
    key_facts: d.keyFacts === null ? null : encodeJson(d.keyFacts),
    original_tokens: d.originalTokens,
    compressed_tokens: d.compressedTokens,
    compression_ratio: d.compressionRatio,
    summary_cost_usd: d.summaryCostUsd,
    strategy: encodeNullableText(d.strategy),
    round: d.round,
    target_tokens: d.targetTokens ?? null,
    model: encodeNullableText(d.model ?? null),
    duration_ms: d.durationMs ?? null,
    summary_tokens: d.summaryTokens ?? null,
  }
}

function fromRow(r: Row): Checkpoint {
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v))
  return {
    id: r.id,
    sessionId: r.session_id,
    checkpointNum: Number(r.checkpoint_num),
    fromMessageIndex: num(r.from_message_index),
    toMessageIndex: num(r.to_message_index),
    messagesCompressed: num(r.messages_compressed),
    summaryContent: decodeText(r.summary_content),
    keyFacts: orderKeys(decodeJson(parseJson(r.key_facts)) as Record<string, unknown> | null),
    originalTokens: num(r.original_tokens),
    compressedTokens: num(r.compressed_tokens),
    compressionRatio: num(r.compression_ratio),
    summaryCostUsd: num(r.summary_cost_usd),
    strategy: r.strategy === null ? null : decodeText(r.strategy),
    round: num(r.round),
    targetTokens: num(r.target_tokens),
    model: r.model === null || r.model === undefined ? null : decodeText(r.model),
    durationMs: num(r.duration_ms),
    summaryTokens: num(r.summary_tokens),
    foldedFrom: (parseJson(r.folded_from) as number[] | null) ?? null,
    createdAt: r.created_at instanceof Date ? r.created_at : new Date(r.created_at as unknown as string),
  }
}

/** KeyFacts' field order (jsonb stores keys sorted by length). */
const KEY_FACTS_ORDER = ['currentTask', 'completedSteps', 'pendingSteps', 'keyDecisions', 'relevantFiles', 'errors', 'userRequests']

function orderKeys(facts: Record<string, unknown> | null): Record<string, unknown> | null {
  if (!facts || typeof facts !== 'object' || Array.isArray(facts)) return facts
  const out: Record<string, unknown> = {}
  for (const k of KEY_FACTS_ORDER) if (k in facts) out[k] = facts[k]
  for (const [k, v] of Object.entries(facts)) if (!(k in out)) out[k] = v
  return out
}

/** jsonb arrives parsed from pg; be tolerant of a driver that hands back text. */
function parseJson(v: unknown): unknown {
  if (typeof v !== 'string') return v ?? null
  try {
    return JSON.parse(v)
  } catch {
    return null
  }
}

// ---------------------------------------------------------------------------
// Folding (pure)
// ---------------------------------------------------------------------------

/** Merges checkpoints, oldest first, into one: see the module comment. */
export function foldCheckpoints(rows: readonly Checkpoint[]): { data: CheckpointData; foldedFrom: number[] } {
  if (rows.length === 0) throw new Error('foldCheckpoints: nothing to fold')
  const sorted = [...rows].sort((a, b) => a.checkpointNum - b.checkpointNum)
  const newest = sorted.at(-1)!
  const sum = (pick: (c: Checkpoint) => number | null) => (sorted.some((c) => pick(c) !== null) ? sorted.reduce((a, c) => a + (pick(c) ?? 0), 0) : null)
  const originalTokens = sum((c) => c.originalTokens)
  const compressedTokens = sum((c) => c.compressedTokens)
  const cost = sum((c) => c.summaryCostUsd)
  const froms = sorted.map((c) => c.fromMessageIndex).filter((v): v is number => v !== null)
  const rounds = sorted.map((c) => c.round).filter((v): v is number => v !== null)
  const foldedFrom = [...new Set(sorted.flatMap((c) => c.foldedFrom ?? [c.checkpointNum]))].sort((a, b) => a - b)
  return {
    foldedFrom,
    data: {
      fromMessageIndex: froms.length ? Math.min(...froms) : null,
      toMessageIndex: newest.toMessageIndex,
      messagesCompressed: sum((c) => c.messagesCompressed),
      summaryContent: foldSummaries(
        sorted.map((c) => c.summaryContent),
        foldedFrom,
      ),
      keyFacts: mergeKeyFacts(sorted.map((c) => c.keyFacts)),
      originalTokens,
      compressedTokens,
      compressionRatio: originalTokens !== null && compressedTokens ? Math.round((originalTokens / compressedTokens) * 100) / 100 : newest.compressionRatio,
      summaryCostUsd: cost === null ? null : Math.round(cost * 1e9) / 1e9,
      strategy: newest.strategy,
      round: rounds.length ? Math.max(...rounds) : null,
      targetTokens: newest.targetTokens ?? null,
      model: newest.model ?? null,
      durationMs: sum((c) => c.durationMs ?? null),
      summaryTokens: null, // the folded summary is a new text, not counted here
    },
  }
}

interface SummaryParts {
  header: string | undefined
  /** Text between the header and the first section. */
  preamble: string[]
  sections: { heading: string; title: string; lines: string[] }[]
}

const SECTION_HEADING_RE = /^\s*#{2,6}\s+(.+?)\s*#*\s*$/

function splitSummary(text: string): SummaryParts {
  const lines = text.split(/\r?\n/)
  const out: SummaryParts = { header: undefined, preamble: [], sections: [] }
  let k = 0
  if (lines.length && SUMMARY_HEADER_RE.test(`${lines[0]}\n`)) out.header = lines[k++]
  for (; k < lines.length; k++) {
    const line = lines[k]!
    const m = SECTION_HEADING_RE.exec(line)
    if (m) out.sections.push({ heading: line, title: normaliseTitle(m[1]!), lines: [] })
    else if (out.sections.length) out.sections.at(-1)!.lines.push(line)
    else out.preamble.push(line)
  }
  return out
}

const isTableRow = (l: string) => /^\s*\|/.test(l) && !/^\s*\|\s*(file\s*\||:?-{2,})/i.test(l)
const isBullet = (l: string) => /^\s*([-*+]|\d+[.)])\s+\S/.test(l)
const itemKey = (l: string) =>
  l
    .replace(/^\s*([-*+]|\d+[.)])\s+/, '')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase()

/** The sections whose items of older summaries are carried into the fold, and how to find them. */
const CARRIED: { title: string; heading: string; isItem: (l: string) => boolean; cap: number }[] = [
  { title: 'completed work', heading: '### Completed Work\n| File | Action | Description |\n|---|---|---|', isItem: isTableRow, cap: FOLD_MAX_TABLE_ROWS },
  { title: 'key technical decisions', heading: '### Key Technical Decisions', isItem: isBullet, cap: FOLD_MAX_BULLETS },
  { title: 'errors & resolutions', heading: '### Errors & Resolutions', isItem: isBullet, cap: FOLD_MAX_BULLETS },
]

/**
 * Summary of summaries, deterministic: the newest non-empty summary as the base, plus
 * the older summaries' Completed Work rows and Decisions / Errors bullets it lacks,
 * newest first, capped per section.
 */
export function foldSummaries(summaries: readonly string[], foldedFrom: readonly number[]): string {
  const texts = summaries.filter((s) => s.trim() !== '')
  if (texts.length === 0) return ''
  const base = splitSummary(texts.at(-1)!)
  const older = texts.slice(0, -1).reverse().map(splitSummary)
  for (const carried of CARRIED) {
    let section = base.sections.find((s) => s.title === carried.title)
    const present = new Set((section?.lines ?? []).filter(carried.isItem).map(itemKey))
    let room = carried.cap - present.size
    const additions: string[] = []
    for (const o of older) {
      const src = o.sections.find((s) => s.title === carried.title)
      for (const line of src?.lines ?? []) {
        if (room <= 0) break
        if (!carried.isItem(line) || present.has(itemKey(line))) continue
        present.add(itemKey(line))
        additions.push(line.trimEnd())
        room--
      }
    }
    if (additions.length === 0) continue
    if (!section) {
      const [heading, ...rest] = carried.heading.split('\n')
      section = { heading: heading!, title: carried.title, lines: rest }
      base.sections.push(section)
    }
    const isTable = carried.title === 'completed work'
    const tableLine = (l: string) => /^\s*\|/.test(l)
    if (isTable && !section.lines.some(tableLine)) {
      // The base wrote this section without a table (e.g. a model's bullets): add one after it.
      const [, ...header] = carried.heading.split('\n')
      section.lines.splice(lastNonBlank(section.lines) + 1, 0, ...(lastNonBlank(section.lines) >= 0 ? [''] : []), ...header, ...additions)
      continue
    }
    // After the section's last item (table rows: after the table); a lone "None." goes.
    let at = findLastIndex(section.lines, (l) => carried.isItem(l) || (isTable && tableLine(l))) + 1
    if (at === 0) {
      section.lines = section.lines.filter((l) => !/^\s*(none\.?|n\/a|-)\s*$/i.test(l))
      at = lastNonBlank(section.lines) + 1
    }
    section.lines.splice(at, 0, ...additions)
  }
  const preamble = base.preamble.filter((l) => !/^_Folded from checkpoints /.test(l)).join('\n').trim()
  const out = [...(base.header !== undefined ? [base.header] : []), `_Folded from checkpoints ${foldedFrom.join(', ')}._`, ...(preamble ? [preamble] : []), '']
  for (const s of base.sections) out.push(s.heading, ...s.lines, '')
  return out.join('\n').replace(/\n{3,}/g, '\n\n').trim()
}

function lastNonBlank(lines: readonly string[]): number {
  return findLastIndex(lines, (l) => l.trim() !== '')
}

function findLastIndex<T>(items: readonly T[], pred: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (pred(items[i]!)) return i
  return -1
}

/** Union of array fields (oldest first, deduped, newest kept under the cap); other fields from the newest. */
export function mergeKeyFacts(all: readonly (Record<string, unknown> | null)[]): Record<string, unknown> | null {
  const present = all.filter((f): f is Record<string, unknown> => f !== null && typeof f === 'object')
  if (present.length === 0) return null
  const out: Record<string, unknown> = {}
  const keys = [...new Set(present.flatMap((f) => Object.keys(f)))]
  for (const key of keys) {
    const values = present.map((f) => f[key]).filter((v) => v !== undefined)
    if (values.every(Array.isArray)) {
      const seen = new Map<string, unknown>()
      for (const arr of values as unknown[][]) for (const item of arr) seen.set(JSON.stringify(item), item)
      out[key] = [...seen.values()].slice(-FOLD_MAX_FACTS)
    } else {
      const nonEmpty = values.filter((v) => v !== null && v !== '')
      out[key] = nonEmpty.at(-1) ?? values.at(-1) ?? null
    }
  }
  return out
}

// ---------------------------------------------------------------------------
// Reads
// ---------------------------------------------------------------------------

export const MAX_PAGE_SIZE = 100

/** Opaque cursor: the last checkpoint number of the page, encoded. */
export function encodeCursor(checkpointNum: number): string {
  return Buffer.from(`cp:${checkpointNum}`, 'utf8').toString('base64url')
}

export function decodeCursor(cursor: string): number | undefined {
  const m = /^cp:(\d{1,10})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'))
  const n = m ? Number(m[1]) : NaN
  return Number.isSafeInteger(n) && n > 0 ? n : undefined
}

/** Newest first. Throws ApiError 400 invalid_cursor for a cursor this service did not make. */
export async function listCheckpoints(
  db: Db,
  tenantId: string,
  sessionId: string,
  opts: { cursor?: string; limit?: number } = {},
): Promise<{ items: Checkpoint[]; nextCursor: string | null }> {
  const limit = Math.min(MAX_PAGE_SIZE, Math.max(1, opts.limit ?? 20))
  let before: number | undefined
  if (opts.cursor !== undefined && opts.cursor !== '') {
    before = decodeCursor(opts.cursor)
    if (before === undefined) throw new ApiError(400, 'invalid_cursor', 'cursor is not one this service returned', [{ path: 'querystring.cursor', message: 'invalid cursor' }])
  }
  let q = db.selectFrom('checkpoint_summaries').selectAll().where('tenant_id', '=', tenantId).where('session_id', '=', sessionId)
  if (before !== undefined) q = q.where('checkpoint_num', '<', before)
  const rows = await q
    .orderBy('checkpoint_num', 'desc')
    .limit(limit + 1)
    .execute()
  const items = rows.slice(0, limit).map(fromRow)
  return { items, nextCursor: rows.length > limit ? encodeCursor(items.at(-1)!.checkpointNum) : null }
}

export async function getCheckpoint(db: Db, tenantId: string, sessionId: string, checkpointNum: number): Promise<Checkpoint | undefined> {
  const row = await db
    .selectFrom('checkpoint_summaries')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('session_id', '=', sessionId)
    .where('checkpoint_num', '=', checkpointNum)
    .executeTakeFirst()
  return row ? fromRow(row) : undefined
}

/** The checkpoint a folded number now lives in, if any (for a helpful 404). */
export async function foldedInto(db: Db, tenantId: string, sessionId: string, checkpointNum: number): Promise<number | undefined> {
  const row = await db
    .selectFrom('checkpoint_summaries')
    .select('checkpoint_num')
    .where('tenant_id', '=', tenantId)
    .where('session_id', '=', sessionId)
    .where(sql<boolean>`folded_from @> ${JSON.stringify([checkpointNum])}::jsonb`)
    .executeTakeFirst()
  return row ? Number(row.checkpoint_num) : undefined
}

/** The newest checkpoint of a session. */
export async function latestCheckpoint(db: Db, tenantId: string, sessionId: string): Promise<Checkpoint | undefined> {
  const row = await db
    .selectFrom('checkpoint_summaries')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('session_id', '=', sessionId)
    .orderBy('checkpoint_num', 'desc')
    .limit(1)
    .executeTakeFirst()
  return row ? fromRow(row) : undefined
}

/** Highest summary round stored for a session (0 when none): the next compaction's previousRound. */
export async function latestRound(db: Db, tenantId: string, sessionId: string): Promise<number> {
  const row = await db
    .selectFrom('checkpoint_summaries')
    .select((eb) => eb.fn.max('round').as('r'))
    .where('tenant_id', '=', tenantId)
    .where('session_id', '=', sessionId)
    .executeTakeFirst()
  return Number(row?.r ?? 0)
}

/** Seed 001's monitoring query for one session: tokens saved, summary cost, checkpoint count. */
export async function sessionStats(db: Db, tenantId: string, sessionId: string): Promise<SessionStats> {
  const row = await db
    .selectFrom('checkpoint_summaries')
    .select([
      sql<number>`count(*)`.as('checkpoints'),
      sql<number>`coalesce(sum(coalesce(original_tokens, 0) - coalesce(compressed_tokens, 0)), 0)`.as('tokens_saved'),
      sql<number>`coalesce(sum(summary_cost_usd), 0)`.as('total_cost'),
      sql<number>`coalesce(sum(original_tokens), 0)`.as('total_original'),
      sql<number>`coalesce(sum(compressed_tokens), 0)`.as('total_compressed'),
    ])
    .where('tenant_id', '=', tenantId)
    .where('session_id', '=', sessionId)
    .executeTakeFirstOrThrow()
  return {
    checkpoints: Number(row.checkpoints),
    tokensSaved: Number(row.tokens_saved),
    totalSummaryCostUsd: Number(row.total_cost),
    totalOriginalTokens: Number(row.total_original),
    totalCompressedTokens: Number(row.total_compressed),
  }
}
