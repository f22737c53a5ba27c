/**
 * "Working on" is the current step, not a finished one (issue 22). The Current State's
 * first line said what the agent was doing when the compacted range ends, and read it
 * from the last instruction: a request the agent had since carried out and reported done
 * ("리뷰루프", a review loop that ran, was fixed and merged), or a bare go-ahead ("ok 開始")
 * that names nothing, was shown as the work in progress.
 *
 * Serves sessions whose range ends between turns (the agent reported, the user had not
 * spoken yet) and sessions where the user approved the agent's proposal in two words:
 *   - an in-progress item of the agent's plan is the current step, unless the agent
 *     reported completion after that plan was written;
 *   - a request the agent then reported done, ending its turn, is finished, not current;
 *   - a go-ahead stands for what it approved: the agent's proposal just before it;
 *   - a standing constraint ("Do not change the public API.") is no step at all.
 */
import type { ConversationEvent } from './events.ts'
import { isPlanTool, type PlanItem } from './plan-tools.ts'
import { wordsOf } from './text.ts'

const CONSTRAINT_RE = /^(?:please\s+)?(?:do not|don'?t|never|always|keep|make sure|only|avoid|no\s|must not)\b/i
/** A label a constraint may open with: "Important: never touch db/migrations." */
const LABEL_RE = /^(?:\*\*)?(?:important|note|nb|reminder|remember|constraint|rule|warning|caution)(?:\*\*)?\s*[:!-]\s*(?:\*\*)?\s*/i

/**
 * A standing constraint: a rule the human set for the rest of the work ("Do not change
 * the public API.", "Always run the linter", "Important: never touch db/migrations"), not
 * a task. Tested on one instruction or one sentence of it.
 */
export function isStandingConstraint(text: string): boolean {
  return CONSTRAINT_RE.test(text.trim().replace(LABEL_RE, ''))
}

/**
 * Words of a go-ahead: approving what was proposed, asking for nothing new ("ok, start",
 * "응 해줘", "ok 開始"). One list for the current step and the request trail (requests.ts).
 */
const GO_AHEAD = new Set(
  "ok okay k yes yep yeah sure go ahead start begin do it lgtm sounds good great fine approved let let's lets please now then and that works plan looks 開始 始めて はい よし 좋아 좋아요 시작 시작해 시작하자 오케이 ㅇㅋ 네 응 好 好的 开始 可以 行 vas yup proceed approve alright right us let’s 어 넵 예 좋습니다 그래 그래요 해줘 해 해주세요 진행 진행해 진행해줘 고 고고 ㄱㄱ 시작해줘 ㅇㅇ 了解 お願い お願いします 是的 sí si oui ja".split(' '),
)

/** Whether an instruction only approves what came before it ("ok, start", "yes go ahead", "ok 開始"). */
export function isGoAhead(text: string): boolean {
  const words = wordsOf(text)
  return words.length > 0 && words.length <= 6 && words.every((w) => GO_AHEAD.has(w))
}

const COMPLETION_RE = /\b(?:done|finished|complete[d]?|merged|pushed|shipped|resolved|fixed|implemented|all (?:\w+ ){0,3}(?:pass(?:ed|es|ing)?|green|succeeded))\b|완료|끝났|끝냈|마쳤|머지(?:했|됨)|完了|完成|済み/i
const NOT_DONE_RE = /\b(?:not|unable|cannot|can't|couldn't|failed|fails|failing|still|yet|blocked|remaining|left to|todo|partially)\b|n't\b|실패|못 ?했|안 ?됨|未完|失败/i

/** The line a report opens with (its heading or first sentence), as it says how things ended. */
function openingOf(text: string): string {
  const first = text.split('\n').map((l) => l.replace(/^[#>*\s-]+/, '').trim()).find((l) => l.length > 0) ?? ''
  const sentence = /^(.{12,}?[.!?。])(?:\s|$)/.exec(first)?.[1] ?? first
  return sentence.length > 200 ? `${sentence.slice(0, 199)}…` : sentence
}

/** Whether a report says the work is done (on its opening line, without a "not yet"). */
export function reportsCompletion(text: string): boolean {
  const opening = openingOf(text)
  return COMPLETION_RE.test(opening) && !NOT_DONE_RE.test(opening)
}

export interface CurrentStep {
  /** What the agent was doing when the range ends. */
  working?: string
  /** The last request, when the range ends with the agent reporting it done. */
  finished?: { request: string; report: string }
}

/**
 * The current step at the end of `events` (the compacted range), given the latest plan.
 * `conclusion` names the agent's last conclusion, the fallback when no request is known.
 */
export function currentStep(events: readonly ConversationEvent[], plan: readonly PlanItem[] | undefined, conclusion?: string): CurrentStep {
  // The last report of the agent that ended a turn: no call after it in the range.
  let report: { position: number; text: string } | undefined
  let planAt = -1
  for (const e of events) {
    if (e.kind === 'assistant' && !e.reasoning && !e.acted && e.text.trim()) report = { position: e.position, text: e.text }
    else if (e.kind === 'tool-call' || e.kind === 'text-command') {
      if (report && e.position > report.position) report = undefined
      if (e.kind === 'tool-call' && isPlanTool(e.call.name)) planAt = e.position
    } else if (e.kind === 'instruction' && report && e.position > report.position) report = undefined
  }
  const instructions = events.filter((e): e is Extract<ConversationEvent, { kind: 'instruction' }> => e.kind === 'instruction')
  const tasks = instructions.filter((i) => !isStandingConstraint(i.text))
  const last = tasks.at(-1)
  const done = report && reportsCompletion(report.text) && report.position > planAt ? report : undefined

  const inProgress = plan?.find((p) => p.status === 'in_progress')
  if (inProgress && !done) return { working: inProgress.text }
  if (!last) return conclusion && !done ? { working: conclusion } : {}
  const request = isGoAhead(last.text) ? (approved(events, last.position, tasks) ?? last.text) : last.text
  if (done && done.position > last.position) return { finished: { request, report: openingOf(done.text) } }
  return { working: request }
}

/** What a go-ahead approved: the opening of the agent's last message before it, else the request before it. */
function approved(events: readonly ConversationEvent[], position: number, tasks: readonly { position: number; text: string }[]): string | undefined {
  for (let k = events.length - 1; k >= 0; k--) {
    const e = events[k]!
    if (e.position >= position || e.kind !== 'assistant' || e.reasoning || !e.text.trim()) continue
    const opening = openingOf(e.text)
    if (opening.length >= 20) return opening
    break
  }
  return [...tasks].reverse().find((t) => t.position < position && !isGoAhead(t.text))?.text
}
