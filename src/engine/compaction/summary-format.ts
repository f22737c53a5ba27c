/**
 * The structured session summary of seed 004, read and written as text.
 *
 *   ## Session Summary (Compaction Round N)
 *   ### Original Task / Completed Work / Key Technical Decisions /
 *       Current State / Pending Work / Errors & Resolutions
 *
 * Summaries come from models (and from older rounds, possibly other tools), so the
 * parser is tolerant: any heading level, `and` for `&`, bold-line headings, a
 * trailing colon. Everything here is pure.
 */
import type { KeyFacts } from './types.ts'
import { detectSummaryRound, HEADER_ANYWHERE_RE } from '../facts/summary-header.ts'

export { SUMMARY_HEADER_RE, summaryHeader, detectSummaryRound } from '../facts/summary-header.ts'

/** Section titles of seed 004, normalised (see normaliseTitle). */
export const SECTION_TITLES = [
  'original task',
  'completed work',
  'key technical decisions',
  'current state',
  'pending work',
  'errors & resolutions',
] as const

/** Lower case, `and` -> `&`, no emphasis, numbering or trailing colon. */
export function normaliseTitle(title: string): string {
  return title
    .replace(/[*_`]/g, '')
    .replace(/^\s*\d+[.)]\s*/, '')
    .replace(/:\s*$/, '')
    .replace(/\s+and\s+/gi, ' & ')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase()
}

const HEADING_RE = /^\s*#{2,6}\s+(.+?)\s*#*\s*$/
/** `**Completed Work**` or `**Completed Work:**` alone on a line: accepted for known titles only. */
const BOLD_HEADING_RE = /^\s*\*\*([^*]+?)\*\*\s*:?\s*$/

export interface ParsedSummary {
  round?: number
  /** Section bodies (trimmed) by normalised title, in order of appearance. */
  sections: Map<string, string>
}

export function parseSummarySections(text: string): ParsedSummary {
  const round = detectSummaryRound(text)
  const sections = new Map<string, string>()
  let title: string | undefined
  let body: string[] = []
  const flush = (): void => {
    if (title === undefined) return
    const content = body.join('\n').trim()
    // A repeated title (a model echoing a section) keeps both bodies.
    const prev = sections.get(title)
    sections.set(title, prev ? `${prev}\n${content}`.trim() : content)
  }
  for (const line of text.split(/\r?\n/)) {
    if (HEADER_ANYWHERE_RE.test(line)) {
      flush()
      title = undefined
      body = []
      continue
    }
    const heading = HEADING_RE.exec(line)
    const bold = heading ? undefined : BOLD_HEADING_RE.exec(line)
    const candidate = heading?.[1] ?? (bold && isKnownTitle(normaliseTitle(bold[1])) ? bold[1] : undefined)
    if (candidate !== undefined) {
      flush()
      title = normaliseTitle(candidate)
      body = []
      continue
    }
    if (title !== undefined) body.push(line)
  }
  flush()
  return { ...(round !== undefined ? { round } : {}), sections }
}

function isKnownTitle(title: string): boolean {
  return (SECTION_TITLES as readonly string[]).includes(title) || title === 'user requests'
}

// ---------------------------------------------------------------------------
// Key facts
// ---------------------------------------------------------------------------

/** Template placeholders and "nothing here" lines a model writes into empty sections. */
const EMPTY_ITEM_RE =
  /^(?:\["?(?:preserve the user|list each file|bullet list of|include dependencies|what's in progress|most recent accomplishment|remaining items|only include if|the user's request verbatim|every user message|requirements taken|each decision|key technical concepts|a design or plan|each file created|what was learned|each error|the step in progress|the next action)[^\]]*\]|none\.?|n\/a|-|no (?:errors?|changes?|file changes|pending work|decisions)\b.*|nothing\b.*)$/i

const BULLET_RE = /^\s*(?:[-*+•]|\d+[.)])\s+(?!\[[ xX]\])(.*)$/
const UNCHECKED_RE = /^\s*[-*+]\s+\[ \]\s+(.*)$/
const CHECKED_RE = /^\s*[-*+]\s+\[[xX]\]\s+(.*)$/
const TABLE_ROW_RE = /^\s*\|(.+)\|\s*$/
const TABLE_RULE_RE = /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/

/**
 * File paths with a directory and an extension (`src/a.ts`, `./x/y.js`, `/abs/p.py`),
 * not starting inside a word or URL. Bare names (`package.json`) are taken from
 * backticks only, where they cannot be confused with prose like "Node.js".
 */
const PATH_RE = /(?<![\w./:~@-])(?:\.{1,2}\/|~\/|\/)?(?:[\w@+-][\w.@+-]*\/)+[\w.@+-]*\w\.[A-Za-z][A-Za-z0-9]{0,9}\b/g
const BACKTICK_FILE_RE = /`([\w@+-][\w.@+/-]*\.[A-Za-z][A-Za-z0-9]{0,9})`/g

/** One line, without nested bullet markers or checkboxes ("- - [ ] x" -> "x"). */
function clean(item: string): string {
  return item
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^(?:[-*+•]\s+|\[[ xX]\]\s+)+/, '')
}

function keep(item: string): boolean {
  return item !== '' && !EMPTY_ITEM_RE.test(item)
}

function bullets(body: string | undefined): string[] {
  if (!body) return []
  const out: string[] = []
  for (const line of body.split('\n')) {
    const m = BULLET_RE.exec(line)
    if (m) {
      const item = clean(m[1])
      if (keep(item)) out.push(item)
    }
  }
  return out
}

function tableRows(body: string | undefined): string[][] {
  if (!body) return []
  const lines = body.split('\n')
  const rows: string[][] = []
  for (let i = 0; i < lines.length; i++) {
    const m = TABLE_ROW_RE.exec(lines[i])
    // A row followed by the |---| rule is the table's header.
    if (!m || TABLE_RULE_RE.test(lines[i]) || TABLE_RULE_RE.test(lines[i + 1] ?? '')) continue
    const cells = m[1].split('|').map((c) => clean(c))
    if (cells.some(keep)) rows.push(cells)
  }
  return rows
}

export function extractPaths(text: string): string[] {
  const out: string[] = []
  for (const m of text.matchAll(PATH_RE)) out.push(m[0])
  for (const m of text.matchAll(BACKTICK_FILE_RE)) out.push(m[1])
  return out
}

function unique(items: string[]): string[] {
  return [...new Set(items)]
}

/** A section by any of its titles (models rename them slightly). */
function section(sections: Map<string, string>, ...prefixes: string[]): string | undefined {
  for (const [title, body] of sections) if (prefixes.some((p) => title.startsWith(p))) return body
  return undefined
}

/**
 * Seed 003's continuation fields, read from a seed-004 summary. `userRequests` is left
 * empty unless the summary lists them: callers add the verbatim requests they know.
 */
export function keyFactsFromSummary(text: string, originalTask: string): KeyFacts {
  const { sections } = parseSummarySections(text)
  const completedBody = section(sections, 'completed work', 'completed')
  const pendingBody = section(sections, 'pending work', 'pending', 'next steps', 'remaining')
  const currentBody = section(sections, 'current state', 'current')
  const errorsBody = section(sections, 'errors & resolutions', 'errors')

  const working = currentBody ? /working on\**\s*:\s*(.+)/i.exec(currentBody)?.[1] : undefined
  const currentTask = working && keep(clean(working)) ? clean(working) : originalTask.trim()

  const rows = tableRows(completedBody)
  const completedSteps = unique([
    ...rows.map((cells) => cells.filter(keep).join(' — ')),
    ...bullets(completedBody),
    ...checked(text),
  ])

  const pendingSteps = unique([...unchecked(text), ...bullets(pendingBody)])

  const relevantFiles = unique([
    ...rows.map((cells) => (cells[0] ?? '').replace(/`/g, '').trim()).filter((c) => keep(c) && !/\s/.test(c)),
    ...extractPaths(text),
  ])

  const requestsBody = section(sections, 'user requests', 'requests')
  return {
    currentTask,
    completedSteps,
    pendingSteps,
    keyDecisions: bullets(section(sections, 'key technical decisions', 'key decisions', 'decisions')),
    relevantFiles,
    errors: bullets(errorsBody),
    userRequests: bullets(requestsBody),
  }
}

function unchecked(text: string): string[] {
  const out: string[] = []
  for (const line of text.split(/\r?\n/)) {
    const m = UNCHECKED_RE.exec(line)
    if (m && keep(clean(m[1]))) out.push(clean(m[1]))
  }
  return out
}

function checked(text: string): string[] {
  const out: string[] = []
  for (const line of text.split(/\r?\n/)) {
    const m = CHECKED_RE.exec(line)
    if (m && keep(clean(m[1]))) out.push(clean(m[1]))
  }
  return out
}
