/**
 * A summary written by hand (PUT /sessions/:id/summary) replaces the previous version,
 * but a hand-written document rarely restates the whole continuation block: an editor
 * adds a decision and leaves `## Continuation` as it was, shortened, or out. Since the
 * continuation is what an agent resumes from (GET /continuation, the next update), a
 * field the new text does not state by its label is carried over from the previous
 * version, written into the new text so every reader sees the same document, and
 * reported. To clear a field, state it: "Current task: none", "Pending: none".
 */
import { CONTINUATION_FIELDS, CONTINUATION_TITLE, headingBlock, readSummary, renderContinuationLines, type Continuation, type ContinuationField } from './document.ts'

export interface ManualSummary {
  /** The text to store: the one given, with the carried-over fields added to its continuation block. */
  content: string
  /** The continuation fields taken from the previous version, in the block's order. */
  carriedOver: ContinuationField[]
}

/** `content` as the next version after `previous` (the current version's text; undefined or empty when there is none). */
export function withCarriedOverContinuation(content: string, previous: string | undefined, now: string | number | Date): ManualSummary {
  if (!previous?.trim()) return { content, carriedOver: [] }
  const { stated } = readSummary(content, now)
  const before = readSummary(previous, now).doc.continuation
  const carried: Continuation = { currentTask: '', completedSteps: [], pendingSteps: [], keyDecisions: [], relevantFiles: [] }
  const carriedOver: ContinuationField[] = []
  for (const field of CONTINUATION_FIELDS) {
    if (stated.has(field) || before[field].length === 0) continue
    if (field === 'currentTask') carried.currentTask = before.currentTask
    else carried[field] = [...before[field]]
    carriedOver.push(field)
  }
  if (carriedOver.length === 0) return { content, carriedOver }
  return { content: addToContinuationBlock(content, renderContinuationLines(carried)), carriedOver }
}

/** `lines` at the end of the text's last continuation block, or in a new `## Continuation` section at its end. */
function addToContinuationBlock(content: string, lines: string[]): string {
  const rows = content.split('\n')
  let start = -1
  for (let i = 0; i < rows.length; i++) if (headingBlock(rows[i]!.replace(/\r$/, '')) === 'continuation') start = i
  if (start < 0) return `${content.replace(/\s*$/, '')}\n\n## ${CONTINUATION_TITLE}\n${lines.join('\n')}\n`
  let end = start + 1
  while (end < rows.length && headingBlock(rows[end]!.replace(/\r$/, '')) === undefined) end++
  // After the block's last non-blank line, so a following section keeps its blank line.
  let at = end
  while (at > start + 1 && !rows[at - 1]!.trim()) at--
  return [...rows.slice(0, at), ...lines, ...rows.slice(at)].join('\n')
}
