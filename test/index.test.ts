/**
 * The in-process library (src/index.ts, `import { compact, estimate, importLog } from
 * 'compactd'`): the same results as the HTTP API for the same request, the API's errors as
 * CompactdError, the llm strategy through a caller's own client, and the built package
 * (dist/lib, rebuilt first when older than the sources) loaded by a consumer as ESM and as CommonJS, and type-checked.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { compact, CompactdError, estimate, importLog, type CompactResponse, type SummarizerClient } from '../src/index.ts'
import { buildTestApp } from './helpers/build.ts'
import { ensureBuilt } from './helpers/service-process.ts'
import { prose } from './helpers/prose.ts'

const root = path.resolve(import.meta.dirname, '..')

/** A coding session long enough to compact: task, 30 tool rounds with long outputs, a closing turn. */
function session(): Record<string, unknown>[] {
  const messages: Record<string, unknown>[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Make `npm test` pass; do not change the public API of src/cart.ts.' },
  ]
  for (let k = 0; k < 30; k++) {
    messages.push({ role: 'assistant', content: `Reading part ${k}.`, tool_calls: [{ id: `call_${k}`, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: `src/cart/part${k}.ts` }) } }] })
    messages.push({ role: 'tool', tool_call_id: `call_${k}`, content: (k === 7 ? 'Error: expected 3, got 4\n' : '') + prose(3000, k + 1) })
  }
  messages.push({ role: 'assistant', content: 'The loop in part23 stops one short; fixing it next.' })
  return messages
}

/** What differs between two runs of the same compaction: how long it took. */
function withoutTimings(r: CompactResponse): unknown {
  return JSON.parse(JSON.stringify(r, (k, v) => (k === 'durationMs' || k === 'createdAt' ? undefined : v)))
}

t.test('compact and estimate answer what POST /compact and /estimate answer', async (t) => {
  const { app } = await buildTestApp(t)
  const request = { model: 'gpt-4o', targetTokens: 6000, messages: session() }
  const viaHttp = await app.inject({ method: 'POST', url: '/compact', payload: request })
  t.equal(viaHttp.statusCode, 200)
  const inProcess = await compact(request)
  t.ok(inProcess.compacted, 'compacted')
  t.ok(inProcess.event.tokensAfter <= 6000, `fits the target (${inProcess.event.tokensAfter})`)
  t.same(withoutTimings(inProcess), withoutTimings(viaHttp.json()), 'the same response as the service')

  const est = await estimate({ model: 'gpt-4o', messages: inProcess.messages })
  const estHttp = await app.inject({ method: 'POST', url: '/estimate', payload: { model: 'gpt-4o', messages: inProcess.messages } })
  t.same(est, estHttp.json(), 'the same estimate as the service')
})

t.test('settings come from options.config, never from the environment unless passed', async (t) => {
  const messages = session()
  const previous = process.env.COMPACTION_KEEP_RECENT
  process.env.COMPACTION_KEEP_RECENT = '2'
  t.teardown(() => {
    if (previous === undefined) delete process.env.COMPACTION_KEEP_RECENT
    else process.env.COMPACTION_KEEP_RECENT = previous
  })
  const byDefault = await compact({ model: 'gpt-4o', targetTokens: 8000, messages })
  const fromEnv = await compact({ model: 'gpt-4o', targetTokens: 8000, messages }, { config: process.env })
  const given = await compact({ model: 'gpt-4o', targetTokens: 8000, messages }, { config: { COMPACTION_KEEP_RECENT: '2' } })
  t.same(fromEnv.messages.slice(-2), messages.slice(-2), 'the last messages are kept')
  t.same(given.messages, fromEnv.messages, 'the same as the setting given directly')
  t.notSame(byDefault.plan, given.plan, 'the default plan keeps more recent messages')
  await t.rejects(compact({ messages }, { config: { COMPACTION_KEEP_RECENT: 'many' } }), { name: 'CompactdError', code: 'invalid_config', status: 400 })
})

t.test("the API's 4xx answers are CompactdErrors with the same code, status and issue paths", async (t) => {
  await t.rejects(estimate({ messages: [{ role: 'tool', content: 'x' }] }), { name: 'CompactdError', code: 'invalid_messages', status: 400, issues: [{ path: 'messages[0].tool_call_id' }] })
  const unreachable = await compact({ model: 'gpt-4o', targetTokens: 10, messages: session() }).catch((e: unknown) => e)
  t.ok(unreachable instanceof CompactdError, 'a CompactdError')
  t.match(unreachable, { code: 'budget_unreachable', status: 422, details: { minimumTokens: Number } })
  await t.rejects(compact({ messages: session(), sessionId: 'a' } as never), { code: 'validation_error', issues: [{ path: 'sessionId' }] })
  await t.rejects(compact({ messages: session(), strategy: 'rules', summarizer: { provider: 'openai', model: 'gpt-4.1' } }), { code: 'validation_error', issues: [{ path: 'summarizer' }] })
  t.throws(() => importLog('not a log at all'), { name: 'CompactdError', code: 'invalid_log', status: 400 })
})

t.test('the llm strategy runs through the caller’s own client', async (t) => {
  const prompts: string[] = []
  const client: SummarizerClient = {
    provider: 'mine',
    model: 'my-model',
    contextLimit: 100_000,
    countTokens: (text) => Math.ceil(text.length / 4),
    costUsd: () => 0,
    async complete(req) {
      prompts.push(req.prompt)
      return { text: '## Original Task\nMake npm test pass.\n\n## Current State\nFound it: the loop in part23 stops one short.', inputTokens: 10, outputTokens: 10, truncated: false }
    },
  }
  const r = await compact({ model: 'gpt-4o', targetTokens: 8000, strategy: 'llm', messages: session() }, { summarizerClient: client })
  t.equal(r.strategy, 'llm')
  t.equal(prompts.length, 1, 'one call to the client')
  t.match(r.summary?.text, /loop in part23 stops one short/, 'its summary is used')
})

t.test('importLog: an agent log as messages, in-process', async (t) => {
  const log = [
    { type: 'user', sessionId: 's1', uuid: 'u1', timestamp: '2026-11-27T10:00:00Z', message: { role: 'user', content: 'Rename getTotal to total in src/cart.ts' } },
    { type: 'assistant', sessionId: 's1', uuid: 'a1', parentUuid: 'u1', timestamp: '2026-11-27T10:00:05Z', message: { role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'Done: renamed in 3 places.' }] } },
  ]
  const r = importLog(log.map((l) => JSON.stringify(l)).join('\n'))
  t.equal(r.source, 'claude-code')
  t.same(r.messages.map((m) => (m as { role: string }).role), ['user', 'assistant'])
  t.equal(r.session.model, 'claude-sonnet-4-5')
})

t.test('the built package: ESM and CommonJS consumers, and its types', async (t) => {
  await ensureBuilt(['lib'])
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'compactd-consumer-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  fs.mkdirSync(path.join(dir, 'node_modules'))
  fs.symlinkSync(root, path.join(dir, 'node_modules/compactd'), 'dir')
  const request = JSON.stringify({ model: 'gpt-4o', targetTokens: 6000, messages: session() })
  fs.writeFileSync(path.join(dir, 'request.json'), request)
  fs.writeFileSync(
    path.join(dir, 'esm.mjs'),
    `import fs from 'node:fs'\nimport { compact, estimate } from 'compactd'\nconst r = await compact(JSON.parse(fs.readFileSync('request.json', 'utf8')))\nconst e = await estimate({ model: 'gpt-4', messages: r.messages })\nconsole.log(JSON.stringify({ compacted: r.compacted, after: r.event.tokensAfter, total: e.totalTokens }))\n`,
  )
  fs.writeFileSync(
    path.join(dir, 'cjs.cjs'),
    `const fs = require('node:fs')\nconst { compact, estimate } = require('compactd')\ncompact(JSON.parse(fs.readFileSync('request.json', 'utf8'))).then(async (r) => {\n  const e = await estimate({ model: 'gpt-4', messages: r.messages })\n  console.log(JSON.stringify({ compacted: r.compacted, after: r.event.tokensAfter, total: e.totalTokens }))\n})\n`,
  )
  const esm = spawnSync(process.execPath, ['esm.mjs'], { cwd: dir, encoding: 'utf8' })
  const cjs = spawnSync(process.execPath, ['cjs.cjs'], { cwd: dir, encoding: 'utf8' })
  t.equal(esm.status, 0, `ESM: ${esm.stderr}`)
  t.equal(cjs.status, 0, `CommonJS: ${cjs.stderr}`)
  const expected = await compact(JSON.parse(request))
  const want = { compacted: true, after: expected.event.tokensAfter, total: (await estimate({ model: 'gpt-4', messages: expected.messages })).totalTokens }
  t.same(JSON.parse(esm.stdout), want, 'ESM: the result of the sources')
  t.same(JSON.parse(cjs.stdout), want, 'CommonJS: the result of the sources')

  // A strict TypeScript consumer compiles against the published types alone.
  fs.writeFileSync(
    path.join(dir, 'typed.mts'),
    `import { compact, CompactdError, type CompactRequest, type CompactResponse, type EstimateResult } from 'compactd'\nconst req: Omit<CompactRequest, 'sessionId'> = { model: 'gpt-4o', messages: [], strategy: ['mask', 'rules'] }\nconst r: CompactResponse = await compact(req)\nconst n: number = r.event.tokensAfter\nconst e: EstimateResult | undefined = undefined\nconsole.log(n, e, CompactdError)\n// @ts-expect-error an unknown strategy is a type error\nawait compact({ messages: [], strategy: 'magic' })\n`,
  )
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, types: [] }, files: ['typed.mts'] }))
  const tsc = spawnSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', dir], { cwd: dir, encoding: 'utf8' })
  t.equal(tsc.status, 0, `tsc: ${tsc.stdout}${tsc.stderr}`)
})

t.test('a tarball (npm pack) ships the build the package points at', async (t) => {
  await ensureBuilt(['server', 'lib'])
  // --ignore-scripts: the build is current; pack would otherwise run prepare again.
  const pack = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' })
  t.equal(pack.status, 0, pack.stderr)
  const files = new Set((JSON.parse(pack.stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path))
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { main: string; types: string; bin: Record<string, string>; exports: { '.': Record<string, string> } }
  const wanted = [pkg.main, pkg.types, ...Object.values(pkg.exports['.']), ...Object.values(pkg.bin), 'dist/cli/compactd.js', 'dist/server.js'].map((p) => p.replace(/^\.\//, ''))
  for (const file of wanted) t.ok(files.has(file), `${file} is in the tarball`)
  t.notOk([...files].some((f) => f.startsWith('src/') || f.startsWith('test/')), 'sources and tests stay in the repository')
})

t.test('in-process compact keeps the preservation contract as the service does', async (t) => {
  const messages: Record<string, unknown>[] = [{ role: 'system', content: 'You are a coding agent.' }, { role: 'user', content: 'Fix the tests.' }]
  for (let i = 0; i < 12; i++) {
    messages.push(
      { role: 'assistant', content: null, tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command: `npm test -- m${i}` }) } }] },
      { role: 'tool', tool_call_id: `c${i}`, content: `FAIL m${i}${i === 4 ? ' ORCHID-19' : ''}\n${'AssertionError: expected 4 to equal 5\n'.repeat(30)}` },
    )
  }
  const kept = await compact({ messages, targetTokens: 2000, pin: [7], preserve: ['ORCHID-19'] })
  t.same(kept.contract, { pinned: [7], preserved: ['ORCHID-19'] })
  t.ok(kept.messages.some((m) => JSON.stringify(m) === JSON.stringify(messages[7])), 'the pin, byte for byte')
  t.ok(JSON.stringify(kept.messages).includes('ORCHID-19'), 'the string')
  await t.rejects(compact({ messages, targetTokens: 500, pin: [3, 5, 7, 9] }), { name: 'CompactdError', code: 'contract_unkept', status: 422 })
  await t.rejects(compact({ messages, preserve: ['absent'] }), { name: 'CompactdError', code: 'validation_error', status: 400 })
})
