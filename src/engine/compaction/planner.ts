/**
 * The "plan" step's view of one compaction: its segments with their kept forms and
 * action-log lines (each computed once, then cached across the re-plans), the summary's
 * reserves, and makePlan (plan.ts) called with all of it. compact() asks it for a plan
 * at a target; once the summary is written, for a plan around the summary's real size.
 */
import type { FormatAdapter } from '../messages/adapter.ts'
import type { CanonicalMessage } from '../messages/canonical.ts'
import { EVENT_OVERHEAD, type NeutralCounter } from '../conversation/segments.ts'
import { IMPORTANCE } from '../facts/importance.ts'
import { REPLY_PRIMING_TOKENS } from '../tokens/tokenizer.ts'
import type { TokenCounter } from '../tokens/count.ts'
import { ACTION_LOG_HEADER, previousActionLog, repeatsSummary, segmentLogLines, type LogLine } from './action-log.ts'
import type { Layout } from './layout.ts'
import { runContexts, type ConversationEvent, type RunContext } from '../facts/events.ts'
import { clip } from '../facts/text.ts'
import { makePlan, type Plan } from './plan.ts'
import { condenseForm } from './strategies/condense.ts'
import type { Pipeline } from './strategies/index.ts'
import { recentResultIds, type MaskOptions } from './transforms/mask.ts'
import { harnessNoisePositions, withoutHarness } from './transforms/harness.ts'
import { CompactionError } from './verify.ts'
import type { CompactOptions } from './types.ts'

/**
 * The action log an earlier summary carried, as lines of this one: compactd's own log (its
 * last round's), and the actions another agent's summary listed (Gemini CLI's
 * `recent_actions`, a "Recent actions" section), which no other section renders. The
 * class: sessions continued after an agent's own compaction.
 */
function earlierLogLines(events: readonly ConversationEvent[]): string[] {
  const summaries = events.flatMap((e) => (e.kind === 'earlier-summary' ? [e.summary] : []))
  const lastCompactd = summaries.filter((s) => s.source === 'compactd').at(-1)
  const others = summaries.filter((s) => s.source !== 'compactd').flatMap((s) => s.sections.actions.map((a) => `- ${clip(a.replace(/\s+/g, ' ').trim(), 240)} (earlier)`))
  return [...others, ...(lastCompactd ? previousActionLog(lastCompactd.text) : [])]
}

/** Fraction of the target the summary sections may take at most; the action log uses the rest. */
const SUMMARY_SHARE = 0.15
const SMALL_SUMMARY_SHARE = 0.1
/**
 * Largest share of the budget the head leaves that a tail may keep once it had to shrink.
 * 0.4 was chosen on the tuning split (0.3–0.6 tried; docs/quality.md, thirteenth session).
 */
const SHRUNK_TAIL_SHARE = 0.4
/**
 * A default recent window past its share (CompactOptions.recentWindowShare) gives way only
 * while it leaves the summary fewer tokens than this: a window of large recent outputs
 * beside a summary of a thousand tokens or more stays whole. Chosen on the tuning split
 * (400–2,000 tried; 2,000 lost a fixture probe; docs/quality.md, fourteenth session).
 */
const RECENT_WINDOW_SUMMARY_FLOOR = 1_000
/** A summary budget under this many tokens cannot say anything useful. */
const MIN_SUMMARY_TOKENS = 40
/** Tokens held back from planning for layout differences between formats. */
const PLAN_RESERVE = 16

export interface PlannerInput {
  messages: CanonicalMessage[]
  layout: Layout
  pipeline: Pipeline
  options: CompactOptions
  adapter: FormatAdapter
  counter: TokenCounter
  nc: NeutralCounter
}

export class Planner {
  readonly segments: Layout['segments']
  readonly headEnd: number
  /** Verbatim tokens of the head, counted as one run: Anthropic merges the head's user messages around system text into one. */
  readonly headTokens: number
  /** Tokens of the summary message around its text. */
  readonly summaryOverhead: number
  /** Section reserves at the requested target, largest first. */
  readonly reserves: number[]
  /** Lines of an earlier compactd round's action log, carried into this one. */
  readonly previousLog: LogLine[]
  private readonly keptCache = new Map<number, { messages: CanonicalMessage[]; tokens: number }>()
  private readonly verbatimCache = new Map<number, { messages: CanonicalMessage[]; tokens: number }>()
  /** Positions of the harness messages (and their acknowledgements) after the head: no output keeps them (transforms/harness.ts). */
  private readonly harnessNoise: ReadonlySet<number>
  private readonly logCache = new Map<number, LogLine[]>()
  /** Each segment's context in the conversation (a text-only agent's observation answers the segment before). */
  private contextAt: ((start: number) => RunContext) | undefined
  /** The words of options.focus that rank log lines up (none: no focus). */
  private readonly focusTerms: readonly string[] = []
  private readonly unrepeated = new Map<number, LogLine[]>()
  private readonly exempt: Set<string>
  private readonly maskOptions: MaskOptions
  // Once the sections exist, a log line that only repeats what they say (an instruction they
  // quote, a file creation their file rows list) is left out: its room goes to what the
  // sections could not hold.
  private repeatsSections: ((line: LogLine) => boolean) | undefined

  constructor(private readonly p: PlannerInput) {
    this.focusTerms = focusTermsOf(p.options.focus)
    const { layout, options, counter, nc, messages } = p
    this.segments = layout.segments
    this.headEnd = layout.headEnd
    this.headTokens = nc.tokens(this.segments.slice(0, this.headEnd).flatMap((s) => s.messages))
    this.summaryOverhead = Math.ceil(EVENT_OVERHEAD * counter.margin)
    this.maskOptions = { keepToolResults: options.keepToolResults, excludeTools: options.excludeTools, clearToolInputsOver: options.clearToolInputsOver, preserveErrorDetails: options.preserveErrorDetails, ...(options.references ? { refOf: options.references.refOf } : {}) }
    this.exempt = recentResultIds(messages, options.keepToolResults)
    this.reserves = this.reservesFor(options.targetTokens)
    this.harnessNoise = harnessNoisePositions(messages, this.segments[this.headEnd]?.start ?? messages.length)
    this.previousLog = earlierLogLines(layout.events).map((text, k) => ({ text, priority: IMPORTANCE.earlierActionLog, tokens: this.lineTokens(text), key: `p:${k}` }))
  }

  get messages(): readonly CanonicalMessage[] {
    return this.p.messages
  }

  get counter(): TokenCounter {
    return this.p.counter
  }

  /** The requested target. */
  get target(): number {
    return this.p.options.targetTokens
  }

  lineTokens = (line: string): number => Math.ceil(this.p.counter.text(line) * this.p.counter.margin) + 1

  /** A kept segment in the pipeline's form; `lastResort` condenses even the exempt results. */
  kept = (si: number, lastResort = false): { messages: CanonicalMessage[]; tokens: number } => {
    const key = lastResort ? -1 - si : si
    let hit = this.keptCache.get(key)
    if (!hit) {
      const s = this.segments[si]!
      const form = lastResort ? condenseForm : this.p.pipeline.kept
      const { messages, adapter, counter } = this.p
      const shrunk = form ? form.shrink({ messages, from: s.start, to: s.end + 1, adapter, counter, options: this.maskOptions, exempt: lastResort ? new Set() : this.exempt }) : s.messages
      const out = withoutHarness(shrunk, s.start, this.harnessNoise, adapter)
      hit = { messages: out, tokens: this.p.nc.tokens(out) }
      this.keptCache.set(key, hit)
    }
    return hit
  }

  /** A segment as the output keeps it unshrunk: the head, system messages and pinned ones as they are, any other without harness text. */
  verbatim = (si: number): { messages: CanonicalMessage[]; tokens: number } => {
    const s = this.segments[si]!
    if (si < this.headEnd || s.pinned) return s
    let hit = this.verbatimCache.get(si)
    if (!hit) {
      const out = withoutHarness(s.messages, s.start, this.harnessNoise, this.p.adapter)
      hit = out.length === s.messages.length && out.every((m, k) => m === s.messages[k]) ? s : { messages: out, tokens: this.p.nc.tokens(out) }
      this.verbatimCache.set(si, hit)
    }
    return hit
  }

  logLines = (si: number): LogLine[] => {
    let hit = this.logCache.get(si)
    if (!hit) {
      const segment = this.segments[si]!
      const context = (this.contextAt ??= runContexts(this.p.layout.events))(segment.start)
      this.logCache.set(si, (hit = withFocus(segmentLogLines(segment.messages, si, { preserveErrorDetails: this.p.options.preserveErrorDetails, lineTokens: this.lineTokens, refOf: this.p.options.references?.refOf, context }), this.focusTerms)))
    }
    const repeats = this.repeatsSections
    if (!repeats) return hit
    let left = this.unrepeated.get(si)
    if (!left) this.unrepeated.set(si, (left = hit.filter((l) => !repeats(l))))
    return left
  }

  /** An earlier compaction summary alone in its segment: folded into the new summary, never kept beside it. */
  earlier = (si: number): boolean => {
    const s = this.segments[si]!
    return s.earlierSummary && !s.toolWork && !s.instruction
  }

  /** From now on, log lines that repeat these sections are left out (none: all lines again). */
  summaryWritten(text: string | undefined): void {
    this.repeatsSections = text === undefined ? undefined : repeatsSummary(text)
    this.unrepeated.clear()
  }

  /** Section reserves for a target, largest first (none when even the small one says nothing useful). */
  reservesFor(target: number): number[] {
    const { maxSummaryTokens } = this.p.options
    const full = Math.min(maxSummaryTokens, Math.floor(target * SUMMARY_SHARE))
    const small = Math.min(full, Math.floor(target * SMALL_SUMMARY_SHARE))
    return [full, small].filter((b, k, all) => b >= MIN_SUMMARY_TOKENS && all.indexOf(b) === k).map((b) => b + this.summaryOverhead)
  }

  /**
   * The plan with the summary grown into the room it leaves unused (issue 22: "use the room
   * you are given"), up to maxSummaryTokens; the plan itself when there is no such room, or
   * when growing would change what else is kept. The summary takes from the slack only: the
   * kept turns and the log keep what they had (a larger fixed share of the target, 30%
   * instead of 15%, took from them and lost probes; docs/quality.md). Once written, the plan
   * is made again around the summary's real size, so a summary with nothing more to say
   * gives the room back. compact() asks for it when a model writes the summary: the rules
   * summary gained no probe from any cap measured (docs/quality.md).
   */
  withRoom(plan: Plan, target: number): Plan {
    if (!plan.summary) return plan
    const cap = this.p.options.maxSummaryTokens + this.summaryOverhead
    const slack = this.planningTarget(target) - plan.estimatedTokens
    const grown = Math.min(cap, plan.summaryReserve + slack)
    if (slack < MIN_SUMMARY_TOKENS || grown <= plan.summaryReserve) return plan
    const again = this.plan(target, [grown])
    const same = again && again.summary && again.tailStart === plan.tailStart && String(again.keep) === String(plan.keep) && String(again.log) === String(plan.log)
    return same ? again : plan
  }

  private planningTarget(target: number): number {
    return target - REPLY_PRIMING_TOKENS - PLAN_RESERVE - Math.ceil(target * 0.005)
  }

  plan(target: number, summaryReserves: readonly number[], carried: readonly LogLine[] = this.previousLog): Plan | null {
    const { pipeline, layout } = this.p
    return makePlan({
      segmentCount: this.segments.length,
      headEnd: this.headEnd,
      initialTailStart: layout.tailStart,
      // A small reserve absorbs what the caller's layout counts beyond the neutral count
      // (extra system messages, pretty-printed arguments) without a format-specific re-plan.
      target: this.planningTarget(target),
      headTokens: this.headTokens,
      summaryReserves,
      wantsSummary: pipeline.wantsSummary,
      keepsSegments: pipeline.kept !== undefined,
      useLog: pipeline.actionLog,
      logHeaderTokens: this.lineTokens(ACTION_LOG_HEADER) + 2,
      shrunkTailShare: SHRUNK_TAIL_SHARE,
      ...(this.p.options.recentWindowShare !== undefined ? { recentWindow: { share: this.p.options.recentWindowShare, summaryFloor: RECENT_WINDOW_SUMMARY_FLOOR } } : {}),
      verbatimTokens: (si) => this.verbatim(si).tokens,
      keptTokens: (si, lastResort) => this.kept(si, lastResort).tokens,
      pinned: (si) => this.segments[si]!.pinned,
      earlier: this.earlier,
      logLines: this.logLines,
      previousLog: carried,
      lowValueBelow: IMPORTANCE.test,
    })
  }

  /** The error when no plan fits the requested target, with the smallest target that has one. */
  unreachable(tokensBefore: number): CompactionError {
    const { options } = this.p
    const { segments, headEnd } = this
    // Unforced, a target the conversation already fits returns it unchanged: the true
    // minimum is never more than its own size.
    const minimum = smallestTarget((t) => this.plan(t, this.reservesFor(t)) !== null, options.targetTokens, options.force ? undefined : tokensBefore)
    const target = options.targetTokens
    const message =
      minimum === undefined
        ? `cannot fit ${target} tokens: nothing in the conversation can be compacted (the system prompt and the first task message are kept verbatim, and they are all of it)`
        : !options.force && minimum >= tokensBefore
          ? `cannot fit ${target} tokens: the conversation needs at least ${minimum}, its own size: no compaction of it is smaller (the system prompt and the first task message are kept verbatim${headEnd >= segments.length ? ', and they are all of it' : ', and a summary with the last turn would be larger than what it replaces'})`
          : `cannot fit ${target} tokens: the system prompt, the first task message, a summary and the last turn need at least ${minimum}, even with everything else summarised and the last turn condensed`
    const summaryBudget = Math.min(options.maxSummaryTokens, Math.floor(target * SUMMARY_SHARE))
    const smallSummaryBudget = Math.min(summaryBudget, Math.floor(target * SMALL_SUMMARY_SHARE))
    return new CompactionError('budget_unreachable', message, {
      targetTokens: target,
      tokensBefore,
      ...(minimum !== undefined ? { minimumTokens: minimum } : {}),
      headTokens: this.headTokens,
      summaryTokens: smallSummaryBudget + this.summaryOverhead,
      lastTurnTokens: segments[segments.length - 1]!.tokens,
    })
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

/** Below the next importance step: a focused line passes its peers, never a more important kind. */
export const FOCUS_BONUS = 0.5

/** English words too common to tell one log line from another. */
const FOCUS_STOPWORDS = new Set(['the', 'and', 'for', 'with', 'that', 'this', 'from', 'into', 'what', 'when', 'which', 'how', 'why', 'about', 'all', 'any', 'are', 'was', 'were', 'its', 'our', 'you', 'your'])

/** Words of a focus (three letters or more, lower case, common words left out) that a log line is matched against. */
export function focusTermsOf(focus: string | undefined): string[] {
  if (!focus) return []
  return [...new Set(focus.toLowerCase().split(/[^\p{L}\p{N}_./-]+/u).filter((w) => w.length >= 3 && !FOCUS_STOPWORDS.has(w)))]
}

/** Log lines that mention a focus word rank above the others of their importance. */
function withFocus(lines: LogLine[], terms: readonly string[]): LogLine[] {
  if (terms.length === 0) return lines
  return lines.map((l) => {
    const text = l.text.toLowerCase()
    return terms.some((w) => text.includes(w)) ? { ...l, priority: l.priority + FOCUS_BONUS } : l
  })
}
