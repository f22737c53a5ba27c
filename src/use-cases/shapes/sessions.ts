/**
 * The sessions' request and response shapes (PUT/GET /sessions/:id, appends, /context,
 * /continuation), written once: routes/sessions.ts validates and documents them, the
 * use cases in src/use-cases/sessions take their types by z.infer. The rolling summary's
 * are in ./session-summary.ts.
 */
import { z } from 'zod'
import { archiveReportSchema } from './archive.ts'
import { OFFLINE_STRATEGY_NAMES } from '../../engine/compaction/strategies/index.ts'
import { BATCH_SIZE, DEFAULT_SUMMARY_BUDGET, DEFAULT_WINDOW_MESSAGES, DEFAULT_WINDOW_TOKENS } from '../../sessions/repository.ts'
import { formatField, messagesField, modelField, storable, formatEnum } from './common.ts'
import { updateStateSchema } from './session-summary.ts'
import { sessionControlFields } from './controls.ts'

const summarizerField = z
  .strictObject({
    provider: z.enum(['openai', 'anthropic']).describe('Summarizer provider; it must be configured on the server (its API key set).'),
    model: z.string().min(1).max(200).optional().describe('One of the models the server allows for the provider. Default: the first one.'),
  })
  .describe('Model that writes `llm` mode summaries. Keys and base URLs come only from server configuration.')

/**
 * A system prompt as GET /context sends it: a string, or Anthropic text blocks (other
 * block fields, e.g. cache_control, are kept). Anything else was stored and then failed
 * every /context read (a number was a 500), so it is refused when written.
 */
const systemValue = storable(
  z.union([z.string().max(1_000_000), z.array(z.looseObject({ type: z.literal('text'), text: z.string() })).max(1_000)]),
)

const settingsFields = {
  ...sessionControlFields,
  format: formatField.describe("Format of the session's messages (openai, anthropic, ai-sdk). Set by the first append when omitted; it cannot change once messages are stored."),
  model: storable(modelField).describe('Model the session talks to: sets token counting and the default /context budget. Default: DEFAULT_MODEL.'),
  windowMessages: z
    .int()
    .min(1)
    .max(100_000)
    .optional()
    .describe(`The recent window keeps at most this many messages (system messages excepted). Default ${DEFAULT_WINDOW_MESSAGES}.`),
  windowTokens: z.int().min(1).max(10_000_000).optional().describe(`...and at most this many tokens. Default ${DEFAULT_WINDOW_TOKENS}.`),
  summaryBudget: z
    .int()
    .min(100)
    .max(1_000_000)
    .optional()
    .describe(`Hard limit of the rolling summary, in tokens: enforced even when a summarizer overshoots. Default ${DEFAULT_SUMMARY_BUDGET}.`),
  batchSize: z
    .int()
    .min(1)
    .max(1_000)
    .optional()
    .describe(`Evicted exchanges that trigger a background summary update (seed 000's BATCH_SIZE). Default ${BATCH_SIZE}.`),
  mode: z
    .enum(['rules', 'llm'])
    .optional()
    .describe('`rules`: offline summary (default). `llm`: the configured summarizer writes it with seed 000\'s background-agent prompt, falling back to rules on any failure.'),
}

export const putSessionBody = z
  .strictObject({
    ...settingsFields,
    system: systemValue
      .nullable()
      .optional()
      .describe('System prompt sent first by GET /context (a string, or Anthropic text blocks). null removes it.'),
    summarizer: summarizerField.nullable().optional(),
  })
  .describe("A session's settings; omitted fields keep their value (or the default for a new session).")
  .meta({
    id: 'SessionSettingsRequest',
    example: { format: 'openai', model: 'gpt-4o', windowMessages: 20, windowTokens: 16000, summaryBudget: 10000, batchSize: 4, mode: 'rules' },
  })

const settingsSchema = z
  .object({
    format: formatEnum.optional().describe('Format of the stored messages.'),
    model: z.string().optional().describe('Model of the session.'),
    system: z.unknown().optional().describe('System prompt, when set.'),
    windowMessages: z.int().describe('Window size in messages.'),
    windowTokens: z.int().describe('Window size in tokens.'),
    summaryBudget: z.int().describe('Summary budget in tokens.'),
    batchSize: z.int().describe('Evicted exchanges per background update.'),
    mode: z.enum(['rules', 'llm']).describe('Summary mode.'),
    summarizer: z.object({ provider: z.string(), model: z.string().optional() }).optional().describe('Summarizer of llm mode.'),
    pin: z.array(z.int()).optional().describe('Pinned message seqs.'),
    preserve: z.array(z.string()).optional().describe('Strings every compaction keeps.'),
    focus: z.string().optional().describe("What the compactions give room to."),
    thinking: z.object({ keep: z.union([z.int(), z.literal('all')]) }).optional().describe('The thinking policy.'),
    trigger: z.object({ mode: z.enum(['off', 'manual', 'auto']), threshold: z.number().optional(), notMidTurn: z.boolean().optional() }).optional().describe('When automatic compaction happens.'),
  })
  .describe("The session's settings.")

const sessionExample = {
  id: 'agent-run-42',
  settings: { format: 'openai', windowMessages: 20, windowTokens: 16000, summaryBudget: 10000, batchSize: 4, mode: 'rules' },
  messageCount: 58,
  windowMessages: 20,
  windowTokens: 9120,
  systemMessages: 1,
  evictedAwaitingSummary: 6,
  summarizedMessages: 31,
  summary: { version: 3, tokens: 812, updatedAt: '2026-11-22T13:23:20.601Z', source: 'background' },
  update: { status: 'pending' },
  createdAt: '2026-11-22T12:01:09.114Z',
  updatedAt: '2026-11-22T13:24:02.930Z',
}

export const sessionSchema = z
  .object({
    id: z.string().describe('The session id.'),
    settings: settingsSchema,
    messageCount: z.int().describe('Messages appended so far.'),
    windowMessages: z.int().describe('Messages in the recent window (system messages excepted).'),
    windowTokens: z.int().describe('Tokens of the recent window.'),
    systemMessages: z.int().describe('System/developer messages, always kept.'),
    evictedAwaitingSummary: z.int().describe('Messages that left the window and are not yet in the summary.'),
    summarizedMessages: z.int().describe('Messages folded into the summary.'),
    summary: z
      .object({ version: z.int(), tokens: z.int(), updatedAt: z.string(), source: z.string() })
      .nullable()
      .describe('The current summary version, if any.'),
    update: updateStateSchema,
    createdAt: z.string().describe('ISO 8601.'),
    updatedAt: z.string().describe('ISO 8601: last settings change or append.'),
  })
  .meta({ id: 'Session', example: sessionExample })

export const appendBody = z
  .strictObject({
    messages: messagesField.min(1).describe('The exchange(s) to append, oldest first, in the session\'s format. A `timestamp` (or `createdAt`) on a message dates it for aging; otherwise the append time does.'),
    format: formatField,
    system: systemValue.optional().describe("Anthropic-style top-level system prompt (a string or text blocks); stored as the session's system prompt."),
  })
  .describe('Messages to append to the session.')
  .meta({
    id: 'AppendMessagesRequest',
    example: {
      messages: [
        { role: 'user', content: 'Fix the failing test in src/db.ts', timestamp: '2026-11-22T13:20:00Z' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'bash', arguments: '{"cmd":"npm test"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'FAIL test/db.test.ts\nError: Called end on pool more than once' },
        { role: 'assistant', content: 'The pool is closed twice; removing the second pool.end() in src/db.ts.' },
      ],
    },
  })

export const appendResponse = z
  .object({
    sessionId: z.string().describe('The session.'),
    appended: z.int().describe('Messages appended by this request.'),
    firstSeq: z.int().nullable().describe('Sequence number of the first appended message.'),
    lastSeq: z.int().nullable().describe('Sequence number of the last appended message.'),
    messageCount: z.int().describe('Messages in the session.'),
    windowMessages: z.int().describe('Messages in the recent window now.'),
    windowTokens: z.int().describe('Tokens of the recent window now.'),
    evicted: z.int().describe('Messages this request pushed out of the window.'),
    evictedAwaitingSummary: z.int().describe('Evicted messages not yet folded into the summary.'),
    evictedExchangesAwaitingSummary: z.int().describe('The same, in exchanges: an update is queued once it reaches batchSize.'),
    updateQueued: z.boolean().describe('True when this request queued a background summary update.'),
    archive: archiveReportSchema.optional().describe('When messages were evicted: what of them the archive stored (searchable with GET /sessions/{id}/search).'),
  })
  .meta({
    id: 'AppendMessagesResponse',
    example: {
      sessionId: 'agent-run-42',
      appended: 4,
      firstSeq: 55,
      lastSeq: 58,
      messageCount: 58,
      windowMessages: 20,
      windowTokens: 9120,
      evicted: 4,
      evictedAwaitingSummary: 10,
      evictedExchangesAwaitingSummary: 4,
      updateQueued: true,
    },
  })

export const contextQuery = z.object({
  budget: z.coerce
    .number()
    .int()
    .min(1)
    .max(100_000_000)
    .optional()
    .describe("Token budget of the context (counted for the session's model). Default: the model's compaction threshold, as /estimate computes it."),
  format: formatField.describe("Format to return the messages in. Default: the session's format."),
  model: modelField.describe("Model to count tokens for. Default: the session's model."),
})

export const contextResponse = z
  .object({
    sessionId: z.string().describe('The session.'),
    format: formatEnum.describe('Format of `messages` (and `system`).'),
    model: z.string().describe('Model the tokens were counted for.'),
    budget: z.int().describe('The budget the context fits.'),
    tokens: z.int().describe('Tokens of the returned context.'),
    compacted: z.boolean().describe('True when the compaction engine had to trim it to the budget.'),
    strategy: z.string().describe(`What trimmed it: none, or an offline strategy (${OFFLINE_STRATEGY_NAMES.join(', ')}).`),
    summaryVersion: z.int().describe('The summary version included (0: none yet).'),
    stale: z.boolean().describe('True when evicted messages were not yet in the summary: they are included verbatim (or compacted) instead, so nothing is lost.'),
    reason: z.string().optional().describe("Why the context was not compacted though it is over the budget: the session's trigger (mode, threshold, notMidTurn)."),
    contract: z
      .object({
        pinned: z.array(z.int()).describe('Seqs of the pinned messages, each checked present (byte for byte in the session\'s format).'),
        preserved: z.array(z.string()).describe('Preserved strings, each checked present.'),
        absent: z.array(z.string()).describe('Preserved strings the session does not hold (yet): nothing to keep.'),
      })
      .optional()
      .describe("With the session's `pin` or `preserve`: what the contract checked (a 200 means all of it held)."),
    messages: z.array(z.unknown()).describe('Ready to send: system messages, the summary, messages awaiting summary, then the recent window. Valid for the provider (tool calls keep their results).'),
    system: z.unknown().optional().describe('Anthropic: the top-level system prompt (system messages and the summary).'),
  })
  .meta({
    id: 'SessionContext',
    example: {
      sessionId: 'agent-run-42',
      format: 'openai',
      model: 'gpt-4o',
      budget: 8000,
      tokens: 3120,
      compacted: false,
      strategy: 'none',
      summaryVersion: 3,
      stale: false,
      messages: [
        { role: 'system', content: 'You are a coding agent.' },
        { role: 'system', content: 'Summary of the earlier part of this session (rolling summary, version 3):\n\n## Previously in This Session\n1. …' },
        { role: 'user', content: 'Now add a --limit option.' },
      ],
    },
  })

export const continuationResponse = z
  .object({
    sessionId: z.string().describe('The session.'),
    version: z.int().describe('Summary version it was read from.'),
    updatedAt: z.string().nullable().describe('When that version was written.'),
    stale: z.boolean().describe('True when evicted messages are not folded in yet.'),
    degraded: z.boolean().describe('True when the database could not be read and this comes from the last summary this process saw.'),
    currentTask: z.string().describe('The task being worked on (the latest meaningful request).'),
    completedSteps: z.array(z.string()).describe('Steps already done.'),
    pendingSteps: z.array(z.string()).describe('Steps remaining.'),
    keyDecisions: z.array(z.string()).describe('Decisions made.'),
    relevantFiles: z.array(z.string()).describe('Files being worked on, most recent first.'),
    prompt: z.string().describe("The same as seed 003's `[Previous Session Context]` block, ready to inject."),
  })
  .meta({
    id: 'SessionContinuation',
    example: {
      sessionId: 'agent-run-42',
      version: 3,
      updatedAt: '2026-11-22T13:23:20.601Z',
      stale: false,
      degraded: false,
      currentTask: 'Fix the failing test in src/db.ts',
      completedSteps: ['Fix the failing test in src/db.ts'],
      pendingSteps: [],
      keyDecisions: [],
      relevantFiles: ['src/db.ts'],
      prompt:
        '[Previous Session Context]\nCurrent task: Fix the failing test in src/db.ts\nCompleted: Fix the failing test in src/db.ts\nPending: \nKey decisions: \nRelevant files: src/db.ts',
    },
  })
