/**
 * Tables and lists of values the agent wrote: a ranking, a price table, a weighted score,
 * an old → new correction list. They are results in their most compact form, so they
 * survive whole (every row, cells clipped by the renderer), never as their first line.
 * A list counts when most of its items carry a value (a number, a price, a percentage,
 * an arrow), so a plan's steps ("1. Read the file") are not taken for one.
 *
 * Serves a research session (a ranking of tools, prices and versions found, what a
 * fact-check corrected) and any session where the agent tabulates what it measured.
 */

export interface ValueBlock {
  /** The heading or lead-in line just above, when there is one. */
  title?: string
  /** Rows of cells: a table's header first; a list's items as one cell each. */
  rows: string[][]
  table: boolean
  position: number
  /** Share of cells holding a number. */
  numeric: number
}

const TABLE_LINE = /^\s*\|.*\|\s*$/
const SEPARATOR = /^\s*\|?[\s:|-]+\|?\s*$/
const LIST_ITEM = /^\s*(?:[-*+•]|\d{1,2}[.)])\s+(\S.*)$/
/**
 * An item that carries a value: an arrow (old → new), a price, a quantity with its unit, a
 * percentage, a version, or a short `label: … 12` pair. A bare index in a traced step
 * ("found at index 0") is not one.
 */
const VALUE_RE = /→|->|=>|[$€£¥]\s?\d|\d(?:[\d,.]*\d)?\s?(?:%|ms\b|s\b|sec|seconds?|minutes?|hours?|days?|kb\b|mb\b|gb\b|tb\b|k\b|m\b|x\b|×|points?\b|pts\b|stars?\b|tokens?\b|usd\b|eur\b|rps\b|qps\b|req|files?\b|tests?\b|lines?\b|개|건|원|円|명)|\bv?\d+\.\d+(?:\.\d+)?\b|^[^:`]{1,40}:\s*[^`]{0,80}\d/i
/** A lead-in that thinks aloud ("Let me trace…", "I think we need…"): the list under it is a trace, not a result. */
const MUSING_LEAD_RE = /\b(?:let me|let's|i think|i guess|wait|actually|maybe|perhaps|hmm|i wonder|what if|one idea|trace)\b/i
/** Longest list item read as a value (a paragraph under a bullet is prose). */
const LIST_ITEM_MAX = 220

/** A cell without markdown emphasis and with whitespace collapsed. */
export function cleanCell(cell: string): string {
  return cell
    .replace(/\*\*|__/g, '')
    .replace(/\s+/g, ' ')
    .trim()
}

function titleAbove(lines: readonly string[], start: number): string | undefined {
  for (let k = start - 1; k >= Math.max(0, start - 3); k--) {
    const l = lines[k]!.trim()
    if (!l) continue
    if (/^#{1,6}\s/.test(l) || /:\s*$/.test(l) || /^\*\*[^*]+\*\*:?$/.test(l)) return cleanCell(l.replace(/^#+\s*/, '').replace(/:\s*$/, ''))
    return undefined
  }
  return undefined
}

/** The nearest non-empty line above a block, whatever it is. */
function leadIn(lines: readonly string[], start: number): string | undefined {
  for (let k = start - 1; k >= Math.max(0, start - 3); k--) if (lines[k]!.trim()) return lines[k]!.trim()
  return undefined
}

const numericShare = (rows: readonly string[][]) => {
  const cells = rows.flat()
  return cells.length ? cells.filter((c) => /\d/.test(c)).length / cells.length : 0
}

/** Tables (a header and at least two rows) and value lists (at least two items, most with a value) of one message. */
export function valueBlocksOf(text: string, position: number): ValueBlock[] {
  const lines = text.replace(/```[\s\S]*?```/g, '').split('\n')
  const out: ValueBlock[] = []
  for (let k = 0; k < lines.length; ) {
    if (TABLE_LINE.test(lines[k]!)) {
      const start = k
      const rows: string[][] = []
      while (k < lines.length && TABLE_LINE.test(lines[k]!)) {
        const l = lines[k]!
        if (!SEPARATOR.test(l)) rows.push(l.trim().replace(/^\||\|$/g, '').split(/(?<!\\)\|/).map(cleanCell))
        k++
      }
      if (rows.length >= 3) out.push({ ...(titleAbove(lines, start) ? { title: titleAbove(lines, start)! } : {}), rows, table: true, position, numeric: numericShare(rows.slice(1)) })
      continue
    }
    const item = LIST_ITEM.exec(lines[k]!)
    if (item) {
      const start = k
      const items: string[] = []
      while (k < lines.length) {
        const m = LIST_ITEM.exec(lines[k]!)
        if (!m) break
        items.push(cleanCell(m[1]!))
        k++
      }
      const valued = items.filter((i) => VALUE_RE.test(i) && i.length <= LIST_ITEM_MAX && (i.match(/`/g) ?? []).length <= 4)
      const lead = leadIn(lines, start)
      if (items.length >= 2 && valued.length >= Math.ceil(items.length * 0.6) && !(lead && MUSING_LEAD_RE.test(lead))) {
        const title = titleAbove(lines, start)
        out.push({ ...(title ? { title } : {}), rows: items.map((i) => [i]), table: false, position, numeric: numericShare(items.map((i) => [i])) })
      }
      continue
    }
    k++
  }
  return out
}

/** What identifies a block across versions: a table's header, else its title, else its first item. */
export function blockKey(b: ValueBlock): string {
  const key = b.table ? b.rows[0]!.join('|') : (b.title ?? b.rows[0]![0]!)
  return key.toLowerCase().replace(/[^\p{L}\p{N}|]+/gu, ' ').trim()
}
