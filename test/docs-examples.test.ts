/**
 * Every example of README.md, docs/api.md and docs/integrations.md runs as written, and
 * prints what the page shows under it.
 *
 * Each fenced block of the three pages carries a marker (test/helpers/doc-blocks.ts): an
 * example this test runs (shell commands through bash in a directory that looks like a
 * clone, `compactd` on the PATH; TypeScript and Python as their own files), an output
 * compared with what its example printed, a request body, an excerpt of a file, or
 * `not-run` with the reason. A block without a marker fails the test, so no example goes
 * untested. Outputs that docs/api.md describes in prose come from the steps of
 * test/helpers/docs-requests.ts; the SDK examples of docs/integrations.md are
 * test/sdk-loops.test.ts's.
 *
 * One compactd for the whole file, listening on a port (the pages' `localhost:3000` is
 * rewritten to it), with the fake model provider as its summarizer; the examples run
 * concurrently. `UPDATE_DOCS=1 npx tap test/docs-examples.test.ts` writes this run's
 * outputs into the pages instead of comparing (blocks shortened with `…` excepted).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { startFakeProvider } from './fakes/fake-llm-provider.ts'
import { buildTestApp } from './helpers/build.ts'
import { RUN_BY_SDK_LOOPS, ROOT, compareExcerpt, compareOutput, find, jsonMismatch, nameOf, parseBlocks, readBlocks, rewriteOutputs, showsOutput, type Block } from './helpers/doc-blocks.ts'
import { createSandbox, limiter, missingPrograms, runConsole, runScript, runShell, type RunResult } from './helpers/doc-sandbox.ts'
import { chains, type Answer } from './helpers/docs-requests.ts'

const DOCS = ['README.md', 'docs/api.md', 'docs/integrations.md']
const RUNNABLE = new Set(['sh', 'console', 'ts', 'python'])
const UPDATE = process.env.UPDATE_DOCS === '1'

const pages = new Map(DOCS.map((doc) => [doc, readBlocks(doc)]))
const key = (doc: string, name: string) => `${doc} ${name}`

t.test('every fenced block is run or marked not-run, with a reason', async (t) => {
  for (const [doc, blocks] of pages) {
    const unmarked = blocks.filter((b) => !b.marker).map((b) => `${doc}:${b.line} (${b.lang || 'no language'})`)
    t.same(unmarked, [], `${doc}: every block has a marker (example, output, request, excerpt or not-run) on the line above it`)
    for (const b of blocks) {
      if (b.marker?.kind === 'example') t.ok(RUNNABLE.has(b.lang), `${doc}:${b.line}: an example is sh, console, ts or python, not ${b.lang || 'unlabelled'}`)
      if (b.marker?.kind === 'not-run') t.ok(b.marker.reason.length > 5, `${doc}:${b.line}: not-run says why`)
      if (b.marker?.kind === 'excerpt') t.ok(fs.existsSync(path.join(ROOT, b.marker.path)), `${doc}:${b.line}: ${b.marker.path} exists`)
    }
    for (const kind of ['example', 'output', 'request'] as const) {
      const names = blocks.filter((b) => b.marker?.kind === kind).map(nameOf)
      t.same(
        names.filter((n, i) => names.indexOf(n) !== i),
        [],
        `${doc}: ${kind} names are unique`,
      )
    }
  }
})

t.test('the comparison: … shortens, nothing else is forgiven', async (t) => {
  const page = ['<!-- output: a -->', '```json', '{"x": 1, "…": "…"}', '```', '', '```sh', 'echo unmarked', '```'].join('\n')
  const [json, unmarked] = parseBlocks('page.md', page)
  t.equal(unmarked!.marker, undefined, 'a block without a marker is found as such')
  t.ok(compareOutput(json!, '{"x":1,"y":2}').ok, 'a "…" key stands for other fields')
  t.notOk(compareOutput(json!, '{"x":2,"y":2}').ok, 'shown fields still count')
  const text = (body: string) => ({ ...json!, lang: 'text', body })
  t.ok(compareOutput(text('a\n…\nd'), 'a\nb\nc\nd').ok, 'a line of … stands for lines')
  t.ok(compareOutput(text('a\n…\nd'), 'a\nd').ok, '… or for none')
  t.notOk(compareOutput(text('a\nd'), 'a\nb\nd').ok, 'without …, every line counts')
  t.ok(compareOutput(text('took "durationMs":12'), 'took "durationMs":980').ok, 'durations are placeholders')
  t.same(jsonMismatch(['a', '… more …', 'z'], ['a', 'b', 'c', 'z']), undefined, 'an array gap stands for elements')
  t.match(jsonMismatch({ a: 1 }, { a: 1, b: 2 }), /fields the page does not show: b/, 'an unshown field fails')
  t.not(jsonMismatch(['a', 'z'], ['a', 'b', 'z']), undefined, 'an unshown element fails')
})

// ---------------------------------------------------------------------------
// One service, one fake provider, and every example run against them
// ---------------------------------------------------------------------------

const fake = await startFakeProvider()
t.teardown(() => fake.close())
const { app } = await buildTestApp(t, {
  config: {
    OPENAI_API_KEY: fake.apiKey,
    OPENAI_BASE_URL: fake.openaiBaseURL,
    // docs/integrations.md's proxy examples: the fake provider is the upstream.
    UPSTREAM_OPENAI_URL: fake.openaiBaseURL,
    UPSTREAM_ANTHROPIC_URL: fake.anthropicBaseURL,
    SUMMARIZER_OPENAI_MODELS: ['gpt-4o-mini'],
    // docs/api.md's checkpoint examples: the third compaction folds the first two.
    COMPACTION_MAX_CHECKPOINTS: 2,
    // With a key, the default pipeline would be mask → llm → rules (config.ts defaultPipeline); the
    // pages show the offline default, and their llm examples name the strategy.
    COMPACTION_DEFAULT_STRATEGY: ['mask', 'rules'],
  },
})
await app.listen({ host: '127.0.0.1', port: 0 })
const port = (app.server.address() as { port: number }).port
const sandbox = createSandbox(t, port)
/**
 * The proxy's examples (docs/integrations.md, "Proxy") hold the provider's key as a user's
 * SDK does: theirs is the fake's. Only theirs: with OPENAI_API_KEY set, the CLI's examples
 * would configure a summarizer.
 */
const proxySandbox = { ...sandbox, env: { ...sandbox.env, OPENAI_API_KEY: fake.apiKey, ANTHROPIC_API_KEY: fake.apiKey, COMPACTD_URL: `http://127.0.0.1:${port}` } }
const limit = limiter(Math.max(2, os.availableParallelism()))

/** What each example and step printed, by page and output name. */
const outputs = new Map<string, string>()
/** Examples not run, and why (a program they need is missing). */
const skipped = new Map<string, string>()
const failures: string[] = []
const runs = new Map<string, Promise<void>>()
/** How long each example ran (its wait for a free slot excepted), to name the slowest. */
const durations = new Map<string, number>()

function runExample(block: Block): Promise<void> {
  const k = key(block.doc, nameOf(block)!)
  if (!runs.has(k)) runs.set(k, execute(block))
  return runs.get(k)!
}

function waitFor(doc: string, name: string): Promise<void> {
  const block = find(pages.get(doc)!, 'example', name)
  if (!block) throw new Error(`${doc}: no example ${name}`)
  return runExample(block)
}

async function execute(block: Block): Promise<void> {
  const marker = block.marker as { name: string; after: string[] }
  await Promise.all(marker.after.map((name) => waitFor(block.doc, name)))
  const k = key(block.doc, marker.name)
  const missing = missingPrograms(block.lang, block.body)
  const prerequisite = marker.after.map((name) => skipped.get(key(block.doc, name))).find(Boolean)
  if (missing.length || prerequisite) {
    skipped.set(k, prerequisite ?? `${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not installed`)
    return
  }
  const res: RunResult = await limit(async () => {
    const start = Date.now()
    const r = await (block.lang === 'console' ? runConsole(sandbox, block.body) : block.lang === 'sh' ? runShell(sandbox, block.body) : runScript(marker.name.endsWith('-proxy') ? proxySandbox : sandbox, marker.name, block.lang as 'ts' | 'python', block.body))
    durations.set(k, Date.now() - start)
    return r
  })
  // A console transcript shows its exit statuses; every other example must succeed.
  if (block.lang !== 'console' && res.status !== 0) failures.push(`${block.doc}:${block.line} ${marker.name} exited ${res.status}:\n${res.output}`)
  outputs.set(k, res.output)
}

/**
 * The /import example on a log of several megabytes: the page's command, with its file
 * replaced by docs/examples/logs/rollout.jsonl grown to BIG_LOG_BYTES by more turns of
 * tool calls with long outputs. A body on the command line (`-d "$(jq …)"`) fails there
 * with "Argument list too long"; the pipe into `curl -d @-` must not.
 */
const BIG_LOG_BYTES = 3.5 * 1024 * 1024
async function importBigLog(): Promise<{ skipped?: string; res?: RunResult; turns: number }> {
  const block = find(pages.get('docs/api.md')!, 'example', 'import-rollout')!
  const missing = missingPrograms(block.lang, block.body)
  if (missing.length) return { skipped: `${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not installed`, turns: 0 }
  const lines = fs.readFileSync(path.join(ROOT, 'docs/examples/logs/rollout.jsonl'), 'utf8').trimEnd().split('\n')
  const output = Array.from({ length: 120 }, (_, i) => `src/export/csv.ts:${i + 1}: export const COLUMNS = ['id', 'customer_id', 'total', 'currency', 'status', 'created_at'] as const`).join('\n')
  let size = lines.reduce((n, l) => n + l.length + 1, 0)
  let turns = 0
  while (size < BIG_LOG_BYTES) {
    const id = `call_big_${turns++}`
    const more = [
      { timestamp: '2026-11-25T09:40:00.000Z', type: 'response_item', payload: { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', `rg -n COLUMNS src/export # ${turns}`] }), call_id: id } },
      { timestamp: '2026-11-25T09:40:01.000Z', type: 'response_item', payload: { type: 'function_call_output', call_id: id, output: `Exit code: 0\nOutput:\n${output}` } },
    ].map((l) => JSON.stringify(l))
    lines.push(...more)
    size += more.reduce((n, l) => n + l.length + 1, 0)
  }
  fs.writeFileSync(path.join(sandbox.dir, 'big-rollout.jsonl'), lines.join('\n') + '\n')
  const res = await limit(() => runShell(sandbox, block.body.replaceAll('docs/examples/logs/rollout.jsonl', 'big-rollout.jsonl')))
  return { res, turns }
}
const bigImport = importBigLog()

const examples = [...pages.values()].flat().filter((b) => b.marker?.kind === 'example' && !(b.doc === 'docs/integrations.md' && RUN_BY_SDK_LOOPS.includes(nameOf(b)!)))
const started = Date.now()
const chainRuns = chains({
  async send(method, url, body, headers = {}) {
    const res = await fetch(`http://127.0.0.1:${port}${url}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    return { status: res.status, text: await res.text(), headers: res.headers }
  },
  emit(doc: string, name: string, answer: Answer, status: number) {
    if (answer.status !== status) failures.push(`${doc} ${name}: HTTP ${answer.status}, the page says ${status}: ${answer.text.slice(0, 300)}`)
    outputs.set(key(doc, name), answer.text)
  },
  requestBody(doc, name) {
    const block = find(pages.get(doc)!, 'request', name)
    if (!block) throw new Error(`${doc}: no request block ${name}`)
    return JSON.parse(block.body)
  },
  example: waitFor,
  fail: (description) => failures.push(description),
  fake,
  app,
})
const settled = await Promise.allSettled([...examples.map(runExample), ...chainRuns, bigImport])
for (const s of settled) if (s.status === 'rejected') failures.push(String((s.reason as Error)?.stack ?? s.reason))
t.comment(`${examples.length} examples and ${outputs.size} outputs in ${((Date.now() - started) / 1000).toFixed(1)} s; slowest: ${[...durations]
  .sort((a, b) => b[1] - a[1])
  .slice(0, 4)
  .map(([k, ms]) => `${k} ${(ms / 1000).toFixed(1)} s`)
  .join(', ')}`)

t.test('every example and request ran as the page says', async (t) => {
  t.same(failures, [])
})

t.test(`docs/api.md's /import example imports a log of ${(BIG_LOG_BYTES / 1024 / 1024).toFixed(1)} MB`, async (t) => {
  const { skipped: why, res, turns } = await bigImport
  if (why) return t.pass('not run', { skip: why })
  t.equal(res!.status, 0, 'the command succeeds')
  let body: { source?: string; stats?: { messages: number } } = {}
  try {
    body = JSON.parse(res!.stdout)
  } catch {
    t.fail(`the answer is not JSON: ${res!.output.slice(0, 500)}`)
  }
  t.equal(body.source, 'codex')
  t.ok((body.stats?.messages ?? 0) > 2 * turns, `every turn imported (${body.stats?.messages} messages)`)
})

for (const [doc, blocks] of pages) {
  t.test(`${doc}: outputs are the page's`, async (t) => {
    for (const b of blocks) {
      if (b.marker?.kind === 'excerpt') {
        const c = compareExcerpt(b)
        t.ok(c.ok, `${doc}:${b.line} is an excerpt of ${b.marker.path}${c.why ? `: ${c.why}` : ''}`)
        continue
      }
      if (!showsOutput(b)) continue
      const name = nameOf(b)!
      if (doc === 'docs/integrations.md' && RUN_BY_SDK_LOOPS.includes(name)) continue
      const k = key(doc, name)
      if (skipped.has(k)) {
        t.pass(`${doc} ${name}`, { skip: `not run: ${skipped.get(k)}` })
        continue
      }
      const actual = outputs.get(k)
      if (actual === undefined) {
        t.fail(`${doc}:${b.line}: output ${name}: no example or request produced it`)
        continue
      }
      if (UPDATE) continue
      const c = compareOutput(b, actual)
      if (c.ok) t.pass(`${doc} ${name}`)
      else t.equal(c.actual, c.expected, `${doc}:${b.line} ${name}: the output is the page's${c.why ? ` (${c.why})` : ''}`)
    }
  })
}

if (UPDATE) {
  t.test('UPDATE_DOCS=1: the outputs of this run written into the pages', async (t) => {
    // A block shortened with … is left for a person to shorten again: the run's whole
    // output is kept next to the others for that.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'compactd-doc-outputs-'))
    for (const doc of DOCS) {
      const mine = new Map([...outputs].filter(([k]) => k.startsWith(`${doc} `)).map(([k, v]) => [k.slice(doc.length + 1), v]))
      const { text, written, shortened } = rewriteOutputs(doc, mine)
      fs.writeFileSync(path.join(ROOT, doc), text)
      for (const name of shortened) fs.writeFileSync(path.join(dir, `${path.basename(doc, '.md')}.${name}.txt`), mine.get(name)!)
      t.comment(`${doc}: written: ${written.join(', ') || 'none'}`)
      if (shortened.length) t.comment(`${doc}: shortened with …, to redo by hand from ${dir}: ${shortened.join(', ')}`)
    }
  })
}
