/**
 * npx tsx test/eval/rolling-retention.ts [--json] — the rolling session summary's
 * ARTIFACT RETENTION (issue 22), measured the way docs/quality.md measures /compact's.
 *
 * Each fixture conversation is replayed into a session as the service would see it, with
 * the service's default settings (src/sessions/repository/settings.ts defaultSettings():
 * windowMessages 20, windowTokens 16,000, summaryBudget 10,000, batchSize 4) and its
 * default model's counter (testConfig(): DEFAULT_MODEL):
 *   - appends: one POST per turn (a user message; or an assistant message with the tool
 *     results that follow it), each message counted by messageTokens() as append.ts does,
 *     the window evicted by planWindowEviction() (system messages stay), and an update
 *     queued when the evicted, unfolded messages make at least batchSize exchanges
 *     (sessionExchanges(), as append.ts counts them);
 *   - the worker keeps up: a queued update runs right after its append and folds every
 *     evicted, unfolded message, by computeRulesUpdate() — the very function the worker's
 *     compute task runs (src/use-cases/compute.ts 'summary'): parseSummary() of the stored
 *     version, sessionExchanges() of the evicted rows, updateSummary() under the budget;
 *   - at the end, evicted messages still short of a batch are folded by one more update,
 *     as POST /sessions/:id/summary/refresh would do (reported as `pending`).
 * The text measured is what GET /sessions/:id/summary returns as `text` and GET /context
 * sends the model: displayText() of the stored content (without the item comments).
 * Facts are those of ALL evicted messages, by factsOf() (test/eval/quality.ts); a fact
 * survives when survives() finds it in that text (whitespace collapsed).
 * Fixtures are read from ../shared (or COMPACTD_SHARED_FIXTURES) and never copied here.
 * ROLLING_DUMP=<dir> writes each final summary there; ROLLING_LOST_ALL=1 lists every lost
 * fact, not the first 8 per fixture.
 */
import fs from 'node:fs'
import path from 'node:path'
import { testConfig } from '../../src/config.ts'
import { parseConversation } from '../../src/engine/messages/index.ts'
import { planWindowEviction, sessionExchanges } from '../../src/engine/sessions/index.ts'
import { messageTokens } from '../../src/engine/tokens/count.ts'
import { defaultSettings, isSystemRole, toCanonical, type StoredMessage } from '../../src/sessions/repository.ts'
import { defaultCounter, modelFor } from '../../src/use-cases/model-budget.ts'
import { computeRulesUpdate } from '../../src/use-cases/sessions/rules-update.ts'
import { displayText } from '../../src/use-cases/sessions/summary-cache.ts'
import { conversationsSkip, fixtureConversation, fixtureFiles } from '../helpers/fixtures.ts'
import { factsOf, survives, type FactKind } from './quality.ts'

export const FACT_KINDS: FactKind[] = ['path', 'command', 'exit', 'error', 'request']

export interface RollingRow {
  fixture: string
  messages: number
  /** Messages evicted from the window over the whole replay. */
  evicted: number
  /** Background updates that ran (batches), and whether a final refresh fold was needed. */
  updates: number
  /** Evicted messages still short of a batch at the end, folded by the final refresh. */
  pending: number
  /** Tokens of the final stored summary, the most any version had, and the budget. */
  tokens: number
  maxTokens: number
  budget: number
  emergencyTruncated: number
  facts: number
  kept: number
  /** The same facts found in the stored `content` (with the item comments). */
  keptInContent: number
  byKind: Record<FactKind, [number, number]>
  /** Facts lost, for reading (first few). */
  lost: string[]
}

const norm = (s: string) => s.replace(/\s+/g, ' ').trim()
const BASE_MS = Date.parse('2026-06-12T12:00:00Z')
const STEP_MS = 30_000

/** One POST per turn: a user/system message alone, or an assistant message with the tool results after it. */
function turns(raw: Record<string, unknown>[]): number[][] {
  const out: number[][] = []
  raw.forEach((m, i) => {
    if (m.role === 'tool' && out.length > 0) out.at(-1)!.push(i)
    else out.push([i])
  })
  return out
}

/** The replay of one fixture; undefined when its messages never overflow the window. */
export function measure(fixture: string, raw: Record<string, unknown>[]): RollingRow | undefined {
  const config = testConfig()
  const settings = defaultSettings()
  const format = 'openai' as const
  const counter = defaultCounter(modelFor(config, settings.model))
  const all = parseConversation(raw, { format }).messages

  type Row = StoredMessage & { index: number }
  const window: Row[] = []
  let evicted: Row[] = [] // evicted, not yet folded
  const evictedIdx = new Set<number>()
  let summary: { content: string } | undefined
  let clock = BASE_MS
  let latestAt = 0
  let seq = 0
  let updates = 0
  let maxTokens = 0
  let emergencyTruncated = 0
  let tokens = 0

  const fold = () => {
    const res = computeRulesUpdate(config, { settings, summary, evicted, now: clock, activityAt: latestAt })
    updates++
    summary = { content: res.text }
    tokens = res.tokens
    maxTokens = Math.max(maxTokens, res.tokens)
    if (res.emergencyTruncated) emergencyTruncated++
    evicted = []
  }

  for (const turn of turns(raw)) {
    clock += STEP_MS
    const parsed = parseConversation(turn.map((i) => raw[i]), { format }).messages
    if (parsed.length !== turn.length) throw new Error(`${fixture}: turn ${turn.join(',')} parsed into ${parsed.length} messages`)
    for (const [k, m] of parsed.entries()) {
      const at = m.timestamp ? Date.parse(m.timestamp) : clock
      clock = Math.max(clock, at)
      latestAt = Math.max(latestAt, at)
      window.push({ seq: ++seq, raw: raw[turn[k]!], role: m.role, tokens: messageTokens(m, counter), messageAt: new Date(at), status: 'window', index: turn[k]! })
    }
    // append.ts: the window without system messages, evicted in whole units.
    const live = window.filter((r) => !isSystemRole(r.role))
    const plan = planWindowEviction(toCanonical(live, format), live.map((r) => r.tokens), settings)
    const out = live.slice(0, plan.evicted)
    if (out.length === 0) continue
    const gone = new Set(out.map((r) => r.seq))
    for (let i = window.length - 1; i >= 0; i--) if (gone.has(window[i]!.seq)) window.splice(i, 1)
    for (const r of out) {
      evicted.push({ ...r, status: 'evicted' })
      evictedIdx.add(r.index)
    }
    // An update is queued once the unfolded evicted messages make batchSize exchanges; the worker runs it.
    if (sessionExchanges(toCanonical(evicted, format)).length >= settings.batchSize) fold()
  }
  if (evictedIdx.size === 0) return undefined
  const pending = evicted.length
  if (pending > 0) fold() // POST /summary/refresh: whatever is evicted, folded now.

  const content = summary!.content
  const text = displayText(content)
  // ROLLING_DUMP=<dir>: each fixture's final summary as the model reads it, to see what fills the budget.
  if (process.env.ROLLING_DUMP) fs.writeFileSync(path.join(process.env.ROLLING_DUMP, `${fixture}.md`), text)
  const lines = (t: string) => t.split('\n').map(norm)
  const outText = norm(text)
  const outLines = lines(text)
  const contentText = norm(content)
  const contentLines = lines(content)
  const facts = factsOf(all, evictedIdx)
  const row: RollingRow = {
    fixture,
    messages: raw.length,
    evicted: evictedIdx.size,
    updates,
    pending,
    tokens,
    maxTokens,
    budget: settings.summaryBudget,
    emergencyTruncated,
    facts: 0,
    kept: 0,
    keptInContent: 0,
    byKind: { path: [0, 0], command: [0, 0], exit: [0, 0], error: [0, 0], request: [0, 0] },
    lost: [],
  }
  for (const f of facts) {
    const fn = { ...f, needles: f.needles.map(norm) }
    const ok = survives(fn, outText, outLines)
    row.facts++
    row.byKind[f.kind][1]++
    if (ok) {
      row.kept++
      row.byKind[f.kind][0]++
    } else if (row.lost.length < (process.env.ROLLING_LOST_ALL ? Infinity : 8)) row.lost.push(`${f.kind}: ${fn.needles.join(' … ')}`)
    if (survives(fn, contentText, contentLines)) row.keptInContent++
  }
  return row
}

export interface RollingReport {
  rows: RollingRow[]
  /** Fixtures left out: their messages never overflow the window. */
  neverEvicted: string[]
  aggregate: { facts: number; kept: number; keptInContent: number; byKind: Record<FactKind, [number, number]> }
}

export function measureAll(files: readonly string[] = fixtureFiles()): RollingReport {
  const rows: RollingRow[] = []
  const neverEvicted: string[] = []
  for (const file of files) {
    const name = file.replace(/\.json$/, '')
    const row = measure(name, fixtureConversation(file))
    if (row) rows.push(row)
    else neverEvicted.push(name)
  }
  const byKind = Object.fromEntries(FACT_KINDS.map((k) => [k, [rows.reduce((n, r) => n + r.byKind[k][0], 0), rows.reduce((n, r) => n + r.byKind[k][1], 0)]])) as Record<FactKind, [number, number]>
  const aggregate = { facts: rows.reduce((n, r) => n + r.facts, 0), kept: rows.reduce((n, r) => n + r.kept, 0), keptInContent: rows.reduce((n, r) => n + r.keptInContent, 0), byKind }
  return { rows, neverEvicted, aggregate }
}

const pct = (a: number, b: number) => (b === 0 ? '—' : `${((a / b) * 100).toFixed(0)}%`)
const frac = ([a, b]: [number, number]) => (b === 0 ? '—' : `${pct(a, b)} (${a}/${b})`)

export function main(args: string[] = process.argv.slice(2)): void {
  const skip = conversationsSkip()
  if (skip) {
    console.log(`${skip}: nothing to measure`)
    return
  }
  const report = measureAll()
  if (args.includes('--json')) {
    console.log(JSON.stringify(report, null, 2))
    return
  }
  const s = defaultSettings()
  console.log(`Rolling summary retention: window ${s.windowMessages} messages / ${s.windowTokens} tokens, batch ${s.batchSize} exchanges, budget ${s.summaryBudget} tokens, rules mode\n`)
  console.log('| fixture | messages | evicted | updates | pending | summary tokens / budget | retention | paths | commands | exit codes | errors | requests |')
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
  for (const r of report.rows) {
    const k = r.byKind
    console.log(`| ${r.fixture} | ${r.messages} | ${r.evicted} | ${r.updates} | ${r.pending} | ${r.tokens} / ${r.budget} (max ${r.maxTokens}) | ${frac([r.kept, r.facts])} | ${frac(k.path)} | ${frac(k.command)} | ${frac(k.exit)} | ${frac(k.error)} | ${frac(k.request)} |`)
  }
  const a = report.aggregate
  console.log(`| **all** | | ${report.rows.reduce((n, r) => n + r.evicted, 0)} | ${report.rows.reduce((n, r) => n + r.updates, 0)} | | | **${frac([a.kept, a.facts])}** | ${frac(a.byKind.path)} | ${frac(a.byKind.command)} | ${frac(a.byKind.exit)} | ${frac(a.byKind.error)} | ${frac(a.byKind.request)} |`)
  console.log(`\nIn the stored content (with item comments): ${frac([a.keptInContent, a.facts])}`)
  const emergency = report.rows.filter((r) => r.emergencyTruncated > 0).map((r) => `${r.fixture} (${r.emergencyTruncated})`)
  console.log(`Emergency truncations: ${emergency.length ? emergency.join(', ') : 'none'}`)
  if (report.neverEvicted.length) console.log(`Never overflow the window (left out): ${report.neverEvicted.join(', ')}`)
  console.log('\nLost facts (first few per fixture):')
  for (const r of report.rows) if (r.lost.length) console.log(`- ${r.fixture}: ${r.lost.map((l) => JSON.stringify(l)).join('; ')}`)
}

if (import.meta.url === `file://${process.argv[1]}`) main()
