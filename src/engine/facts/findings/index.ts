/**
 * Findings: what the agent LEARNED in the compacted range, as opposed to what it touched.
 * Three kinds, read from the classified events (facts/events.ts) once per range:
 *
 *   statement   the agent's own prose stating a result or an explanation (statements.ts)
 *   evidence    the tool-output lines those statements rest on: lines whose identifiers,
 *               numbers or names the agent reused afterwards (evidence.ts, reuse.ts)
 *   values      a table or a list of values the agent wrote, kept whole (values.ts)
 *
 * Each is ranked by its evidence (how much of it the agent reused, and how late) and
 * deduplicated: a statement said again in other words, a table rewritten with the same
 * header, a file read twice count once (the latest statement and table, the first read).
 * Time is counted in events, not message positions (timesOf): the ranking must not depend
 * on the wire format, and message positions do (Anthropic carries several tool results in
 * one message, and merges consecutive prose).
 */
import type { ToolCallPart } from '../../messages/canonical.ts'
import type { ConversationEvent } from '../events.ts'
import { evidenceOf, isAcknowledgement, sourceOf, type OutputEvidence } from './evidence.ts'
import { ReuseIndex, tokensOf, tokenWeight } from './reuse.ts'
import { statementsOf, type Statement } from './statements.ts'
import { blockKey, valueBlocksOf, type ValueBlock } from './values.ts'

interface Ranked {
  /** Message position in the range (the rolling summary splits findings per exchange by it). */
  position: number
  /** Evidence score: higher is kept first. */
  score: number
}

export type Finding =
  | (Ranked & { kind: 'statement'; text: string })
  | (Ranked & { kind: 'evidence'; source: string; lines: string[] })
  | (Ranked & { kind: 'values'; title?: string; rows: string[][]; table: boolean })

/** Characters of a tool call's arguments read for reuse. */
const ARGS_SCAN_CHARS = 2000

/**
 * A call's arguments as text: their string and number values in order, up to
 * ARGS_SCAN_CHARS (a file the agent wrote is read from its start: its first lines use what
 * it learned). Read from the parsed JSON, so that neither the caller's spacing nor its
 * escaping (`\u00e9` or a raw `é`) changes a word, in any format.
 */
function argsWords(argsText: string): string {
  let value: unknown
  try {
    value = JSON.parse(argsText)
  } catch {
    return argsText.slice(0, ARGS_SCAN_CHARS)
  }
  let out = ''
  const walk = (v: unknown): void => {
    if (out.length >= ARGS_SCAN_CHARS) return
    if (typeof v === 'string' || typeof v === 'number') out += `${v}\n`
    else if (Array.isArray(v)) for (const x of v) walk(x)
    else if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x)
  }
  walk(value)
  return out.length > ARGS_SCAN_CHARS ? out.slice(0, ARGS_SCAN_CHARS) : out
}

/**
 * Findings kept per range, best first: a tight budget shows a few in the section and
 * the action log keeps the best of the rest; a roomy one keeps them all (at 25% of a
 * long session's tokens the log has room for every one).
 */
const MAX_FINDINGS = 150

const words = (s: string) => new Set(s.toLowerCase().match(/[\p{L}\p{N}_]{3,}/gu) ?? [])

/** Share of the smaller word set found in the other: a statement said again in other words. */
function overlap(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0
  let n = 0
  for (const w of a) if (b.has(w)) n++
  return n / Math.min(a.size, b.size)
}

/** Statements compared for repeats: the best ones (a long session states hundreds; only the best can be shown). */
const STATEMENTS_COMPARED = 120

/** Statements said again: the latest wording survives, with the best score of its repeats. */
function dedupeStatements(all: Statement[]): Statement[] {
  const kept: { s: Statement; words: Set<string> }[] = []
  // Newest first: the later of two at one time is the one said last (statements come in order).
  const order = new Map(all.map((s, k) => [s, k]))
  const newest = (a: Statement, b: Statement) => order.get(b)! - order.get(a)!
  const best = [...all].sort((a, b) => b.score - a.score || newest(a, b)).slice(0, STATEMENTS_COMPARED)
  for (const s of best.sort(newest)) {
    const w = words(s.text)
    const same = kept.find((k) => overlap(k.words, w) >= 0.75)
    if (same) same.s = { ...same.s, score: Math.max(same.s.score, s.score) }
    else kept.push({ s, words: w })
  }
  return kept.map((k) => k.s)
}

/**
 * Each event's time: non-assistant events (the user's words, tool calls and outputs) tick
 * it, the agent's prose takes the time just after the last of them. Consecutive prose
 * messages share one time, so a format that merges them (Anthropic's alternation) reads
 * the same times as one that does not: what came before, after or at once is the same in
 * every format, and so is every score.
 */
function timesOf(events: readonly ConversationEvent[]): number[] {
  let clock = 0
  return events.map((e) => (e.kind === 'assistant' ? clock + 1 : (clock += 2)))
}

/**
 * The findings of a range's events, best first. `later` are the events after the range
 * (the kept tail): what the agent wrote there is reuse too (its final report names what
 * it learned), though nothing there is a finding of the range.
 */
export function findingsOf(events: readonly ConversationEvent[], later: readonly ConversationEvent[] = []): Finding[] {
  const all = [...events, ...later]
  const time = timesOf(all)
  const index = new ReuseIndex((time.at(-1) ?? 0) + 1)
  const record = (e: ConversationEvent, t: number) => {
    if (e.kind === 'instruction') index.record(e.text, t, 'user')
    else if (e.kind === 'earlier-summary') index.record(e.summary.text, t, 'user')
    else if (e.kind === 'assistant') index.record(e.text, t, 'prose')
    // A file the agent wrote is read from its start: its first lines use what it learned.
    else if (e.kind === 'tool-call') index.record(argsWords(e.call.argsText), t, 'args', true)
    else if (e.kind === 'text-command') index.record(e.command, t, 'args', true)
  }
  all.forEach((e, k) => record(e, time[k]!))

  const out: Finding[] = []
  // Where each token first came out of a tool: the statements that rest on it.
  const fromOutput = new Map<string, number>()
  const seenLines = new Set<string>()
  // An output seen before (a file read again, a command re-run with the same result) teaches nothing new: not scanned again.
  const seenOutputs = new Set<string>()
  const scan = (output: string, t: number) => {
    if (seenOutputs.has(output)) return undefined
    seenOutputs.add(output)
    return evidenceOf(output, t, index, seenLines, fromOutput)
  }
  const evidenceTokens = new Map<Finding, string[]>()
  const addEvidence = (ev: OutputEvidence, position: number, source: string) => {
    const f: Finding = { kind: 'evidence', position, score: ev.score, source, lines: ev.lines.map((l) => l.text) }
    evidenceTokens.set(f, [...new Set(ev.lines.flatMap((l) => l.reused.filter((t) => tokenWeight(t) >= 0.5)))])
    out.push(f)
  }
  const pending = new Map<string, ToolCallPart>()
  const statements: Statement[] = []
  const blocks = new Map<string, ValueBlock & { score: number }>()
  const span = Math.max(1, time[events.length - 1] ?? 0)
  events.forEach((e, k) => {
    const t = time[k]!
    if (e.kind === 'tool-call') pending.set(e.call.id, e.call)
    else if (e.kind === 'tool-output') {
      const call = pending.get(e.result.callId)
      pending.delete(e.result.callId)
      const ev = scan(e.result.text, t)
      // A write's or an edit's output is an acknowledgement: nothing learned (its arguments are read only now, when needed).
      if (ev && !(call && isAcknowledgement(call))) addEvidence(ev, e.position, sourceOf(call))
    } else if (e.kind === 'text-command') {
      const ev = scan(e.output, t)
      if (ev) addEvidence(ev, e.position, sourceOf(undefined, e.command))
    } else if (e.kind === 'assistant' && !e.reasoning) {
      for (const st of statementsOf(e.text, t, e.acted, index, fromOutput)) statements.push({ ...st, message: e.position })
      const lateness = t / span
      for (const b of valueBlocksOf(e.text, e.position)) {
        let reuse = 0
        for (const tok of tokensOf(b.rows.flat().join(' '), 200)) reuse += tok.weight * index.reuse(tok.text, t)
        // A later version of the same table or list replaces the earlier one.
        blocks.set(blockKey(b), { ...b, score: (b.table ? 2.5 : 1.6) + b.numeric + 0.6 * lateness + Math.min(reuse, 1.5) })
      }
    }
  })
  const tokensOfFinding = new Map<Finding, string[]>()
  for (const s of dedupeStatements(statements)) {
    const f: Finding = { kind: 'statement', position: s.message ?? 0, score: s.score, text: s.text }
    tokensOfFinding.set(f, s.tokens)
    out.push(f)
  }
  for (const f of out) if (f.kind === 'evidence') tokensOfFinding.set(f, evidenceTokens.get(f) ?? [])
  for (const b of blocks.values()) out.push({ kind: 'values', position: b.position, score: b.score, ...(b.title ? { title: b.title } : {}), rows: b.rows, table: b.table })
  return diverse(out, tokensOfFinding).slice(0, MAX_FINDINGS)
}

/**
 * Best first, each pick discounted by how much of it the picks before it already said
 * (its distinctive tokens already covered): ten statements about one function give way
 * to what was learned about the next one.
 */
function diverse(all: readonly Finding[], tokens: ReadonlyMap<Finding, readonly string[]>): Finding[] {
  const left = [...all].sort((a, b) => b.score - a.score || a.position - b.position)
  const covered = new Set<string>()
  const out: Finding[] = []
  while (left.length > 0 && out.length < MAX_FINDINGS) {
    let best = 0
    let bestValue = -Infinity
    for (let k = 0; k < left.length; k++) {
      const f = left[k]!
      // Sorted by score: nothing further can beat the best once its full score cannot.
      if (f.score <= bestValue) break
      const own = tokens.get(f) ?? []
      const novelty = own.length ? own.filter((t) => !covered.has(t)).length / own.length : 1
      const value = f.score * (0.4 + 0.6 * novelty)
      if (value > bestValue) {
        bestValue = value
        best = k
      }
    }
    const [pick] = left.splice(best, 1)
    for (const t of tokens.get(pick!) ?? []) covered.add(t)
    out.push(pick!)
  }
  return out
}
