/**
 * What compact() returns, for each way it ends: the conversation untouched (it fits, it is
 * empty, a dry run, or compaction would not make it smaller), or compacted, with the plan
 * described range by range.
 */
import type { CanonicalMessage } from '../messages/canonical.ts'
import { REPLY_PRIMING_TOKENS } from '../tokens/tokenizer.ts'
import type { Assembly } from './assemble.ts'
import type { Plan } from './plan.ts'
import type { Planner } from './planner.ts'
import type { Pipeline } from './strategies/index.ts'
import type { SummaryState } from './summarize.ts'
import type { CompactionEvent, CompactOptions, CompactResult, PlanRange, RepairRecord } from './types.ts'

type Segments = Planner['segments']

/** What every outcome reports: the input as checked, its size, and the time taken. */
export interface Run {
  checked: CanonicalMessage[]
  repairs: RepairRecord[]
  tokensBefore: number
  total(messages: readonly CanonicalMessage[]): number
  /** One message's real tokens. */
  tokensOf(message: CanonicalMessage): number
  durationMs(): number
}

export function untouched(run: Run, reason: string): CompactResult {
  const { checked, tokensBefore } = run
  return {
    compacted: false,
    reason,
    messages: checked,
    strategy: 'none',
    fallbacks: [],
    repairs: run.repairs,
    plan: checked.length ? [{ from: checked[0]!.index, to: checked.at(-1)!.index, action: 'keep', reason }] : [],
    event: { round: 0, tokensBefore, tokensAfter: run.total(checked), compressionRatio: 1, messagesCompacted: 0, strategy: 'none', summaryTokens: 0, summaryRoomTokens: 0, costUsd: 0, durationMs: run.durationMs() },
  }
}

/** Only the thinking policy changed the conversation, and that was enough: no strategy ran. */
export function thinnedOnly(run: Run, messages: CanonicalMessage[], changed: number, reason: string): CompactResult {
  const { tokensBefore } = run
  const tokensAfter = run.total(messages)
  return {
    ...untouched(run, reason),
    compacted: true,
    messages,
    event: { ...untouched(run, reason).event, tokensAfter, compressionRatio: ratio(tokensBefore, tokensAfter), messagesCompacted: changed },
  }
}

/** A dry run: the plan and its estimate; nothing changed and no model called. */
export function dryRun(run: Run, planner: Planner, pipeline: Pipeline, plan: Plan, round: number): CompactResult {
  const { tokensBefore } = run
  const estimatedTokens = plan.estimatedTokens + REPLY_PRIMING_TOKENS
  return {
    ...untouched(run, 'dry run: nothing was changed and no model was called'),
    strategy: plan.summary ? pipeline.summaryBy : pipeline.keptBy,
    fallbacks: plan.maskFellShort ? [{ strategy: pipeline.keptBy, reason: 'masking alone would not reach the budget' }] : [],
    plan: describePlan(planner, plan, pipeline),
    event: {
      round,
      tokensBefore,
      tokensAfter: estimatedTokens,
      compressionRatio: ratio(tokensBefore, estimatedTokens),
      messagesCompacted: compactedCount(planner.segments, planner.headEnd, plan),
      strategy: 'none',
      summaryTokens: plan.summary ? plan.summaryReserve : 0,
      summaryRoomTokens: plan.summary ? Math.max(0, planner.target - (estimatedTokens - plan.summaryReserve)) : 0,
      costUsd: 0,
      durationMs: run.durationMs(),
    },
  }
}

export interface Compacted {
  plan: Plan
  assembly: Assembly
  summary: SummaryState
  round: number
  options: CompactOptions
  fallbacks: CompactResult['fallbacks']
}

export function compacted(run: Run, planner: Planner, pipeline: Pipeline, c: Compacted): CompactResult {
  const { plan, assembly, options } = c
  const { segments, headEnd, messages } = planner
  const { summary } = c.summary
  const strategy = c.summary.by ?? pipeline.keptBy
  const summaryMessage = assembly.summaryIndex >= 0 ? assembly.messages[assembly.summaryIndex]! : undefined
  const compactedRange = plan.tailStart > headEnd ? { from: messages[segments[headEnd]!.start]!.index, to: messages[segments[plan.tailStart - 1]!.end]!.index } : undefined
  const event: CompactionEvent = {
    round: c.round,
    tokensBefore: run.tokensBefore,
    tokensAfter: assembly.tokens,
    compressionRatio: ratio(run.tokensBefore, assembly.tokens),
    messagesCompacted: compactedCount(segments, headEnd, plan),
    strategy,
    // The whole summary message as sent: sections, action log and message overhead.
    summaryTokens: summaryMessage ? run.tokensOf(summaryMessage) : 0,
    // What the target left it: the budget less the rest of the output.
    summaryRoomTokens: summaryMessage ? Math.max(0, options.targetTokens - (assembly.tokens - run.tokensOf(summaryMessage))) : 0,
    costUsd: summary?.costUsd ?? 0,
    durationMs: run.durationMs(),
  }
  return {
    compacted: true,
    messages: assembly.messages,
    strategy,
    fallbacks: c.fallbacks,
    repairs: run.repairs,
    plan: describePlan(planner, plan, pipeline),
    event,
    ...(summary && summaryMessage ? { summary: { text: assembly.summaryText!, keyFacts: summary.keyFacts, role: options.summaryRole ?? 'user', index: assembly.summaryIndex } } : {}),
    ...(compactedRange ? { compactedRange } : {}),
  }
}

function ratio(before: number, after: number): number {
  return after > 0 ? Math.round((before / after) * 100) / 100 : 0
}

function compactedCount(segments: Segments, headEnd: number, plan: Plan): number {
  let n = 0
  for (let si = headEnd; si < segments.length; si++) {
    const s = segments[si]!
    if (si >= plan.tailStart && !plan.condenseTail) break
    if (!s.pinned) n += s.end - s.start + 1
  }
  return n
}

function describePlan(planner: Planner, plan: Plan, pipeline: Pipeline): PlanRange[] {
  const { segments, headEnd, messages } = planner
  const ranges: PlanRange[] = []
  const add = (si: number, action: PlanRange['action'], reason: string) => {
    const s = segments[si]!
    const last = ranges.at(-1)
    if (last && last.action === action && last.reason === reason) last.to = messages[s.end]!.index
    else ranges.push({ from: messages[s.start]!.index, to: messages[s.end]!.index, action, reason })
  }
  const inRange = (si: number, r: [number, number] | null) => r !== null && si >= r[0] && si < r[1]
  const kept = pipeline.kept
  for (let si = 0; si < segments.length; si++) {
    if (si < headEnd) add(si, 'keep', 'system prompt and original task')
    else if (si >= plan.tailStart) add(si, plan.condenseTail ? 'condense' : 'keep', plan.condenseTail ? 'last turn condensed: nothing else fits' : 'recent messages')
    else if (segments[si]!.pinned) add(si, 'keep', segments[si]!.systemOnly ? 'system message' : 'pinned')
    else if (inRange(si, plan.keep)) add(si, kept?.action ?? 'keep', kept?.reason ?? 'kept as it was')
    else if (inRange(si, plan.log)) add(si, 'summarize', "one-line digests in the summary's action log")
    else add(si, 'summarize', 'older messages, replaced by the summary')
  }
  return ranges
}
