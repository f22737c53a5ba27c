/**
 * The archive's text helpers, pure (no DOM, so they run in node: test/ui/archive-text.test.ts):
 * where a text names an archived message (`[ref 7hq2k9xa]`, as placeholders, action-log
 * lines and summaries print it), and which parts of a search snippet the searched words are.
 */

/** A reference as compactd prints it: 8 characters of Crockford's base32 (no i, l, o, u). */
export const REF_MARK = /\[ref ([0-9a-hjkmnp-tv-z]{8})\]/g

export interface RefPart {
  text: string
  /** Set when this part is a `[ref …]` mark: the reference it names. */
  ref?: string
}

/** `text` cut at each `[ref …]` mark; the parts joined give `text` back. */
export function splitRefs(text: string): RefPart[] {
  const out: RefPart[] = []
  let last = 0
  for (const m of text.matchAll(REF_MARK)) {
    if (m.index! > last) out.push({ text: text.slice(last, m.index) })
    out.push({ text: m[0], ref: m[1]! })
    last = m.index! + m[0].length
  }
  if (last < text.length || out.length === 0) out.push({ text: text.slice(last) })
  return out
}

export interface MarkPart {
  text: string
  mark: boolean
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * `text` cut where one of `words` occurs (case-insensitive, longest word first), those
 * parts marked: a snippet with the searched words to highlight. The parts joined give
 * `text` back; no markup is made, the caller renders the parts as text.
 */
export function highlightParts(text: string, words: readonly string[]): MarkPart[] {
  const wanted = [...new Set(words.map((w) => w.trim().toLowerCase()).filter((w) => w.length >= 2))].sort((a, b) => b.length - a.length)
  if (wanted.length === 0 || !text) return [{ text, mark: false }]
  const re = new RegExp(wanted.map(escapeRe).join('|'), 'giu')
  const out: MarkPart[] = []
  let last = 0
  for (const m of text.matchAll(re)) {
    if (m[0].length === 0) continue
    if (m.index! > last) out.push({ text: text.slice(last, m.index), mark: false })
    out.push({ text: m[0], mark: true })
    last = m.index! + m[0].length
  }
  if (last < text.length || out.length === 0) out.push({ text: text.slice(last), mark: false })
  return out
}

/** The words of a query as typed, for highlighting when the server names no terms. */
export function queryWords(q: string): string[] {
  return q.split(/[^\p{L}\p{N}]+/u).filter((w) => w.length >= 2)
}
