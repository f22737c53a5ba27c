/**
 * compact(): fit a conversation into a token budget without breaking it.
 *
 *   1. Check tool-call pairing; repair (or refuse) a broken input.
 *   2. Split into atomic units (a tool call never leaves its results).
 *   3. Head: system/developer messages and the first `keepFirst` user turns, verbatim.
 *      Tail: the last `keepRecent` messages (or `keepRecentTokens`), verbatim.
 *      Middle: the rest, plus any earlier round's summary, which is integrated.
 *   4. Plan, cheapest first: mask the middle's old tool results; if that is not enough,
 *      summarise the oldest part of the middle and keep the newer part masked; if the
 *      kept parts alone are over budget, shrink the tail unit by unit, then mask inside
 *      it. If nothing fits, refuse with the numbers (CompactionError, 422).
 *   5. Summarise through the fallback chain (llm → rules → truncate): a provider error,
 *      an empty, malformed or over-budget summary moves to the next one.
 *   6. Assemble, validate pairing again, and check the result fits and is smaller.
 *
 * Pure: no I/O apart from the injected LLM summarizer.
 */
import { getAdapter } from '../messages/index.ts'
import { isSystemLike, messageText, toolCallsOf, toolResultsOf, type CanonicalMessage } from '../messages/canonical.ts'
import { KEY_SENTENCE_RE } from './extract/facts.ts'
import { clip, digestToolCall, stripHeredocBodies, type ToolDigest } from './extract/tools.ts'
import type { FormatAdapter } from '../messages/adapter.ts'
import { messageTokens, type TokenCounter } from '../tokens/count.ts'
import { REPLY_PRIMING_TOKENS } from '../tokens/tokenizer.ts'
import { computeUnits, findPairingProblems, MISSING_RESULT_TEXT, repairPairing, type Unit } from './integrity.ts'
import { condenseRange } from './strategies/condense.ts'
import { maskRange, recentResultIds, type MaskOptions } from './strategies/mask.ts'
import { rulesSummarizer } from './strategies/rules.ts'
import { truncateSummarizer } from './strategies/truncate.ts'
import { detectSummaryRound } from './summary-format.ts'
import {
  SummarizerError,
  type CompactOptions,
  type CompactResult,
  type FallbackRecord,
  type PlanRange,
  type PreviousSummary,
  type StrategyName,
  type Summarizer,
  type SummaryResult,
} from './types.ts'

export class CompactionError extends Error {
  override readonly name = 'CompactionError'
  constructor(
    readonly code: 'budget_unreachable' | 'broken_tool_pairing',
    message: string,
    readonly details: Record<string, unknown>,
  ) {
    super(message)
  }
}

export interface CompactInput {
  messages: CanonicalMessage[]
  options: CompactOptions
  counter: TokenCounter
  /** The llm strategy's summarizer, when the server has one configured. */
  llm?: Summarizer
  signal?: AbortSignal
  /** Clock for durationMs (tests). */
  now?: () => number
}

/** Fraction of the target a summary may take at most (seed 002). */
const SUMMARY_SHARE = 0.1
/** Largest share of the budget a tail may keep once it had to shrink. */
const SHRUNK_TAIL_SHARE = 0.5
/** A summary budget under this many tokens cannot say anything useful. */
const MIN_SUMMARY_TOKENS = 40

interface Plan {
  tailStart: number // unit index where the verbatim tail begins
  dropUnits: [number, number] | null // [from, to) unit indexes replaced by the summary
  keepUnits: [number, number] | null // [from, to) unit indexes kept, masked or condensed
  /** [from, to) unit indexes reduced to one-line digests in the summary message's action log. */
  logUnits: [number, number] | null
  /** How many of the previous round's log lines are carried over (newest ones). */
  previousLogLines: number
  /** When the log does not fit whole: the lines kept (by order key); null keeps all. */
  logSelection?: Set<string> | null
  summary: boolean
  maskTail: boolean
  estimatedTokens: number
}

export async function compact(input: CompactInput): Promise<CompactResult> {
  const now = input.now ?? (() => performance.now())
  const started = now()
  const { options, counter } = input
  const adapter = getAdapter(options.format)
  // Each message is counted once, however many plans look at it.
  const tokenCache = new WeakMap<CanonicalMessage, number>()
  const tokensOf = (m: CanonicalMessage) => {
    let n = tokenCache.get(m)
    if (n === undefined) tokenCache.set(m, (n = messageTokens(m, counter)))
    return n
  }
  const total = (ms: readonly CanonicalMessage[]) => (ms.length ? ms.reduce((a, m) => a + tokensOf(m), 0) + REPLY_PRIMING_TOKENS : 0)

  // 1. Integrity of the input.
  let messages = input.messages
  const tokensBefore = total(messages)
  let repairs: CompactResult['repairs'] = []
  const problems = findPairingProblems(messages)
  if (problems.length > 0) {
    if (options.onBrokenInput === 'reject') {
      // Problems come as positions; the caller knows its own indexes.
      const located = problems.map((p) => ({ ...p, index: messages[p.index]!.index }))
      const first = located[0]!
      throw new CompactionError('broken_tool_pairing', `messages[${first.index}]: ${first.problem} (tool call id ${first.callId}); send onBrokenInput "repair" to fix it automatically`, { problems: located })
    }
    const repaired = repairPairing(messages, repairOps(adapter))
    messages = repaired.messages
    repairs = repaired.repairs
  }

  const duration = () => Math.max(0, Math.round(now() - started))
  const untouched = (reason: string): CompactResult => ({
    compacted: false,
    reason,
    messages,
    strategy: 'none',
    fallbacks: [],
    repairs,
    plan: [{ from: 0, to: messages.length - 1, action: 'keep', reason }],
    event: { round: 0, tokensBefore, tokensAfter: total(messages), compressionRatio: 1, messagesCompacted: 0, strategy: 'none', summaryTokens: 0, costUsd: 0, durationMs: duration() },
  })
  if (messages.length === 0) return untouched('empty conversation')
  if (tokensBefore <= options.targetTokens && !options.force) return untouched(`${tokensBefore} tokens already fit the target of ${options.targetTokens}`)

  // 2-3. Units, head, tail, previous summary.
  const units = computeUnits(messages)
  const unitTokens = units.map((u) => sumTokens(messages, u, tokensOf))
  const headEnd = headUnitCount(messages, units, options.keepFirst) // units [0, headEnd) are the head
  const previous = findPreviousSummary(messages, units, headEnd)
  const round = Math.max(previous?.round ?? 0, options.previousRound ?? 0) + 1
  let tailStart = initialTailStart(messages, units, unitTokens, headEnd, options)
  const headTokens = unitTokens.slice(0, headEnd).reduce((a, b) => a + b, 0)

  // Kept middle messages are masked (`mask`), or masked and condensed (`mask` with `rules`).
  const hasMask = options.strategy.includes('mask')
  const level: 'none' | 'mask' | 'condense' = hasMask ? (options.strategy.includes('rules') ? 'condense' : 'mask') : 'none'
  const wantsSummary = options.strategy.some((s) => s !== 'mask')
  const summaryBudget = Math.min(options.maxSummaryTokens, Math.floor(options.targetTokens * SUMMARY_SHARE))
  const summaryOverhead = tokensOf(adapter.createTextMessage('user', ''))
  const summaryReserve = summaryBudget + summaryOverhead
  const maskOpts: MaskOptions = {
    keepToolResults: options.keepToolResults,
    excludeTools: options.excludeTools,
    clearToolInputsOver: options.clearToolInputsOver,
    preserveErrorDetails: options.preserveErrorDetails,
  }
  const exempt = recentResultIds(messages, options.keepToolResults)
  // Transformed cost of each unit, computed lazily.
  const transformedCache = new Map<number, { messages: CanonicalMessage[]; tokens: number }>()
  const transformed = (ui: number, lastResort = false) => {
    const key = lastResort ? -1 - ui : ui
    let hit = transformedCache.get(key)
    if (!hit) {
      const u = units[ui]!
      const out =
        level === 'condense' || lastResort
          ? condenseRange(messages, u.start, u.end + 1, adapter, counter, maskOpts, lastResort ? new Set() : exempt)
          : maskRange(messages, u.start, u.end + 1, adapter, counter, maskOpts, exempt).messages
      hit = { messages: out, tokens: out.reduce((a, m) => a + tokensOf(m), 0) }
      transformedCache.set(key, hit)
    }
    return hit
  }
  const isPinned = (ui: number) => ui !== previous?.unit && messagesOf(messages, units[ui]!).every(isSystemLike)

  // With `rules`, units that do not fit as condensed messages become one-line digests in
  // an action log appended to the summary message (the summary itself stays within its cap).
  const useLog = level === 'condense' && wantsSummary
  const logCache = new Map<number, { lines: (LogLine & { tokens: number })[]; tokens: number }>()
  const lineTokens = (l: string) => Math.ceil(counter.text(l) * counter.margin) + 1
  const logOf = (ui: number) => {
    let hit = logCache.get(ui)
    if (!hit) {
      const lines = actionLogLines(messagesOf(messages, units[ui]!), options.preserveErrorDetails).map((l) => ({ ...l, tokens: lineTokens(l.text) }))
      hit = { lines, tokens: lines.reduce((a, l) => a + l.tokens, 0) }
      logCache.set(ui, hit)
    }
    return hit
  }
  const previousLog: (LogLine & { tokens: number })[] = previous ? previousActionLog(previous.text).map((text) => ({ text, priority: 2, tokens: lineTokens(text) })) : []
  const logHeaderTokens = lineTokens(ACTION_LOG_HEADER) + 2

  // 4. Plan: the largest verbatim tail first, then shrink it unit by unit.
  let plan: Plan | null = null
  let maskFellShort = false
  // When the configured tail does not fit, it shrinks until it takes at most half the
  // budget: a tail that leaves no room for the summary and the log would lose more than it keeps.
  const initialTail = tailStart
  const tailTokensFrom = (ui: number) => unitTokens.slice(ui).reduce((a, b) => a + b, 0)
  for (; tailStart < units.length && !plan; tailStart++) {
    if (tailStart > initialTail && tailStart < units.length - 1 && tailTokensFrom(tailStart) > options.targetTokens * SHRUNK_TAIL_SHARE) continue
    plan = planFor(tailStart, false)
  }
  if (!plan) plan = planFor(units.length - 1, true)
  if (!plan) {
    // The smallest target that would work: the fixed parts plus a summary whose cap is
    // 10% of the target and at least MIN_SUMMARY_TOKENS (so the target is at least 400).
    const fixedMin = headTokens + summaryOverhead + transformed(units.length - 1, true).tokens + REPLY_PRIMING_TOKENS
    const minimum = Math.max(Math.ceil(MIN_SUMMARY_TOKENS / SUMMARY_SHARE), Math.ceil(fixedMin / (1 - SUMMARY_SHARE)), fixedMin + Math.min(options.maxSummaryTokens, MIN_SUMMARY_TOKENS))
    throw new CompactionError(
      'budget_unreachable',
      `cannot fit ${options.targetTokens} tokens: the system prompt, the first task message, a summary and the last turn need at least ${minimum}, even with everything else summarised and the last turn masked`,
      { targetTokens: options.targetTokens, tokensBefore, minimumTokens: minimum, headTokens, summaryTokens: summaryReserve, lastTurnTokens: unitTokens[units.length - 1] },
    )
  }

  function planFor(tail: number, maskTail: boolean): Plan | null {
    if (tail < headEnd) return null
    const tailTokens = maskTail ? transformed(tail, true).tokens : unitTokens.slice(tail).reduce((a, b) => a + b, 0)
    const middle: number[] = []
    let pinnedTokens = 0
    for (let ui = headEnd; ui < tail; ui++) {
      if (isPinned(ui)) pinnedTokens += unitTokens[ui]!
      else middle.push(ui)
    }
    const fixed = headTokens + tailTokens + pinnedTokens + REPLY_PRIMING_TOKENS
    if (middle.length === 0) {
      return maskTail && fixed <= options.targetTokens ? { tailStart: tail, dropUnits: null, keepUnits: null, logUnits: null, previousLogLines: 0, summary: false, maskTail, estimatedTokens: fixed } : null
    }
    const first = middle[0]!
    if (!wantsSummary) {
      const all = middle.reduce((a, ui) => a + (ui === previous?.unit ? unitTokens[ui]! : transformed(ui).tokens), 0)
      if (fixed + all <= options.targetTokens) return { tailStart: tail, dropUnits: null, keepUnits: [first, tail], logUnits: null, previousLogLines: 0, summary: false, maskTail, estimatedTokens: fixed + all }
      maskFellShort = true
    }
    if (summaryBudget < MIN_SUMMARY_TOKENS || fixed + summaryReserve > options.targetTokens) return null
    let room = options.targetTokens - fixed - summaryReserve
    const newest = middle.filter((ui) => ui !== previous?.unit)
    if (useLog) {
      // Every unit becomes log lines; if they all fit, the newest units are upgraded to
      // condensed messages while room lasts; if not, the least important lines go,
      // oldest first (reads and searches before edits, failures and user requests).
      room -= logHeaderTokens
      if (room < 0) return null
      const newest = middle.filter((ui) => ui !== previous?.unit)
      const candidates: (LogLine & { order: number; tokens: number })[] = []
      previousLog.forEach((l, k) => candidates.push({ ...l, order: k - previousLog.length }))
      for (const ui of newest) logOf(ui).lines.forEach((l, k) => candidates.push({ ...l, order: ui * 1000 + k }))
      // A command repeated many times (a test re-run after each edit) is one line with its last outcome.
      const lastOf = new Map<string, number>()
      candidates.forEach((l, k) => lastOf.set(l.text, k))
      for (let k = candidates.length - 1; k >= 0; k--) if (lastOf.get(candidates[k]!.text) !== k) candidates.splice(k, 1)
      const all = candidates.reduce((a, l) => a + l.tokens, 0)
      let keepStart = tail
      let selected: Set<string> | null = null
      if (all <= room) {
        room -= all
        for (let k = newest.length - 1; k >= 0; k--) {
          const ui = newest[k]!
          // No credit for the unit's log lines: they may be duplicates counted once elsewhere.
          const extra = transformed(ui).tokens
          if (extra > room) break
          room -= extra
          keepStart = ui
        }
      } else {
        selected = new Set()
        for (const l of [...candidates].sort((a, b) => b.priority - a.priority || b.order - a.order)) {
          if (l.tokens > room) continue
          room -= l.tokens
          selected.add(`${l.order}`)
        }
      }
      const logged = newest.filter((ui) => ui < keepStart)
      return {
        tailStart: tail,
        dropUnits: previous && previous.unit >= headEnd && previous.unit < tail ? [previous.unit, previous.unit + 1] : null,
        keepUnits: keepStart < tail ? [keepStart, tail] : null,
        logUnits: logged.length ? [logged[0]!, keepStart] : null,
        logSelection: selected,
        previousLogLines: previousLog.length,
        summary: true,
        maskTail,
        estimatedTokens: options.targetTokens - room,
      }
    }
    // Keep the newest middle units (masked) while they fit beside the summary.
    let split = tail
    if (level !== 'none' || !wantsSummary) {
      for (let k = middle.length - 1; k >= 0; k--) {
        const ui = middle[k]!
        if (ui === previous?.unit) break // an old summary is integrated, never kept beside the new one
        const cost = transformed(ui).tokens
        if (cost > room) break
        room -= cost
        split = ui
      }
    }
    return {
      tailStart: tail,
      dropUnits: split > first ? [first, split] : null,
      keepUnits: split < tail ? [split, tail] : null,
      logUnits: null,
      previousLogLines: 0,
      summary: true,
      maskTail,
      estimatedTokens: options.targetTokens - room,
    }
  }

  const inRange = (ui: number, r: [number, number] | null) => r !== null && ui >= r[0] && ui < r[1]
  const planRanges = describePlan(messages, units, headEnd, plan, isPinned, level)
  // The summary covers every compacted message (dropped or kept condensed) except pinned
  // system messages and the old summary, which is integrated rather than re-summarised.
  const summarizedMessages: CanonicalMessage[] = []
  if (plan.summary) for (let ui = headEnd; ui < plan.tailStart; ui++) if (!isPinned(ui) && ui !== previous?.unit) summarizedMessages.push(...messagesOf(messages, units[ui]!))

  if (options.dryRun) {
    return {
      compacted: false,
      reason: 'dry run: nothing was changed and no model was called',
      messages,
      strategy: plan.summary ? (options.strategy.find((s) => s !== 'mask') ?? 'rules') : 'mask',
      fallbacks: maskFellShort ? [{ strategy: 'mask', reason: 'masking alone would not reach the budget' }] : [],
      repairs,
      plan: planRanges,
      event: {
        round,
        tokensBefore,
        tokensAfter: plan.estimatedTokens,
        compressionRatio: ratio(tokensBefore, plan.estimatedTokens),
        messagesCompacted: countCompacted(units, plan),
        strategy: 'none',
        summaryTokens: plan.summary ? summaryBudget : 0,
        costUsd: 0,
        durationMs: duration(),
      },
    }
  }

  // 5. Summarise through the fallback chain.
  const fallbacks: FallbackRecord[] = []
  let summary: SummaryResult | undefined
  let summaryBy: StrategyName | undefined
  let costUsd = 0
  if (plan.summary) {
    if (maskFellShort) fallbacks.push({ strategy: 'mask', reason: 'masking alone did not reach the budget' })
    const chain = summarizerChain(options.strategy, input.llm, fallbacks)
    const headLast = headEnd > 0 ? units[headEnd - 1]!.end : -1
    const firstUser = messages.slice(0, headLast + 1).find((m) => m.role === 'user' && messageText(m).trim()) ?? messages.find((m) => m.role === 'user')
    const originalTask = firstUser ? messageText(firstUser) : ''
    const previousSummary: PreviousSummary | undefined = previous ? { round: previous.round, text: previous.text, index: previous.index } : undefined
    for (const s of chain) {
      try {
        const res = await s.summarize({
          messages: summarizedMessages,
          previousSummary,
          originalTask,
          round,
          budgetTokens: summaryBudget,
          counter,
          preserveErrorDetails: options.preserveErrorDetails,
          instructions: options.instructions,
          instructionsMode: options.instructionsMode,
          signal: input.signal,
        })
        const tokens = Math.ceil(counter.text(res.text) * counter.margin)
        if (!res.text.trim()) throw new SummarizerError('empty', 'the summary was empty')
        if (detectSummaryRound(res.text) !== round) throw new SummarizerError('malformed', `the summary does not start with the round ${round} header`)
        if (tokens > summaryBudget) throw new SummarizerError('over_budget', `the summary has ${tokens} tokens, over its budget of ${summaryBudget}`)
        summary = res
        summaryBy = s.name
        costUsd = res.costUsd ?? 0
        break
      } catch (err) {
        if (input.signal?.aborted) throw err
        const reason = err instanceof SummarizerError ? `${err.kind}: ${err.message}` : `error: ${err instanceof Error ? err.message : String(err)}`
        fallbacks.push({ strategy: s.name, reason })
      }
    }
  }

  // 6. Assemble.
  const out: CanonicalMessage[] = []
  const headMessages = messages.slice(0, headEnd > 0 ? units[headEnd - 1]!.end + 1 : 0)
  out.push(...headMessages)
  const role = options.summaryRole ?? 'user'
  let summaryIndex = -1
  let logEntries: { text: string; order: number; priority: number }[] = []
  let logOmitted = 0
  if (summary && (plan.logUnits || (plan.previousLogLines > 0 && previousLog.length > 0))) {
    const keep = (order: number) => !plan.logSelection || plan.logSelection.has(`${order}`)
    const all: { text: string; order: number; priority: number }[] = previousLog.map((l, k) => ({ text: l.text, order: k - previousLog.length, priority: l.priority }))
    if (plan.logUnits) {
      for (let ui = plan.logUnits[0]; ui < plan.logUnits[1]; ui++) {
        if (isPinned(ui) || ui === previous?.unit) continue
        logOf(ui).lines.forEach((l, k) => all.push({ text: l.text, order: ui * 1000 + k, priority: l.priority }))
      }
    }
    const lastAt = new Map<string, number>()
    all.forEach((l, k) => lastAt.set(l.text, k))
    all.forEach((l, k) => {
      if (lastAt.get(l.text) !== k) return // repeated: shown once, at its last occurrence
      if (keep(l.order)) logEntries.push(l)
      else logOmitted++
    })
  }
  const logText = () =>
    logEntries.length || logOmitted
      ? `\n\n${ACTION_LOG_HEADER}\n${logOmitted > 0 ? `- (${logOmitted} less important entries omitted; the summary above covers them)\n` : ''}${logEntries.map((l) => l.text).join('\n')}`
      : ''
  if (summary) {
    summaryIndex = out.length
    out.push(summaryMessage(adapter, role, summary.text + logText()))
  }
  for (let ui = headEnd; ui < plan.tailStart; ui++) {
    if (isPinned(ui)) out.push(...messagesOf(messages, units[ui]!))
    else if (inRange(ui, plan.keepUnits)) out.push(...transformed(ui).messages)
    else if (summary && inRange(ui, plan.logUnits)) continue
    else if (!summary && !inRange(ui, plan.dropUnits)) out.push(...messagesOf(messages, units[ui]!))
    else if (!summary) out.push(...transformed(ui, true).messages) // no summary could be made: keep the dropped part condensed
  }
  for (let ui = plan.tailStart; ui < units.length; ui++) {
    out.push(...(plan.maskTail ? transformed(ui, true).messages : messagesOf(messages, units[ui]!)))
  }

  const broken = findPairingProblems(out)
  if (broken.length > 0 && process.env.DEBUG_COMPACT) console.error(JSON.stringify(out.map((m) => [m.role, m.index, m.parts.map((p) => p.type + ":" + ((p as any).id ?? (p as any).callId ?? ""))])))
  if (broken.length > 0) throw new Error(`internal: compaction broke tool pairing at output index ${broken[0]!.index} (${broken[0]!.problem})`)
  let tokensAfter = total(out)
  // Line-by-line estimates can round differently from the joined log: trim its least
  // important lines until the whole fits.
  if (tokensAfter > options.targetTokens && summary && logEntries.length > 0) {
    const byValue = [...logEntries].sort((a, b) => a.priority - b.priority || a.order - b.order)
    while (tokensAfter > options.targetTokens && byValue.length > 0) {
      const drop = new Set(byValue.splice(0, Math.max(1, Math.ceil((tokensAfter - options.targetTokens) / 20))))
      logEntries = logEntries.filter((l) => !drop.has(l))
      logOmitted += drop.size
      out[summaryIndex] = summaryMessage(adapter, role, summary.text + logText())
      tokensAfter = total(out)
    }
  }
  if (tokensAfter > options.targetTokens) throw new Error(`internal: result has ${tokensAfter} tokens, over the target of ${options.targetTokens}`)
  if (tokensAfter >= tokensBefore) return untouched(`compaction would not make the conversation smaller (${tokensAfter} ≥ ${tokensBefore} tokens)`)

  const strategy: StrategyName = summaryBy ?? 'mask'
  const summaryTokens = summary ? Math.ceil(counter.text(summary.text) * counter.margin) : 0
  const compactedRange =
    plan.tailStart > headEnd ? { from: messages[units[headEnd]!.start]!.index, to: messages[units[plan.tailStart - 1]!.end]!.index } : undefined
  return {
    compacted: true,
    messages: out,
    strategy,
    fallbacks,
    repairs,
    plan: planRanges,
    event: {
      round,
      tokensBefore,
      tokensAfter,
      compressionRatio: ratio(tokensBefore, tokensAfter),
      messagesCompacted: countCompacted(units, plan),
      strategy,
      summaryTokens,
      costUsd,
      durationMs: duration(),
    },
    ...(summary ? { summary: { text: summary.text, keyFacts: summary.keyFacts, role, index: summaryIndex } } : {}),
    ...(compactedRange ? { compactedRange } : {}),
  }
}

function ratio(before: number, after: number): number {
  return after > 0 ? Math.round((before / after) * 100) / 100 : 0
}

function sumTokens(messages: readonly CanonicalMessage[], u: Unit, tokensOf: (m: CanonicalMessage) => number): number {
  let n = 0
  for (let i = u.start; i <= u.end; i++) n += tokensOf(messages[i]!)
  return n
}

function messagesOf(messages: readonly CanonicalMessage[], u: Unit): CanonicalMessage[] {
  return messages.slice(u.start, u.end + 1)
}

function unitRange([from, to]: [number, number]): number[] {
  return Array.from({ length: to - from }, (_, k) => from + k)
}

/** Units of the head: leading system/developer messages, then up to `keepFirst` user turns. */
function headUnitCount(messages: readonly CanonicalMessage[], units: readonly Unit[], keepFirst: number): number {
  let ui = 0
  while (ui < units.length && messagesOf(messages, units[ui]!).every(isSystemLike)) ui++
  let users = 0
  const isUserTurn = (m: CanonicalMessage) => m.role === 'user' && toolResultsOf(m).length === 0 && detectSummaryRound(messageText(m)) === undefined
  if (keepFirst <= 0) return ui
  // The head ends with the keepFirst-th user turn; messages before it come along.
  for (let k = ui; k < units.length; k++) {
    if (messagesOf(messages, units[k]!).some(isUserTurn)) {
      users++
      if (users >= keepFirst) return k + 1
    }
  }
  return ui
}

function findPreviousSummary(messages: readonly CanonicalMessage[], units: readonly Unit[], headEnd: number): (PreviousSummary & { unit: number }) | undefined {
  for (let ui = headEnd; ui < units.length; ui++) {
    const u = units[ui]!
    if (u.start !== u.end) continue
    const m = messages[u.start]!
    const text = messageText(m)
    const round = detectSummaryRound(text)
    if (round !== undefined) return { round, text, index: m.index, unit: ui }
  }
  return undefined
}

function initialTailStart(messages: readonly CanonicalMessage[], units: readonly Unit[], unitTokens: readonly number[], headEnd: number, o: CompactOptions): number {
  let start = units.length
  if (o.keepRecentTokens !== undefined) {
    let used = 0
    while (start > headEnd && used + unitTokens[start - 1]! <= o.keepRecentTokens) used += unitTokens[--start]!
    return start
  }
  // The unit holding message (length - keepRecent): the boundary moves earlier, never splitting a unit.
  const firstKept = Math.max(0, messages.length - o.keepRecent)
  if (o.keepRecent <= 0) return units.length
  while (start > headEnd && units[start - 1]!.end >= firstKept) start--
  return start
}

function countCompacted(units: readonly Unit[], plan: Plan): number {
  let n = 0
  for (const r of [plan.dropUnits, plan.keepUnits, plan.logUnits]) if (r) for (let ui = r[0]; ui < r[1]; ui++) n += units[ui]!.end - units[ui]!.start + 1
  if (plan.maskTail) for (let ui = plan.tailStart; ui < units.length; ui++) n += units[ui]!.end - units[ui]!.start + 1
  return n
}

function describePlan(messages: readonly CanonicalMessage[], units: readonly Unit[], headEnd: number, plan: Plan, isPinned: (ui: number) => boolean, level: 'none' | 'mask' | 'condense'): PlanRange[] {
  const ranges: PlanRange[] = []
  const add = (ui: number, action: PlanRange['action'], reason: string) => {
    const u = units[ui]!
    const last = ranges.at(-1)
    if (last && last.action === action && last.reason === reason) last.to = messages[u.end]!.index
    else ranges.push({ from: messages[u.start]!.index, to: messages[u.end]!.index, action, reason })
  }
  const kept = level === 'condense' ? 'condense' : 'mask'
  for (let ui = 0; ui < units.length; ui++) {
    if (ui < headEnd) add(ui, 'keep', 'system prompt and original task')
    else if (ui >= plan.tailStart) add(ui, plan.maskTail ? 'condense' : 'keep', plan.maskTail ? 'last turn condensed: nothing else fits' : 'recent messages')
    else if (isPinned(ui)) add(ui, 'keep', 'system message')
    else if (plan.dropUnits && ui >= plan.dropUnits[0] && ui < plan.dropUnits[1]) add(ui, 'summarize', 'older messages, replaced by the summary')
    else if (plan.logUnits && ui >= plan.logUnits[0] && ui < plan.logUnits[1]) add(ui, 'summarize', 'one-line digests in the summary\'s action log')
    else add(ui, kept, kept === 'condense' ? 'tool results masked, inputs and prose condensed' : 'tool results masked')
  }
  return ranges
}

/** The summarizers to try, in order: the requested ones, then rules and truncate as fallbacks. */
function summarizerChain(strategy: readonly StrategyName[], llm: Summarizer | undefined, fallbacks: FallbackRecord[]): Summarizer[] {
  const chain: Summarizer[] = []
  const add = (s: Summarizer) => {
    if (!chain.some((c) => c.name === s.name)) chain.push(s)
  }
  for (const name of strategy) {
    if (name === 'llm') {
      if (llm) add(llm)
      else fallbacks.push({ strategy: 'llm', reason: 'unavailable: no LLM summarizer is configured on this server' })
    } else if (name === 'rules') add(rulesSummarizer)
    else if (name === 'truncate') add(truncateSummarizer)
  }
  // Fallback chain: llm → rules → truncate, always ending with the one that cannot fail.
  add(rulesSummarizer)
  add(truncateSummarizer)
  return chain
}

function summaryMessage(adapter: FormatAdapter, role: NonNullable<CompactOptions['summaryRole']>, text: string): CanonicalMessage {
  if (adapter.format === 'anthropic' && (role === 'system' || role === 'developer')) {
    // Anthropic has no system role inside messages: the serializer moves it to the top-level system.
    return { ...getAdapter('openai').createTextMessage('system', text) }
  }
  return adapter.createTextMessage(role, text)
}

/** Format-specific edits the repair needs, built on the adapter. */
function repairOps(adapter: FormatAdapter) {
  return {
    dropResult(message: CanonicalMessage, callId: string): CanonicalMessage | null {
      const remaining = message.parts.filter((p) => !(p.type === 'tool-result' && p.callId === callId))
      if (remaining.length === 0) return null
      const raw = message.raw as Record<string, unknown>
      if (!Array.isArray(raw.content)) return null
      const content = (raw.content as Record<string, unknown>[]).filter((b) => b?.tool_use_id !== callId && b?.toolCallId !== callId)
      return { ...message, parts: remaining, raw: { ...raw, content } }
    },
    makeResults(after: CanonicalMessage, calls: { id: string; name: string }[]): CanonicalMessage[] {
      const raws: unknown[] =
        adapter.format === 'openai'
          ? calls.map((c) => ({ role: 'tool', tool_call_id: c.id, content: MISSING_RESULT_TEXT }))
          : adapter.format === 'anthropic'
            ? [{ role: 'user', content: calls.map((c) => ({ type: 'tool_result', tool_use_id: c.id, content: MISSING_RESULT_TEXT })) }]
            : [{ role: 'tool', content: calls.map((c) => ({ type: 'tool-result', toolCallId: c.id, toolName: c.name, output: { type: 'text', value: MISSING_RESULT_TEXT } })) }]
      // Parse with the call in front so the adapter resolves names; keep only the results.
      const parsed = adapter.parse([after.raw, ...raws]).messages.slice(1)
      return parsed.map((m) => ({ ...m, index: -1 }))
    },
  }
}

export const ACTION_LOG_HEADER = '### Earlier Actions (oldest first, condensed)'

function countUnits(units: readonly Unit[], [from, to]: [number, number], isPinned: (ui: number) => boolean): number {
  let n = 0
  for (let ui = from; ui < to; ui++) if (!isPinned(ui)) n += units[ui]!.end - units[ui]!.start + 1
  return n
}

/** Lines of the action log a previous round left in its summary message. */
function previousActionLog(text: string): string[] {
  const at = text.indexOf(ACTION_LOG_HEADER)
  if (at < 0) return []
  return text
    .slice(at + ACTION_LOG_HEADER.length)
    .split('\n')
    .filter((l) => l.startsWith('- ') && !l.startsWith('- ('))
}

interface LogLine {
  text: string
  /** 5: user request, failure; 4: edit, write, test run; 2: other command; 1: read, search, key sentence of prose. */
  priority: number
  tokens?: number
}

/** One line per tool call (a compact digest), per user request, and per key sentence of prose. */
function actionLogLines(unit: readonly CanonicalMessage[], preserveErrorDetails: boolean): LogLine[] {
  const results = new Map<string, { text: string; isError: boolean }>()
  for (const m of unit) for (const r of toolResultsOf(m)) results.set(r.callId, { text: r.text, isError: r.isError === true })
  const lines: LogLine[] = []
  for (const m of unit) {
    if (isSystemLike(m)) continue
    const text = m.parts.filter((p) => p.type === 'text').map((p) => (p as { text: string }).text).join('\n')
    if (m.role === 'user' && toolResultsOf(m).length === 0) {
      if (text.trim()) lines.push({ text: `- user: "${clip(text, 400)}"`, priority: 5 })
      continue
    }
    if (m.role !== 'assistant') continue
    const key = text.split(/(?<=[.!?])\s+|\n+/).find((sentence) => KEY_SENTENCE_RE.test(sentence))
    if (key) lines.push({ text: `- note: ${clip(key, 160)}`, priority: 1 })
    for (const c of toolCallsOf(m)) {
      const r = results.get(c.id)
      const d = digestToolCall(c.name, c.argsText, r?.text ?? '', r?.isError ?? false, preserveErrorDetails)
      lines.push({ text: `- ${logLineOf(d)}`, priority: d.status === 'error' ? 5 : d.kind === 'edit' || d.kind === 'write' || TEST_RE.test(d.target ?? '') ? 4 : d.kind === 'shell' ? 2 : 1 })
    }
  }
  return lines
}

const TEST_RE = /\b(test|tests|pytest|jest|vitest|mocha|tox|go test|cargo test|unittest|npm run (build|lint|check)|tsc)\b/

/** `tool target → exit N: error` on one line: what was done, to what, and how it ended. */
function logLineOf(d: ToolDigest): string {
  const target = d.target ? ` ${clip(d.kind === 'shell' ? stripHeredocBodies(d.target) : d.target, 80)}` : ''
  // Success is the default and goes unsaid; failures carry their exit code.
  const outcome = d.exitCode !== undefined && d.exitCode !== 0 ? ` → exit ${d.exitCode}` : d.status === 'error' ? ' → failed' : ''
  const error = d.errorLine ? `: ${clip(d.errorLine, 120)}` : ''
  const extra = d.kind === 'search' && d.matches !== undefined ? ` (${d.matches} matches${d.topFiles?.length ? ` in ${d.topFiles.slice(0, 2).join(', ')}` : ''})` : d.change ? ` (${clip(d.change, 70)})` : ''
  return `${d.tool}${target}${outcome}${error}${extra}`
}
