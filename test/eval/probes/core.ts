/**
 * Continuation probes: the shape, the text a probe is searched in, and the static
 * validator that keeps every probe honest.
 *
 * A probe asks what an engineer taking over the session would need to know. It passes
 * when every required answer entry appears in the compacted output's text
 * (case-insensitive, whitespace collapsed); an entry that is an array means "any one of
 * these strings". `mustNotMatch` patterns (negative probes) must match nowhere in the
 * output's display text (see displayText: line structure kept, tool arguments decoded).
 *
 * Static rule (default options, keepRecent 10): the VERBATIM part of an OpenAI
 * conversation is its system/developer messages, its first user message and its last 10
 * messages; the COMPACTED range is everything else. Every answer must be answerable only
 * from the compacted range: each required entry has an alternative in the compacted
 * range's text, and no alternative occurs in the verbatim part. Otherwise the probe
 * would measure nothing (the engine keeps the verbatim part anyway).
 */
import { parseConversation, toolCallsOf, type CanonicalMessage } from '../../../src/engine/messages/index.ts'
import { renderForSearch } from '../quality.ts'

export type ProbeKind = 'recall' | 'artifact' | 'decision' | 'continuation'
export const PROBE_KINDS: readonly ProbeKind[] = ['recall', 'artifact', 'decision', 'continuation']

/**
 * What issue 22 says the summary misses, marked on the probes that ask for it so they can
 * be reported apart (test tooling only): a finding from reading or searching code (how a
 * function guards a case, which classes share a pattern), a research result or computed
 * value, a rejected attempt with its reason, an explanation the agent reached, and the
 * repository's state (files patched or left behind, the final diff). The kind stays as
 * usual: findings, research and explanations are mostly `recall`, rejected attempts
 * `decision`, repository state `artifact`.
 */
export type ProbeFacet = 'finding' | 'research' | 'rejected' | 'explanation' | 'repo-state'
export const PROBE_FACETS: readonly ProbeFacet[] = ['finding', 'research', 'rejected', 'explanation', 'repo-state']

export interface Probe {
  id: string
  /** Fixture file name without .json, or the generated conversation's builder name. */
  fixture: string
  kind: ProbeKind
  /** One of the issue-22 kinds of knowledge, when the probe asks for one (see ProbeFacet). */
  facet?: ProbeFacet
  question: string
  /** Every entry is required; an array entry means any one of its strings. */
  answers: (string | string[])[]
  /** Negative probe: none of these may match the output's display text. */
  mustNotMatch?: RegExp[]
}

/** The default verbatim tail the static rule assumes (DEFAULT_COMPACT_OPTIONS.keepRecent). */
export const STATIC_KEEP_RECENT = 10

export const normText = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase()

/** Every string inside a JSON value (nested arrays and objects too), in order. */
function stringsIn(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v)
  else if (Array.isArray(v)) for (const x of v) stringsIn(x, out)
  else if (v && typeof v === 'object') for (const x of Object.values(v)) stringsIn(x, out)
  return out
}

function decodedArgs(m: CanonicalMessage): string[] {
  return toolCallsOf(m).map((c) => {
    try {
      return stringsIn(JSON.parse(c.argsText)).join('\n')
    } catch {
      return c.argsText
    }
  })
}

/**
 * Text a probe's answers are searched in: quality.ts's renderForSearch (message text with
 * the raw tool-call JSON, plus top-level string arguments decoded) plus strings nested in
 * arrays (Codex's `{"command": ["apply_patch", "*** Begin Patch…"]}`).
 */
export function searchText(m: CanonicalMessage): string {
  return [renderForSearch(m), ...decodedArgs(m)].join('\n')
}

/**
 * Text negative probes are matched against, line structure kept: text parts, each tool
 * call as `name` then its decoded string arguments, tool results. Raw JSON arguments are
 * left out: their escaped newlines would put a whole script on one line.
 */
export function displayText(m: CanonicalMessage): string {
  const out: string[] = []
  for (const p of m.parts) {
    if (p.type === 'text' || p.type === 'reasoning' || p.type === 'opaque') out.push(p.text)
    else if (p.type === 'tool-result') out.push(p.text)
  }
  const calls = toolCallsOf(m)
  const decoded = decodedArgs(m)
  calls.forEach((c, i) => out.push(`${c.name}:`, decoded[i]!))
  return out.join('\n')
}

export interface OutputText {
  /** Normalised (lower case, whitespace collapsed) search text. */
  search: string
  /** Display text, line structure kept. */
  display: string
}

export function outputText(messages: readonly CanonicalMessage[]): OutputText {
  return { search: normText(messages.map(searchText).join('\n')), display: messages.map(displayText).join('\n') }
}

export interface ProbeScore {
  passed: boolean
  /** Required entries not found (each shown as its alternatives joined by " | "). */
  missing: string[]
  /** mustNotMatch patterns that matched, with the matching text. */
  violations: string[]
}

const alternatives = (entry: string | string[]) => (Array.isArray(entry) ? entry : [entry])

export function scoreProbe(probe: Probe, out: OutputText): ProbeScore {
  const missing: string[] = []
  for (const entry of probe.answers) {
    if (!alternatives(entry).some((a) => out.search.includes(normText(a)))) missing.push(alternatives(entry).join(' | '))
  }
  const violations: string[] = []
  for (const re of probe.mustNotMatch ?? []) {
    const m = new RegExp(re.source, re.flags.replace('g', '')).exec(out.display)
    if (m) violations.push(`${re} matched "${m[0].slice(0, 120)}"`)
  }
  return { passed: missing.length === 0 && violations.length === 0, missing, violations }
}

export interface StaticRanges {
  /** Normalised text of the compacted range. */
  compacted: string
  /** Normalised text of the verbatim part. */
  verbatim: string
  /** Display text of the whole conversation (for mustNotMatch checks). */
  display: string
  compactedIndexes: number[]
}

/** Splits an OpenAI conversation by the static rule (see the module comment). */
export function staticRanges(messages: readonly unknown[], keepRecent = STATIC_KEEP_RECENT): StaticRanges {
  const conv = parseConversation(messages as unknown[], { format: 'openai' })
  const roles = messages.map((m) => (m as { role?: string }).role)
  const firstUser = roles.indexOf('user')
  const verbatimAt = (i: number) => roles[i] === 'system' || roles[i] === 'developer' || i === firstUser || i >= messages.length - keepRecent
  const compacted: string[] = []
  const verbatim: string[] = []
  const compactedIndexes = new Set<number>()
  for (const m of conv.messages) {
    if (verbatimAt(m.index)) verbatim.push(searchText(m))
    else {
      compacted.push(searchText(m))
      compactedIndexes.add(m.index)
    }
  }
  return {
    compacted: normText(compacted.join('\n')),
    verbatim: normText(verbatim.join('\n')),
    display: conv.messages.map(displayText).join('\n'),
    compactedIndexes: [...compactedIndexes].sort((a, b) => a - b),
  }
}

export interface ProbeProblem {
  id: string
  problem: string
}

/**
 * Checks probes against the static rule. `conversations` maps a fixture name to its
 * OpenAI messages. Returns the problems (empty when all probes are valid).
 */
export function validateProbes(probes: readonly Probe[], conversations: ReadonlyMap<string, readonly unknown[]>): ProbeProblem[] {
  const problems: ProbeProblem[] = []
  const ranges = new Map<string, StaticRanges>()
  const seen = new Set<string>()
  for (const p of probes) {
    if (seen.has(p.id)) problems.push({ id: p.id, problem: 'duplicate id' })
    seen.add(p.id)
    if (!PROBE_KINDS.includes(p.kind)) problems.push({ id: p.id, problem: `unknown kind ${p.kind}` })
    if (p.facet !== undefined && !PROBE_FACETS.includes(p.facet)) problems.push({ id: p.id, problem: `unknown facet ${p.facet}` })
    if (p.answers.length === 0 && !p.mustNotMatch?.length) problems.push({ id: p.id, problem: 'no answers and no mustNotMatch' })
    const messages = conversations.get(p.fixture)
    if (!messages) {
      problems.push({ id: p.id, problem: `unknown fixture ${p.fixture}` })
      continue
    }
    let r = ranges.get(p.fixture)
    if (!r) ranges.set(p.fixture, (r = staticRanges(messages)))
    for (const entry of p.answers) {
      const alts = alternatives(entry)
      if (alts.some((a) => normText(a).length < 3)) problems.push({ id: p.id, problem: `answer too short: ${JSON.stringify(entry)}` })
      if (!alts.some((a) => r.compacted.includes(normText(a)))) problems.push({ id: p.id, problem: `not in the compacted range: ${JSON.stringify(entry)}` })
      for (const a of alts) if (r.verbatim.includes(normText(a))) problems.push({ id: p.id, problem: `occurs in the verbatim part: ${JSON.stringify(a)}` })
    }
    // A negative probe must not already match the input: it would then measure the input.
    for (const re of p.mustNotMatch ?? []) {
      const m = new RegExp(re.source, re.flags.replace('g', '')).exec(r.display)
      if (m) problems.push({ id: p.id, problem: `mustNotMatch ${re} already matches the input: "${m[0].slice(0, 100)}"` })
    }
  }
  return problems
}

/** Throws naming every invalid probe. */
export function assertProbesValid(probes: readonly Probe[], conversations: ReadonlyMap<string, readonly unknown[]>): void {
  const problems = validateProbes(probes, conversations)
  if (problems.length) throw new Error(`${problems.length} invalid probe(s):\n` + problems.map((p) => `  ${p.id}: ${p.problem}`).join('\n'))
}
