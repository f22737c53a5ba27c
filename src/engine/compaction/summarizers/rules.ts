/**
 * `rules`: the offline summarizer (seed 002), compactd's default. It renders the
 * handover document from the facts the orchestrator extracted once (facts/handover.ts),
 * folding earlier compaction summaries in section by section, within its budget.
 */
import { isNetChange } from '../../facts/artifacts.ts'
import type { HandoverFacts } from '../../facts/handover.ts'
import type { KeyFacts, Summarizer, SummaryRequest, SummaryResult } from '../types.ts'
import { asLogLine, earlierFooter, fateCell, handoverItems, renderItems, type Item } from './rules-render.ts'
import { clip } from '../../facts/text.ts'
import { IMPORTANCE } from '../../facts/importance.ts'
import { findingLogLine } from './findings-render.ts'

/** Seed 003's continuation fields, from the same facts. */
export function keyFactsOf(facts: HandoverFacts, originalTask: string): KeyFacts {
  const changed = facts.files.filter(isNetChange)
  return {
    currentTask: clip(facts.currentWork ?? facts.instructions.at(-1)?.text ?? originalTask, 600),
    completedSteps: [
      ...changed.map((f) => `${fateCell(f)} ${f.path}${f.notes.length ? `: ${clip(f.notes.join('; '), 160)}` : ''}`),
      ...(facts.plan ?? []).filter((p) => p.status === 'completed').map((p) => p.text),
      ...facts.commands.filter((c) => c.test && !c.lastFailed).map((c) => `ran ${clip(c.command, 120)} (ok)`),
    ].slice(0, 60),
    pendingSteps: [...(facts.plan ?? []).filter((p) => p.status !== 'completed').map((p) => p.text), ...(facts.nextStep ? [facts.nextStep] : [])].slice(-10),
    // Findings first: the list keeps its last 30, so they give way before the root causes and decisions.
    keyDecisions: [...keyFindings(facts), ...facts.rootCauses.map((s) => `Root cause: ${s}`), ...facts.decisions, ...facts.abandoned.map((s) => `Abandoned: ${s}`)].slice(-30),
    relevantFiles: [...changed, ...facts.files.filter((f) => f.fate === 'read')].map((f) => f.path).concat(facts.unusedReads ?? []).slice(0, 100),
    errors: facts.failures.map((e) => `${clip(e.source, 120)}: ${e.errorLine}${e.resolvedAt !== undefined ? ' (resolved)' : ''}`).slice(-30),
    userRequests: facts.instructions.map((r) => r.text),
  }
}

/** Findings carried in keyDecisions (the API has no field of their own): the best few, one line each. */
const KEY_FINDINGS = 6

function keyFindings(facts: HandoverFacts): string[] {
  return facts.findings.slice(0, KEY_FINDINGS).map((f) => `Found: ${findingLogLine(f).replace(/^- (?:found: )?/, '')}`)
}

export function rulesSummarize(req: SummaryRequest): SummaryResult {
  const count = (s: string) => Math.ceil(req.counter.text(s) * req.counter.margin)
  const items = handoverItems(req.facts, req.originalTask, req.budgetTokens, req.preserveErrorDetails, count)
  const left: Item[] = []
  const text = renderItems(items, { round: req.round, budget: req.budgetTokens, footer: earlierFooter(req.facts.earlier, req.round), count, left })
  // What did not fit competes for the action log's room, by the same importance.
  // Reads and commands are in the log already, one line per call: only what the log does not
  // otherwise say overflows into it.
  const overflow = left.flatMap((item) => {
    if (item.log) return [{ ...item.log, unlogged: true }]
    if (item.priority < IMPORTANCE.test) return []
    const line = asLogLine(item)
    return line ? [{ text: line, priority: item.priority }] : []
  })
  return { text, keyFacts: keyFactsOf(req.facts, req.originalTask), usage: { inputTokens: 0, outputTokens: 0, calls: 0 }, overflow }
}

export const rulesSummarizer: Summarizer = {
  name: 'rules',
  summarize: async (req) => rulesSummarize(req),
}
