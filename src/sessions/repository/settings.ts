/**
 * A session's settings: the defaults, and the stored column over them (rows written by
 * older versions lack newer fields).
 */
import { decodeJson } from '../../db/nul.ts'
import type { MessageFormat } from '../../engine/messages/canonical.ts'
import { parseJson } from './rows.ts'

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
  /** Seqs of messages GET /context always sends verbatim (issue 24). */
  pin?: number[]
  /** Strings every compaction of the session keeps. */
  preserve?: string[]
  /** What the session's compactions give room to. */
  focus?: string
  /** The thinking policy of the session's compactions. */
  thinking?: { keep: number | 'all' }
  /** When automatic compaction (GET /context, the proxy) happens; unset: auto at the budget. */
  trigger?: SessionTrigger
}

export interface SessionTrigger {
  mode: 'off' | 'manual' | 'auto'
  /** Tokens (≥ 1) or a share of the model's window (< 1). */
  threshold?: number
  notMidTurn?: boolean
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
export function readSettings(v: unknown): SessionSettings {
  return resolveSettings(decodeJson(parseJson(v)))
}
