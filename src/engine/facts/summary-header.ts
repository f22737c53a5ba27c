/**
 * compactd's own summary header, `## Session Summary (Compaction Round N)`: compaction
 * writes it and reads the round back; facts recognises it as an earlier summary in a
 * conversation. It sits in facts, below compaction, so both read one definition.
 */

/**
 * The summary header at the very start of a text (leading whitespace allowed, any
 * heading level, "Round N" with or without "Compaction"). Group 1 is the round.
 */
export const SUMMARY_HEADER_RE = /^\s*#{1,6}[ \t]*\**Session Summary[ \t]*\((?:Compaction[ \t]+)?Round[ \t]+(\d+)\)\**[ \t]*(?:\r?\n|$)/i

/** The same header anywhere in a text, on its own line (to drop a model's preamble). */
export const HEADER_ANYWHERE_RE = /^[ \t]*#{1,6}[ \t]*\**Session Summary[ \t]*\((?:Compaction[ \t]+)?Round[ \t]+(\d+)\)\**[ \t]*$/im

export function summaryHeader(round: number): string {
  return `## Session Summary (Compaction Round ${round})`
}

export function detectSummaryRound(text: string): number | undefined {
  const m = SUMMARY_HEADER_RE.exec(text)
  return m ? Number(m[1]) : undefined
}
