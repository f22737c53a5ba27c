/**
 * The section machinery behind earlier-summary.ts: an earlier compaction summary's body,
 * whatever agent wrote it, becomes EarlierSections. Headings (markdown, bold lines, and
 * per source "Title:" lines) pick a field by their title's words; the lines under them
 * become items (a top-level bullet, table row or paragraph each, with their nested lines
 * and code blocks). Every non-blank content line lands in exactly one item: nothing is
 * dropped, only headings, table header rows and horizontal rules are structure.
 */
import { saysNoTask } from './no-task.ts'

export interface EarlierSections {
  task?: string
  requests: string[]
  files: { path: string; note: string }[]
  errors: string[]
  decisions: string[]
  knowledge: string[]
  state: string[]
  pending: string[]
  actions: string[]
  other: { title: string; body: string }[]
  /** The agent's answer a compactd summary kept whole (its deliverable section), to keep again. */
  answer?: string
}

export type ListField = 'requests' | 'errors' | 'decisions' | 'knowledge' | 'state' | 'pending' | 'actions'
export type Field = 'task' | 'files' | 'answer' | ListField

export function emptySections(): EarlierSections {
  return { requests: [], files: [], errors: [], decisions: [], knowledge: [], state: [], pending: [], actions: [], other: [] }
}

/** Lower case, no emphasis, numbering, brackets, underscores or trailing colon. */
export function normaliseHeading(title: string): string {
  return title
    .replace(/[*`]/g, '')
    .replace(/^\s*\d+[.)]\s*/, '')
    .replace(/_/g, ' ')
    .replace(/[:.]\s*$/, '')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase()
}

/**
 * The field a section title maps to, first match wins (the order settles "Completed
 * Work" vs "Current Work", "Pending Tasks" vs "Task", "Problem Solving" vs errors).
 * Undefined for titles that say nothing about their content ("Analysis", "Summary").
 */
const TITLE_FIELDS: [RegExp, Field][] = [
  // compactd's own sections whose words would match a later rule: the deliverable, and the repository's state (facts, not "current state").
  [/agent'?s answer|\bdeliverable\b/, 'answer'],
  [/\brepo(?:sitory)? state\b/, 'knowledge'],
  [/earlier actions|action log|recent actions|\bactions?\b|commands? run|completed|\bdone\b|accomplish|early progress|work log|history|changes made|what was done/, 'actions'],
  [/pending|next steps?|\btodo|to-?do|remain|follow.?ups?|current plan|^plan\b|outstanding|open (items|questions)/, 'pending'],
  [/problem solving|decision|rationale|approach|trade.?offs?/, 'decisions'],
  [/\berrors?\b|\bfix(?:es|ed)?\b|\bfailures?\b|\bbugs?\b/, 'errors'],
  [/files?\b|artifact|code sections?/, 'files'],
  [/task state|current|state\b|status|in progress|blocked|context for suffix|working on|where (we|i) (are|left)/, 'state'],
  [/primary request|original task|original request|overall goal|\bgoal|objective|intent|^task\b|main task/, 'task'],
  [/user messages|requests?\b|instructions?|constraints?|preferences?|requirements?/, 'requests'],
  [/knowledge|concepts?|context|learn|notes?\b|findings?|background|environment|insights?|references?|critical data|facts|gotchas?|lessons?|caveats?|pitfalls?/, 'knowledge'],
]

export function fieldForTitle(title: string): Field | undefined {
  const t = normaliseHeading(title)
  for (const [re, field] of TITLE_FIELDS) if (re.test(t)) return field
  return undefined
}

const BULLET_RE = /^(\s*)(?:[-*+•]|\d+[.)])\s+(.*)$/
const TABLE_ROW_RE = /^\s*\|.*\|\s*$/
const TABLE_RULE_RE = /^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$/
const RULE_RE = /^\s*(?:-{3,}|\*{3,}|_{3,}|={3,})\s*$/
const FENCE_RE = /^\s*(```|~~~)/

export function isTableRule(line: string): boolean {
  return TABLE_RULE_RE.test(line) && line.includes('-')
}

const indentOf = (line: string) => /^\s*/.exec(line)![0].replace(/\t/g, '    ').length

/**
 * Items of a section body: each top-level bullet, table row or paragraph starts one;
 * nested bullets, wrapped lines and code blocks continue it. Table header rows (the row
 * above a |---| rule), rules and horizontal rules are structure and are left out.
 */
export function splitItems(lines: readonly string[]): string[] {
  const items: string[][] = []
  const content = lines.filter((l) => l.trim() !== '')
  const indents = content.filter((l) => !FENCE_RE.test(l)).map(indentOf)
  const base = indents.length ? Math.min(...indents) : 0
  let current: string[] | undefined
  let fence: string | undefined
  let blank = false
  const start = (text: string) => {
    current = [text]
    items.push(current)
  }
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (fence !== undefined) {
      if (current) current.push(dedent(line, base))
      else start(dedent(line, base))
      if (line.trim().startsWith(fence)) fence = undefined
      continue
    }
    if (line.trim() === '') {
      blank = true
      continue
    }
    const fenceOpen = FENCE_RE.exec(line)
    if (fenceOpen) {
      fence = fenceOpen[1]
      if (current && (!blank || indentOf(line) > base)) current.push(dedent(line, base))
      else start(dedent(line, base))
      blank = false
      continue
    }
    if (RULE_RE.test(line) && !BULLET_RE.test(line)) {
      blank = true
      continue
    }
    if (TABLE_ROW_RE.test(line)) {
      const next = lines.slice(i + 1).find((l) => l.trim() !== '')
      if (!isTableRule(line) && !(next && isTableRule(next))) start(line.trim())
      blank = false
      continue
    }
    const bullet = BULLET_RE.exec(line)
    const indent = indentOf(line)
    if (bullet && indent <= base + 1) start(bullet[2]!.trim())
    else if (current && (!blank || indent > base)) current.push(dedent(line, base))
    else start(line.trim())
    blank = false
  }
  return items.map((lines) => lines.join('\n').trimEnd()).filter((s) => s.trim() !== '')
}

function dedent(line: string, base: number): string {
  let n = 0
  let i = 0
  while (i < line.length && n < base && (line[i] === ' ' || line[i] === '\t')) {
    n += line[i] === '\t' ? 4 : 1
    i++
  }
  return line.slice(i).trimEnd()
}

const BACKTICK_RE = /`([^`\s]+)`/g
const SLASH_PATH_RE = /(?<![\w:/.-])(?:~|\.{1,2})?\/?[\w@.+-]+(?:\/[\w@.+-]*)+/
const NAME_RE = /^[\w@+-][\w.@+-]*\.[A-Za-z][A-Za-z0-9]{0,9}$/

function looksLikePath(s: string): boolean {
  if (/^[a-z]+:\/\//i.test(s)) return false
  return (s.includes('/') && /[\w]/.test(s)) || NAME_RE.test(s)
}

/**
 * A files-section item as `{ path, note }`: the first path of its first line (a table
 * row's first cell, a backticked path, a slash path, or a leading file name); the note is
 * everything else, nested lines included. Undefined when the item names no path.
 */
export function fileEntry(item: string): { path: string; note: string } | undefined {
  const [first = '', ...rest] = item.split('\n')
  const restText = rest.join('\n')
  if (TABLE_ROW_RE.test(first)) {
    const cells = first.trim().replace(/^\||\|$/g, '').split(/(?<!\\)\|/).map((c) => c.replace(/\\\|/g, '|').trim())
    const path = (cells[0] ?? '').replace(/`/g, '').replace(/\s+\(\d+ files\)$/, '').trim()
    if (!path) return undefined
    const head = cells.slice(1).filter((c) => c !== '').join(' — ')
    return { path, note: joinNote(head, restText) }
  }
  let start = -1
  let end = -1
  let path = ''
  for (const m of first.matchAll(BACKTICK_RE)) {
    const candidate = m[1]!.replace(/:\d+(?:-\d+)?$/, '')
    if (looksLikePath(candidate)) {
      path = m[1]!
      start = m.index!
      end = m.index! + m[0].length
      break
    }
  }
  if (!path) {
    const m = SLASH_PATH_RE.exec(first)
    if (m && looksLikePath(m[0])) {
      path = m[0]
      start = m.index
      end = m.index + m[0].length
    }
  }
  if (!path) {
    const m = /^([\w@+-][\w.@+-]*\.[A-Za-z][A-Za-z0-9]{0,9})(?=$|[\s:,—–-])/.exec(first.replace(/^\s*(?:\*\*)?/, ''))
    if (m && !/^(?:e\.g|i\.e|etc)\./i.test(m[1]!)) {
      path = m[1]!
      start = first.indexOf(path)
      end = start + path.length
    }
  }
  if (!path) return undefined
  const before = first.slice(0, start).replace(/[\s:*`—–-]+$/, '').replace(/^\s*\*\*\s*/, '').trim()
  const after = first.slice(end).replace(/^[\s:*`—–,-]+/, '').trim()
  const head = [before, after].filter(Boolean).join(': ')
  return { path, note: joinNote(head, restText) }
}

function joinNote(head: string, rest: string): string {
  return [head, rest].filter((s) => s.trim() !== '').join('\n')
}

/** Where items of a section go; files without a path and the task's second claimant fall back sensibly. */
export function addItems(sections: EarlierSections, field: Field | 'other', title: string, items: readonly string[]): void {
  if (items.length === 0) return
  if (field === 'other') {
    sections.other.push({ title, body: items.join('\n') })
    return
  }
  if (field === 'answer') {
    sections.answer = [sections.answer, items.join('\n')].filter(Boolean).join('\n')
    return
  }
  if (field === 'task') {
    if (sections.task === undefined) sections.task = items.join('\n')
    else sections.requests.push(...items)
    return
  }
  if (field === 'files') {
    const loose: string[] = []
    for (const item of items) {
      const entry = fileEntry(item)
      if (entry) sections.files.push(entry)
      else loose.push(item)
    }
    if (loose.length) sections.other.push({ title, body: loose.join('\n') })
    return
  }
  for (const item of items) {
    // A table of files inside another section ("Completed Work | File | Action |"): file rows.
    const entry = item.startsWith('|') ? fileEntry(item) : undefined
    if (entry && looksLikePath(entry.path)) sections.files.push(entry)
    // "No pending task — awaiting the next instruction" says where the work stands: state, not a task (no-task.ts).
    else if (field === 'pending' && saysNoTask(item)) sections.state.push(item.replace(/^\[ \]\s+/, ''))
    else sections[field].push(field === 'pending' ? item.replace(/^\[ \]\s+/, '') : item)
  }
}

export interface HeadingRules {
  /** Accept a bare "Title:" line (at the body's left margin) as a heading. */
  colonHeading?: (title: string) => boolean
  /** Accept "Title: text" (at the left margin) as a heading whose body starts with the text. */
  inlineHeading?: (title: string) => boolean
  /** Route lead items labelled "**Goal:** …" / "Next steps: …" by their label (the label stays in the item). */
  labelledItems?: boolean
}

const INLINE_HEADING_RE = /^(?:\d+[.)]\s+)?([A-Z\p{Lu}][^:\n]{1,60}):[ \t]+(\S.*)$/u
const ITEM_LABEL_RE = /^(?:\*\*([^*\n]{2,40}?):?\*\*:?|([A-Z\p{Lu}][\w /&-]{1,40}):)(?:\s|$)/u

const MD_HEADING_RE = /^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$/
const BOLD_HEADING_RE = /^\s*(?:\*\*|__)([^*_]+?)(?:\*\*|__)\s*:?\s*$/
const BOLD_COLON_HEADING_RE = /^\s*(?:\*\*|__)([^*_]+?:)(?:\*\*|__)\s*$/
const COLON_HEADING_RE = /^(?:\d+[.)]\s+)?([A-Z\p{Lu}][^:]{1,70}):\s*$/u

export function headingOf(line: string, rules: HeadingRules): string | undefined {
  const md = MD_HEADING_RE.exec(line)
  if (md) return md[1]!.replace(/^\*\*|\*\*$/g, '').trim()
  const bold = BOLD_HEADING_RE.exec(line) ?? BOLD_COLON_HEADING_RE.exec(line)
  if (bold) return bold[1]!.trim()
  const colon = COLON_HEADING_RE.exec(line)
  if (colon && rules.colonHeading?.(colon[1]!)) return colon[1]!.trim()
  return undefined
}

/**
 * A markdown body into sections. Lines before the first heading go to `preamble`. A
 * section whose title names no field goes to `other` under its title; one with no items
 * (a parent heading like pi's "Progress") adds nothing.
 */
export function parseMarkdownBody(body: string, sections: EarlierSections, rules: HeadingRules & { preamble: Field | 'other'; preambleTitle?: string }): void {
  let title: string | undefined
  let field: Field | 'other' = rules.preamble
  let lines: string[] = []
  let inFence = false
  const flush = () => {
    const items = splitItems(lines)
    lines = []
    if (title !== undefined || !rules.labelledItems) return addItems(sections, field, title ?? rules.preambleTitle ?? 'Summary', items)
    for (const item of items) {
      const m = ITEM_LABEL_RE.exec(item)
      const label = m ? (m[1] ?? m[2])! : undefined
      addItems(sections, (label && fieldForTitle(label)) || field, label ?? rules.preambleTitle ?? 'Summary', [item])
    }
  }
  for (const line of body.split(/\r?\n/)) {
    if (FENCE_RE.test(line)) inFence = !inFence
    const heading = inFence || FENCE_RE.test(line) ? undefined : headingOf(line, rules)
    if (heading !== undefined) {
      flush()
      title = heading
      field = fieldForTitle(heading) ?? 'other'
      continue
    }
    const inline = inFence || !rules.inlineHeading ? undefined : INLINE_HEADING_RE.exec(line)
    if (inline && rules.inlineHeading!(inline[1]!)) {
      flush()
      title = inline[1]!.trim()
      field = fieldForTitle(title) ?? 'other'
      lines.push(inline[2]!)
      continue
    }
    lines.push(line)
  }
  flush()
}
