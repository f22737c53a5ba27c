/**
 * An `llm` summary may not lose the artifact trail. The model gets the extracted facts
 * in its prompt (`factsForPrompt`); after it answers, `completeFromFacts` checks its text
 * against them — the user's instructions, every changed file, every failure, the plan's
 * open items — and appends whatever it dropped, in the rules summary's section layout.
 * The budget still holds: when the model's text plus the missing facts are over it, the
 * model's own prose gives way (from its end), never the facts.
 */
import type { HandoverFacts } from '../../facts/handover.ts'
import { handoverItems, renderItems, SECTION_HEADINGS, SECTION_ORDER, type Item, type Section } from './rules-render.ts'
import { summaryHeader } from '../summary-format.ts'

const REQUIRED: ReadonlySet<Section> = new Set(['instructions', 'files', 'errors', 'pending'])

const norm = (s: string) => s.toLowerCase().replace(/[`*_"'“”]/g, '').replace(/\s+/g, ' ').trim()

/** The strings whose presence shows the model kept an item. */
function needles(item: Item): string[] {
  const t = item.text
  if (item.section === 'files') {
    const cells = t.split(/(?<!\\)\|/).map((c) => c.trim())
    const first = cells[1] ?? ''
    const grouped = /^(.*?) \(\d+ files\)$/.exec(first)
    if (grouped) return (cells[3] ?? '').split(', ').map((n) => n.trim()).filter(Boolean)
    return [first.replace(/\\\|/g, '|')]
  }
  const body = t.replace(/^\s*- (\[ \] )?/, '').replace(/^"|"$/g, '')
  if (item.section === 'errors') {
    const error = /: (.+?)( — resolved.*)?$/.exec(body)?.[1] ?? body
    return [error.slice(0, 50)]
  }
  return [body.replace(/ \(in progress\)$/, '').slice(0, 50)]
}

/** Items the model must keep, and those of them its text does not show. */
export function missingFacts(text: string, facts: HandoverFacts, originalTask: string, budget: number): Item[] {
  const have = norm(text)
  return handoverItems(facts, originalTask, budget, false).filter((item) => {
    if (!REQUIRED.has(item.section) || item.text.includes('(earlier)')) return false
    if (item.section === 'files' && / \| read \| /.test(item.text)) return false
    if (/^- Done in the plan:/.test(item.text)) return false
    return needles(item).some((n) => n.length >= 3 && !have.includes(norm(n)))
  })
}

export interface Completion {
  text: string
  /** Facts appended because the model dropped them. */
  added: number
  /** Whether the model's own text had to be shortened to make room. */
  shortened: boolean
}

export function completeFromFacts(text: string, facts: HandoverFacts, originalTask: string, budget: number, count: (s: string) => number): Completion {
  const missing = missingFacts(text, facts, originalTask, budget)
  if (missing.length === 0) return { text, added: 0, shortened: false }
  const appendix = (items: readonly Item[]) => {
    const out: string[] = []
    for (const section of SECTION_ORDER) {
      const lines = items.filter((i) => i.section === section)
      if (lines.length) out.push(`${SECTION_HEADINGS[section].replace(/^(### .+?)(\n|$)/, '$1 (completed from the extracted facts)$2')}`, ...lines.map((i) => i.text), '')
    }
    return out.join('\n').trim()
  }
  let extra = appendix(missing)
  let kept = missing
  // Facts alone over the budget: keep the most important ones (the usual priority fill).
  const header = summaryHeader(1)
  if (count(`${header}\n\n${extra}`) > budget) {
    const filled = renderItems(missing, { round: 1, budget, count })
    kept = missing.filter((i) => filled.includes(i.text))
    extra = appendix(kept)
  }
  let base = text.trimEnd()
  let shortened = false
  while (count(`${base}\n\n${extra}`) > budget) {
    const lines = base.split('\n')
    if (lines.length <= 2) break
    lines.splice(-Math.max(1, Math.ceil(lines.length / 20)))
    base = lines.join('\n').trimEnd()
    shortened = true
  }
  return { text: `${base}\n\n${extra}`, added: kept.length, shortened }
}

/** The facts block of the summarizer prompt: what the summary must carry, pre-extracted. */
export function factsForPrompt(facts: HandoverFacts, originalTask: string, budget: number, count: (s: string) => number): string {
  const items = handoverItems(facts, originalTask, budget * 2, true).filter((i) => i.section !== 'task')
  const text = renderItems(items, { round: 1, budget: budget * 2, count })
  return text.replace(/^## Session Summary \(Compaction Round 1\)\s*/, '').trim()
}
