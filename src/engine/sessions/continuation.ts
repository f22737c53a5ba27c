/**
 * The continuation block (seed 003's fields: current task, completed and pending steps,
 * key decisions, relevant files), folded forward exchange by exchange, and its
 * context-injection prompt text.
 */
import type { FileFact } from '../compaction/extract/facts.ts'
import { clip } from '../compaction/extract/tools.ts'
import type { Continuation, SummaryDocument } from './document.ts'
import { condense } from './fit.ts'
import { ARCH_RE, CHOICE_RE, cleanPath, contentless, isScratch, requestsOf, type Summarized } from './items.ts'

/** Most entries kept per list: the most recent ones. */
const CAPS = { completedSteps: 6, pendingSteps: 4, keyDecisions: 8, relevantFiles: 15 }

/**
 * Folds the new exchanges into the continuation block, exchange by exchange in order
 * (message indices are not comparable across batches): the latest meaningful request
 * is the current task, the latest stated next steps replace older ones, decisions and
 * files accumulate (files most recent first, changed before merely read).
 */
export function updateContinuation(c: Continuation, done: Summarized[]): void {
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

/** A copy of the document's continuation fields. */
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
