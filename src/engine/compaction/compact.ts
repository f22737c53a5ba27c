/**
 * compact(): fit a conversation into a token budget without breaking it, as named steps:
 *
 *   verify input   tool-call pairing checked; a broken input repaired or refused
 *   classify       one reading of every message (facts/events.ts)
 *   units          format-neutral segments; head (system + task) and tail (recent) verbatim
 *   pipeline       the requested strategies resolved by the registry (strategies/index.ts)
 *   plan           cheapest first: keep shrunk → action log → summary → shrink tail → 422 (planner.ts)
 *   extract        the handover facts of the compacted range, once (facts/handover.ts)
 *   summarise      the pipeline's summarizers, then the fallbacks, each recorded (summarize.ts)
 *   assemble       head, summary (+ action log), kept middle, tail — in the caller's format
 *   verify output  pairing, budget, and that the result is smaller
 *
 * Pure: no I/O apart from the injected LLM summarizer.
 */
import { getAdapter } from '../messages/index.ts'
import type { CanonicalMessage } from '../messages/canonical.ts'
import { neutralCounter } from '../conversation/segments.ts'
import { REPLY_PRIMING_TOKENS } from '../tokens/tokenizer.ts'
import { memoizedCounter, type TokenCounter } from '../tokens/count.ts'
import { assemble, type Assembly } from './assemble.ts'
import { layoutOf, splitMergedTurns } from './layout.ts'
import { compacted, dryRun, thinnedOnly, untouched, type Run } from './outcome.ts'
import { cacheEconomics, keptPrefixTokens, unprofitable } from './cache-economics.ts'
import { applyThinkingPolicy, type ThinkingOutcome, type ThinkingPolicy } from './transforms/thinking.ts'
import type { Plan } from './plan.ts'
import { Planner } from './planner.ts'
import { pipelineNeedsLlm, resolvePipeline } from './strategies/index.ts'
import { summariseRange, type SummaryState } from './summarize.ts'
import { checkInput, CompactionError } from './verify.ts'
import type { CompactOptions, CompactResult, FallbackRecord, Summarizer, ThinkingReport } from './types.ts'

export { CompactionError }
export { smallestTarget } from './planner.ts'

export interface CompactInput {
  messages: CanonicalMessage[]
  options: CompactOptions
  counter: TokenCounter
  /** The llm strategy's summarizer, when the server has one configured. */
  llm?: Summarizer
  /** Without `llm`: why there is none, for the `llm` fallback's reason (default: none is configured). */
  llmUnavailable?: string
  signal?: AbortSignal
  /** Clock for durationMs (tests). */
  now?: () => number
}

/** Re-plans allowed when the real count in the caller's format exceeds the neutral plan. */
const REPLANS = 3

export async function compact(given: CompactInput): Promise<CompactResult> {
  // Each text counted once however many steps ask (tokens/count.ts memoizedCounter).
  const input: CompactInput = { ...given, counter: memoizedCounter(given.counter) }
  const now = input.now ?? (() => performance.now())
  const started = now()
  const { options, counter } = input
  const adapter = getAdapter(options.format)
  // One count per message serves the real total and the format-neutral plan.
  const nc = neutralCounter(counter)
  const tokensOf = (m: CanonicalMessage) => nc.actual(m)
  const total = (ms: readonly CanonicalMessage[]) => (ms.length ? ms.reduce((a, m) => a + tokensOf(m), 0) + REPLY_PRIMING_TOKENS : 0)

  // verify input
  const tokensBefore = total(input.messages)
  const { messages: checked, repairs } = checkInput(input.messages, adapter, options.onBrokenInput)
  const run: Run = { checked, repairs, tokensBefore, total, tokensOf, durationMs: () => Math.max(0, Math.round(now() - started)) }
  if (checked.length === 0) return untouched(run, 'empty conversation')
  // thinking policy: earlier turns' reasoning goes first, before anything the agent wrote or read
  const thinking = applyThinkingPolicy(checked, options.thinking, adapter, { pinned: new Set(options.pin ?? []), tokensOf })
  const report = options.thinking ? thinkingReport(options.thinking, thinking) : undefined
  const withReport = (r: CompactResult): CompactResult => (report ? { ...r, thinking: report } : r)
  const thinned = total(thinking.messages)
  if (thinned <= options.targetTokens && !options.force) {
    if (thinking.messagesChanged === 0) return withReport(untouched(run, `${tokensBefore} tokens already fit the target of ${options.targetTokens}`))
    if (options.dryRun) return withReport(untouched(run, 'dry run: nothing was changed and no model was called'))
    if (options.minGainTokens && tokensBefore - thinned < options.minGainTokens) return withReport(untouched(run, smallGain(tokensBefore - thinned, options.minGainTokens, 'would')))
    return withReport(priced(run, options, thinnedOnly(run, thinking.messages, thinking.messagesChanged, `thinking policy: ${thinking.blocksDropped} reasoning blocks of earlier turns dropped (${thinking.tokensFreed} tokens); the rest fits the target of ${options.targetTokens}`)))
  }
  return withReport(priced(run, options, await compactThinned(input, run, thinking.messages, { adapter, nc })))
}

/** With `cache`: the result's economics in its event; a compaction that does not pay is not made under `when-profitable`. */
function priced(run: Run, options: CompactOptions, result: CompactResult): CompactResult {
  if (!options.cache || !result.compacted || result.event.cache) return result
  const economics = cacheEconomics(options.cache, {
    tokensBefore: run.tokensBefore,
    tokensAfter: result.event.tokensAfter,
    keptPrefixTokens: keptPrefixTokens(run.checked, result.messages, run.tokensOf),
    summarizerCostUsd: result.event.costUsd,
    estimated: false,
  })
  if (options.cache.policy === 'when-profitable' && !economics.profitable) {
    const refused = untouched(run, unprofitable(economics))
    return { ...refused, event: { ...refused.event, cache: economics } }
  }
  return { ...result, event: { ...result.event, cache: economics } }
}

interface Context {
  adapter: ReturnType<typeof getAdapter>
  nc: ReturnType<typeof neutralCounter>
}

/** The pipeline's part: plan, summarise, assemble the (thinned) conversation. */
async function compactThinned(input: CompactInput, run: Run, thinned: CanonicalMessage[], { adapter, nc }: Context): Promise<CompactResult> {
  const { options, counter } = input
  const { tokensBefore, total } = run

  // classify + units (an earlier summary merged into the task's message is its own message, as in every format)
  const messages = splitMergedTurns(thinned)
  const layout = layoutOf(messages, nc, options)
  const earlierRounds = layout.events.flatMap((e) => (e.kind === 'earlier-summary' ? [e.summary.round ?? 1] : []))
  const round = Math.max(0, options.previousRound ?? 0, ...earlierRounds) + 1

  // pipeline + plan, then summarise and assemble; again with less room while the caller's format counts more than the plan
  const pipeline = resolvePipeline(options.strategy)
  const planner = new Planner({ messages, layout, pipeline, options, adapter, counter, nc })
  const summarised: SummaryState = { tailStart: -1, carried: planner.previousLog }
  const fallbacks: FallbackRecord[] = []
  const env = { ...(input.llm ? { llm: input.llm } : {}), ...(input.llmUnavailable ? { llmUnavailable: input.llmUnavailable } : {}) }
  let target = options.targetTokens
  let plan: Plan | undefined
  let assembly: Assembly | undefined
  for (let attempt = 0; attempt <= REPLANS && !assembly; attempt++) {
    // Once a summary exists, later re-plans keep its size and the lines it carries into the log.
    const aroundSummary = summarised.reserve && summarised.summary ? planner.plan(target, summarised.reserve, summarised.carried) : null
    plan = aroundSummary ?? planner.plan(target, planner.reserves) ?? undefined
    if (!plan) throw planner.unreachable(tokensBefore)
    if (options.dryRun) return dryRun(run, planner, pipeline, plan, round)
    // Before a summarizer is paid for: a plan that cannot save minGainTokens is not made.
    const estimatedGain = tokensBefore - (plan.estimatedTokens + REPLY_PRIMING_TOKENS)
    if (options.minGainTokens && estimatedGain < options.minGainTokens) return untouched(run, smallGain(estimatedGain, options.minGainTokens, 'would'))
    if (options.cache?.policy === 'when-profitable') {
      const estimate = cacheEconomics(options.cache, { tokensBefore, tokensAfter: plan.estimatedTokens + REPLY_PRIMING_TOKENS, keptPrefixTokens: planner.headTokens, summarizerCostUsd: 0, estimated: true })
      if (!estimate.profitable) {
        const refused = untouched(run, unprofitable(estimate))
        return { ...refused, event: { ...refused.event, cache: estimate } }
      }
    }
    if (plan.summary && (!summarised.summary || summarised.tailStart !== plan.tailStart)) {
      // A model's summary may grow into the room the head, the tail and the kept turns leave
      // unused; the rules summary has nothing more to say there (planner.ts withRoom).
      const grows = input.llm !== undefined && pipelineNeedsLlm(options.strategy)
      plan = await summariseRange(grows ? planner.withRoom(plan, target) : plan, summarised, { planner, layout, pipeline, options, env, adapter, nc, round, target, fallbacks, signal: input.signal })
    }
    const { segments, headEnd, kept, verbatim, earlier, logLines } = planner
    assembly = assemble({ plan, segments, headEnd, adapter, role: options.summaryRole ?? 'user', summaryText: summarised.summary?.text, kept, verbatim, earlier, logLines, previousLog: summarised.carried, target: options.targetTokens, total, ...referenceBudget(options, counter) })
    if (assembly.tokens > options.targetTokens) {
      target -= assembly.tokens - options.targetTokens + Math.ceil(options.targetTokens * 0.01)
      assembly = undefined
    }
  }
  if (!assembly || !plan) throw new Error(`internal: no plan fitted ${options.targetTokens} tokens in the caller's format after ${REPLANS} re-plans`)
  if (assembly.tokens >= tokensBefore) return untouched(run, `compaction would not make the conversation smaller (${assembly.tokens} ≥ ${tokensBefore} tokens)`)
  if (options.minGainTokens && tokensBefore - assembly.tokens < options.minGainTokens) return untouched(run, smallGain(tokensBefore - assembly.tokens, options.minGainTokens, 'did'))
  return compacted(run, planner, pipeline, { plan, assembly, summary: summarised, round, options, fallbacks })
}

function thinkingReport(policy: ThinkingPolicy, t: ThinkingOutcome): ThinkingReport {
  return { keep: policy.keep, blocksDropped: t.blocksDropped, messagesChanged: t.messagesChanged, keptForProvider: t.keptForProvider, tokensFreed: t.tokensFreed }
}

/** Why a compaction saving less than minGainTokens was not made. */
function smallGain(gain: number, min: number, verb: 'would' | 'did'): string {
  return `minGainTokens: the compaction ${verb === 'would' ? 'would save' : 'saved'} ${Math.max(0, gain)} tokens, fewer than ${min}; returned unchanged (no cache break for a small saving)`
}

/**
 * The share of a summary that archive references may take (the note and the log lines'
 * refs): issue 21 keeps it under 3%, measured in docs/quality.md.
 */
export const REFERENCE_SHARE = 0.03

function referenceBudget(options: CompactOptions, counter: TokenCounter): { references?: { share: number; noteTokens: number } } {
  if (!options.references) return {}
  return { references: { share: REFERENCE_SHARE, noteTokens: Math.ceil(counter.text(options.references.note) * counter.margin) + 1 } }
}
