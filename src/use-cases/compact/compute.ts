/**
 * POST /compact's CPU part (the compute task `compact`) and the request's checks: parse
 * any format, turn the request into CompactOptions (defaults from configuration, the
 * target from the model's threshold like /estimate), run the engine with the server's
 * summarizer when `llm` is asked for, and write the result back in the caller's format.
 * The use case around it (storage, the pool) is ./compact.ts.
 */
import type { z } from 'zod'
import type { CheckpointData } from '../../checkpoints/repository.ts'
import type { Config } from '../../config.ts'
import { compact, CompactionError } from '../../engine/compaction/compact.ts'
import { LLM_STRATEGY_NAMES, pipelineNeedsLlm, type RegisteredStrategyName as StrategyName } from '../../engine/compaction/strategies/index.ts'
import { DEFAULT_COMPACT_OPTIONS, type CompactOptions, type CompactResult, type Summarizer, type SummarizerClient } from '../../engine/compaction/types.ts'
import type { CanonicalMessage } from '../../engine/messages/canonical.ts'
import { archiveRecord, toolNamesOf, type ArchiveRecord } from '../../engine/archive/record.ts'
import type { MessageCountCache } from '../../engine/tokens/count.ts'
import type { CacheSettings } from '../../engine/compaction/cache-economics.ts'
import { cachePricesOf, type ModelInfo } from '../../engine/models/registry.ts'
import { parseConversation, serializeConversation, withSeparateSystem } from '../../engine/messages/index.ts'
import { isMaskedPlaceholderOnly } from '../../engine/compaction/transforms/mask.ts'
import { ApiError } from '../../errors.ts'
import type { SummarizerRegistry } from '../../providers/summarizer-clients.ts'
import { summarizerUnavailable } from '../../providers/summarizer-model.ts'
import { defaultCounter, modelFor, refuseSettingsWithoutRoom, thresholdOrRefuse } from '../model-budget.ts'
import type { compactBody, compactResponse } from '../shapes/compact.ts'

/** The requests over which cache economics count a compaction's saving, by default. */
export const DEFAULT_HORIZON_TURNS = 10

/** clearToolInputs: true shortens tool-call arguments over this many tokens. */
export const CLEAR_TOOL_INPUTS_DEFAULT_TOKENS = 200

/** POST /compact's body, as the route validated it (src/use-cases/shapes/compact.ts). */
export type CompactRequest = z.infer<typeof compactBody>
/** POST /compact's answer; its `checkpoint` only when a session was named. */
export type CompactResponse = z.infer<typeof compactResponse>

/** What compaction use cases report; the metrics plugin implements it. */
export interface CompactionMetrics {
  /** One compaction that compacted (dry runs are not reported). */
  onCompaction(event: Pick<CompactResponse['event'], 'strategy' | 'tokensBefore' | 'tokensAfter'>): void
}

/** The input of computeCompaction in the compute pool: structured-cloneable data only. */
export interface CompactTaskInput {
  request: CompactRequest
  /** The session's latest compaction round (read from storage before). */
  previousRound?: number
  /** Set when what this compaction drops is archived: references are printed, records returned. */
  archive?: { note: string }
}

/** What computeCompaction returns: the response without its checkpoint, and what to store as one. */
export interface ComputedCompaction {
  response: Omit<CompactResponse, 'checkpoint' | 'archive'>
  /** Set when a compaction was done (not a dry run): the checkpoint row to store for a session. */
  checkpoint?: CheckpointData
  /** With `archive` asked for and a compaction done: the messages it masked, summarised or dropped. */
  archive?: ArchiveRecord[]
}

function strategyList(input: CompactRequest['strategy'], config: Config): StrategyName[] {
  const list = input === undefined ? config.COMPACTION_DEFAULT_STRATEGY : Array.isArray(input) ? input : [input]
  return [...new Set(list)]
}

/**
 * The llm summarizer's provider client, or undefined when this server has none for the
 * request: no provider has a key, or the one asked for by name has none. Either way the
 * engine records an `llm` fallback saying why (summarizerUnavailable), as for no choice.
 */
function pickSummarizer(registry: SummarizerRegistry, choice: CompactRequest['summarizer']): SummarizerClient | undefined {
  if (choice && !registry.available().some((a) => a.provider === choice.provider)) return undefined
  // A configured provider's model must be one it allows: SummarizerSelectionError → 400 body.summarizer.model.
  if (choice) return registry.get(choice.provider, choice.model)
  if (registry.defaultProvider === undefined) return undefined
  return registry.get()
}

/**
 * A summarizer is the llm strategy's alone: given with a pipeline without `llm` (the
 * request's, or COMPACTION_DEFAULT_STRATEGY), it would be silently ignored, so it is a 400.
 */
function checkSummarizerUse(input: CompactRequest, strategy: readonly StrategyName[]): void {
  if (input.summarizer === undefined || pipelineNeedsLlm(strategy)) return
  const pipeline = `${input.strategy === undefined ? 'the default strategy' : 'strategy'} is ${JSON.stringify(strategy)}`
  const llm = LLM_STRATEGY_NAMES.map((name) => JSON.stringify(name)).join(' or ')
  throw new ApiError(400, 'validation_error', `body.summarizer: only the ${llm} strategy uses a summarizer, and ${pipeline}; add ${llm} to strategy or leave summarizer out`, [
    { path: 'body.summarizer', message: `needs strategy ${llm}` },
  ])
}

function checkKeepRecent(input: CompactRequest): void {
  if (input.keepRecent !== undefined && input.keepRecentTokens !== undefined) {
    throw new ApiError(400, 'validation_error', 'body.keepRecentTokens: give keepRecent or keepRecentTokens, not both', [
      { path: 'body.keepRecentTokens', message: 'mutually exclusive with keepRecent' },
    ])
  }
}

/**
 * The request's checks that need no storage, and the llm strategy's provider client when it
 * asks for one (POST /compact and the in-process library alike).
 */
export function checkedSummarizer(config: Config, registry: SummarizerRegistry, input: CompactRequest): SummarizerClient | undefined {
  checkKeepRecent(input)
  const strategy = strategyList(input.strategy, config)
  checkSummarizerUse(input, strategy)
  return pipelineNeedsLlm(strategy) ? pickSummarizer(registry, input.summarizer) : undefined
}

/**
 * The CPU part of a compaction, with no I/O of its own: parse the caller's format, turn
 * the request into CompactOptions (defaults from configuration, the target from the
 * model's threshold like /estimate), run the engine, write the result back in the
 * caller's format. Structured-cloneable in and out, so the compute pool runs it in a
 * worker thread; the llm summarizer (a provider client) only on the event loop.
 */
export async function computeCompaction(
  config: Config,
  task: CompactTaskInput,
  env: { llm?: Summarizer; signal?: AbortSignal; tokenCache?: MessageCountCache } = {},
): Promise<ComputedCompaction> {
  const input = task.request
  checkKeepRecent(input)
  checkSummarizerUse(input, strategyList(input.strategy, config))
  const conversation = parseConversation(input.messages, { format: input.format, system: input.system })
  const format = conversation.format
  const model = modelFor(config, input.model, input.contextLimit)
  const counter = defaultCounter(model, undefined, env.tokenCache)
  // The threshold is the default target; settings that leave it no room are a 400 even
  // with an explicit target, since the request then contradicts itself.
  if (input.targetTokens !== undefined) refuseSettingsWithoutRoom(config, model, input)
  const targetTokens = input.targetTokens ?? thresholdOrRefuse(config, model, input)

  // A separate `system` with OpenAI / AI SDK messages counts toward the budget (as in
  // /estimate) and is returned as given: it rides along as a pinned leading message.
  const messages = withSeparateSystem(conversation, input.system)
  const extraSystem = messages === conversation.messages ? undefined : messages[0]

  const strategy = strategyList(input.strategy, config)
  const previousRound = task.previousRound

  const clear = input.clearToolInputs
  const archiving = task.archive !== undefined && input.dryRun !== true
  const toolNames = archiving ? toolNamesOf(messages) : undefined
  const options: CompactOptions = {
    ...DEFAULT_COMPACT_OPTIONS,
    format,
    targetTokens,
    thresholdTokens: targetTokens,
    keepFirst: input.keepFirst ?? DEFAULT_COMPACT_OPTIONS.keepFirst,
    keepRecent: input.keepRecent ?? config.COMPACTION_KEEP_RECENT,
    ...(input.keepRecentTokens !== undefined ? { keepRecentTokens: input.keepRecentTokens } : {}),
    // A window the caller chose is kept whenever it fits; the default one has a share.
    recentWindowShare: input.keepRecent !== undefined || input.keepRecentTokens !== undefined ? undefined : DEFAULT_COMPACT_OPTIONS.recentWindowShare,
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
    ...(input.minGainTokens !== undefined ? { minGainTokens: input.minGainTokens } : {}),
    ...(input.pin?.length ? { pin: input.pin } : {}),
    ...(input.focus?.trim() ? { focus: input.focus.trim() } : {}),
    ...(input.thinking ? { thinking: input.thinking } : {}),
    ...(input.cache || input.cachePolicy ? { cache: cacheSettings(model, input) } : {}),
    dryRun: input.dryRun ?? false,
    onBrokenInput: input.onBrokenInput ?? DEFAULT_COMPACT_OPTIONS.onBrokenInput,
    ...(previousRound ? { previousRound } : {}),
    ...(archiving ? { references: { refOf: (m: CanonicalMessage) => archiveRecord(m, toolNames).ref, note: task.archive!.note } } : {}),
  }

  // No summarizer for an `llm` step: its fallback says why (no key for the provider asked for, or none at all).
  const llmUnavailable = env.llm ? undefined : summarizerUnavailable(config, input.summarizer)
  const result = await runCompact(env.signal, { messages, options, counter, llm: env.llm, ...(llmUnavailable ? { llmUnavailable } : {}) })
  const compactedRange = result.compacted ? result.compactedRange : undefined

  const out = extraSystem ? result.messages.filter((m) => m !== extraSystem && !(m.index === -1 && m.raw === input.system && m.role === 'system')) : result.messages
  const serialized = serializeConversation(out, format)
  const system = serialized.system !== undefined ? serialized.system : extraSystem ? input.system : undefined

  let summary: CompactResponse['summary']
  if (result.summary) {
    summary = { ...result.summary, index: locateSummary(serialized.messages, result.summary.text) }
  }

  let checkpoint: CheckpointData | undefined
  if (result.compacted && !options.dryRun) {
    const ev = result.event
    checkpoint = {
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
      targetTokens,
      model: model.id,
      durationMs: ev.durationMs,
      summaryTokens: result.summary ? ev.summaryTokens : null,
    }
  }

  return {
    response: {
      compacted: result.compacted,
      ...(result.reason !== undefined ? { reason: result.reason } : {}),
      messages: serialized.messages,
      ...(system !== undefined ? { system } : {}),
      format,
      model: model.id,
      targetTokens,
      // The engine credits only registered strategies.
      strategy: result.strategy as CompactResponse['strategy'],
      fallbacks: result.fallbacks,
      repairs: result.repairs,
      plan: result.plan,
      event: result.event,
      ...(summary ? { summary } : {}),
      ...(result.thinking ? { thinking: result.thinking } : {}),
    },
    ...(checkpoint ? { checkpoint } : {}),
    ...(checkpoint && archiving ? { archive: droppedRecords(messages, result.messages, toolNames!) } : {}),
  }
}

/**
 * The archive records of the input messages the output does not carry as they were:
 * masked, condensed, summarised or dropped. A kept message is the same object (its raw is
 * reused as is), so identity tells them apart. The system prompt is always kept, and a
 * message of an earlier round's placeholders only is not archived again (its original is).
 */
function droppedRecords(input: readonly CanonicalMessage[], output: readonly CanonicalMessage[], toolNames: ReadonlyMap<string, string>): ArchiveRecord[] {
  const kept = new Set(output.map((m) => m.raw))
  return input.filter((m) => m.index >= 0 && !kept.has(m.raw) && !isMaskedPlaceholderOnly(m)).map((m) => archiveRecord(m, toolNames))
}

/** The cache settings of a request: its prices, else the model registry's. */
function cacheSettings(model: ModelInfo, input: CompactRequest): CacheSettings {
  const c = input.cache ?? {}
  const listed = cachePricesOf(model)
  return {
    inputPrice: c.inputPrice ?? listed.inputPrice,
    cacheReadPrice: c.cacheReadPrice ?? listed.cacheReadPrice,
    cacheWritePrice: c.cacheWritePrice ?? listed.cacheWritePrice,
    ...(c.cachedPrefixTokens !== undefined ? { cachedPrefixTokens: c.cachedPrefixTokens } : {}),
    horizonTurns: c.horizonTurns ?? DEFAULT_HORIZON_TURNS,
    policy: input.cachePolicy ?? 'always',
  }
}

/**
 * Index of the summary in the serialized `messages` (Anthropic output moves system text
 * to the top-level `system` and merges same-role neighbours, so the engine's canonical
 * index can differ); -1 when it went to the top-level system.
 */
function locateSummary(messages: readonly unknown[], text: string): number {
  const escaped = JSON.stringify(text).slice(1, -1)
  for (let i = 0; i < messages.length; i++) {
    const content = (messages[i] as { content?: unknown } | null)?.content
    if (typeof content === 'string' ? content.includes(text) : JSON.stringify(content ?? '').includes(escaped)) return i
  }
  return -1
}

/**
 * compact() with the service's error handling: a client that went away is a 499, not a
 * 500; and `force` on a conversation that already fits the target, where even the
 * smallest compaction (a summary and the last turn) would be larger, is no failure: the
 * conversation comes back unchanged (200, compacted: false) with the reason, rather than
 * the engine's 422 "cannot fit N tokens" about a target the input already meets.
 */
async function runCompact(
  signal: AbortSignal | undefined,
  input: { messages: CanonicalMessage[]; options: CompactOptions; counter: ReturnType<typeof defaultCounter>; llm?: Summarizer; llmUnavailable?: string },
): Promise<CompactResult> {
  try {
    return await compact({ ...input, signal })
  } catch (err) {
    if (signal?.aborted) throw new ApiError(499, 'client_closed_request', 'the client closed the request before compaction finished')
    const { options } = input
    if (err instanceof CompactionError && err.code === 'budget_unreachable' && options.force) {
      const before = err.details.tokensBefore
      const minimum = err.details.minimumTokens
      if (typeof before === 'number' && before <= options.targetTokens) {
        // Unforced, the engine returns the input as it is (repairs applied), in the caller's format.
        const unchanged = await compact({ ...input, options: { ...options, force: false }, signal })
        if (!unchanged.compacted) {
          const smallest = typeof minimum === 'number' ? ` (a summary and the last turn alone need at least ${minimum})` : ''
          return {
            ...unchanged,
            reason: `force: the conversation (${before} tokens) already fits targetTokens ${options.targetTokens} and is smaller than any compaction of it could be${smallest}; returned unchanged`,
          }
        }
      }
    }
    throw err
  }
}

