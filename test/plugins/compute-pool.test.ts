/**
 * Issue 11, compaction off the event loop (src/plugins/compute-pool.ts):
 * - a body over BODY_LIMIT_BYTES gets its 413 JSON over a real socket while the client
 *   is still sending, and the connection (and the service) stays usable;
 * - a full compute queue is a 503 `overloaded` with Retry-After, while /healthz answers;
 * - a queued request whose client goes away leaves the queue and never runs;
 * - what the pool returns (results and errors) is byte for byte what the event loop
 *   returns, for /compact, /estimate and the rolling-summary update;
 * - the thread entry loads (here from source; `npm run build` bundles it).
 */
import net from 'node:net'
import type { FastifyInstance } from 'fastify'
import t from 'tap'
import { testConfig } from '../../src/config.ts'
import type { MessageFormat } from '../../src/engine/messages/index.ts'
import { ComputePool, WARM_UP } from '../../src/plugins/compute-pool.ts'
import { computeWorkerEntry } from '../../src/plugins/compute-worker-file.ts'
import { runInline } from '../../src/use-cases/compute.ts'
import { computeRulesUpdate, type RulesUpdateInput } from '../../src/use-cases/sessions/rules-update.ts'
import { buildTestApp } from '../helpers/build.ts'

/** These tests count the pool's tasks per request: the archive's background indexing (its own task) is off. */
const NO_ARCHIVE = { ARCHIVE_ENABLED: false }
import { prose } from '../helpers/prose.ts'
import { exchange } from '../helpers/session-conversations.ts'

const json = { 'content-type': 'application/json' }
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Waits until `cond` holds (a state, not a duration: the deadline only stops a hung test). */
async function until(cond: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`)
    await sleep(5)
  }
}

async function listen(app: FastifyInstance): Promise<number> {
  await app.listen({ host: '127.0.0.1', port: 0 })
  return (app.server.address() as net.AddressInfo).port
}

/** An agent session (task, tool calls with long outputs, a last turn) in one of the three formats. */
function session(format: MessageFormat, pairs: number, outputChars: number): { messages: unknown[]; system?: unknown } {
  const files = ['src/cli.ts', 'src/db.ts', 'test/cli.test.ts']
  const calls = Array.from({ length: pairs }, (_, k) => ({
    id: `call_${k}`,
    name: k % 2 === 0 ? 'bash' : 'read_file',
    input: k % 2 === 0 ? { command: `npm test -- ${files[k % 3]}` } : { path: files[k % 3] },
    output: (k % 5 === 1 ? `Error: expected 3, got 4 in ${files[k % 3]}\n` : '') + prose(outputChars, k + 1),
  }))
  const task = 'Add a --due flag to the CLI in src/cli.ts and make npm test pass.'
  const end = [
    { role: 'assistant', content: 'All tests pass now.' },
    { role: 'user', content: 'Good. Also add a --limit option.' },
  ]
  if (format === 'anthropic') {
    const messages: unknown[] = [{ role: 'user', content: task }]
    for (const c of calls) {
      messages.push({ role: 'assistant', content: [{ type: 'text', text: 'Checking.' }, { type: 'tool_use', id: c.id, name: c.name, input: c.input }] })
      messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: c.id, content: c.output }] })
    }
    return { messages: [...messages, ...end], system: [{ type: 'text', text: 'You are a coding agent.' }] }
  }
  const messages: unknown[] = [{ role: 'system', content: 'You are a coding agent.' }, { role: 'user', content: task }]
  for (const c of calls) {
    if (format === 'openai') {
      messages.push({ role: 'assistant', content: 'Checking.', tool_calls: [{ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.input) } }] })
      messages.push({ role: 'tool', tool_call_id: c.id, content: c.output })
    } else {
      messages.push({ role: 'assistant', content: [{ type: 'text', text: 'Checking.' }, { type: 'tool-call', toolCallId: c.id, toolName: c.name, input: c.input }] })
      messages.push({ role: 'tool', content: [{ type: 'tool-result', toolCallId: c.id, toolName: c.name, output: { type: 'text', value: c.output } }] })
    }
  }
  return { messages: [...messages, ...end] }
}

/** Sends raw HTTP over one socket, waiting for each write to drain; resolves with the response text once `done` says it is complete. */
function rawExchange(port: number): { socket: net.Socket; write(data: string | Buffer): Promise<void>; read(done: (text: string) => boolean): Promise<string>; errors: Error[] } {
  const socket = net.connect(port, '127.0.0.1')
  const errors: Error[] = []
  socket.on('error', (err) => errors.push(err))
  let received = ''
  const waiters: (() => void)[] = []
  socket.on('data', (d) => {
    received += d.toString('latin1')
    for (const w of waiters.splice(0)) w()
  })
  socket.on('close', () => {
    for (const w of waiters.splice(0)) w()
  })
  return {
    socket,
    errors,
    write: (data) =>
      new Promise<void>((resolve, reject) => {
        if (socket.destroyed) return reject(errors[0] ?? new Error('socket closed'))
        socket.write(data, (err) => (err ? reject(err) : resolve()))
      }),
    read: async (done) => {
      while (!done(received)) {
        if (socket.destroyed) break
        await new Promise<void>((r) => waiters.push(r))
      }
      const text = received
      received = ''
      return text
    },
  }
}

/** One complete HTTP response (headers and a Content-Length body) at the start of `text`. */
function completeResponse(text: string): boolean {
  const end = text.indexOf('\r\n\r\n')
  if (end < 0) return false
  const length = /content-length:\s*(\d+)/i.exec(text.slice(0, end))
  return length !== null && text.length >= end + 4 + Number(length[1])
}

function parseResponse(text: string): { status: number; headers: Record<string, string>; body: string } {
  const end = text.indexOf('\r\n\r\n')
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n')
  const headers: Record<string, string> = {}
  for (const l of lines) {
    const i = l.indexOf(':')
    headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim()
  }
  return { status: Number(statusLine!.split(' ')[1]), headers, body: text.slice(end + 4) }
}

// ---------------------------------------------------------------------------

t.test('a body over BODY_LIMIT_BYTES: the 413 JSON reaches a client that is still sending, and the connection stays usable', async (t) => {
  const limit = 64 * 1024
  // No compute threads: listening would start and warm them, and this test needs none.
  const { app } = await buildTestApp(t, { config: { BODY_LIMIT_BYTES: limit, COMPUTE_THREADS: 0 } })
  const port = await listen(app)
  // 8 MB: more than the socket buffers hold, so the client is still writing when the 413 goes out.
  const big = JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(8 * 1024 * 1024) }] })
  const expect413 = (res: { status: number; body: string }, label: string) => {
    t.equal(res.status, 413, `${label}: 413`)
    const body = JSON.parse(res.body)
    t.equal(body.error, 'payload_too_large', `${label}: error code`)
    t.match(body.message, String(limit), `${label}: the message names the limit`)
    t.type(body.requestId, 'string', `${label}: requestId`)
  }

  for (const mode of ['content-length', 'chunked'] as const) {
    const c = rawExchange(port)
    const head =
      mode === 'content-length'
        ? `POST /compact HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(big)}\r\n\r\n`
        : `POST /compact HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`
    await c.write(head)
    const buf = Buffer.from(big)
    // The whole body goes out without a reset or a broken pipe.
    for (let off = 0; off < buf.length; off += 256 * 1024) {
      const chunk = buf.subarray(off, off + 256 * 1024)
      await c.write(mode === 'chunked' ? Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]) : chunk)
    }
    if (mode === 'chunked') await c.write('0\r\n\r\n')
    t.same(c.errors.map((e) => (e as NodeJS.ErrnoException).code), [], `${mode}: the client wrote its whole body without an error`)
    const res = parseResponse(await c.read(completeResponse))
    expect413(res, mode)
    // The same connection answers the next request: the rest of the body was read and dropped.
    await c.write('GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n')
    const next = parseResponse(await c.read(completeResponse))
    t.equal(next.status, 200, `${mode}: the next request on the connection is answered`)
    c.socket.destroy()
  }

  // fetch (undici) sends and reads as most clients do: before the fix it saw EPIPE / "other side closed".
  for (let i = 0; i < 3; i++) {
    const res = await fetch(`http://127.0.0.1:${port}/estimate`, { method: 'POST', headers: json, body: big })
    expect413({ status: res.status, body: await res.text() }, `fetch ${i + 1}`)
  }

  // A declared length past what is worth reading (4 × the limit, at least 64 MiB): answered at once, then closed.
  const c = rawExchange(port)
  await c.write(`POST /estimate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${200 * 1024 * 1024}\r\n\r\n{"messages":[`)
  const res = parseResponse(await c.read(completeResponse))
  expect413(res, 'declared 200 MiB')
  t.equal(res.headers.connection, 'close', 'declared 200 MiB: the connection is closed, the body is not read')

  const ready = await fetch(`http://127.0.0.1:${port}/readyz`)
  t.equal(ready.status, 200, 'the service stays ready')
})

t.test('a full compute queue is a 503 overloaded with Retry-After; /healthz still answers', async (t) => {
  const { app } = await buildTestApp(t, { config: { COMPUTE_THREADS: 1, COMPUTE_QUEUE_MAX: 1, COMPUTE_INLINE_MAX_BYTES: 0 } })
  const payload = { ...session('openai', 30, 2000), targetTokens: 4000, strategy: 'rules' }
  // Held: tasks stay queued until resume(), so the queue's state is known, not raced.
  app.compute.pause()
  const first = app.inject({ method: 'POST', url: '/compact', payload })
  await until(() => app.compute.stats().queued === 1, 'the first request is queued')

  const refused = await app.inject({ method: 'POST', url: '/compact', payload })
  t.equal(refused.statusCode, 503)
  const body = refused.json()
  t.equal(body.error, 'overloaded')
  t.match(body.message, /COMPUTE_QUEUE_MAX 1/)
  t.type(body.requestId, 'string')
  const retryAfter = Number(refused.headers['retry-after'])
  t.ok(Number.isInteger(retryAfter) && retryAfter >= 1, `Retry-After is whole seconds (${refused.headers['retry-after']})`)
  t.equal(app.compute.stats().overloaded, 1)

  const health = await app.inject({ method: 'GET', url: '/healthz' })
  t.equal(health.statusCode, 200, '/healthz answers while the queue is full')
  const metrics = await app.inject({ method: 'GET', url: '/metrics' })
  t.match(metrics.body, /compactd_compute_overloaded_total\{task="compact"\} 1/)
  t.match(metrics.body, /compactd_compute_queue_depth 1/)
  t.match(metrics.body, /compactd_compute_queue_max 1/)

  app.compute.resume()
  const done = await first
  t.equal(done.statusCode, 200, 'the queued request is answered once a thread takes it')
  t.equal(done.json().compacted, true)
  t.equal(app.compute.stats().completed, 1)
})

t.test('a queued request whose client goes away leaves the queue and never runs', async (t) => {
  const { app } = await buildTestApp(t, { config: { COMPUTE_THREADS: 1, COMPUTE_QUEUE_MAX: 4, COMPUTE_INLINE_MAX_BYTES: 0 } })
  const port = await listen(app)
  const body = JSON.stringify({ ...session('openai', 30, 2000), targetTokens: 4000, strategy: 'rules' })
  app.compute.pause()
  const controller = new AbortController()
  const gone = fetch(`http://127.0.0.1:${port}/compact`, { method: 'POST', headers: json, body, signal: controller.signal }).catch((err: Error) => err)
  await until(() => app.compute.stats().queued === 1, 'the request is queued')
  controller.abort()
  t.type(await gone, Error, 'the client gave up')
  await until(() => app.compute.stats().queued === 0, 'the request left the queue')
  t.equal(app.compute.stats().cancelled, 1)

  app.compute.resume()
  const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body
  t.match(metrics, /compactd_compute_cancelled_total\{task="compact",state="queued"\} 1/)
  t.equal(app.compute.stats().completed, 0, 'the task never ran on a thread')
  t.notMatch(metrics, /compactd_compute_tasks_total\{task="compact"/, 'no compact task finished, in the pool or inline')

  // The pool still works: the next request runs.
  const res = await fetch(`http://127.0.0.1:${port}/compact`, { method: 'POST', headers: json, body })
  t.equal(res.status, 200)
  t.equal(app.compute.stats().completed, 1)
})

t.test('the pool returns what the event loop returns: results and errors, every format', async (t) => {
  const inline = await buildTestApp(t, { config: { COMPUTE_THREADS: 0, ...NO_ARCHIVE } })
  const pooled = await buildTestApp(t, { config: { COMPUTE_THREADS: 2, COMPUTE_INLINE_MAX_BYTES: 0, ...NO_ARCHIVE } })
  const cases: [string, Record<string, unknown>][] = [
    ['openai, rules', { ...session('openai', 40, 3000), targetTokens: 6000, strategy: 'rules' }],
    ['openai, default pipeline, session checkpoint', { ...session('openai', 40, 3000), targetTokens: 6000, sessionId: 'same-1' }],
    ['openai, second checkpoint of the session (round 2)', { ...session('openai', 40, 3000), targetTokens: 6000, sessionId: 'same-1' }],
    ['anthropic with top-level system', { ...session('anthropic', 40, 3000), targetTokens: 6000 }],
    ['ai-sdk, mask + truncate, summary as system', { ...session('ai-sdk', 40, 3000), targetTokens: 6000, strategy: ['mask', 'truncate'], summaryRole: 'system' }],
    ['openai with a separate system', { ...session('openai', 20, 3000), format: 'openai', system: 'Extra rules.', targetTokens: 5000, keepRecentTokens: 800 }],
    ['dry run', { ...session('openai', 40, 3000), targetTokens: 6000, dryRun: true }],
    ['force on a conversation that fits', { ...session('openai', 2, 100), force: true, targetTokens: 100_000 }],
    ['fits: unchanged', { ...session('openai', 2, 100) }],
    ['422: target unreachable', { ...session('openai', 40, 3000), targetTokens: 60 }],
    ['400: invalid messages', { messages: [{ role: 'tool', content: 'x' }], targetTokens: 1000 }],
    ['400: threshold settings leave no room', { ...session('openai', 4, 100), contextLimit: 5000 }],
    ['400: keepRecent and keepRecentTokens', { ...session('openai', 4, 100), keepRecent: 2, keepRecentTokens: 100 }],
  ]
  let pooledTasks = 0
  for (const [label, payload] of cases) {
    const a = await inline.app.inject({ method: 'POST', url: '/compact', payload })
    const b = await pooled.app.inject({ method: 'POST', url: '/compact', payload })
    t.equal(b.statusCode, a.statusCode, `${label}: status ${a.statusCode}`)
    const strip = (body: Record<string, unknown>) => {
      const { requestId: _id, ...rest } = body
      const event = rest.event as Record<string, unknown> | undefined
      return event ? { ...rest, event: { ...event, durationMs: 0 } } : rest
    }
    t.same(strip(b.json()), strip(a.json()), `${label}: same body`)
    if (label !== '400: keepRecent and keepRecentTokens') pooledTasks++
  }
  t.equal(inline.app.compute.stats().completed, 0, 'COMPUTE_THREADS=0: nothing ran on a thread')
  t.equal(pooled.app.compute.stats().completed, pooledTasks, 'every other request was computed on a thread')
  t.equal(pooled.app.compute.stats().inline, 0)
})

t.test('/estimate: a large body is counted on a thread, with the answer the event loop gives', async (t) => {
  const inline = await buildTestApp(t, { config: { COMPUTE_THREADS: 0, ...NO_ARCHIVE } })
  const pooled = await buildTestApp(t, { config: { COMPUTE_THREADS: 1, COMPUTE_INLINE_MAX_BYTES: 0, ...NO_ARCHIVE } })
  const tools = [{ type: 'function', function: { name: 'bash', description: 'Run a command', parameters: { type: 'object', properties: { command: { type: 'string' } } } } }]
  const cases: [string, Record<string, unknown>][] = [
    ['openai, tokenizer, tools', { ...session('openai', 30, 2000), model: 'gpt-4o', tools }],
    ['anthropic, heuristic with margin', { ...session('anthropic', 30, 2000), model: 'claude-sonnet-4-5' }],
    ['ai-sdk, heuristic, threshold settings', { ...session('ai-sdk', 30, 2000), method: 'heuristic', contextLimit: 50_000, thresholdPercent: 0.5 }],
    ['400: tokenizer for a model without one', { ...session('openai', 4, 100), model: 'claude-sonnet-4-5', method: 'tokenizer' }],
    ['400: invalid messages', { messages: [{ role: 'tool', content: 'x' }] }],
    ['provider: on the event loop', { ...session('anthropic', 4, 100), model: 'claude-sonnet-4-5', method: 'provider' }],
  ]
  for (const [label, payload] of cases) {
    const a = await inline.app.inject({ method: 'POST', url: '/estimate', payload })
    const b = await pooled.app.inject({ method: 'POST', url: '/estimate', payload })
    t.equal(b.statusCode, a.statusCode, `${label}: status ${a.statusCode}`)
    const { requestId: _a, ...bodyA } = a.json()
    const { requestId: _b, ...bodyB } = b.json()
    t.same(bodyB, bodyA, `${label}: same body`)
  }
  t.equal(pooled.app.compute.stats().completed, cases.length - 1, 'every request but the provider one was counted on a thread')
  t.equal(inline.app.compute.stats().completed, 0)
})

t.test('GET /sessions/:id/context: a large session is compacted on a thread, with the answer the event loop gives', async (t) => {
  const inline = await buildTestApp(t, { config: { COMPUTE_THREADS: 0, ...NO_ARCHIVE } })
  const pooled = await buildTestApp(t, { config: { COMPUTE_THREADS: 1, COMPUTE_INLINE_MAX_BYTES: 0, ...NO_ARCHIVE } })
  for (const { app } of [inline, pooled]) {
    for (const format of ['openai', 'anthropic', 'ai-sdk'] as const) {
      const { messages, system } = session(format, 30, 2000)
      t.equal((await app.inject({ method: 'PUT', url: `/sessions/ctx-${format}`, payload: { format, ...(system !== undefined ? { system } : {}) } })).statusCode, 201)
      t.equal((await app.inject({ method: 'POST', url: `/sessions/ctx-${format}/messages`, payload: { messages } })).statusCode, 200)
    }
  }
  const before = pooled.app.compute.stats().completed
  const urls = [
    ['openai, trimmed to 3,000 tokens', '/sessions/ctx-openai/context?budget=3000'],
    ['anthropic, written as openai', '/sessions/ctx-anthropic/context?budget=4000&format=openai'],
    ['ai-sdk, fits the default budget', '/sessions/ctx-ai-sdk/context'],
    ['422: budget unreachable names the query parameter', '/sessions/ctx-openai/context?budget=20'],
  ] as const
  for (const [label, url] of urls) {
    const a = await inline.app.inject({ method: 'GET', url })
    const b = await pooled.app.inject({ method: 'GET', url })
    t.equal(b.statusCode, a.statusCode, `${label}: status ${a.statusCode}`)
    const { requestId: _a, ...bodyA } = a.json()
    const { requestId: _b, ...bodyB } = b.json()
    t.same(bodyB, bodyA, `${label}: same body`)
    if (a.statusCode === 200 && label.startsWith('openai')) t.equal(a.json().compacted, true, `${label}: compacted`)
    if (a.statusCode === 422) t.equal(a.json().issues[0].path, 'querystring.budget', `${label}: path`)
  }
  t.equal(pooled.app.compute.stats().completed - before, urls.length, 'every /context compaction ran on a thread')
  t.equal(inline.app.compute.stats().completed, 0)
  t.match((await pooled.app.inject({ method: 'GET', url: '/metrics' })).body, /compactd_compute_tasks_total\{task="context",where="pool",outcome="ok"\} 3/)
})

t.test('appends: a large batch is counted on a thread, outside the transaction, with the counts the event loop gives', async (t) => {
  const inline = await buildTestApp(t, { config: { COMPUTE_THREADS: 0, ...NO_ARCHIVE } })
  const pooled = await buildTestApp(t, { config: { COMPUTE_THREADS: 1, COMPUTE_INLINE_MAX_BYTES: 4096 } })
  for (const format of ['openai', 'anthropic', 'ai-sdk'] as const) {
    const { messages, system } = session(format, 20, 1500)
    const payload = { messages, ...(system !== undefined ? { system } : {}) }
    const small = { messages: [{ role: 'user', content: 'one short message' }] }
    const results = []
    for (const { app } of [inline, pooled]) {
      // A session on a model without an exact tokenizer (heuristic, with its margin) and one on the default.
      t.equal((await app.inject({ method: 'PUT', url: `/sessions/count-${format}`, payload: { model: 'claude-sonnet-4-5', windowMessages: 500, windowTokens: 1_000_000 } })).statusCode, 201)
      const big = await app.inject({ method: 'POST', url: `/sessions/count-${format}/messages`, payload })
      t.equal(big.statusCode, 200, big.body)
      const again = await app.inject({ method: 'POST', url: `/sessions/count-${format}-default/messages`, payload })
      t.equal(again.statusCode, 200, again.body)
      const tiny = await app.inject({ method: 'POST', url: `/sessions/count-${format}-default/messages`, payload: small })
      t.equal(tiny.statusCode, 200)
      results.push([big.json().windowTokens, again.json().windowTokens, tiny.json().windowTokens])
    }
    t.same(results[1], results[0], `${format}: the same window tokens counted on a thread as on the event loop`)
    t.ok(results[0]![0] !== results[0]![1], `${format}: each session counted by its own model`)
  }
  const metrics = (await pooled.app.inject({ method: 'GET', url: '/metrics' })).body
  t.match(metrics, /compactd_compute_tasks_total\{task="append-counts",where="pool",outcome="ok"\} 6/, 'the six large appends on a thread')
  t.match(metrics, /compactd_compute_tasks_total\{task="append-counts",where="inline",outcome="ok"\} 3/, 'the three one-message appends inline')
})

t.test('small bodies stay on the event loop (COMPUTE_INLINE_MAX_BYTES)', async (t) => {
  const { app } = await buildTestApp(t, { config: { COMPUTE_THREADS: 2, COMPUTE_INLINE_MAX_BYTES: 16_384 } })
  const small = await app.inject({ method: 'POST', url: '/compact', payload: { ...session('openai', 2, 100), force: true, targetTokens: 100_000 } })
  t.equal(small.statusCode, 200)
  t.same(app.compute.stats(), { ...app.compute.stats(), inline: 1, completed: 0 }, 'a 1 KB body ran inline')
  const large = await app.inject({ method: 'POST', url: '/compact', payload: { ...session('openai', 20, 3000), targetTokens: 5000 } })
  t.equal(large.statusCode, 200)
  t.equal(app.compute.stats().completed, 1, 'a 60 KB body ran on a thread')
  // Issue 18: a small body of pathological text (a 4,000-letter run costs ~30× prose of its
  // size to count) is heavy: it goes to a thread, not the event loop.
  const run = await app.inject({ method: 'POST', url: '/estimate', payload: { model: 'gpt-4o', messages: [{ role: 'user', content: 'x'.repeat(4000) }] } })
  t.equal(run.statusCode, 200)
  t.equal(app.compute.stats().completed, 2, 'the 4 KB letter run was counted on a thread')
  t.equal(app.compute.stats().inline, 1, 'nothing more ran inline')
  const words = await app.inject({ method: 'POST', url: '/estimate', payload: { model: 'gpt-4o', messages: [{ role: 'user', content: 'word '.repeat(800) }] } })
  t.equal(words.statusCode, 200)
  t.equal(app.compute.stats().inline, 2, '4 KB of words stay inline')
  // The heuristic's cost does not depend on the text's shape: the same run, counted by it, stays inline.
  const heuristic = await app.inject({ method: 'POST', url: '/estimate', payload: { model: 'gpt-4o', method: 'heuristic', messages: [{ role: 'user', content: 'x'.repeat(4000) }] } })
  t.equal(heuristic.statusCode, 200)
  t.equal(heuristic.json().method, 'heuristic')
  t.equal(app.compute.stats().inline, 3, 'the 4 KB letter run counted by the heuristic ran inline')
  t.equal(app.compute.stats().completed, 2, 'no thread for it')
  // A model without a tokenizer counts by the heuristic too.
  const unknown = await app.inject({ method: 'POST', url: '/estimate', payload: { model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'x'.repeat(4000) }] } })
  t.equal(unknown.statusCode, 200)
  t.equal(unknown.json().method, 'heuristic')
  t.equal(app.compute.stats().inline, 4, 'a model without a tokenizer: inline as well')
})

t.test('rolling-summary updates: the pool computes what the event loop computes, and the worker uses it', async (t) => {
  const config = testConfig()
  const pool = new ComputePool({ config, threads: 1, inlineMaxBytes: 0 })
  t.teardown(() => pool.close())
  const base = Date.parse('2026-11-01T10:00:00Z')
  const evicted = Array.from({ length: 6 }, (_, k) => exchange(k, { at: base + k * 60_000, padding: 20 }))
    .flat()
    .map((raw, i) => ({ seq: i + 1, raw, role: String(raw.role), tokens: 50, messageAt: new Date(base + i * 10_000), status: 'evicted' as const }))
  const input: RulesUpdateInput = {
    settings: { format: 'openai', windowMessages: 20, windowTokens: 8000, summaryBudget: 600, batchSize: 1, mode: 'rules' },
    summary: undefined,
    evicted,
    now: base + 3_600_000,
  }
  const first = await pool.run('summary', input, { background: true })
  t.same(first, computeRulesUpdate(config, input), 'first version: same document')
  t.match(first.text, /src\/module0\.ts/)
  const next = { ...input, summary: { content: first.text }, evicted: evicted.map((m) => ({ ...m, seq: m.seq + 100 })), now: input.now + 86_400_000 }
  t.same(await pool.run('summary', next, { background: true }), computeRulesUpdate(config, next), 'an update of an existing summary: same document')
  t.equal(pool.stats().completed, 2)

  // Through the app: the background worker's update runs on a thread.
  const { app } = await buildTestApp(t, { config: { COMPUTE_THREADS: 1, COMPUTE_INLINE_MAX_BYTES: 0, ...NO_ARCHIVE } })
  const messages = Array.from({ length: 8 }, (_, k) => exchange(k, { at: base + k * 60_000, padding: 8 })).flat()
  const created = await app.inject({ method: 'PUT', url: '/sessions/pooled', payload: { windowMessages: 6, batchSize: 1 } })
  t.equal(created.statusCode, 201, created.body)
  const append = await app.inject({ method: 'POST', url: '/sessions/pooled/messages', payload: { messages } })
  t.equal(append.statusCode, 200, append.body)
  t.ok(append.json().evictedAwaitingSummary > 0, 'messages were evicted')
  t.ok((await app.summaryWorker.runOnce()) >= 1, 'an update ran')
  t.match((await app.inject({ method: 'GET', url: '/metrics' })).body, /compactd_compute_tasks_total\{task="summary",where="pool",outcome="ok"\} [1-9]/, 'on a compute thread')
  const summary = await app.inject({ method: 'GET', url: '/sessions/pooled/summary' })
  t.equal(summary.statusCode, 200)
  t.match(summary.json().content, /src\/module0\.ts/)
})

t.test('the thread entry and the warm-up task', async (t) => {
  const entry = computeWorkerEntry()
  t.match(entry.filename, /node_modules\/\.cache\/compactd\/compute-worker-[0-9a-f]{16}\.mjs$/, 'from source: the .ts entry, bundled')
  t.same(entry.execArgv, [], 'threads start without the TypeScript loader')
  t.equal(computeWorkerEntry(), entry, 'bundled once per process')
  const warm = await runInline(testConfig(), 'compact', WARM_UP)
  t.equal(warm.response.compacted, true, 'the warm-up input compacts (it loads the tokenizer and the engine)')
})
