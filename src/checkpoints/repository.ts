/**
 * Checkpoints of a session: one row of checkpoint_summaries per stored compaction
 * (seed 001), always filtered by tenant (docs/internals.md).
 *
 * Numbering. `insertCheckpoint` runs in ONE read-committed transaction that first takes
 * a transaction-scoped advisory lock on (tenant, session) and then reads
 * max(checkpoint_num) + 1, so concurrent compactions of one session get distinct,
 * gap-free numbers, and other sessions are not blocked (PostgreSQL and PGlite both have
 * advisory locks; PGlite's single connection serialises anyway).
 *
 * Folding. At most `maxCheckpoints` rows are kept per session: an insert that makes it
 * more folds the oldest rows into one, in the same transaction (fold.ts says how).
 * A row's columns and NUL escaping: rows.ts.
 */
import { randomUUID } from 'node:crypto'
import { sql, type Kysely, type Transaction } from 'kysely'
import type { Database } from '../db/schema.ts'
import { ApiError } from '../errors.ts'
import { foldCheckpoints } from './fold.ts'
import { fromRow, toColumns, type Checkpoint, type CheckpointData, type Db } from './rows.ts'

export { foldCheckpoints, foldSummaries, mergeKeyFacts } from './fold.ts'
export type { Checkpoint, CheckpointData } from './rows.ts'

export interface InsertResult<T = undefined> {
  checkpoint: Checkpoint
  /** What `opts.within` returned. */
  within?: T
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

/** Advisory lock class of checkpoint numbering (the two-key form keeps it apart from other users). */
const LOCK_CLASS = sql<number>`hashtext('compactd.checkpoint_summaries')`
/** Held, with hashtext(tenant_id || ':' || session_id), while a session's checkpoints change (src/tenancy/open-data.ts takes it too). */
export const CHECKPOINT_LOCK_CLASS = LOCK_CLASS

// ---------------------------------------------------------------------------
// Writes
// ---------------------------------------------------------------------------

/** Default of COMPACTION_MAX_CHECKPOINTS. */
export const DEFAULT_MAX_CHECKPOINTS = 5

export async function insertCheckpoint<T = undefined>(
  db: Kysely<Database>,
  tenantId: string,
  sessionId: string,
  data: CheckpointData,
  opts: {
    maxCheckpoints?: number
    /** Runs in the same transaction once the number is known (the archive of what was dropped): both are stored or neither. */
    within?: (trx: Transaction<Database>, checkpointNum: number) => Promise<T>
  } = {},
): Promise<InsertResult<T>> {
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

      const within = opts.within ? { within: await opts.within(trx, num) } : {}
      const folded = await foldExcess(trx, tenantId, sessionId, Math.max(1, opts.maxCheckpoints ?? DEFAULT_MAX_CHECKPOINTS))
      if (folded && folded.into === num) {
        const row = await trx.selectFrom('checkpoint_summaries').selectAll().where('id', '=', inserted.id).executeTakeFirstOrThrow()
        return { checkpoint: fromRow(row), folded, ...within }
      }
      return { checkpoint: fromRow(inserted), ...(folded ? { folded } : {}), ...within }
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
