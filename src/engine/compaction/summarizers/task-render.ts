/**
 * The task section when the first user message did not set the work (facts/requests.ts):
 * a question or a preamble opened the session and a later message asked for the work. The
 * request in progress leads; the first message and the requests before the one in
 * progress follow, each with its outcome (the agent's answer, or what its turn changed).
 * When the first message is itself the work, the section is its gist, as before.
 */
import type { HandoverFacts } from '../../facts/handover.ts'
import { IMPORTANCE } from '../../facts/importance.ts'
import { requestKind, type RequestOutcome } from '../../facts/requests.ts'
import { clip, clipKeepingPaths } from '../../facts/text.ts'

/** Earlier requests listed with their outcome, the latest ones (the first message is always listed). */
const MAX_EARLIER_REQUESTS = 6

const outcomeText = (r: { outcome?: string; filesChanged: number }) =>
  [r.outcome ? `agent: ${r.outcome}` : undefined, r.filesChanged ? `${r.filesChanged} file change${r.filesChanged === 1 ? '' : 's'}` : undefined].filter(Boolean).join('; ') || 'no reply in this part'

/**
 * The task section's lines, or undefined when the first message is the work (the caller
 * writes its gist). `quotedWhole` is the position of the request in progress when its line
 * quotes it whole (the instructions need not quote it again); `outcomes` what came of each
 * earlier request, by position, for the instructions that quote them. `isConstraint` is
 * handover.ts's standing-constraint test.
 */
export function laterTaskLines(
  facts: HandoverFacts,
  originalTask: string,
  isConstraint: (s: string) => boolean,
  max: { task: number; outcome: number },
): { lines: { text: string; priority: number }[]; quotedWhole?: number; outcomes: Map<number, string> } | undefined {
  const trail = facts.requests
  const work = trail?.inProgress
  // The first message is the brief, never a standing rule of its own: "Keep the dashboard working." is the work.
  if (!trail || !work || !originalTask.trim() || requestKind(originalTask, (s) => s !== originalTask.trim() && isConstraint(s), trail.head.acted) === 'work') return undefined
  const lines: { text: string; priority: number }[] = []
  const proposal = trail.approvedProposal ? `; the user then approved the agent's proposal: "${clip(trail.approvedProposal, max.outcome)}"` : ''
  const quoted = clipKeepingPaths(work.text, max.task)
  lines.push({ text: `In progress (asked later in the session): "${quoted}"${proposal}`, priority: IMPORTANCE.task })
  // The answers to the questions before it are facts the next agent would otherwise ask again.
  const outcome = Math.min(max.outcome, 160)
  lines.push({ text: `- first message: "${clip(originalTask, 100)}" → ${clip(outcomeText(trail.head), outcome)}`, priority: IMPORTANCE.requestOutcome })
  const outcomes = new Map<number, string>()
  const earlier = trail.requests.filter((r: RequestOutcome) => r.position < work.position && r.kind !== 'constraint' && r.kind !== 'approval')
  for (const r of earlier.slice(-MAX_EARLIER_REQUESTS)) outcomes.set(r.position, clip(outcomeText(r), outcome))
  return { lines, outcomes, ...(quoted === work.text.replace(/\s+/g, ' ').trim() ? { quotedWhole: work.position } : {}) }
}
