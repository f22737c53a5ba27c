/**
 * Continuation probes (issue 9, "handover-grade compaction"): could an agent continue
 * from what compactd hands back?
 *
 *   npx tsx test/eval/probes.ts [--json] [--split tuning|test|all]
 *   (also: npm run eval -- probes …, npx tsx test/eval/quality.ts probes …)
 *
 * Two splits of fixture probes (issue 22, test/eval/probes/index.ts): the TUNING split
 * (FIXTURE_PROBES, the probes the rules were tuned on) with the generated conversations,
 * reported exactly as before; and the held-out TEST split (TEST_PROBES), reported
 * alongside with the same matrix plus per-facet and per-fixture rates. `--split` picks
 * one (default all). In --json the tuning split keeps its top-level fields (matrix,
 * spread, failures, runs); `tuning.breakdown` and `test` are added.
 *
 * For every probed fixture session (test/eval/probes/) and every generated conversation
 * (test/helpers/handover-conversations.ts), at budgets of 10% and 25% of the
 * conversation's tokens (exact o200k count of the OpenAI messages, as quality.ts), for
 * the strategies truncate, mask, rules and mask+rules and for the three formats (OpenAI as
 * loaded; Anthropic and AI SDK serialized from the parsed OpenAI messages, compacted with
 * `format` set and Anthropic's `system` passed through parseConversation as the service
 * does), it runs compact(), renders the output as text and scores the probes
 * (test/eval/probes/core.ts). A CompactionError (422) is reported and excluded, never
 * counted as a failure. The same token target is used for every format.
 *
 * runProbes() returns the numbers, for a test to assert thresholds later.
 */
import { compact, CompactionError } from '../../src/engine/compaction/compact.ts'
import { DEFAULT_COMPACT_OPTIONS, type StrategyName } from '../../src/engine/compaction/types.ts'
import { FORMAT_NAMES, getAdapter, parseConversation, type CanonicalMessage, type MessageFormat } from '../../src/engine/messages/index.ts'
import { countConversation, tokenizerCounter } from '../../src/engine/tokens/count.ts'
import { handoverConversations } from '../helpers/handover-conversations.ts'
import { FIXTURE_PROBES, fixturesAvailable, loadFixture, outputText, PROBE_FACETS, PROBE_KINDS, probedFixturesSkip, scoreProbe, TEST_PROBES, testFixturesSkip, type Probe, type ProbeFacet, type ProbeKind } from './probes/index.ts'

export const PROBE_BUDGETS = [10, 25] as const
export const PROBE_STRATEGIES: readonly StrategyName[][] = [['truncate'], ['mask'], ['rules'], ['mask', 'rules']]
/** Every format of the registry: a probe must pass or fail alike in each (format spread 0). */
export const PROBE_FORMATS: readonly MessageFormat[] = FORMAT_NAMES

/** Which probe set a run scores: the tuning split (with the generated conversations) or the held-out test split. */
export type ProbeSplit = 'tuning' | 'test'
export const PROBE_SPLITS: readonly ProbeSplit[] = ['tuning', 'test']

export interface ProbeResult {
  id: string
  kind: ProbeKind
  /** The probe's issue-22 facet, when it has one (test split). */
  facet?: ProbeFacet
  passed: boolean
  missing: string[]
  violations: string[]
}

export interface ProbeRun {
  conversation: string
  source: 'fixture' | 'generated'
  /** Percent of the conversation's tokens, or 'intended' (the generated conversation's own target). */
  budget: number | 'intended'
  targetTokens: number
  strategy: string
  format: MessageFormat
  tokensBefore: number
  tokensAfter?: number
  /** `422 budget_unreachable` etc.: the run is excluded from the rates. */
  error?: string
  /** compact() threw something other than CompactionError (an engine bug): counted as all probes failed. */
  engineError?: string
  results: ProbeResult[]
  /** Text of the summary the engine wrote (for the format spread). */
  summaryText?: string
}

export interface Rate {
  passed: number
  total: number
}

export interface ProbeReport {
  runs: ProbeRun[]
  /** key `${source}|${strategy}|${budget}|${format}` (source: all, fixture or generated) → overall and per-kind rates (422 runs left out, counted in `excluded`). */
  matrix: Record<string, { overall: Rate; byKind: Record<ProbeKind, Rate>; excluded: number }>
  /** Per conversation at 10% for mask+rules. */
  spread: { conversation: string; byFormat: Partial<Record<MessageFormat, Rate | 'excluded'>>; spread: number | null; summariesDiffer: boolean }[]
  /** Failed probes for mask+rules at 10% (OpenAI format), with what is missing. */
  failures: { conversation: string; format: MessageFormat; id: string; question: string; missing: string[]; violations: string[] }[]
  /** Fixture runs only, key `${strategy}|${budget}|${format}`: rates overall, per kind, per facet and per fixture. */
  breakdown: Record<string, BreakdownCell>
}

export interface BreakdownCell {
  overall: Rate
  byKind: Record<ProbeKind, Rate>
  /** Probes without a facet are counted in no facet. */
  byFacet: Record<ProbeFacet, Rate>
  /** 'excluded': the run answered 422. */
  byFixture: Record<string, Rate | 'excluded'>
  /** Runs answering 422. */
  excluded: number
}

export interface RunProbesOptions {
  /** Which fixture probes: the tuning split (default) or the held-out test split. */
  split?: ProbeSplit
  /** Include the fixture probes (default: when the split's sessions are in the shared fixtures). */
  fixtures?: boolean
  /** Include the generated conversations (default true for the tuning split, false for the test split). */
  generated?: boolean
  budgets?: readonly number[]
  strategies?: readonly StrategyName[][]
  formats?: readonly MessageFormat[]
  /** Only these conversations (fixture or builder names). */
  only?: readonly string[]
}

interface Subject {
  name: string
  source: 'fixture' | 'generated'
  messages: unknown[]
  probes: Probe[]
  intendedTargetTokens?: number
}

function subjects(opts: RunProbesOptions): Subject[] {
  const out: Subject[] = []
  const split = opts.split ?? 'tuning'
  const available = split === 'test' ? testFixturesSkip() === false : fixturesAvailable()
  if (opts.fixtures ?? available) {
    const byFixture = new Map<string, Probe[]>()
    for (const p of split === 'test' ? TEST_PROBES : FIXTURE_PROBES) byFixture.set(p.fixture, [...(byFixture.get(p.fixture) ?? []), p])
    for (const [name, probes] of byFixture) out.push({ name, source: 'fixture', messages: loadFixture(name), probes })
  }
  if (opts.generated ?? split === 'tuning') {
    for (const c of handoverConversations()) out.push({ name: c.name, source: 'generated', messages: c.messages as unknown[], probes: c.probes, ...(c.intendedTargetTokens ? { intendedTargetTokens: c.intendedTargetTokens } : {}) })
  }
  return opts.only ? out.filter((s) => opts.only!.includes(s.name)) : out
}

/** The conversation in `format`: messages and (Anthropic) system, as a caller would send them. */
function inFormat(openai: readonly CanonicalMessage[], format: MessageFormat): { messages: unknown[]; system?: unknown } {
  return getAdapter(format).serialize(openai)
}

const emptyKinds = (): Record<ProbeKind, Rate> => Object.fromEntries(PROBE_KINDS.map((k) => [k, { passed: 0, total: 0 }])) as Record<ProbeKind, Rate>
const emptyFacets = (): Record<ProbeFacet, Rate> => Object.fromEntries(PROBE_FACETS.map((f) => [f, { passed: 0, total: 0 }])) as Record<ProbeFacet, Rate>
const result = (p: Probe, passed: boolean, missing: string[], violations: string[]): ProbeResult => ({ id: p.id, kind: p.kind, ...(p.facet ? { facet: p.facet } : {}), passed, missing, violations })

async function runOne(s: Subject, budget: number | 'intended', targetTokens: number, tokensBefore: number, strategy: StrategyName[], format: MessageFormat, openai: CanonicalMessage[]): Promise<ProbeRun> {
  const run: ProbeRun = { conversation: s.name, source: s.source, budget, targetTokens, strategy: strategy.join('+'), format, tokensBefore, results: [] }
  const counter = tokenizerCounter('o200k_base')
  let messages: CanonicalMessage[]
  if (format === 'openai') messages = openai
  else {
    // As src/use-cases/compact/compute.ts: parse the caller's messages with its system.
    const wire = inFormat(openai, format)
    messages = parseConversation(wire.messages, { format, ...(wire.system !== undefined ? { system: wire.system } : {}) }).messages
  }
  try {
    const res = await compact({ messages, counter, options: { ...DEFAULT_COMPACT_OPTIONS, format, strategy, targetTokens, thresholdTokens: 0 } })
    run.tokensAfter = res.event.tokensAfter
    if (res.summary) run.summaryText = res.summary.text
    const out = outputText(res.messages)
    for (const p of s.probes) {
      const sc = scoreProbe(p, out)
      run.results.push(result(p, sc.passed, sc.missing, sc.violations))
    }
  } catch (err) {
    if (err instanceof CompactionError) run.error = `422 ${err.code}`
    else {
      // Any other exception is an engine bug (a 500 for the caller): nothing to continue
      // from, so every probe fails. Listed under "Engine errors".
      run.engineError = err instanceof Error ? err.message : String(err)
      for (const p of s.probes) run.results.push(result(p, false, ['(engine error)'], []))
    }
  }
  return run
}

export async function runProbes(opts: RunProbesOptions = {}): Promise<ProbeReport> {
  const budgets = opts.budgets ?? PROBE_BUDGETS
  const strategies = opts.strategies ?? PROBE_STRATEGIES
  const formats = opts.formats ?? PROBE_FORMATS
  const counter = tokenizerCounter('o200k_base')
  const runs: ProbeRun[] = []
  for (const s of subjects(opts)) {
    const openai = parseConversation(s.messages, { format: 'openai' }).messages
    const tokensBefore = countConversation(openai, counter).totalTokens
    const targets: [number | 'intended', number][] = budgets.map((b) => [b, Math.floor((tokensBefore * b) / 100)])
    if (s.intendedTargetTokens) targets.push(['intended', s.intendedTargetTokens])
    for (const [budget, target] of targets) for (const strategy of strategies) for (const format of formats) runs.push(await runOne(s, budget, target, tokensBefore, strategy, format, openai))
  }
  return summarize(runs)
}

const add = (r: Rate, passed: boolean) => {
  r.total++
  if (passed) r.passed++
}

function summarize(runs: ProbeRun[]): ProbeReport {
  const matrix: ProbeReport['matrix'] = {}
  for (const run of runs) {
    for (const source of ['all', run.source]) {
      const key = `${source}|${run.strategy}|${run.budget}|${run.format}`
      const cell = (matrix[key] ??= { overall: { passed: 0, total: 0 }, byKind: emptyKinds(), excluded: 0 })
      if (run.error) {
        cell.excluded++
        continue
      }
      for (const r of run.results) {
        add(cell.overall, r.passed)
        add(cell.byKind[r.kind], r.passed)
      }
    }
  }
  const spread: ProbeReport['spread'] = []
  const failures: ProbeReport['failures'] = []
  const focus = runs.filter((r) => r.strategy === 'mask+rules' && r.budget === 10)
  for (const name of [...new Set(focus.map((r) => r.conversation))]) {
    const sel = focus.filter((r) => r.conversation === name)
    const byFormat: Partial<Record<MessageFormat, Rate | 'excluded'>> = {}
    const rates: number[] = []
    const summaries = new Set<string>()
    for (const r of sel) {
      if (r.error) {
        byFormat[r.format] = 'excluded'
        continue
      }
      const rate = { passed: r.results.filter((x) => x.passed).length, total: r.results.length }
      byFormat[r.format] = rate
      if (rate.total) rates.push(rate.passed / rate.total)
      summaries.add(r.summaryText ?? '')
    }
    spread.push({ conversation: name, byFormat, spread: rates.length ? Math.max(...rates) - Math.min(...rates) : null, summariesDiffer: summaries.size > 1 })
    const openai = sel.find((r) => r.format === 'openai' && !r.error)
    if (openai) {
      const probes = new Map(subjectProbes().map((p) => [p.id, p]))
      for (const r of openai.results) if (!r.passed) failures.push({ conversation: name, format: 'openai', id: r.id, question: probes.get(r.id)?.question ?? '', missing: r.missing, violations: r.violations })
    }
  }
  return { runs, matrix, spread, failures, breakdown: breakdownOf(runs) }
}

/** Rates of the fixture runs per strategy × budget × format: overall, per kind, per facet, per fixture. */
export function breakdownOf(runs: readonly ProbeRun[]): Record<string, BreakdownCell> {
  const out: Record<string, BreakdownCell> = {}
  for (const run of runs) {
    if (run.source !== 'fixture') continue
    const cell = (out[`${run.strategy}|${run.budget}|${run.format}`] ??= { overall: { passed: 0, total: 0 }, byKind: emptyKinds(), byFacet: emptyFacets(), byFixture: {}, excluded: 0 })
    if (run.error) {
      cell.excluded++
      cell.byFixture[run.conversation] = 'excluded'
      continue
    }
    const fixture = (cell.byFixture[run.conversation] = { passed: 0, total: 0 })
    for (const r of run.results) {
      add(cell.overall, r.passed)
      add(cell.byKind[r.kind], r.passed)
      if (r.facet) add(cell.byFacet[r.facet], r.passed)
      add(fixture, r.passed)
    }
  }
  return out
}

let allProbes: Probe[] | undefined
function subjectProbes(): Probe[] {
  return (allProbes ??= [...FIXTURE_PROBES, ...TEST_PROBES, ...handoverConversations().flatMap((c) => c.probes)])
}

const pct = (r: Rate | undefined) => (!r || r.total === 0 ? '—' : `${((r.passed / r.total) * 100).toFixed(0)}% (${r.passed}/${r.total})`)
const pct0 = (r: Rate | undefined) => (!r || r.total === 0 ? '—' : `${((r.passed / r.total) * 100).toFixed(0)}%`)

export function renderMarkdown(rep: ProbeReport, budgets: readonly (number | 'intended')[] = [...PROBE_BUDGETS, 'intended']): string {
  const out: string[] = []
  const sources: ['all' | 'fixture' | 'generated', string][] = [
    ['fixture', 'Fixture sessions (hand-written probes)'],
    ['generated', 'Generated conversations (test/helpers/handover-conversations.ts)'],
  ]
  for (const [source, title] of sources) {
    const runs = rep.runs.filter((r) => r.source === source)
    if (!runs.length) continue
    out.push(`## ${title}\n`)
    out.push(`Probe pass rate per strategy × budget × format (runs answering 422 are excluded; "excl." counts them).\n`)
    out.push(`| strategy | budget | format | overall | recall | artifact | decision | continuation | excl. |`)
    out.push(`|---|---:|---|---:|---:|---:|---:|---:|---:|`)
    const strategies = [...new Set(runs.map((r) => r.strategy))]
    const formats = [...new Set(runs.map((r) => r.format))]
    for (const b of budgets) {
      for (const s of strategies) {
        for (const f of formats) {
          const sel = runs.filter((r) => r.budget === b && r.strategy === s && r.format === f)
          if (!sel.length) continue
          const overall: Rate = { passed: 0, total: 0 }
          const kinds = emptyKinds()
          let excluded = 0
          for (const r of sel) {
            if (r.error) {
              excluded++
              continue
            }
            for (const x of r.results) {
              add(overall, x.passed)
              add(kinds[x.kind], x.passed)
            }
          }
          out.push(`| ${s} | ${b === 'intended' ? 'intended' : `${b}%`} | ${f} | ${pct(overall)} | ${pct0(kinds.recall)} | ${pct0(kinds.artifact)} | ${pct0(kinds.decision)} | ${pct0(kinds.continuation)} | ${excluded}/${sel.length} |`)
        }
      }
    }
    out.push('')
  }
  out.push(`## mask+rules at 10%: pass rate per conversation and format\n`)
  out.push(`Format spread = max − min pass rate across formats; "summaries differ" = the summary texts are not identical across formats.\n`)
  out.push(`| conversation | ${PROBE_FORMATS.join(' | ')} | spread | summaries differ |`)
  out.push(`|---|${PROBE_FORMATS.map(() => '---:|').join('')}---:|---|`)
  const cell = (v: Rate | 'excluded' | undefined) => (v === 'excluded' ? '422' : pct(v))
  for (const s of rep.spread) out.push(`| ${s.conversation} | ${PROBE_FORMATS.map((f) => cell(s.byFormat[f])).join(' | ')} | ${s.spread === null ? '—' : `${(s.spread * 100).toFixed(0)} pts`} | ${s.summariesDiffer ? 'yes' : 'no'} |`)
  out.push('')
  const broken = rep.runs.filter((r) => r.engineError)
  if (broken.length) {
    out.push(`## Engine errors (${broken.length} runs; counted as every probe failed)\n`)
    for (const r of broken) out.push(`- ${r.conversation}, ${r.budget === 'intended' ? 'intended' : `${r.budget}%`} (${r.targetTokens} tokens), ${r.strategy}, ${r.format}: ${r.engineError}`)
    out.push('')
  }
  out.push(`## Failed probes: mask+rules at 10%, OpenAI format (${rep.failures.length})\n`)
  out.push(`| conversation | probe | question | missing / violated |`)
  out.push(`|---|---|---|---|`)
  const esc = (t: string) => t.replaceAll('|', '\\|').replaceAll('\n', ' ')
  for (const f of rep.failures) out.push(`| ${f.conversation} | ${f.id} | ${esc(f.question)} | ${esc([...f.missing.map((m) => `\`${m}\``), ...f.violations].join('; '))} |`)
  return out.join('\n')
}

const budgetLabel = (b: number | 'intended') => (b === 'intended' ? 'intended' : `${b}%`)
const cellKeys = (rep: ProbeReport, budgets: readonly (number | 'intended')[]) => {
  const runs = rep.runs.filter((r) => r.source === 'fixture')
  const strategies = [...new Set(runs.map((r) => r.strategy))]
  const formats = [...new Set(runs.map((r) => r.format))]
  const out: { strategy: string; budget: number | 'intended'; format: MessageFormat; cell: BreakdownCell }[] = []
  for (const b of budgets) for (const s of strategies) for (const f of formats) {
    const cell = rep.breakdown[`${s}|${b}|${f}`]
    if (cell) out.push({ strategy: s, budget: b, format: f, cell })
  }
  return out
}

/** Pass rate per fixture, for every strategy × budget × format (fixture runs only). */
export function renderByFixture(rep: ProbeReport, budgets: readonly (number | 'intended')[] = PROBE_BUDGETS): string {
  const fixtures = [...new Set(rep.runs.filter((r) => r.source === 'fixture').map((r) => r.conversation))]
  if (!fixtures.length) return ''
  const out: string[] = []
  out.push(`Fixtures: ${fixtures.map((f, i) => `F${i + 1} = ${f}`).join('; ')}. "422": the run answered 422 and is excluded.\n`)
  out.push(`| strategy | budget | format | ${fixtures.map((_, i) => `F${i + 1}`).join(' | ')} |`)
  out.push(`|---|---:|---|${fixtures.map(() => '---:|').join('')}`)
  for (const { strategy, budget, format, cell } of cellKeys(rep, budgets)) {
    const cells = fixtures.map((f) => {
      const v = cell.byFixture[f]
      return v === 'excluded' ? '422' : pct(v)
    })
    out.push(`| ${strategy} | ${budgetLabel(budget)} | ${format} | ${cells.join(' | ')} |`)
  }
  return out.join('\n')
}

/** The held-out test split: matrix with kinds and facets, per fixture, format spread, failures. */
export function renderTestSplitMarkdown(rep: ProbeReport, budgets: readonly (number | 'intended')[] = PROBE_BUDGETS): string {
  const out: string[] = []
  const probes = TEST_PROBES
  const count = (pred: (p: Probe) => boolean) => probes.filter(pred).length
  out.push(
    `${probes.length} held-out probes over ${new Set(probes.map((p) => p.fixture)).size} sessions (test/eval/probes/test-split/); kinds: ${PROBE_KINDS.map((k) => `${k} ${count((p) => p.kind === k)}`).join(', ')}; facets: ${PROBE_FACETS.map((f) => `${f} ${count((p) => p.facet === f)}`).join(', ')} (${count((p) => !!p.facet)} with a facet). No engine change is made to pass a test probe.\n`,
  )
  out.push(`## Test split: pass rate per strategy × budget × format\n`)
  out.push(`Runs answering 422 are excluded ("excl." counts them); facet columns count only the probes with that facet.\n`)
  out.push(`| strategy | budget | format | overall | ${PROBE_KINDS.join(' | ')} | ${PROBE_FACETS.join(' | ')} | excl. |`)
  out.push(`|---|---:|---|---:|${PROBE_KINDS.map(() => '---:|').join('')}${PROBE_FACETS.map(() => '---:|').join('')}---:|`)
  const runsPerCell = (s: string, b: number | 'intended', f: MessageFormat) => rep.runs.filter((r) => r.source === 'fixture' && r.strategy === s && r.budget === b && r.format === f).length
  for (const { strategy, budget, format, cell } of cellKeys(rep, budgets)) {
    out.push(
      `| ${strategy} | ${budgetLabel(budget)} | ${format} | ${pct(cell.overall)} | ${PROBE_KINDS.map((k) => pct0(cell.byKind[k])).join(' | ')} | ${PROBE_FACETS.map((f) => pct0(cell.byFacet[f])).join(' | ')} | ${cell.excluded}/${runsPerCell(strategy, budget, format)} |`,
    )
  }
  out.push('')
  out.push(`## Test split: pass rate per fixture\n`)
  out.push(renderByFixture(rep, budgets))
  out.push('')
  out.push(`## Test split, mask+rules at 10%: pass rate per conversation and format\n`)
  out.push(`| conversation | ${PROBE_FORMATS.join(' | ')} | spread | summaries differ |`)
  out.push(`|---|${PROBE_FORMATS.map(() => '---:|').join('')}---:|---|`)
  const cellOf = (v: Rate | 'excluded' | undefined) => (v === 'excluded' ? '422' : pct(v))
  for (const s of rep.spread) out.push(`| ${s.conversation} | ${PROBE_FORMATS.map((f) => cellOf(s.byFormat[f])).join(' | ')} | ${s.spread === null ? '—' : `${(s.spread * 100).toFixed(0)} pts`} | ${s.summariesDiffer ? 'yes' : 'no'} |`)
  out.push('')
  const broken = rep.runs.filter((r) => r.engineError)
  if (broken.length) {
    out.push(`## Test split: engine errors (${broken.length} runs; counted as every probe failed)\n`)
    for (const r of broken) out.push(`- ${r.conversation}, ${budgetLabel(r.budget)} (${r.targetTokens} tokens), ${r.strategy}, ${r.format}: ${r.engineError}`)
    out.push('')
  }
  out.push(`## Test split: failed probes, mask+rules at 10%, OpenAI format (${rep.failures.length})\n`)
  out.push(`| conversation | probe | question | missing / violated |`)
  out.push(`|---|---|---|---|`)
  const esc = (t: string) => t.replaceAll('|', '\\|').replaceAll('\n', ' ')
  for (const f of rep.failures) out.push(`| ${f.conversation} | ${f.id} | ${esc(f.question)} | ${esc([...f.missing.map((m) => `\`${m}\``), ...f.violations].join('; '))} |`)
  return out.join('\n')
}

/** `--split tuning|test|all` (or `--split=…`); default all. */
export function parseSplit(argv: readonly string[]): ProbeSplit[] {
  const i = argv.findIndex((a) => a === '--split' || a.startsWith('--split='))
  if (i < 0) return [...PROBE_SPLITS]
  const v = argv[i]!.includes('=') ? argv[i]!.slice('--split='.length) : argv[i + 1]
  if (v === 'all') return [...PROBE_SPLITS]
  if (v === 'tuning' || v === 'test') return [v]
  throw new Error(`--split must be tuning, test or all (got ${v ?? 'nothing'})`)
}

const jsonRuns = (rep: ProbeReport) => rep.runs.map(({ summaryText: _s, ...r }) => r)

export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  const json = argv.includes('--json')
  const splits = parseSplit(argv)
  const out: Record<string, unknown> = {}
  if (splits.includes('tuning')) {
    const skip = probedFixturesSkip()
    if (skip && !json) console.log(`(${skip}: only the generated conversations are evaluated)\n`)
    const rep = await runProbes()
    if (json) Object.assign(out, { matrix: rep.matrix, spread: rep.spread, failures: rep.failures, runs: jsonRuns(rep), tuning: { breakdown: rep.breakdown } })
    else {
      console.log('# Continuation probes\n')
      console.log(renderMarkdown(rep))
      const byFixture = renderByFixture(rep)
      if (byFixture) console.log(`\n## Tuning split: pass rate per fixture\n\n${byFixture}`)
    }
  }
  if (splits.includes('test')) {
    const skip = testFixturesSkip()
    if (skip) {
      if (json) out.test = { skipped: skip }
      else console.log(`\n# Held-out test split (issue 22)\n\n(${skip}: the test split is not evaluated)`)
    } else {
      const rep = await runProbes({ split: 'test' })
      if (json) out.test = { breakdown: rep.breakdown, spread: rep.spread, failures: rep.failures, runs: jsonRuns(rep) }
      else {
        console.log(`\n# Held-out test split (issue 22)\n`)
        console.log(renderTestSplitMarkdown(rep))
      }
    }
  }
  if (json) console.log(JSON.stringify(out, null, 2))
}

if (import.meta.url === `file://${process.argv[1]}`) await main()
