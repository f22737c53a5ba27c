/**
 * What the user asked to have done, as opposed to their first message (issue 22). A
 * session often opens with a question or a preamble ("what is the working directory?",
 * "I have a folder named raddit") and the work is set later; approvals ("ok, start", "응
 * 해줘") continue the request or the proposal before them rather than set a new one. Each
 * user message of the range is one of:
 *
 *   work        a request to have something done ("fix the parser", "pr까지", "can you add…?")
 *   question    a request for an answer ("what is the working directory?", "브랜치는뭐임")
 *   approval    yes / ok / go ahead / start: the work before it goes on
 *   constraint  a standing rule ("never touch migrations"), not a task
 *   context     a short statement that asks nothing ("raddit", "the folder is ~/src")
 *
 * The request in progress is the latest work request (with the agent's proposal an
 * approval accepted); each request keeps its outcome: the first sentence of the agent's
 * last reply in its turn, and how many files that turn changed.
 *
 * Conversation class served: a session whose first user message is a question and whose
 * real task comes later (and every session of several requests).
 */
import { isGoAhead } from './current-step.ts'
import type { ConversationEvent } from './events.ts'
import { isProjectPath } from './project-files.ts'
import { clip, splitSentences } from './text.ts'
import type { ToolDigest } from './tools.ts'

export type RequestKind = 'work' | 'question' | 'approval' | 'constraint' | 'context'

export interface RequestOutcome {
  text: string
  position: number
  kind: RequestKind
  /** The first sentence of the agent's last reply in the request's turn. */
  outcome?: string
  /** Project files the turn changed. */
  filesChanged: number
}

export interface RequestTrail {
  /** The range's user messages, oldest first, each with its outcome. */
  requests: RequestOutcome[]
  /** The turn before the range's first user message: the head's request (the first message, kept above the summary). */
  head: { outcome?: string; filesChanged: number; acted: boolean }
  /** The latest work request of the range. */
  inProgress?: RequestOutcome
  /** When approvals follow it: the agent's proposal they accepted (its question before the approval). */
  approvedProposal?: string
}

/** Requests phrased as questions are still requests: "can you fix…?", "could you add…?". */
const POLITE_REQUEST_RE = /^\s*(?:please\s+)?(?:can|could|would|will)\s+you\s+(?:please\s+)?\w+/i
/** An imperative opening (English) or ending (Korean, Japanese, Chinese) of a sentence. */
const IMPERATIVE_RE =
  /^\s*(?:please\s+)?(?:add|fix|implement|make|create|write|update|change|refactor|remove|delete|build|run|deploy|open|commit|push|merge|move|rename|install|set ?up|configure|migrate|upgrade|port|convert|generate|review|analy[sz]e|research|investigate|compare|check|find|debug|test|clean|document|draft|prepare|publish|register|close|start|continue|finish|try|use|let'?s)\b|(?:해줘|해봐|해주세요|하세요|해라|하자|해|줘|봐|올려|까지|ㄱㄱ|してください|して|しろ|吧|一下)\s*[.!。]?\s*$/i
/** A question: a question mark, an opening question word, or a Korean question-word ending. */
const QUESTION_END_RE = /[?？]\s*$|(?:뭐|어디|언제|누구|몇|어떻게|왜|무엇)\S{0,4}\s*$|(?:吗|呢|か)\s*$/
const QUESTION_START_RE = /^\s*(?:what|why|how|which|where|who|when|is|are|does|do|did|can|could|should|would|will|have|has)\b/i


/**
 * What one user message asks for. `isConstraint` says whether it is a standing rule
 * (handover.ts); `acted` whether the agent's turn after it changed files or ran commands
 * other than reads: the words of a request vary by language, what the agent did does not,
 * so a message it acted on is work unless it was a question.
 */
export function requestKind(text: string, isConstraint: (s: string) => boolean, acted = false): RequestKind {
  const t = text.trim()
  if (isGoAhead(t)) return 'approval'
  if (isConstraint(t)) return 'constraint'
  if (POLITE_REQUEST_RE.test(t)) return 'work'
  const sentences = splitSentences(t).filter((s) => s.trim())
  const last = sentences.at(-1) ?? t
  if (sentences.some((s) => IMPERATIVE_RE.test(s))) return 'work'
  if (QUESTION_END_RE.test(last) || (sentences.length === 1 && QUESTION_START_RE.test(last))) return 'question'
  // A long message that asks nothing in question form is a brief: the work.
  return acted || t.length >= 80 ? 'work' : 'context'
}

/** A call that did something: not a read, a search or a lookup. */
const acts = (d: ToolDigest) => d.value === 'change' || d.value === 'test' || d.value === 'command' || d.value === 'failure'

/** The first sentence of a reply: what the turn came to. */
function outcomeOf(reply: string): string {
  const first = splitSentences(reply.replace(/^#+\s.*$/m, '').replace(/[*_`]{2,}/g, ''), 8, 400)[0] ?? reply
  return clip(first, 200)
}

/** The range's requests with their outcomes, and the one in progress. */
export function requestTrail(events: readonly ConversationEvent[], tools: readonly { position: number; digest: ToolDigest }[], isConstraint: (s: string) => boolean): RequestTrail {
  const changedAt = new Map<number, number>()
  const actedAt = new Set<number>()
  for (const t of tools) {
    const n = t.digest.changes.filter((c) => c.op !== 'read' && isProjectPath(c.path)).length
    if (n) changedAt.set(t.position, (changedAt.get(t.position) ?? 0) + n)
    if (acts(t.digest)) actedAt.add(t.position)
  }
  type Turn = { outcome?: string; filesChanged: number; acted: boolean }
  const requests: (RequestOutcome & { acted: boolean })[] = []
  const head: Turn = { filesChanged: 0, acted: false }
  let current: Turn = head
  /** The agent's last question before each user message: what an approval accepts. */
  let lastQuestion: string | undefined
  const proposals = new Map<RequestOutcome, string | undefined>()
  const seenCalls = new Set<number>()
  for (const e of events) {
    if (e.kind === 'instruction') {
      const text = e.text.trim()
      const r = { text, position: e.position, kind: requestKind(text, isConstraint), filesChanged: 0, acted: false }
      requests.push(r)
      proposals.set(r, lastQuestion)
      lastQuestion = undefined
      // A constraint or an approval does not open a turn of its own: the work before it goes on.
      if (r.kind !== 'constraint' && r.kind !== 'approval') current = r
    } else if (e.kind === 'assistant' && !e.reasoning && e.text.trim()) {
      current.outcome = outcomeOf(e.text)
      lastQuestion = [...splitSentences(e.text, 8, 400)].reverse().find((s) => /[?？]\s*$/.test(s)) ?? lastQuestion
    } else if (e.kind === 'tool-call' && !seenCalls.has(e.position)) {
      seenCalls.add(e.position)
      current.filesChanged += changedAt.get(e.position) ?? 0
      current.acted ||= actedAt.has(e.position)
    }
  }
  for (const r of requests) if (r.kind === 'context' && r.acted) r.kind = 'work'
  const trail: RequestTrail = { requests: requests.map(({ acted: _a, ...r }) => r), head: { filesChanged: head.filesChanged, acted: head.acted, ...(head.outcome ? { outcome: head.outcome } : {}) } }
  const lastWork = trail.requests.findLastIndex((r) => r.kind === 'work')
  if (lastWork < 0) return trail
  trail.inProgress = trail.requests[lastWork]!
  // The approvals after it accepted what the agent proposed last before them.
  const approvals = requests.slice(lastWork + 1).filter((r) => r.kind === 'approval')
  const proposal = approvals.map((a) => proposals.get(a)).findLast((p) => p !== undefined)
  if (proposal) trail.approvedProposal = proposal
  return trail
}
