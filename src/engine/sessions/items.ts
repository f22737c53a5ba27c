/**
 * One exchange → its summary items: what happened in it, read by the engine's shared
 * extraction (read.ts), ranked on the shared importance scale (facts/importance.ts)
 * and written as information-dense lines, most telling segment first ("; " between
 * segments: condensing keeps the leading ones). Only evidence and conclusions are
 * written: the human's words (never harness text), files with their fate, failures
 * with their error line and failing tests, root causes, decisions. An earlier
 * compaction summary inside the exchange is folded in as items of its own (earlier.ts).
 */
import { isNetChange, isUrl, type FileFate } from '../facts/artifacts.ts'
import { isContentless, taskText } from '../facts/classify.ts'
import { isProjectFile } from '../facts/project-files.ts'
import { isStandingConstraint, type FailureFact } from '../facts/handover.ts'
import { IMPORTANCE, importanceOfDigest } from '../facts/importance.ts'
import { isMusing } from '../facts/reasoning.ts'
import { codePointCut, COMMAND_HEAD, isTestCommand, shortenPath, splitSentences } from '../facts/text.ts'
import { clipText } from './clip.ts'
import { stripHeredocBodies } from '../facts/tools.ts'
import { heuristicCounter, messageTokens, type TokenCounter } from '../tokens/count.ts'
import { iso, oneLine, roundTokens, toMs, type ItemKind, type SummaryItem } from './document.ts'
import { earlierItems } from './earlier.ts'
import { exchangeTime, type Exchange } from './exchanges.ts'
import { ITEM_MAX_CHARS, levelOf } from './rank.ts'
import { readExchanges, type BatchReading, type ExchangeFacts } from './read.ts'
import type { Finding } from '../facts/findings/index.ts'

const TEST_FILE_RE = /(^|\/)(tests?|spec|__tests__)\/|[._-](test|spec)\.\w+$|(^|\/)test_\w+\.\w+$/

/** The human's words that say something ("ok", "continue", a greeting do not); SWE-agent wrappers unwrapped. */
export function meaningfulInstructions(x: ExchangeFacts): { position: number; text: string }[] {
  return x.instructions.filter((i) => !isContentless(i.text)).map((i) => ({ position: i.position, text: taskText(i.text).trim() }))
}

/** True when one of the human's instructions in the exchange, or a sentence of one, is a standing constraint (facts/handover.ts). */
export function setsConstraint(x: ExchangeFacts): boolean {
  return meaningfulInstructions(x).some((i) => isStandingConstraint(i.text) || splitSentences(i.text).some(isStandingConstraint))
}

/** A file's path without the line range a read named (`a.ts:10-40`). */
export const filePath = (p: string) => p.replace(/(?::\d+(?:[-,]\d+)*)?(?::raw)?$/, '')

const changedFiles = (x: ExchangeFacts) => x.files.filter((f) => isNetChange(f) && !isUrl(f.path))

/** Rank of an exchange on the shared scale: the most important thing it holds. */
function scoreOf(x: ExchangeFacts): number {
  const scores: number[] = [0]
  if (meaningfulInstructions(x).length) scores.push(IMPORTANCE.instruction)
  // A failure the batch later resolved weighs what its passing re-run weighs.
  for (const f of x.failures) scores.push(f.resolvedAt === undefined ? IMPORTANCE.failure : IMPORTANCE.test)
  for (const f of changedFiles(x)) scores.push(isProjectFile(f) ? IMPORTANCE.change : IMPORTANCE.scratchChange)
  for (const t of x.tools) if (t.digest.status !== 'error' || !t.digest.errorLine) scores.push(importanceOfDigest(t.digest))
  if (x.rootCauses.length) scores.push(IMPORTANCE.rootCause)
  if (x.plan?.some((p) => p.status !== 'completed') || x.intents.length) scores.push(IMPORTANCE.pending)
  if (x.decisions.length) scores.push(IMPORTANCE.decision)
  if (x.abandoned.length) scores.push(IMPORTANCE.abandoned)
  if (answerOf(x)) scores.push(IMPORTANCE.conclusion)
  return Math.max(...scores)
}

function kindOf(x: ExchangeFacts): ItemKind {
  const project = changedFiles(x).filter(isProjectFile)
  if (project.length) {
    if (project.every((f) => TEST_FILE_RE.test(f.path))) return 'test'
    if (x.failures.length || x.rootCauses.length) return 'fix'
    if (project.every((f) => f.fate === 'renamed' || f.fate === 'deleted')) return 'refactor'
    return 'feature'
  }
  if (x.decisions.length) return 'decision'
  if (x.abandoned.length) return 'dead-end'
  if (x.tools.length || changedFiles(x).length) return 'debug'
  if (meaningfulInstructions(x).length) return 'request'
  return 'trivial'
}

/**
 * A segment never holds the segment separator ("; " becomes ", "), nor starts like a
 * markdown heading. A command's own `;` is joined with a no-break space (commandSemicolons)
 * and is left as it is.
 */
const seg = (s: string) => oneLine(s).replace(/;[ \t\n\r\f\v]+/g, ', ').replace(/^#+\s*/, '')
const code = (s: string, max: number, opts: { keepHead?: number } = {}) => `\`${clipText(stripHeredocBodies(s), max, opts).replace(/`/g, "'")}\``
/** A command's own "; " with a no-break space: no item separator, so `seg` leaves it (it had become `ls x, echo done`). */
const commandSemicolons = (s: string) => s.replace(/;\s/g, ';\u00a0')
/**
 * A shell command as a code span: its first COMMAND_HEAD characters as written (a path
 * there is not shortened to `…/name`), since they are what identifies the command and
 * what a later search for it matches; as the /compact summary writes commands.
 */
const commandCode = (s: string, max: number) => commandSemicolons(code(s, max, COMMAND_HEAD))

/** Joins the segments that fit, in order (a long one is skipped, not the shorter ones after it); the first is clipped when even it does not fit. */
export function joinSegments(segs: readonly string[], max: number): string {
  let out = ''
  for (const s of segs) {
    const cand = out ? `${out}; ${s}` : s
    if (cand.length <= max) out = cand
  }
  return out || clipText(segs[0] ?? '', max)
}

function fileSegment(f: FileFate): string {
  const path = shortenPath(f.path, 60)
  if (f.fate === 'renamed') return `renamed ${f.from ? `${shortenPath(f.from, 50)} → ` : ''}${path}`
  if (f.fate === 'deleted') return `deleted ${path}`
  const what: string[] = []
  if (f.added || f.removed) what.push(f.fate === 'created' && !f.removed ? `+${f.added}` : `+${f.added}/-${f.removed}`)
  if (f.symbols.length) what.push(`in ${f.symbols.slice(0, 3).join(', ')}`)
  const note = f.notes.filter((n) => !/^\d+ lines?$/.test(n)).at(-1)
  if (note) what.push(note)
  return `${f.fate} ${path}${what.length ? ` (${clipText(what.join(', '), 90)})` : ''}`
}

function failureSegment(x: ExchangeFacts, f: FailureFact): string {
  const failing = x.tools.filter((t) => t.position === f.position && t.digest.status === 'error').flatMap((t) => t.digest.outcome.failingTests ?? [])
  const names = [...new Set(failing.map((t) => t.name))]
  const tests = names.length ? ` [failing: ${clipText(names.slice(0, 3).join(', '), 120)}${names.length > 3 ? ` +${names.length - 3} more` : ''}]` : ''
  const exit = f.exitCode !== undefined ? ` (exit ${f.exitCode})` : ''
  return `${commandCode(f.source, 70)} failed${exit}${f.times ? ` ×${f.times}` : ''}: ${clipText(f.errorLine, 140)}${tests}${f.resolvedAt !== undefined ? ', later passed' : ''}`
}

/** The agent's final words without its musings and narration ("Let me check…"), tables and headings. */
export function answerOf(x: ExchangeFacts): string | undefined {
  if (!x.lastText) return undefined
  const lines = x.lastText.split('\n').filter((l) => !/^\s*\|/.test(l) && !/^\s*#/.test(l))
  const kept = splitSentences(lines.join('\n'), 2, 400).filter((s) => !isMusing(s) && !NARRATION_RE.test(s))
  return kept.length ? clipText(kept.slice(0, 2).join(' '), 160) : undefined
}

/** Sentences that only announce the agent's next look-around, in any of the forms agents write. */
export const NARRATION_RE = /^(?:now,? |first,? |next,? |ok(?:ay)?,? |great[,!] )?(?:let me|let's|i'll (?:now )?(?:check|look|see|inspect|read|examine|verify|investigate|search|run|open|view)|i will (?:now )?(?:check|look|see|inspect|read|examine)|i need to (?:check|look|see))\b/i

/** A finding on one line: the statement, or a table's or list's rows (cells joined, rows separated). */
function learnedText(f: Finding): string {
  if (f.kind === 'statement') return f.text
  if (f.kind === 'evidence') return `${f.source}: ${f.lines.join(' · ')}`
  return `${f.title ? `${f.title}: ` : ''}${f.rows.map((r) => r.join(' ')).join(' / ')}`
}

/** The exchange's last test run that passed (its own part of the item). */
const lastPassingTest = (x: ExchangeFacts) => x.tools.filter((t) => t.digest.kind === 'shell' && t.digest.status === 'ok' && isTestCommand(t.digest.target ?? '')).at(-1)

/** The segments of an exchange's own item, most telling first. */
function segmentsOf(x: ExchangeFacts): string[] {
  const segs: string[] = []
  const asked = meaningfulInstructions(x).map((i) => i.text)
  if (asked.length) segs.push(`Asked "${clipText(asked.join(' / '), 200).replace(/"/g, "'")}"`)

  const changed = changedFiles(x).sort((a, b) => Number(isProjectFile(b)) - Number(isProjectFile(a)) || a.lastIndex - b.lastIndex)
  if (changed.length) segs.push(changed.slice(0, 5).map(fileSegment).join(', ') + (changed.length > 5 ? ` +${changed.length - 5} more files` : ''))

  // Unresolved failures first, the latest of each kind.
  const failures = [...x.failures].sort((a, b) => Number(a.resolvedAt !== undefined) - Number(b.resolvedAt !== undefined) || b.position - a.position)
  for (const f of failures.slice(0, 3)) segs.push(failureSegment(x, f))
  const passed = lastPassingTest(x)
  if (passed && !x.failures.some((f) => f.source === passed.digest.target?.trim())) segs.push(`${commandCode(passed.digest.target!, 70)} passed`)

  for (const c of x.rootCauses.slice(-1)) segs.push(`cause: ${clipText(c, 160)}`)
  for (const d of x.decisions.slice(-2)) segs.push(`decided: ${clipText(d, 140)}`)
  for (const a of x.abandoned.slice(-1)) segs.push(`abandoned: ${clipText(a, 120)}`)
  // What was learned: the exchange's best result in the agent's words, or its table of values.
  const learned = x.findings.find((f) => f.kind !== 'evidence')
  if (learned) segs.push(`learned: ${clipText(learnedText(learned), 180)}`)

  if (!changed.length && !x.failures.length) {
    const reads = [...new Set(x.files.filter((f) => f.fate === 'read').map((f) => shortenPath(filePath(f.path), 60)))]
    const fetched = [...new Set(x.tools.filter((t) => t.digest.kind === 'search' && t.digest.target && isUrl(t.digest.target)).map((t) => t.digest.target!))]
    const searched = [...new Set(x.tools.filter((t) => t.digest.kind === 'search' && t.digest.target && !isUrl(t.digest.target)).map((t) => t.digest.target!))]
    if (reads.length) segs.push(`read ${reads.slice(0, 3).join(', ')}${reads.length > 3 ? ` +${reads.length - 3} more` : ''}`)
    // URLs whole or not at all: a cut URL points nowhere.
    if (fetched.length) segs.push(`fetched ${fetched.filter((u) => u.length <= 200).slice(0, 2).join(', ')}${fetched.length > 2 ? ` +${fetched.length - 2} more` : ''}`)
    if (searched.length) segs.push(`searched ${searched.slice(0, 2).map((s) => code(s, 50)).join(', ')}`)
  }
  const answer = answerOf(x)
  if (answer && !changed.length && !x.failures.length && !x.rootCauses.length && !x.decisions.length) segs.push(`answered: ${answer}`)
  return segs.map(seg).filter(Boolean)
}

/** Characters a `ran` span keeps of the error a run that succeeded printed. */
const PRINTED_CHARS = 80

/** A command's characters kept in a `ran` segment: its first line identifies it, and a later search finds it by its start. */
const RAN_COMMAND_CHARS = 80

/** A command as a code span on one line, its own "; " kept apart from the segment separator (a no-break space). */
function commandSpan(command: string): string {
  const first = oneLine(stripHeredocBodies(command).split('\n')[0] ?? '')
  const cut = first.length > RAN_COMMAND_CHARS ? `${first.slice(0, codePointCut(first, RAN_COMMAND_CHARS - 1))}…` : first
  return commandSemicolons(`\`${cut.replace(/`/g, "'")}\``)
}

/**
 * The shell commands the exchange ran, in order, each once by its first line, as many as
 * fit `room` characters; those a failure or the passing test run already names are left
 * out. Serves sessions whose agent drives a terminal (mini-SWE-agent, pi's bash, Codex's
 * shell): their items named the files and failures but dropped most commands, 17% of them
 * kept on the fixtures (docs/quality.md, the rolling summary's retention). Written last, so
 * condensing drops it first.
 */
export function ranSegment(x: ExchangeFacts, room: number): string | undefined {
  return ranSpans(x, room).segment
}

/** ranSegment's segment, and the commands that did not fit it (ranContinuations writes them). */
function ranSpans(x: ExchangeFacts, room: number): { segment?: string; commands: number; rest: string[] } {
  const named = new Set(x.failures.map((f) => commandSpan(f.source)))
  const passed = lastPassingTest(x)
  if (passed?.digest.target) named.add(commandSpan(passed.digest.target))
  const spans: string[] = []
  const rest: string[] = []
  const seen = new Set<string>()
  let length = 'ran '.length
  for (const t of x.tools) {
    if (t.digest.kind !== 'shell' || !t.digest.target) continue
    const command = commandSpan(t.digest.target)
    if (command.length <= 2 || named.has(command) || seen.has(command)) continue
    seen.add(command)
    // A non-zero exit that is no failure (grep matching nothing, a probe for a missing file)
    // is still what the agent learned: "nothing there". The error a run that succeeded
    // printed (the symptom a reproduction script showed) is said after it, as the /compact
    // action log says it (facts/printed.ts); a short value is not: on the fixtures it cost
    // more commands than it carried (docs/quality.md).
    const span = t.digest.exitCode ? `${command} exit ${t.digest.exitCode}` : t.printedError ? `${command} printed \`${clipText(t.printedError, PRINTED_CHARS).replace(/`/g, "'")}\`` : command
    if (rest.length > 0 || length + span.length + 2 > room) {
      rest.push(span)
      continue
    }
    spans.push(span)
    length += span.length + 2
  }
  return { ...(spans.length ? { segment: `ran ${spans.join(', ')}` } : {}), commands: spans.length, rest }
}

/** Continuation items per exchange at most: a runaway loop of commands does not flood the summary. */
const RAN_CONTINUATIONS_MAX = 4

/**
 * The commands of a long exchange that its item had no room for, as `ran (cont.)` items
 * of low importance, so they are the first condensed or merged when the summary's budget
 * is short, and kept while it has room. Serves terminal-driven agents whose one exchange
 * (one task) runs dozens of commands (mini-SWE-agent, SWE-agent): their single item named
 * a few and dropped the rest, with most of the summary's budget unused.
 */
export function ranContinuations(rest: readonly string[]): { text: string; commands: number }[] {
  const out: { text: string; commands: number }[] = []
  let cur: string[] = []
  let length = 0
  const lead = 'ran (cont.) '
  for (const span of rest) {
    if (cur.length && lead.length + length + span.length + 2 > ITEM_MAX_CHARS) {
      out.push({ text: `${lead}${cur.join(', ')}`, commands: cur.length })
      if (out.length === RAN_CONTINUATIONS_MAX) return out
      cur = []
      length = 0
    }
    cur.push(span)
    length += span.length + 2
  }
  if (cur.length) out.push({ text: `${lead}${cur.join(', ')}`, commands: cur.length })
  return out.slice(0, RAN_CONTINUATIONS_MAX)
}

/** An exchange's items with the facts they were written from (the continuation block reads both). */
export interface Summarized {
  /** The exchange's own item (absent when it held nothing to say: harness text only) and earlier-summary items. */
  items: SummaryItem[]
  facts: ExchangeFacts
  /**
   * The item that states a task the human set, if any: an earlier summary's task, else
   * the exchange's own item when it carries the human's words. The first one a session
   * gets is its original task (update.ts pins it).
   */
  task?: SummaryItem
}

/** The items of a batch of exchanges, read together (see read.ts), and the batch's facts. */
export function summarizeBatch(exchanges: readonly Exchange[], appendedAt: string | number | Date, counter: TokenCounter): { done: Summarized[]; reading: BatchReading } {
  const reading = readExchanges(exchanges)
  const done = exchanges.map((exchange, k) => {
    const x = reading.exchanges[k]!
    const tokens = roundTokens(exchange.messages.reduce((n, m) => n + messageTokens(m, counter), 0))
    const at = exchangeTime(exchange) ?? iso(toMs(appendedAt))
    const items: SummaryItem[] = []
    let task: SummaryItem | undefined
    const segs = segmentsOf(x)
    const head = segs.length ? joinSegments(segs, ITEM_MAX_CHARS) : ''
    const { segment: ran, commands: ranCommands, rest } = ranSpans(x, ITEM_MAX_CHARS - head.length - (head ? 2 : 0))
    if (ran) segs.push(ran)
    if (segs.length) {
      const item: SummaryItem = { text: ran ? (head ? `${head}; ${ran}` : ran) : head, at, tokens, importance: levelOf(scoreOf(x)), kind: kindOf(x) }
      const changed = changedFiles(x)
      const files = (changed.length ? changed : x.files.filter((f) => isProjectFile(f))).map((f) => filePath(f.path))
      if (files.length) item.files = [...new Set(files)].slice(0, 4)
      if (setsConstraint(x)) item.pin = 'constraint'
      if (meaningfulInstructions(x).length) task = item
      items.push(item)
      // The exchange's size shared out by the commands each item names, so the sizes still add up.
      const more = ranContinuations(rest)
      if (more.length) {
        const all = more.reduce((n, c) => n + c.commands, 0) + ranCommands + 1
        for (const { text, commands } of more) {
          const share = Math.max(1, roundTokens((tokens * commands) / all))
          item.tokens = Math.max(1, item.tokens - share)
          items.push({ text, at, tokens: share, importance: 'low', kind: item.kind })
        }
      }
    }
    let earlierTask: SummaryItem | undefined
    for (const e of x.earlier) {
      const earlier = earlierItems(e.summary, at)
      earlierTask ??= earlier.task
      items.push(...earlier.items)
    }
    // An earlier summary's task came before anything asked in this exchange.
    task = earlierTask ?? task
    // The exchange's size is shown once, on its first item.
    if (items.length && !segs.length) items[0]!.tokens = tokens
    return { items, facts: x, ...(task ? { task } : {}) }
  })
  return { done, reading }
}

/**
 * One information-dense line from the exchange's facts. An exchange with nothing to say
 * (harness text only) still gets a line, saying so; updateSummary leaves such exchanges out.
 */
export function summarizeExchange(exchange: Exchange, appendedAt: string | number | Date, counter: TokenCounter = heuristicCounter(false)): SummaryItem {
  const { done } = summarizeBatch([exchange], appendedAt, counter)
  const first = done[0]!.items[0]
  if (first) return first
  const tokens = roundTokens(exchange.messages.reduce((n, m) => n + messageTokens(m, counter), 0))
  return { text: 'no instruction or work (harness text only)', at: exchangeTime(exchange) ?? iso(toMs(appendedAt)), tokens, importance: 'low', kind: 'trivial' }
}
