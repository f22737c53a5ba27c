/**
 * Runs the examples of docs/integrations.md (the TypeScript and Python clients, the AI SDK
 * helper, the OpenAI SDK and Anthropic SDK loops) as they are written, each as its own
 * process, against a compactd listening on a port and the fake model provider
 * (test/fakes/fake-llm-provider.ts) that the real `openai` and `@anthropic-ai/sdk` reach
 * through OPENAI_BASE_URL / ANTHROPIC_BASE_URL. Each example's output must be the one the
 * page shows under it; `UPDATE_DOCS=1 npx tap test/sdk-loops.test.ts` writes the outputs
 * of this run into the page instead.
 *
 * The page's imports are the installed package's (`@compactd/client`,
 * `@compactd/client/ai-sdk`); here they are mapped to clients/typescript/src
 * (PACKAGE_IMPORTS in test/helpers/doc-sandbox.ts). The AI SDK example uses the real
 * `@ai-sdk/openai` (a devDependency), which reads OPENAI_BASE_URL.
 * The examples are type-checked as well. The page's other examples are
 * test/docs-examples.test.ts's; the markers of both are described in test/helpers/doc-blocks.ts.
 *
 * For the loops the fake model asks for 24 files, one per step, then recalls what the
 * compactions dropped (search_context, then read_context on the ref the search gave)
 * and answers with the line it read. Its context window is set below what the whole
 * history needs, so a loop that did not compact would fail on a 400; every prompt it
 * received keeps each tool call with its result; the line it answers with was in the
 * output of src/cart/part2.ts and in no prompt when it searched.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import type * as Tap from 'tap'
import { countTokens, startFakeProvider, type FakeProvider, type RecordedRequest } from './fakes/fake-llm-provider.ts'
import { buildTestApp } from './helpers/build.ts'
import { RUN_BY_SDK_LOOPS, ROOT, compareOutput, find, nameOf, readBlocks, rewriteOutputs, type Block } from './helpers/doc-blocks.ts'
import { createSandbox, missingPrograms, run, scriptFile, type Sandbox } from './helpers/doc-sandbox.ts'

const DOC = 'docs/integrations.md'
const UPDATE = process.env.UPDATE_DOCS === '1'

/** The fake model's script for the loops: a file per step, a search and a read of the archive, then the answer. */
const FILES = Array.from({ length: 24 }, (_, i) => `src/cart/part${i}.ts`)
/** The line of src/cart/part2.ts (the examples' readFile) that holds the bug. */
const BUG = 'export const total = (cart: Cart) => sum(cart.items.slice(0, -1)) // every item but the last'
const ANSWER = `The total skips the last line item: src/cart/part2.ts, line 61: ${BUG}`
/** Model calls of a loop: the files, search_context, read_context and the answer. */
const STEPS = FILES.length + 3
/** Fake tokens (characters / 4) the fake model accepts in one prompt: the loops' whole history needs about 35,000. */
const CONTEXT_WINDOW = 20_000

const blocks = readBlocks(DOC)
const examples = blocks.filter((b) => b.marker?.kind === 'example' && RUN_BY_SDK_LOOPS.includes(nameOf(b)!))
const lang = (e: Block) => (e.lang === 'ts' ? 'ts' : 'python') as 'ts' | 'python'
const captured = new Map<string, string>()

// The examples as files: TypeScript with the package imports mapped, in an ESM package
// whose node_modules is the repository's (test/helpers/doc-sandbox.ts).
const sandbox: Sandbox = createSandbox(t, 0)
const files = new Map(examples.map((e) => [nameOf(e)!, scriptFile(sandbox, nameOf(e)!, lang(e), e.body)]))

let fake: FakeProvider
let env: Record<string, string>

t.before(async () => {
  fake = await startFakeProvider({ contextWindow: CONTEXT_WINDOW })
})
t.teardown(() => fake?.close())

async function startCompactd(t: Tap.Test): Promise<void> {
  const { app } = await buildTestApp(t)
  await app.listen({ host: '127.0.0.1', port: 0 })
  env = {
    ...sandbox.env,
    COMPACTD_URL: `http://127.0.0.1:${(app.server.address() as { port: number }).port}`,
    OPENAI_BASE_URL: fake.openaiBaseURL,
    OPENAI_API_KEY: fake.apiKey,
    ANTHROPIC_BASE_URL: fake.anthropicBaseURL,
    ANTHROPIC_API_KEY: fake.apiKey,
  }
}

/** Runs the example; its output must be the page's. */
async function runExample(t: Tap.Test, name: string): Promise<string> {
  const e = examples.find((x) => nameOf(x) === name)
  if (!e) throw new Error(`${DOC} has no example ${name}`)
  const file = files.get(name)!
  const res = await run(lang(e) === 'ts' ? process.execPath : 'python3', lang(e) === 'ts' ? ['--import', 'tsx', file] : [file], { cwd: sandbox.scripts, env })
  t.equal(res.status, 0, `${name} exits 0`)
  t.equal(res.stderr, '', `${name} writes nothing to stderr (no error, no warning)`)
  captured.set(name, res.stdout)
  const c = compareOutput(find(blocks, 'output', name)!, res.stdout)
  if (!UPDATE) t.equal(c.actual, c.expected, `${name}: the output is the one ${DOC} shows`)
  return res.stdout
}

function scriptTheModel(): void {
  fake.reset()
  fake.enqueue(
    ...FILES.map((file, i) => ({ kind: 'ok' as const, toolCalls: [{ id: `call_${i}`, name: 'read_file', input: { path: file } }] })),
    { kind: 'ok', toolCalls: [{ id: 'recall_search', name: 'search_context', input: { query: 'where the cart total is computed' } }] },
    {
      kind: 'ok',
      // The first file output among the hits, read where it says "total".
      toolCalls: ({ lastMessage }) => [{ id: 'recall_read', name: 'read_context', input: { ref: /^\[ref (\w{8})\] read_file result/m.exec(lastMessage)?.[1] ?? 'none', grep: 'total' } }],
    },
    {
      kind: 'ok',
      content: ({ lastMessage }) => {
        const line = /^(\d+)\t(export const total.*)$/m.exec(lastMessage)
        const file = /\/\/ (src\/cart\/part\d+\.ts)/.exec(lastMessage)
        return line && file ? `The total skips the last line item: ${file[1]}, line ${line[1]}: ${line[2]}` : `Not found in: ${lastMessage.slice(0, 300)}`
      },
    },
  )
}

/** Tool calls of a request body (OpenAI or Anthropic) that are not answered by the next message, and results without a call before them. */
function separatedToolCalls(r: RecordedRequest): string[] {
  const messages = r.body.messages as any[]
  const problems: string[] = []
  messages.forEach((m, i) => {
    const next = messages[i + 1]
    if (r.api === 'openai') {
      const answered = new Set<string>()
      for (let j = i + 1; j < messages.length && messages[j].role === 'tool'; j++) answered.add(messages[j].tool_call_id)
      for (const c of m.tool_calls ?? []) if (!answered.has(c.id)) problems.push(`call ${c.id} (message ${i})`)
      if (m.role === 'tool') {
        let j = i - 1
        while (j >= 0 && messages[j].role === 'tool') j--
        if (!(messages[j]?.tool_calls ?? []).some((c: any) => c.id === m.tool_call_id)) problems.push(`result ${m.tool_call_id} (message ${i})`)
      }
    } else {
      const blocks = (x: any) => (Array.isArray(x?.content) ? x.content : [])
      const results = new Set(blocks(next).filter((b: any) => b.type === 'tool_result').map((b: any) => b.tool_use_id))
      for (const b of blocks(m)) if (b.type === 'tool_use' && !results.has(b.id)) problems.push(`tool_use ${b.id} (message ${i})`)
      const calls = new Set(blocks(messages[i - 1]).filter((b: any) => b.type === 'tool_use').map((b: any) => b.id))
      for (const b of blocks(m)) if (b.type === 'tool_result' && !calls.has(b.tool_use_id)) problems.push(`tool_result ${b.tool_use_id} (message ${i})`)
    }
  })
  return problems
}

/** What a loop must show on the fake provider's side. */
function checkLoop(t: Tap.Test, output: string): void {
  const generations = fake.requests.filter((r) => r.route === 'chat.completions' || r.route === 'messages')
  t.equal(generations.length, STEPS, 'one model call per step')
  t.same(
    generations.filter((r) => r.status !== 200).map((r) => r.status),
    [],
    `every model call was answered: no prompt over the model's window of ${CONTEXT_WINDOW} tokens`,
  )
  const largest = Math.max(...generations.map((r) => r.inputTokens ?? 0))
  t.ok(largest < CONTEXT_WINDOW, `largest prompt ${largest} tokens`)
  // Without compaction the history would not fit: every file read, counted once.
  const results = new Map<string, string>() // the longest text each tool call's result had (later prompts hold it masked)
  const keep = (id: string, content: unknown) => {
    const text = typeof content === 'string' ? content : JSON.stringify(content)
    if (text.length > (results.get(id)?.length ?? -1)) results.set(id, text)
  }
  for (const r of generations) {
    for (const m of r.body.messages as any[]) {
      if (m.role === 'tool') keep(m.tool_call_id, m.content)
      for (const b of Array.isArray(m.content) ? m.content : []) if (b?.type === 'tool_result') keep(b.tool_use_id, b.content)
    }
  }
  const recalled = { search: results.get('recall_search'), read: results.get('recall_read') }
  results.delete('recall_search')
  results.delete('recall_read')
  t.equal(results.size, FILES.length, 'every file read reached the model')
  const uncompacted = [...results.values()].reduce((n, text) => n + countTokens(String(text)), 0)
  t.ok(uncompacted > CONTEXT_WINDOW, `the uncompacted history (${uncompacted} tokens of file reads alone) is over the window`)
  for (const [i, r] of generations.entries()) t.same(separatedToolCalls(r), [], `model call ${i + 1}: every tool call is next to its result`)
  t.match(output, /round 2\)/, 'compacted at least twice, the second folding the first summary in')

  // The recall: the bug's line reached the model with src/cart/part2.ts, was gone when it searched, and came back.
  const holds = (i: number) => JSON.stringify(generations[i]!.body.messages).includes(BUG)
  t.ok(holds(FILES.indexOf('src/cart/part2.ts') + 1), 'the line reached the model in the output of src/cart/part2.ts')
  t.notOk(holds(FILES.length), 'the prompt the model searched from no longer held it: a compaction dropped it')
  t.match(recalled.search, /^\d+ archived messages? match(es)? "where the cart total is computed", best first; read_context\(ref\) reads one:\n\[ref \w{8}\] /, 'search_context: the hits')
  t.match(recalled.read, new RegExp(`^\\[ref \\w{8}\\] read_file result \\(checkpoint 1\\), 61 lines; 1 matching "total":\\n59\\t.*\\n60\\t.*\\n61\\t`), 'read_context: the numbered lines around it')
  t.ok(recalled.read?.includes(`61\t${BUG}`), 'with the line itself')
  t.ok(output.trimEnd().endsWith(`${STEPS} steps: ${ANSWER}`), 'the loop finished with the answer read back from the archive')
}

t.test('the page has the examples and outputs the test expects', async (t) => {
  t.same(examples.map(nameOf), RUN_BY_SDK_LOOPS)
  for (const e of examples) t.ok(find(blocks, 'output', nameOf(e)!), `${nameOf(e)} has an output block`)
})

t.test('the TypeScript examples type-check against the client and the SDKs', async (t) => {
  fs.writeFileSync(
    path.join(sandbox.scripts, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { target: 'ES2023', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2023'], types: ['node'], strict: true, noEmit: true, skipLibCheck: true, allowImportingTsExtensions: true },
      files: examples.filter((e) => e.lang === 'ts').map((e) => `${nameOf(e)}.ts`),
    }),
  )
  const tsc = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', path.join(sandbox.scripts, 'tsconfig.json')], { encoding: 'utf8' })
  t.equal(tsc.status, 0, `tsc: ${tsc.stdout}${tsc.stderr}`)
})

t.test('TypeScript client', async (t) => {
  await startCompactd(t)
  const out = await runExample(t, 'typescript-client')
  t.match(out, /threshold 93600/)
  t.match(out, /422 budget_unreachable/)
  t.match(out, /400 validation_error: body\.keepRecentTokens/)
})

t.test('Python client', { skip: missingPrograms('python', '').map((p) => `${p} is not installed`)[0] ?? false }, async (t) => {
  await startCompactd(t)
  const out = await runExample(t, 'python-client')
  t.match(out, /threshold 93600/)
  t.match(out, /422 budget_unreachable/)
  t.match(out, /400 validation_error: body\.keepRecentTokens/)
})

for (const name of ['ai-sdk', 'openai-loop', 'anthropic-loop']) {
  t.test(`${name}: compactd before each model call, against the fake provider`, async (t) => {
    await startCompactd(t)
    scriptTheModel()
    const out = await runExample(t, name)
    t.equal(fake.requests[0]?.api, name === 'anthropic-loop' ? 'anthropic' : 'openai')
    checkLoop(t, out)
  })
}

t.teardown(() => {
  if (!UPDATE) return
  const { text, written, shortened } = rewriteOutputs(DOC, captured)
  fs.writeFileSync(path.join(ROOT, DOC), text)
  console.error(`${DOC}: outputs written: ${written.join(', ') || 'none'}${shortened.length ? `; shortened with …, to redo by hand: ${shortened.join(', ')}` : ''}`)
})
