/**
 * Step "plan": decide, segment by segment, what stays verbatim, what stays condensed,
 * what becomes lines of the action log and what only the summary carries, so that the
 * whole fits the target. Cheapest first: mask the middle; then summarise its oldest part
 * and keep the newer part condensed; then shrink the verbatim tail; then condense the
 * last turn. Every number is a format-neutral count (conversation/segments.ts), so the
 * same conversation gets the same plan in every format.
 */
import type { LogLine } from './action-log.ts'

export type Range = [number, number] // [from, to) segment indexes

export interface Plan {
  /** Segment index where the verbatim tail begins. */
  tailStart: number
  /** Middle segments kept, masked or condensed. */
  keep: Range | null
  /** Middle segments whose digests go to the action log (when there is a log). */
  log: Range | null
  /** Log lines chosen when they did not all fit (by key); null keeps them all. */
  logSelection: Set<string> | null
  /** Whether a summary message is written. */
  summary: boolean
  /** The tail is condensed too: nothing else fitted. */
  condenseTail: boolean
  /** Masking alone was tried and did not reach the target. */
  maskFellShort: boolean
  /** The reserve the summary sections got (one of summaryReserves; 0 without a summary). */
  summaryReserve: number
  estimatedTokens: number
}

export interface PlanInput {
  segmentCount: number
  headEnd: number
  initialTailStart: number
  target: number
  /** Verbatim tokens of the head. */
  headTokens: number
  /**
   * Tokens held back for the summary sections (plus message overhead), largest first: a
   * smaller reserve is tried before the verbatim tail shrinks. Empty: no summary possible.
   */
  summaryReserves: readonly number[]
  wantsSummary: boolean
  /** Whether the pipeline keeps middle segments (shrunk by its kept form) beside the summary. */
  keepsSegments: boolean
  /** Whether the summary message carries an action log. */
  useLog: boolean
  logHeaderTokens: number
  /**
   * Once the tail has to shrink, it may take at most this share of what the head leaves of
   * the target (not of the whole target: a harness whose system prompt and task fill most
   * of the budget would otherwise leave the summary a few lines beside pages of recent output).
   */
  shrunkTailShare: number
  /**
   * The recent window's share of what the head leaves (CompactOptions.recentWindowShare),
   * past which it gives way only while the summary's room is under `summaryFloor` tokens.
   * Unset: the window is kept whenever it fits.
   */
  recentWindow?: { share: number; summaryFloor: number }
  verbatimTokens(si: number): number
  /** Tokens of the segment masked/condensed; `lastResort` condenses even the exempt results. */
  keptTokens(si: number, lastResort?: boolean): number
  /** Segments kept verbatim wherever they are (system messages in the middle). */
  pinned(si: number): boolean
  /** Segments that are an earlier compaction summary: integrated, never kept beside the new one. */
  earlier(si: number): boolean
  logLines(si: number): readonly LogLine[]
  /** Lines carried over from an earlier round's action log. */
  previousLog: readonly LogLine[]
  /** Log lines below this importance (reads, searches) never displace more valuable ones. */
  lowValueBelow: number
}

/** The plan with the largest verbatim tail that fits; null when nothing does. */
export function makePlan(p: PlanInput): Plan | null {
  const tailFrom = (si: number) => {
    let n = 0
    for (let k = si; k < p.segmentCount; k++) n += p.verbatimTokens(k)
    return n
  }
  for (let tail = p.initialTailStart; tail < p.segmentCount; tail++) {
    // A tail that leaves no room for the summary and the log loses more than it keeps.
    if (tail < p.segmentCount - 1 && tooLargeATail(p, tail, tailFrom(tail))) continue
    for (const reserve of reservesOf(p)) {
      const plan = planFor(p, tail, false, reserve)
      if (plan) return plan
    }
  }
  for (const reserve of reservesOf(p)) {
    const plan = planFor(p, p.segmentCount - 1, true, reserve)
    if (plan) return plan
  }
  return null
}

/**
 * Whether the tail from `tail` leaves the summary too little. A shrunk tail may take at
 * most its share of what the head leaves. The recent window (the first tail tried) may
 * take more, unless it has a share (`recentWindow`) and leaves the summary less than both
 * the rest of that share and the floor: a window of passing tests that would fit, on a
 * short session compacted to a small budget.
 */
function tooLargeATail(p: PlanInput, tail: number, tailTokens: number): boolean {
  const room = p.target - p.headTokens
  if (tail > p.initialTailStart) return tailTokens > room * p.shrunkTailShare
  const w = p.recentWindow
  return w !== undefined && tailTokens > room * w.share && room - tailTokens < w.summaryFloor
}

function reservesOf(p: PlanInput): readonly number[] {
  return p.summaryReserves.length ? p.summaryReserves : [0]
}

function planFor(p: PlanInput, tail: number, condenseTail: boolean, summaryReserve: number): Plan | null {
  if (tail < p.headEnd) return null
  let tailTokens = 0
  if (condenseTail) tailTokens = p.keptTokens(tail, true)
  else for (let k = tail; k < p.segmentCount; k++) tailTokens += p.verbatimTokens(k)
  const middle: number[] = []
  let pinnedTokens = 0
  for (let si = p.headEnd; si < tail; si++) {
    if (p.pinned(si)) pinnedTokens += p.verbatimTokens(si)
    else middle.push(si)
  }
  const fixed = p.headTokens + tailTokens + pinnedTokens
  const base = { tailStart: tail, keep: null, log: null, logSelection: null, condenseTail, maskFellShort: false, summaryReserve: 0 }
  if (middle.length === 0) return condenseTail && fixed <= p.target ? { ...base, summary: false, estimatedTokens: fixed } : null

  let maskFellShort = false
  if (!p.wantsSummary) {
    let all = 0
    for (const si of middle) all += p.earlier(si) ? p.verbatimTokens(si) : p.keptTokens(si)
    if (fixed + all <= p.target) return { ...base, keep: [middle[0]!, tail], summary: false, estimatedTokens: fixed + all }
    maskFellShort = true
  }
  if (p.summaryReserves.length === 0 || fixed + summaryReserve > p.target) return null
  let room = p.target - fixed - summaryReserve
  const candidates = middle.filter((si) => !p.earlier(si))

  if (p.useLog) {
    // Every segment becomes log lines. If they all fit, the newest segments are upgraded
    // to condensed messages while room lasts; if not, the least valuable lines go first.
    room -= p.logHeaderTokens
    if (room < 0) return null
    // Newest segments are upgraded to condensed messages while the log of the rest and
    // the condensed ones fit together; if even the whole log alone does not fit, the
    // least valuable lines go first.
    // Log tokens of the segments before a split, each distinct line counted once (as
    // logCandidates renders it); kept up to date as segments move from the log to kept.
    const occurrences = new Map<string, number>()
    let logged = 0
    for (const l of p.previousLog) if (!occurrences.has(l.text)) occurrences.set(l.text, 0)
    for (const l of p.previousLog) {
      const n = occurrences.get(l.text)!
      if (n === 0) logged += l.tokens
      occurrences.set(l.text, n + 1)
    }
    for (const si of candidates) {
      for (const l of p.logLines(si)) {
        const n = occurrences.get(l.text) ?? 0
        if (n === 0) logged += l.tokens
        occurrences.set(l.text, n + 1)
      }
    }
    const unlog = (si: number) => {
      for (const l of p.logLines(si)) {
        const n = occurrences.get(l.text)! - 1
        occurrences.set(l.text, n)
        if (n === 0) logged -= l.tokens
      }
    }
    let keepStart = tail
    let selected: Set<string> | null = null
    if (logged <= room) {
      let keptCost = 0
      let used = logged
      for (let k = candidates.length - 1; k >= 0; k--) {
        const si = candidates[k]!
        unlog(si)
        const cost = keptCost + p.keptTokens(si) + logged
        if (cost > room) break
        keptCost += p.keptTokens(si)
        used = cost
        keepStart = si
      }
      room -= used
    } else {
      selected = new Set()
        const lines = logCandidates(p, candidates)
      // Most valuable first, newest first among equals; low-value lines (reads, searches)
      // only fill what is left once every line above them fitted.
      let skippedValuable = false
      for (const l of [...lines].sort((a, b) => b.priority - a.priority || b.order - a.order)) {
        if (l.tokens > room || (skippedValuable && l.priority < p.lowValueBelow)) {
          if (l.priority >= p.lowValueBelow) skippedValuable = true
          continue
        }
        room -= l.tokens
        selected.add(l.key)
      }
    }
    const inLog = candidates.filter((si) => si < keepStart)
    return {
      ...base,
      keep: keepStart < tail ? [keepStart, tail] : null,
      log: inLog.length ? [inLog[0]!, keepStart] : null,
      logSelection: selected,
      summary: true,
      maskFellShort,
      summaryReserve,
      estimatedTokens: p.target - room,
    }
  }

  // No log: keep the newest middle segments (masked) while they fit beside the summary.
  let split = tail
  if (p.keepsSegments || !p.wantsSummary) {
    for (let k = middle.length - 1; k >= 0; k--) {
      const si = middle[k]!
      if (p.earlier(si)) break
      const cost = p.keptTokens(si)
      if (cost > room) break
      room -= cost
      split = si
    }
  }
  return { ...base, keep: split < tail ? [split, tail] : null, summary: true, maskFellShort, summaryReserve, estimatedTokens: p.target - room }
}

/** Log lines of the candidate segments, a repeated line only once (its last occurrence). */
export function logCandidates(p: Pick<PlanInput, 'logLines' | 'previousLog'>, segments: readonly number[]): (LogLine & { order: number })[] {
  const all: (LogLine & { order: number })[] = []
  p.previousLog.forEach((l, k) => all.push({ ...l, order: k - p.previousLog.length }))
  for (const si of segments) p.logLines(si).forEach((l, k) => all.push({ ...l, order: si * 10_000 + k }))
  const lastAt = new Map<string, number>()
  all.forEach((l, k) => lastAt.set(l.text, k))
  return all.filter((l, k) => lastAt.get(l.text) === k)
}
