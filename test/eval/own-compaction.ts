/**
 * Against the agent's own compaction (issue 22): some raw transcripts in ../shared/fixtures
 * hold a compaction the agent made itself (its LLM summary) together with the messages it
 * covered. On each, hand-written probes over the covered range (written blind to both
 * summaries, test/eval/probes/own-compaction/) score the agent's summary and compactd's
 * default (mask+rules) at the same size and at twice the size.
 *
 *   npx tsx test/eval/own-compaction.ts [--json]
 *   (also: npm run eval -- own [--json])
 *
 * For each subject (probes/own-compaction/index.ts):
 * - the input is the normalised fixture up to the agent's summary message (what the agent
 *   had when it compacted); the covered range is [0, coveredEnd) (recomputed from the
 *   transcript's firstKeptEntryId and checked), the kept tail [coveredEnd, summary message);
 * - the agent's summary is the compaction entry's `summary`, read from the transcript;
 * - compactd runs with DEFAULT_COMPACT_OPTIONS (strategy mask+rules, maxSummaryTokens 2000)
 *   and keepRecent = the agent's kept tail (both keep the same tail verbatim). No option sets
 *   the summary message's size directly: maxSummaryTokens caps only its sections (and they
 *   get at most 15% of the target, planner.ts); the action log fills what the target leaves
 *   beside head and tail. So the size is set through targetTokens, two ways:
 *   · "same budget": target = head + the agent's summary message + tail (o200k_base, as
 *     gpt-4o), the context the agent's own compaction left; 2×: one more summary message;
 *   · "same summary size": the target adjusted (OpenAI, then used for every format) until
 *     compactd's summary text has the agent summary's token count (2×: twice it).
 *   A sweep (OpenAI, same-budget definition) at 1.5×, 3× and 4× shows where compactd
 *   catches up.
 * - Scores: the summary text alone (agent's vs compactd's) and the whole output (agent:
 *   summary message + kept tail; compactd: its output), per probe, per kind, per format
 *   (compactd in every format of the registry; the agent's text is format-free).
 * Nothing of the engine is changed or reimplemented: compact() as test/eval/probes.ts runs it.
 */
import fs from 'node:fs'
import path from 'node:path'
import { compact, CompactionError } from '../../src/engine/compaction/compact.ts'
import { DEFAULT_COMPACT_OPTIONS, type CompactOptions } from '../../src/engine/compaction/types.ts'
import { FORMAT_NAMES, getAdapter, parseConversation, type CanonicalMessage, type MessageFormat } from '../../src/engine/messages/index.ts'
import { countConversation, tokenizerCounter } from '../../src/engine/tokens/count.ts'
import { CONVERSATIONS, conversationsSkip, TRANSCRIPTS, transcriptsSkip } from '../helpers/fixtures.ts'
import { outputText, PROBE_KINDS, scoreProbe, type Probe, type ProbeKind } from './probes/core.ts'
import { checkOwnProbes, OWN_COMPACTIONS, type OwnCompactionSubject } from './probes/own-compaction/index.ts'

const counter = tokenizerCounter('o200k_base')

/** Why the own-compaction subjects cannot be read, or false. */
export function ownCompactionSkip(): string | false {
  return conversationsSkip(OWN_COMPACTIONS.map((s) => `${s.fixture}.json`)) || transcriptsSkip(OWN_COMPACTIONS.map((s) => s.transcript))
}

export interface OwnSubjectData {
  subject: OwnCompactionSubject
  /** The fixture's messages before the agent's summary message (the compaction's input). */
  input: unknown[]
  coveredEnd: number
  /** Index of the agent's summary message in the fixture. */
  summaryIndex: number
  /** The agent's summary (the compaction entry's `summary`). */
  agentSummary: string
  /** The agent's summary message as the fixture has it (what the agent continued from). */
  agentSummaryMessage: unknown
  tokensBefore: number
}

const textOf = (m: unknown): string => {
  const c = (m as { content?: unknown }).content
  if (typeof c === 'string') return c
  if (Array.isArray(c)) return c.map((p) => (p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join('\n')
  return ''
}

/** Reads a subject: its transcript's compaction entry and where the fixture's ranges are. */
export function loadOwnSubject(subject: OwnCompactionSubject): OwnSubjectData {
  const entries: Record<string, unknown>[] = []
  for (const line of fs.readFileSync(path.join(TRANSCRIPTS, subject.transcript), 'utf8').split('\n')) {
    if (!line.trim()) continue
    try {
      entries.push(JSON.parse(line))
    } catch {
      // one pi line has a bad escape; it is a tool result well inside the covered range
    }
  }
  const compaction = entries.find((e) => e.type === 'compaction' && e.firstKeptEntryId === subject.firstKeptEntryId) as { summary?: string } | undefined
  if (!compaction || typeof compaction.summary !== 'string') throw new Error(`${subject.transcript}: no compaction entry with firstKeptEntryId ${subject.firstKeptEntryId}`)
  const kept = entries.find((e) => e.id === subject.firstKeptEntryId) as { timestamp?: string; message?: { content?: { type?: string; id?: string }[] } } | undefined
  if (!kept) throw new Error(`${subject.transcript}: no entry ${subject.firstKeptEntryId}`)
  const keptCallIds = new Set((kept.message?.content ?? []).filter((p) => p.type === 'toolCall' && p.id).map((p) => p.id!))
  const messages = JSON.parse(fs.readFileSync(path.join(CONVERSATIONS, `${subject.fixture}.json`), 'utf8')).messages as Record<string, unknown>[]
  const coveredEnd = messages.findIndex((m) => {
    const calls = (m.tool_calls as { id?: string }[] | undefined) ?? []
    return (keptCallIds.size > 0 && calls.some((c) => c.id && keptCallIds.has(c.id))) || (keptCallIds.size === 0 && m.timestamp === kept.timestamp)
  })
  if (coveredEnd !== subject.coveredEnd) throw new Error(`${subject.fixture}: the first kept entry is message ${coveredEnd}, not ${subject.coveredEnd} as the probes say`)
  const head = compaction.summary.trim().slice(0, 200)
  const summaryIndex = messages.findIndex((m, i) => i >= coveredEnd && textOf(m).includes(head))
  if (summaryIndex < 0) throw new Error(`${subject.fixture}: the agent's summary message is not in the fixture`)
  const input = messages.slice(0, summaryIndex)
  const tokensBefore = countConversation(parseConversation(input, { format: 'openai' }).messages, counter).totalTokens
  return { subject, input, coveredEnd, summaryIndex, agentSummary: compaction.summary, agentSummaryMessage: messages[summaryIndex], tokensBefore }
}

export interface Scored {
  /** Probe id → passed. */
  passed: Record<string, boolean>
  missing: Record<string, string[]>
}

function score(probes: readonly Probe[], messages: readonly CanonicalMessage[]): Scored {
  const out = outputText(messages)
  const passed: Record<string, boolean> = {}
  const missing: Record<string, string[]> = {}
  for (const p of probes) {
    const s = scoreProbe(p, out)
    passed[p.id] = s.passed
    if (!s.passed) missing[p.id] = [...s.missing, ...s.violations]
  }
  return { passed, missing }
}

const asMessages = (openai: unknown[]) => parseConversation(openai, { format: 'openai' }).messages
const textMessage = (text: string) => asMessages([{ role: 'user', content: text }])

/** How a compactd run's size was set (see the module comment). */
export type SizeMode = 'budget' | 'summary-size'

export interface OwnRun {
  /** 'agent' or 'compactd'. */
  by: 'agent' | 'compactd'
  /** Multiple of the agent's summary: 1 (the same size), 2, and the sweep's 1.5, 3, 4. */
  size: number
  mode?: SizeMode
  format: MessageFormat | 'any'
  targetTokens?: number
  /** Tokens of the summary text (o200k_base). */
  summaryTokens?: number
  /** Tokens of the whole output (OpenAI count for the agent; compactd's tokensAfter in its format). */
  outputTokens?: number
  /** The summary text alone. */
  summary?: Scored
  /** The whole output (summary + kept tail). */
  whole?: Scored
  error?: string
}

export interface OwnSubjectReport {
  name: string
  fixture: string
  transcript: string
  coveredEnd: number
  summaryIndex: number
  tailMessages: number
  tokens: { before: number; covered: number; tail: number; head: number; agentSummary: number; agentSummaryMessage: number }
  /** compactd's options besides DEFAULT_COMPACT_OPTIONS. */
  options: { keepRecent: number; maxSummaryTokens: number; targets: { mode: SizeMode; size: number; targetTokens: number }[] }
  probes: { id: string; kind: ProbeKind; facet?: string; question: string }[]
  /** Probe answers that also occur in the kept tail (the whole outputs both keep it). */
  answersInTail: { id: string; answer: string }[]
  /** Problems of the probes (an answer not in the covered range...): must be empty. */
  probeProblems: { id: string; problem: string }[]
  runs: OwnRun[]
}

async function runCompactd(data: OwnSubjectData, openai: CanonicalMessage[], format: MessageFormat, mode: SizeMode, size: number, targetTokens: number, keepRecent: number): Promise<OwnRun> {
  const run: OwnRun = { by: 'compactd', size, mode, format, targetTokens }
  let messages = openai
  if (format !== 'openai') {
    // As src/use-cases/compact/compute.ts (and test/eval/probes.ts): the caller's wire messages, parsed with its system.
    const wire = getAdapter(format).serialize(openai)
    messages = parseConversation(wire.messages, { format, ...(wire.system !== undefined ? { system: wire.system } : {}) }).messages
  }
  const options: CompactOptions = { ...DEFAULT_COMPACT_OPTIONS, format, keepRecent, targetTokens, thresholdTokens: 0 }
  try {
    const res = await compact({ messages, counter, options })
    run.outputTokens = res.event.tokensAfter
    if (res.summary) {
      run.summaryTokens = counter.text(res.summary.text)
      run.summary = score(data.subject.probes, textMessage(res.summary.text))
    }
    run.whole = score(data.subject.probes, res.messages)
  } catch (err) {
    run.error = err instanceof CompactionError ? `422 ${err.code}: ${err.message}` : String(err instanceof Error ? err.stack : err)
  }
  return run
}

/** Sizes run in every format; the sweep's sizes run in OpenAI only. */
export const MAIN_SIZES = [1, 2] as const
export const SWEEP_SIZES = [1.5, 3, 4] as const

/**
 * The target (OpenAI) at which compactd's summary text has about `want` tokens: from
 * `start`, moved by the difference a few times (within 1%); the closest one tried.
 */
async function calibrate(data: OwnSubjectData, openai: CanonicalMessage[], want: number, start: number, keepRecent: number): Promise<number> {
  let target = start
  let best = { target, gap: Infinity }
  for (let k = 0; k < 6; k++) {
    const run = await runCompactd(data, openai, 'openai', 'summary-size', 1, target, keepRecent)
    if (run.error || run.summaryTokens === undefined) break
    const gap = want - run.summaryTokens
    if (Math.abs(gap) < Math.abs(best.gap)) best = { target, gap }
    if (Math.abs(gap) <= want * 0.01) break
    target += gap
  }
  return best.target
}

export async function runOwnCompaction(opts: { formats?: readonly MessageFormat[] } = {}): Promise<OwnSubjectReport[]> {
  const formats = opts.formats ?? FORMAT_NAMES
  const reports: OwnSubjectReport[] = []
  for (const subject of OWN_COMPACTIONS) {
    const data = loadOwnSubject(subject)
    const openai = asMessages(data.input)
    const covered = data.input.slice(0, data.coveredEnd)
    const tail = data.input.slice(data.coveredEnd)
    const check = checkOwnProbes(subject.probes, covered, tail)
    const count = (ms: unknown[]) => (ms.length ? countConversation(asMessages(ms), counter).totalTokens : 0)
    // compactd's head: the first user message (keepFirst 1) and any system message before it.
    const firstUser = data.input.findIndex((m) => (m as { role?: string }).role === 'user')
    const head = data.input.slice(0, firstUser + 1)
    const agentSummaryTokens = counter.text(data.agentSummary)
    const agentSummaryMessageTokens = count([data.agentSummaryMessage])
    const tailTokens = count(tail)
    const headTokens = count(head)
    const agentWhole = asMessages([data.agentSummaryMessage, ...tail])
    // The context the agent's compaction left, with compactd's head (kept verbatim) added;
    // each further size adds one more summary message's worth.
    const budget = count([...head, data.agentSummaryMessage, ...tail])
    const budgetAt = (size: number) => budget + Math.round((size - 1) * agentSummaryMessageTokens)
    const keepRecent = tail.length
    const runs: OwnRun[] = [
      { by: 'agent', size: 1, format: 'any', summaryTokens: agentSummaryTokens, outputTokens: count([data.agentSummaryMessage, ...tail]), summary: score(subject.probes, textMessage(data.agentSummary)), whole: score(subject.probes, agentWhole) },
    ]
    const targets: OwnSubjectReport['options']['targets'] = []
    for (const size of MAIN_SIZES) {
      targets.push({ mode: 'budget', size, targetTokens: budgetAt(size) })
      for (const format of formats) runs.push(await runCompactd(data, openai, format, 'budget', size, budgetAt(size), keepRecent))
      const calibrated = await calibrate(data, openai, size * agentSummaryTokens, budgetAt(size), keepRecent)
      targets.push({ mode: 'summary-size', size, targetTokens: calibrated })
      for (const format of formats) runs.push(await runCompactd(data, openai, format, 'summary-size', size, calibrated, keepRecent))
    }
    for (const size of SWEEP_SIZES) {
      targets.push({ mode: 'budget', size, targetTokens: budgetAt(size) })
      runs.push(await runCompactd(data, openai, 'openai', 'budget', size, budgetAt(size), keepRecent))
    }
    reports.push({
      name: subject.name,
      fixture: subject.fixture,
      transcript: subject.transcript,
      coveredEnd: data.coveredEnd,
      summaryIndex: data.summaryIndex,
      tailMessages: tail.length,
      tokens: { before: data.tokensBefore, covered: count(covered), tail: tailTokens, head: headTokens, agentSummary: agentSummaryTokens, agentSummaryMessage: agentSummaryMessageTokens },
      options: { keepRecent, maxSummaryTokens: DEFAULT_COMPACT_OPTIONS.maxSummaryTokens, targets },
      probes: subject.probes.map((p) => ({ id: p.id, kind: p.kind, ...(p.facet ? { facet: p.facet } : {}), question: p.question })),
      answersInTail: check.inTail,
      probeProblems: check.problems,
      runs,
    })
  }
  return reports
}

// ── report ──

interface Rate {
  passed: number
  total: number
}

function rates(probes: readonly { id: string; kind: ProbeKind }[], s: Scored | undefined): { overall: Rate; byKind: Record<ProbeKind, Rate> } {
  const byKind = Object.fromEntries(PROBE_KINDS.map((k) => [k, { passed: 0, total: 0 }])) as Record<ProbeKind, Rate>
  const overall = { passed: 0, total: 0 }
  for (const p of probes) {
    if (!s) continue
    overall.total++
    byKind[p.kind].total++
    if (s.passed[p.id]) {
      overall.passed++
      byKind[p.kind].passed++
    }
  }
  return { overall, byKind }
}

const frac = (r: Rate) => (r.total ? `${r.passed}/${r.total}` : '—')
const MODE_LABEL: Record<SizeMode, string> = { budget: 'same budget', 'summary-size': 'same summary size' }
const label = (r: OwnRun) => (r.by === 'agent' ? "agent's own summary (pi)" : `compactd ${r.size}×, ${MODE_LABEL[r.mode!]}`)
const find = (rep: OwnSubjectReport, mode: SizeMode, size: number, format: MessageFormat = 'openai') => rep.runs.find((r) => r.by === 'compactd' && r.mode === mode && r.size === size && r.format === format)

export function renderMarkdown(reports: readonly OwnSubjectReport[]): string {
  const out: string[] = []
  for (const rep of reports) {
    const t = rep.tokens
    const target = (mode: SizeMode, size: number) => rep.options.targets.find((x) => x.mode === mode && x.size === size)?.targetTokens ?? '—'
    out.push(`## ${rep.name} (${rep.transcript})\n`)
    out.push(
      `Covered range: fixture messages 0–${rep.coveredEnd - 1} (${t.covered} tokens); kept tail: ${rep.coveredEnd}–${rep.summaryIndex - 1} (${rep.tailMessages} messages, ${t.tail} tokens); the agent's summary is message ${rep.summaryIndex}. ` +
        `Input to compactd: messages 0–${rep.summaryIndex - 1}, ${t.before} tokens. Agent summary: ${t.agentSummary} tokens (its message ${t.agentSummaryMessage}). ` +
        `compactd: DEFAULT_COMPACT_OPTIONS (mask+rules, maxSummaryTokens ${rep.options.maxSummaryTokens}), keepRecent ${rep.options.keepRecent} (the agent's tail); targetTokens ` +
        `${target('budget', 1)} at 1× same budget (head ${t.head} + agent summary message + tail), ${target('summary-size', 1)} at 1× same summary size, ` +
        `${target('budget', 2)} / ${target('summary-size', 2)} at 2×. Tokens: o200k_base.\n`,
    )
    if (rep.probeProblems.length) out.push(`**Probe problems:** ${rep.probeProblems.map((p) => `${p.id}: ${p.problem}`).join('; ')}\n`)
    out.push(`| run | format | target | summary tokens | output tokens | summary alone | ${PROBE_KINDS.join(' | ')} | whole output | ${PROBE_KINDS.join(' | ')} |`)
    out.push(`|---|---|---:|---:|---:|---:|${PROBE_KINDS.map(() => '---:|').join('')}---:|${PROBE_KINDS.map(() => '---:|').join('')}`)
    for (const r of rep.runs) {
      if (r.error) {
        out.push(`| ${label(r)} | ${r.format} | ${r.targetTokens ?? '—'} | — | — | ${r.error.split('\n')[0]} |${PROBE_KINDS.map(() => ' |').join('')} |${PROBE_KINDS.map(() => ' |').join('')}`)
        continue
      }
      const s = rates(rep.probes, r.summary)
      const w = rates(rep.probes, r.whole)
      out.push(`| ${label(r)} | ${r.format} | ${r.targetTokens ?? '—'} | ${r.summaryTokens ?? '—'} | ${r.outputTokens ?? '—'} | **${frac(s.overall)}** | ${PROBE_KINDS.map((k) => frac(s.byKind[k])).join(' | ')} | **${frac(w.overall)}** | ${PROBE_KINDS.map((k) => frac(w.byKind[k])).join(' | ')} |`)
    }
    out.push('')
    // Per probe: the agent, compactd 1× and 2× (OpenAI); summary alone at the same summary size, whole output at the same budget.
    const agent = rep.runs.find((r) => r.by === 'agent')!
    const cols: [string, OwnRun | undefined, 'summary' | 'whole'][] = [
      ['agent summary', agent, 'summary'],
      ['compactd 1× summary', find(rep, 'summary-size', 1), 'summary'],
      ['compactd 2× summary', find(rep, 'summary-size', 2), 'summary'],
      ['agent whole', agent, 'whole'],
      ['compactd 1× whole', find(rep, 'budget', 1), 'whole'],
      ['compactd 2× whole', find(rep, 'budget', 2), 'whole'],
    ]
    const differ = (r: OwnRun, id: string, which: 'summary' | 'whole') => new Set(rep.runs.filter((x) => x.by === 'compactd' && x.mode === r.mode && x.size === r.size && !x.error).map((x) => x[which]?.passed[id])).size > 1
    const cell = (r: OwnRun | undefined, which: 'summary' | 'whole', id: string) => {
      const s = r?.[which]
      if (!r || !s) return '—'
      return `${s.passed[id] ? '✓' : '✗'}${r.by === 'compactd' && differ(r, id, which) ? '≠' : ''}`
    }
    out.push(`Per probe (✓ pass, ✗ fail). Summary columns: the summary text alone, compactd at the same summary size; whole columns: the whole output, compactd at the same budget. compactd in OpenAI format, "≠" where another format differs; "tail": an answer also occurs in the kept tail.\n`)
    out.push(`| probe | kind | facet | ${cols.map((c) => c[0]).join(' | ')} | tail | question |`)
    out.push(`|---|---|---|${cols.map(() => ':-:|').join('')}:-:|---|`)
    const inTail = new Set(rep.answersInTail.map((a) => a.id))
    for (const p of rep.probes) out.push(`| ${p.id} | ${p.kind} | ${p.facet ?? ''} | ${cols.map(([, r, which]) => cell(r, which, p.id)).join(' | ')} | ${inTail.has(p.id) ? 'tail' : ''} | ${p.question.replaceAll('|', '\\|')} |`)
    out.push('')
    // Per facet (issue 22's kinds of knowledge), summary alone; probes without a facet are left out.
    const facets = [...new Set(rep.probes.flatMap((p) => (p.facet ? [p.facet] : [])))]
    if (facets.length) {
      const sumCols = cols.filter((c) => c[2] === 'summary')
      out.push(`Per facet, summary alone (passed/probes):\n`)
      out.push(`| facet | ${sumCols.map((c) => c[0]).join(' | ')} |`)
      out.push(`|---|${sumCols.map(() => '---:|').join('')}`)
      for (const f of facets) {
        const ids = rep.probes.filter((p) => p.facet === f).map((p) => p.id)
        out.push(`| ${f} | ${sumCols.map(([, r]) => (r?.summary ? `${ids.filter((id) => r.summary!.passed[id]).length}/${ids.length}` : '—')).join(' | ')} |`)
      }
      out.push('')
    }
    const missingOf = (name: string, s: Scored | undefined) => (s ? Object.entries(s.missing).map(([id, m]) => `- ${name} ${id}: missing ${m.map((x) => `\`${x}\``).join(', ')}`) : [])
    const lines = [...missingOf('agent summary', agent.summary), ...missingOf('compactd 1× summary', find(rep, 'summary-size', 1)?.summary), ...missingOf('compactd 2× summary', find(rep, 'summary-size', 2)?.summary)]
    if (lines.length) out.push(`Missing answers (summary alone):\n\n${lines.join('\n')}\n`)
  }
  return out.join('\n')
}

export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  const json = argv.includes('--json')
  const skip = ownCompactionSkip()
  if (skip) {
    if (json) console.log(JSON.stringify({ skipped: skip }, null, 2))
    else console.log(`(${skip}: the agent's-own-compaction comparison is not evaluated)`)
    return
  }
  const reports = await runOwnCompaction()
  if (json) console.log(JSON.stringify(reports, null, 2))
  else {
    console.log(`# Against the agent's own compaction (issue 22)\n`)
    console.log(renderMarkdown(reports))
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main()
