/**
 * The handover document, rendered from extracted facts (facts/handover.ts) into seed
 * 004's section layout. Each line is an item with an importance (facts/importance.ts);
 * the fill takes items by importance, round-robin across classes so a long list of one
 * kind cannot crowd out the others, and renders the chosen ones in section order.
 * Sections with nothing chosen are left out. Shared by `rules` and by the check that
 * completes an `llm` summary with what the model dropped.
 */
import { openStepText, planStep, type EarlierSummary } from '../../facts/earlier-summary.ts'
import { isNetChange, type FileFate } from '../../facts/artifacts.ts'
import { isStandingConstraint, type HandoverFacts } from '../../facts/handover.ts'
import { IMPORTANCE } from '../../facts/importance.ts'
import { isProjectFile } from '../../facts/project-files.ts'
import { clip, clipKeepingPaths, COMMAND_HEAD } from '../../facts/text.ts'
import { stripHeredocBodies } from '../../facts/tools.ts'
import { taskText } from '../../facts/classify.ts'
import { repoStateLines } from '../../facts/repo-state.ts'
import { attemptLines } from '../../facts/attempts.ts'
import { deliverableItem } from './deliverable-render.ts'
import { DELIVERABLE_HEADING } from '../../facts/deliverable.ts'
import { laterTaskLines } from './task-render.ts'
import { summaryHeader } from '../summary-format.ts'
import { estimateTokens, findingLines } from './findings-render.ts'

export type Section = 'task' | 'instructions' | 'answer' | 'findings' | 'files' | 'repo' | 'errors' | 'decisions' | 'state' | 'pending' | 'context' | 'commands'

export const SECTION_ORDER: Section[] = ['task', 'instructions', 'answer', 'findings', 'files', 'repo', 'errors', 'decisions', 'state', 'pending', 'context', 'commands']

export const SECTION_HEADINGS: Record<Section, string> = {
  task: '### Original Task',
  instructions: '### User Instructions (verbatim, oldest first)',
  answer: DELIVERABLE_HEADING,
  findings: '### Findings',
  files: '### Completed Work\n| File | Fate | What changed |\n|---|---|---|',
  repo: '### Repository State',
  errors: '### Errors & Resolutions',
  decisions: '### Key Technical Decisions',
  state: '### Current State',
  pending: '### Pending Work',
  context: '### Earlier Context',
  commands: '### Commands Run',
}

export interface Item {
  section: Section
  text: string
  priority: number
  seq: number
  /** Its line and rank in the action log when it does not fit, if not asLogLine's (a finding's: findings-render.ts). */
  log?: { text: string; priority: number }
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim()
/** A command or source in backticks, heredoc bodies left out (they are file content, not the command). */
const code = (s: string, max: number) => `\`${clipKeepingPaths(stripHeredocBodies(s), max, COMMAND_HEAD).replace(/`/g, "'")}\``

/** Characters of the original task repeated in the summary (the task itself stays verbatim in the head). */
const TASK_GIST_CHARS = 300

/** Clip lengths for a budget: tighter budgets get terser lines before they get fewer. */
function clips(budget: number) {
  const tight = budget < 600
  return { task: tight ? 300 : budget < 1500 ? 600 : 1500, instruction: tight ? 240 : 500, sentence: tight ? 160 : 260, command: tight ? 90 : 160, error: tight ? 160 : 260, detail: tight ? 200 : 360, note: tight ? 80 : 160 }
}

export function fateCell(f: FileFate): string {
  return f.reverted ? 'edited, then undone' : f.fate === 'renamed' && f.from ? `renamed from ${f.from}` : f.fate
}

export function changeCell(f: FileFate, max: number): string {
  const parts: string[] = []
  if (f.added || f.removed) parts.push(`+${f.added}/-${f.removed}`)
  if (f.symbols.length) parts.push(`in ${f.symbols.slice(0, 6).join(', ')}`)
  parts.push(...f.notes)
  return clipKeepingPaths(parts.join('; '), max)
}

/** Many plain created files in one folder become one row listing their names. */
function fileRows(files: readonly FileFate[], noteMax: number): { text: string; priority: number }[] {
  const rows: { text: string; priority: number }[] = []
  const grouped = new Set<FileFate>()
  for (const row of scaffoldRows(files)) {
    rows.push({ text: row.text, priority: row.files.some(isProjectFile) ? IMPORTANCE.change : IMPORTANCE.scratchChange })
    for (const f of row.files) grouped.add(f)
  }
  const plainCreated = new Map<string, FileFate[]>()
  for (const f of files) {
    if (grouped.has(f)) continue
    if (f.fate === 'created' && f.notes.length <= 1 && !f.symbols.length) {
      const dir = f.path.includes('/') ? f.path.slice(0, f.path.lastIndexOf('/') + 1) : './'
      plainCreated.set(dir, [...(plainCreated.get(dir) ?? []), f])
    }
  }
  for (const [dir, group] of plainCreated) {
    if (group.length < 4) continue
    for (const f of group) grouped.add(f)
    const names = group.map((f) => f.path.slice(dir === './' ? 0 : dir.length)).join(', ')
    rows.push({ text: `| ${cell(dir)} (${group.length} files) | created | ${cell(names)} |`, priority: !group.some(isProjectFile) ? IMPORTANCE.scratchChange : IMPORTANCE.change })
  }
  for (const f of files) {
    if (grouped.has(f)) continue
    // An edit undone later changed nothing: it ranks as the abandoned attempt it was.
    const priority = f.fate === 'read' ? IMPORTANCE.read : f.reverted ? IMPORTANCE.abandoned : !isProjectFile(f) ? IMPORTANCE.scratchChange : IMPORTANCE.change
    rows.push({ text: `| ${cell(f.path)} | ${fateCell(f)} | ${cell(changeCell(f, noteMax))} |`, priority })
  }
  return rows
}

/** Modules at least this many, each with at least SCAFFOLD_MIN_FILES files, make a scaffold row. */
const SCAFFOLD_MIN_MODULES = 3
const SCAFFOLD_MIN_FILES = 2

/**
 * Generated modules as one row: files created as `<dir>/<name>/<name><suffix>` (a NestJS
 * `billing/billing.controller.ts`, an Angular `user/user.component.ts`), where three or
 * more modules of one folder got the same suffixes. The row spells out the first module's
 * files and names the others, so a scaffold of 150 files is one line instead of 150 rows
 * of which the budget keeps the last few. The class: scaffolding sessions (one module per
 * domain, per entity, per page).
 */
export function scaffoldRows(files: readonly FileFate[]): { text: string; files: FileFate[] }[] {
  const modules = new Map<string, Map<string, FileFate[]>>() // folder -> module -> its files
  for (const f of files) {
    if (f.fate !== 'created' || f.reverted) continue
    const m = /^(.*\/)([^/]+)\/([^/]+)$/.exec(f.path)
    if (!m || !m[3]!.startsWith(`${m[2]}.`)) continue
    const byModule = modules.get(m[1]!) ?? new Map<string, FileFate[]>()
    byModule.set(m[2]!, [...(byModule.get(m[2]!) ?? []), f])
    modules.set(m[1]!, byModule)
  }
  const rows: { text: string; files: FileFate[] }[] = []
  for (const [dir, byModule] of modules) {
    // Modules with the same suffixes, in the order they were first written.
    const bySuffixes = new Map<string, [string, FileFate[]][]>()
    for (const [name, fs] of byModule) {
      if (fs.length < SCAFFOLD_MIN_FILES) continue
      const key = fs.map((f) => f.path.slice(dir.length + name.length + 1 + name.length)).sort().join('|')
      bySuffixes.set(key, [...(bySuffixes.get(key) ?? []), [name, fs]])
    }
    for (const group of bySuffixes.values()) {
      if (group.length < SCAFFOLD_MIN_MODULES) continue
      const [first, firstFiles] = group[0]!
      const others = group.slice(1).map(([name]) => name)
      const names = firstFiles.map((f) => f.path.slice(dir.length + first.length + 1)).join(', ')
      rows.push({
        text: `| ${cell(dir)} (${group.length} modules, ${group.length * firstFiles.length} files) | created | ${cell(`${first}/: ${names}; the same files in ${others.join(', ')}`)} |`,
        files: group.flatMap(([, fs]) => fs),
      })
    }
  }
  return rows
}

/** Items of the handover, before any budget applies. `count` measures text as sent (an estimate without it). */
export function handoverItems(facts: HandoverFacts, originalTask: string, budget: number, preserveErrorDetails: boolean, count: (s: string) => number = estimateTokens): Item[] {
  const c = clips(budget)
  const items: Item[] = []
  let seq = 0
  const add = (section: Section, text: string, priority: number) => items.push({ section, text, priority, seq: seq++ })
  const earlier = facts.earlier

  let later: ReturnType<typeof laterTaskLines>
  const earlierTask = earlier.find((e) => e.sections.task)?.sections.task
  if (earlierTask?.trim()) add('task', earlierTask.length > c.task ? clip(earlierTask, c.task) : earlierTask.trim(), IMPORTANCE.task)
  else if (originalTask.trim()) {
    // A first message that only asked a question: the work set later leads (task-render.ts).
    later = laterTaskLines(facts, originalTask, isStandingConstraint, { task: c.task, outcome: c.sentence })
    for (const line of later?.lines ?? []) add('task', line.text, line.priority)
    // The original task is kept verbatim above the summary: a gist is enough here.
    const gist = taskText(originalTask).trim()
    if (!later) add('task', gist.length > TASK_GIST_CHARS ? `${clipKeepingPaths(gist, TASK_GIST_CHARS)} (full text: the first user message, kept above)` : gist, IMPORTANCE.task)
  }

  for (const e of earlier) for (const r of e.sections.requests) add('instructions', `- ${clip(r, c.instruction)} (earlier)`, IMPORTANCE.earlierRequest)
  // The request in progress, quoted whole as the task, is not quoted again; those before it say what came of them.
  for (const r of facts.instructions) {
    if (r.position === later?.quotedWhole) continue
    const outcome = later?.outcomes.get(r.position)
    add('instructions', `- "${clipKeepingPaths(r.text, c.instruction)}"${outcome ? ` → ${outcome}` : ''}`, IMPORTANCE.instruction)
  }

  const answer = deliverableItem(facts, originalTask, budget, count)
  if (answer) add('answer', answer.text, answer.priority)

  // Best first in the section; the fill takes the highest seq of a class first, so the best gets the highest.
  const findings = findingLines(facts.findings, budget, count)
  findings.forEach((f, k) => items.push({ section: 'findings', text: f.text, priority: f.priority, seq: seq + findings.length - 1 - k, log: { text: f.logLine, priority: f.logPriority } }))
  seq += findings.length

  for (const e of earlier) for (const f of e.sections.files) add('files', `| ${cell(f.path)} | earlier | ${cell(clipKeepingPaths(f.note, c.note))} |`, IMPORTANCE.earlierState)
  // Ordered by last touch: among equal ranks, the file worked on last is taken first.
  // A file whose edits were undone and whose attempt a Rejected line tells (with its evidence) needs no row too.
  const told = new Set((facts.attempts ?? []).map((a) => a.path))
  const byLastTouch = facts.files.filter((f) => !(f.reverted && told.has(f.path))).sort((a, b) => a.lastIndex - b.lastIndex)
  for (const row of fileRows(byLastTouch, c.note)) add('files', row.text, row.priority)
  if (facts.repo) for (const line of repoStateLines(facts.repo)) add('repo', line.text, line.headline ? IMPORTANCE.repoState : IMPORTANCE.repoDetail)

  for (const e of earlier) for (const x of e.sections.errors) add('errors', `- ${clip(x, c.sentence)} (earlier)`, IMPORTANCE.earlierState)
  for (const f of facts.failures) {
    const exit = `${f.times ? ` (×${f.times})` : ''}${f.exitCode !== undefined ? ` → exit ${f.exitCode}` : ' → error'}`
    const resolved = f.resolvedAt !== undefined ? ' — resolved: a later run of the same command succeeded' : ''
    // A failure a later run fixed is history: it ranks below the files that were changed.
    add('errors', `- ${code(f.source, c.command)}${exit}: ${clipKeepingPaths(f.errorLine, c.error)}${resolved}`, f.resolvedAt !== undefined ? IMPORTANCE.resolvedFailure : IMPORTANCE.failure)
    if (preserveErrorDetails && f.detail && f.detail.trim() !== f.errorLine.trim()) {
      const detail = clipKeepingPaths(f.detail, c.detail)
      add('errors', `    ${detail}`, IMPORTANCE.errorDetail)
    }
  }

  for (const s of facts.rootCauses) add('decisions', `- Root cause: ${clipKeepingPaths(s, c.sentence)}`, IMPORTANCE.rootCause)
  for (const e of earlier) for (const d of e.sections.decisions) add('decisions', `- ${clip(d, c.sentence)} (earlier)`, IMPORTANCE.earlierState)
  for (const s of facts.decisions) add('decisions', `- ${clipKeepingPaths(s, c.sentence)}`, IMPORTANCE.decision)
  for (const line of attemptLines(facts.attempts ?? [])) add('decisions', line, IMPORTANCE.rejectedAttempt)
  const givenReasons = new Set((facts.attempts ?? []).map((a) => a.reason))
  for (const s of facts.abandoned) if (!givenReasons.has(s)) add('decisions', `- Tried and abandoned: ${clipKeepingPaths(s, c.sentence)}`, IMPORTANCE.abandoned)

  // Said already when the task section leads with the request in progress.
  const workLeads = later?.quotedWhole !== undefined && facts.currentWork === facts.requests?.inProgress?.text
  if (facts.currentWork && !workLeads) add('state', `- Working on: ${clipKeepingPaths(facts.currentWork, c.sentence)}`, IMPORTANCE.state)
  else if (!facts.currentWork && facts.finished) add('state', `- Done, nothing in progress: ${clipKeepingPaths(facts.finished.request, c.sentence)} — the agent reported: ${clipKeepingPaths(facts.finished.report, c.sentence)}`, IMPORTANCE.state)
  const changedFiles = facts.files.filter(isNetChange).sort((a, b) => a.lastIndex - b.lastIndex)
  const lastChange = changedFiles.filter(isProjectFile).at(-1) ?? changedFiles.at(-1)
  if (lastChange) add('state', `- Last change: ${lastChange.path} (${fateCell(lastChange)})`, IMPORTANCE.lastChange)
  const lastCmd = [...facts.commands].sort((a, b) => a.lastPosition - b.lastPosition).at(-1)
  if (lastCmd) add('state', `- Last command: ${code(lastCmd.command, c.command)} → ${lastCmd.lastExitCode !== undefined ? `exit ${lastCmd.lastExitCode}` : lastCmd.lastFailed ? 'error' : 'ok'}`, IMPORTANCE.lastCommand)
  if (!facts.currentWork && !facts.finished) for (const e of earlier) for (const s of e.sections.state) add('state', `- ${clip(s, c.sentence)} (earlier)`, IMPORTANCE.earlierState)

  if (facts.plan?.length) {
    for (const p of facts.plan) {
      if (p.status === 'completed') continue
      add('pending', `- [ ] ${clipKeepingPaths(p.text, c.sentence)}${p.status === 'in_progress' ? ' (in progress)' : ''}`, IMPORTANCE.pending)
    }
    const done = facts.plan.filter((p) => p.status === 'completed')
    if (done.length) add('pending', `- Done in the plan: ${done.map((p) => clip(p.text, 80)).join('; ')}`, IMPORTANCE.planDone)
  } else {
    // An earlier plan's open steps are pending work; its done steps say what is finished, and rank lower.
    for (const e of earlier) {
      const steps = e.sections.pending.map(planStep)
      for (const step of steps) if (!step.done) add('pending', `- [ ] ${clip(openStepText(step), c.sentence)} (earlier)`, IMPORTANCE.earlierState)
      const done = steps.filter((p) => p.done)
      if (done.length) add('pending', `- Done earlier: ${done.map((p) => clip(p.text, 80)).join('; ')}`, IMPORTANCE.earlierDone)
    }
  }
  if (facts.nextStep) add('pending', `- Next step: ${clipKeepingPaths(facts.nextStep, c.sentence)}`, IMPORTANCE.nextStep)

  // Files read with nothing used from them: no rows, one line naming them, ranked as reads (facts/read-reuse.ts).
  if (facts.unusedReads?.length) add('context', `- Also read, nothing from them used later: ${clipKeepingPaths(facts.unusedReads.join(', '), c.detail * 2)}`, IMPORTANCE.read)
  for (const e of earlier) {
    for (const k of e.sections.knowledge) add('context', `- ${clip(k, c.sentence)}`, IMPORTANCE.earlierBackground)
    for (const o of e.sections.other) add('context', `- ${o.title}: ${clip(o.body, c.detail)}`, IMPORTANCE.earlierOther)
  }

  for (const cmd of facts.commands) {
    // A read that worked is a log line already; listed again here it only takes the log's room.
    if (cmd.readOnly && !cmd.everFailed) continue
    const last = cmd.lastExitCode !== undefined ? `exit ${cmd.lastExitCode}` : cmd.lastFailed ? 'error' : 'ok'
    const text = `- ${code(cmd.command, c.command)} (${cmd.runs > 1 ? `×${cmd.runs}, last ` : ''}${last}${cmd.everFailed && !cmd.lastFailed ? ', failed earlier' : ''})`
    // A failed command is already under Errors: here it is a repeat, ranked as any command.
    add('commands', text, cmd.test && !cmd.lastFailed ? IMPORTANCE.test : IMPORTANCE.command)
  }
  return items
}

/** Greedy fill of `items` within `budget` tokens (`count` counts text as sent). */
export function renderItems(items: readonly Item[], opts: { round: number; budget: number; footer?: string; count: (s: string) => number; left?: Item[] }): string {
  const header = summaryHeader(opts.round)
  let used = opts.count(header) + (opts.footer ? opts.count(opts.footer) + 1 : 0)
  const opened = new Set<Section>()
  const chosen = new Set<Item>()
  const byPriority = [...items].sort((a, b) => b.priority - a.priority || b.seq - a.seq)
  let skipped = false
  const take = (item: Item) => {
    const cost = opts.count(item.text) + 1 + (opened.has(item.section) ? 0 : opts.count(SECTION_HEADINGS[item.section]) + 2)
    if (used + cost > opts.budget) {
      skipped = true
      return
    }
    used += cost
    opened.add(item.section)
    chosen.add(item)
  }
  // Round-robin across importance classes, newest first within each, so a long list of one
  // kind cannot crowd out the others. Reads, searches and mentions only fill what is left
  // once everything above them fitted: they never displace a failure or a change.
  const fill = (pool: Item[]) => {
    const classes = [...new Set(pool.map((i) => i.priority))].map((p) => pool.filter((i) => i.priority === p))
    const rounds = Math.max(0, ...classes.map((c) => c.length))
    for (let round = 0; round < rounds; round++) {
      for (const c of classes) {
        const per = c[0]!.priority >= IMPORTANCE.failure ? 2 : 1
        for (let k = round * per; k < Math.min(c.length, (round + 1) * per); k++) take(c[k]!)
      }
    }
  }
  fill(byPriority.filter((i) => i.priority >= IMPORTANCE.test))
  if (!skipped) fill(byPriority.filter((i) => i.priority < IMPORTANCE.test))
  const build = () => {
    const out = [header, '']
    for (const section of SECTION_ORDER) {
      const lines = items.filter((i) => i.section === section && chosen.has(i))
      if (lines.length === 0) continue
      out.push(SECTION_HEADINGS[section], ...lines.map((i) => i.text), '')
    }
    if (opts.footer) out.push(opts.footer)
    return out.join('\n').trim()
  }
  let text = build()
  // Per-line counts round differently from the whole: drop the least important until it fits.
  for (const item of [...byPriority].reverse()) {
    if (opts.count(text) <= opts.budget) break
    if (chosen.delete(item)) text = build()
  }
  if (opts.left) for (const item of items) if (!chosen.has(item)) opts.left.push(item)
  return text
}

/** An item that did not fit the sections, as a line of the action log ("- …"); undefined for detail lines. */
export function asLogLine(item: Item): string | undefined {
  if (/^\s{2,}/.test(item.text)) return undefined // an error's detail block belongs under its error
  const row = /^\|(.+)\|$/.exec(item.text.trim())
  if (row) {
    const cells = row[1]!.split(/(?<!\\)\|/).map((c) => c.trim()).filter(Boolean)
    return `- ${cells[0]}: ${cells.slice(1).join(' — ')}`
  }
  // The deliverable's own line is in the log already ("agent reported"), clipped.
  if (item.section === 'task' || item.section === 'answer' || item.text.endsWith(':')) return undefined
  return item.text.startsWith('- ') ? item.text : `- ${item.text}`
}

export function earlierFooter(earlier: readonly EarlierSummary[], round: number): string | undefined {
  if (earlier.length === 0) return undefined
  const sources = [...new Set(earlier.map((e) => e.source))].join(', ')
  return `_This summary integrates ${round - 1} earlier compaction round${round - 1 === 1 ? '' : 's'} (${sources})._`
}
