/**
 * The compaction preview's table: each input message beside the message the model will
 * receive in its place. The label says what actually happened to it, read from the output,
 * not from the plan: a plan range says "condense" for every message in it, but the engine
 * leaves many of them as they were (the most recent tool results, a call's arguments,
 * short prose), and those came back byte for byte (docs/api.md: every kept message is
 * the exact object sent).
 */
import type { Shown } from './messages.ts'

export type Action = 'keep' | 'mask' | 'condense' | 'summarize' | 'drop'
export const ACTION_LABEL: Record<Action, string> = { keep: 'kept', mask: 'masked', condense: 'condensed', summarize: 'summarised', drop: 'dropped' }

export interface PlanRange {
  from: number
  to: number
  action: Exclude<Action, 'drop'>
  reason: string
}
export interface CompactResult {
  compacted: boolean
  reason?: string
  messages: unknown[]
  system?: unknown
  format: string
  model: string
  targetTokens: number
  strategy: string
  plan: PlanRange[]
  event: { tokensBefore: number; tokensAfter: number; compressionRatio: number; summaryTokens: number; durationMs: number }
  summary?: { text: string; index: number }
  fallbacks: { strategy: string; reason: string }[]
  /** With pins or preserved strings: what the contract checked. */
  contract?: { pinned: number[]; preserved: string[] }
}
export interface Estimate {
  model: string
  totalTokens: number
  perMessage: { index: number; role: string; tokens: number }[]
}

export interface Row {
  index: number
  role: string
  action: Action
  reason: string
  before: number
  /** Tokens of its output message; 0 when it has none (summarised, dropped); null when unknown. */
  after: number | null
  /** The input message's text. */
  input: string
  /** The output message's text: what the model receives in its place; null when none (or not matched). */
  output: string | null
}

/** The summary message: new in the output, standing for the summarised rows. */
export interface SummaryRow {
  role: string
  text: string
  tokens: number | null
}

export function textOf(shown: Shown): string {
  return shown.text || shown.calls.map((c) => `${c.name}(${c.args})`).join(' ') || shown.results.map((r) => r.text).join(' ')
}

const isToolResult = (s: Shown) => s.results.length > 0 && !s.text && s.calls.length === 0
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)
const tokensAt = (e: Estimate | null, index: number) => e?.perMessage.find((p) => p.index === index)?.tokens ?? null

/**
 * Which output message stands for each input message the plan does not summarise: in
 * order, one for one, when the counts agree (the engine keeps, masks and condenses in
 * place). When they do not (a repaired tool pairing, an Anthropic message split), only
 * byte-identical messages are matched, each output message once.
 */
function matchOutputs(messages: unknown[], standing: number[], result: CompactResult): Map<number, number> {
  const outIndexes = result.messages.map((_, i) => i).filter((i) => i !== result.summary?.index)
  const matched = new Map<number, number>()
  if (outIndexes.length === standing.length) {
    standing.forEach((input, k) => matched.set(input, outIndexes[k]!))
    return matched
  }
  const unused = new Map<string, number[]>()
  for (const i of outIndexes) {
    const key = JSON.stringify(result.messages[i])
    unused.set(key, [...(unused.get(key) ?? []), i])
  }
  for (const input of standing) {
    const out = unused.get(JSON.stringify(messages[input]))?.shift()
    if (out !== undefined) matched.set(input, out)
  }
  return matched
}

/**
 * `result`: the compaction (or the dry run, when nothing was to be done); `after`: its
 * output's per-message counts, when it compacted.
 */
export function rowsOf(
  messages: unknown[],
  before: Estimate,
  result: CompactResult,
  after: Estimate | null,
  /** The display form (POST /display) of `messages` and of `result.messages`. */
  display: { input: Shown[]; output: Shown[] },
): { rows: Row[]; summary: SummaryRow | null } {
  const planAt = (i: number): PlanRange | undefined => result.plan.find((p) => p.from <= i && i <= p.to)
  const shown = display.input
  const base = (i: number) => ({ index: i, role: shown[i]!.role, before: tokensAt(before, i) ?? 0, input: textOf(shown[i]!) })
  if (!result.compacted) {
    // Nothing compacted: the model receives the input as it is, whatever the plan proposed.
    const reason = result.reason ? `returned unchanged: ${result.reason}` : 'returned unchanged'
    return { rows: messages.map((_, i) => ({ ...base(i), action: 'keep', reason: planAt(i)?.action === 'keep' ? planAt(i)!.reason : reason, after: tokensAt(before, i), output: textOf(shown[i]!) })), summary: null }
  }
  const standing = messages.map((_, i) => i).filter((i) => planAt(i) && planAt(i)!.action !== 'summarize')
  const matched = matchOutputs(messages, standing, result)
  const rows = messages.map((input, i): Row => {
    const p = planAt(i)
    if (!p) return { ...base(i), action: 'drop', reason: 'not in the output', after: 0, output: null }
    if (p.action === 'summarize') return { ...base(i), action: 'summarize', reason: p.reason, after: 0, output: null }
    const out = matched.get(i)
    // A changed tool result was masked; any other changed message took its range's action.
    const changedAs: Action = isToolResult(shown[i]!) ? 'mask' : p.action === 'keep' ? 'condense' : p.action
    if (out === undefined) return { ...base(i), action: changedAs, reason: `${p.reason} (its output message could not be matched)`, after: null, output: null }
    const output = result.messages[out]
    if (same(input, output)) {
      return { ...base(i), action: 'keep', reason: p.action === 'keep' ? p.reason : `unchanged (its range: ${p.reason})`, after: tokensAt(after, out), output: textOf(display.output[out]!) }
    }
    return { ...base(i), action: changedAs, reason: changedAs === 'mask' ? 'tool result masked' : p.reason, after: tokensAt(after, out), output: textOf(display.output[out]!) }
  })
  const s = result.summary
  const summary = s
    ? {
        role: s.index >= 0 ? display.output[s.index]!.role : 'system (top-level)',
        text: s.text,
        // Index -1 is the whole top-level system prompt, not the summary alone.
        tokens: s.index >= 0 ? tokensAt(after, s.index) : null,
      }
    : null
  return { rows, summary }
}
