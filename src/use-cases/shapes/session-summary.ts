/**
 * The rolling summary's request and response shapes (GET, PUT and refresh of
 * /sessions/:id/summary), apart from ./sessions.ts so each file stays one reading.
 */
import { z } from 'zod'
import { storable } from './common.ts'

/** Seed 000's fallback when neither the database nor this process has a summary. */
export const SUMMARY_UNAVAILABLE = '[Summary temporarily unavailable]'

export const updateStateSchema = z
  .object({ status: z.enum(['pending', 'running', 'failed']).describe('pending: queued; running: a worker holds it; failed: gave up after MAX_RETRIES.') })
  .nullable()
  .describe('The queued background update, if any.')

const summaryExample = {
  sessionId: 'agent-run-42',
  version: 3,
  content:
    '## Previously in This Session\n1. Asked "Fix the failing test in src/db.ts"; edited src/db.ts; `npm test` failed (exit 1): Error: Called end on pool more than once, later passed (2026-11-22 13:20Z, ~2.1k tokens) <!-- at=2026-11-22T13:20:00.000Z i=m k=fix f=src/db.ts -->\n\n## Yesterday\n\n## This Week\n',
  text: '## Previously in This Session\n1. Asked "Fix the failing test in src/db.ts"; edited src/db.ts; `npm test` failed (exit 1): Error: Called end on pool more than once, later passed (2026-11-22 13:20Z, ~2.1k tokens)\n\n## Yesterday\n\n## This Week\n',
  tokens: 96,
  budget: 10000,
  updatedAt: '2026-11-22T13:23:20.601Z',
  source: 'background',
  stale: false,
  evictedAwaitingSummary: 0,
  update: null,
  degraded: false,
}

export const summarySchema = z
  .object({
    sessionId: z.string().describe('The session.'),
    version: z.int().describe('Summary version (0 while none exists). Versions are kept; the highest is current.'),
    content: z.string().describe('The summary document as stored, with each item\'s `<!-- … -->` machine comment (times, importance, files). Send this back to PUT /summary to edit it.'),
    text: z.string().describe('The same document without the machine comments: what to send to a model.'),
    tokens: z.int().describe('Tokens of `content`; never more than `budget`.'),
    budget: z.int().describe("The session's summary budget, in tokens."),
    updatedAt: z.string().nullable().describe('When this version was written (ISO 8601).'),
    source: z.enum(['background', 'manual']).nullable().describe('Who wrote this version.'),
    stale: z.boolean().describe('True when evicted messages are not folded in yet (an update is due), or when the database was unreachable.'),
    evictedAwaitingSummary: z.int().describe('Evicted messages not yet in the summary.'),
    update: updateStateSchema,
    degraded: z
      .boolean()
      .describe(`True when the database could not be read: this is the last summary this process saw (or, with status 503, the placeholder "${SUMMARY_UNAVAILABLE}").`),
  })
  .meta({ id: 'SessionSummary', example: summaryExample })

export const putSummaryResponse = summarySchema
  .extend({
    continuationCarriedOver: z
      .array(z.enum(['currentTask', 'completedSteps', 'pendingSteps', 'keyDecisions', 'relevantFiles']))
      .describe(
        'Continuation fields your text did not state (no "Current task:", "Completed:", "Pending:", "Key decisions:" or "Relevant files:" line), so they were carried over from the version you replaced and added to its `## Continuation` block. Empty when you stated them all. To clear a field, state it as none, e.g. "Current task: none".',
      ),
  })
  .meta({ id: 'PutSessionSummaryResponse', example: { ...summaryExample, source: 'manual', continuationCarriedOver: [] } })

export const putSummaryBody = z
  .strictObject({
    content: storable(z.string().max(4_000_000))
      .describe(
        'The new summary document (markdown: "## Previously in This Session", "## Yesterday", "## This Week", "## Continuation"). Items may keep their `<!-- … -->` comments from GET; lines without one take the time of the newest dated item (the update\'s time when none has one). Continuation fields it does not state are carried over from the version it replaces (see continuationCarriedOver). Must fit the session\'s summaryBudget.',
      ),
    baseVersion: z
      .int()
      .min(0)
      .optional()
      .describe('The version you read (compare-and-set): when another version was written since, the request fails with 409 and writes nothing. Omitted: the current version at the time of the write.'),
  })
  .describe('A summary written by hand. It becomes a new version, and the next background update builds on it.')
  .meta({
    id: 'PutSummaryRequest',
    example: {
      baseVersion: 3,
      content: '## Previously in This Session\n1. Decided to keep one pg.Pool per process (2026-11-22 13:20Z, ~2k tokens)\n\n## Yesterday\n\n## This Week\n',
    },
  })

export const refreshResponse = z
  .object({
    sessionId: z.string().describe('The session.'),
    queued: z.enum(['new', 'merged']).describe('new: an entry was queued; merged: the pending entry was raised to high priority.'),
    priority: z.literal('high').describe('Refreshes are queued at high priority.'),
    evictedAwaitingSummary: z.int().describe('Evicted messages the update will fold in.'),
  })
  .meta({ id: 'SummaryRefresh', example: { sessionId: 'agent-run-42', queued: 'new', priority: 'high', evictedAwaitingSummary: 6 } })
