/**
 * compact(): fit a conversation into a token budget without breaking it, as named steps:
 *
 *   verify input   tool-call pairing checked; a broken input repaired or refused
 *   classify       one reading of every message (facts/events.ts)
 *   units          format-neutral segments; head (system + task) and tail (recent) verbatim
 *   plan           cheapest first: mask → condense → action log → summary → shrink tail → 422
 *   extract        the handover facts of the compacted range, once (facts/handover.ts)
 *   summarise      llm → rules → truncate, fallbacks recorded
 *   assemble       head, summary (+ action log), kept middle, tail — in the caller's format
 *   verify output  pairing, budget, and that the result is smaller
 *
 * Pure: no I/O apart from the injected LLM summarizer.
 */
import { getAdapter } from '../messages/index.ts'
import type { CanonicalMessage } from '../messages/canonical.ts'
import { EVENT_OVERHEAD, neutralCounter } from '../conversation/segments.ts'
import { extractHandover } from '../facts/handover.ts'
import { IMPORTANCE } from '../facts/importance.ts'
import { REPLY_PRIMING_TOKENS } from '../tokens/tokenizer.ts'
import { ACTION_LOG_HEADER, overflowAlreadyLogged, previousActionLog, repeatsSummary, segmentLogLines, type LogLine } from './action-log.ts'
import { assemble, type Assembly } from './assemble.ts'
import { layoutOf, splitMergedTurns } from './layout.ts'
import { makePlan, type Plan } from './plan.ts'
import { summarizeWithFallbacks, summarizerChain } from './summarize.ts'
import { condenseRange } from './transforms/condense.ts'
import { maskRange, recentResultIds, type MaskOptions } from './transforms/mask.ts'
import { checkInput, CompactionError } from './verify.ts'
import type { CompactOptions, CompactResult, FallbackRecord, PlanRange, StrategyName, Summarizer, SummaryResult } from './types.ts'

export { CompactionError }

export interface CompactInput {
  messages: CanonicalMessage[]
  options: CompactOptions
  counter: import('../tokens/count.ts').TokenCounter
  /** The llm strategy's summarizer, when the server has one configured. */
  llm?: Summarizer
  /** Without `llm`: why there is none, for the `llm` fallback's reason (default: none is configured). */
  llmUnavailable?: string
  signal?: AbortSignal
  /** Clock for durationMs (tests). */
  now?: () => number
}

/** Fraction of the target the summary sections may take at most; the action log uses the rest. */
const SUMMARY_SHARE = 0.15
const SMALL_SUMMARY_SHARE = 0.1
/** Largest share of the budget a tail may keep once it had to shrink. */
const SHRUNK_TAIL_SHARE = 0.5
/** A summary budget under this many tokens cannot say anything useful. */
const MIN_SUMMARY_TOKENS = 40
/** Tokens held back from planning for layout differences between formats. */
const PLAN_RESERVE = 16
/** Re-plans allowed when the real count in the caller's format exceeds the neutral plan. */
const REPLANS = 3

export async function compact(input: CompactInput): Promise<CompactResult> {
  const now = input.now ?? (() => performance.now())
  const started = now()
  const duration = () => Math.max(0, Math.round(now() - started))
  const { options, counter } = input
  const adapter = getAdapter(options.format)
  // One count per message serves the real total and the format-neutral plan.
  const nc = neutralCounter(counter)
  const tokensOf = (m: CanonicalMessage) => nc.actual(m)
  const total = (ms: readonly CanonicalMessage[]) => (ms.length ? ms.reduce((a, m) => a + tokensOf(m), 0) + REPLY_PRIMING_TOKENS : 0)

  // verify input
  const tokensBefore = total(input.messages)
  const { messages: checked, repairs } = checkInput(input.messages, adapter, options.onBrokenInput)
  const untouched = (reason: string): CompactResult => ({
    compacted: false,
    reason,
    messages: checked,
    strategy: 'none',
    fallbacks: [],
    repairs,
    plan: checked.length ? [{ from: checked[0]!.index, to: checked.at(-1)!.index, action: 'keep', reason }] : [],
    event: { round: 0, tokensBefore, tokensAfter: total(checked), compressionRatio: 1, messagesCompacted: 0, strategy: 'none', summaryTokens: 0, costUsd: 0, durationMs: duration() },
  })
  if (checked.length === 0) return untouched('empty conversation')
  if (tokensBefore <= options.targetTokens && !options.force) return untouched(`${tokensBefore} tokens already fit the target of ${options.targetTokens}`)

  // classify + units (an earlier summary merged into the task's message is its own message, as in every format)
  const messages = splitMergedTurns(checked)
  const layout = layoutOf(messages, nc, options)
  const { segments, headEnd } = layout
  const earlierRounds = layout.events.flatMap((e) => (e.kind === 'earlier-summary' ? [e.summary.round ?? 1] : []))
  const round = Math.max(0, options.previousRound ?? 0, ...earlierRounds) + 1
  // Counted as one run: Anthropic merges the head's user messages around system text into one.
  const headTokens = nc.tokens(segments.slice(0, headEnd).flatMap((s) => s.messages))

  // plan
  const level: 'none' | 'mask' | 'condense' = options.strategy.includes('mask') ? (options.strategy.includes('rules') ? 'condense' : 'mask') : 'none'
  const wantsSummary = options.strategy.some((s) => s !== 'mask')
  // The sections' budget: up to SUMMARY_SHARE of the target, and before the verbatim tail
  // has to shrink, down to SMALL_SUMMARY_SHARE (the tail matters more than the last sections).
  const summaryBudget = Math.min(options.maxSummaryTokens, Math.floor(options.targetTokens * SUMMARY_SHARE))
  const smallSummaryBudget = Math.min(summaryBudget, Math.floor(options.targetTokens * SMALL_SUMMARY_SHARE))
  const summaryOverhead = Math.ceil(EVENT_OVERHEAD * counter.margin)
  const maskOpts: MaskOptions = { keepToolResults: options.keepToolResults, excludeTools: options.excludeTools, clearToolInputsOver: options.clearToolInputsOver, preserveErrorDetails: options.preserveErrorDetails }
  const exempt = recentResultIds(messages, options.keepToolResults)
  const keptCache = new Map<number, { messages: CanonicalMessage[]; tokens: number }>()
  const kept = (si: number, lastResort = false) => {
    const key = lastResort ? -1 - si : si
    let hit = keptCache.get(key)
    if (!hit) {
      const s = segments[si]!
      const out =
        level === 'condense' || lastResort
          ? condenseRange(messages, s.start, s.end + 1, adapter, counter, maskOpts, lastResort ? new Set() : exempt)
          : maskRange(messages, s.start, s.end + 1, adapter, counter, maskOpts, exempt).messages
      hit = { messages: out, tokens: nc.tokens(out) }
      keptCache.set(key, hit)
    }
    return hit
  }
  const lineTokens = (l: string) => Math.ceil(counter.text(l) * counter.margin) + 1
  const logCache = new Map<number, LogLine[]>()
  // Once the sections exist, a log line that only repeats what they say (an instruction they
  // quote, a file creation their file rows list) is left out: its room goes to what the
  // sections could not hold.
  let repeatsSections: ((line: LogLine) => boolean) | undefined
  const unrepeated = new Map<number, LogLine[]>()
  const logLines = (si: number) => {
    let hit = logCache.get(si)
    if (!hit) logCache.set(si, (hit = segmentLogLines(segments[si]!.messages, si, { preserveErrorDetails: options.preserveErrorDetails, lineTokens })))
    if (!repeatsSections) return hit
    let left = unrepeated.get(si)
    if (!left) unrepeated.set(si, (left = hit.filter((l) => !repeatsSections!(l))))
    return left
  }
  const earlierSegment = (si: number) => segments[si]!.earlierSummary && !segments[si]!.toolWork && !segments[si]!.instruction
  const lastCompactd = [...layout.events].reverse().find((e) => e.kind === 'earlier-summary' && e.summary.source === 'compactd')
  const previousLog: LogLine[] =
    lastCompactd?.kind === 'earlier-summary' ? previousActionLog(lastCompactd.summary.text).map((text, k) => ({ text, priority: IMPORTANCE.earlier - 10, tokens: lineTokens(text), key: `p:${k}` })) : []

  let plan: Plan | null = null
  let target = options.targetTokens
  let assembly: Assembly | undefined
  const fallbacks: FallbackRecord[] = []
  let summary: SummaryResult | undefined
  let summaryBy: Exclude<StrategyName, 'mask'> | undefined
  /** Section reserves for a target, largest first (none when even the small one says nothing useful). */
  const reservesFor = (target: number) => {
    const full = Math.min(options.maxSummaryTokens, Math.floor(target * SUMMARY_SHARE))
    const small = Math.min(full, Math.floor(target * SMALL_SUMMARY_SHARE))
    return [full, small].filter((b, k, all) => b >= MIN_SUMMARY_TOKENS && all.indexOf(b) === k).map((b) => b + summaryOverhead)
  }
  const reserves = reservesFor(options.targetTokens)
  const planWith = (target: number, summaryReserves: readonly number[], carried: readonly LogLine[] = previousLog) =>
    makePlan({
      segmentCount: segments.length,
      headEnd,
      initialTailStart: layout.tailStart,
      // A small reserve absorbs what the caller's layout counts beyond the neutral count
      // (extra system messages, pretty-printed arguments) without a format-specific re-plan.
      target: target - REPLY_PRIMING_TOKENS - PLAN_RESERVE - Math.ceil(target * 0.005),
      headTokens,
      summaryReserves,
      wantsSummary,
      level,
      useLog: level === 'condense' && wantsSummary,
      logHeaderTokens: lineTokens(ACTION_LOG_HEADER) + 2,
      shrunkTailShare: SHRUNK_TAIL_SHARE,
      verbatimTokens: (si) => segments[si]!.tokens,
      keptTokens: (si, lastResort) => kept(si, lastResort).tokens,
      pinned: (si) => segments[si]!.systemOnly,
      earlier: earlierSegment,
      logLines,
      previousLog: carried,
      lowValueBelow: IMPORTANCE.test,
    })
  let summarizedTail = -1
  // Lines the log carries before the segments' own: facts the summary sections had no room
  // for, then an earlier compactd round's log.
  let carried: LogLine[] = previousLog
  let summaryReserve: number[] | undefined
  for (let attempt = 0; attempt <= REPLANS; attempt++) {
    // Once a summary exists, later re-plans keep its size and the lines it carries into the log.
    plan = summaryReserve && summary ? (planWith(target, summaryReserve, carried) ?? planWith(target, reserves)) : planWith(target, reserves)
    if (!plan) {
      // Unforced, a target the conversation already fits returns it unchanged: the true
      // minimum is never more than its own size.
      const minimum = smallestTarget((t) => planWith(t, reservesFor(t)) !== null, options.targetTokens, options.force ? undefined : tokensBefore)
      const last = segments.length - 1
      const target = options.targetTokens
      const message =
        minimum === undefined
          ? `cannot fit ${target} tokens: nothing in the conversation can be compacted (the system prompt and the first task message are kept verbatim, and they are all of it)`
          : !options.force && minimum >= tokensBefore
            ? `cannot fit ${target} tokens: the conversation needs at least ${minimum}, its own size: no compaction of it is smaller (the system prompt and the first task message are kept verbatim${headEnd >= segments.length ? ', and they are all of it' : ', and a summary with the last turn would be larger than what it replaces'})`
            : `cannot fit ${target} tokens: the system prompt, the first task message, a summary and the last turn need at least ${minimum}, even with everything else summarised and the last turn condensed`
      throw new CompactionError('budget_unreachable', message, {
        targetTokens: target,
        tokensBefore,
        ...(minimum !== undefined ? { minimumTokens: minimum } : {}),
        headTokens,
        summaryTokens: smallSummaryBudget + summaryOverhead,
        lastTurnTokens: segments[last]!.tokens,
      })
    }
    if (options.dryRun) break

    // extract + summarise, once per compacted range
    if (plan.summary && (!summary || summarizedTail !== plan.tailStart)) {
      summarizedTail = plan.tailStart
      if (plan.maskFellShort) fallbacks.push({ strategy: 'mask', reason: 'masking alone did not reach the budget' })
      const inRange: number[] = []
      for (let si = headEnd; si < plan.tailStart; si++) if (!segments[si]!.systemOnly) inRange.push(si)
      const facts = extractHandover(inRange.flatMap((si) => segments[si]!.messages), { preserveErrorDetails: options.preserveErrorDetails, later: segments.slice(plan.tailStart).flatMap((s) => s.messages) })
      const headInstruction = layout.events.find((e) => e.kind === 'instruction' && e.position <= (segments[headEnd - 1]?.end ?? -1))
      const originalTask = headInstruction?.kind === 'instruction' ? headInstruction.text : ''
      const previous = [...layout.events].reverse().find((e) => e.kind === 'earlier-summary')
      const outcome = await summarizeWithFallbacks(
        summarizerChain(options.strategy, input.llm, fallbacks, input.llmUnavailable),
        {
          // Earlier summaries reach the summarizer as facts.earlier and previousSummary, not as messages.
          messages: inRange.filter((si) => !earlierSegment(si)).flatMap((si) => segments[si]!.messages),
          facts,
          ...(previous?.kind === 'earlier-summary' ? { previousSummary: { round: previous.summary.round ?? 1, text: previous.summary.text, index: messages[previous.position]!.index } } : {}),
          originalTask,
          round,
          budgetTokens: plan.summaryReserve - summaryOverhead,
          counter,
          preserveErrorDetails: options.preserveErrorDetails,
          instructions: options.instructions,
          instructionsMode: options.instructionsMode,
          signal: input.signal,
        },
        fallbacks,
      )
      summary = outcome?.summary
      summaryBy = outcome?.by
      repeatsSections = summary && repeatsSummary(summary.text)
      unrepeated.clear()
      // The sections rarely use their whole reserve: plan the log again with what they took,
      // as long as the compacted range (and so the summary) stays the same.
      if (summary) {
        // With a log, a segment of the range is either logged or kept condensed, and both say
        // its failures; without one (rules alone), the overflow is the only place they appear.
        const logged = level === 'condense' ? inRange.flatMap((si) => logLines(si).map((l) => l.text)).join('\n') : ''
        const overflow = (summary.overflow ?? [])
          .filter((l) => !overflowAlreadyLogged(l.text, logged))
          .map((l, k) => ({ text: l.text, priority: l.priority, tokens: lineTokens(l.text), key: `o:${k}` }))
        const withOverflow = [...overflow, ...previousLog]
        const used = [nc.tokens([adapter.createTextMessage('user', summary.text)]) + summaryOverhead]
        const reflowed = planWith(target, used, withOverflow)
        if (reflowed && reflowed.tailStart === plan.tailStart && reflowed.summary) {
          plan = reflowed
          carried = withOverflow
          summaryReserve = used
        }
      }
    }
    assembly = assemble({ plan, segments, headEnd, adapter, role: options.summaryRole ?? 'user', summaryText: summary?.text, kept, earlier: earlierSegment, logLines, previousLog: carried, target: options.targetTokens, total })
    if (assembly.tokens <= options.targetTokens) break
    // The caller's format counts more than the neutral plan did: plan again with less room.
    target -= assembly.tokens - options.targetTokens + Math.ceil(options.targetTokens * 0.01)
    assembly = undefined
  }
  plan = plan!
  const planRanges = describePlan(messages, segments, headEnd, plan, level)
  if (options.dryRun) {
    return {
      ...untouched('dry run: nothing was changed and no model was called'),
      strategy: plan.summary ? (options.strategy.find((s) => s !== 'mask') ?? 'rules') : 'mask',
      fallbacks: plan.maskFellShort ? [{ strategy: 'mask', reason: 'masking alone would not reach the budget' }] : [],
      plan: planRanges,
      event: { round, tokensBefore, tokensAfter: plan.estimatedTokens + REPLY_PRIMING_TOKENS, compressionRatio: ratio(tokensBefore, plan.estimatedTokens + REPLY_PRIMING_TOKENS), messagesCompacted: compactedCount(segments, headEnd, plan), strategy: 'none', summaryTokens: plan.summary ? plan.summaryReserve : 0, costUsd: 0, durationMs: duration() },
    }
  }
  if (!assembly) throw new Error(`internal: no plan fitted ${options.targetTokens} tokens in the caller's format after ${REPLANS} re-plans`)
  if (assembly.tokens >= tokensBefore) return untouched(`compaction would not make the conversation smaller (${assembly.tokens} ≥ ${tokensBefore} tokens)`)

  const strategy: StrategyName = summaryBy ?? 'mask'
  const summaryMessage = assembly.summaryIndex >= 0 ? assembly.messages[assembly.summaryIndex]! : undefined
  const compactedRange = plan.tailStart > headEnd ? { from: messages[segments[headEnd]!.start]!.index, to: messages[segments[plan.tailStart - 1]!.end]!.index } : undefined
  return {
    compacted: true,
    messages: assembly.messages,
    strategy,
    fallbacks,
    repairs,
    plan: planRanges,
    event: {
      round,
      tokensBefore,
      tokensAfter: assembly.tokens,
      compressionRatio: ratio(tokensBefore, assembly.tokens),
      messagesCompacted: compactedCount(segments, headEnd, plan),
      strategy,
      // The whole summary message as sent: sections, action log and message overhead.
      summaryTokens: summaryMessage ? tokensOf(summaryMessage) : 0,
      costUsd: summary?.costUsd ?? 0,
      durationMs: duration(),
    },
    ...(summary && summaryMessage ? { summary: { text: assembly.summaryText!, keyFacts: summary.keyFacts, role: options.summaryRole ?? 'user', index: assembly.summaryIndex } } : {}),
    ...(compactedRange ? { compactedRange } : {}),
  }
}

/**
 * The smallest target a plan exists for (plans only: no summary is made), above `refused`
 * (known infeasible). `fitsAt`: a target from which the request succeeds anyway (the
 * conversation's own size, when it is returned unchanged): the search is a bisection
 * below it. Without one, doubling first, then bisection; undefined when no target up to
 * 2^40 times the refused one has a plan (nothing can be compacted). The doubling's last
 * bound was returned unchecked before: 64 × 2^40 = 70368744177664 tokens "needed" for
 * a conversation that is all head (system prompt and first task).
 */
export function smallestTarget(feasible: (target: number) => boolean, refused: number, fitsAt?: number): number | undefined {
  let lo = refused
  let hi: number
  if (fitsAt !== undefined && fitsAt > refused) hi = fitsAt
  else {
    hi = Math.max(refused * 2, 64)
    let found = feasible(hi)
    for (let k = 0; k < 40 && !found; k++) {
      lo = hi
      hi *= 2
      found = feasible(hi)
    }
    if (!found) return undefined
  }
  const ok = (t: number) => (fitsAt !== undefined && t >= fitsAt) || feasible(t)
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2)
    if (ok(mid)) hi = mid
    else lo = mid
  }
  return hi
}

function ratio(before: number, after: number): number {
  return after > 0 ? Math.round((before / after) * 100) / 100 : 0
}

function compactedCount(segments: readonly { start: number; end: number; systemOnly: boolean }[], headEnd: number, plan: Plan): number {
  let n = 0
  for (let si = headEnd; si < segments.length; si++) {
    const s = segments[si]!
    if (si >= plan.tailStart && !plan.condenseTail) break
    if (!s.systemOnly) n += s.end - s.start + 1
  }
  return n
}

function describePlan(messages: readonly CanonicalMessage[], segments: readonly { start: number; end: number; systemOnly: boolean }[], headEnd: number, plan: Plan, level: 'none' | 'mask' | 'condense'): PlanRange[] {
  const ranges: PlanRange[] = []
  const add = (si: number, action: PlanRange['action'], reason: string) => {
    const s = segments[si]!
    const last = ranges.at(-1)
    if (last && last.action === action && last.reason === reason) last.to = messages[s.end]!.index
    else ranges.push({ from: messages[s.start]!.index, to: messages[s.end]!.index, action, reason })
  }
  const inRange = (si: number, r: [number, number] | null) => r !== null && si >= r[0] && si < r[1]
  const keptAction = level === 'condense' ? 'condense' : 'mask'
  for (let si = 0; si < segments.length; si++) {
    if (si < headEnd) add(si, 'keep', 'system prompt and original task')
    else if (si >= plan.tailStart) add(si, plan.condenseTail ? 'condense' : 'keep', plan.condenseTail ? 'last turn condensed: nothing else fits' : 'recent messages')
    else if (segments[si]!.systemOnly) add(si, 'keep', 'system message')
    else if (inRange(si, plan.keep)) add(si, keptAction, keptAction === 'condense' ? 'tool results masked, inputs and prose condensed' : 'tool results masked')
    else if (inRange(si, plan.log)) add(si, 'summarize', "one-line digests in the summary's action log")
    else add(si, 'summarize', 'older messages, replaced by the summary')
  }
  return ranges
}
