/** POST /compact's request and response, written once: the route validates and documents them, the use case and the library take their types. */
import { z } from 'zod'
import { archiveReportSchema } from './archive.ts'
import { cacheEconomicsSchema, cachePolicySchema, cacheSettingsSchema, thinkingPolicySchema, thinkingReportSchema } from './controls.ts'
import { STRATEGIES, STRATEGY_NAMES } from '../../engine/compaction/strategies/index.ts'
import { DEFAULT_COMPACT_OPTIONS } from '../../engine/compaction/types.ts'
import { LLM_DEFAULT_PIPELINE } from '../../config.ts'
import { formatField, messagesField, modelField, sessionIdSchema, systemField, thresholdOverrideFields, formatEnum } from './common.ts'

const strategyName = z.enum(STRATEGY_NAMES)
const strategyList = STRATEGIES.map((s) => `\`${s.name}\`: ${s.description}.`).join(' ')
const fallbackList = STRATEGIES.filter((s) => 'fallback' in s).map((s) => s.name).join(' → ')

export const compactBody = z
  .strictObject({
    messages: messagesField,
    format: formatField,
    model: modelField,
    system: systemField,
    targetTokens: z
      .int()
      .positive()
      .max(100_000_000)
      .optional()
      .describe("Token budget the output must fit (counted like /estimate for `model`). Default: the model's compaction threshold, as /estimate returns it."),
    keepFirst: z.int().min(0).max(1_000).optional().describe('Leading user turns kept verbatim (the original task). System messages before them are always kept. Default 1.'),
    keepRecent: z
      .int()
      .min(0)
      .max(100_000)
      .optional()
      .describe('Most recent messages kept verbatim; the boundary moves earlier rather than separate a tool call from its results. Given, the window is kept whenever it fits. Default 10 (COMPACTION_KEEP_RECENT), taking at most half of what the system prompt and task leave of the target when more would leave the summary under 1,000 tokens: past that it shrinks (the last message always stays) so the summary has room.'),
    keepRecentTokens: z
      .int()
      .min(0)
      .max(100_000_000)
      .optional()
      .describe('Instead of keepRecent: keep the most recent messages up to this many tokens. Giving both is a 400.'),
    strategy: z
      .union([strategyName, z.array(strategyName).min(1).max(STRATEGY_NAMES.length)])
      .optional()
      .describe(
        `A strategy or a pipeline, cheapest first (GET /strategies lists them). ${strategyList} The pipeline's summarizers fall back to ${fallbackList}. Default: COMPACTION_DEFAULT_STRATEGY; unset, \`${JSON.stringify(LLM_DEFAULT_PIPELINE)}\` when the server has a summarizer configured (an OpenAI or Anthropic key), else \`${JSON.stringify(DEFAULT_COMPACT_OPTIONS.strategy)}\`.`,
      ),
    keepToolResults: z.int().min(0).max(10_000).optional().describe('The most recent tool results are never masked. Default 3.'),
    excludeTools: z.array(z.string().min(1).max(200)).max(1_000).optional().describe('Tools whose results are never masked (e.g. a memory or plan tool).'),
    clearToolInputs: z
      .union([z.boolean(), z.int().min(1).max(1_000_000)])
      .optional()
      .describe('Also shorten tool-call arguments of masked calls: a token threshold, or true for 200. Default false.'),
    preserveErrorDetails: z.boolean().optional().describe('Keep error messages and failing commands of masked or summarised tool results. Default true.'),
    maxSummaryTokens: z
      .int()
      .min(50)
      .max(100_000)
      .optional()
      .describe('Cap on the summary sections (task, instructions, files, errors, decisions, state, pending work); never more than 15% of targetTokens. The action log appended to the same message uses what the rest of the budget leaves. Default 2000 (COMPACTION_MAX_SUMMARY_TOKENS).'),
    summaryRole: z
      .enum(['system', 'developer', 'user', 'assistant'])
      .optional()
      .describe('Role of the summary message. Default user. With Anthropic, system/developer put it in the top-level `system`.'),
    summarizer: z
      .strictObject({
        provider: z.enum(['openai', 'anthropic']).describe('Summarizer provider. One without an API key on the server is no usable summarizer: the llm step falls back, with the reason in `fallbacks`.'),
        model: z
          .string()
          .min(1)
          .max(200)
          .optional()
          .describe('One of the models the server allows (SUMMARIZER_OPENAI_MODELS / SUMMARIZER_ANTHROPIC_MODELS); another is a 400. Default: the first one.'),
      })
      .optional()
      .describe(
        'Which configured model writes the `llm` summary, so only with `llm` in strategy (or in COMPACTION_DEFAULT_STRATEGY when strategy is omitted): otherwise a 400 naming body.summarizer. Keys and base URLs come only from server configuration: any other field (baseURL, apiKey, url...) is a 400. Default: SUMMARIZER_DEFAULT_PROVIDER.',
      ),
    instructions: z.string().max(20_000).optional().describe('Extra guidance for the summary (what to keep), for the llm strategy.'),
    instructionsMode: z.enum(['replace', 'append']).optional().describe('`append` adds instructions to the built-in summary prompt; `replace` replaces its guidance. Default append.'),
    focus: z
      .string()
      .max(2_000)
      .optional()
      .describe(
        'What the summary should give room to (a subsystem, a decision, a file). Added to the default guidance, never replacing it: the llm prompt gets it as a section of its own; the rules summary ranks the action-log lines mentioning its words above the others of their importance. `instructions` with `instructionsMode: replace` stays the way to replace the prompt.',
      ),
    pin: z
      .array(z.int().min(0))
      .max(1_000)
      .optional()
      .describe(
        'Indices (0-based, into `messages`) of messages kept verbatim, byte for byte, wherever they sit, with the tool calls or results they pair with. Checked on the output: what the budget cannot hold is a 422 `contract_unkept` listing it; an index past the end is a 400.',
      ),
    preserve: z
      .array(z.string().min(1).max(2_000))
      .max(100)
      .optional()
      .describe(
        'Strings that must appear in the output (an identifier, a rule, a URL, a constraint). compactd keeps the latest message holding one when the summary does not; what the budget cannot hold is a 422 `contract_unkept`; a string not in the input is a 400 naming it.',
      ),
    minGainTokens: z
      .int()
      .min(1)
      .max(100_000_000)
      .optional()
      .describe(
        'Compact only when it saves at least this many tokens; otherwise the conversation comes back unchanged (compacted: false, with the reason). Wins over targetTokens: a small saving is not worth the prompt-cache break it costs. Checked on the plan before any summarizer is called.',
      ),
    thinking: thinkingPolicySchema.optional(),
    cache: cacheSettingsSchema.optional(),
    cachePolicy: cachePolicySchema.optional(),
    dryRun: z.boolean().optional().describe('Return the plan and estimated result without changing anything, calling a model or storing a checkpoint.'),
    force: z.boolean().optional().describe('Compact even when the conversation already fits targetTokens. A conversation smaller than any compaction of it could be comes back unchanged (compacted: false, with the reason).'),
    sessionId: sessionIdSchema
      .optional()
      .describe(
        'Your id for the conversation (1-200 characters of A-Z a-z 0-9 . _ : -). When given, each compaction is stored as a numbered checkpoint, and round numbers continue from the latest one.',
      ),
    onBrokenInput: z
      .enum(['repair', 'reject'])
      .optional()
      .describe('Input whose tool calls and results do not pair up: `repair` drops orphan results and answers missing ones (listed in `repairs`); `reject` is a 400. Default repair.'),
    ...thresholdOverrideFields,
  })
  .describe('A conversation to compact, and how.')
  .meta({
    id: 'CompactRequest',
    example: {
      model: 'gpt-4o',
      targetTokens: 3000,
      keepRecent: 2,
      sessionId: 'agent-run-42',
      messages: [
        { role: 'system', content: 'You are a coding agent.' },
        { role: 'user', content: 'Fix the failing test in src/db.ts' },
        { role: 'assistant', content: 'Running the tests.', tool_calls: [{ id: 'call_2', type: 'function', function: { name: 'bash', arguments: '{"command":"npm test -- test/db.test.ts"}' } }] },
        { role: 'tool', tool_call_id: 'call_2', content: 'FAILED test/db.test.ts > closes the pool\nError: Called end on pool more than once\n… 6,000 more characters …' },
        { role: 'assistant', content: 'The test fails because the pool is closed twice: close() runs in both afterEach and the shutdown hook. I removed the afterEach call.' },
        { role: 'user', content: 'Good. Also make close() idempotent.' },
      ],
    },
  })

const keyFactsSchema = z
  .object({
    currentTask: z.string(),
    completedSteps: z.array(z.string()),
    pendingSteps: z.array(z.string()),
    keyDecisions: z.array(z.string()),
    relevantFiles: z.array(z.string()),
    errors: z.array(z.string()),
    userRequests: z.array(z.string()),
  })
  .describe('Continuation facts read from the summary: task, steps done and pending, decisions, files, errors, later user requests.')

export const checkpointRefSchema = z
  .object({
    sessionId: z.string(),
    checkpointNum: z.int().describe('Number of the stored checkpoint (1, 2, ... per session, gap-free).'),
    folded: z
      .object({
        into: z.int().describe('The checkpoint the oldest ones were folded into (it keeps its number).'),
        from: z.array(z.int()).describe('Every original checkpoint number that checkpoint now stands for.'),
      })
      .optional()
      .describe('Present when storing this checkpoint took the session over COMPACTION_MAX_CHECKPOINTS and the oldest were folded into one.'),
  })
  .describe('The checkpoint this compaction was stored as (sessionId given, compaction done).')

export const compactResponse = z
  .object({
    compacted: z.boolean().describe('False when the input is returned unchanged (it fits, dry run, or compaction would not help).'),
    reason: z.string().optional().describe('Why nothing was changed, when compacted is false.'),
    messages: z.array(z.unknown()).describe('The conversation in the input format. Kept messages are byte-identical to the input objects.'),
    system: z.unknown().optional().describe('Top-level system prompt: Anthropic output, or the `system` you sent (returned unchanged).'),
    format: formatEnum.describe('Format of `messages` (the input format).'),
    model: z.string().describe('Model the budget was counted for.'),
    targetTokens: z.int().describe('The budget used (the request\'s, or the model\'s compaction threshold).'),
    strategy: z.enum([...STRATEGY_NAMES, 'none']).describe('What produced the result: the summarizer that wrote the summary, `mask` when masking sufficed, `none` when unchanged.'),
    fallbacks: z
      .array(z.object({ strategy: z.string(), reason: z.string() }))
      .describe('Strategies that were tried and failed or were unavailable, in order, with the reason (e.g. `rate_limited: openai gpt-4o-mini: rate limited (HTTP 429)`).'),
    repairs: z.array(z.object({ index: z.int(), action: z.string() })).describe('Fixes applied to broken tool-call pairing in the input (onBrokenInput repair).'),
    plan: z
      .array(
        z.object({
          from: z.int().describe('First input index (-1: the top-level system).'),
          to: z.int(),
          action: z.enum(['keep', 'mask', 'condense', 'summarize']),
          reason: z.string(),
        }),
      )
      .describe('What happens to each range of input messages.'),
    event: z
      .object({
        round: z.int().describe('Compaction round: 1, or one more than the previous summary (in the input or the session).'),
        tokensBefore: z.int(),
        tokensAfter: z.int().describe('Tokens of the output (estimated for a dry run).'),
        compressionRatio: z.number().describe('tokensBefore / tokensAfter.'),
        messagesCompacted: z.int(),
        strategy: z.string(),
        summaryTokens: z.int().describe('Tokens of the summary message as sent: its sections and action log (the reserve, for a dry run).'),
        summaryRoomTokens: z
          .int()
          .describe('The room the summary message had: targetTokens less the rest of the output (head, kept turns, tail). summaryTokens against it is how much of the budget the summary left unused; 0 without a summary.'),
        costUsd: z.number().describe('Cost of summarizer calls (0 offline).'),
        durationMs: z.int(),
        cache: cacheEconomicsSchema.optional(),
      })
      .describe('Figures of this compaction, for monitoring.'),
    summary: z
      .object({
        text: z.string().describe('The summary, starting with `## Session Summary (Compaction Round N)`.'),
        keyFacts: keyFactsSchema,
        role: z.string().describe('Role of the summary message.'),
        index: z.int().describe('Index of the summary message in `messages` (-1: in the top-level system).'),
      })
      .optional()
      .describe('The summary inserted, when one was written.'),
    contract: z
      .object({
        pinned: z.array(z.int()).describe('The pinned message indices, each checked present byte for byte.'),
        preserved: z.array(z.string()).describe('The preserved strings, each checked present.'),
      })
      .optional()
      .describe('With `pin` or `preserve`: what the preservation contract checked (a 200 means all of it held).'),
    thinking: thinkingReportSchema.optional(),
    checkpoint: checkpointRefSchema.optional(),
    archive: archiveReportSchema.optional(),
  })
  .meta({
    id: 'CompactResponse',
    example: {
      compacted: true,
      messages: [
        { role: 'system', content: 'You are a coding agent.' },
        { role: 'user', content: 'Fix the failing test in src/db.ts' },
        {
          role: 'user',
          content:
            '## Session Summary (Compaction Round 1)\n\n### Original Task\nFix the failing test in src/db.ts\n\n### Completed Work\n| File | Fate | What changed |\n|---|---|---|\n| test/db.test.ts | edited | +0/-1; removed `afterEach(() => close())` |\n\n### Errors & Resolutions\n- `npm test -- test/db.test.ts` → exit 1: Error: Called end on pool more than once — resolved: a later run of the same command succeeded\n    Error: Called end on pool more than once at Pool.end (node_modules/pg-pool/index.js:434:19) at close (src/pool.ts:4:14) Tests: 1 failed, 11 passed\n\n### Current State\n- Last change: test/db.test.ts (edited)\n- Last command: `npm test -- test/db.test.ts` → exit 0\n\n### Commands Run\n- `npm test -- test/db.test.ts` (×2, last exit 0, failed earlier)\n\n### Earlier Actions (oldest first, condensed)\n- read_file src/db.ts\n- bash npm test -- test/db.test.ts → exit 1: Error: Called end on pool more than once\n- read_file src/pool.ts\n- note: The pool is closed in afterEach and again by the shutdown hook.\n- edit_file test/db.test.ts (removed `afterEach(() => close())`)\n- read_file src/config.ts',
        },
        { role: 'assistant', content: 'Running the tests.', tool_calls: [{ id: 'call_6', type: 'function', function: { name: 'bash', arguments: '{"command":"npm test -- test/db.test.ts"}' } }] },
        { role: 'tool', tool_call_id: 'call_6', content: 'Tests: 12 passed\nExit code 0' },
        { role: 'assistant', content: 'The test fails because the pool is closed twice: close() runs in both afterEach and the shutdown hook. I removed the afterEach call.' },
        { role: 'user', content: 'Good. Also make close() idempotent.' },
      ],
      format: 'openai',
      model: 'gpt-4o',
      targetTokens: 1500,
      strategy: 'rules',
      fallbacks: [],
      repairs: [],
      plan: [
        { from: 0, to: 1, action: 'keep', reason: 'system prompt and original task' },
        { from: 2, to: 11, action: 'summarize', reason: "one-line digests in the summary's action log" },
        { from: 12, to: 13, action: 'condense', reason: 'tool results masked, inputs and prose condensed' },
        { from: 14, to: 15, action: 'keep', reason: 'recent messages' },
      ],
      event: { round: 1, tokensBefore: 7124, tokensAfter: 422, compressionRatio: 16.88, messagesCompacted: 12, strategy: 'rules', summaryTokens: 308, summaryRoomTokens: 320, costUsd: 0, durationMs: 63 },
      summary: {
        text: '## Session Summary (Compaction Round 1)\n\n### Original Task\nFix the failing test in src/db.ts\n…',
        keyFacts: {
          currentTask: 'Fix the failing test in src/db.ts',
          completedSteps: ['edited test/db.test.ts: removed `afterEach(() => close())`', 'ran npm test -- test/db.test.ts (ok)'],
          pendingSteps: [],
          keyDecisions: [],
          relevantFiles: ['test/db.test.ts', 'src/db.ts', 'src/pool.ts', 'src/config.ts'],
          errors: ['npm test -- test/db.test.ts: Error: Called end on pool more than once (resolved)'],
          userRequests: [],
        },
        role: 'user',
        index: 2,
      },
      checkpoint: { sessionId: 'agent-run-42', checkpointNum: 1 },
    },
  })
