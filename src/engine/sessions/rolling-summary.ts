/**
 * The rolling session summary (seed 000's background-agent document), pure part.
 *
 * A session's summary is a markdown document of three time sections — "Previously in
 * This Session", "Yesterday", "This Week" — each a numbered list of one-line items
 * (one per evicted exchange, or several merged), plus a continuation block (seed 003).
 * Background updates fold newly evicted exchanges in, age items by their own time,
 * and compress to a hard token budget. No I/O and no clock: time is always `now`.
 *
 * The stored form is text (a manual PUT replaces it by hand), so every item carries
 * its machine fields in a trailing HTML comment (`<!-- at=… i=h k=fix f=… -->`) that
 * `parseSummary` reads back; lines without one are still accepted, as hand-written.
 * `renderSummary(doc, { meta: false })` gives the display form without comments.
 *
 * Aging boundaries (inclusive on the younger side), age = now − item.at:
 *   age ≤ 24 h → Previously in This Session;  24 h < age ≤ 7 d → Yesterday;
 *   7 d < age ≤ 14 d → This Week;  age > 14 d → dropped.
 * Items never move back to a younger section (a hand-written "Yesterday" line stamped
 * `now` stays in Yesterday).
 */
import { isSystemLike, toolResultsOf, type CanonicalMessage } from '../messages/canonical.ts'
import { heuristicCounter, messageTokens, type TokenCounter } from '../tokens/count.ts'
import { extractFacts, type ConversationFacts, type FileFact } from '../compaction/extract/facts.ts'
import { clip, extractPaths } from '../compaction/extract/tools.ts'
import { formatMessagesForSummary } from '../compaction/prompts.ts'
import type { KeyFacts } from '../compaction/types.ts'

// ---------------------------------------------------------------------------
// Model

const HOUR_MS = 3_600_000
const DAY_MS = 24 * HOUR_MS
/** Items at most this old stay in "Previously in This Session" (boundary inclusive). */
export const SESSION_MAX_AGE_MS = DAY_MS
/** Items older than SESSION_MAX_AGE_MS and at most this old are in "Yesterday". */
export const YESTERDAY_MAX_AGE_MS = 7 * DAY_MS
/** Items older than YESTERDAY_MAX_AGE_MS and at most this old are in "This Week"; older ones are dropped. */
export const WEEK_MAX_AGE_MS = 14 * DAY_MS
/** Seed 000's hard limit. */
export const DEFAULT_SUMMARY_BUDGET_TOKENS = 10_000

export type SectionKey = 'session' | 'yesterday' | 'week'
export const SECTION_KEYS: readonly SectionKey[] = ['session', 'yesterday', 'week']
export const SECTION_TITLES: Record<SectionKey, string> = {
  session: 'Previously in This Session',
  yesterday: 'Yesterday',
  week: 'This Week',
}
export const CONTINUATION_TITLE = 'Continuation'

/** Longest item text per section: recent detailed, Yesterday compressed, This Week very compressed. */
export const SECTION_TEXT_CHARS: Record<SectionKey, number> = { session: 240, yesterday: 120, week: 60 }
/** Longest text summarizeExchange writes. */
const ITEM_MAX_CHARS = 400
/** At most this many items merged into one (larger merges lose too much once condensed). */
const MAX_MERGE = 5

export type Importance = 'high' | 'medium' | 'low'
export type ItemKind = 'decision' | 'feature' | 'fix' | 'refactor' | 'test' | 'debug' | 'dead-end' | 'trivial' | 'request'
const KINDS: readonly ItemKind[] = ['decision', 'feature', 'fix', 'refactor', 'test', 'debug', 'dead-end', 'trivial', 'request']
const RANK: Record<Importance, number> = { low: 0, medium: 1, high: 2 }

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
}

/** Seed 003's continuation fields. */
export type Continuation = Pick<KeyFacts, 'currentTask' | 'completedSteps' | 'pendingSteps' | 'keyDecisions' | 'relevantFiles'>

export interface SummaryDocument {
  sections: Record<SectionKey, SummaryItem[]>
  continuation: Continuation
}

const CAPS = { completedSteps: 6, pendingSteps: 4, keyDecisions: 8, relevantFiles: 15 }

export function emptySummary(): SummaryDocument {
  return {
    sections: { session: [], yesterday: [], week: [] },
    continuation: { currentTask: '', completedSteps: [], pendingSteps: [], keyDecisions: [], relevantFiles: [] },
  }
}

function cloneDoc(doc: SummaryDocument): SummaryDocument {
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

function toMs(t: string | number | Date): number {
  const ms = t instanceof Date ? t.getTime() : typeof t === 'number' ? t : Date.parse(t)
  if (!Number.isFinite(ms)) throw new RangeError(`invalid time: ${String(t)}`)
  return ms
}

const iso = (ms: number) => new Date(ms).toISOString()

/** Section an item of this age belongs in; undefined when it is to be dropped. Boundaries are inclusive. */
export function sectionForAge(ageMs: number): SectionKey | undefined {
  if (ageMs <= SESSION_MAX_AGE_MS) return 'session'
  if (ageMs <= YESTERDAY_MAX_AGE_MS) return 'yesterday'
  if (ageMs <= WEEK_MAX_AGE_MS) return 'week'
  return undefined
}

// ---------------------------------------------------------------------------
// Text form

/** Tokens as displayed: exact under 1000, one decimal under 10k, whole k above. */
function formatTokens(n: number): string {
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
const minute = (t: string) => `${t.slice(0, 10)} ${t.slice(11, 16)}Z`

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
function oneLine(s: string): string {
  return s.replace(/<!--|-->/g, '').replace(/\s+/g, ' ').trim()
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
  return `<!-- ${f.join(' ')} -->`
}

function renderItem(item: SummaryItem, n: number, section: SectionKey, meta: boolean): string {
  const label = [timeLabel(item, section), item.tokens > 0 ? `~${formatTokens(item.tokens)} tokens` : undefined].filter(Boolean).join(', ')
  return `${n}. ${oneLine(item.text)}${label ? ` (${label})` : ''}${meta ? ` ${itemMeta(item)}` : ''}`
}

function renderContinuationSection(c: Continuation): string | undefined {
  const out: string[] = []
  if (c.currentTask) out.push(`Current task: ${oneLine(c.currentTask)}`)
  const list = (label: string, xs: string[]) => {
    if (xs.length) out.push(`${label}:`, ...xs.map((x) => `- ${oneLine(x)}`))
  }
  list('Completed', c.completedSteps)
  list('Pending', c.pendingSteps)
  list('Key decisions', c.keyDecisions)
  if (c.relevantFiles.length) out.push(`Relevant files: ${c.relevantFiles.join(', ')}`)
  return out.length ? `## ${CONTINUATION_TITLE}\n${out.join('\n')}` : undefined
}

/**
 * Seed 000's format: the three sections (always present, oldest item first) and a final
 * continuation block when it has content. `meta: false` leaves out the item comments
 * (display form; it is never longer than the stored form).
 */
export function renderSummary(doc: SummaryDocument, opts: { meta?: boolean } = {}): string {
  const meta = opts.meta !== false
  const blocks = SECTION_KEYS.map((key) =>
    [`## ${SECTION_TITLES[key]}`, ...doc.sections[key].map((item, i) => renderItem(item, i + 1, key, meta))].join('\n'),
  )
  const cont = renderContinuationSection(doc.continuation)
  if (cont) blocks.push(cont)
  return `${blocks.join('\n\n')}\n`
}

// ---------------------------------------------------------------------------
// Parsing (own output, hand-written and LLM-written summaries)

type Block = SectionKey | 'continuation' | 'other'

function blockOf(title: string): Block {
  const t = title.toLowerCase().replace(/[*_`:#[\]]/g, ' ').replace(/\s+/g, ' ').trim()
  if (/continuation|previous session context|current state|next steps|where (we|i) (are|left)/.test(t)) return 'continuation'
  if (/yesterday/.test(t)) return 'yesterday'
  if (/week|earlier|older/.test(t)) return 'week'
  if (/session|today|recent/.test(t)) return 'session'
  return 'other'
}

const LIST_RE = /^\s*(?:\d+[.)]|[-*+•])\s+(.*)$/
const META_RE = /\s*<!--(.*?)-->\s*$/
const TRAIL_RE = /\s*\(([^()]*)\)\s*$/
const TOKENS_RE = /~?\s*([\d.,]+)\s*(k)?\s*tokens?/i
const STAMP_RE = /(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)Z?/

type ContField = 'completedSteps' | 'pendingSteps' | 'keyDecisions' | 'relevantFiles'
const CONT_LABELS: [RegExp, 'currentTask' | ContField][] = [
  [/^(current task|task|working on)$/, 'currentTask'],
  [/^(completed( steps)?|done)$/, 'completedSteps'],
  [/^(pending( steps)?|next( steps)?|todo|remaining)$/, 'pendingSteps'],
  [/^(key decisions|decisions)$/, 'keyDecisions'],
  [/^(relevant files|files)$/, 'relevantFiles'],
]

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
  const item: SummaryItem = {
    text,
    at: validIso(fields.get('at')) ?? stamp ?? nowIso,
    tokens,
    importance: imp === 'h' ? 'high' : imp === 'l' ? 'low' : 'medium',
  }
  const since = validIso(fields.get('since'))
  if (since) item.since = since
  if (kind && KINDS.includes(kind)) item.kind = kind
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
 * from a visible timestamp, else `now`); indented lines continue the previous item.
 */
export function parseSummary(text: string, now: string | number | Date): SummaryDocument {
  const nowIso = iso(toMs(now))
  const doc = emptySummary()
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
    if (!line.trim()) continue
    const heading = /^\s*#{1,6}\s*(.+?)\s*#*\s*$/.exec(line) ?? /^\s*\[(previous session context)\]\s*$/i.exec(line)
    if (heading) {
      block = blockOf(heading[1]!)
      field = undefined
      last = undefined
      continue
    }
    if (block === 'continuation') {
      const m = /^\s*(?:[-*]\s+)?\**([A-Za-z][A-Za-z ]*?)\**\s*:\s*(.*)$/.exec(line)
      const label = m ? CONT_LABELS.find(([re]) => re.test(m[1]!.toLowerCase().trim()))?.[1] : undefined
      if (m && label) {
        if (label === 'currentTask') {
          doc.continuation.currentTask = oneLine(m[2]!)
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
      Object.assign(last, { text: joined.text }, joined.tokens ? { tokens: joined.tokens } : {}, joined.at !== nowIso ? { at: joined.at } : {})
    } else addItem(line.trim())
  }
  for (const key of SECTION_KEYS) sortByTime(doc.sections[key])
  return doc
}

function sortByTime(items: SummaryItem[]): void {
  // Stable: equal times (hand-written items stamped `now`) keep their written order.
  items.sort((a, b) => Date.parse(a.at) - Date.parse(b.at))
}

// ---------------------------------------------------------------------------
// Exchanges

export interface Exchange {
  messages: CanonicalMessage[]
}

/**
 * Splits a conversation at each user message that is not a tool result, so tool calls
 * stay with their results. System/developer messages belong to no exchange. Messages
 * before the first user message form an exchange of their own.
 */
export function groupExchanges(messages: readonly CanonicalMessage[]): Exchange[] {
  const out: Exchange[] = []
  let cur: CanonicalMessage[] | undefined
  for (const m of messages) {
    if (isSystemLike(m)) continue
    if (!cur || (m.role === 'user' && toolResultsOf(m).length === 0)) {
      cur = []
      out.push({ messages: cur })
    }
    cur.push(m)
  }
  return out
}

/** Time of an exchange: its latest message timestamp (when the work ended). */
export function exchangeTime(exchange: Exchange): string | undefined {
  let best = -Infinity
  for (const m of exchange.messages) {
    const ms = m.timestamp ? Date.parse(m.timestamp) : NaN
    if (Number.isFinite(ms) && ms > best) best = ms
  }
  return best > -Infinity ? iso(best) : undefined
}

/** Requests that say nothing on their own ("ok", "go", "continue", 고고): the work describes the exchange better. */
function contentless(request: string): boolean {
  const r = request.trim()
  return r.length < 8 || /^(ok(ay)?|yes|yep|sure|go( on| ahead)?|continue|proceed|next|do it|thanks?( you)?|lgtm)\b[.!\s]*$/i.test(r)
}

const ARCH_RE = /\b(architecture|architectural|design|API|interface|schema|data ?model|protocol|contract|library|framework|dependency|database|storage layer)\b/i
const ASK_DECISION_RE = /\b(design|architecture|should we|which (?:library|approach|option)|decide|choose between|trade-?offs?)\b/i
/** A decision sentence counts as a design decision only when it states a choice. */
const CHOICE_RE = /\b(decided|decision|chose|choose|going with|go with|instead of|rather than|opt(?:ed)? for|prefer)\b/i
const CONSTRAINT_RE = /\b(must|always|never|don'?t|do not|should|make sure|only|instead)\b/i
const TEST_FILE_RE = /(^|\/)(tests?|spec|__tests__)\/|[._-](test|spec)\.\w+$|(^|\/)test_\w+\.\w+$/
const TEST_CMD_RE = /\b(test|tests|pytest|jest|vitest|tap|mocha|cargo test|go test|tsc|lint|check)\b/i

/** Path without a read range suffix (`a.ts:10-40`). */
const cleanPath = (p: string) => p.replace(/:\d+(?:-\d+)?$/, '')
/** Scratch output (logs in /tmp) and URLs (agent://…) are not project files. */
const isScratch = (p: string) => /^\/(?:tmp|var\/tmp|dev)\/|:\/\//.test(p)
/** Display form: the last three path segments say enough and keep lines short; `files` keeps the full path. */
const shortPath = (p: string) => p.split('/').filter(Boolean).slice(-3).join('/')

function changedFiles(facts: ConversationFacts): FileFact[] {
  return [...facts.files.values()].filter((f) => (f.actions.has('created') || f.actions.has('modified')) && !isScratch(f.path))
}

/** Files an exchange worked on, cleaned and deduplicated: changed ones, else those read. */
function workFiles(facts: ConversationFacts, changed: FileFact[]): string[] {
  const src = changed.length ? changed : [...facts.files.values()].filter((f) => f.actions.has('read') && !isScratch(f.path))
  return [...new Set(src.map((f) => cleanPath(f.path)))]
}

/** User turns that are not requests: a pasted summary of an earlier compaction. */
function requestsOf(facts: ConversationFacts): string[] {
  return facts.userRequests.map((r) => r.text.trim()).filter((t) => !/^\W{0,3}\[[^\]\n]{0,60}summary[^\]\n]{0,20}\]/i.test(t) && !/^#+ *session summary/i.test(t))
}

/** Seed 000's ranking: decisions/architecture/major features HIGH; fixes, refactors, tests MEDIUM; debugging, dead ends, trivia LOW. */
function classify(facts: ConversationFacts, request: string, tokens: number): { kind: ItemKind; importance: Importance } {
  const changed = changedFiles(facts)
  const created = changed.filter((f) => f.actions.has('created'))
  if (facts.decisions.some((d) => ARCH_RE.test(d) && CHOICE_RE.test(d)) || ASK_DECISION_RE.test(request)) return { kind: 'decision', importance: 'high' }
  if (changed.length > 0) {
    if (changed.every((f) => TEST_FILE_RE.test(f.path)) || (/\btests?\b/i.test(request) && !/\b(fix|bug|fail)/i.test(request))) return { kind: 'test', importance: 'medium' }
    if (/\b(refactor|rename|clean ?up|extract|reorgani[sz]e|simplif|split|move)\w*/i.test(request)) return { kind: 'refactor', importance: 'medium' }
    if (/\b(fix|bug|error|fail|broken|crash|issue|wrong)\w*/i.test(request) || facts.rootCauses.length > 0 || facts.errors.length > 0)
      return { kind: 'fix', importance: 'medium' }
    const major = created.length > 0 || changed.length >= 3
    return { kind: 'feature', importance: major ? 'high' : 'medium' }
  }
  if (facts.abandoned.length > 0) return { kind: 'dead-end', importance: 'low' }
  if (facts.tools.length > 0 || facts.commands.length > 0) return { kind: 'debug', importance: 'low' }
  if (request.length >= 80 || (CONSTRAINT_RE.test(request) && !contentless(request)) || tokens >= 1500) return { kind: 'request', importance: 'medium' }
  return { kind: 'trivial', importance: 'low' }
}

/** A segment never holds the segment separator, nor starts like a markdown heading. */
const seg = (s: string) => oneLine(s).replace(/;\s+/g, ', ').replace(/^#+\s*/, '')

/**
 * One information-dense line from the exchange's facts, most telling segment first:
 * what was asked, files changed and how, failing commands with their error, root
 * cause / decision / abandoned attempt; for talk-only exchanges, the answer.
 */
export function summarizeExchange(exchange: Exchange, appendedAt: string | number | Date, counter: TokenCounter = heuristicCounter(false)): SummaryItem {
  return summarize(exchange, appendedAt, counter).item
}

interface Summarized {
  item: SummaryItem
  facts: ConversationFacts
}

function summarize(exchange: Exchange, appendedAt: string | number | Date, counter: TokenCounter): Summarized {
  const msgs = exchange.messages
  const facts = extractFacts(msgs, { preserveErrorDetails: false })
  const request = requestsOf(facts).join(' ')
  const tokens = roundTokens(msgs.reduce((n, m) => n + messageTokens(m, counter), 0))
  const { kind, importance } = classify(facts, request, tokens)
  const segs: string[] = []
  if (request && !contentless(request)) segs.push(`Asked "${clip(request, 100)}"`)

  const changed = changedFiles(facts).sort((a, b) => a.lastIndex - b.lastIndex)
  if (changed.length) {
    const shown = changed.slice(0, 4).map((f) => {
      const verb = f.actions.has('created') ? 'created' : 'edited'
      // An empty patch count says nothing about the change.
      const change = f.changes.filter((c) => !/^(?:patch|diff) \+0\/-0 lines$/.test(c)).pop()
      return `${verb} ${shortPath(cleanPath(f.path))}${change ? ` (${clip(change, 50)})` : ''}`
    })
    segs.push(shown.join(', ') + (changed.length > 4 ? ` +${changed.length - 4} more files` : ''))
  }

  // Failures: the last two distinct failing commands, with exit code and error line.
  const failed = facts.commands.filter((c) => c.failed)
  const seen = new Set<string>()
  const shownFails = failed.reverse().filter((c) => !seen.has(c.command) && seen.add(c.command)).slice(0, 2).reverse()
  for (const c of shownFails) {
    const fixed = facts.errors.some((e) => e.source === c.command && e.resolvedAt !== undefined)
    segs.push(
      `\`${clip(c.command, 70).replace(/`/g, "'")}\` failed${c.exitCode !== undefined ? ` (exit ${c.exitCode})` : ''}` +
        `${c.errorLine ? `: ${clip(c.errorLine, 110)}` : ''}${fixed ? ', later passed' : ''}`,
    )
  }
  if (!shownFails.length && facts.errors.length) segs.push(`error in ${clip(facts.errors[0]!.source, 50)}: ${clip(facts.errors[0]!.line, 100)}`)
  const passed = facts.commands.filter((c) => !c.failed && TEST_CMD_RE.test(c.command)).pop()
  if (passed && !shownFails.some((c) => c.command === passed.command)) segs.push(`\`${clip(passed.command, 60).replace(/`/g, "'")}\` passed`)

  if (facts.rootCauses.length) segs.push(`cause: ${clip(facts.rootCauses[0]!, 140)}`)
  const decision = facts.decisions.find((d) => ARCH_RE.test(d)) ?? facts.decisions[0]
  if (decision && (kind === 'decision' || !facts.rootCauses.length)) segs.push(`decided: ${clip(decision, 120)}`)
  if (kind === 'dead-end' && facts.abandoned.length) segs.push(`abandoned: ${clip(facts.abandoned[0]!, 100)}`)

  if (!changed.length && !failed.length) {
    const read = [...new Set([...facts.files.values()].filter((f) => f.actions.has('read') || f.actions.has('searched')).map((f) => shortPath(cleanPath(f.path))))]
    if (read.length) segs.push(`looked at ${read.slice(0, 3).join(', ')}${read.length > 3 ? ` +${read.length - 3} more` : ''}`)
    if (!facts.tools.length && facts.lastAssistantText) segs.push(`answered: ${clip(facts.lastAssistantText, 120)}`)
  }
  if (!segs.length) segs.push(request ? `Asked "${clip(request, 60)}"` : facts.lastAssistantText ? clip(facts.lastAssistantText, 100) : 'exchange without text')

  const files = workFiles(facts, changed).slice(0, 6)
  const item: SummaryItem = {
    text: clip(segs.map(seg).join('; '), ITEM_MAX_CHARS),
    at: exchangeTime(exchange) ?? iso(toMs(appendedAt)),
    tokens,
    importance,
    kind,
  }
  if (files.length) item.files = files
  return { item, facts }
}

// ---------------------------------------------------------------------------
// Aging and compression

/** Moves items to the section their age calls for (never to a younger one); returns how many were dropped. */
function age(doc: SummaryDocument, nowMs: number): number {
  let dropped = 0
  const next: Record<SectionKey, SummaryItem[]> = { session: [], yesterday: [], week: [] }
  SECTION_KEYS.forEach((key, rank) => {
    for (const item of doc.sections[key]) {
      const by = sectionForAge(nowMs - Date.parse(item.at))
      if (!by) {
        dropped++
        continue
      }
      next[SECTION_KEYS[Math.max(rank, SECTION_KEYS.indexOf(by))]!].push(item)
    }
  })
  for (const key of SECTION_KEYS) sortByTime(next[key])
  doc.sections = next
  return dropped
}

/** Keeps the leading "; " segments that fit; clips the first when even it does not. */
function condense(text: string, max: number): string {
  if (text.length <= max) return text
  let out = ''
  for (const s of text.split('; ')) {
    const cand = out ? `${out}; ${s}` : s
    if (cand.length > max) break
    out = cand
  }
  return out || clip(text.split('; ')[0]!, max)
}

function related(a: SummaryItem, b: SummaryItem): boolean {
  if (a.files?.some((f) => b.files?.includes(f))) return true
  return a.kind !== undefined && a.kind === b.kind && a.kind !== 'trivial'
}

function mergeItems(group: SummaryItem[]): SummaryItem {
  if (group.length === 1) return group[0]!
  // Interleave segments (all first segments, then all second...) so condensing keeps each part's lead.
  const parts = group.map((g) => g.text.split('; '))
  const segs: string[] = []
  for (let i = 0; parts.some((p) => i < p.length); i++) for (const p of parts) if (i < p.length && !segs.includes(p[i]!)) segs.push(p[i]!)
  const top = group.reduce((a, b) => (RANK[b.importance] > RANK[a.importance] ? b : a))
  const times = group.flatMap((g) => [Date.parse(g.at), Date.parse(g.since ?? g.at)])
  const files = [...new Set(group.flatMap((g) => g.files ?? []))].slice(0, 8)
  const merged: SummaryItem = {
    text: clip(segs.join('; '), ITEM_MAX_CHARS * 2),
    at: iso(Math.max(...times)),
    since: iso(Math.min(...times)),
    tokens: roundTokens(group.reduce((n, g) => n + g.tokens, 0)),
    importance: top.importance,
  }
  const kind = group.every((g) => g.kind === group[0]!.kind) ? group[0]!.kind : top.kind
  if (kind) merged.kind = kind
  if (files.length) merged.files = files
  return merged
}

/** Merges runs of consecutive related items (shared file, or same kind), at most MAX_MERGE at a time. */
function mergeRelated(items: SummaryItem[]): SummaryItem[] {
  const out: SummaryItem[] = []
  let group: SummaryItem[] = []
  for (const item of items) {
    if (group.length && group.length < MAX_MERGE && related(group[group.length - 1]!, item)) group.push(item)
    else {
      if (group.length) out.push(mergeItems(group))
      group = [item]
    }
  }
  if (group.length) out.push(mergeItems(group))
  return out
}

export interface SummaryUpdate {
  doc: SummaryDocument
  /** renderSummary(doc), never more than the budget in tokens (a clipped prefix of it only when even the empty document does not fit). */
  text: string
  tokens: number
  /** True when compression was not enough and high-importance items, the continuation or the text itself were cut. */
  emergencyTruncated: boolean
  /** Items removed: aged out (> 14 d), dropped by compression or by emergency truncation (merges not counted). */
  dropped: number
}

function measure(doc: SummaryDocument, counter: TokenCounter): { text: string; tokens: number } {
  const text = renderSummary(doc)
  return { text, tokens: Math.ceil(counter.text(text) * counter.margin) }
}

/** Longest prefix of `text` within `budget` tokens (last resort when even an empty document is too big). */
function clipToTokens(text: string, budget: number, counter: TokenCounter): string {
  const count = (s: string) => Math.ceil(counter.text(s) * counter.margin)
  let lo = 0
  let hi = text.length
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2)
    if (count(text.slice(0, mid)) <= budget) lo = mid
    else hi = mid - 1
  }
  let out = text.slice(0, lo)
  while (out && count(out) > budget) out = out.slice(0, -1)
  return out
}

/**
 * Seed 000's compression, cheapest loss first, stopping as soon as the text fits:
 * merge related items and condense text in This Week, then Yesterday; drop LOW items
 * (oldest first); merge and condense This Session; drop MEDIUM items (oldest first).
 * HIGH items are kept by compression. Then the hard budget (emergency): drop the
 * oldest remaining items whatever their importance (the most recent survive), then
 * trim the continuation block, then clip the text.
 */
function fit(doc: SummaryDocument, budget: number, counter: TokenCounter, dropped: number): SummaryUpdate {
  let m = measure(doc, counter)
  let emergency = false
  const done = (): SummaryUpdate => ({ doc, text: m.text, tokens: m.tokens, emergencyTruncated: emergency, dropped })
  const over = () => m.tokens > budget
  if (!over()) return done()

  const lineTokens = (item: SummaryItem, key: SectionKey) => Math.ceil(counter.text(renderItem(item, 1, key, true)) * counter.margin) + 1
  /** Drops matching items oldest first; drops several per re-count when the estimate says one is not enough. */
  const dropWhile = (pred: (i: SummaryItem) => boolean): number => {
    const cands = SECTION_KEYS.flatMap((key) => doc.sections[key].filter(pred).map((item) => ({ key, item })))
    cands.sort((a, b) => Date.parse(a.item.at) - Date.parse(b.item.at) || SECTION_KEYS.indexOf(b.key) - SECTION_KEYS.indexOf(a.key))
    let n = 0
    while (over() && cands.length) {
      let need = m.tokens - budget
      while (need > 0 && cands.length) {
        const { key, item } = cands.shift()!
        doc.sections[key] = doc.sections[key].filter((x) => x !== item)
        need -= lineTokens(item, key)
        n++
      }
      m = measure(doc, counter)
    }
    dropped += n
    return n
  }
  const steps: (() => void)[] = []
  for (const key of ['week', 'yesterday'] as const) {
    steps.push(() => (doc.sections[key] = mergeRelated(doc.sections[key])))
    steps.push(() => (doc.sections[key] = doc.sections[key].map((i) => ({ ...i, text: condense(i.text, SECTION_TEXT_CHARS[key]) }))))
  }
  steps.push(() => dropWhile((i) => i.importance === 'low'))
  steps.push(() => (doc.sections.session = mergeRelated(doc.sections.session)))
  steps.push(() => (doc.sections.session = doc.sections.session.map((i) => ({ ...i, text: condense(i.text, SECTION_TEXT_CHARS.session) }))))
  steps.push(() => dropWhile((i) => i.importance === 'medium'))
  for (const step of steps) {
    step()
    m = measure(doc, counter)
    if (!over()) return done()
  }

  emergency = true
  dropWhile(() => true)
  if (!over()) return done()
  // Continuation last: it is what an agent resumes from. Least useful entries go first.
  const c = doc.continuation
  const trims: (() => boolean)[] = [
    () => c.completedSteps.shift() !== undefined,
    () => c.keyDecisions.shift() !== undefined,
    () => c.relevantFiles.pop() !== undefined,
    () => c.pendingSteps.pop() !== undefined,
    () => (c.currentTask.length > 80 ? ((c.currentTask = clip(c.currentTask, 80)), true) : false),
    () => (c.currentTask ? ((c.currentTask = ''), true) : false),
  ]
  for (const trim of trims) {
    while (over() && trim()) m = measure(doc, counter)
    if (!over()) return done()
  }
  const text = clipToTokens(m.text, Math.max(0, budget), counter)
  m = { text, tokens: Math.ceil(counter.text(text) * counter.margin) }
  return done()
}

// ---------------------------------------------------------------------------
// Continuation

/**
 * Folds the new exchanges into the continuation block, exchange by exchange in order
 * (message indices are not comparable across batches): the latest meaningful request
 * is the current task, the latest stated next steps replace older ones, decisions and
 * files accumulate (files most recent first, changed before merely read).
 */
function updateContinuation(c: Continuation, done: Summarized[]): void {
  for (const { item, facts } of done) {
    const latest = requestsOf(facts).filter((r) => !contentless(r)).pop()
    if (latest) c.currentTask = clip(latest, 300)
    if (facts.nextSteps.length) c.pendingSteps = facts.nextSteps.slice(-CAPS.pendingSteps).map((s) => clip(s, 200))
    // A finished exchange is a completed step, named by its request, else by its work.
    const asked = /^Asked "(.*?)"(?:; |$)/.exec(item.text)
    c.completedSteps = [...c.completedSteps, asked ? asked[1]! : condense(item.text, 120)].slice(-CAPS.completedSteps)
    // Only sentences that state a choice or touch the design; "I will add X" is a plan, not a decision.
    const decisions = facts.decisions.filter((d) => CHOICE_RE.test(d) || ARCH_RE.test(d)).map((d) => clip(d, 160))
    c.keyDecisions = [...c.keyDecisions.filter((d) => !decisions.includes(d)), ...decisions].slice(-CAPS.keyDecisions)
    const isChanged = (f: FileFact) => f.actions.has('created') || f.actions.has('modified')
    const touched = [...facts.files.values()].filter((f) => (isChanged(f) || f.actions.has('read')) && !isScratch(f.path)).sort((a, b) => b.lastIndex - a.lastIndex)
    const fresh = [...touched.filter(isChanged), ...touched.filter((f) => !isChanged(f))].map((f) => cleanPath(f.path))
    c.relevantFiles = [...new Set([...fresh, ...c.relevantFiles])].slice(0, CAPS.relevantFiles)
  }
}

// ---------------------------------------------------------------------------
// Public algorithm

export interface UpdateInput {
  doc: SummaryDocument
  /** Newly evicted exchanges, oldest first. */
  exchanges: readonly Exchange[]
  /** The update's time: ages items and stamps exchanges without timestamps. */
  now: string | number | Date
  budgetTokens: number
  counter: TokenCounter
}

/**
 * Seed 000's update: one item per new exchange into "Previously in This Session", age
 * every item by its own time, fold the exchanges into the continuation block, then
 * compress to the budget. The input document is not modified.
 */
export function updateSummary(input: UpdateInput): SummaryUpdate {
  const nowMs = toMs(input.now)
  const doc = cloneDoc(input.doc)
  const exchanges = input.exchanges.filter((e) => e.messages.length > 0)
  const done = exchanges.map((e) => summarize(e, nowMs, input.counter))
  doc.sections.session.push(...done.map((d) => d.item))
  const dropped = age(doc, nowMs)
  updateContinuation(doc.continuation, done)
  return fit(doc, input.budgetTokens, input.counter, dropped)
}

/** The daily re-aging without new messages: same aging and budget rules. */
export function ageSummary(input: Omit<UpdateInput, 'exchanges'>): SummaryUpdate {
  return updateSummary({ ...input, exchanges: [] })
}

export function continuationOf(doc: SummaryDocument): Continuation {
  const c = doc.continuation
  return { currentTask: c.currentTask, completedSteps: [...c.completedSteps], pendingSteps: [...c.pendingSteps], keyDecisions: [...c.keyDecisions], relevantFiles: [...c.relevantFiles] }
}

/** Seed 003's context-injection block. */
export function renderContinuationPrompt(c: Continuation): string {
  return [
    '[Previous Session Context]',
    `Current task: ${c.currentTask}`,
    `Completed: ${c.completedSteps.join(', ')}`,
    `Pending: ${c.pendingSteps.join(', ')}`,
    `Key decisions: ${c.keyDecisions.join('; ')}`,
    `Relevant files: ${c.relevantFiles.join(', ')}`,
  ].join('\n')
}

// ---------------------------------------------------------------------------
// llm mode

/** Exchanges as the background agent reads them: time, size, then the messages. */
export function formatExchangesForPrompt(exchanges: readonly Exchange[], counter: TokenCounter = heuristicCounter(false), perMessageCharLimit = 2_000): string {
  return exchanges
    .map((e, i) => {
      const tokens = roundTokens(e.messages.reduce((n, m) => n + messageTokens(m, counter), 0))
      const at = exchangeTime(e)
      return `### Exchange ${i + 1} (${at ? `${minute(at)}, ` : ''}~${formatTokens(tokens)} tokens)\n${formatMessagesForSummary(e.messages, perMessageCharLimit)}`
    })
    .join('\n\n')
}

/** Seed 000's background-agent prompt, for this document format (the caller runs the model and parses its answer with parseSummary). */
export function BACKGROUND_AGENT_PROMPT(currentSummary: string, newExchangesText: string, budgetTokens = DEFAULT_SUMMARY_BUDGET_TOKENS): string {
  return `Update the session summary.

Current summary:
${currentSummary.trim() || '(empty)'}

Newly evicted exchanges to add:
${newExchangesText.trim() || '(none)'}

Tasks:
1. Add a one-line summary of each new exchange to '${SECTION_TITLES.session}' (what was asked, files changed and how, failing commands with their error, root cause or decision)
2. Merge related items where appropriate (combined token count, date range)
3. Age sections by each item's time: older than 24h → '${SECTION_TITLES.yesterday}', older than 7 days → '${SECTION_TITLES.week}', older than 14 days → drop
4. Compress if over the ${budgetTokens}-token budget: detailed for this session, compressed for yesterday, very compressed for this week
5. Keep most recent and most important items (decisions, API and architecture choices first; bug fixes, refactors, tests next; debugging, dead ends and trivial changes are dropped first)
6. Keep each existing item's trailing <!-- ... --> comment unchanged; write none for new items
7. Update the '${CONTINUATION_TITLE}' section: current task, completed and pending steps, key decisions, relevant files

Format (answer with the document only):
## ${SECTION_TITLES.session}
1. Item (YYYY-MM-DD HH:MMZ, ~tokens)

## ${SECTION_TITLES.yesterday}
1. Item (~tokens)

## ${SECTION_TITLES.week}
1. Item (day, ~tokens)

## ${CONTINUATION_TITLE}
Current task: ...
Completed:
- ...
Pending:
- ...
Key decisions:
- ...
Relevant files: path, path
`
}
