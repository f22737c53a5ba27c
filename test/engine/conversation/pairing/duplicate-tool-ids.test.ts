/**
 * Duplicate tool-call ids (issue 10, defect 3), in every format.
 *
 * The rule (docs/api.md, "Tool calls and results"):
 * - two calls with one id in ONE message are ambiguous: a 400 invalid_messages naming the
 *   second call's id field, on /compact (forced or not), /estimate and session appends;
 * - an id reused in a LATER turn, once its call was answered, is legal and paired
 *   sequentially (a result answers the latest call with its id);
 * - an id reused while an earlier call with it has no result yet supersedes that call,
 *   which is then unanswered: repaired like any missing result (or refused with
 *   onBrokenInput "reject"), so a result never matches two open calls.
 * Nothing of this reaches the engine's internal "compaction broke tool pairing" 500.
 */
import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import { compact, CompactionError } from '../../../../src/engine/compaction/compact.ts'
import { DEFAULT_COMPACT_OPTIONS } from '../../../../src/engine/compaction/types.ts'
import { findPairingProblems as engineProblems } from '../../../../src/engine/conversation/pairing.ts'
import { MessageFormatError, parseConversation, toolCallsOf, toolResultsOf, type CanonicalMessage, type MessageFormat } from '../../../../src/engine/messages/index.ts'
import { defaultCounter, modelFor } from '../../../../src/use-cases/model-budget.ts'
import { testConfig } from '../../../../src/config.ts'
import { buildTestApp } from '../../../helpers/build.ts'
import { findPairingProblems as providerProblems } from '../../../helpers/conversation-arbitraries.ts'
import { BACKENDS, POSTGRES_SKIP_REASON, postgresAvailable } from '../../../helpers/databases.ts'
import { prose } from '../../../helpers/prose.ts'

const FORMATS: MessageFormat[] = ['openai', 'anthropic', 'ai-sdk', 'responses']

interface Call {
  id: string
  name: string
  input: Record<string, unknown>
  /** Undefined: the call gets no result. */
  output?: string
}
interface Turn {
  text?: string
  calls: Call[]
}

/** A conversation in `format`: the task, then per turn an assistant message and its results, then `end` plain messages. */
function render(format: MessageFormat, turns: Turn[], end: { role: 'user' | 'assistant'; text: string }[] = []): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [{ role: 'user', content: 'Fix the failing test in src/db.ts' }]
  for (const turn of turns) {
    const answered = turn.calls.filter((c) => c.output !== undefined)
    if (format === 'openai') {
      out.push({ role: 'assistant', content: turn.text ?? null, tool_calls: turn.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.input) } })) })
      for (const c of answered) out.push({ role: 'tool', tool_call_id: c.id, content: c.output })
    } else if (format === 'responses') {
      if (turn.text) out.push({ type: 'message', role: 'assistant', content: turn.text })
      for (const c of turn.calls) out.push({ type: 'function_call', call_id: c.id, name: c.name, arguments: JSON.stringify(c.input) })
      for (const c of answered) out.push({ type: 'function_call_output', call_id: c.id, output: c.output })
    } else if (format === 'anthropic') {
      out.push({ role: 'assistant', content: [...(turn.text ? [{ type: 'text', text: turn.text }] : []), ...turn.calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: c.input }))] })
      if (answered.length) out.push({ role: 'user', content: answered.map((c) => ({ type: 'tool_result', tool_use_id: c.id, content: c.output })) })
    } else {
      out.push({ role: 'assistant', content: [...(turn.text ? [{ type: 'text', text: turn.text }] : []), ...turn.calls.map((c) => ({ type: 'tool-call', toolCallId: c.id, toolName: c.name, input: c.input }))] })
      if (answered.length) out.push({ role: 'tool', content: answered.map((c) => ({ type: 'tool-result', toolCallId: c.id, toolName: c.name, output: { type: 'text', value: c.output } })) })
    }
  }
  for (const m of end) out.push({ role: m.role, content: m.text })
  return out
}

/** The path of the second call's id in messages[1], per format (no text part before the calls). */
const SECOND_CALL_ID: Record<MessageFormat, string> = {
  openai: 'messages[1].tool_calls[1].id',
  anthropic: 'messages[1].content[1].id',
  'ai-sdk': 'messages[1].content[1].toolCallId',
  responses: 'messages[2].call_id',
}

const big = (seed: number, head: string) => `${head}\n${prose(4000, seed)}`

/** One turn calling `a` twice, both answered: the observed defect. */
const twinCalls = (format: MessageFormat) =>
  render(
    format,
    [
      {
        calls: [
          { id: 'a', name: 'bash', input: { command: 'npm test' }, output: big(1, 'FAIL test/db.test.ts') },
          { id: 'a', name: 'read_file', input: { path: 'src/db.ts' }, output: big(2, 'export function close() {}') },
        ],
      },
    ],
    [
      { role: 'assistant', text: 'The pool is closed twice.' },
      { role: 'user', text: 'Make close() idempotent.' },
    ],
  )

/** Parsed in its format and checked by the engine's validator and by the provider's rule. */
function pairingOf(t: Test, format: MessageFormat, body: { messages: unknown[]; system?: unknown }, label: string): CanonicalMessage[] {
  const parsed = parseConversation(body.messages, { format, system: body.system })
  t.same(engineProblems(parsed.messages), [], `${label}: every call answered once (engine)`)
  t.same(providerProblems(parsed), [], `${label}: every call answered before the next assistant turn, names match (provider rule)`)
  return parsed.messages
}

/** Each result with the call it answers (the latest earlier call with its id), by tool name. */
function answeredBy(messages: readonly CanonicalMessage[]): { result: string; call: string; args: string }[] {
  const open = new Map<string, { name: string; args: string }>()
  const out: { result: string; call: string; args: string }[] = []
  for (const m of messages) {
    for (const r of toolResultsOf(m)) {
      const c = open.get(r.callId)
      if (c) out.push({ result: r.text, call: c.name, args: c.args })
      open.delete(r.callId)
    }
    for (const c of toolCallsOf(m)) open.set(c.id, { name: c.name, args: c.argsText })
  }
  return out
}

// ---------------------------------------------------------------------------
// Two calls with one id in one message: a 400 everywhere

t.test('POST /compact: two calls with one id in one message are a 400 naming the second, forced or not', async (t) => {
  const { app } = await buildTestApp(t)
  for (const format of FORMATS) {
    const messages = twinCalls(format)
    for (const extra of [{ force: true }, { force: false }, {}, { force: true, onBrokenInput: 'reject' }, { force: true, targetTokens: 1500, keepRecent: 1 }]) {
      const label = `${format} ${JSON.stringify(extra)}`
      const res = await app.inject({ method: 'POST', url: '/compact', payload: { messages, format, ...extra } })
      t.equal(res.statusCode, 400, `${label}: 400, not 500 or a 200 that drops a result`)
      const body = res.json()
      t.equal(body.error, 'invalid_messages', label)
      t.same(body.issues.map((i: { path: string }) => i.path), [SECOND_CALL_ID[format]], `${label}: names the second call's id`)
      t.match(body.message, /duplicate tool call id "a"/, `${label}: names the id`)
      t.ok(body.requestId, 'the one error shape')
    }
    // Format detected, not given: the same answer.
    const detected = await app.inject({ method: 'POST', url: '/compact', payload: { messages, force: true } })
    t.equal(detected.statusCode, 400, `${format}, detected`)
    t.equal(detected.json().issues[0].path, SECOND_CALL_ID[format])
  }

  // With text before the calls and the Anthropic top-level system, the path is still the caller's.
  const withText = render('anthropic', [{ text: 'Checking.', calls: [{ id: 'x', name: 'bash', input: {}, output: 'ok' }, { id: 'y', name: 'bash', input: {}, output: 'ok' }, { id: 'x', name: 'bash', input: {}, output: 'ok' }] }])
  const res = await app.inject({ method: 'POST', url: '/compact', payload: { messages: withText, system: 'be brief', force: true } })
  t.equal(res.statusCode, 400)
  t.equal(res.json().issues[0].path, 'messages[1].content[3].id', 'third call, after the text block')
  t.match(res.json().message, /messages\[1\]\.content\[1\]\.id has the same id/, 'and the first one')
})

t.test('POST /estimate applies the same rule', async (t) => {
  const { app } = await buildTestApp(t)
  for (const format of FORMATS) {
    const res = await app.inject({ method: 'POST', url: '/estimate', payload: { messages: twinCalls(format), format } })
    t.equal(res.statusCode, 400, format)
    t.equal(res.json().issues[0].path, SECOND_CALL_ID[format], format)
  }
})

t.test('engine as a library: canonical input with twin ids is a broken_tool_pairing error, not the internal output check', async (t) => {
  const model = modelFor(testConfig({}), 'gpt-4o')
  for (const format of FORMATS) {
    // Parsed without the edge check, as messages stored before it are read back.
    const messages = parseConversation(twinCalls(format), { format, allowDuplicateCallIds: true }).messages
    t.throws(() => parseConversation(twinCalls(format), { format }), MessageFormatError, `${format}: parsing refuses it`)
    for (const onBrokenInput of ['repair', 'reject'] as const) {
      const err = await compact({ messages, options: { ...DEFAULT_COMPACT_OPTIONS, format, targetTokens: 1500, thresholdTokens: 1500, keepRecent: 1, force: true, onBrokenInput }, counter: defaultCounter(model) }).then(
        () => undefined,
        (e: unknown) => e,
      )
      t.ok(err instanceof CompactionError, `${format} ${onBrokenInput}: a CompactionError`)
      t.equal((err as CompactionError).code, 'broken_tool_pairing')
      t.match((err as CompactionError).message, /^messages\[1\]: two tool calls with the id "a" in one message/)
    }
  }
})

// ---------------------------------------------------------------------------
// An id reused in a later turn

/** `a` called, answered, then called again for something else and answered: legal. */
const reusedAfterAnswer = (format: MessageFormat) =>
  render(
    format,
    [
      { text: 'Running the tests.', calls: [{ id: 'a', name: 'bash', input: { command: 'npm test -- test/db.test.ts' }, output: big(3, 'FAIL test/db.test.ts\nError: Called end on pool more than once') }] },
      { text: 'Reading the pool.', calls: [{ id: 'a', name: 'read_file', input: { path: 'src/pool.ts' }, output: big(4, 'export class Pool {') }] },
      { text: 'Reading the config.', calls: [{ id: 'b', name: 'read_file', input: { path: 'src/config.ts' }, output: big(5, 'export const config = {}') }] },
    ],
    [
      { role: 'assistant', text: 'close() runs in both afterEach and the shutdown hook; I removed the afterEach call.' },
      { role: 'user', text: 'Good. Also make close() idempotent.' },
    ],
  )

t.test('POST /compact: an id reused in a later turn after its call was answered is paired sequentially', async (t) => {
  const { app } = await buildTestApp(t)
  for (const format of FORMATS) {
    const messages = reusedAfterAnswer(format)
    const before = answeredBy(parseConversation(messages, { format }).messages)
    t.same(
      before.map((p) => p.call),
      ['bash', 'read_file', 'read_file'],
      `${format}: the input pairs each result with its own call`,
    )

    // Unforced, under the target: returned as sent, nothing repaired or dropped.
    const plain = await app.inject({ method: 'POST', url: '/compact', payload: { messages, format } })
    t.equal(plain.statusCode, 200, `${format}: unforced`)
    t.same(plain.json().messages, messages, `${format}: every message as sent`)
    t.same(plain.json().repairs, [], `${format}: no repair`)
    const rejectMode = await app.inject({ method: 'POST', url: '/compact', payload: { messages, format, onBrokenInput: 'reject', force: true } })
    t.equal(rejectMode.statusCode, 200, `${format}: not broken, so onBrokenInput reject accepts it`)

    // Forced, to a target that needs masking and a summary.
    for (const payload of [{ force: true }, { force: true, targetTokens: 1200, keepRecent: 2 }, { targetTokens: 1200, keepRecent: 2, strategy: 'mask' }]) {
      const label = `${format} ${JSON.stringify(payload)}`
      const res = await app.inject({ method: 'POST', url: '/compact', payload: { messages, format, ...payload } })
      t.equal(res.statusCode, 200, `${label}: ${res.body.slice(0, 200)}`)
      const body = res.json()
      t.same(body.repairs, [], `${label}: nothing to repair`)
      const out = pairingOf(t, format, body, label)
      // A result that survives (verbatim or masked) still follows its own call.
      for (const p of answeredBy(out)) {
        if (p.result.includes('Called end on pool') || p.result.includes('npm test')) t.equal(p.call, 'bash', `${label}: the test output answers the bash call`)
        if (p.result.includes('export class Pool') || p.result.includes('src/pool.ts')) t.equal(p.call, 'read_file', `${label}: the file answers the read_file call`)
      }
      if (payload.targetTokens) t.ok(body.compacted, `${label}: compacted`)
      if (body.summary) {
        // The summary reads each call with its own result: the test run failed (the later
        // read_file of the same id succeeded), so it must not be reported as passing.
        t.match(body.summary.text, /test\/db\.test\.ts` → error: Error: Called end on pool more than once/, `${label}: the failure is the test run's`)
        t.notMatch(body.summary.text, /test\/db\.test\.ts` → ok/, `${label}: the run is not reported ok`)
      }
    }
  }
})

t.test('POST /compact: a masked result is described by its own call when the id was reused', async (t) => {
  const { app } = await buildTestApp(t)
  const messages = reusedAfterAnswer('openai')
  const res = await app.inject({ method: 'POST', url: '/compact', payload: { messages, format: 'openai', targetTokens: 1200, keepRecent: 2, strategy: 'mask', keepToolResults: 0 } })
  t.equal(res.statusCode, 200, res.body.slice(0, 300))
  const body = res.json()
  t.ok(body.compacted)
  const tools = (body.messages as { role: string; tool_call_id?: string; content: string }[]).filter((m) => m.role === 'tool' && m.tool_call_id === 'a')
  t.equal(tools.length, 2, 'both results of a are kept')
  t.match(tools[0]!.content, /npm test/, "the first a's placeholder names the bash command")
  t.notMatch(tools[0]!.content, /src\/pool\.ts/, 'not the later call with the same id')
  t.match(tools[1]!.content, /src\/pool\.ts/, "the second a's placeholder names the file read")
})

/** `a` called and never answered, then called again in a later turn and answered. */
const reusedWhileOpen = (format: MessageFormat) =>
  render(
    format,
    [
      { text: 'Running the tests.', calls: [{ id: 'a', name: 'bash', input: { command: 'npm test' } }] },
      { text: 'Running them again.', calls: [{ id: 'a', name: 'bash', input: { command: 'npm test -- --verbose' }, output: big(6, 'FAIL test/db.test.ts') }] },
    ],
    [{ role: 'user', text: 'What failed?' }],
  )

t.test('POST /compact: an id reused while its earlier call is unanswered supersedes it (repaired, or refused with reject)', async (t) => {
  const { app } = await buildTestApp(t)
  for (const format of FORMATS) {
    const messages = reusedWhileOpen(format)
    const rejected = await app.inject({ method: 'POST', url: '/compact', payload: { messages, format, onBrokenInput: 'reject' } })
    t.equal(rejected.statusCode, 400, `${format}: reject`)
    t.equal(rejected.json().error, 'broken_tool_pairing')
    t.same(rejected.json().issues, [{ path: 'messages[1]', message: 'call-without-result (tool call id a)' }], `${format}: the earlier call has no result`)

    for (const payload of [{}, { force: true }, { force: true, targetTokens: 900, keepRecent: 1 }]) {
      const label = `${format} ${JSON.stringify(payload)}`
      const res = await app.inject({ method: 'POST', url: '/compact', payload: { messages, format, ...payload } })
      t.equal(res.statusCode, 200, `${label}: ${res.body.slice(0, 200)}`)
      const body = res.json()
      t.same(body.repairs, [{ index: 1, action: 'added "[no result recorded]" for unanswered tool call a' }], `${label}: the earlier call is answered`)
      const out = pairingOf(t, format, body, label)
      const pairs = answeredBy(out)
      t.ok(pairs.some((p) => p.args.includes('--verbose') && !p.result.includes('[no result recorded]')), `${label}: the real result answers the later call`)
      if (!body.compacted) t.ok(pairs.some((p) => p.args === '{"command":"npm test"}' && p.result === '[no result recorded]'), `${label}: the earlier one gets the placeholder`)
    }
  }
})

// ---------------------------------------------------------------------------
// Sessions: appends and /context

const pgOk = await postgresAvailable()

async function context(app: FastifyInstance, id: string, query = '') {
  const res = await app.inject({ method: 'GET', url: `/sessions/${id}/context${query}` })
  return res
}

for (const backend of BACKENDS) {
  const skip = backend === 'postgres' && !pgOk ? POSTGRES_SKIP_REASON : false

  t.test(`${backend}: a session append with two calls of one id in one message is a 400 and stores nothing`, { skip }, async (t) => {
    const { app } = await buildTestApp(t, { backend })
    for (const format of FORMATS) {
      const id = `twin-${format}`
      const messages = twinCalls(format)
      const res = await app.inject({ method: 'POST', url: `/sessions/${id}/messages`, payload: { messages, format } })
      t.equal(res.statusCode, 400, `${format}: refused`)
      t.equal(res.json().error, 'invalid_messages')
      t.same(res.json().issues.map((i: { path: string }) => i.path), [SECOND_CALL_ID[format]], `${format}: names the second call's id`)
      t.equal((await app.inject({ method: 'GET', url: `/sessions/${id}` })).statusCode, 404, `${format}: no session was created`)

      // In an existing session, only the bad append is refused.
      const ok = await app.inject({ method: 'POST', url: `/sessions/${id}/messages`, payload: { messages: messages.slice(0, 1), format } })
      t.equal(ok.statusCode, 200)
      const again = await app.inject({ method: 'POST', url: `/sessions/${id}/messages`, payload: { messages: messages.slice(1) } })
      t.equal(again.statusCode, 400, `${format}: refused in an existing session`)
      t.equal(again.json().issues[0].path, SECOND_CALL_ID[format].replace(/messages\[(\d+)\]/, (_, i: string) => `messages[${Number(i) - 1}]`), `${format}: index within the append`)
      const ctx = await context(app, id)
      t.equal(ctx.statusCode, 200)
      t.equal(ctx.json().messages.length, 1, `${format}: only the task is stored`)
    }
  })

  t.test(`${backend}: sessions pair a reused id sequentially; /context keeps every result`, { skip }, async (t) => {
    const { app } = await buildTestApp(t, { backend })
    for (const format of FORMATS) {
      const id = `reuse-${format}`
      const messages = reusedAfterAnswer(format)
      // One append per turn: the reused id arrives in a later append than its first call.
      for (const [from, to] of [[0, 3], [3, 5], [5, messages.length]] as const) {
        const res = await app.inject({ method: 'POST', url: `/sessions/${id}/messages`, payload: { messages: messages.slice(from, to), format } })
        t.equal(res.statusCode, 200, `${format}: append ${from}..${to}`)
      }
      const ctx = await context(app, id, '?budget=100000')
      t.equal(ctx.statusCode, 200)
      t.same(ctx.json().messages, messages, `${format}: every message back as sent, both results of a included`)
      pairingOf(t, format, ctx.json(), `${format} context`)

      // Compacted to a small budget: still valid, each result with its own call.
      const small = await context(app, id, '?budget=1200')
      t.equal(small.statusCode, 200, `${format}: small budget ${small.body.slice(0, 200)}`)
      t.ok(small.json().tokens <= 1200)
      const out = pairingOf(t, format, small.json(), `${format} context, budget 1200`)
      for (const p of answeredBy(out)) if (p.result.includes('export class Pool')) t.equal(p.call, 'read_file', `${format}: the file answers the read_file call`)
      t.ok(small.json().compacted, `${format}: compacted`)
      const text = JSON.stringify(small.json().messages)
      t.match(text, /test\/db\.test\.ts` → error: Error: Called end on pool more than once/, `${format}: the summary has the test run's failure`)
      t.notMatch(text, /test\/db\.test\.ts` → ok/, `${format}: not the later read's success`)
    }
  })

  t.test(`${backend}: an id reused across appends while its call is open: the later call owns the result`, { skip }, async (t) => {
    const { app } = await buildTestApp(t, { backend })
    for (const format of FORMATS) {
      const id = `open-${format}`
      const messages = reusedWhileOpen(format)
      // Task + the unanswered call, then the second call with its result, then the question
      // (in Responses items a turn's text and call are two items).
      const appends = format === 'responses' ? [[0, 3], [3, 6], [6, 7]] : [[0, 2], [2, 4], [4, 5]]
      for (const [from, to] of appends as [number, number][]) {
        const res = await app.inject({ method: 'POST', url: `/sessions/${id}/messages`, payload: { messages: messages.slice(from, to), format } })
        t.equal(res.statusCode, 200, `${format}: append ${from}..${to}`)
      }
      const ctx = await context(app, id, '?budget=100000')
      t.equal(ctx.statusCode, 200)
      const out = pairingOf(t, format, ctx.json(), `${format} context`)
      const pairs = answeredBy(out)
      t.same(
        pairs.map((p) => [JSON.parse(p.args).command, p.result.split('\n')[0]]),
        [
          ['npm test', '[no result recorded]'],
          ['npm test -- --verbose', 'FAIL test/db.test.ts'],
        ],
        `${format}: the result answers the later call; the earlier one is answered as unrecorded`,
      )
    }
  })

  t.test(`${backend}: /context over a stored message with twin ids (stored before the check) is a 400, not a 500`, { skip }, async (t) => {
    const { app } = await buildTestApp(t, { backend })
    const messages = twinCalls('openai')
    const ok = await app.inject({ method: 'POST', url: '/sessions/legacy/messages', payload: { messages: [messages[0], { role: 'assistant', content: 'placeholder' }] } })
    t.equal(ok.statusCode, 200)
    await sql`update session_messages set raw = ${JSON.stringify(messages[1])}::json where session_id = 'legacy' and seq = 2`.execute(app.db)
    const res = await context(app, 'legacy')
    t.equal(res.statusCode, 400, res.body.slice(0, 200))
    t.equal(res.json().error, 'broken_tool_pairing')
    t.match(res.json().message, /two tool calls with the id "a" in one message/)
    // The session can still take appends (the stored rows are read back without the edge check).
    const more = await app.inject({ method: 'POST', url: '/sessions/legacy/messages', payload: { messages: [{ role: 'user', content: 'next' }] } })
    t.equal(more.statusCode, 200)
  })
}
