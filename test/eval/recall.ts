/**
 * Recall from the archive (issue 21): what compaction drops is archived, so can an agent
 * get a probe's answer back by searching for it?
 *
 *   npx tsx test/eval/recall.ts [--json] [--postgres]     (also: npm run eval -- recall)
 *   options: --only=<fixture>[,…]  --strategy=<a+b>[,…]  --format=<f>[,…]  --split=test (the held-out probes)
 *
 * For every probed fixture session (test/eval/probes/), at 10% of its tokens (exact o200k
 * count of the OpenAI messages, as probes.ts), for the strategies of probes.ts and in every
 * format (converted as probes.ts does), the conversation goes through the real service:
 * build() (test/helpers/build.ts; PGlite in memory, or PostgreSQL with --postgres), POST
 * /compact with `model: gpt-4o`, the target in tokens and a sessionId unique to the run,
 * so the archive holds exactly what this compaction dropped. Then, per probe:
 *
 * - in output: the probe passes on the compacted output (scoreProbe, as probes.ts); and,
 *   for comparison, on the output of the same request without a sessionId (no archive, so
 *   no references in placeholders, log lines or the summary);
 * - by search: its question, verbatim, is the query of GET /sessions/{id}/search?limit=3;
 *   each hit is read back with GET /sessions/{id}/archive/{ref} and the probe is scored on
 *   the concatenated text of the originals (same scorer);
 * - recoverable = in output OR by search.
 *
 * Baseline: a plain substring grep over the same archived originals (read from the
 * archived_messages rows of the session). The question's words, minus the search's
 * stopwords and words under 3 characters, each get a document frequency (archived
 * messages containing it, case-insensitive substring); the 2 rarest that occur at all
 * are the grep's words, and the top 3 messages by number of those words they contain
 * (then by occurrences, then oldest first) are read back through the same route and
 * scored the same way. grep-recoverable = in output OR by grep.
 *
 * A run the service answers with 422 (budget unreachable) is reported and excluded.
 * Nothing here tunes the search: the probes are the project's tuning set, asked as is.
 */
import { sql } from 'kysely'
import type { FastifyInstance } from 'fastify'
import type { StrategyName } from '../../src/engine/compaction/types.ts'
import { QUERY_STOPWORDS } from '../../src/engine/archive/search-text.ts'
import { getAdapter, parseConversation, type CanonicalMessage, type MessageFormat } from '../../src/engine/messages/index.ts'
import { countConversation, tokenizerCounter } from '../../src/engine/tokens/count.ts'
import { buildTestApp } from '../helpers/build.ts'
import type { Backend, TestDatabase } from '../helpers/databases.ts'
import { PROBE_FORMATS, PROBE_STRATEGIES } from './probes.ts'
import { TEST_PROBES } from './probes/test-split/index.ts'
import { FIXTURE_PROBES, loadFixture, normText, outputText, PROBE_KINDS, probedFixturesSkip, scoreProbe, searchText, type OutputText, type Probe, type ProbeKind } from './probes/index.ts'

export const RECALL_BUDGET = 10
export const RECALL_TOP_K = 3
/** How many of the question's rarest words the grep baseline looks for. */
export const GREP_WORDS = 2

export interface RecallProbeResult {
  id: string
  kind: ProbeKind
  /** The answers are in the compacted output. */
  inOutput: boolean
  /** The answers are in the output of the same compaction without a sessionId (nothing archived, no references printed). */
  inOutputNoArchive: boolean
  /** The answers are in the originals of the top-3 search hits. */
  bySearch: boolean
  /** The answers are in the originals of the grep baseline's top 3. */
  byGrep: boolean
  /** inOutput || bySearch. */
  recoverable: boolean
  /** inOutput || byGrep. */
  grepRecoverable: boolean
  /** The search's terms (after stopwords and too-common words, rarest first). */
  terms: string[]
  /** Refs of the top-3 hits. */
  hits: string[]
  /** The grep's words, rarest first, and the refs it picked. */
  grepWords: string[]
  grepRefs: string[]
  /** What the search's originals miss (empty when bySearch). */
  missing: string[]
  /** Milliseconds of the search request (inject, in process). */
  searchMs: number
}

export interface RecallRun {
  conversation: string
  strategy: string
  format: MessageFormat
  targetTokens: number
  tokensBefore: number
  tokensAfter?: number
  /** Messages this compaction archived. */
  archived?: number
  /** `422 budget_unreachable` etc.: excluded from the rates. */
  error?: string
  results: RecallProbeResult[]
}

export interface Rate {
  passed: number
  total: number
}

/** The four measures of one cell. */
export interface RecallCell {
  /** Output of the same compaction without the archive (no sessionId). */
  outputNoArchive: Rate
  output: Rate
  recoverable: Rate
  search: Rate
  grep: Rate
  grepRecoverable: Rate
  byKind: Record<ProbeKind, { output: Rate; recoverable: Rate; grepRecoverable: Rate }>
  excluded: number
}

export interface RecallReport {
  backend: Backend
  budget: number
  topK: number
  runs: RecallRun[]
  /** key `${strategy}|${format}`. */
  matrix: Record<string, RecallCell>
  /** key `${conversation}|${strategy}|${format}`. */
  byFixture: Record<string, RecallCell>
}

export interface RunRecallOptions {
  backend?: Backend
  strategies?: readonly StrategyName[][]
  formats?: readonly MessageFormat[]
  /** Only these fixtures. */
  only?: readonly string[]
  /** Called after each run (progress). */
  onRun?: (run: RecallRun) => void
}

const emptyRate = (): Rate => ({ passed: 0, total: 0 })
const emptyCell = (): RecallCell => ({
  outputNoArchive: emptyRate(),
  output: emptyRate(),
  recoverable: emptyRate(),
  search: emptyRate(),
  grep: emptyRate(),
  grepRecoverable: emptyRate(),
  byKind: Object.fromEntries(PROBE_KINDS.map((k) => [k, { output: emptyRate(), recoverable: emptyRate(), grepRecoverable: emptyRate() }])) as RecallCell['byKind'],
  excluded: 0,
})
const add = (r: Rate, passed: boolean) => {
  r.total++
  if (passed) r.passed++
}

/** The probe split asked for: the tuning probes (default) or the held-out test split (issue 22). */
let SPLIT: readonly Probe[] = FIXTURE_PROBES

/** The probed fixtures and their probes, in the split's order. */
function probedFixtures(only?: readonly string[]): [string, Probe[]][] {
  const by = new Map<string, Probe[]>()
  for (const p of SPLIT) by.set(p.fixture, [...(by.get(p.fixture) ?? []), p])
  return [...by].filter(([name]) => !only || only.includes(name))
}

/** Text of messages in `format` (read back from the archive) as the scorer reads it. */
export function messagesText(messages: readonly unknown[], format: MessageFormat): string {
  try {
    return parseConversation([...messages], { format, allowDuplicateCallIds: true }).messages.map(searchText).join('\n')
  } catch {
    // One at a time (an orphan in a pair should not hide its neighbour), then the raw strings.
    return messages
      .map((m) => {
        try {
          return parseConversation([m], { format, allowDuplicateCallIds: true }).messages.map(searchText).join('\n')
        } catch {
          return JSON.stringify(m)
        }
      })
      .join('\n')
  }
}

const asOutput = (text: string): OutputText => ({ search: normText(text), display: text })

/** The question's words for the grep baseline: lower case, edge punctuation trimmed, no stopwords, at least 3 characters. */
export function grepWords(question: string): string[] {
  const words = question
    .toLowerCase()
    .split(/[\s,;?!"'`()[\]{}<>]+/)
    .map((w) => w.replace(/^[.:\-/]+|[.:\-/]+$/g, ''))
    .filter((w) => w.length >= 3 && !QUERY_STOPWORDS.has(w))
  return [...new Set(words)]
}

export interface GrepDoc {
  ref: string
  position: number
  /** Lower-case text. */
  text: string
}

/** The grep baseline: the `n` rarest words that occur, and the top `k` documents by words matched, then occurrences, then position. */
export function grepTop(question: string, docs: readonly GrepDoc[], k = RECALL_TOP_K, n = GREP_WORDS): { words: string[]; refs: string[] } {
  const df = (w: string) => docs.reduce((c, d) => c + (d.text.includes(w) ? 1 : 0), 0)
  const words = grepWords(question)
    .map((w, i) => ({ w, i, df: df(w) }))
    .filter((x) => x.df > 0)
    .sort((a, b) => a.df - b.df || a.i - b.i)
    .slice(0, n)
    .map((x) => x.w)
  if (words.length === 0) return { words, refs: [] }
  const occurrences = (text: string, w: string) => text.split(w).length - 1
  const scored = docs
    .map((d) => ({ d, matched: words.filter((w) => d.text.includes(w)).length, occ: words.reduce((c, w) => c + occurrences(d.text, w), 0) }))
    .filter((s) => s.matched > 0)
    .sort((a, b) => b.matched - a.matched || b.occ - a.occ || a.d.position - b.d.position)
  return { words, refs: scored.slice(0, k).map((s) => s.d.ref) }
}

interface Service {
  app: FastifyInstance
  database: TestDatabase
  close(): Promise<void>
}

async function service(backend: Backend): Promise<Service> {
  const teardowns: (() => unknown)[] = []
  const { app, database } = await buildTestApp({ teardown: (fn) => teardowns.push(fn) }, { backend, config: { RATE_LIMIT_MAX: 1_000_000_000, BODY_LIMIT_BYTES: 50 * 1024 * 1024 } })
  return { app, database, close: async () => void (await Promise.all(teardowns.map((fn) => fn()))) }
}

let runCounter = 0

async function originalsText(app: FastifyInstance, sessionId: string, refs: readonly string[]): Promise<string> {
  const texts: string[] = []
  for (const ref of refs) {
    const res = await app.inject({ method: 'GET', url: `/sessions/${sessionId}/archive/${ref}` })
    if (res.statusCode !== 200) throw new Error(`GET /sessions/${sessionId}/archive/${ref}: ${res.statusCode} ${res.body.slice(0, 300)}`)
    const body = res.json() as { messages: unknown[]; format: MessageFormat }
    texts.push(messagesText(body.messages, body.format))
  }
  return texts.join('\n')
}

async function runOne(svc: Service, name: string, probes: readonly Probe[], openai: readonly CanonicalMessage[], fixture: unknown[], tokensBefore: number, strategy: StrategyName[], format: MessageFormat): Promise<RecallRun> {
  const targetTokens = Math.floor((tokensBefore * RECALL_BUDGET) / 100)
  const run: RecallRun = { conversation: name, strategy: strategy.join('+'), format, targetTokens, tokensBefore, results: [] }
  const wire = format === 'openai' ? { messages: fixture } : getAdapter(format).serialize(openai)
  const sessionId = `recall-${process.pid}-${++runCounter}-${format}-${strategy.join('-')}`
  const payload = { messages: wire.messages, ...(wire.system !== undefined ? { system: wire.system } : {}), format, model: 'gpt-4o', strategy, targetTokens }
  const res = await svc.app.inject({ method: 'POST', url: '/compact', payload: { ...payload, sessionId } })
  if (res.statusCode === 422) {
    run.error = `422 ${(res.json() as { error?: string }).error ?? ''}`.trim()
    return run
  }
  if (res.statusCode !== 200) throw new Error(`POST /compact (${name}, ${run.strategy}, ${format}): ${res.statusCode} ${res.body.slice(0, 500)}`)
  const out = res.json() as { messages: unknown[]; system?: unknown; event: { tokensAfter: number }; archive?: { archived: number; status: string } }
  run.tokensAfter = out.event.tokensAfter
  run.archived = out.archive?.archived ?? 0
  const textOf = (o: { messages: unknown[]; system?: unknown }) => outputText(parseConversation(o.messages, { format, ...(o.system !== undefined ? { system: o.system } : {}) }).messages)
  const output = textOf(out)
  // The same compaction without a sessionId: nothing archived, no references in the output.
  const plain = await svc.app.inject({ method: 'POST', url: '/compact', payload })
  if (plain.statusCode !== 200) throw new Error(`POST /compact without sessionId (${name}, ${run.strategy}, ${format}): ${plain.statusCode} ${plain.body.slice(0, 500)}`)
  const outputNoArchive = textOf(plain.json() as { messages: unknown[]; system?: unknown })

  // The archived originals of this session, for the grep baseline.
  const rows = await sql<{ ref: string; position: number; raw: string; format: MessageFormat }>`
    select ref, position, raw, format from archived_messages where session_id = ${sessionId} order by position`.execute(svc.database.db)
  const docs: GrepDoc[] = rows.rows.map((r) => ({ ref: r.ref, position: r.position, text: normText(messagesText([JSON.parse(r.raw)], r.format)) }))

  for (const p of probes) {
    const inOutput = scoreProbe(p, output).passed
    const inOutputNoArchive = scoreProbe(p, outputNoArchive).passed
    const t0 = performance.now()
    const found = await svc.app.inject({ method: 'GET', url: `/sessions/${sessionId}/search?q=${encodeURIComponent(p.question)}&limit=${RECALL_TOP_K}` })
    const searchMs = performance.now() - t0
    if (found.statusCode !== 200) throw new Error(`search (${name}, ${p.id}): ${found.statusCode} ${found.body.slice(0, 300)}`)
    const { hits, terms } = found.json() as { hits: { ref: string }[]; terms: string[] }
    const refs = hits.map((h) => h.ref)
    const searched = scoreProbe(p, asOutput(await originalsText(svc.app, sessionId, refs)))
    const grep = grepTop(p.question, docs)
    const grepped = scoreProbe(p, asOutput(await originalsText(svc.app, sessionId, grep.refs)))
    run.results.push({
      id: p.id,
      kind: p.kind,
      inOutput,
      inOutputNoArchive,
      bySearch: searched.passed,
      byGrep: grepped.passed,
      recoverable: inOutput || searched.passed,
      grepRecoverable: inOutput || grepped.passed,
      terms,
      hits: refs,
      grepWords: grep.words,
      grepRefs: grep.refs,
      missing: searched.missing,
      searchMs: Math.round(searchMs * 10) / 10,
    })
  }
  return run
}

export async function runRecall(opts: RunRecallOptions = {}): Promise<RecallReport> {
  const backend = opts.backend ?? 'pglite'
  const strategies = opts.strategies ?? PROBE_STRATEGIES
  const formats = opts.formats ?? PROBE_FORMATS
  const counter = tokenizerCounter('o200k_base')
  const svc = await service(backend)
  const runs: RecallRun[] = []
  try {
    for (const [name, probes] of probedFixtures(opts.only)) {
      const fixture = loadFixture(name)
      const openai = parseConversation(fixture, { format: 'openai' }).messages
      const tokensBefore = countConversation(openai, counter).totalTokens
      for (const strategy of strategies) {
        for (const format of formats) {
          const run = await runOne(svc, name, probes, openai, fixture, tokensBefore, strategy, format)
          runs.push(run)
          opts.onRun?.(run)
        }
      }
    }
  } finally {
    await svc.close()
  }
  return summarize(backend, runs)
}

function tally(cell: RecallCell, run: RecallRun): void {
  if (run.error) {
    cell.excluded++
    return
  }
  for (const r of run.results) {
    add(cell.outputNoArchive, r.inOutputNoArchive)
    add(cell.output, r.inOutput)
    add(cell.recoverable, r.recoverable)
    add(cell.search, r.bySearch)
    add(cell.grep, r.byGrep)
    add(cell.grepRecoverable, r.grepRecoverable)
    add(cell.byKind[r.kind].output, r.inOutput)
    add(cell.byKind[r.kind].recoverable, r.recoverable)
    add(cell.byKind[r.kind].grepRecoverable, r.grepRecoverable)
  }
}

function summarize(backend: Backend, runs: RecallRun[]): RecallReport {
  const matrix: Record<string, RecallCell> = {}
  const byFixture: Record<string, RecallCell> = {}
  for (const run of runs) {
    tally((matrix[`${run.strategy}|${run.format}`] ??= emptyCell()), run)
    tally((byFixture[`${run.conversation}|${run.strategy}|${run.format}`] ??= emptyCell()), run)
  }
  return { backend, budget: RECALL_BUDGET, topK: RECALL_TOP_K, runs, matrix, byFixture }
}

const share = (r: Rate) => (r.total === 0 ? NaN : r.passed / r.total)
const pct = (r: Rate | undefined) => (!r || r.total === 0 ? '—' : `${((r.passed / r.total) * 100).toFixed(0)}% (${r.passed}/${r.total})`)
const pct0 = (r: Rate | undefined) => (!r || r.total === 0 ? '—' : `${((r.passed / r.total) * 100).toFixed(0)}%`)
const merge = (cells: RecallCell[]): RecallCell => {
  const out = emptyCell()
  const sum = (a: Rate, b: Rate) => {
    a.passed += b.passed
    a.total += b.total
  }
  for (const c of cells) {
    for (const k of ['outputNoArchive', 'output', 'recoverable', 'search', 'grep', 'grepRecoverable'] as const) sum(out[k], c[k])
    for (const kind of PROBE_KINDS) for (const k of ['output', 'recoverable', 'grepRecoverable'] as const) sum(out.byKind[kind][k], c.byKind[kind][k])
    out.excluded += c.excluded
  }
  return out
}

export function renderMarkdown(rep: RecallReport): string {
  const out: string[] = []
  const strategies = [...new Set(rep.runs.map((r) => r.strategy))]
  const formats = [...new Set(rep.runs.map((r) => r.format))]
  const fixtures = [...new Set(rep.runs.map((r) => r.conversation))]
  const esc = (t: string) => t.replaceAll('|', '\\|').replaceAll('\n', ' ')

  out.push(`## Per strategy and format, at ${rep.budget}% (${rep.backend})\n`)
  out.push(`"output" = the answers are in the compacted output (with a sessionId, so with references); "no archive" = the output of the same request without a sessionId; "search" = in the originals of the top ${rep.topK} hits for the question asked verbatim; "recoverable" = output or search; "grep" columns: the same with the substring-grep baseline instead of the search. Runs answering 422 are excluded ("excl.").\n`)
  out.push(`| strategy | format | output, no archive | output | search alone | **recoverable** | grep alone | output + grep | excl. |`)
  out.push(`|---|---|---:|---:|---:|---:|---:|---:|---:|`)
  for (const s of strategies) {
    for (const f of formats) {
      const c = rep.matrix[`${s}|${f}`]
      if (!c) continue
      out.push(`| ${s} | ${f} | ${pct(c.outputNoArchive)} | ${pct(c.output)} | ${pct(c.search)} | **${pct(c.recoverable)}** | ${pct(c.grep)} | ${pct(c.grepRecoverable)} | ${c.excluded} |`)
    }
  }
  out.push('')

  out.push(`## Per kind, at ${rep.budget}%: output alone → output + top-${rep.topK} search (output + grep), all formats together\n`)
  out.push(`| strategy | ${PROBE_KINDS.join(' | ')} |`)
  out.push(`|---|${PROBE_KINDS.map(() => '---:|').join('')}`)
  for (const s of strategies) {
    const c = merge(formats.map((f) => rep.matrix[`${s}|${f}`]).filter((x): x is RecallCell => !!x))
    out.push(`| ${s} | ${PROBE_KINDS.map((k) => `${pct0(c.byKind[k].output)} → **${pct0(c.byKind[k].recoverable)}** (${pct0(c.byKind[k].grepRecoverable)})`).join(' | ')} |`)
  }
  out.push('')

  out.push(`## Per fixture, at ${rep.budget}%: recoverable (output + search) per format, and the spread across formats\n`)
  out.push(`Spread = max − min recoverable share across formats; "422" = the run was excluded. Last columns: the same fixture with output alone and with output + grep (all formats together).\n`)
  out.push(`| fixture | strategy | ${formats.join(' | ')} | spread | output alone | output + grep |`)
  out.push(`|---|---|${formats.map(() => '---:|').join('')}---:|---:|---:|`)
  for (const fx of fixtures) {
    for (const s of strategies) {
      const cells = formats.map((f) => rep.byFixture[`${fx}|${s}|${f}`])
      if (cells.every((c) => !c)) continue
      const shares = cells.filter((c): c is RecallCell => !!c && c.recoverable.total > 0).map((c) => share(c.recoverable))
      const spread = shares.length ? `${((Math.max(...shares) - Math.min(...shares)) * 100).toFixed(0)} pts` : '—'
      const all = merge(cells.filter((c): c is RecallCell => !!c))
      out.push(`| ${fx} | ${s} | ${cells.map((c) => (!c ? '—' : c.excluded ? '422' : pct(c.recoverable))).join(' | ')} | ${spread} | ${pct0(all.output)} | ${pct0(all.grepRecoverable)} |`)
    }
  }
  out.push('')

  const focusStrategy = strategies.includes('mask+rules') ? 'mask+rules' : strategies[0]!
  const focusFormat = formats.includes('openai') ? 'openai' : formats[0]!
  const focus = rep.runs.filter((r) => r.strategy === focusStrategy && r.format === focusFormat && !r.error)
  const probes = new Map(SPLIT.map((p) => [p.id, p]))
  const lost = focus.flatMap((r) => r.results.filter((x) => !x.recoverable).map((x) => ({ run: r, x })))
  out.push(`## Not recoverable: ${focusStrategy}, ${rep.budget}%, ${focusFormat} (${lost.length})\n`)
  out.push(`| fixture | probe | question | missing | search terms | grep words → found |`)
  out.push(`|---|---|---|---|---|---|`)
  for (const { run, x } of lost) {
    out.push(`| ${run.conversation} | ${x.id} | ${esc(probes.get(x.id)?.question ?? '')} | ${esc(x.missing.map((m) => `\`${m}\``).join('; '))} | ${esc(x.terms.join(' '))} | ${esc(x.grepWords.join(' '))} → ${x.byGrep ? 'yes' : 'no'} |`)
  }
  out.push('')

  const ms = rep.runs.flatMap((r) => r.results.map((x) => x.searchMs)).sort((a, b) => a - b)
  if (ms.length) out.push(`Search requests (in process, app.inject): ${ms.length}, p50 ${ms[Math.floor(ms.length / 2)]!.toFixed(1)} ms, p99 ${ms[Math.min(ms.length - 1, Math.floor(ms.length * 0.99))]!.toFixed(1)} ms.`)
  return out.join('\n')
}

function listArg(argv: readonly string[], name: string): string[] | undefined {
  const a = argv.find((x) => x.startsWith(`--${name}=`))
  return a ? a.slice(name.length + 3).split(',').filter(Boolean) : undefined
}

export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  const json = argv.includes('--json')
  const skip = probedFixturesSkip()
  if (skip) {
    console.log(`${skip}: nothing to evaluate (the recall eval needs the probed fixture sessions)`)
    return
  }
  const only = listArg(argv, 'only')
  if (argv.includes('--split=test')) SPLIT = TEST_PROBES
  const strategies = listArg(argv, 'strategy')?.map((s) => s.split('+') as StrategyName[])
  const formats = listArg(argv, 'format') as MessageFormat[] | undefined
  const backend: Backend = argv.includes('--postgres') ? 'postgres' : 'pglite'
  const started = performance.now()
  const rep = await runRecall({
    backend,
    ...(only ? { only } : {}),
    ...(strategies ? { strategies } : {}),
    ...(formats ? { formats } : {}),
    onRun: (r) => {
      if (json) return
      const rec = r.results.filter((x) => x.recoverable).length
      process.stderr.write(`${r.conversation} ${r.strategy} ${r.format}: ${r.error ?? `${rec}/${r.results.length} recoverable, ${r.archived} archived`}\n`)
    },
  })
  if (json) {
    console.log(JSON.stringify({ backend: rep.backend, budget: rep.budget, topK: rep.topK, matrix: rep.matrix, byFixture: rep.byFixture, runs: rep.runs }, null, 2))
    return
  }
  console.log(`# Recall from the archive (${rep.runs.length} compactions, ${((performance.now() - started) / 1000).toFixed(0)} s)\n`)
  console.log(renderMarkdown(rep))
}

if (import.meta.url === `file://${process.argv[1]}`) await main()
