/**
 * One exchange → one summary item: what happened in it (classification: decision,
 * feature, fix, …, and seed 000's importance), written as one information-dense line.
 */
import { extractFacts, type ConversationFacts, type FileFact } from '../compaction/extract/facts.ts'
import { clip } from '../compaction/extract/tools.ts'
import { heuristicCounter, messageTokens, type TokenCounter } from '../tokens/count.ts'
import { iso, oneLine, roundTokens, toMs, type Importance, type ItemKind, type SummaryItem } from './document.ts'
import { exchangeTime, type Exchange } from './exchanges.ts'

/** Longest text summarizeExchange writes. */
export const ITEM_MAX_CHARS = 400

/** Requests that say nothing on their own ("ok", "go", "continue", 고고): the work describes the exchange better. */
export function contentless(request: string): boolean {
  const r = request.trim()
  return r.length < 8 || /^(ok(ay)?|yes|yep|sure|go( on| ahead)?|continue|proceed|next|do it|thanks?( you)?|lgtm)\b[.!\s]*$/i.test(r)
}

export const ARCH_RE = /\b(architecture|architectural|design|API|interface|schema|data ?model|protocol|contract|library|framework|dependency|database|storage layer)\b/i
const ASK_DECISION_RE = /\b(design|architecture|should we|which (?:library|approach|option)|decide|choose between|trade-?offs?)\b/i
/** A decision sentence counts as a design decision only when it states a choice. */
export const CHOICE_RE = /\b(decided|decision|chose|choose|going with|go with|instead of|rather than|opt(?:ed)? for|prefer)\b/i
const CONSTRAINT_RE = /\b(must|always|never|don'?t|do not|should|make sure|only|instead)\b/i
const TEST_FILE_RE = /(^|\/)(tests?|spec|__tests__)\/|[._-](test|spec)\.\w+$|(^|\/)test_\w+\.\w+$/
const TEST_CMD_RE = /\b(test|tests|pytest|jest|vitest|tap|mocha|cargo test|go test|tsc|lint|check)\b/i

/** Path without a read range suffix (`a.ts:10-40`). */
export const cleanPath = (p: string) => p.replace(/:\d+(?:-\d+)?$/, '')
/** Scratch output (logs in /tmp) and URLs (agent://…) are not project files. */
export const isScratch = (p: string) => /^\/(?:tmp|var\/tmp|dev)\/|:\/\//.test(p)
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
export function requestsOf(facts: ConversationFacts): string[] {
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

/** An exchange's item with the facts it was written from (the continuation block reads both). */
export interface Summarized {
  item: SummaryItem
  facts: ConversationFacts
}

/** summarizeExchange, keeping the facts. */
export function summarize(exchange: Exchange, appendedAt: string | number | Date, counter: TokenCounter): Summarized {
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
