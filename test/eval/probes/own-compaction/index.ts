/**
 * Probes against the agent's OWN compaction (issue 22): sessions in ../shared/fixtures
 * whose raw transcript holds a compaction the agent made itself (its LLM summary) together
 * with the messages that summary replaced. For each, the probes ask about the covered range
 * only and were written blind to the agent's summary and to compactd's output for it
 * (test/eval/own-compaction.ts scores both).
 *
 * Which transcripts hold one (checked over transcripts/ in ../shared/fixtures):
 * - pi-agent/pinion05__agent-complex-task__03-raddit-dashboard-pr.jsonl: one
 *   `{"type":"compaction"}` entry (line 574, tokensBefore 372054, firstKeptEntryId
 *   8ff94a6e) with every entry it covered: scored here.
 * - gemini-cli/google-gemini__gemini-cli__trajectory.json: opens with a `<state_snapshot>`
 *   (gemini-cli's own compression) but the history it replaced is not in the file: nothing
 *   to score it against.
 * - the other pi sessions, codex-cli (no `compacted` item), aider, swe-agent and
 *   mini-swe-agent: no compaction of the agent's own.
 */
import { normText, PROBE_FACETS, PROBE_KINDS, searchText, type Probe } from '../core.ts'
import { parseConversation } from '../../../../src/engine/messages/index.ts'
import { probes as raddit } from './raddit-dashboard.ts'

export interface OwnCompactionSubject {
  /** Short name for reports. */
  name: string
  /** The normalised fixture in conversations/ (without .json). */
  fixture: string
  /** The raw transcript under transcripts/, holding the agent's compaction entry. */
  transcript: string
  /** The agent's own compaction: the raw entry's `firstKeptEntryId` (pi). */
  firstKeptEntryId: string
  /**
   * Where the covered range ends in the normalised fixture: messages [0, coveredEnd) are what
   * the agent's summary replaced; [coveredEnd, summary message) is the tail the agent kept
   * verbatim. The scorer recomputes it from the transcript and checks it equals this.
   */
  coveredEnd: number
  probes: readonly Probe[]
}

export const OWN_COMPACTIONS: readonly OwnCompactionSubject[] = [
  {
    name: 'raddit-dashboard',
    fixture: 'pinion05__agent-complex-task__03-raddit-dashboard-pr',
    transcript: 'pi-agent/pinion05__agent-complex-task__03-raddit-dashboard-pr.jsonl',
    firstKeptEntryId: '8ff94a6e',
    coveredEnd: 472,
    probes: raddit,
  },
]

export const OWN_PROBES: readonly Probe[] = OWN_COMPACTIONS.flatMap((s) => s.probes)

const alternatives = (entry: string | string[]) => (Array.isArray(entry) ? entry : [entry])

/** Normalised search text of OpenAI messages (as scoreProbe searches an output). */
export function rangeText(messages: readonly unknown[]): string {
  return normText(parseConversation(messages as unknown[], { format: 'openai' }).messages.map(searchText).join('\n'))
}

export interface OwnProbeCheck {
  /** Problems that make a probe dishonest or malformed (must be empty). */
  problems: { id: string; problem: string }[]
  /** Answers that also occur in the kept tail (informational: the whole outputs keep the tail). */
  inTail: { id: string; answer: string }[]
}

/**
 * Honesty check of own-compaction probes: well-formed, and every required entry has an
 * alternative in the covered range's text (so an honest summary of that range can contain
 * it). `tail` (the messages the agent kept) is only reported.
 */
export function checkOwnProbes(probes: readonly Probe[], covered: readonly unknown[], tail: readonly unknown[] = []): OwnProbeCheck {
  const coveredText = rangeText(covered)
  const tailText = tail.length ? rangeText(tail) : ''
  const problems: OwnProbeCheck['problems'] = []
  const inTail: OwnProbeCheck['inTail'] = []
  const seen = new Set<string>()
  for (const p of probes) {
    if (seen.has(p.id)) problems.push({ id: p.id, problem: 'duplicate id' })
    seen.add(p.id)
    if (!PROBE_KINDS.includes(p.kind)) problems.push({ id: p.id, problem: `unknown kind ${p.kind}` })
    if (p.facet !== undefined && !PROBE_FACETS.includes(p.facet)) problems.push({ id: p.id, problem: `unknown facet ${p.facet}` })
    if (!p.answers.length) problems.push({ id: p.id, problem: 'no answers' })
    for (const entry of p.answers) {
      const alts = alternatives(entry)
      if (alts.some((a) => normText(a).length < 3)) problems.push({ id: p.id, problem: `answer too short: ${JSON.stringify(entry)}` })
      if (!alts.some((a) => coveredText.includes(normText(a)))) problems.push({ id: p.id, problem: `not in the covered range: ${JSON.stringify(entry)}` })
      for (const a of alts) if (tailText && tailText.includes(normText(a))) inTail.push({ id: p.id, answer: a })
    }
  }
  return { problems, inTail }
}
