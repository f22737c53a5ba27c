/**
 * The continuation block (seed 003's fields: current task, completed and pending steps,
 * key decisions, relevant files), folded forward batch by batch from the shared facts
 * (read.ts), and its context-injection prompt text.
 *
 * Every field holds the human's words, evidence or conclusions, never the agent's
 * narration: the current task is the latest real instruction (harness text, a bare
 * "continue", a greeting or a "yes" never replace it) or an earlier summary's task;
 * pending work is the latest todo-tool plan when there is one, else the last open
 * intent, else an earlier summary's pending list; completed steps are the plan's done
 * items, else what each exchange demonstrably did (files changed, failures fixed, tests
 * passed); decisions and root causes are conclusions (facts/reasoning.ts).
 */
import { isNetChange, isUrl } from '../facts/artifacts.ts'
import { openStepText, planStep } from '../facts/earlier-summary.ts'
import { isProjectFile } from '../facts/project-files.ts'
import { isMusing } from '../facts/reasoning.ts'
import { isTestCommand, shortenPath } from '../facts/text.ts'
import { stripHeredocBodies } from '../facts/tools.ts'
import { clipText } from './clip.ts'
import type { Continuation, SummaryDocument } from './document.ts'
import { plainEntry } from './earlier.ts'
import { filePath, meaningfulInstructions, NARRATION_RE, type Summarized } from './items.ts'
import type { BatchReading, ExchangeFacts } from './read.ts'

/** Most entries kept per list (the most recent ones) at the default 10k budget. */
const CAPS = { completedSteps: 8, pendingSteps: 6, keyDecisions: 8, relevantFiles: 12 }
/** Fewest kept however small the budget. */
const MIN_CAPS = { completedSteps: 2, pendingSteps: 3, keyDecisions: 2, relevantFiles: 4 }

/** Caps for a budget: the block stays a modest share of a small summary, leaving room for the items. */
function capsFor(budgetTokens: number): typeof CAPS {
  const f = Math.min(1, budgetTokens / 8000)
  const cap = (k: keyof typeof CAPS) => Math.max(MIN_CAPS[k], Math.round(CAPS[k] * f))
  return { completedSteps: cap('completedSteps'), pendingSteps: cap('pendingSteps'), keyDecisions: cap('keyDecisions'), relevantFiles: cap('relevantFiles') }
}

/** Answers to a question ("yes, do it", "sounds good"): the human's words, but not a new task. */
const CONFIRMATION_RE = /^(?:yes|yeah|yep|yup|y|no|nope|sure|ok(?:ay)?|right|correct|exactly|agreed|do it|go for it|sounds good|lgtm|please do|that works|perfect)\b[\s,.!]*(?:(?:please |just |then |and )?(?:do it|go ahead|go for it|proceed|thanks?|thank you|sounds good|please)[\s,.!]*)*$/i

/** Text an agent can resume from: no questions, musings or announcements of its next look-around. */
function statement(s: string): boolean {
  const t = s.trim()
  return t.length > 0 && !isMusing(t) && !NARRATION_RE.test(t)
}

/** One entry per file: `/testbed/src/a.py` and `src/a.py` are the same file (the first spelling, the most recent, stays). */
function sameFilesOnce(paths: readonly string[]): string[] {
  const out: string[] = []
  for (const p of paths) if (!out.some((q) => q === p || q.endsWith(`/${p}`) || p.endsWith(`/${q}`))) out.push(p)
  return out
}

const pushLatest = (list: string[], entries: readonly string[], cap: number) => [...list.filter((d) => !entries.includes(d)), ...entries].slice(-cap)

/** What an exchange demonstrably did: files changed, failures resolved, test runs that confirmed a change. */
function doneStep(x: ExchangeFacts): string | undefined {
  const parts: string[] = []
  const changed = x.files.filter((f) => isNetChange(f) && isProjectFile(f))
  if (changed.length) parts.push(changed.slice(0, 2).map((f) => `${f.fate} ${shortenPath(f.path, 40)}`).join(', ') + (changed.length > 2 ? ` +${changed.length - 2} more` : ''))
  const fixed = x.failures.filter((f) => f.resolvedAt !== undefined).at(-1)
  // A passing run alone completes nothing; it confirms a change or a fix.
  const passed = changed.length ? x.tools.filter((t) => t.digest.kind === 'shell' && t.digest.status === 'ok' && isTestCommand(t.digest.target ?? '')).at(-1) : undefined
  if (fixed) parts.push(`\`${clipText(stripHeredocBodies(fixed.source), 50)}\` fixed`)
  else if (passed) parts.push(`\`${clipText(stripHeredocBodies(passed.digest.target!), 50)}\` passed`)
  if (!parts.length) return undefined
  const asked = meaningfulInstructions(x).at(-1)
  return `${asked ? `${clipText(asked.text, 60)}: ` : ''}${parts.join('; ')}`
}

/**
 * Folds a batch into the continuation block. `done` are the batch's exchanges in
 * order, `reading` their shared facts (the latest plan and the last open intent are
 * the batch's). Lists keep their most recent entries, fewer under a small budget.
 */
export function updateContinuation(c: Continuation, done: Summarized[], reading: BatchReading, budgetTokens: number): void {
  const CAPS = capsFor(budgetTokens)
  // The current task: the latest real instruction or earlier summary's task, by position.
  let task: { position: number; text: string } | undefined
  let earlierPending: string[] | undefined
  for (const { facts: x } of done) {
    for (const e of x.earlier) {
      const s = e.summary.sections
      if (s.task && (!task || e.position >= task.position)) task = { position: e.position, text: plainEntry(s.task, 300) }
      if (s.pending.length) {
        // An earlier plan: its open steps are pending, its done steps completed.
        const steps = s.pending.map(planStep)
        earlierPending = steps.filter((p) => !p.done).map((p) => plainEntry(openStepText(p), 200)).filter(statement)
        c.completedSteps = pushLatest(c.completedSteps, steps.filter((p) => p.done).map((p) => plainEntry(p.text, 160)), CAPS.completedSteps)
      }
      c.keyDecisions = pushLatest(c.keyDecisions, s.decisions.map((d) => plainEntry(d, 200)).filter(statement), CAPS.keyDecisions)
      const files = s.files.map((f) => f.path).filter((p) => !isUrl(p))
      c.relevantFiles = [...new Set([...files, ...c.relevantFiles])].slice(0, CAPS.relevantFiles)
    }
    for (const i of meaningfulInstructions(x)) {
      if (CONFIRMATION_RE.test(i.text)) continue
      if (!task || i.position >= task.position) task = { position: i.position, text: clipText(i.text, 300) }
    }
    const decisions = [...x.rootCauses.map((r) => (/root cause/i.test(r) ? r : `Root cause: ${r}`)), ...x.decisions].map((d) => clipText(d, 180))
    c.keyDecisions = pushLatest(c.keyDecisions, decisions, CAPS.keyDecisions)
    // Files: changed project files first, then those read; most recent first, URLs never.
    const touched = x.files.filter((f) => isProjectFile(f)).sort((a, b) => b.lastIndex - a.lastIndex)
    const fresh = [...touched.filter((f) => f.fate !== 'read' && f.fate !== 'deleted'), ...touched.filter((f) => f.fate === 'read')].map((f) => filePath(f.path))
    c.relevantFiles = sameFilesOnce([...fresh, ...c.relevantFiles]).slice(0, CAPS.relevantFiles)
    // A file this batch deleted is no longer relevant.
    const deleted = new Set(x.files.filter((f) => f.fate === 'deleted').map((f) => f.path))
    c.relevantFiles = c.relevantFiles.filter((f) => !deleted.has(f))
  }
  if (task) c.currentTask = task.text

  const plan = reading.batch.plan
  const open = plan?.filter((p) => p.status !== 'completed') ?? []
  const intent = reading.batch.nextStep && statement(reading.batch.nextStep) ? reading.batch.nextStep : undefined
  if (open.length) c.pendingSteps = open.map((p) => `${clipText(p.text, 160)}${p.status === 'in_progress' ? ' (in progress)' : ''}`).slice(0, CAPS.pendingSteps)
  else if (intent) c.pendingSteps = [clipText(intent, 180)]
  else if (earlierPending?.length) c.pendingSteps = earlierPending.slice(0, CAPS.pendingSteps)
  else if (plan) c.pendingSteps = [] // the plan is done

  const planDone = plan?.filter((p) => p.status === 'completed').map((p) => clipText(p.text, 160)) ?? []
  if (planDone.length) c.completedSteps = pushLatest(c.completedSteps, planDone, CAPS.completedSteps)
  else {
    const steps = done.map((d) => doneStep(d.facts)).filter((s): s is string => s !== undefined)
    c.completedSteps = pushLatest(c.completedSteps, [...new Set(steps)], CAPS.completedSteps)
  }
}

/** A copy of the document's continuation fields. */
export function continuationOf(doc: SummaryDocument): Continuation {
  const c = doc.continuation
  return { currentTask: c.currentTask, completedSteps: [...c.completedSteps], pendingSteps: [...c.pendingSteps], keyDecisions: [...c.keyDecisions], relevantFiles: [...c.relevantFiles] }
}

/** Seed 003's context-injection block, ready to prepend to a prompt. */
export function renderContinuationPrompt(c: Continuation): string {
  // Lines with nothing to say are left out; the "Current task:" line always stays (readers,
  // and compactd itself when the block comes back as an earlier summary, find it by that line).
  const lines = ['[Previous Session Context]', `Current task: ${c.currentTask || 'none'}`]
  if (c.completedSteps.length) lines.push(`Completed: ${c.completedSteps.join(', ')}`)
  if (c.pendingSteps.length) lines.push(`Pending: ${c.pendingSteps.join(', ')}`)
  if (c.keyDecisions.length) lines.push(`Key decisions: ${c.keyDecisions.join('; ')}`)
  if (c.relevantFiles.length) lines.push(`Relevant files: ${c.relevantFiles.join(', ')}`)
  return lines.join('\n')
}
