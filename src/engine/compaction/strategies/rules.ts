/**
 * `rules`: the offline summarizer (seed 002), compactd's default. It extracts facts
 * mechanically (extract/facts.ts) and renders seed 004's sections, plus the commands
 * run. It integrates the previous round's summary instead of summarising it blindly,
 * and fits the budget by lowering detail step by step: lowest-priority items go first
 * (reads and successful commands), decisions, errors and changed files last.
 */
import { extractFacts, type ConversationFacts, type FileFact } from '../extract/facts.ts'
import { clip } from '../extract/tools.ts'
import { parseSummarySections, summaryHeader } from '../summary-format.ts'
import type { KeyFacts, Summarizer, SummaryRequest, SummaryResult } from '../types.ts'

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim()
const code = (s: string, max: number) => `\`${clip(s, max).replace(/`/g, "'")}\``

/** Items carried over from the previous round's summary, by section. */
interface PreviousItems {
  task?: string
  rows: string[]
  bullets: Map<string, string[]>
}

function readPrevious(text: string | undefined): PreviousItems {
  const out: PreviousItems = { rows: [], bullets: new Map() }
  if (!text) return out
  const { sections } = parseSummarySections(text)
  for (const [title, body] of sections) {
    if (title === 'original task') {
      out.task = body.split('\n').filter((l) => !/^\s*(later requests|- )/i.test(l)).join('\n').trim() || undefined
      const later = body.split('\n').filter((l) => /^\s*- /.test(l))
      if (later.length) out.bullets.set('user requests', later.map((l) => l.replace(/^\s*- /, '')))
      continue
    }
    const lines = body.split('\n').map((l) => l.trimEnd()).filter((l) => l.trim())
    if (title === 'completed work') {
      for (const l of lines) if (/^\s*\|/.test(l) && !/^\s*\|\s*(file|-{2,})/i.test(l)) out.rows.push(l.trim())
      continue
    }
    const items = lines.filter((l) => /^\s*([-*]|\d+\.)\s/.test(l)).map((l) => l.replace(/^\s*([-*]|\d+\.)\s+/, ''))
    out.bullets.set(title, items.length ? items : lines)
  }
  return out
}

function fileAction(f: FileFact): string {
  if (f.actions.has('created')) return 'created'
  if (f.actions.has('modified')) return 'modified'
  if (f.actions.has('read')) return 'read'
  if (f.actions.has('searched')) return 'searched'
  return 'mentioned'
}

type Section = 'task' | 'work' | 'decisions' | 'state' | 'pending' | 'errors' | 'commands'

const SECTION_ORDER: Section[] = ['task', 'work', 'decisions', 'state', 'pending', 'errors', 'commands']
const SECTION_HEADINGS: Record<Section, string> = {
  task: '### Original Task',
  work: '### Completed Work\n| File | Action | Description |\n|---|---|---|',
  decisions: '### Key Technical Decisions',
  state: '### Current State',
  pending: '### Pending Work',
  errors: '### Errors & Resolutions',
  commands: '### Commands Run',
}

/**
 * What matters most for continuing, highest first (seed 000's ranking, applied to the
 * brief's list: task and constraints, changed files, failures and their errors, root
 * cause and decisions, next steps; then what was merely looked at).
 */
const P = {
  task: 100,
  request: 90,
  state: 85,
  changedFile: 80,
  failedCommand: 78,
  error: 75,
  rootCause: 72,
  pending: 70,
  decision: 65,
  abandoned: 60,
  previous: 58,
  errorDetail: 50,
  testCommand: 45,
  command: 35,
  readFile: 25,
  mentionedFile: 10,
}

interface Item {
  section: Section
  text: string
  priority: number
  /** Position within its section when rendered. */
  seq: number
}

/** Clip lengths for a budget: tighter budgets get terser lines, not fewer facts first. */
function clips(budget: number) {
  const tight = budget < 500
  return {
    task: tight ? 200 : budget < 1200 ? 400 : 1200,
    request: tight ? 160 : 320,
    sentence: tight ? 140 : 220,
    command: tight ? 80 : 140,
    change: tight ? 60 : 140,
    errorLine: tight ? 140 : 240,
    errorDetail: tight ? 200 : 600,
  }
}

function buildItems(req: SummaryRequest, facts: ConversationFacts, prev: PreviousItems): Item[] {
  const c = clips(req.budgetTokens)
  const items: Item[] = []
  let seq = 0
  const add = (section: Section, text: string, priority: number) => items.push({ section, text, priority, seq: seq++ })

  const task = prev.task ?? req.originalTask
  add('task', task.length > c.task ? `${task.slice(0, c.task)}… (full text kept as the first user message)` : task, P.task)
  const prevRequests = prev.bullets.get('user requests') ?? []
  const newRequests = facts.userRequests.map((r) => `"${clip(r.text, c.request)}"`)
  if (prevRequests.length || newRequests.length) add('task', 'Later requests (verbatim):', P.request)
  for (const r of prevRequests) add('task', `- ${r}`, P.previous)
  for (const r of newRequests) add('task', `- ${r}`, P.request)

  const files = [...facts.files.values()]
  const changed = files.filter((f) => f.actions.has('created') || f.actions.has('modified'))
  const newPaths = new Set(files.map((f) => f.path))
  for (const row of prev.rows) {
    const path = /^\|\s*`?([^|`]+?)`?\s*\|/.exec(row)?.[1]
    if (!path || !newPaths.has(path)) add('work', row, P.previous)
  }
  for (const f of changed) add('work', `| ${cell(f.path)} | ${fileAction(f)} | ${cell(clip(f.changes.join('; '), c.change))} |`, P.changedFile)
  for (const f of files) {
    if (changed.includes(f)) continue
    add('work', `| ${cell(f.path)} | ${fileAction(f)} | |`, f.actions.has('mentioned') && f.actions.size === 1 ? P.mentionedFile : P.readFile)
  }

  for (const d of prev.bullets.get('key technical decisions') ?? []) add('decisions', `- ${d}`, P.previous)
  for (const s of facts.rootCauses) add('decisions', `- Root cause: ${clip(s, c.sentence)}`, P.rootCause)
  for (const s of facts.decisions) add('decisions', `- ${clip(s, c.sentence)}`, P.decision)
  for (const s of facts.abandoned) add('decisions', `- Tried and abandoned: ${clip(s, c.sentence)}`, P.abandoned)

  const last = facts.lastAssistantText ?? prev.bullets.get('current state')?.join(' ')
  if (last) add('state', `- Working on: ${clip(last, c.sentence)}`, P.state + 1)
  const lastChange = changed.at(-1)
  if (lastChange) add('state', `- Last change: ${lastChange.path} (${fileAction(lastChange)})`, P.state)
  const lastCmd = facts.commands.at(-1)
  if (lastCmd) add('state', `- Last command: ${code(lastCmd.command, c.command)} → ${lastCmd.exitCode !== undefined ? `exit ${lastCmd.exitCode}` : lastCmd.failed ? 'failed' : 'ok'}`, P.state)

  const pending = facts.nextSteps.length ? facts.nextSteps : (prev.bullets.get('pending work') ?? [])
  for (const p of pending) add('pending', `- [ ] ${clip(p.replace(/^\[ \]\s*/, ''), c.sentence)}`, P.pending)

  for (const e of prev.bullets.get('errors & resolutions') ?? []) add('errors', `- ${e}`, P.previous)
  for (const e of facts.errors) {
    const resolution = e.resolvedAt !== undefined ? ' → resolved: the same command later succeeded' : ''
    add('errors', `- ${code(e.source, c.command)}: ${clip(e.line, c.errorLine)}${resolution}`, P.error)
    if (req.preserveErrorDetails && e.detail && e.detail.trim() !== e.line.trim()) {
      add('errors', clip(e.detail, c.errorDetail).split(/\n/).map((l) => `    ${l.trim()}`).filter((l) => l.trim()).join('\n'), P.errorDetail)
    }
  }

  // Every distinct command with its last exit code: "which commands and tests failed".
  for (const x of prev.bullets.get('commands run') ?? []) add('commands', `- ${x}`, P.previous)
  const byCommand = new Map<string, { n: number; last: (typeof facts.commands)[number]; failed: boolean }>()
  for (const cmd of facts.commands) {
    const key = cmd.command.trim()
    const s = byCommand.get(key)
    if (s) {
      s.n++
      s.last = cmd
      s.failed ||= cmd.failed
    } else byCommand.set(key, { n: 1, last: cmd, failed: cmd.failed })
  }
  for (const [cmd, s] of byCommand) {
    const exits = s.last.exitCode !== undefined ? `exit ${s.last.exitCode}` : s.last.failed ? 'failed' : 'ok'
    const line = `- ${code(cmd, c.command)} (${s.n > 1 ? `×${s.n}, last ` : ''}${exits}${s.failed && !s.last.failed ? ', failed earlier' : ''})`
    add('commands', line, s.failed ? P.failedCommand : TEST_COMMAND_RE.test(cmd) ? P.testCommand : P.command)
  }
  return items
}

const TEST_COMMAND_RE = /\b(test|tests|pytest|jest|vitest|mocha|tap|go test|cargo test|unittest|tox|nox|make check|npm run (build|lint|check)|tsc)\b/

/**
 * Greedy fill: take items by priority (newest first among equals) while they fit,
 * then render the chosen ones in section order. Sections with nothing chosen vanish.
 */
function render(req: SummaryRequest, items: Item[], count: (s: string) => number): string {
  const budget = req.budgetTokens
  const header = summaryHeader(req.round)
  const footer = req.previousSummary ? `_This summary integrates ${req.round - 1} earlier compaction round${req.round - 1 === 1 ? '' : 's'}._` : ''
  let used = count(header) + (footer ? count(footer) + 1 : 0)
  const opened = new Set<Section>()
  const chosen = new Set<Item>()
  const byPriority = [...items].sort((a, b) => b.priority - a.priority || b.seq - a.seq)
  // Round-robin across priority classes, newest first within each: a long list of one
  // kind (scratch files, say) cannot crowd out the failures or the decisions.
  const classes = [...new Set(byPriority.map((i) => i.priority))].map((p) => byPriority.filter((i) => i.priority === p))
  const take = (item: Item) => {
    const cost = count(item.text) + 1 + (opened.has(item.section) ? 0 : count(SECTION_HEADINGS[item.section]) + 2)
    if (used + cost > budget) return
    used += cost
    opened.add(item.section)
    chosen.add(item)
  }
  for (let round = 0; classes.some((c) => c.length > round); round++) {
    for (const c of classes) {
      // Higher classes take two items a round.
      const perRound = c[0]!.priority >= P.failedCommand ? 2 : 1
      for (let k = round * perRound; k < Math.min(c.length, (round + 1) * perRound); k++) take(c[k]!)
    }
  }
  const build = () => {
    const out = [header, '']
    for (const section of SECTION_ORDER) {
      const lines = items.filter((i) => i.section === section && chosen.has(i))
      if (lines.length === 0) continue
      out.push(SECTION_HEADINGS[section], ...lines.map((i) => i.text), '')
    }
    if (footer) out.push(footer)
    return out.join('\n').trim()
  }
  let text = build()
  // Per-line counts can round differently from the whole: drop the least important until it fits.
  for (const item of [...byPriority].reverse()) {
    if (count(text) <= budget) break
    if (chosen.delete(item)) text = build()
  }
  return text
}

function keyFactsOf(req: SummaryRequest, facts: ConversationFacts): KeyFacts {
  const files = [...facts.files.values()]
  const changed = files.filter((f) => f.actions.has('created') || f.actions.has('modified'))
  const lastRequest = facts.userRequests.at(-1)?.text
  return {
    currentTask: clip(lastRequest ?? req.originalTask, 600),
    completedSteps: [
      ...changed.map((f) => `${fileAction(f)} ${f.path}${f.changes.length ? `: ${clip(f.changes.join('; '), 160)}` : ''}`),
      ...facts.commands.filter((c) => !c.failed && /\b(test|pytest|jest|vitest|mocha|tap|go test|cargo test|make|build|lint|tsc)\b/.test(c.command)).map((c) => `ran ${clip(c.command, 120)} (ok)`),
    ].slice(0, 40),
    pendingSteps: facts.nextSteps.slice(-6),
    keyDecisions: [...facts.rootCauses.map((s) => `Root cause: ${s}`), ...facts.decisions, ...facts.abandoned.map((s) => `Abandoned: ${s}`)].slice(0, 30),
    relevantFiles: [...changed, ...files.filter((f) => !changed.includes(f) && f.actions.has('read'))].map((f) => f.path).slice(0, 60),
    errors: facts.errors.map((e) => `${clip(e.source, 120)}: ${e.line}${e.resolvedAt !== undefined ? ' (resolved)' : ''}`).slice(-30),
    userRequests: facts.userRequests.map((r) => r.text),
  }
}

export function rulesSummarize(req: SummaryRequest): SummaryResult {
  const facts = extractFacts(req.messages, { preserveErrorDetails: req.preserveErrorDetails })
  const prev = readPrevious(req.previousSummary?.text)
  const count = (s: string) => Math.ceil(req.counter.text(s) * req.counter.margin)
  const text = render(req, buildItems(req, facts, prev), count)
  return { text, keyFacts: keyFactsOf(req, facts), usage: { inputTokens: 0, outputTokens: 0, calls: 0 } }
}

export const rulesSummarizer: Summarizer = {
  name: 'rules',
  summarize: async (req) => rulesSummarize(req),
}
