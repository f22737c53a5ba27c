/**
 * Folding (pure). At most `maxCheckpoints` rows are kept per session; when an insert
 * makes it more, the repository (repository.ts) folds the oldest rows into ONE "summary
 * of summaries" in the same transaction: the fold keeps the number (and id) of the newest
 * row it replaces, so numbering stays monotonic and the newest checkpoint always keeps
 * its number. Its summary is deterministic (no LLM): the newest folded summary's
 * sections, with the older ones' Completed Work rows, Key Technical Decisions and Errors
 * bullets appended (deduped, capped); key facts are merged (union of arrays); token
 * totals and costs are summed, so session statistics do not change when rows are folded.
 * `folded_from` lists every original checkpoint number the row stands for, its own
 * included (e.g. [1, 2, 3] on checkpoint 3).
 */
import { normaliseTitle, SUMMARY_HEADER_RE } from '../engine/compaction/summary-format.ts'
import type { Checkpoint, CheckpointData } from './rows.ts'

/** Caps of the folded summary's merged lists. */
const FOLD_MAX_TABLE_ROWS = 40
const FOLD_MAX_BULLETS = 20
const FOLD_MAX_FACTS = 50

/** Merges checkpoints, oldest first, into one: see the module comment. */
export function foldCheckpoints(rows: readonly Checkpoint[]): { data: CheckpointData; foldedFrom: number[] } {
  if (rows.length === 0) throw new Error('foldCheckpoints: nothing to fold')
  const sorted = [...rows].sort((a, b) => a.checkpointNum - b.checkpointNum)
  const newest = sorted.at(-1)!
  const sum = (pick: (c: Checkpoint) => number | null) => (sorted.some((c) => pick(c) !== null) ? sorted.reduce((a, c) => a + (pick(c) ?? 0), 0) : null)
  const originalTokens = sum((c) => c.originalTokens)
  const compressedTokens = sum((c) => c.compressedTokens)
  const cost = sum((c) => c.summaryCostUsd)
  const froms = sorted.map((c) => c.fromMessageIndex).filter((v): v is number => v !== null)
  const rounds = sorted.map((c) => c.round).filter((v): v is number => v !== null)
  const foldedFrom = [...new Set(sorted.flatMap((c) => c.foldedFrom ?? [c.checkpointNum]))].sort((a, b) => a - b)
  return {
    foldedFrom,
    data: {
      fromMessageIndex: froms.length ? Math.min(...froms) : null,
      toMessageIndex: newest.toMessageIndex,
      messagesCompressed: sum((c) => c.messagesCompressed),
      summaryContent: foldSummaries(
        sorted.map((c) => c.summaryContent),
        foldedFrom,
      ),
      keyFacts: mergeKeyFacts(sorted.map((c) => c.keyFacts)),
      originalTokens,
      compressedTokens,
      compressionRatio: originalTokens !== null && compressedTokens ? Math.round((originalTokens / compressedTokens) * 100) / 100 : newest.compressionRatio,
      summaryCostUsd: cost === null ? null : Math.round(cost * 1e9) / 1e9,
      strategy: newest.strategy,
      round: rounds.length ? Math.max(...rounds) : null,
      targetTokens: newest.targetTokens ?? null,
      model: newest.model ?? null,
      durationMs: sum((c) => c.durationMs ?? null),
      summaryTokens: null, // the folded summary is a new text, not counted here
    },
  }
}

interface SummaryParts {
  header: string | undefined
  /** Text between the header and the first section. */
  preamble: string[]
  sections: { heading: string; title: string; lines: string[] }[]
}

const SECTION_HEADING_RE = /^\s*#{2,6}\s+(.+?)\s*#*\s*$/

function splitSummary(text: string): SummaryParts {
  const lines = text.split(/\r?\n/)
  const out: SummaryParts = { header: undefined, preamble: [], sections: [] }
  let k = 0
  if (lines.length && SUMMARY_HEADER_RE.test(`${lines[0]}\n`)) out.header = lines[k++]
  for (; k < lines.length; k++) {
    const line = lines[k]!
    const m = SECTION_HEADING_RE.exec(line)
    if (m) out.sections.push({ heading: line, title: normaliseTitle(m[1]!), lines: [] })
    else if (out.sections.length) out.sections.at(-1)!.lines.push(line)
    else out.preamble.push(line)
  }
  return out
}

const isTableRow = (l: string) => /^\s*\|/.test(l) && !/^\s*\|\s*(file\s*\||:?-{2,})/i.test(l)
const isBullet = (l: string) => /^\s*([-*+]|\d+[.)])\s+\S/.test(l)
const itemKey = (l: string) =>
  l
    .replace(/^\s*([-*+]|\d+[.)])\s+/, '')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase()

/** The sections whose items of older summaries are carried into the fold, and how to find them. */
const CARRIED: { title: string; heading: string; isItem: (l: string) => boolean; cap: number }[] = [
  { title: 'completed work', heading: '### Completed Work\n| File | Action | Description |\n|---|---|---|', isItem: isTableRow, cap: FOLD_MAX_TABLE_ROWS },
  { title: 'key technical decisions', heading: '### Key Technical Decisions', isItem: isBullet, cap: FOLD_MAX_BULLETS },
  { title: 'errors & resolutions', heading: '### Errors & Resolutions', isItem: isBullet, cap: FOLD_MAX_BULLETS },
]

/**
 * Summary of summaries, deterministic: the newest non-empty summary as the base, plus
 * the older summaries' Completed Work rows and Decisions / Errors bullets it lacks,
 * newest first, capped per section.
 */
export function foldSummaries(summaries: readonly string[], foldedFrom: readonly number[]): string {
  const texts = summaries.filter((s) => s.trim() !== '')
  if (texts.length === 0) return ''
  const base = splitSummary(texts.at(-1)!)
  const older = texts.slice(0, -1).reverse().map(splitSummary)
  for (const carried of CARRIED) {
    let section = base.sections.find((s) => s.title === carried.title)
    const present = new Set((section?.lines ?? []).filter(carried.isItem).map(itemKey))
    let room = carried.cap - present.size
    const additions: string[] = []
    for (const o of older) {
      const src = o.sections.find((s) => s.title === carried.title)
      for (const line of src?.lines ?? []) {
        if (room <= 0) break
        if (!carried.isItem(line) || present.has(itemKey(line))) continue
        present.add(itemKey(line))
        additions.push(line.trimEnd())
        room--
      }
    }
    if (additions.length === 0) continue
    if (!section) {
      const [heading, ...rest] = carried.heading.split('\n')
      section = { heading: heading!, title: carried.title, lines: rest }
      base.sections.push(section)
    }
    const isTable = carried.title === 'completed work'
    const tableLine = (l: string) => /^\s*\|/.test(l)
    if (isTable && !section.lines.some(tableLine)) {
      // The base wrote this section without a table (e.g. a model's bullets): add one after it.
      const [, ...header] = carried.heading.split('\n')
      section.lines.splice(lastNonBlank(section.lines) + 1, 0, ...(lastNonBlank(section.lines) >= 0 ? [''] : []), ...header, ...additions)
      continue
    }
    // After the section's last item (table rows: after the table); a lone "None." goes.
    let at = findLastIndex(section.lines, (l) => carried.isItem(l) || (isTable && tableLine(l))) + 1
    if (at === 0) {
      section.lines = section.lines.filter((l) => !/^\s*(none\.?|n\/a|-)\s*$/i.test(l))
      at = lastNonBlank(section.lines) + 1
    }
    section.lines.splice(at, 0, ...additions)
  }
  const preamble = base.preamble.filter((l) => !/^_Folded from checkpoints /.test(l)).join('\n').trim()
  const out = [...(base.header !== undefined ? [base.header] : []), `_Folded from checkpoints ${foldedFrom.join(', ')}._`, ...(preamble ? [preamble] : []), '']
  for (const s of base.sections) out.push(s.heading, ...s.lines, '')
  return out.join('\n').replace(/\n{3,}/g, '\n\n').trim()
}

function lastNonBlank(lines: readonly string[]): number {
  return findLastIndex(lines, (l) => l.trim() !== '')
}

function findLastIndex<T>(items: readonly T[], pred: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (pred(items[i]!)) return i
  return -1
}

/** Union of array fields (oldest first, deduped, newest kept under the cap); other fields from the newest. */
export function mergeKeyFacts(all: readonly (Record<string, unknown> | null)[]): Record<string, unknown> | null {
  const present = all.filter((f): f is Record<string, unknown> => f !== null && typeof f === 'object')
  if (present.length === 0) return null
  const out: Record<string, unknown> = {}
  const keys = [...new Set(present.flatMap((f) => Object.keys(f)))]
  for (const key of keys) {
    const values = present.map((f) => f[key]).filter((v) => v !== undefined)
    if (values.every(Array.isArray)) {
      const seen = new Map<string, unknown>()
      for (const arr of values as unknown[][]) for (const item of arr) seen.set(JSON.stringify(item), item)
      out[key] = [...seen.values()].slice(-FOLD_MAX_FACTS)
    } else {
      const nonEmpty = values.filter((v) => v !== null && v !== '')
      out[key] = nonEmpty.at(-1) ?? values.at(-1) ?? null
    }
  }
  return out
}
