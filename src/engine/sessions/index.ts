/**
 * The rolling session summary, pure part (seed 000's background-agent document): the
 * public API. No I/O and no clock: time is always `now`; items age against the session's
 * latest activity (update.ts sessionActivity), never against the clock alone.
 *
 *   document.ts      the document's types, rendered and parsed (seed 000's format)
 *   exchanges.ts     a conversation → exchanges, long agent loops cut into pieces
 *   read.ts          a batch of exchanges read once by the shared extraction (facts/handover.ts), split per exchange
 *   items.ts         an exchange → its summary items (what happened, ranked on facts/importance.ts via rank.ts)
 *   earlier.ts       an earlier compaction summary in an exchange → items, section by section
 *   continuation.ts  seed 003's continuation fields and their prompt text
 *   manual-edit.ts   a hand-written version keeps the continuation fields it does not state
 *   fit.ts           aging (pinned items: the original task, standing constraints, never aged out), compression, the hard budget
 *   update.ts        updateSummary / ageSummary: the above in order
 *   prompt.ts        llm mode: the background agent's prompt
 *   window.ts        which of the window's oldest messages to evict
 */
export {
  CONTINUATION_TITLE,
  emptySummary,
  parseSummary,
  renderSummary,
  roundTokens,
  SECTION_KEYS,
  SECTION_TITLES,
  type Continuation,
  type ContinuationField,
  type Importance,
  type ItemKind,
  type ItemPin,
  type SectionKey,
  type SummaryDocument,
  type SummaryItem,
} from './document.ts'
export { EXCHANGE_MAX_UNITS, exchangeTime, groupExchanges, sessionExchanges, type Exchange } from './exchanges.ts'
export { summarizeExchange } from './items.ts'
export { continuationOf, renderContinuationPrompt } from './continuation.ts'
export { withCarriedOverContinuation, type ManualSummary } from './manual-edit.ts'
export {
  DEFAULT_SUMMARY_BUDGET_TOKENS,
  SECTION_TEXT_CHARS,
  sectionForAge,
  SESSION_MAX_AGE_MS,
  WEEK_MAX_AGE_MS,
  YESTERDAY_MAX_AGE_MS,
  type SummaryUpdate,
} from './fit.ts'
export { ageSummary, sessionActivity, updateSummary, type UpdateInput } from './update.ts'
export { BACKGROUND_AGENT_PROMPT, formatExchangesForPrompt } from './prompt.ts'
export { planWindowEviction, type WindowEviction, type WindowLimits } from './window.ts'
