/**
 * The deliverable's item in the handover (facts/deliverable.ts says which reply it is):
 * the request it answers, then the answer whole or in its structured form, within a share
 * of the summary's budget. The share is what keeps it from crowding out the failures and
 * files that rank just below it.
 */
import { deliverableOf, fitDeliverable, fitLines } from '../../facts/deliverable.ts'
import type { HandoverFacts } from '../../facts/handover.ts'
import { IMPORTANCE } from '../../facts/importance.ts'
import { clip } from '../../facts/text.ts'

/** Share of the summary's budget the answer to the latest request may take; an older answer gets half. */
export const DELIVERABLE_SHARE = 0.5


export function deliverableItem(facts: HandoverFacts, originalTask: string, budget: number, count: (s: string) => number): { text: string; priority: number } | undefined {
  const d = deliverableOf(facts.reports ?? [], originalTask)
  if (!d) return earlierAnswer(facts, budget, count)
  // Questions about the answer keep it current; a later request for other work makes it history.
  const current = !(facts.requests?.requests ?? []).some((r) => r.position > d.position && r.kind === 'work')
  const share = current ? DELIVERABLE_SHARE : DELIVERABLE_SHARE / 2
  const request = `Asked: "${clip(d.request ?? originalTask, 160)}"${current ? '' : ' (other work was asked for later)'}`
  // Quoted ("> "): the answer's own headings must not read as the summary's sections, here or
  // when a later round folds this summary in (facts/earlier-summary.ts).
  const quote = (s: string) => s.split('\n').map((l) => (l ? `> ${l}` : '>')).join('\n')
  const room = Math.floor(budget * share) - count(request) - 4
  if (room < 40) return undefined
  const body = fitDeliverable(d.text, room, (s) => count(quote(s)))
  return { text: `${request}\n${quote(body)}`, priority: current ? IMPORTANCE.deliverable : IMPORTANCE.decision }
}

/**
 * An answer an earlier compactd round kept (its deliverable section, quoted already), kept
 * again when this range holds no newer one: within a quarter of the budget, ranked with the
 * earlier summary's other state.
 */
function earlierAnswer(facts: HandoverFacts, budget: number, count: (s: string) => number): { text: string; priority: number } | undefined {
  const answer = facts.earlier.map((e) => e.sections.answer).findLast((a) => a !== undefined)
  const room = Math.floor((budget * DELIVERABLE_SHARE) / 2) - 8
  if (!answer || room < 40) return undefined
  const body = answer.replace(/\n\(kept from the earlier summary\)$/, '')
  return { text: `${fitLines(body, room, count)}\n(kept from the earlier summary)`, priority: IMPORTANCE.earlierState }
}
