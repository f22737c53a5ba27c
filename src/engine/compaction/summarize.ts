/**
 * Step "extract + summarise", once per compacted range: the range's handover facts
 * (facts/handover.ts), then the summarizer chain (the pipeline's summarizers, then the
 * fallbacks that cannot fail: strategies/index.ts). A provider error, an empty, malformed
 * or over-budget summary moves to the next one, and each move is recorded with its reason.
 * The sections rarely use their whole reserve, so the plan is then made again around their
 * real size, with the facts they had no room for as action-log lines.
 */
import type { FormatAdapter } from '../messages/adapter.ts'
import type { NeutralCounter } from '../conversation/segments.ts'
import { extractHandover } from '../facts/handover.ts'
import { findingAlreadyNoted, overflowAlreadyLogged, repeatsLoggedCreation, type LogLine } from './action-log.ts'
import type { Layout } from './layout.ts'
import type { Plan } from './plan.ts'
import type { Planner } from './planner.ts'
import { summarizerChain, type Pipeline, type StrategyEnv } from './strategies/index.ts'
import { detectSummaryRound } from './summary-format.ts'
import { SummarizerError, type CompactOptions, type FallbackRecord, type Summarizer, type SummaryRequest, type SummaryResult } from './types.ts'

/** The latest summary of a compaction, and what the re-plans keep of it. */
export interface SummaryState {
  summary?: SummaryResult
  /** The strategy that wrote it. */
  by?: string
  /** The tail start of the range it summarises (-1: none summarised yet). */
  tailStart: number
  /** Lines the log carries before the segments' own: facts the sections had no room for, then an earlier compactd round's log. */
  carried: LogLine[]
  /** The summary's real size (with its message overhead), once a plan was made around it. */
  reserve?: number[]
}

export interface SummariseInput {
  planner: Planner
  layout: Layout
  pipeline: Pipeline
  options: CompactOptions
  env: StrategyEnv
  adapter: FormatAdapter
  nc: NeutralCounter
  round: number
  /** The target the current plan was made for. */
  target: number
  fallbacks: FallbackRecord[]
  signal?: AbortSignal
}

/** Summarises the range `plan` compacts into `state`; returns the plan to assemble (re-made around the summary when it can be). */
export async function summariseRange(plan: Plan, state: SummaryState, s: SummariseInput): Promise<Plan> {
  const { planner, layout, options } = s
  const { segments, headEnd } = planner
  state.tailStart = plan.tailStart
  if (plan.maskFellShort) s.fallbacks.push({ strategy: s.pipeline.keptBy, reason: 'masking alone did not reach the budget' })
  const inRange: number[] = []
  for (let si = headEnd; si < plan.tailStart; si++) if (!segments[si]!.pinned) inRange.push(si)
  const facts = extractHandover(
    inRange.flatMap((si) => segments[si]!.messages),
    { preserveErrorDetails: options.preserveErrorDetails, later: segments.slice(plan.tailStart).flatMap((seg) => seg.messages) },
  )
  const headInstruction = layout.events.find((e) => e.kind === 'instruction' && e.position <= (segments[headEnd - 1]?.end ?? -1))
  const previous = [...layout.events].reverse().find((e) => e.kind === 'earlier-summary')
  const counter = s.planner.counter
  const outcome = await summarizeWithFallbacks(
    summarizerChain(options.strategy, s.env, s.fallbacks),
    {
      // Earlier summaries reach the summarizer as facts.earlier and previousSummary, not as messages.
      messages: inRange.filter((si) => !planner.earlier(si)).flatMap((si) => segments[si]!.messages),
      facts,
      ...(previous?.kind === 'earlier-summary' ? { previousSummary: { round: previous.summary.round ?? 1, text: previous.summary.text, index: planner.messages[previous.position]!.index } } : {}),
      originalTask: headInstruction?.kind === 'instruction' ? headInstruction.text : '',
      round: s.round,
      budgetTokens: plan.summaryReserve - planner.summaryOverhead,
      counter,
      preserveErrorDetails: options.preserveErrorDetails,
      instructions: options.instructions,
      instructionsMode: options.instructionsMode,
      ...(options.focus ? { focus: options.focus } : {}),
      signal: s.signal,
    },
    s.fallbacks,
  )
  state.summary = outcome && options.references ? { ...outcome.summary, text: withArchiveNote(outcome.summary.text, options.references.note) } : outcome?.summary
  state.by = outcome?.by
  planner.summaryWritten(state.summary?.text)
  if (!state.summary) return plan
  // Plan the log again with what the sections took, as long as the compacted range (and so
  // the summary) stays the same. With a log, a segment of the range is either logged or
  // kept condensed, and both say its failures; without one, the overflow is the only place
  // they appear.
  const lines = s.pipeline.actionLog ? inRange.flatMap((si) => planner.logLines(si)) : []
  const logged = lines.map((l) => l.text).join('\n')
  const createdInLog = new Set(lines.flatMap((l) => l.created ?? []))
  const overflow = (state.summary.overflow ?? [])
    .filter((l) => (l.unlogged ? !findingAlreadyNoted(l.text, logged) : !overflowAlreadyLogged(l.text, logged) && !repeatsLoggedCreation(l.text, createdInLog, logged)))
    .map((l, k) => ({ text: l.text, priority: l.priority, tokens: planner.lineTokens(l.text), key: `o:${k}` }))
  const withOverflow = [...overflow, ...planner.previousLog]
  const used = [s.nc.tokens([s.adapter.createTextMessage('user', state.summary.text)]) + planner.summaryOverhead]
  const reflowed = planner.plan(s.target, used, withOverflow)
  if (!reflowed || reflowed.tailStart !== plan.tailStart || !reflowed.summary) return plan
  state.carried = withOverflow
  state.reserve = used
  return reflowed
}

/**
 * The summary with the archive note as its second line, under the round header, where it
 * is read first. Added after the summarizer (whose budget stays as it was: the note is not
 * its to write); the plan is then made again around the summary's real size, note included.
 */
export function withArchiveNote(text: string, note: string): string {
  if (text.includes(note)) return text
  const nl = text.indexOf('\n')
  return nl < 0 ? `${text}\n${note}` : `${text.slice(0, nl)}\n${note}${text.slice(nl)}`
}

export interface SummaryOutcome {
  summary: SummaryResult
  by: string
}

/** The first summary of the chain that is non-empty, well-formed and within its budget. */
export async function summarizeWithFallbacks(chain: readonly Summarizer[], req: SummaryRequest, fallbacks: FallbackRecord[]): Promise<SummaryOutcome | undefined> {
  for (const s of chain) {
    try {
      const res = await s.summarize(req)
      if (!res.text.trim()) throw new SummarizerError('empty', 'the summary was empty')
      if (detectSummaryRound(res.text) !== req.round) throw new SummarizerError('malformed', `the summary does not start with the round ${req.round} header`)
      const tokens = Math.ceil(req.counter.text(res.text) * req.counter.margin)
      if (tokens > req.budgetTokens) throw new SummarizerError('over_budget', `the summary has ${tokens} tokens, over its budget of ${req.budgetTokens}`)
      return { summary: res, by: s.name }
    } catch (err) {
      if (req.signal?.aborted) throw err
      const reason = err instanceof SummarizerError ? `${err.kind}: ${err.message}` : `error: ${err instanceof Error ? err.message : String(err)}`
      fallbacks.push({ strategy: s.name, reason })
    }
  }
  return undefined
}
