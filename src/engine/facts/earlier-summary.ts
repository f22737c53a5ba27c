/**
 * An earlier compaction summary already in the conversation (the densest state it
 * holds) recognised by its writer's own marker and mapped, section by section, onto one
 * shape every summarizer folds in as round N−1:
 *
 *   claude-code       "This session is being continued from a previous conversation that
 *                     ran out of context." + numbered sections (Primary Request and Intent …
 *                     Optional Next Step), optionally <analysis>/<summary> tags
 *   codex             the handoff prefix "Another language model started to solve this
 *                     problem…", optionally after the history bridge "You were originally
 *                     given instructions from a user… Here were the user messages:"
 *   gemini-cli        <state_snapshot> with <overall_goal>, <key_knowledge>, … <task_state>
 *   pi                a compaction entry's summary (## Goal, ## Progress, ### Done …
 *                     <read-files>/<modified-files>): bare, labelled "[earlier compaction
 *                     summary]" (the fixture normaliser), or in pi's own context wrapper
 *                     "The conversation history before this point was compacted …<summary>" 
 *   compactd          "## Session Summary (Compaction Round N)" + our sections
 *   compactd-session  the rolling session summary (Previously in This Session / Yesterday /
 *                     This Week / Continuation) or its "[Previous Session Context]" prompt
 *   unknown           other known handoff wrappers (Copilot's, LangChain's)
 *
 * The mapping is lossless: every non-blank content line of the body lands in exactly one
 * field (headings and table header rows are structure). `text` is the body with the
 * harness wrapper (preamble sentence, "please continue" instruction, label) removed.
 * Detection needs the marker at the start, so ordinary prose is never a summary.
 */
import { SUMMARY_HEADER_RE } from './summary-header.ts'
import {
  addItems,
  emptySections,
  fieldForTitle,
  normaliseHeading,
  parseMarkdownBody,
  splitItems,
  type EarlierSections,
  type Field,
  type ListField,
} from './summary-sections.ts'

export type { EarlierSections } from './summary-sections.ts'

export type SummarySource = 'claude-code' | 'codex' | 'gemini-cli' | 'pi' | 'compactd' | 'compactd-session' | 'unknown'

export interface EarlierSummary {
  source: SummarySource
  /** compactd's round when its header says, otherwise 1. */
  round?: number
  /** The summary's body, without the harness wrapper around it. */
  text: string
  sections: EarlierSections
}

const CLAUDE_CODE_RE = /^This session is being continued from a previous conversation that ran out of context\.[^\n]*(?:\n|$)/
const CLAUDE_CONTINUE_RE = /^[ \t]*Please continue the conversation from where we left (?:it )?off[^\n]*$/gm
const CLAUDE_TRANSCRIPT_RE = /^[ \t]*If you need specific details from before compaction[^\n]*$/m
const CLAUDE_TITLES_RE = /^(?:analysis|summary|primary request|key technical concepts|files and code|errors and fixes|problem solving|all user messages|pending tasks|current work|optional next step)/

const CODEX_PREFIX_RE = /(?:^|\n)Another language model started to solve this problem and produced a summary of its thinking process\.[^\n]*(?:\n|$)/
const CODEX_BRIDGE_RE = /^You were originally given instructions from a user over one or more turns\. Here were the user messages:[ \t]*(?:\n|$)/
const COPILOT_RE = /^Some of the conversation history has been summarized to free up context\.[ \t]*(?:\n|$)/
const LANGCHAIN_RE = /^Here is a summary of the conversation to date:[ \t]*(?:\n|$)/
const PI_LABEL_RE = /^\[earlier compaction summary\][ \t]*(?:\n|$)/i
/** How pi puts a compaction (or branch) summary into the model's context. */
const PI_WRAPPER_RE = /^(?:The conversation history before this point was compacted into the following summary:|The following is a summary of a branch that this conversation came back from:)\s*<summary>[ \t]*\n?([\s\S]*?)\s*(?:<\/summary>\s*)?$/
const PI_HEADINGS = ['## Constraints & Preferences', '## Progress', '## Key Decisions', '## Next Steps', '## Critical Context']
const GEMINI_RE = /^<state_snapshot>/
const ROLLING_RE = /^#{1,3}[ \t]*Previously in This Session[ \t]*$/m
const ROLLING_OTHER_RE = /^#{1,3}[ \t]*(?:Yesterday|This Week|Continuation)[ \t]*$/m
const CONTINUATION_PROMPT_RE = /^\[Previous Session Context\][ \t]*\n[ \t]*Current task:/
const COMPACTD_FOOTER_RE = /^[ \t]*_This summary integrates [^\n]*_[ \t]*$/m

export function detectEarlierSummary(text: string): EarlierSummary | undefined {
  const t = text.replace(/^\uFEFF/, '').trimStart()
  if (!t) return undefined
  if (CLAUDE_CODE_RE.test(t)) return claudeCode(t.replace(CLAUDE_CODE_RE, ''))
  if (CODEX_BRIDGE_RE.test(t) && CODEX_PREFIX_RE.test(t)) return codex(t)
  if (CODEX_PREFIX_RE.exec(t)?.index === 0) return codex(t)
  if (GEMINI_RE.test(t)) return gemini(t)
  const compactdRound = SUMMARY_HEADER_RE.exec(t)
  if (compactdRound) return compactd(t.replace(SUMMARY_HEADER_RE, ''), Number(compactdRound[1]))
  if (ROLLING_RE.exec(t)?.index === 0 && ROLLING_OTHER_RE.test(t)) return rolling(t, false)
  if (CONTINUATION_PROMPT_RE.test(t)) return rolling(t, true)
  if (PI_LABEL_RE.test(t)) {
    const body = t.replace(PI_LABEL_RE, '')
    return looksLikePi(body) ? pi(body) : generic('unknown', body)
  }
  const piWrapped = PI_WRAPPER_RE.exec(t)
  if (piWrapped) return pi(piWrapped[1]!)
  if (looksLikePi(t)) return pi(t)
  if (COPILOT_RE.test(t)) return copilot(t.replace(COPILOT_RE, ''))
  if (LANGCHAIN_RE.test(t)) return generic('unknown', t.replace(LANGCHAIN_RE, ''))
  return undefined
}

/**
 * Whether a text is one of compactd's own summaries (a compaction's, or the rolling session
 * summary): a paraphrase of messages compactd saw, so search ranks it below them.
 */
export function isCompactdSummary(text: string): boolean {
  const source = detectEarlierSummary(text)?.source
  return source === 'compactd' || source === 'compactd-session'
}

function looksLikePi(body: string): boolean {
  return /^##[ \t]+Goal[ \t]*\n/.test(body.trimStart()) && PI_HEADINGS.filter((h) => body.includes(`\n${h}`)).length >= 2
}

function result(source: SummarySource, text: string, sections: EarlierSections, round = 1): EarlierSummary {
  return { source, round, text: text.trim(), sections }
}

// ---------------------------------------------------------------------------
// Markdown-bodied summaries

function claudeCode(rest: string): EarlierSummary {
  const s = emptySections()
  let body = rest.replace(CLAUDE_CONTINUE_RE, '')
  const transcript = CLAUDE_TRANSCRIPT_RE.exec(body)
  if (transcript) {
    body = body.replace(CLAUDE_TRANSCRIPT_RE, '')
    s.other.push({ title: 'Full transcript', body: transcript[0].trim() })
  }
  body = body
    .replace(/^[ \t]*<analysis>[ \t]*/m, 'Analysis:\n')
    .replace(/^[ \t]*<summary>[ \t]*/m, 'Summary:\n')
    .replace(/^[ \t]*<\/(?:analysis|summary)>[ \t]*$/gm, '')
  const claudeTitle = (t: string) => CLAUDE_TITLES_RE.test(normaliseHeading(t))
  parseMarkdownBody(body, s, { preamble: 'other', preambleTitle: 'Summary', colonHeading: claudeTitle, inlineHeading: claudeTitle })
  return result('claude-code', body, s)
}

/** "Title:" lines a model writes as headings: short, and naming a known section. */
const namedHeading = (t: string) => t.trim().split(/\s+/).length <= 6 && fieldForTitle(t) !== undefined

function codex(t: string): EarlierSummary {
  const s = emptySections()
  const prefix = CODEX_PREFIX_RE.exec(t)!
  if (CODEX_BRIDGE_RE.test(t)) {
    const users = t.slice(0, prefix.index).replace(CODEX_BRIDGE_RE, '')
    for (const message of users.split(/\n[ \t]*\n/)) if (message.trim() && message.trim() !== '(none)') s.requests.push(message.trim())
  }
  const body = t.slice(prefix.index + prefix[0].length)
  parseMarkdownBody(body, s, { preamble: 'state', colonHeading: namedHeading, labelledItems: true })
  return result('codex', body, s)
}

function copilot(t: string): EarlierSummary {
  const s = emptySections()
  for (const m of t.matchAll(/<user_message>\s*([\s\S]*?)\s*<\/user_message>/g)) if (m[1]!.trim()) s.requests.push(m[1]!.trim())
  const summary = /<summary>\s*([\s\S]*?)\s*(?:<\/summary>|$)/.exec(t)
  const body = summary ? summary[1]! : t.replace(/<user_message>[\s\S]*?<\/user_message>/g, '')
  const leftover = summary ? t.slice(0, summary.index).replace(/<user_message>[\s\S]*?<\/user_message>/g, '') : ''
  const loose = leftover
    .split('\n')
    .filter((l) => l.trim() && !/^You were originally given instructions from a user|^Here is a summary of the prior context:/.test(l.trim()))
  if (loose.length) s.other.push({ title: 'Preamble', body: loose.join('\n') })
  parseMarkdownBody(body, s, { preamble: 'state', colonHeading: namedHeading, labelledItems: true })
  return result('unknown', body, s)
}

function generic(source: SummarySource, body: string): EarlierSummary {
  const s = emptySections()
  parseMarkdownBody(body, s, { preamble: 'state', colonHeading: namedHeading, labelledItems: true })
  return result(source, body, s)
}

const PI_FILE_TAGS_RE = /<(read-files|modified-files)>\s*([\s\S]*?)\s*<\/\1>/g

function pi(body: string): EarlierSummary {
  const s = emptySections()
  const files: { tag: string; list: string }[] = []
  const markdown = body.replace(PI_FILE_TAGS_RE, (_all, tag: string, list: string) => {
    files.push({ tag, list })
    return '\n'
  })
  parseMarkdownBody(markdown, s, { preamble: 'other', preambleTitle: 'Summary', colonHeading: () => false })
  for (const { tag, list } of files) {
    const how = tag === 'read-files' ? 'read' : 'modified'
    const loose: string[] = []
    // pi writes the list with literal "\n" separators inside the tag.
    for (const raw of list.split(/\\n|\r?\n/)) {
      const line = raw.trim()
      if (!line) continue
      const m = /^((?:~|\.{0,2}\/)?[^\s:]+?)(?::([\w,-]+))?$/.exec(line)
      if (m && m[1]!.includes('/')) s.files.push({ path: m[1]!, note: m[2] ? `${how} (${/^\d/.test(m[2]) ? `lines ${m[2]}` : m[2]})` : how })
      else loose.push(line)
    }
    if (loose.length) s.other.push({ title: tag, body: loose.join('\n') })
  }
  return result('pi', body, s)
}

function compactd(rest: string, round: number): EarlierSummary {
  const s = emptySections()
  let body = rest
  const footer = COMPACTD_FOOTER_RE.exec(body)
  if (footer) {
    body = body.replace(COMPACTD_FOOTER_RE, '')
    s.other.push({ title: 'Earlier rounds', body: footer[0].trim().replace(/^_|_$/g, '') })
  }
  parseMarkdownBody(body, s, { preamble: 'other', preambleTitle: 'Summary', colonHeading: (t) => /^later requests/i.test(t.trim()) })
  // "(earlier)" and the "earlier" fate are our own provenance marks: the next round adds them again.
  const unmark = (x: string) => x.replace(/\s*\(earlier\)\s*$/, '')
  for (const f of ['requests', 'errors', 'decisions', 'knowledge', 'state', 'pending', 'actions'] as const) s[f] = s[f].map(unmark)
  s.files = s.files.map((f) => ({ path: f.path, note: f.note.replace(/^earlier(?: — |$)/, '') }))
  // The action log's "- user: …" lines are the user's instructions.
  const users = s.actions.filter((a) => /^user:\s/.test(a))
  if (users.length) {
    s.requests.push(...users)
    s.actions = s.actions.filter((a) => !/^user:\s/.test(a))
  }
  return result('compactd', rest, s, round)
}

// ---------------------------------------------------------------------------
// Gemini CLI <state_snapshot>

const GEMINI_FIELDS: Record<string, Field> = {
  overall_goal: 'task',
  active_constraints: 'requests',
  key_knowledge: 'knowledge',
  file_system_state: 'files',
  recent_actions: 'actions',
  current_plan: 'pending',
  artifact_trail: 'files',
  // The newer name of current_plan: steps with a status each, the open ones the pending work.
  task_state: 'pending',
}

const ELEMENT_RE = /<([A-Za-z_][\w-]*)(\s[^>]*)?>([\s\S]*?)<\/\1\s*>|<!--([\s\S]*?)-->/g

function gemini(t: string): EarlierSummary {
  const s = emptySections()
  const open = /^<state_snapshot>/.exec(t)!
  const close = t.indexOf('</state_snapshot>')
  const inner = t.slice(open[0].length, close >= 0 ? close : undefined)
  const loose: string[] = []
  let last = 0
  for (const m of inner.matchAll(ELEMENT_RE)) {
    loose.push(inner.slice(last, m.index))
    last = m.index! + m[0].length
    if (m[4] !== undefined) loose.push(m[4])
    else geminiSection(s, m[1]!, m[3]!)
  }
  loose.push(inner.slice(last))
  if (close >= 0) loose.push(t.slice(close + '</state_snapshot>'.length))
  const leftover = splitItems(loose.join('\n').split('\n'))
  if (leftover.length) s.other.push({ title: 'state_snapshot', body: leftover.join('\n') })
  return result('gemini-cli', t, s)
}

function geminiSection(s: EarlierSections, tag: string, content: string): void {
  const field: Field | 'other' = GEMINI_FIELDS[tag] ?? fieldForTitle(tag) ?? 'other'
  // Items in order of appearance; comments in the artifact trail say what was done.
  const runs: { field: Field | 'other'; items: string[] }[] = []
  const push = (f: Field | 'other', items: string[]) => {
    if (!items.length) return
    const prev = runs.at(-1)
    if (prev && prev.field === f) prev.items.push(...items)
    else runs.push({ field: f, items })
  }
  let last = 0
  for (const m of content.matchAll(ELEMENT_RE)) {
    push(field, splitItems(content.slice(last, m.index).split('\n')))
    last = m.index! + m[0].length
    if (m[4] !== undefined) {
      if (m[4].trim()) push(tag === 'artifact_trail' ? 'actions' : field, [m[4].trim()])
      continue
    }
    const child = m[1]!
    const text = dedentBlock(m[3]!)
    if (!text) continue
    const status = /\bstatus\s*=\s*"([^"]*)"/.exec(m[2] ?? '')?.[1]
    let item = status ? `[${status}] ${text}` : text
    if (field === 'files' && child !== 'artifact') item = `${child}: ${item}`
    push(field, [item])
  }
  push(field, splitItems(content.slice(last).split('\n')))
  for (const run of runs) addItems(s, run.field, tag, run.items)
}

function dedentBlock(text: string): string {
  const lines = text.split('\n')
  const indents = lines.filter((l) => l.trim()).map((l) => /^\s*/.exec(l)![0].length)
  const base = indents.length ? Math.min(...indents) : 0
  return lines
    .map((l) => l.slice(Math.min(base, /^\s*/.exec(l)![0].length)).trimEnd())
    .join('\n')
    .trim()
}

// ---------------------------------------------------------------------------
// compactd's rolling session summary and its continuation prompt

const LIST_RE = /^\s*(?:\d+[.)]|[-*+•])\s+(.*)$/
const META_RE = /\s*<!--(.*?)-->\s*$/
const CONT_LABEL_RE = /^\s*(?:[-*]\s+)?\**([A-Za-z][A-Za-z ]*?)\**\s*:\s*(.*)$/
const CONT_FIELDS: [RegExp, ListField | 'task' | 'files', string][] = [
  [/^(current task|task|working on)$/i, 'task', ''],
  [/^(completed( steps)?|done)$/i, 'actions', ', '],
  [/^(pending( steps)?|next( steps)?|todo|remaining)$/i, 'pending', ', '],
  [/^(key decisions|decisions)$/i, 'decisions', '; '],
  [/^(relevant files|files)$/i, 'files', ', '],
]

function rolling(t: string, prompt: boolean): EarlierSummary {
  const s = emptySections()
  let block: 'items' | 'continuation' | 'other' = prompt ? 'continuation' : 'other'
  let title = prompt ? 'Previous Session Context' : 'Summary'
  let field: ListField | 'files' | undefined
  let otherLines: string[] = []
  const flushOther = () => {
    const items = splitItems(otherLines)
    if (items.length) s.other.push({ title, body: items.join('\n') })
    otherLines = []
  }
  const addTo = (f: ListField | 'files', value: string) => {
    if (f === 'files') s.files.push({ path: value, note: 'relevant' })
    else s[f].push(value)
  }
  for (const raw of t.split(/\r?\n/)) {
    const line = raw.trimEnd()
    if (!line.trim() || (prompt && /^\s*\[Previous Session Context\]\s*$/.test(line))) continue
    const heading = /^\s*#{1,6}\s*(.+?)\s*#*\s*$/.exec(line)
    if (heading) {
      flushOther()
      title = heading[1]!
      block = /continuation/i.test(title) ? 'continuation' : /previously in this session|yesterday|this week/i.test(title) ? 'items' : 'other'
      field = undefined
      continue
    }
    if (block === 'other') {
      otherLines.push(line)
      continue
    }
    if (block === 'items') {
      const li = LIST_RE.exec(line)
      const meta = META_RE.exec(line)
      const text = (li ? li[1]! : line.trim()).replace(META_RE, '').trim()
      if (!li && s.actions.length && /^\s{2,}\S/.test(raw)) s.actions[s.actions.length - 1] += `\n${text}`
      else if (text) s.actions.push(text)
      for (const kv of meta?.[1]!.trim().split(/\s+/) ?? []) {
        if (!kv.startsWith('f=')) continue
        const kind = /\bk=(\S+)/.exec(meta![1]!)?.[1]
        for (const f of kv.slice(2).split(',')) if (f) s.files.push({ path: safeDecode(f), note: kind ? `touched (${kind})` : 'touched' })
      }
      continue
    }
    const label = CONT_LABEL_RE.exec(line)
    const known = label ? CONT_FIELDS.find(([re]) => re.test(label[1]!.trim())) : undefined
    if (label && known) {
      const [, f, sep] = known
      const value = label[2]!.trim()
      if (f === 'task') {
        if (s.task === undefined) s.task = value
        else s.requests.push(value)
        field = undefined
      } else {
        field = f
        if (value) for (const v of value.split(sep)) if (v.trim()) addTo(f, v.trim())
      }
      continue
    }
    const li = LIST_RE.exec(line)
    if (li && field) addTo(field, li[1]!.trim())
    else s.state.push(line.trim())
  }
  flushOther()
  return result('compactd-session', t, s)
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

/**
 * A plan step of an earlier summary, its status marker read: `[DONE] x`, `[IN PROGRESS] x`,
 * `[TODO] x` (Gemini CLI's task_state), `[x] x` / `[ ] x` (markdown checklists). Unmarked: open.
 */
export function planStep(item: string): { text: string; done: boolean; inProgress: boolean } {
  const m = /^\s*(?:[-*]\s+)?\[\s*([^\]]*?)\s*\]\s+([\s\S]*)$/.exec(item)
  if (!m) return { text: item, done: false, inProgress: false }
  const status = m[1]!.toLowerCase().replace(/[\s_-]+/g, ' ')
  const done = /^(x|done|completed?|finished|resolved)$/.test(status)
  const inProgress = /^(in progress|current|active|doing|wip)$/.test(status)
  const open = inProgress || /^(|todo|to do|pending|not started|open|next|planned|blocked)$/.test(status)
  // Brackets that are no status marker ("[WIP branch] …", "[docs] …") stay part of the text.
  if (!done && !open) return { text: item, done: false, inProgress: false }
  return { text: m[2]!.trim(), done, inProgress }
}

/** An open step as it is listed: its text, marked when it was in progress. */
export const openStepText = (step: { text: string; inProgress: boolean }): string => (step.inProgress ? `${step.text} (in progress)` : step.text)
