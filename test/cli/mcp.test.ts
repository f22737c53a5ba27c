/**
 * `compactd mcp` end to end, as an agent's MCP client runs it: the real service on a
 * loopback port (an API key required), a conversation compacted under a sessionId so its
 * big tool outputs are archived, then the command itself (bin/compactd.mjs mcp, from the
 * build) driven by the SDK's own Client over stdio. A fact that only a dropped output held
 * is found by search_context and read back by read_context (whole, by lines, by grep, in
 * another format, by a placeholder's ref); context_status reports a /compact session and a
 * /sessions one. Failures (no session, unknown ones, a bad ref, a wrong key, the service
 * down) are isError results that never show the key; the client never sees a protocol
 * error, and stdout carries nothing but JSON-RPC.
 */
import { spawn } from 'node:child_process'
import net from 'node:net'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import t from 'tap'
import type * as Tap from 'tap'
import { INSTRUCTIONS, MAX_RESULT_CHARS, age, statusText, wholeText } from '../../src/cli/mcp.ts'
import { migrateToLatest } from '../../src/db/migrate.ts'
import { createApiKey } from '../../src/tenancy/api-keys.ts'
import { buildTestApp } from '../helpers/build.ts'
import { createTestDatabase, defaultBackend } from '../helpers/databases.ts'
import { prose } from '../helpers/prose.ts'
import { ensureBuilt } from '../helpers/service-process.ts'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const bin = path.join(root, 'bin/compactd.mjs')

// As installed: bin/compactd.mjs runs the build when it is current.
await ensureBuilt(['server'])
// The key exists before the service starts: a service that started in open mode keeps to
// it for a moment after the first key is created.
const database = await createTestDatabase(await defaultBackend())
t.teardown(() => database.close())
await migrateToLatest(database.db)
const { key } = await createApiKey(database.db, 'mcp-tenant')
const { app } = await buildTestApp(t, { database })
await app.listen({ port: 0, host: '127.0.0.1' })
const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
const auth = { authorization: `Bearer ${key}` }

const SESSION = 'mcp-e2e-1'
const FACT = 'addDays() uses local midnight'
const FACT_LINE = `ROOT CAUSE: with TZ=Pacific/Chatham the review scheduler skips a day because ${FACT}; fix: compute due dates in UTC.`

/** An agent session: 40 bash calls with ~4 KB outputs of 40-odd lines; call 7's output holds FACT_LINE. */
function conversation(): Record<string, unknown>[] {
  const messages: Record<string, unknown>[] = [
    { role: 'system', content: 'You are a coding agent working in a TypeScript repository.' },
    { role: 'user', content: 'Make the flashcard review scheduler pass its tests.' },
  ]
  for (let k = 0; k < 40; k++) {
    const lines = prose(3000, k + 1).replace(/(.{90}) /g, '$1\n')
    messages.push({ role: 'assistant', content: `Step ${k}: running the tests of s${k}.`, tool_calls: [{ id: `call_${k}`, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command: `npm test -- test/s${k}.test.ts` }) } }] })
    messages.push({ role: 'tool', tool_call_id: `call_${k}`, content: `${lines}${k === 7 ? `\n${FACT_LINE}` : ''}\n${prose(1000, k + 99)}` })
  }
  messages.push({ role: 'assistant', content: 'The tests pass now.' }, { role: 'user', content: 'Now add a --limit option.' })
  return messages
}

const compacted = await app.inject({ method: 'POST', url: '/compact', headers: auth, payload: { messages: conversation(), sessionId: SESSION, targetTokens: 6000 } })
const compactedBody = compacted.json() as { messages: unknown[]; archive?: { status: string; archived: number }; event: { tokensBefore: number; tokensAfter: number } }

// A session of the sessions API: a small window, so appends evict into its archive.
await app.inject({ method: 'PUT', url: '/sessions/mcp-rolling-1', headers: auth, payload: { format: 'openai', windowMessages: 4 } })
for (let i = 0; i < 4; i++) {
  await app.inject({ method: 'POST', url: '/sessions/mcp-rolling-1/messages', headers: auth, payload: { messages: [{ role: 'user', content: `Question ${i}: ${prose(200, i)}` }, { role: 'assistant', content: `Answer ${i}.` }] } })
}

interface Connected {
  client: Client
  errors: Error[]
  stderr: () => string
  connectMs: number
}

/** The command as an MCP client starts it: `node bin/compactd.mjs mcp` with `env` (plus the SDK's default HOME, PATH…). */
async function connect(t: Tap.Test, env: Record<string, string>): Promise<Connected> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp'], cwd: root, env, stderr: 'pipe' })
  let stderr = ''
  transport.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')))
  const client = new Client({ name: 'compactd-test', version: '1.0.0' })
  const errors: Error[] = []
  client.onerror = (err) => errors.push(err)
  const started = performance.now()
  await client.connect(transport)
  const connectMs = performance.now() - started
  t.teardown(() => client.close())
  return { client, errors, stderr: () => stderr, connectMs }
}

type ToolResult = { content: { type: string; text?: string }[]; isError?: boolean }
async function call(c: Connected, name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean; ms: number }> {
  const started = performance.now()
  const r = (await c.client.callTool({ name, arguments: args })) as ToolResult
  const ms = performance.now() - started
  return { text: r.content.map((p) => p.text ?? '').join('\n'), isError: r.isError === true, ms }
}

t.test('the setup: the fact is only in the archive', async (t) => {
  t.equal(compacted.statusCode, 200, compacted.body.slice(0, 300))
  t.equal(compactedBody.archive?.status, 'archived')
  t.notMatch(JSON.stringify(compactedBody.messages), FACT, 'the compacted conversation no longer holds the fact')
})

t.test('an agent recalls a dropped detail through the tools', async (t) => {
  const c = await connect(t, { COMPACTD_URL: url, COMPACTD_API_KEY: key, COMPACTD_SESSION: SESSION })
  t.comment(`spawn + initialize: ${c.connectMs.toFixed(0)} ms`)
  t.equal(c.client.getServerVersion()?.name, 'compactd')
  t.equal(c.client.getInstructions(), INSTRUCTIONS, 'the server tells the model what it is for')

  const { tools } = await c.client.listTools()
  t.same(tools.map((x) => x.name).sort(), ['context_status', 'read_context', 'search_context'])
  const byName = Object.fromEntries(tools.map((x) => [x.name, x]))
  t.match(byName.search_context!.description, /after a compaction/)
  t.match(byName.search_context!.description, /\[ref 3answbqe\]/, 'says what a ref marker looks like')
  t.same(byName.search_context!.inputSchema.required, ['query'])
  t.same(byName.read_context!.inputSchema.required, ['ref'])
  t.match(byName.read_context!.inputSchema.properties, { lines: {}, grep: {}, format: { enum: ['openai', 'anthropic', 'ai-sdk', 'responses'] }, session_id: {} })
  t.equal(byName.context_status!.annotations?.readOnlyHint, true)

  const found = await call(c, 'search_context', { query: 'why does the review scheduler skip a day in the Chatham timezone?' })
  t.notOk(found.isError, found.text)
  t.match(found.text, FACT, 'the answer, from an output compaction dropped')
  t.match(found.text, /^1\. \[ref [0-9a-z]{8}\] tool output of bash · checkpoint 1, message \d+ · score \d/m)
  t.match(found.text, /read_context\(ref\)/, 'says how to read on')
  const ref = /\[ref ([0-9a-z]{8})\]/.exec(found.text)![1]!

  const whole = await call(c, 'read_context', { ref })
  t.notOk(whole.isError, whole.text)
  t.match(whole.text, new RegExp(`^\\[ref ${ref}\\] tool output of bash · checkpoint 1, message \\d+ · \\d+ lines\\n`))
  t.match(whole.text, FACT_LINE, 'the whole output, as text')
  t.notMatch(whole.text, /\\n/, 'text, not escaped JSON')
  t.equal((await call(c, 'read_context', { ref: `[ref ${ref}]` })).text, whole.text, 'a pasted [ref …] marker works too')

  const grep = await call(c, 'read_context', { ref, grep: 'chatham' })
  t.notOk(grep.isError, grep.text)
  t.match(grep.text, /1 line contains "chatham":\n(\d+)\tROOT CAUSE: /)
  const line = Number(/\n(\d+)\tROOT CAUSE/.exec(grep.text)![1])
  const lines = await call(c, 'read_context', { ref, lines: `${line - 1}-${line}` })
  t.match(lines.text, new RegExp(`\\n${line - 1}\\t[^\\n]+\\n${line}\\tROOT CAUSE: `), 'the numbered lines asked for')
  const none = await call(c, 'read_context', { ref, grep: 'no such words here' })
  t.match(none.text, /No line contains "no such words here"\./)
  t.notOk(none.isError)

  const json = await call(c, 'read_context', { ref, format: 'anthropic' })
  t.notOk(json.isError, json.text)
  t.match(JSON.parse(json.text.slice(json.text.indexOf('\n') + 1)), [{ role: 'user', content: [{ type: 'tool_result' }] }], 'JSON in the format asked for')

  // A placeholder of the compacted conversation names its original.
  const placeholder = /\[output masked by compactd\][^"]*\[ref ([0-9a-z]{8})\]/.exec(JSON.stringify(compactedBody.messages))
  t.ok(placeholder, 'the compacted conversation has a masked output')
  const masked = await call(c, 'read_context', { ref: placeholder![1]! })
  t.notOk(masked.isError, masked.text)
  t.match(masked.text, /tool output of bash/)
  t.notMatch(masked.text, /output masked by compactd/, 'the original, not the placeholder')

  // (Action-log lines name refs within 3% of the summary: this 662-token summary has room
  // for its archive note only; test/engine/compaction/references.test.ts covers the log's refs.)
  // An assistant's call is read with its result.
  const calls = await call(c, 'search_context', { query: 'Step 0: running the tests of s0', limit: 3 })
  const callRef = /\[ref ([0-9a-z]{8})\] assistant \(calls bash\) · checkpoint 1, message 2 ·/.exec(calls.text)
  t.ok(callRef, calls.text)
  const pair = await call(c, 'read_context', { ref: callRef![1]! })
  t.notOk(pair.isError, pair.text)
  t.match(pair.text, /^\[ref [0-9a-z]{8}\] assistant \(calls bash\) · checkpoint 1, message 2 · with its 1 tool result\n--- 1 of 2: assistant\nStep 0: running the tests of s0\.\nbash\(\{"command":"npm test -- test\/s0\.test\.ts"\}\)\n--- 2 of 2: tool result\n\w/)
  t.ok(pair.text.trimEnd().endsWith(String(conversation()[3]!.content).trimEnd()), 'the result, whole, after the call')

  const status = await call(c, 'context_status', {})
  t.notOk(status.isError, status.text)
  const n = (x: number) => x.toLocaleString('en-US')
  t.match(status.text, `compactd session ${SESSION}:`)
  t.match(status.text, `- Latest compaction: checkpoint 1, `)
  t.match(status.text, `${n(compactedBody.event.tokensBefore)} → ${n(compactedBody.event.tokensAfter)} tokens (target 6,000)`)
  t.match(status.text, /seconds? ago/)
  t.match(status.text, '- All compactions: 1 checkpoint, ')
  t.match(status.text, 'search_context(query) finds it')
  t.notMatch(status.text, 'Rolling session', 'a /compact session has no rolling summary')

  const rolling = await call(c, 'context_status', { session_id: 'mcp-rolling-1' })
  t.notOk(rolling.isError, rolling.text)
  t.match(rolling.text, 'No compaction stored under this id')
  t.match(rolling.text, /- Rolling session: 8 messages appended, last \d+ seconds? ago; the recent window holds 4 messages/)
  t.match(rolling.text, /- Rolling summary: /)

  // Failures are results the model reads, never protocol errors.
  const failures = {
    unknownSearch: await call(c, 'search_context', { query: 'chatham', session_id: 'no-such-session' }),
    unknownRef: await call(c, 'read_context', { ref: 'zzzzzzzz' }),
    badRef: await call(c, 'read_context', { ref: 'not a ref!' }),
    badLines: await call(c, 'read_context', { ref, lines: '99999-100000' }),
    unknownStatus: await call(c, 'context_status', { session_id: 'no-such-session' }),
    badSessionId: await call(c, 'search_context', { query: 'x', session_id: 'has spaces/slashes' }),
    overLimit: await call(c, 'search_context', { query: 'chatham', limit: 99 }),
  }
  for (const [name, f] of Object.entries(failures)) {
    t.ok(f.isError, `${name} is an error result`)
    t.notMatch(f.text, key, `${name} does not show the key`)
  }
  t.match(failures.unknownSearch.text, /compactd refused \(404 not_found\): no session "no-such-session"/)
  t.match(failures.unknownRef.text, /404 not_found.*no archived message zzzzzzzz/)
  t.match(failures.badRef.text, /400 validation_error.*not an archive reference/)
  t.match(failures.badLines.text, /400 validation_error.*lines/)
  t.match(failures.unknownStatus.text, /compactd has no session "no-such-session"/)
  t.match(failures.badSessionId.text, /not a compactd session id/)
  t.match(failures.overLimit.text, /limit/)

  // Latency of one call, the service's work included.
  const times: number[] = []
  for (let i = 0; i < 10; i++) times.push((await call(c, 'search_context', { query: `scheduler day ${i}` })).ms)
  const reads: number[] = []
  for (let i = 0; i < 10; i++) reads.push((await call(c, 'read_context', { ref, grep: 'root cause' })).ms)
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!.toFixed(1)
  t.comment(`per call (median of 10): search_context ${median(times)} ms, read_context ${median(reads)} ms, first search ${found.ms.toFixed(0)} ms`)

  await c.client.close()
  t.same(c.errors.map((e) => e.message), [], 'the client saw no protocol error (stdout held JSON-RPC only)')
  t.match(c.stderr(), /^compactd mcp: recall tools for http:\/\/127\.0\.0\.1:\d+, session from COMPACTD_SESSION\n$/, 'one line on stderr')
  t.notMatch(c.stderr(), key)
})

t.test('without a session, with a wrong key, with the service down: error results that say what to do', async (t) => {
  const wrong = 'cpd_wrong_key_for_this_test'
  const c = await connect(t, { COMPACTD_URL: url, COMPACTD_API_KEY: wrong })
  const noSession = await call(c, 'search_context', { query: 'chatham' })
  t.ok(noSession.isError)
  t.match(noSession.text, /No compactd session: pass session_id, or set COMPACTD_SESSION/)
  const refused = await call(c, 'context_status', { session_id: SESSION })
  t.ok(refused.isError)
  t.match(refused.text, /401 unauthorized.*Set COMPACTD_API_KEY/)
  t.notMatch(refused.text, wrong)
  t.match(c.stderr(), /session given by each call/)

  const port = await new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (probe.address() as { port: number }).port
      probe.close(() => resolve(p))
    })
  })
  const down = await connect(t, { COMPACTD_URL: `http://127.0.0.1:${port}`, COMPACTD_SESSION: SESSION })
  const unreachable = await call(down, 'search_context', { query: 'chatham' })
  t.ok(unreachable.isError)
  t.match(unreachable.text, /cannot reach http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\); start the compactd service/)
  t.same([...c.errors, ...down.errors], [])
})

t.test('stdout is JSON-RPC only, and closing stdin ends the server after it answers', async (t) => {
  const child = spawn(process.execPath, [bin, 'mcp', '--session', SESSION], { cwd: root, env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', COMPACTD_URL: url, COMPACTD_API_KEY: key }, stdio: ['pipe', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (c) => (stdout += c))
  child.stderr.on('data', (c) => (stderr += c))
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
  const send = (m: unknown) => child.stdin.write(`${JSON.stringify(m)}\n`)
  send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } })
  send({ jsonrpc: '2.0', method: 'notifications/initialized' })
  send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search_context', arguments: { query: 'why does the scheduler skip a day in Chatham?' } } })
  child.stdin.end()
  t.equal(await exited, 0, stderr)
  const lines = stdout.split('\n').filter((l) => l !== '')
  t.equal(lines.length, 2, 'one answer per request')
  const answers = lines.map((l) => JSON.parse(l) as { jsonrpc: string; id: number; result: { content?: { text: string }[] } })
  t.ok(answers.every((a) => a.jsonrpc === '2.0'), 'every line is JSON-RPC')
  t.match(answers.find((a) => a.id === 2)?.result.content?.[0]?.text, FACT, 'the call in flight when stdin closed was answered')
  t.match(stderr, /^compactd mcp: recall tools for .*, session from --session\n$/)
})

t.test('usage mistakes are one line and exit 2', async (t) => {
  const child = spawn(process.execPath, [bin, 'mcp', '--session', 'bad id'], { cwd: root, env: { PATH: process.env.PATH! }, stdio: ['pipe', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (c) => (stderr += c))
  child.stdin.end()
  t.equal(await new Promise((resolve) => child.on('close', resolve)), 2)
  t.match(stderr, /^compactd: --session: "bad id" is not a session id .*\(compactd --help\)\n$/)
})

t.test('a whole message past MAX_RESULT_CHARS is cut with the call that reads on', async (t) => {
  const base = { ref: 'abcd1234', role: 'tool', toolName: 'bash', checkpointNum: 2, position: 9, source: 'compact', format: 'openai', truncated: false, redactions: 0 }
  const long = Array.from({ length: 2_000 }, (_, i) => `line ${i + 1} ${'x'.repeat(40)}`).join('\n')
  const one = await wholeText({ ...base, totalLines: 2_000, messages: [{ role: 'tool', tool_call_id: 'c1', content: long }] }, false)
  t.ok(one.length < MAX_RESULT_CHARS + 300, 'cut')
  t.match(one, /^\[ref abcd1234\] tool output of bash · checkpoint 2, message 9 · 2,000 lines\nline 1 x+\n/)
  const complete = (/\nline (\d+) x+\n[^\n]*\n\[cut/.exec(one) ?? [])[1]
  t.ok(complete, 'the last complete line shown')
  t.match(one, new RegExp(`\\[cut at 30,000 characters: read on with lines="${Number(complete) + 1}-${Number(complete) + 400}", or find a passage with grep="text"\\]$`))
  const json = await wholeText({ ...base, totalLines: 2_000, messages: [{ role: 'tool', tool_call_id: 'c1', content: long }] }, true)
  t.match(json, /\[cut at 30,000 characters: read it as text \(without format\), by lines= or grep=\]$/)
  const short = await wholeText({ ...base, totalLines: 1, redactions: 2, messages: [{ role: 'tool', tool_call_id: 'c1', content: 'ok' }] }, false)
  t.equal(short, '[ref abcd1234] tool output of bash · checkpoint 2, message 9 · 1 line · 2 secrets redacted before archiving\nok')
})

t.test('the status text, by itself', async (t) => {
  const now = Date.parse('2026-11-22T13:30:00Z')
  t.equal(age('2026-11-22T13:18:00Z', now), '12 minutes ago')
  t.equal(age('2026-11-22T13:29:59Z', now), '1 second ago')
  t.equal(age('2026-11-20T13:30:00Z', now), '2 days ago')
  const text = statusText('s', undefined, { checkpointNum: 3, round: null, strategy: 'rules', originalTokens: 1000, compressedTokens: 400, targetTokens: null, model: null, summaryTokens: null, createdAt: '2026-11-22T13:00:00Z' }, undefined, now)
  t.match(text, 'checkpoint 3, 30 minutes ago (2026-11-22T13:00:00Z): 1,000 → 400 tokens; rules. It only masked tool outputs.')
})
