/**
 * The Findings section of the handover (facts/findings/): what the agent learned, in its
 * own words, with the output lines it rests on and its tables of values whole. Findings
 * get a share of the summary that grows with the budget (findingsShare); the best ones by
 * evidence fill it, and the rest overflow into the action log like any item that did not
 * fit, ranked there by the same evidence.
 */
import type { Finding } from '../../facts/findings/index.ts'
import { IMPORTANCE } from '../../facts/importance.ts'
import { clip, clipKeepingPaths } from '../../facts/text.ts'

/** A rendered finding: its section line(s) and rank there, and its one-line form and rank in the action log. */
export interface FindingLine {
  text: string
  priority: number
  logLine: string
  logPriority: number
}

/**
 * Share of the sections' budget findings may take: none under MIN_FINDINGS_BUDGET (the
 * task, instructions and failures need all of it; findings go to the action log), 12% of
 * a 500-token budget (one or two findings), growing with the budget: 24% of 2,000 tokens
 * (the sections' default cap), where the artifact trail is whole and the rest of the room
 * says most when it says what was learned; 30% at most.
 */
export function findingsShare(budget: number): number {
  if (budget < MIN_FINDINGS_BUDGET) return 0
  const share = 0.12 + 0.06 * Math.log2(Math.max(budget, 1) / 500)
  return Math.min(0.3, Math.max(0.12, share))
}

/** Sections' budget under which findings get no share of it. */
export const MIN_FINDINGS_BUDGET = 400

/** Tokens of a text, estimated (the fill counts exactly later): ASCII at four characters a token, other scripts one a character. */
export function estimateTokens(text: string): number {
  let ascii = 0
  let other = 0
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) < 128) ascii++
  else other++
  return Math.ceil(ascii / 4 + other * 0.8)
}

const cell = (s: string, max: number) => clip(s.replace(/\|/g, '/'), max)

/** A finding as it reads in the section: one line, or a table's rows under its title. */
export function renderFinding(f: Finding, tight: boolean): string {
  switch (f.kind) {
    case 'statement':
      return `- ${clipKeepingPaths(f.text, tight ? 200 : 300)}`
    case 'evidence':
      return `- \`${f.source.replace(/`/g, "'")}\`: ${f.lines.map((l) => clipKeepingPaths(l, tight ? 100 : 150)).join(' · ')}`
    case 'values': {
      const title = f.title ? clip(f.title, 80) : f.table ? 'Table' : 'Values'
      if (!f.table) return `- ${title}: ${f.rows.map((r) => cell(r[0]!, tight ? 70 : 110)).join('; ')}`
      const max = tight ? 18 : 28
      return [`- ${title}:`, ...f.rows.map((r) => `  | ${r.map((c) => cell(c, max)).join(' | ')} |`)].join('\n')
    }
  }
}

/** The one-line form of a finding for the action log: what the agent found, what an output showed, a table's rows. */
export function findingLogLine(f: Finding): string {
  switch (f.kind) {
    case 'statement':
      return `- found: ${clipKeepingPaths(f.text, 220)}`
    case 'evidence':
      return `- ${f.source} showed: ${f.lines.map((l) => clipKeepingPaths(l, 100)).join(' · ')}`
    case 'values': {
      if (!f.table) return renderFinding(f, true)
      const title = f.title ? clip(f.title, 60) : 'table'
      return `- ${title}: ${f.rows.map((r) => r.map((c) => cell(c, 24)).join(', ')).join('; ')}`
    }
  }
}

/**
 * The findings as items, best first: those that fit the share rank just below pending
 * work (the fill takes them one a round, like any class: the caller gives the best the
 * highest seq, which the fill takes first); the rest only fill room nothing else wanted,
 * and overflow into the action log just above passing tests and commands, best first.
 */
export function findingLines(findings: readonly Finding[], budget: number, count: (s: string) => number = estimateTokens): FindingLine[] {
  const tight = budget < 600
  let room = Math.floor(budget * findingsShare(budget))
  const out: FindingLine[] = []
  findings.forEach((f, k) => {
    const text = renderFinding(f, tight)
    const cost = count(text) + 1
    const fits = cost <= room
    if (fits) room -= cost
    out.push({ text, priority: fits ? IMPORTANCE.keyFinding : IMPORTANCE.finding, logLine: findingLogLine(f), logPriority: IMPORTANCE.loggedFinding - k * 0.001 })
  })
  return out
}
