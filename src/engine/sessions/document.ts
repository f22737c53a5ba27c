/**
 * The rolling summary document (seed 000's background-agent format): its types, and
 * its text form written and read back.
 *
 * A session's summary is a markdown document of three time sections — "Previously in
 * This Session", "Yesterday", "This Week" — each a numbered list of one-line items
 * (one per evicted exchange, or several merged), plus a continuation block (seed 003).
 *
 * The stored form is text (a manual PUT replaces it by hand), so every item carries
 * its machine fields in a trailing HTML comment (`<!-- at=… i=h k=fix f=… -->`) that
 * `parseSummary` reads back; lines without one are still accepted, as hand-written.
 * `renderSummary(doc, { meta: false })` gives the display form without comments.
 */
import { extractPaths } from '../facts/tools.ts'
import type { KeyFacts } from '../compaction/types.ts'

export type SectionKey = 'session' | 'yesterday' | 'week'
export const SECTION_KEYS: readonly SectionKey[] = ['session', 'yesterday', 'week']
export const SECTION_TITLES: Record<SectionKey, string> = {
  session: 'Previously in This Session',
  yesterday: 'Yesterday',
  week: 'This Week',
}
export const CONTINUATION_TITLE = 'Continuation'

export type Importance = 'high' | 'medium' | 'low'
export type ItemKind = 'decision' | 'feature' | 'fix' | 'refactor' | 'test' | 'debug' | 'dead-end' | 'trivial' | 'request'
const KINDS: readonly ItemKind[] = ['decision', 'feature', 'fix', 'refactor', 'test', 'debug', 'dead-end', 'trivial', 'request']

export interface SummaryItem {
  /** One line; segments separated by "; ", most telling first (condensing keeps the leading ones). */
  text: string
  /** ISO time of the summarised work (its latest message), else when it was appended. Ages the item. */
  at: string
  /** Earliest time of a merged item (a date range), absent for a single exchange. */
  since?: string
  /** Approximate tokens of the exchange(s) summarised, rounded to what is displayed. */
  tokens: number
  importance: Importance
  kind?: ItemKind
  files?: string[]
  /**
   * Never aged out (fit.ts): the session's original task, or an item holding a standing
   * constraint of the user's (facts/handover.ts isStandingConstraint). Stored as `p=…`.
   */
  pin?: ItemPin
}

export type ItemPin = 'task' | 'constraint'
const PINS: readonly ItemPin[] = ['task', 'constraint']

/** Seed 003's continuation fields. */
export type Continuation = Pick<KeyFacts, 'currentTask' | 'completedSteps' | 'pendingSteps' | 'keyDecisions' | 'relevantFiles'>

export interface SummaryDocument {
  sections: Record<SectionKey, SummaryItem[]>
  continuation: Continuation
}

export function emptySummary(): SummaryDocument {
  return {
    sections: { session: [], yesterday: [], week: [] },
    continuation: { currentTask: '', completedSteps: [], pendingSteps: [], keyDecisions: [], relevantFiles: [] },
  }
}

/** A deep copy: updates never modify the document they were given. */
export function cloneDoc(doc: SummaryDocument): SummaryDocument {
  const c = doc.continuation
  return {
    sections: {
      session: doc.sections.session.map((i) => ({ ...i })),
      yesterday: doc.sections.yesterday.map((i) => ({ ...i })),
      week: doc.sections.week.map((i) => ({ ...i })),
    },
    continuation: {
      currentTask: c.currentTask,
      completedSteps: [...c.completedSteps],
      pendingSteps: [...c.pendingSteps],
      keyDecisions: [...c.keyDecisions],
      relevantFiles: [...c.relevantFiles],
    },
  }
}

/** Milliseconds of a time given as ISO text, epoch ms or a Date; throws on an invalid one. */
export function toMs(t: string | number | Date): number {
  const ms = t instanceof Date ? t.getTime() : typeof t === 'number' ? t : Date.parse(t)
  if (!Number.isFinite(ms)) throw new RangeError(`invalid time: ${String(t)}`)
  return ms
}

export const iso = (ms: number) => new Date(ms).toISOString()

// ---------------------------------------------------------------------------
// Text form

/** Tokens as displayed: exact under 1000, one decimal under 10k, whole k above. */
export function formatTokens(n: number): string {
  if (n < 1000) return String(n)
  if (n < 10_000) return `${Number((n / 1000).toFixed(1))}k`
  return `${Math.round(n / 1000)}k`
}

/** Rounds to the displayed precision, so that what is parsed back is what was stored. */
export function roundTokens(n: number): number {
  const v = Math.max(0, Math.round(n))
  if (v < 1000) return v
  if (v < 10_000) return Math.round(v / 100) * 100
  return Math.round(v / 1000) * 1000
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat']
/** `YYYY-MM-DD HH:MMZ`: the minute an ISO time falls in. */
export const minute = (t: string) => `${t.slice(0, 10)} ${t.slice(11, 16)}Z`

/** The visible time label of seed 000's format: a timestamp, nothing, or a day (with ranges). */
function timeLabel(item: SummaryItem, section: SectionKey): string | undefined {
  if (section === 'yesterday') return undefined
  if (section === 'session') {
    const to = minute(item.at)
    if (!item.since || minute(item.since) === to) return to
    const from = minute(item.since)
    return from.slice(0, 10) === to.slice(0, 10) ? `${from.slice(0, -1)}-${to.slice(11)}` : `${from}-${to}`
  }
  const day = (t: string) => DAYS[new Date(t).getUTCDay()]!
  const to = day(item.at)
  return item.since && item.since.slice(0, 10) !== item.at.slice(0, 10) ? `${day(item.since)}-${to}` : to
}

/** Keeps the one-line form and the comment delimiters out of item text. */
export function oneLine(s: string): string {
  // ASCII whitespace only: a no-break space is kept (items.ts joins a command's own "; " with one, so it is no segment separator).
  return s.replace(/<!--|-->/g, '').replace(/[ \t\n\r\f\v]+/g, ' ').trim()
}

/** Percent-encodes only what would break the comment's `key=a,b` syntax, so paths stay readable and cheap. */
const encodeFile = (p: string) => p.replace(/[%,\s>]/g, encodeURIComponent)
const decodeFile = (p: string) => {
  try {
    return decodeURIComponent(p)
  } catch {
    return p // a hand-edited comment with a stray %
  }
}

function itemMeta(item: SummaryItem): string {
  const f = [`at=${item.at}`]
  if (item.since) f.push(`since=${item.since}`)
  f.push(`i=${item.importance[0]}`)
  if (item.kind) f.push(`k=${item.kind}`)
  if (item.files?.length) f.push(`f=${item.files.map(encodeFile).join(',')}`)
  if (item.pin) f.push(`p=${item.pin}`)
  return `<!-- ${f.join(' ')} -->`
}

export function renderItem(item: SummaryItem, n: number, section: SectionKey, meta: boolean): string {
  const label = [timeLabel(item, section), item.tokens > 0 ? `~${formatTokens(item.tokens)} tokens` : undefined].filter(Boolean).join(', ')
  return `${n}. ${oneLine(item.text)}${label ? ` (${label})` : ''}${meta ? ` ${itemMeta(item)}` : ''}`
}

/** The continuation block's lines for the fields that have content (no heading). */
export function renderContinuationLines(c: Continuation): string[] {
  const out: string[] = []
  if (c.currentTask) out.push(`Current task: ${oneLine(c.currentTask)}`)
  const list = (label: string, xs: string[]) => {
    if (xs.length) out.push(`${label}:`, ...xs.map((x) => `- ${oneLine(x)}`))
  }
  list('Completed', c.completedSteps)
  list('Pending', c.pendingSteps)
  list('Key decisions', c.keyDecisions)
  if (c.relevantFiles.length) out.push(`Relevant files: ${c.relevantFiles.join(', ')}`)
  return out
}

function renderContinuationSection(c: Continuation): string | undefined {
  const out = renderContinuationLines(c)
  return out.length ? `## ${CONTINUATION_TITLE}\n${out.join('\n')}` : undefined
}

/**
 * Seed 000's format: the three sections (always present, oldest item first) and a final
 * continuation block when it has content. `meta: false` leaves out the item comments
 * (display form; it is never longer than the stored form).
 */
export function renderSummary(doc: SummaryDocument, opts: { meta?: boolean } = {}): string {
  const meta = opts.meta !== false
  // A section with nothing in it is left out: an empty heading tells the agent nothing.
  const blocks = SECTION_KEYS.filter((key) => doc.sections[key].length > 0).map((key) =>
    [`## ${SECTION_TITLES[key]}`, ...doc.sections[key].map((item, i) => renderItem(item, i + 1, key, meta))].join('\n'),
  )
  const cont = renderContinuationSection(doc.continuation)
  if (cont) blocks.push(cont)
  return `${blocks.join('\n\n')}\n`
}

// ---------------------------------------------------------------------------
// Parsing (own output, hand-written and LLM-written summaries)

export type Block = SectionKey | 'continuation' | 'other'

function blockOf(title: string): Block {
  const t = title.toLowerCase().replace(/[*_`:#[\]]/g, ' ').replace(/\s+/g, ' ').trim()
  if (/continuation|previous session context|current state|next steps|where (we|i) (are|left)/.test(t)) return 'continuation'
  if (/yesterday/.test(t)) return 'yesterday'
  if (/week|earlier|older/.test(t)) return 'week'
  if (/session|today|recent/.test(t)) return 'session'
  return 'other'
}

/** The block a heading line opens (`## Yesterday`, `[Previous Session Context]`), or undefined for any other line. */
export function headingBlock(line: string): Block | undefined {
  const heading = /^\s*#{1,6}\s*(.+?)\s*#*\s*$/.exec(line) ?? /^\s*\[(previous session context)\]\s*$/i.exec(line)
  return heading ? blockOf(heading[1]!) : undefined
}

const LIST_RE = /^\s*(?:\d+[.)]|[-*+•])\s+(.*)$/
/** A line that is only an ellipsis (an example's "…", a model's "..."): it says nothing. */
const ELLIPSIS_RE = /^\s*(?:(?:\d+[.)]|[-*+•])\s+)?(?:…|\.{3})\s*$/
const META_RE = /\s*<!--(.*?)-->\s*$/
const TRAIL_RE = /\s*\(([^()]*)\)\s*$/
const TOKENS_RE = /~?\s*([\d.,]+)\s*(k)?\s*tokens?/i
const STAMP_RE = /(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)Z?/

type ContField = 'completedSteps' | 'pendingSteps' | 'keyDecisions' | 'relevantFiles'
/** A continuation field by its key. */
export type ContinuationField = keyof Continuation
export const CONTINUATION_FIELDS: readonly ContinuationField[] = ['currentTask', 'completedSteps', 'pendingSteps', 'keyDecisions', 'relevantFiles']
const CONT_LABELS: [RegExp, ContinuationField][] = [
  [/^(current task|task|working on)$/, 'currentTask'],
  [/^(completed( steps)?|done)$/, 'completedSteps'],
  [/^(pending( steps)?|next( steps)?|todo|remaining)$/, 'pendingSteps'],
  [/^(key decisions|decisions)$/, 'keyDecisions'],
  [/^(relevant files|files)$/, 'relevantFiles'],
]

/** Items parseItem found no time for (dated `now` until parseSummary knows better). */
const UNDATED = new WeakSet<SummaryItem>()

function parseItem(body: string, nowIso: string): SummaryItem {
  let rest = body
  const fields = new Map<string, string>()
  const meta = META_RE.exec(rest)
  if (meta) {
    rest = rest.slice(0, meta.index)
    for (const kv of meta[1]!.trim().split(/\s+/)) {
      const eq = kv.indexOf('=')
      if (eq > 0) fields.set(kv.slice(0, eq), kv.slice(eq + 1))
    }
  }
  let tokens = 0
  let stamp: string | undefined
  const trail = TRAIL_RE.exec(rest)
  if (trail) {
    const inner = trail[1]!
    const tk = TOKENS_RE.exec(inner)
    const st = STAMP_RE.exec(inner)
    // Only a label that is really a time/token note is stripped; other parentheses are text.
    if (tk || st || /^(Sun|Mon|Tue|Wed|Thu|Fri|Sat)\b/.test(inner)) {
      rest = rest.slice(0, trail.index)
      if (tk) tokens = roundTokens(Number(tk[1]!.replace(/,/g, '')) * (tk[2] ? 1000 : 1))
      if (st) {
        const ms = Date.parse(`${st[1]}T${st[2]}Z`)
        if (Number.isFinite(ms)) stamp = iso(ms)
      }
    }
  }
  const text = oneLine(rest)
  const validIso = (v: string | undefined) => (v && Number.isFinite(Date.parse(v)) ? iso(Date.parse(v)) : undefined)
  const imp = fields.get('i')
  const kind = fields.get('k') as ItemKind | undefined
  const at = validIso(fields.get('at')) ?? stamp
  const item: SummaryItem = {
    text,
    at: at ?? nowIso,
    tokens,
    importance: imp === 'h' ? 'high' : imp === 'l' ? 'low' : 'medium',
  }
  if (!at) UNDATED.add(item)
  const since = validIso(fields.get('since'))
  if (since) item.since = since
  if (kind && KINDS.includes(kind)) item.kind = kind
  const pin = fields.get('p') as ItemPin | undefined
  if (pin && PINS.includes(pin)) item.pin = pin
  const files = fields.has('f') ? fields.get('f')!.split(',').filter(Boolean).map(decodeFile) : meta ? [] : extractPaths(text, 6)
  if (files.length) item.files = files
  return item
}

function splitInline(value: string, field: ContField): string[] {
  const v = value.trim()
  if (!v || /^(none|n\/a|-)$/i.test(v)) return []
  // Seed 003 joins steps and files with ", " and decisions with "; ".
  const sep = field === 'keyDecisions' || v.includes(';') ? /;\s+/ : /,\s+/
  return v.split(sep).map((s) => s.trim()).filter(Boolean)
}

/**
 * Reads what renderSummary writes, exactly, and anything else leniently: known headings
 * (and near names: "Today", "Earlier this week", "[Previous Session Context]") pick the
 * section; list items and loose lines elsewhere become items (importance medium, `at`
 * from a visible timestamp); indented lines continue the previous item. An item without
 * a time of its own (hand-written, or new in a model's answer) takes the newest time of
 * the dated ones, else `now`: it is as recent as the session's activity, and never
 * makes an old session look active today (items age against that activity, fit.ts).
 */
export function parseSummary(text: string, now: string | number | Date): SummaryDocument {
  return readSummary(text, now).doc
}

/**
 * parseSummary, and which continuation fields the text states by their label ("Current
 * task: none" states that there is none; a field without its label line is not stated).
 */
export function readSummary(text: string, now: string | number | Date): { doc: SummaryDocument; stated: Set<ContinuationField> } {
  const nowIso = iso(toMs(now))
  const doc = emptySummary()
  const stated = new Set<ContinuationField>()
  let block: Block = 'other'
  let field: ContField | undefined
  let last: SummaryItem | undefined
  const addItem = (body: string) => {
    const item = parseItem(body, nowIso)
    if (!item.text) return
    doc.sections[block === 'yesterday' || block === 'week' ? block : 'session'].push(item)
    last = item
  }
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trimEnd()
    if (!line.trim() || ELLIPSIS_RE.test(line)) continue
    const heading = headingBlock(line)
    if (heading) {
      block = heading
      field = undefined
      last = undefined
      continue
    }
    if (block === 'continuation') {
      const m = /^\s*(?:[-*]\s+)?\**([A-Za-z][A-Za-z ]*?)\**\s*:\s*(.*)$/.exec(line)
      const label = m ? CONT_LABELS.find(([re]) => re.test(m[1]!.toLowerCase().trim()))?.[1] : undefined
      if (m && label) {
        stated.add(label)
        if (label === 'currentTask') {
          const task = oneLine(m[2]!)
          doc.continuation.currentTask = /^(none|n\/a|-)$/i.test(task) ? '' : task
          field = undefined
        } else {
          field = label
          doc.continuation[label].push(...splitInline(m[2]!, label))
        }
        continue
      }
      const li = LIST_RE.exec(line)
      if (field && li) {
        doc.continuation[field].push(oneLine(li[1]!))
        continue
      }
    }
    const li = LIST_RE.exec(line)
    if (li) addItem(li[1]!)
    else if (last && /^\s{2,}\S/.test(raw) && block !== 'continuation') {
      // A wrapped item (seed 000 writes some over two lines): its tail may hold the label.
      const joined = parseItem(`${last.text} ${line.trim()}`, nowIso)
      Object.assign(last, { text: joined.text }, joined.tokens ? { tokens: joined.tokens } : {}, UNDATED.has(joined) ? {} : { at: joined.at })
      if (!UNDATED.has(joined)) UNDATED.delete(last)
    } else addItem(line.trim())
  }
  const items = SECTION_KEYS.flatMap((key) => doc.sections[key])
  const dated = items.filter((i) => !UNDATED.has(i)).map((i) => Date.parse(i.at))
  if (dated.length > 0 && dated.length < items.length) {
    const newest = iso(Math.max(...dated))
    for (const item of items) if (UNDATED.has(item)) item.at = newest
  }
  for (const key of SECTION_KEYS) sortByTime(doc.sections[key])
  return { doc, stated }
}

/** Oldest first. */
export function sortByTime(items: SummaryItem[]): void {
  // Stable: equal times (hand-written items stamped `now`) keep their written order.
  items.sort((a, b) => Date.parse(a.at) - Date.parse(b.at))
}
