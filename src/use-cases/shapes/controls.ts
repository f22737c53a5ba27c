/**
 * The request schemas of issue 24's controls that /compact, the sessions' settings and
 * the proxy share: the thinking policy and the cache economics.
 */
import { z } from 'zod'

export const thinkingPolicySchema = z
  .object({
    keep: z
      .union([z.int().min(0).max(10_000), z.literal('all')])
      .describe('Assistant turns (counted from the end) whose reasoning stays; `all` keeps every one; 0 drops all but the turn in progress.'),
  })
  .strict()
  .describe(
    'The thinking policy: Anthropic thinking and redacted_thinking blocks, AI SDK reasoning parts and Responses reasoning items of earlier turns are dropped first, before any strategy. The turn in progress (the conversation ends with tool calls or results) keeps its reasoning, as Anthropic requires; pinned messages are not touched; a Responses reasoning item whose turn carries server item ids stays (the API refuses those items without it). The response reports the tokens freed (`thinking`).',
  )

const price = z.number().min(0).max(100_000)

export const cacheSettingsSchema = z
  .object({
    cachedPrefixTokens: z.int().min(0).max(100_000_000).optional().describe("Tokens of this conversation the provider has cached now (its usage's cached_tokens / cache_read_input_tokens). Default: all of it."),
    inputPrice: price.optional().describe("USD per million uncached input tokens. Default: the model registry's."),
    cacheReadPrice: price.optional().describe("USD per million cached tokens read. Default: the registry's input price times the provider's cache discount."),
    cacheWritePrice: price.optional().describe('USD per million tokens written to the cache. Default: the input price (OpenAI, Google, DeepSeek) or 1.25× it (Anthropic, unknown models).'),
    horizonTurns: z.int().min(1).max(10_000).optional().describe('Requests over which the saving is counted, the next one included. Default 10.'),
  })
  .strict()
  .describe("The prompt cache's state and prices: the event then reports what this compaction costs in cache writes against what it saves over the next requests (`event.cache`; docs/api.md has the arithmetic).")

export const cachePolicySchema = z
  .enum(['always', 'when-profitable'])
  .describe('`when-profitable`: compact only when the saving over `cache.horizonTurns` outweighs the cache writes (checked on the plan before a summarizer is paid, and on the result); otherwise compacted: false with the reason. Default always.')

export const thinkingReportSchema = z
  .object({
    keep: z.union([z.int(), z.literal('all')]),
    blocksDropped: z.int().describe('Reasoning blocks or items removed.'),
    messagesChanged: z.int().describe('Messages whose reasoning was removed (a message of reasoning alone is removed whole).'),
    keptForProvider: z.int().describe("Reasoning the policy would drop but the provider's rules keep (Responses items tied to server ids)."),
    tokensFreed: z.int().describe('Tokens the removed reasoning took.'),
  })
  .describe('What the thinking policy did.')

export const cacheEconomicsSchema = z
  .object({
    inputPrice: z.number(),
    cacheReadPrice: z.number(),
    cacheWritePrice: z.number(),
    tokensBefore: z.int(),
    tokensAfter: z.int(),
    cachedPrefixTokens: z.int(),
    keptPrefixTokens: z.int().describe("The output's leading tokens that are the input's, unchanged: still cached."),
    horizonTurns: z.int(),
    writeCostUsd: z.number().describe('Extra cache writes the next request pays because of the compaction.'),
    summarizerCostUsd: z.number(),
    costWithoutUsd: z.number().describe('The next horizonTurns requests without compacting.'),
    costWithUsd: z.number().describe('The same requests after compacting, the summarizer included.'),
    savingUsd: z.number().describe('costWithoutUsd − costWithUsd.'),
    breakEvenTurns: z.int().nullable().describe('Requests after which the compaction has paid for itself; null: never.'),
    profitable: z.boolean(),
    estimated: z.boolean().describe("true: the plan's estimate, checked before any summarizer was paid; false: the result's figures."),
  })
  .describe('The cache economics of this compaction (with `cache` or `cachePolicy`).')

export const triggerSchema = z
  .object({
    mode: z
      .enum(['off', 'manual', 'auto'])
      .describe('`auto` (default): GET /context and the proxy compact past the threshold. `manual`: only POST /compact (or the proxy\'s `x-compactd-compact: now`) compacts. `off`: nothing compacts this session, POST /compact with its id included (a 409).'),
    threshold: z
      .number()
      .gt(0)
      .max(100_000_000)
      .optional()
      .describe("`auto` compacts past this many tokens (a number ≥ 1) or this share of the model's window (a number < 1). Default: the budget (GET /context) or the model's threshold (the proxy)."),
    notMidTurn: z.boolean().optional().describe('Never compact automatically while the last assistant message has tool calls without results.'),
  })
  .strict()
  .describe('When automatic compaction happens.')

/** The controls a session stores (PUT /sessions/:id) and GET /context and the proxy apply. */
export const sessionControlFields = {
  pin: z
    .array(z.int().min(1))
    .max(1_000)
    .nullable()
    .optional()
    .describe('Seqs (GET /sessions/:id/messages) of messages GET /context always sends verbatim, with their tool pairs, even once folded into the summary. Checked on every /context: what its budget cannot hold is a 422 `contract_unkept`. null removes the pins.'),
  preserve: z
    .array(z.string().min(1).max(2_000))
    .max(100)
    .nullable()
    .optional()
    .describe('Strings GET /context and POST /compact (with this sessionId) must keep; a string not in the conversation yet is listed in `contract.absent`, not an error. null removes them.'),
  focus: z.string().max(2_000).nullable().optional().describe("What the session's compactions give room to (see POST /compact `focus`). null removes it."),
  thinking: thinkingPolicySchema.nullable().optional(),
  trigger: triggerSchema.nullable().optional(),
}

export const breakerStatusSchema = z
  .object({
    state: z.enum(['closed', 'open']).describe('`open`: automatic compactions (the proxy, GET /context) of this session are refused.'),
    reason: z.string().optional().describe('Why it opened.'),
    retryAfterSeconds: z.int().optional().describe('Seconds until an automatic compaction is tried again.'),
    openedAt: z.string().optional().describe('ISO 8601.'),
    recent: z
      .array(z.object({ at: z.string(), messages: z.int(), freedTokens: z.int(), windowTokens: z.int() }))
      .describe('The latest automatic compactions since the last manual one or reset, oldest first: when, at how many messages, what they freed of which window.'),
  })
  .meta({ id: 'BreakerStatus' })
  .describe("The session's compaction circuit breaker (BREAKER_* settings; docs/api.md \"Circuit breaker\").")
