/**
 * Step "assemble": the output in the caller's format — head verbatim, the summary
 * message (sections plus action log), kept middle segments masked or condensed, system
 * messages where they were, the tail verbatim (or condensed as a last resort). Then
 * "verify output": pairing must hold, and when the real count in the caller's format
 * is over the target, the least important log lines go until it fits.
 */
import type { FormatAdapter } from '../messages/adapter.ts'
import type { CanonicalMessage } from '../messages/canonical.ts'
import { findPairingProblems } from '../conversation/pairing.ts'
import { logCandidates, type Plan } from './plan.ts'
import { referencedLines, renderActionLog, type LogLine } from './action-log.ts'
import type { CompactOptions } from './types.ts'

export interface Assembly {
  messages: CanonicalMessage[]
  /** Real tokens in the caller's format (reply priming included). */
  tokens: number
  summaryIndex: number
  /** The summary message's text as sent (sections and action log). */
  summaryText?: string
}

export interface AssembleInput {
  plan: Plan
  segments: readonly { start: number; end: number; messages: CanonicalMessage[]; systemOnly: boolean; pinned: boolean }[]
  headEnd: number
  adapter: FormatAdapter
  role: NonNullable<CompactOptions['summaryRole']>
  summaryText?: string
  kept(si: number, lastResort?: boolean): { messages: CanonicalMessage[] }
  /** A tail segment as it is kept (without harness text: transforms/harness.ts). */
  verbatim(si: number): { messages: CanonicalMessage[] }
  /** Earlier compaction summaries: integrated into the new summary, never kept beside it. */
  earlier(si: number): boolean
  logLines(si: number): readonly LogLine[]
  previousLog: readonly LogLine[]
  target: number
  total(messages: readonly CanonicalMessage[]): number
  /** With archive references: the share of the summary's tokens their marks and note may take, and the note's tokens. */
  references?: { share: number; noteTokens: number }
}

const inRange = (si: number, r: [number, number] | null) => r !== null && si >= r[0] && si < r[1]

export function assemble(a: AssembleInput): Assembly {
  const { plan, segments } = a
  const out: CanonicalMessage[] = []
  for (let si = 0; si < a.headEnd; si++) out.push(...segments[si]!.messages)
  const summary = plan.summary && a.summaryText !== undefined
  let summaryIndex = -1
  let entries: (LogLine & { order: number })[] = []
  let omitted = 0
  if (summary) {
    const logged: number[] = []
    if (plan.log) for (let si = plan.log[0]; si < plan.log[1]; si++) if (!segments[si]!.pinned) logged.push(si)
    if (logged.length || a.previousLog.length) {
      for (const l of logCandidates({ logLines: a.logLines, previousLog: a.previousLog }, logged)) {
        if (!plan.logSelection || plan.logSelection.has(l.key)) entries.push(l)
        else omitted++
      }
    }
    summaryIndex = out.length
    out.push(summaryMessage(a.adapter, a.role, a.summaryText! + renderActionLog(entries, omitted)))
  }
  const render = (lines: typeof entries, left: number) => {
    const plain = a.summaryText! + renderActionLog(lines, left)
    return a.references ? a.summaryText! + renderActionLog(lines, left, refsWithin(a, summaryMessage(a.adapter, a.role, plain), lines)) : plain
  }
  if (summary && a.references) out[summaryIndex] = summaryMessage(a.adapter, a.role, render(entries, omitted))
  for (let si = a.headEnd; si < plan.tailStart; si++) {
    const s = segments[si]!
    if (s.pinned) out.push(...s.messages)
    else if (summary && a.earlier(si)) continue
    else if (inRange(si, plan.keep)) out.push(...a.kept(si).messages)
    else if (!summary) out.push(...a.kept(si, true).messages) // no summary could be made: keep it condensed
  }
  for (let si = plan.tailStart; si < segments.length; si++) out.push(...(plan.condenseTail ? a.kept(si, true).messages : a.verbatim(si).messages))

  const broken = findPairingProblems(out)
  if (broken.length > 0) throw new Error(`internal: compaction broke tool pairing at output index ${broken[0]!.index} (${broken[0]!.problem})`)
  let tokens = a.total(out)
  let summaryText = summary ? render(entries, omitted) : undefined
  if (tokens > a.target && summary && entries.length > 0) {
    const byValue = [...entries].sort((x, y) => x.priority - y.priority || x.order - y.order)
    while (tokens > a.target && byValue.length > 0) {
      const drop = new Set(byValue.splice(0, linesCovering(byValue, tokens - a.target)))
      entries = entries.filter((l) => !drop.has(l))
      omitted += drop.size
      summaryText = render(entries, omitted)
      out[summaryIndex] = summaryMessage(a.adapter, a.role, summaryText)
      tokens = a.total(out)
    }
  }
  return { messages: out, tokens, summaryIndex, ...(summaryText !== undefined ? { summaryText } : {}) }
}

/**
 * How many of `lines` (least valuable first) to drop for `excess` tokens: those whose own
 * tokens cover it, at least one. Counted by each line's size, so a long line (a finding's
 * table) counts for what it is and a run of them does not empty the log.
 */
export function linesCovering(lines: readonly { tokens: number }[], excess: number): number {
  let n = 0
  while (n < lines.length && excess > 0) excess -= lines[n++]!.tokens
  return Math.max(1, n)
}

/** The log lines whose refs fit the references' share of the summary (without refs), less the note. */
function refsWithin(a: AssembleInput, withoutRefs: CanonicalMessage, lines: readonly LogLine[]): Set<LogLine> {
  const { share, noteTokens } = a.references!
  return referencedLines(lines, Math.floor(a.total([withoutRefs]) * share) - noteTokens)
}

function summaryMessage(adapter: FormatAdapter, role: NonNullable<CompactOptions['summaryRole']>, text: string): CanonicalMessage {
  return adapter.createTextMessage(role, text)
}
