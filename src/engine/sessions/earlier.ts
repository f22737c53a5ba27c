/**
 * An earlier compaction summary found in an exchange (Claude Code's "This session is
 * being continued…", Codex, Gemini CLI, pi, compactd; read by facts/earlier-summary.ts)
 * is folded into the document section by section — its task, requests, files, errors,
 * decisions, state and pending work each become items — rather than cut to one line as
 * if it were a request. Ranked on the shared scale: its task as a task, the rest as
 * earlier context.
 */
import { isUrl } from '../facts/artifacts.ts'
import { openStepText, planStep, type EarlierSummary } from '../facts/earlier-summary.ts'
import { isStandingConstraint } from '../facts/handover.ts'
import { IMPORTANCE } from '../facts/importance.ts'
import { isMusing } from '../facts/reasoning.ts'
import { clipText } from './clip.ts'
import { oneLine, type ItemKind, type SummaryItem } from './document.ts'
import { ITEM_MAX_CHARS, levelOf } from './rank.ts'

/** One entry of a section as one line: code blocks, list markers and emphasis removed. */
export function plainEntry(s: string, max = 240): string {
  const text = s
    .replace(/```[\s\S]*?(?:```|$)/g, ' ')
    .replace(/^\s*(?:[-*+•]|\d+[.)])\s+/gm, '')
    .replace(/\*\*|__/g, '')
  return clipText(oneLine(text).replace(/;\s+/g, ', '), max)
}

/** Entries → items of at most ITEM_MAX_CHARS, each starting with `label`. */
function chunk(label: string, entries: readonly string[]): string[] {
  const out: string[] = []
  let cur = ''
  for (const e of entries) {
    if (!e) continue
    const cand = cur ? `${cur}; ${e}` : `${label}: ${e}`
    if (cand.length > ITEM_MAX_CHARS && cur) {
      out.push(cur)
      cur = `${label}: ${e}`
    } else cur = cand
  }
  if (cur) out.push(clipText(cur, ITEM_MAX_CHARS))
  return out
}

/**
 * Items of an earlier summary, all at `at` (the exchange's time), task first (`task`:
 * its item). A chunk of requests that holds a standing constraint of the user's
 * (facts/handover.ts) is pinned as one: it is never aged out.
 */
export function earlierItems(e: EarlierSummary, at: string): { items: SummaryItem[]; task?: SummaryItem } {
  const s = e.sections
  const items: SummaryItem[] = []
  const add = (label: string, entries: readonly string[], kind: ItemKind, score: number, files?: string[]) => {
    const added: SummaryItem[] = []
    for (const text of chunk(label, entries)) {
      const item: SummaryItem = { text, at, tokens: 0, importance: levelOf(score), kind }
      const inItem = files?.filter((f) => text.includes(f))
      if (inItem?.length) item.files = inItem.slice(0, 8)
      added.push(item)
    }
    items.push(...added)
    return added
  }
  const task = s.task ? add('Earlier task', [plainEntry(s.task, ITEM_MAX_CHARS - 20)], 'request', IMPORTANCE.task)[0] : undefined
  const requests = s.requests.map((r) => plainEntry(r))
  for (const item of add('Earlier requests', requests, 'request', IMPORTANCE.earlierRequest)) {
    if (requests.some((r) => r && isStandingConstraint(r) && item.text.includes(r))) item.pin = 'constraint'
  }
  const files = s.files.filter((f) => !isUrl(f.path))
  add(
    'Earlier files',
    files.map((f) => {
      const note = plainEntry(f.note, 100)
      return note ? `${f.path} (${note})` : f.path
    }),
    'feature',
    IMPORTANCE.earlierState,
    files.map((f) => f.path),
  )
  add('Earlier errors', s.errors.map((x) => plainEntry(x)), 'fix', IMPORTANCE.earlierState)
  add('Earlier decisions', s.decisions.map((x) => plainEntry(x)), 'decision', IMPORTANCE.earlierState)
  add('Earlier state', s.state.map((x) => plainEntry(x)), 'request', IMPORTANCE.earlierState)
  const steps = s.pending.map(planStep)
  add('Earlier pending', steps.filter((p) => !p.done).map((p) => plainEntry(openStepText(p))), 'request', IMPORTANCE.earlierState)
  add('Earlier done', steps.filter((p) => p.done).map((p) => plainEntry(p.text)), 'feature', IMPORTANCE.earlierBackground)
  add('Earlier context', s.knowledge.map((x) => plainEntry(x)), 'request', IMPORTANCE.earlierBackground)
  add('Earlier actions', s.actions.map((x) => plainEntry(x)), 'feature', IMPORTANCE.earlierBackground)
  for (const o of s.other) {
    // The model's own analysis is thinking aloud, not a fact to hand over.
    if (/^analysis$/i.test(o.title.trim())) continue
    const body = plainEntry(o.body, ITEM_MAX_CHARS)
    if (body && !isMusing(body)) add(`Earlier ${o.title.trim().toLowerCase()}`, [body], 'trivial', IMPORTANCE.earlierOther)
  }
  return task ? { items, task } : { items }
}
