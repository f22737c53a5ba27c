/**
 * npm run eval — compaction quality on the real agent sessions in ../shared/fixtures.
 *
 * For each conversation and budget (10% and 25% of its tokens) it runs truncate, mask,
 * rules and mask+rules, and reports the compression ratio and the ARTIFACT RETENTION:
 * of the facts in the compacted part (everything not kept verbatim), the share that
 * still appears in the output. Facts are extracted mechanically (factsOf below):
 *   - path:     a file path (with a known extension) in a tool call's arguments;
 *   - command:  a shell command (its first line, first 60 characters);
 *   - exit:     a command whose output reports a non-zero exit code: the command prefix
 *               and `exit N` must survive on one line;
 *   - error:    the key error line of a tool output (a typed error such as
 *               `ValueError: …`, the last one of a traceback, or FAILED/error: lines),
 *               first 60 characters;
 *   - request:  a user message after the first (the user's later requests and
 *               constraints), first 60 characters.
 * A fact survives when its text appears in the output's text (whitespace collapsed).
 * Fixtures are read from ../shared (or COMPACTD_SHARED_FIXTURES, test/helpers/fixtures.ts)
 * and never copied into the repository.
 */
import fs from 'node:fs'
import path from 'node:path'
import { compact, CompactionError } from '../../src/engine/compaction/compact.ts'
import { DEFAULT_COMPACT_OPTIONS, type StrategyName } from '../../src/engine/compaction/types.ts'
import { messageText, toolCallsOf, toolResultsOf, type CanonicalMessage } from '../../src/engine/messages/canonical.ts'
import { parseConversation } from '../../src/engine/messages/index.ts'
import { countConversation, tokenizerCounter } from '../../src/engine/tokens/count.ts'
import { CONVERSATIONS, conversationsSkip, fixtureFiles } from '../helpers/fixtures.ts'

export type FactKind = 'path' | 'command' | 'exit' | 'error' | 'request'
export interface Fact {
  kind: FactKind
  /** Strings that must all appear on one line (exit) or anywhere (others). */
  needles: string[]
  sameLine?: boolean
}

const norm = (s: string) => s.replace(/\s+/g, ' ').trim()
const PATH_RE = /(?:^|[\s'"`(=:,[])((?:\.{0,2}\/)?(?:[\w@.+-]+\/)*[\w@+-][\w@.+-]*\.(?:py|js|jsx|ts|tsx|mjs|json|ya?ml|toml|md|rst|txt|html|css|go|rs|rb|java|c|cc|cpp|h|sh|sql|cfg|ini|lock|xml|csv))(?=$|[\s'"`),:;\]])/gm
const EXIT_RE = /<returncode>\s*(-?\d+)\s*<\/returncode>|\bexit(?:ed)?(?: with)?(?: status| code)?[:=\s]+(-?\d+)\b|\bProcess exited with code (-?\d+)/i
const TYPED_ERROR_RE = /^\s*(?:E\s+)?([\w.]*(?:Error|Exception)\b[:(].*|FAILED\b.*|error(?:\[\w+\])?:.*|fatal:.*)$/

function stripHeredoc(command: string): string {
  const m = /<<-?\s*['"]?(\w+)['"]?/.exec(command)
  return m ? command.split('\n')[0]! : command
}

function keyErrorLine(output: string): string | undefined {
  let found: string | undefined
  for (const line of output.split('\n')) if (TYPED_ERROR_RE.test(line) && line.trim().length < 500) found = line.trim()
  return found
}

const SHELL_TOOL_RE = /^(bash|sh|shell|exec|execute|execute_bash|execute_command|run|run_command|run_shell_command|terminal|local_shell|cmd|command)$/i

function shellCommand(tool: string, argsText: string): string | undefined {
  if (!SHELL_TOOL_RE.test(tool)) return undefined
  try {
    const a = JSON.parse(argsText)
    const c = a.command ?? a.cmd
    return typeof c === 'string' ? c : Array.isArray(c) ? c.join(' ') : undefined
  } catch {
    return undefined
  }
}

const textOf = (m: CanonicalMessage) => m.parts.filter((p) => p.type === 'text').map((p) => (p as { text: string }).text).join('\n')
const commandsInText = (t: string) => [...t.matchAll(/```(?:bash|sh)?\s*\n([\s\S]*?)```/g)].map((m) => m[1]!.trim()).filter(Boolean)

/** Facts of the messages at `indexes` (input positions), from the whole conversation's context. */
export function factsOf(all: readonly CanonicalMessage[], indexes: ReadonlySet<number>): Fact[] {
  const facts = new Map<string, Fact>()
  const add = (f: Fact) => {
    const key = `${f.kind}:${f.needles.join('|')}`
    if (f.needles.every((n) => n.length >= 4)) facts.set(key, f)
  }
  const results = new Map<string, string>()
  for (const m of all) for (const r of toolResultsOf(m)) results.set(r.callId, r.text)
  const firstUser = all.findIndex((m) => m.role === 'user')
  const textOnlyAgent = !all.some((m) => toolCallsOf(m).length > 0)
  all.forEach((m, i) => {
    if (!indexes.has(m.index)) return
    const addCommand = (cmd: string, output: string) => {
      const first = norm(stripHeredoc(cmd).split('\n')[0]!).slice(0, 60)
      add({ kind: 'command', needles: [first] })
      const exit = EXIT_RE.exec(output)
      const code = exit ? Number(exit[1] ?? exit[2] ?? exit[3]) : 0
      if (code !== 0) add({ kind: 'exit', needles: [first.slice(0, 40), `exit ${code}`], sameLine: true })
    }
    if (m.role === 'user' && toolResultsOf(m).length === 0) {
      const prev = all[i - 1]
      const observation = textOnlyAgent && prev && prev.role === 'assistant' && toolCallsOf(prev).length === 0 && commandsInText(textOf(prev)).length > 0
      if (observation) {
        for (const cmd of commandsInText(textOf(prev!))) addCommand(cmd, textOf(m))
        const err = keyErrorLine(textOf(m))
        if (err) add({ kind: 'error', needles: [norm(err).slice(0, 60)] })
      } else if (i !== firstUser && textOf(m).trim()) add({ kind: 'request', needles: [norm(textOf(m)).slice(0, 60)] })
    }
    for (const c of toolCallsOf(m)) {
      const args = stripHeredoc(c.argsText)
      PATH_RE.lastIndex = 0
      for (const p of args.matchAll(PATH_RE)) add({ kind: 'path', needles: [p[1]!.replace(/^\.\//, '')] })
      const cmd = shellCommand(c.name, c.argsText)
      if (cmd) addCommand(cmd, results.get(c.id) ?? '')
    }
    for (const r of toolResultsOf(m)) {
      const err = keyErrorLine(r.text)
      if (err) add({ kind: 'error', needles: [norm(err).slice(0, 60)] })
    }
  })
  return [...facts.values()]
}

/** A message's text as the model reads it: tool arguments with their JSON string values decoded. */
export function renderForSearch(m: CanonicalMessage): string {
  const decoded = toolCallsOf(m).map((c) => {
    try {
      return Object.values(JSON.parse(c.argsText) as Record<string, unknown>).filter((v) => typeof v === 'string').join('\n')
    } catch {
      return ''
    }
  })
  return [messageText(m), ...decoded].join('\n')
}

export function survives(fact: Fact, outputText: string, outputLines: string[]): boolean {
  if (fact.sameLine) return outputLines.some((l) => fact.needles.every((n) => l.includes(n)))
  return fact.needles.every((n) => outputText.includes(n))
}

export interface EvalRow {
  fixture: string
  budgetPct: number
  strategy: string
  tokensBefore: number
  tokensAfter?: number
  ratio?: number
  facts: number
  kept: number
  byKind: Record<FactKind, [number, number]>
  error?: string
}

export async function evaluate(fixture: string, messages: unknown[], budgetPct: number, strategy: StrategyName[]): Promise<EvalRow> {
  const conv = parseConversation(messages, { format: 'openai' })
  const counter = tokenizerCounter('o200k_base')
  const tokensBefore = countConversation(conv.messages, counter).totalTokens
  const row: EvalRow = { fixture, budgetPct, strategy: strategy.join('+'), tokensBefore, facts: 0, kept: 0, byKind: { path: [0, 0], command: [0, 0], exit: [0, 0], error: [0, 0], request: [0, 0] } }
  try {
    const res = await compact({
      messages: conv.messages,
      counter,
      options: { ...DEFAULT_COMPACT_OPTIONS, format: 'openai', strategy, targetTokens: Math.floor((tokensBefore * budgetPct) / 100), thresholdTokens: 0 },
    })
    const compactedIdx = new Set<number>()
    for (const r of res.plan) if (r.action !== 'keep') for (let i = r.from; i <= r.to; i++) compactedIdx.add(i)
    const facts = factsOf(conv.messages, compactedIdx)
    const rendered = res.messages.map(renderForSearch)
    const outText = norm(rendered.join('\n'))
    const outLines = rendered.flatMap((t) => t.split('\n')).map(norm)
    row.tokensAfter = res.event.tokensAfter
    row.ratio = res.event.compressionRatio
    for (const f of facts) {
      const ok = survives({ ...f, needles: f.needles.map(norm) }, outText, outLines)
      row.facts++
      row.byKind[f.kind][1]++
      if (ok) {
        row.kept++
        row.byKind[f.kind][0]++
      }
    }
  } catch (err) {
    row.error = err instanceof CompactionError ? `422 ${err.code}` : String(err)
  }
  return row
}

const pct = (a: number, b: number) => (b === 0 ? '—' : `${((a / b) * 100).toFixed(0)}%`)

async function main() {
  const skip = conversationsSkip()
  if (skip) {
    console.log(`${skip}: nothing to evaluate`)
    return
  }
  const strategies: StrategyName[][] = [['truncate'], ['mask'], ['rules'], ['mask', 'rules']]
  const rows: EvalRow[] = []
  for (const file of fixtureFiles()) {
    const { messages } = JSON.parse(fs.readFileSync(path.join(CONVERSATIONS, file), 'utf8'))
    for (const budget of [10, 25]) for (const s of strategies) rows.push(await evaluate(file.replace(/\.json$/, ''), messages, budget, s))
  }
  console.log('| fixture | budget | strategy | tokens before → after | ratio | retention | paths | commands | exit codes | errors | requests |')
  console.log('|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|')
  for (const r of rows) {
    if (r.error) {
      console.log(`| ${r.fixture} | ${r.budgetPct}% | ${r.strategy} | ${r.tokensBefore} → — | — | ${r.error} | | | | | |`)
      continue
    }
    const k = r.byKind
    console.log(`| ${r.fixture} | ${r.budgetPct}% | ${r.strategy} | ${r.tokensBefore} → ${r.tokensAfter} | ${r.ratio}× | ${pct(r.kept, r.facts)} | ${pct(...k.path)} | ${pct(...k.command)} | ${pct(...k.exit)} | ${pct(...k.error)} | ${pct(...k.request)} |`)
  }
  console.log('\nAggregate over fixtures where the budget was reachable (facts kept / facts):\n')
  console.log('| budget | strategy | runs | median ratio | retention | paths | commands | exit codes | errors | requests |')
  console.log('|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|')
  for (const budget of [10, 25]) {
    for (const s of strategies) {
      const sel = rows.filter((r) => r.budgetPct === budget && r.strategy === s.join('+') && !r.error)
      if (!sel.length) continue
      const sum = (f: (r: EvalRow) => [number, number]) => sel.reduce<[number, number]>((a, r) => [a[0] + f(r)[0], a[1] + f(r)[1]], [0, 0])
      const ratios = sel.map((r) => r.ratio!).sort((a, b) => a - b)
      const median = ratios[Math.floor(ratios.length / 2)]
      console.log(`| ${budget}% | ${s.join('+')} | ${sel.length} | ${median}× | ${pct(...sum((r) => [r.kept, r.facts]))} | ${pct(...sum((r) => r.byKind.path))} | ${pct(...sum((r) => r.byKind.command))} | ${pct(...sum((r) => r.byKind.exit))} | ${pct(...sum((r) => r.byKind.error))} | ${pct(...sum((r) => r.byKind.request))} |`)
    }
  }
}

// npm run eval: this report, then the continuation probes (test/eval/probes.ts);
// npm run eval -- probes [--json]: only the probes; npm run eval -- recall [--json]
// [--postgres]: recall from the archive (test/eval/recall.ts); npm run eval -- own [--json]:
// the agent's own compaction against compactd's (test/eval/own-compaction.ts); npm run eval --
// rolling [--json]: the rolling session summary's retention (test/eval/rolling-retention.ts). Not a top-level await: probes.ts
// imports this module, and a cycle through a pending top-level await never settles.
if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2)
  void (async () => {
    const probes = await import('./probes.ts')
    if (args[0] === 'probes') return probes.main(args.slice(1))
    if (args[0] === 'recall') return (await import('./recall.ts')).main(args.slice(1))
    if (args[0] === 'own') return (await import('./own-compaction.ts')).main(args.slice(1))
    if (args[0] === 'rolling') return (await import('./rolling-retention.ts')).main(args.slice(1))
    await main()
    console.log('')
    await probes.main(args)
  })().catch((err) => {
    console.error(err)
    process.exitCode = 1
  })
}
