/**
 * Measures the heuristic token estimator (and chars/4, for comparison) against
 * the exact o200k_base count, and prints a markdown report.
 *
 *   npx tsx test/eval/token-accuracy.ts
 *
 * Generated corpora come from test/eval/token-corpora.ts. Fixture conversations
 * are read at run time from ../shared/fixtures/conversations (relative to the
 * repository; COMPACTD_SHARED_FIXTURES names another fixtures folder) and skipped,
 * with a note saying what is missing, when there are none.
 */
import { pathToFileURL } from 'node:url'
import { countTextTokens } from '../../src/engine/tokens/tokenizer.ts'
import { estimateTextTokens } from '../../src/engine/tokens/heuristic.ts'
import { conversationsSkip } from '../helpers/fixtures.ts'
import { generateCorpora, loadFixtureConversations } from './token-corpora.ts'

/** Per-sample worst errors only consider samples at least this large (exact tokens). */
export const WORST_MIN_TOKENS = 200
/** Targets: aggregate error per class must be >= UNDER_LIMIT and < OVER_LIMIT (percent). */
export const UNDER_LIMIT = -5
export const OVER_LIMIT = 15

export interface ClassResult {
  label: string
  samples: number
  samplesForWorst: number
  exact: number
  heuristic: number
  chars4: number
  /** Signed per-sample error extremes (percent), over samples >= WORST_MIN_TOKENS; NaN if none. */
  worstUnder: number
  worstOver: number
}

const chars4 = (s: string): number => Math.ceil(s.length / 4)

/** Each sample is a list of texts (a message: content + tool-call arguments). */
export function measure(label: string, samples: readonly (readonly string[])[]): ClassResult {
  const r: ClassResult = {
    label,
    samples: samples.length,
    samplesForWorst: 0,
    exact: 0,
    heuristic: 0,
    chars4: 0,
    worstUnder: Number.NaN,
    worstOver: Number.NaN,
  }
  for (const texts of samples) {
    let e = 0
    let h = 0
    for (const t of texts) {
      e += countTextTokens(t, 'o200k_base')
      h += estimateTextTokens(t)
      r.chars4 += chars4(t)
    }
    r.exact += e
    r.heuristic += h
    if (e >= WORST_MIN_TOKENS) {
      r.samplesForWorst++
      const err = ((h - e) / e) * 100
      if (Number.isNaN(r.worstUnder) || err < r.worstUnder) r.worstUnder = err
      if (Number.isNaN(r.worstOver) || err > r.worstOver) r.worstOver = err
    }
  }
  return r
}

export const errPct = (estimate: number, exact: number): number => (exact === 0 ? 0 : ((estimate - exact) / exact) * 100)

const fmtPct = (x: number): string => (Number.isNaN(x) ? 'n/a' : `${x >= 0 ? '+' : ''}${x.toFixed(1)}%`)
const fmtInt = (x: number): string => x.toLocaleString('en-US')

function row(r: ClassResult): string {
  const err = errPct(r.heuristic, r.exact)
  const ok = err >= UNDER_LIMIT && err < OVER_LIMIT ? 'yes' : '**NO**'
  const under = Number.isNaN(r.worstUnder) ? 'n/a' : r.worstUnder < 0 ? fmtPct(r.worstUnder) : 'none'
  const over = Number.isNaN(r.worstOver) ? 'n/a' : r.worstOver > 0 ? fmtPct(r.worstOver) : 'none'
  return `| ${r.label} | ${r.samples} (${r.samplesForWorst}) | ${fmtInt(r.exact)} | ${fmtInt(r.heuristic)} | ${fmtPct(err)} | ${under} | ${over} | ${fmtPct(errPct(r.chars4, r.exact))} | ${ok} |`
}

function total(label: string, rs: readonly ClassResult[]): ClassResult {
  const t: ClassResult = { label, samples: 0, samplesForWorst: 0, exact: 0, heuristic: 0, chars4: 0, worstUnder: Number.NaN, worstOver: Number.NaN }
  for (const r of rs) {
    t.samples += r.samples
    t.samplesForWorst += r.samplesForWorst
    t.exact += r.exact
    t.heuristic += r.heuristic
    t.chars4 += r.chars4
    if (!Number.isNaN(r.worstUnder)) t.worstUnder = Number.isNaN(t.worstUnder) ? r.worstUnder : Math.min(t.worstUnder, r.worstUnder)
    if (!Number.isNaN(r.worstOver)) t.worstOver = Number.isNaN(t.worstOver) ? r.worstOver : Math.max(t.worstOver, r.worstOver)
  }
  t.label = `**${label}**`
  return t
}

/** Seconds to run `fn` over all `texts`, `passes` times. */
function timePasses(texts: readonly string[], fn: (s: string) => number, passes: number): number {
  let sink = 0
  const start = performance.now()
  for (let p = 0; p < passes; p++) for (const t of texts) sink += fn(t)
  const seconds = (performance.now() - start) / 1000
  if (sink === -1) console.log('') // keep the result observable
  return seconds
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

/**
 * Throughput (MB/s) of the heuristic and the exact tokenizer over the same texts.
 * Both get a warm-up pass (the exact tokenizer keeps a merge cache, so it is
 * measured warm), then rounds alternate between the two so that machine load
 * affects both alike; the medians are reported.
 */
function measureThroughput(texts: readonly string[], bytes: number, rounds = 5): { heuristic: number; exact: number } {
  const exact = (s: string): number => countTextTokens(s, 'o200k_base')
  timePasses(texts, estimateTextTokens, 2)
  timePasses(texts, exact, 1)
  const mb = bytes / (1024 * 1024)
  const h: number[] = []
  const e: number[] = []
  for (let r = 0; r < rounds; r++) {
    const heuristicPasses = 5
    h.push((mb * heuristicPasses) / timePasses(texts, estimateTextTokens, heuristicPasses))
    e.push(mb / timePasses(texts, exact, 1))
  }
  return { heuristic: median(h), exact: median(e) }
}

function main(): void {
  const lines: string[] = []
  const date = new Date().toISOString().slice(0, 10)
  lines.push('## Token estimate accuracy vs o200k_base', '')
  lines.push(`Command: \`npx tsx test/eval/token-accuracy.ts\` — ${date}, Node ${process.version}, ${process.platform}-${process.arch}.`, '')
  lines.push(
    `Error = (estimate − exact) / exact over the class total. Samples column: count (count with ≥ ${WORST_MIN_TOKENS} exact tokens, the only ones used for the worst per-sample errors). Target: aggregate error ≥ ${UNDER_LIMIT}% and < +${OVER_LIMIT}%.`,
    '',
  )
  const header = '| Class | Samples | Exact tokens | Heuristic | Heuristic error | Worst under | Worst over | chars/4 error | Target met |'
  const sep = '|---|---:|---:|---:|---:|---:|---:|---:|:---:|'
  lines.push(header, sep)

  const allTexts: string[] = []
  const generated: ClassResult[] = []
  for (const c of generateCorpora()) {
    generated.push(measure(c.label, c.samples.map((s) => [s])))
    allTexts.push(...c.samples)
  }
  for (const r of generated) lines.push(row(r))
  lines.push(row(total('All generated', generated)))

  const fixturesSkip = conversationsSkip()
  const fixtures = fixturesSkip ? undefined : loadFixtureConversations()
  const fixtureResults: ClassResult[] = []
  if (!fixtures) {
    lines.push('', `Fixture conversations skipped: ${fixturesSkip}.`)
  } else {
    lines.push(`| _Fixture conversations (per message: content + tool-call arguments)_ | | | | | | | | |`)
    for (const f of fixtures) {
      const r = measure(f.file.replace(/\.json$/, ''), f.messages)
      fixtureResults.push(r)
      lines.push(row(r))
      for (const m of f.messages) allTexts.push(...m)
    }
    lines.push(row(total('All fixtures', fixtureResults)))
  }

  if (process.argv.includes('--skip-throughput')) {
    console.log(lines.join('\n'))
    return
  }
  // Throughput, measured in this run over the same texts.
  let bytes = 0
  for (const t of allTexts) bytes += Buffer.byteLength(t, 'utf8')
  const { heuristic: heurMBs, exact: exactMBs } = measureThroughput(allTexts, bytes)
  lines.push('')
  lines.push(
    `Throughput over the same ${(bytes / (1024 * 1024)).toFixed(2)} MB (UTF-8) of text (all samples above), single thread, median of 5 alternating rounds after a warm-up pass:`,
    '',
  )
  lines.push('| Method | MB/s |', '|---|---:|')
  lines.push(`| heuristic (estimateTextTokens) | ${heurMBs.toFixed(1)} |`)
  lines.push(`| exact o200k_base (gpt-tokenizer countTokens) | ${exactMBs.toFixed(1)} |`)
  lines.push(`| ratio heuristic / exact | ${(heurMBs / exactMBs).toFixed(1)}× |`)
  console.log(lines.join('\n'))
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main()
