/**
 * A checkpoint as the service sees it, and as a checkpoint_summaries row stores it.
 *
 * NUL. The summary and key facts quote the caller's messages, which may hold U+0000:
 * toColumns() escapes it and fromRow() restores it (src/db/nul.ts), the only two places
 * rows are written and read, so folds (read, merge, write) stay consistent.
 */
import type { Kysely, Selectable, Transaction } from 'kysely'
import { decodeJson, decodeText, encodeJson, encodeNullableText, encodeText } from '../db/nul.ts'
import type { CheckpointSummariesTable, Database } from '../db/schema.ts'

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

type Row = Selectable<CheckpointSummariesTable>
export type Db = Kysely<Database> | Transaction<Database>

/** A checkpoint's columns, NUL escaped. */
export function toColumns(d: CheckpointData) {
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
/** A row back to a checkpoint, NUL restored. */
export function fromRow(r: Row): Checkpoint {
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
