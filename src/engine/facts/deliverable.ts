/**
 * The deliverable (issue 22): when the user asked for a review, an analysis or research,
 * the agent's answer is the work product, not a report about it. It is the long reply that
 * ends the agent's turn after such a request; the summary keeps it whole, or in its
 * structured form (lead, headings, bullets, tables) when it does not fit, before rows that
 * say nothing changed. Elsewhere an end-of-turn report is one clipped action-log line
 * (action-log.ts, REPORT_CHARS).
 *
 * Conversation class served: a review request answered with a long structured review (and
 * research or analysis sessions alike), where the findings exist nowhere but in that answer.
 */
import { isSystemLike, toolCallsOf, type CanonicalMessage } from '../messages/canonical.ts'
import { classifyUserText, isContentless } from './classify.ts'
import { endsTurn, type ConversationEvent } from './events.ts'
import type { ToolDigest } from './tools.ts'
import { isProjectPath } from './project-files.ts'
import { textOf } from './text.ts'
import { parseArgs } from './tool-args.ts'
import { classifyTool } from './tool-kind.ts'

/** A reply that ends the agent's turn, long enough to be an answer in its own right. */
export interface TurnReport {
  text: string
  position: number
  /** The instruction it answers (the last one before it in the range); absent: the task in the head. */
  request?: string
  /** No project file changed between the request and the reply: the reply is all the turn produced. */
  readOnly: boolean
}

/** The summary section that holds it (rules-render.ts); the action log reads it to drop its own clipped copy. */
export const DELIVERABLE_HEADING = "### The Agent's Answer (the deliverable the user asked for)"

/** Replies shorter than this are one-liners the action log says whole enough. */
export const DELIVERABLE_MIN_CHARS = 600
/** Reports kept as candidates: the latest few are enough to find the deliverable. */
const MAX_REPORTS = 3

/**
 * Requests for an answer rather than a change: review, analysis, research, comparison,
 * explanation, a ranking, a question. English, Korean, Japanese and Chinese words.
 */
const ANSWER_REQUEST_RE =
  /\b(review|analy[sz]e|analysis|research|investigat\w*|explain|explanation|compar\w*|evaluat\w*|assess\w*|audit|summari[sz]e|summary|rank\w*|recommend\w*|find out|look into|fact.?check|pros and cons|trade.?offs?)\b|리뷰|분석|조사|비교|검토|평가|요약|설명|알려|순위|추천|팩트체크|レビュー|分析|調査|比較|説明|まとめ|审查|审阅|调查|比较|解释|总结/i
/** A question: it ends with a question mark or opens with a question word. */
const QUESTION_RE = /[?？]\s*$|^\s*(?:what|why|how|which|where|who|when|is|are|does|do|did|can|could|should|would)\b/i

export function asksForAnswer(request: string): boolean {
  return ANSWER_REQUEST_RE.test(request) || QUESTION_RE.test(request)
}

/**
 * The range's end-of-turn replies long enough to be a deliverable, oldest first (the last
 * MAX_REPORTS). `tools` tell which turns changed project files.
 */
export function turnReports(events: readonly ConversationEvent[], tools: readonly { position: number; digest: ToolDigest }[]): TurnReport[] {
  const changedAt = new Set(tools.filter((t) => t.digest.changes.some((c) => c.op !== 'read' && isProjectPath(c.path))).map((t) => t.position))
  const out: TurnReport[] = []
  let request: string | undefined
  let changed = false
  for (const [k, e] of events.entries()) {
    if (e.kind === 'instruction') {
      request = e.text
      changed = false
    } else if (e.kind === 'tool-call' && changedAt.has(e.position)) changed = true
    else if (e.kind === 'assistant' && !e.reasoning && e.text.trim().length >= DELIVERABLE_MIN_CHARS && endsTurn(events, k)) {
      out.push({ text: e.text.trim(), position: e.position, readOnly: !changed, ...(request !== undefined ? { request } : {}) })
    }
  }
  return out.slice(-MAX_REPORTS)
}

/**
 * The deliverable among the reports: the latest reply to a request for an answer (a
 * review, an analysis, research, a question) or to a turn that changed no project file.
 * `task` is the head's task, for a reply to the request the range does not hold.
 */
export function deliverableOf(reports: readonly TurnReport[], task: string): TurnReport | undefined {
  for (let k = reports.length - 1; k >= 0; k--) {
    const r = reports[k]!
    if (r.readOnly || asksForAnswer(r.request ?? task)) return r
  }
  return undefined
}

const HEADING_RE = /^\s{0,3}(?:#{1,6}\s|\*\*[^*]+\*\*:?\s*$|__[^_]+__\s*$)/
const LIST_RE = /^\s*(?:[-*+•]|\d+[.)])\s+/
const TABLE_RE = /^\s*\|.*\|\s*$/
/** A labelled line (`**Verdict:** not safe to ship`): a conclusion set apart by its writer. */
const LABEL_RE = /^\s*(?:\*\*|__)[^*_\n]{1,40}(?:\*\*|__)\s*:?\s*\S/

/**
 * The structured form of an answer: its first prose paragraph before any list or table (the
 * lead, where a writer puts the conclusion), then every heading, labelled line, list item and table row, in order;
 * other prose paragraphs and code blocks are left out. What a reader scans first, and what
 * holds a review's findings or a ranking's rows.
 */
export function structuredForm(text: string): string {
  const out: string[] = []
  let lead: 'before' | 'in' | 'done' = 'before'
  let fence = false
  for (const line of text.split(/\r?\n/)) {
    if (/^\s*(```|~~~)/.test(line)) {
      fence = !fence
      continue
    }
    if (fence) continue
    if (line.trim() === '' || /^\s*(?:-{3,}|\*{3,}|_{3,})\s*$/.test(line)) {
      if (lead === 'in') lead = 'done'
      continue
    }
    const body = LIST_RE.test(line) || TABLE_RE.test(line)
    if (body || HEADING_RE.test(line) || LABEL_RE.test(line)) {
      // The lead is an introduction: prose after the first list or table is detail.
      if (lead === 'in' || body) lead = 'done'
      out.push(line.trimEnd())
    } else if (lead !== 'done') {
      lead = 'in'
      out.push(line.trimEnd())
    }
  }
  return out.join('\n')
}

/**
 * The answer fitted to `maxTokens`: whole when it fits, else its structured form, with
 * long lines clipped and, last, its trailing lines dropped (a note says how many).
 */
export function fitDeliverable(text: string, maxTokens: number, count: (s: string) => number): string {
  if (count(text) <= maxTokens) return text
  const structured = structuredForm(text)
  if (count(structured) <= maxTokens) return `${structured}\n(prose paragraphs left out)`
  return fitLines(structured, maxTokens, count)
}

/** The first lines of `text` (each at most 240 characters) within `maxTokens`, with a note of how many were left out. */
export function fitLines(text: string, maxTokens: number, count: (s: string) => number): string {
  const lines = text.split('\n').map((l) => (l.length > 240 ? `${l.slice(0, 239)}…` : l))
  const kept: string[] = []
  let used = 0
  for (const [k, line] of lines.entries()) {
    const cost = count(line) + 1
    if (used + cost > maxTokens - 12) {
      kept.push(`(… ${lines.length - k} more lines of the answer left out)`)
      break
    }
    kept.push(line)
    used += cost
  }
  return kept.join('\n')
}

/**
 * Whether `messages[index]` is an answer of this kind, read from the messages alone (for
 * condensing kept messages, which has no events): an assistant reply with no tool call, at
 * least DELIVERABLE_MIN_CHARS long, that ends the agent's turn, after a request for an
 * answer or a turn that wrote no file (a write or edit tool; shell edits are not seen here).
 */
export function isAnswerMessage(messages: readonly CanonicalMessage[], index: number): boolean {
  const m = messages[index]
  if (!m || m.role !== 'assistant' || toolCallsOf(m).length > 0 || textOf(m).trim().length < DELIVERABLE_MIN_CHARS) return false
  for (let j = index + 1; j < messages.length; j++) {
    const next = messages[j]!
    if (isSystemLike(next)) continue
    if (next.role !== 'assistant') break
    if (toolCallsOf(next).length > 0) return false
  }
  let wrote = false
  for (let k = index - 1; k >= 0; k--) {
    const prev = messages[k]!
    if (isSystemLike(prev)) continue
    if (prev.role === 'assistant') {
      wrote ||= toolCallsOf(prev).some((c) => {
        const kind = classifyTool(c.name, parseArgs(c.argsText))
        return kind === 'write' || kind === 'edit'
      })
      continue
    }
    const text = textOf(prev)
    if (!text.trim() || isContentless(text)) continue
    const c = classifyUserText(text)
    if (c.kind !== 'human') continue
    return !wrote || asksForAnswer(c.human)
  }
  return !wrote
}
