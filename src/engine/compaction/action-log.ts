/**
 * Step "action log": what did not fit as condensed messages becomes one line per tool
 * call, user instruction or key conclusion, appended to the summary message. Lines rank
 * by the shared importance scale (facts/importance.ts), so reads and repeats go first
 * when the log has to shrink, failures, changes and instructions last.
 */
import { toolCallsOf, toolResultsOf, type CanonicalMessage, type ToolCallPart, type ToolResultPart } from '../messages/canonical.ts'
import { callsOfResults } from '../conversation/pairing.ts'
import { digestOf } from '../facts/digest-cache.ts'
import { classifyForLog, type RunContext } from '../facts/events.ts'
import { importanceOfDigest, IMPORTANCE } from '../facts/importance.ts'
import { clipKeepingPaths, COMMAND_HEAD } from '../facts/text.ts'
import { MASK_PREFIX, refMark } from './transforms/mask.ts'
import { DELIVERABLE_HEADING } from '../facts/deliverable.ts'
import { digestToolCall, stripHeredocBodies, type ToolDigest } from '../facts/tools.ts'
import { saysNothing } from '../facts/tool-target.ts'
import { printedError, printedValue } from '../facts/printed.ts'

/** Characters kept of an agent's end-of-turn report. */
const REPORT_CHARS = 500

export const ACTION_LOG_HEADER = '### Earlier Actions (oldest first, condensed)'

export interface LogLine {
  text: string
  /** IMPORTANCE value: higher survives longer. */
  priority: number
  tokens: number
  /** Stable identity for selection: segment and position. */
  key: string
  /** For a call that only created files and succeeded: their paths (the sections may already say so). */
  created?: string[]
  /** `[ref …]` of the call's archived output, shown while the references' budget lasts (referencedLines). */
  ref?: string
  /** Tokens the ref adds to the line. */
  refTokens?: number
}

/** Lines for one segment's messages. `lineTokens` counts one line as it will be sent. */
export function segmentLogLines(
  messages: readonly CanonicalMessage[],
  segment: number,
  opts: { preserveErrorDetails: boolean; lineTokens: (s: string) => number; refOf?: (message: CanonicalMessage) => string; context?: RunContext },
): LogLine[] {
  // Each call's own result: a reused id pairs sequentially (conversation/pairing.ts).
  const results = new Map<ToolCallPart, ToolResultPart>()
  for (const [r, c] of callsOfResults(messages)) results.set(c, r)
  const refOfResult = opts.refOf ? resultRefs(messages, opts.refOf) : undefined
  const lines: LogLine[] = []
  const add = (text: string, priority: number, created?: string[], ref?: string) =>
    lines.push({
      text,
      priority,
      tokens: opts.lineTokens(text),
      key: `${segment}:${lines.length}`,
      ...(created?.length ? { created } : {}),
      ...(ref ? { ref, refTokens: opts.lineTokens(` ${ref}`) - 1 } : {}),
    })
  for (const event of classifyForLog(messages, opts.context)) {
    if (event.kind === 'instruction') add(`- user: "${clipKeepingPaths(event.text, 400)}"`, IMPORTANCE.instruction)
    else if (event.kind === 'conclusion') add(`- note: ${clipKeepingPaths(event.text, 200)}`, event.priority)
    else if (event.kind === 'report') add(`${REPORT_PREFIX}${clipKeepingPaths(event.text.replace(/\|[-: |]+\|/g, ' '), REPORT_CHARS)}`, IMPORTANCE.report)
    else if (event.kind === 'text-command') {
      const d = digestToolCall('bash', JSON.stringify({ command: event.command }), event.output, false, opts.preserveErrorDetails)
      add(`- ${logLineOf(d)}${printedError(d, event.output) || printedValue(d, event.output)}`, importanceOfDigest(d))
    } else {
      for (const c of toolCallsOf(event.message)) {
        const result = results.get(c)
        const d = digestOf(c.name, c.argsText, result, opts.preserveErrorDetails)
        // A read back of the harness's own stored output, a call whose arguments are gone: nothing to log (tool-target.ts).
        if (saysNothing(d)) continue
        const printed = printedError(d, result?.text)
        const onlyCreated = d.status !== 'error' && !d.exitCode && !printed && d.changes.length > 0 && d.changes.every((x) => x.op === 'create')
        const ref = refOfResult && result && worthReadingBack(d, result) ? refMark(refOfResult(result)) : undefined
        add(`- ${logLineOf(d)}${printed || printedValue(d, result?.text)}`, importanceOfDigest(d), onlyCreated ? d.changes.map((x) => x.path) : undefined, ref)
      }
    }
  }
  return lines
}

/** Outputs shorter than this are said whole enough by their log line: no reference. */
const REF_MIN_OUTPUT_CHARS = 400

/**
 * Whether a log line names its call's archived output: when the output holds more than
 * the line says (a read, a search, a command's long output, a failure), not for a write
 * or an edit that succeeded, whose output is an acknowledgement. Keeps the references'
 * share of the summary small (docs/quality.md measures it).
 */
function worthReadingBack(d: ToolDigest, result: ToolResultPart): boolean {
  if ((d.kind === 'write' || d.kind === 'edit') && d.status !== 'error') return false
  // An earlier round's placeholder names its original already; it is not archived itself.
  if (result.text.startsWith(MASK_PREFIX)) return false
  return result.text.length >= REF_MIN_OUTPUT_CHARS || d.status === 'error' || (d.exitCode !== undefined && d.exitCode !== 0)
}

/** Each result's archive reference: that of the message carrying it. */
function resultRefs(messages: readonly CanonicalMessage[], refOf: (message: CanonicalMessage) => string): (result: ToolResultPart) => string {
  const carrier = new Map<ToolResultPart, CanonicalMessage>()
  for (const m of messages) for (const r of toolResultsOf(m)) carrier.set(r, m)
  return (result) => refOf(carrier.get(result)!)
}

/** `tool target → exit N: error` on one line: what was done, to what, and how it ended. */
export function logLineOf(d: ToolDigest): string {
  const target = d.target ? ` ${d.kind === 'shell' ? clipKeepingPaths(stripHeredocBodies(d.target), 100, COMMAND_HEAD) : clipKeepingPaths(d.target, 100)}` : ''
  // Success is the default and goes unsaid; failures carry their evidence.
  const outcome = d.exitCode !== undefined && d.exitCode !== 0 ? ` → exit ${d.exitCode}` : d.status === 'error' ? ' → error' : ''
  const error = d.errorLine ? `: ${clipKeepingPaths(d.errorLine, 160)}` : ''
  const extra =
    d.kind === 'search' && d.matches !== undefined
      ? ` (${d.matches} matches${d.topFiles?.length ? ` in ${d.topFiles.slice(0, 2).join(', ')}` : ''})`
      : d.change
        ? ` (${clipKeepingPaths(d.change, 100)})`
        : ''
  return `${d.tool}${target}${outcome}${error}${extra}`
}

/**
 * Whether a summary line that did not fit its section (a failure, a quoted instruction)
 * already stands in the log as the line of the call or message it came from: its quoted
 * or backticked core (up to 40 characters) appears in one of `logged`. Such overflow would
 * say the same thing twice and crowd out other lines.
 */
export function overflowAlreadyLogged(line: string, logged: string): boolean {
  // A rejected attempt ties a change to the run that rejected it: the log has each alone, never the tie.
  if (line.startsWith('- Rejected: ')) return false
  const core = /`([^`]+)`|"([^"]+)"/.exec(line)
  // A whole quoted instruction, however short ("pr까지", "raddit"), matches its log line `user: "…"` exactly.
  if (core?.[2] !== undefined && !core[2].includes('…') && logged.includes(`"${core[2]}"`)) return true
  const text = (core?.[1] ?? core?.[2])?.replace(/….*$/s, '').slice(0, 40)
  return text !== undefined && text.length >= 8 && logged.includes(text)
}

/**
 * Whether an overflowed Completed Work row says only that a file was created
 * (`- path: created — …`) when the log's line for the call that wrote it says so already
 * (`created path (N lines)`): scratch scripts written by a shell heredoc would otherwise
 * take two lines of the log each.
 */
export function repeatsLoggedCreation(line: string, createdInLog: ReadonlySet<string>, logged: string): boolean {
  const row = /^- (\S+): created — /.exec(line)
  if (!row) return false
  const path = row[1]!
  return createdInLog.has(path) || logged.includes(`created ${path} (`)
}

/** Whether a log line is a user instruction (`- user: "…"`) that `sections` already quote whole. */
export function repeatsQuotedInstruction(line: string, sections: string): boolean {
  if (!line.startsWith('- user: "') || !line.endsWith('"')) return false
  const quoted = line.slice('- user: '.length)
  return !quoted.includes('…') && sections.includes(quoted)
}

/**
 * The files `fileRows` (the summary's Completed Work section) lists: by path, or in a
 * grouped row (`| dir/ (13 files) | created | a.py, b.py |`). Made once per summary.
 */
export function listedFiles(fileRows: string): (path: string) => boolean {
  const grouped = new Set<string>()
  for (const m of fileRows.matchAll(/(\S+) \(\d+ files\) \| created \| ([^|\n]*)/g)) {
    const dir = m[1]!
    for (const name of m[2]!.split(', ')) grouped.add(dir === './' ? name.trim() : dir + name.trim())
  }
  // A scaffold row (rules-render.ts scaffoldRows): `dir (N modules, M files) | created | first/: first.a.ts, first.b.ts; the same files in x, y`.
  for (const m of fileRows.matchAll(/(\S+) \(\d+ modules, \d+ files\) \| created \| ([^/|\n]+)\/: ([^;|\n]*); the same files in ([^|\n]*)/g)) {
    const [dir, first, names, others] = [m[1]!, m[2]!.trim(), m[3]!.split(', ').map((n) => n.trim()), m[4]!.split(', ').map((n) => n.trim())]
    for (const module of [first, ...others]) for (const name of names) grouped.add(`${dir}${module}/${module}${name.slice(first.length)}`)
  }
  return (path) => grouped.has(path) || fileRows.includes(`| ${path} |`)
}

/** Whether a log line only says that files were created, and every one of them is listed. */
export function repeatsListedCreation(line: LogLine, listed: (path: string) => boolean): boolean {
  return line.created !== undefined && line.created.every(listed)
}

/**
 * The summary's Completed Work section: where files are listed for sure. (Its overflow lines
 * are only candidates for the log, which may not keep them.)
 */
export function fileRowsOf(summaryText: string): string {
  const heading = '### Completed Work'
  const at = summaryText.indexOf(heading)
  if (at < 0) return ''
  const end = summaryText.indexOf('\n### ', at + heading.length)
  return summaryText.slice(at, end < 0 ? undefined : end)
}

/**
 * Whether an overflowed finding (`- found: X`) says again a conclusion the log already notes
 * (`- note: X`, clipped or whole) where it was reached: the note is the same words, in place.
 */
export function findingAlreadyNoted(line: string, logged: string): boolean {
  if (!line.startsWith('- found: ')) return false
  const body = line.slice('- found: '.length).replace(/…$/, '')
  for (const l of logged.split('\n')) {
    if (!l.startsWith('- note: ')) continue
    const note = l.slice('- note: '.length).replace(/…$/, '')
    if (note === body || (note.length >= 40 && body.startsWith(note)) || (body.length >= 40 && note.startsWith(body))) return true
  }
  return false
}

/** Whether a log line is a conclusion (`- note: …`) the sections already state (a finding, a decision). */
export function repeatsNote(line: string, sections: string): boolean {
  return line.startsWith('- note: ') && sections.includes(line.slice('- note: '.length).replace(/…$/, ''))
}


const REPORT_PREFIX = '- agent reported: '
/** Text compared without markdown marks, case or spacing (the log flattens tables and lines). */
const plain = (s: string) => s.replace(/[*`#|_>]/g, '').replace(/\s+/g, ' ').trim().toLowerCase()

/**
 * Whether a log line is the agent's report that the summary's deliverable section holds
 * (whole or in its structured form, which keeps its opening): the section is the fuller
 * copy, and the line would say its first 500 characters again.
 */
export function repeatsDeliverable(line: string, summaryText: string): boolean {
  if (!line.startsWith(REPORT_PREFIX)) return false
  const at = summaryText.indexOf(DELIVERABLE_HEADING)
  if (at < 0) return false
  const end = summaryText.indexOf('\n### ', at + DELIVERABLE_HEADING.length)
  const head = plain(line.slice(REPORT_PREFIX.length)).slice(0, 60)
  return head.length >= 30 && plain(summaryText.slice(at, end < 0 ? undefined : end)).includes(head)
}

/** Whether a log line only repeats what the summary's sections say: an instruction they quote whole, a conclusion they state, a file creation they list, the deliverable they hold. */
export function repeatsSummary(summaryText: string): (line: LogLine) => boolean {
  const listed = listedFiles(fileRowsOf(summaryText))
  return (line) => repeatsQuotedInstruction(line.text, summaryText) || repeatsNote(line.text, summaryText) || repeatsListedCreation(line, listed) || repeatsDeliverable(line.text, summaryText)
}

/** Lines of the action log an earlier compactd round left in its summary message. */
export function previousActionLog(text: string): string[] {
  const at = text.indexOf(ACTION_LOG_HEADER)
  if (at < 0) return []
  return text
    .slice(at + ACTION_LOG_HEADER.length)
    .split('\n')
    .filter((l) => l.startsWith('- ') && !l.startsWith('- ('))
}

/** The log as appended to the summary text; empty when there is nothing to show. Lines in `referenced` show their ref. */
export function renderActionLog(lines: readonly LogLine[], omitted: number, referenced?: ReadonlySet<LogLine>): string {
  if (lines.length === 0 && omitted === 0) return ''
  const note = omitted > 0 ? `- (${omitted} less important entries omitted; the summary above covers them)\n` : ''
  return `\n\n${ACTION_LOG_HEADER}\n${note}${lines.map((l) => (l.ref && referenced?.has(l) ? `${l.text} ${l.ref}` : l.text)).join('\n')}`
}

/**
 * The lines that show their archive reference: the most important first, while their refs
 * fit `budgetTokens` (a share of the summary: a reference costs about 9 tokens, so a log
 * of 40 lines would otherwise spend 7% of the summary on them). The rest stay findable by
 * search.
 */
export function referencedLines(lines: readonly LogLine[], budgetTokens: number): Set<LogLine> {
  const chosen = new Set<LogLine>()
  let left = budgetTokens
  const candidates = lines.filter((l) => l.ref !== undefined).sort((a, b) => b.priority - a.priority)
  for (const l of candidates) {
    if ((l.refTokens ?? 0) > left) continue
    left -= l.refTokens ?? 0
    chosen.add(l)
  }
  return chosen
}
