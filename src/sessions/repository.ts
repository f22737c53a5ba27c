/**
 * Storage of sessions (migrations/0003_sessions.ts): settings, messages and their window
 * status, summary versions. Every function takes the caller's tenant and filters by it
 * (docs/internals.md): another tenant's session is simply not found.
 *
 * Functions taking `Db` run on the app's Kysely instance or on a transaction handle;
 * inside a transaction pass the handle (PGlite has one connection).
 *
 * Caller content (messages, settings, summaries, stored responses) may hold NUL, which
 * PostgreSQL cannot store: it is escaped here on write and unescaped on read
 * (src/db/nul.ts), so it round-trips byte for byte. SQL that builds JSON from these
 * columns (json_agg) passes the escaped form through; decode where it is parsed.
 *
 * This module is the repository's one entry point; its parts, by table, are in
 * repository/: the session row, its settings, messages, summaries, idempotency keys and
 * the background updates' statements.
 */
export { isUniqueViolation, parseJson, toDate, type Db } from './repository/rows.ts'
export {
  BATCH_SIZE,
  DEFAULT_SUMMARY_BUDGET,
  DEFAULT_WINDOW_MESSAGES,
  DEFAULT_WINDOW_TOKENS,
  defaultSettings,
  resolveSettings,
  type SessionSettings,
  type SummaryMode,
} from './repository/settings.ts'
export { createSessionIfMissing, deleteSession, getSession, lockSession, saveSettings, upsertAndLockSession, type SessionRow } from './repository/sessions.ts'
export {
  countersOf,
  countEvicted,
  insertMessages,
  isSystemRole,
  maxSeq,
  messageCounters,
  messagesWithStatus,
  messagesInSeqRange,
  setStatus,
  toCanonical,
  windowAndEvicted,
  type MessageCounters,
  type NewMessage,
  type StoredMessage,
} from './repository/messages.ts'
export { insertSummaryVersion, latestSummary, readSummaryState, type StoredSummary, type SummaryState } from './repository/summaries.ts'
export { findIdempotentResponse, purgeExpired, storeIdempotentResponse } from './repository/idempotency.ts'
export { backfillPage, claimBackfill, countBackfillPending, markBackfill, type BackfillClaim } from './repository/archive-backfill.ts'
export { beginUpdate, evictedFromJson, latestMessageAt, markFolded, readUpdateSnapshot, type UpdateSnapshot } from './repository/updates.ts'
