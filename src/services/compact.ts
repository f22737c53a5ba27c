/**
 * POST /compact's domain: parse any format, turn the request into CompactOptions
 * (defaults from configuration, the target from the model's threshold like /estimate),
 * run the engine with the server's summarizer when `llm` is asked for, write the result
 * back in the caller's format, and store a checkpoint when a session is named.
 */
import type { Kysely } from 'kysely'
import { insertCheckpoint, latestRound } from '../checkpoints/repository.ts'
import type { Config } from '../config.ts'
import type { Database } from '../db/schema.ts'
import { compactionThreshold } from '../engine/budget.ts'
import { compact, CompactionError } from '../engine/compaction/compact.ts'
import { llmSummarizer } from '../engine/compaction/strategies/llm.ts'
import {
  DEFAULT_COMPACT_OPTIONS,
  type CompactionEvent,
  type CompactOptions,
  type CompactResult,
  type FallbackRecord,
  type KeyFacts,
  type PlanRange,
  type RepairRecord,
  type StrategyName,
  type Summarizer,
  type SummarizerClient,
} from '../engine/compaction/types.ts'
import type { CanonicalMessage, MessageFormat } from '../engine/messages/canonical.ts'
import { parseConversation, serializeConversation } from '../engine/messages/index.ts'
import { ApiError } from '../errors.ts'
import type { SummarizerProvider, SummarizerRegistry } from '../providers/summarizer-clients.ts'
import { defaultCounter, modelFor, thresholdSettings } from './estimate.ts'

/** clearToolInputs: true shortens tool-call arguments over this many tokens. */
export const CLEAR_TOOL_INPUTS_DEFAULT_TOKENS = 200

export interface CompactRequest {
  messages: unknown[]
  format?: MessageFormat
  model?: string
  system?: unknown
  targetTokens?: number
  keepFirst?: number
  keepRecent?: number
  keepRecentTokens?: number
  strategy?: StrategyName | StrategyName[]
  keepToolResults?: number
  excludeTools?: string[]
  clearToolInputs?: boolean | number
  preserveErrorDetails?: boolean
  maxSummaryTokens?: number
  summaryRole?: 'system' | 'developer' | 'user' | 'assistant'
  summarizer?: { provider: SummarizerProvider; model?: string }
  instructions?: string
  instructionsMode?: 'replace' | 'append'
  dryRun?: boolean
  force?: boolean
  sessionId?: string
  onBrokenInput?: 'repair' | 'reject'
  contextLimit?: number
  systemReserve?: number
  outputReserve?: number
  safetyBuffer?: number
  thresholdPercent?: number
}

export interface CompactResponse {
  compacted: boolean
  reason?: string
  messages: unknown[]
  system?: unknown
  format: MessageFormat
  model: string
  targetTokens: number
  strategy: StrategyName | 'none'
  fallbacks: FallbackRecord[]
  repairs: RepairRecord[]
  plan: PlanRange[]
  event: CompactionEvent
  summary?: { text: string; keyFacts: KeyFacts; role: string; index: number }
  checkpoint?: { sessionId: string; checkpointNum: number; foldedFrom?: number[] }
}

export interface CompactContext {
  config: Config
  db: Kysely<Database>
  summarizers: SummarizerRegistry
  tenantId: string
  /** Fires when the client goes away: provider calls stop. */
  signal?: AbortSignal
  log?: { warn(obj: object, msg: string): void }
}

function strategyList(input: CompactRequest['strategy'], config: Config): StrategyName[] {
  const list = input === undefined ? config.COMPACTION_DEFAULT_STRATEGY : Array.isArray(input) ? input : [input]
  return [...new Set(list)]
}

/** The llm summarizer, or undefined when none is configured and none was asked for by name. */
function pickSummarizer(registry: SummarizerRegistry, choice: CompactRequest['summarizer']): Summarizer | undefined {
  // An explicit choice must be valid: SummarizerSelectionError → 400 body.summarizer.<field>.
  if (choice) return withCost(registry.get(choice.provider, choice.model))
  // No choice and nothing configured: the engine records an `llm` fallback.
  if (registry.defaultProvider === undefined) return undefined
  return withCost(registry.get())
}

/**
 * WORKAROUND: llmSummarizer reports its usage but no costUsd, so compact() would record
 * a cost of 0. Price the usage with the client's registry prices when it is missing.
 */
function withCost(client: SummarizerClient): Summarizer {
  const inner = llmSummarizer(client)
  return {
    name: inner.name,
    async summarize(req) {
      const res = await inner.summarize(req)
      return res.costUsd !== undefined ? res : { ...res, costUsd: client.costUsd(res.usage.inputTokens, res.usage.outputTokens) }
    },
  }
}

export async function compactConversation(ctx: CompactContext, input: CompactRequest): Promise<CompactResponse> {
  const { config } = ctx
  if (input.keepRecent !== undefined && input.keepRecentTokens !== undefined) {
    throw new ApiError(400, 'validation_error', 'body.keepRecentTokens: give keepRecent or keepRecentTokens, not both', [
      { path: 'body.keepRecentTokens', message: 'mutually exclusive with keepRecent' },
    ])
  }
  const conversation = parseConversation(input.messages, { format: input.format, system: input.system })
  const format = conversation.format
  const model = modelFor(config, input.model, input.contextLimit)
  const counter = defaultCounter(model)
  const threshold = compactionThreshold(model.contextLimit, thresholdSettings(config, input))
  const targetTokens = input.targetTokens ?? threshold

  // A separate `system` with OpenAI / AI SDK messages counts toward the budget (as in
  // /estimate) and is returned as given: it rides along as a pinned leading message.
  const extraSystem: CanonicalMessage | undefined =
    input.system !== undefined && conversation.anthropicSystem === undefined
      ? { role: 'system', parts: [{ type: 'text', text: typeof input.system === 'string' ? input.system : JSON.stringify(input.system) }], index: -1, format, raw: input.system }
      : undefined
  const messages = extraSystem ? [extraSystem, ...conversation.messages] : conversation.messages

  const strategy = strategyList(input.strategy, config)
  const llm = strategy.includes('llm') ? pickSummarizer(ctx.summarizers, input.summarizer) : undefined
  const previousRound = input.sessionId ? await latestRound(ctx.db, ctx.tenantId, input.sessionId) : undefined

  const clear = input.clearToolInputs
  const options: CompactOptions = {
    ...DEFAULT_COMPACT_OPTIONS,
    format,
    targetTokens,
    thresholdTokens: targetTokens,
    keepFirst: input.keepFirst ?? DEFAULT_COMPACT_OPTIONS.keepFirst,
    keepRecent: input.keepRecent ?? config.COMPACTION_KEEP_RECENT,
    ...(input.keepRecentTokens !== undefined ? { keepRecentTokens: input.keepRecentTokens } : {}),
    strategy,
    keepToolResults: input.keepToolResults ?? DEFAULT_COMPACT_OPTIONS.keepToolResults,
    excludeTools: input.excludeTools ?? DEFAULT_COMPACT_OPTIONS.excludeTools,
    clearToolInputsOver: clear === true ? CLEAR_TOOL_INPUTS_DEFAULT_TOKENS : clear === false || clear === undefined ? 0 : clear,
    preserveErrorDetails: input.preserveErrorDetails ?? DEFAULT_COMPACT_OPTIONS.preserveErrorDetails,
    maxSummaryTokens: input.maxSummaryTokens ?? config.COMPACTION_MAX_SUMMARY_TOKENS,
    ...(input.summaryRole ? { summaryRole: input.summaryRole } : {}),
    ...(input.instructions !== undefined ? { instructions: input.instructions } : {}),
    instructionsMode: input.instructionsMode ?? DEFAULT_COMPACT_OPTIONS.instructionsMode,
    force: input.force ?? false,
    dryRun: input.dryRun ?? false,
    onBrokenInput: input.onBrokenInput ?? DEFAULT_COMPACT_OPTIONS.onBrokenInput,
    ...(previousRound ? { previousRound } : {}),
  }

  const result = await runCompact(ctx, { messages, options, counter, llm })
  const compactedRange = result.compacted ? callerRange(result, messages) : undefined

  const out = extraSystem ? result.messages.filter((m) => m !== extraSystem && !(m.index === -1 && m.raw === input.system && m.role === 'system')) : result.messages
  const serialized = serializeConversation(out, format)
  const system = serialized.system !== undefined ? serialized.system : extraSystem ? input.system : undefined

  let summary: CompactResponse['summary']
  if (result.summary) {
    summary = { ...result.summary, index: locateSummary(serialized.messages, result.summary.text) }
  }

  let checkpoint: CompactResponse['checkpoint']
  if (input.sessionId && result.compacted && !options.dryRun) {
    const ev = result.event
    const stored = await insertCheckpoint(
      ctx.db,
      ctx.tenantId,
      input.sessionId,
      {
        fromMessageIndex: compactedRange?.from ?? null,
        toMessageIndex: compactedRange?.to ?? null,
        messagesCompressed: ev.messagesCompacted,
        summaryContent: result.summary?.text ?? '',
        keyFacts: (result.summary?.keyFacts as unknown as Record<string, unknown>) ?? null,
        originalTokens: ev.tokensBefore,
        compressedTokens: ev.tokensAfter,
        compressionRatio: ev.compressionRatio,
        summaryCostUsd: ev.costUsd,
        strategy: result.strategy,
        round: result.summary ? ev.round : null,
      },
      { maxCheckpoints: config.COMPACTION_MAX_CHECKPOINTS },
    )
    checkpoint = {
      sessionId: input.sessionId,
      checkpointNum: stored.checkpoint.checkpointNum,
      ...(stored.checkpoint.foldedFrom ? { foldedFrom: stored.checkpoint.foldedFrom } : {}),
    }
  }

  return {
    compacted: result.compacted,
    ...(result.reason !== undefined ? { reason: result.reason } : {}),
    messages: serialized.messages,
    ...(system !== undefined ? { system } : {}),
    format,
    model: model.id,
    targetTokens,
    strategy: result.strategy,
    fallbacks: result.fallbacks,
    repairs: result.repairs,
    plan: result.plan,
    event: result.event,
    ...(summary ? { summary } : {}),
    ...(checkpoint ? { checkpoint } : {}),
  }
}

/**
 * Index of the summary in the serialized `messages` (Anthropic output moves system text
 * to the top-level `system` and merges same-role neighbours, so the engine's canonical
 * index can differ); -1 when it went to the top-level system.
 */
function locateSummary(messages: readonly unknown[], text: string): number {
  const firstLine = text.split('\n', 1)[0]!
  for (let i = 0; i < messages.length; i++) {
    const content = (messages[i] as { content?: unknown } | null)?.content
    if (typeof content === 'string' ? content.includes(firstLine) : JSON.stringify(content ?? '').includes(JSON.stringify(firstLine).slice(1, -1))) return i
  }
  return -1
}

/** The engine's own last check, when its plan under-estimated the output (see runCompact). */
const OVER_TARGET_RE = /^internal: result has (\d+) tokens, over the target of (\d+)/
const OVER_TARGET_RETRIES = 3

/**
 * compact() with the service's error handling:
 *  - a client that went away is a 499, not a 500;
 *  - pairing problems are reported with the caller's indexes;
 *  - WORKAROUND: the engine's plan can under-estimate its output (e.g. when repeated
 *    commands collapse into one action-log line, the saving is counted twice), and it
 *    then throws a plain "internal: result has N tokens, over the target of T" Error
 *    after summarising. The output size is deterministic, so retry with the target
 *    lowered by the overshoot (plus a little); the caller's target is what is reported.
 */
async function runCompact(
  ctx: CompactContext,
  input: { messages: CanonicalMessage[]; options: CompactOptions; counter: ReturnType<typeof defaultCounter>; llm?: Summarizer },
): Promise<CompactResult> {
  const target = input.options.targetTokens
  let effective = target
  for (let attempt = 0; ; attempt++) {
    try {
      return await compact({ messages: input.messages, options: { ...input.options, targetTokens: effective }, counter: input.counter, llm: input.llm, signal: ctx.signal })
    } catch (err) {
      if (ctx.signal?.aborted) throw new ApiError(499, 'client_closed_request', 'the client closed the request before compaction finished')
      if (err instanceof CompactionError) {
        if (err.code === 'broken_tool_pairing') throw withCallerIndexes(err, input.messages)
        if (effective !== target) throw new CompactionError(err.code, err.message.replace(`cannot fit ${effective} tokens`, `cannot fit ${target} tokens`), { ...err.details, targetTokens: target })
        throw err
      }
      const over = err instanceof Error ? OVER_TARGET_RE.exec(err.message) : null
      if (!over || attempt >= OVER_TARGET_RETRIES) throw err
      const excess = Number(over[1]) - Number(over[2])
      const next = effective - excess - 16 * (attempt + 1)
      ctx.log?.warn({ targetTokens: target, effectiveTarget: effective, resultTokens: Number(over[1]), retryTarget: next }, 'compaction overshot its target; retrying with a lower one')
      if (next <= 0) throw err
      effective = next
    }
  }
}

/**
 * The engine reports pairing problems by position in the list it was given; callers
 * know their own indexes (an Anthropic top-level system, or a separate `system`, sits
 * at position 0 with index -1). Rewrites positions to `messages[i]` indexes.
 */
function withCallerIndexes(err: CompactionError, messages: readonly CanonicalMessage[]): CompactionError {
  const problems = Array.isArray(err.details.problems) ? (err.details.problems as { index: number; callId: string; problem: string }[]) : []
  if (problems.length === 0) return err
  const fixed = problems.map((p) => ({ ...p, index: messages[p.index]?.index ?? p.index }))
  const first = fixed[0]!
  return new CompactionError(
    'broken_tool_pairing',
    `messages[${first.index}]: ${first.problem} (tool call id ${first.callId}); send onBrokenInput "repair" to fix it automatically`,
    { ...err.details, problems: fixed },
  )
}

/**
 * compactedRange in the caller's indexes. The engine gives positions in the list it
 * worked on; without repairs that is `messages`, so positions map through `.index`.
 * After a repair (messages inserted or removed) the plan's ranges, which carry caller
 * indexes, give the span of everything that was not kept verbatim.
 */
function callerRange(result: CompactResult, messages: readonly CanonicalMessage[]): { from: number; to: number } | undefined {
  const r = result.compactedRange
  if (r && result.repairs.length === 0) {
    const from = messages[r.from]?.index
    const to = messages[r.to]?.index
    if (from !== undefined && to !== undefined) return { from, to }
  }
  const changed = result.plan.filter((p) => p.action !== 'keep')
  const froms = changed.map((p) => p.from).filter((i) => i >= 0)
  const tos = changed.map((p) => p.to).filter((i) => i >= 0)
  return froms.length && tos.length ? { from: Math.min(...froms), to: Math.max(...tos) } : undefined
}
