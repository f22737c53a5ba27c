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
 * `@compactd/client/ai-sdk`); here they are mapped to clients/typescript/src. The AI SDK
 * example's `@ai-sdk/openai` (not installed here) is mapped to test/helpers/ai-sdk-openai.ts,
 * a model over the real `openai` package. The examples are type-checked as well.
 *
 * For the loops the fake model asks for 24 files, one per step, then answers. Its context
 * window is set below what the whole history needs, so a loop that did not compact
 * would fail on a 400; every prompt it received keeps each tool call with its result.
 */
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import type * as Tap from 'tap'
import { countTokens, startFakeProvider, type FakeProvider, type RecordedRequest } from './fakes/fake-llm-provider.ts'
import { buildTestApp } from './helpers/build.ts'

const root = path.resolve(import.meta.dirname, '..')
const DOC = path.join(root, 'docs/integrations.md')
const UPDATE = process.env.UPDATE_DOCS === '1'

/** The fake model's script for the loops: a file per step, then the answer. */
const FILES = Array.from({ length: 24 }, (_, i) => `src/cart/part${i}.ts`)
const ANSWER = 'The total skips the last line item: the loop in src/cart/part23.ts stops one short.'
/** Fake tokens (characters / 4) the fake model accepts in one prompt: the loops' whole history needs about 35,000. */
const CONTEXT_WINDOW = 20_000

/** Package names as the page imports them → where they are here. */
const IMPORTS: Record<string, string> = {
  '@compactd/client': path.join(root, 'clients/typescript/src/index.ts'),
  '@compactd/client/ai-sdk': path.join(root, 'clients/typescript/src/ai-sdk.ts'),
  '@ai-sdk/openai': path.join(root, 'test/helpers/ai-sdk-openai.ts'),
}

interface Example {
  name: string
  lang: 'ts' | 'python'
  code: string
}

function examplesOf(md: string): Example[] {
  return [...md.matchAll(/<!-- example: ([\w-]+) -->\n```(ts|python)\n([\s\S]*?)\n```\n/g)].map((m) => ({ name: m[1]!, lang: m[2] as 'ts' | 'python', code: m[3]! }))
}

const OUTPUT = (name: string) => new RegExp(`(<!-- output: ${name} -->\\n\`\`\`text\\n)([\\s\\S]*?)(\`\`\`\\n)`)

function outputOf(md: string, name: string): string | undefined {
  return OUTPUT(name).exec(md)?.[2]
}

const md = fs.readFileSync(DOC, 'utf8')
const examples = examplesOf(md)
const captured = new Map<string, string>()

// The examples as files: TypeScript with the package imports mapped, next to a
// node_modules that is the repository's.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'compactd-examples-'))
fs.symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'))
fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ private: true, type: 'module' }))
t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
const fileOf = (e: Example) => path.join(dir, `${e.name}.${e.lang === 'ts' ? 'ts' : 'py'}`)
for (const e of examples) {
  const code = e.lang === 'ts' ? e.code.replace(/from '(@compactd\/client(?:\/ai-sdk)?|@ai-sdk\/openai)'/g, (_, name: string) => `from '${IMPORTS[name]}'`) : e.code
  fs.writeFileSync(fileOf(e), code)
}

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
    ...(process.env as Record<string, string>),
    COMPACTD_URL: `http://127.0.0.1:${(app.server.address() as { port: number }).port}`,
    OPENAI_BASE_URL: fake.openaiBaseURL,
    OPENAI_API_KEY: fake.apiKey,
    ANTHROPIC_BASE_URL: fake.anthropicBaseURL,
    ANTHROPIC_API_KEY: fake.apiKey,
    PYTHONPATH: path.join(root, 'clients/python'),
    PYTHONDONTWRITEBYTECODE: '1',
  }
  delete env.COMPACTD_API_KEY
}

function run(e: Example): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const [cmd, args] = e.lang === 'ts' ? [process.execPath, ['--import', 'tsx', fileOf(e)]] : ['python3', [fileOf(e)]]
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d))
    child.stderr.on('data', (d: Buffer) => (stderr += d))
    child.on('error', reject)
    child.on('close', (status) => resolve({ status, stdout, stderr }))
  })
}

/** Runs the example; its output must be the page's. */
async function runExample(t: Tap.Test, name: string): Promise<string> {
  const e = examples.find((x) => x.name === name)
  if (!e) throw new Error(`docs/integrations.md has no example ${name}`)
  const res = await run(e)
  t.equal(res.status, 0, `${name} exits 0`)
  t.equal(res.stderr, '', `${name} writes nothing to stderr (no error, no warning)`)
  captured.set(name, res.stdout)
  if (!UPDATE) t.equal(res.stdout, outputOf(md, name), `${name}: the output is the one docs/integrations.md shows`)
  return res.stdout
}

function scriptTheModel(): void {
  fake.reset()
  fake.enqueue(...FILES.map((file, i) => ({ kind: 'ok' as const, toolCalls: [{ id: `call_${i}`, name: 'read_file', input: { path: file } }] })), { kind: 'ok', content: ANSWER })
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
  t.equal(generations.length, FILES.length + 1, 'one model call per step')
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
  t.equal(results.size, FILES.length, 'every file read reached the model')
  const uncompacted = [...results.values()].reduce((n, text) => n + countTokens(String(text)), 0)
  t.ok(uncompacted > CONTEXT_WINDOW, `the uncompacted history (${uncompacted} tokens of file reads alone) is over the window`)
  for (const [i, r] of generations.entries()) t.same(separatedToolCalls(r), [], `model call ${i + 1}: every tool call is next to its result`)
  t.match(output, /round 2\)/, 'compacted at least twice, the second folding the first summary in')
  t.ok(output.trimEnd().endsWith(`${FILES.length + 1} steps: ${ANSWER}`), 'the loop finished with the answer')
}

t.test('the page has the examples and outputs the test expects', async (t) => {
  t.same(
    examples.map((e) => e.name),
    ['typescript-client', 'python-client', 'ai-sdk', 'openai-loop', 'anthropic-loop'],
  )
  for (const e of examples) t.type(outputOf(md, e.name), 'string', `${e.name} has an output block`)
})

t.test('the TypeScript examples type-check against the client and the SDKs', async (t) => {
  fs.writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { target: 'ES2023', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2023'], types: ['node'], strict: true, noEmit: true, skipLibCheck: true, allowImportingTsExtensions: true },
      files: examples.filter((e) => e.lang === 'ts').map((e) => `${e.name}.ts`),
    }),
  )
  const tsc = spawnSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(dir, 'tsconfig.json')], { encoding: 'utf8' })
  t.equal(tsc.status, 0, `tsc: ${tsc.stdout}${tsc.stderr}`)
})

t.test('TypeScript client', async (t) => {
  await startCompactd(t)
  const out = await runExample(t, 'typescript-client')
  t.match(out, /threshold 93600/)
  t.match(out, /422 budget_unreachable/)
  t.match(out, /400 validation_error: body\.keepRecentTokens/)
})

t.test('Python client', async (t) => {
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
  let page = fs.readFileSync(DOC, 'utf8')
  for (const [name, out] of captured) page = page.replace(OUTPUT(name), (_, open: string, _old: string, close: string) => `${open}${out}${close}`)
  fs.writeFileSync(DOC, page)
  console.error(`docs/integrations.md: outputs of ${[...captured.keys()].join(', ')} written`)
})
