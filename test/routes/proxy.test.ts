/**
 * The provider-compatible proxy (routes/proxy.ts, issue 23), driven by the real OpenAI and
 * Anthropic SDKs pointed at compactd's baseURL, with the fake provider as the upstream
 * (it records every request it received).
 */
import Anthropic from '@anthropic-ai/sdk'
import type { FastifyInstance } from 'fastify'
import OpenAI from 'openai'
import t from 'tap'
import { checkToolCallIds, parseConversation, serializeConversation } from '../../src/engine/messages/index.ts'
import { startFakeProvider, type FakeProvider } from '../fakes/fake-llm-provider.ts'
import { buildTestApp } from '../helpers/build.ts'
import { conversationsSkip, fixtureConversation } from '../helpers/fixtures.ts'
import { exchange, splitPairs, type Message } from '../helpers/session-conversations.ts'

/** A long agent conversation in OpenAI form: 12 exchanges of failing tests, reads and edits. */
function longConversation(exchanges = 12): Message[] {
  const out: Message[] = [{ role: 'system', content: 'You are a coding agent. Never edit generated files.' }]
  for (let i = 0; i < exchanges; i++) out.push(...exchange(i, { padding: 40 }))
  return out
}

/** The same conversation in another format, through the engine's own writer. */
function inFormat(messages: readonly unknown[], format: 'anthropic' | 'responses'): { messages: unknown[]; system?: unknown } {
  return serializeConversation(parseConversation(messages, { format: 'openai' }).messages, format)
}

let fake: FakeProvider
let app: FastifyInstance
let base: string

t.before(async () => {
  fake = await startFakeProvider()
  ;({ app } = await buildTestApp(t, { config: { UPSTREAM_OPENAI_URL: fake.openaiBaseURL, UPSTREAM_ANTHROPIC_URL: fake.anthropicBaseURL } }))
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
})
t.teardown(() => fake.close())
t.beforeEach(() => fake.reset())

t.test('a short request passes through byte for byte, in both directions', async (t) => {
  // Odd spacing and key order: a proxy that re-serialised would change them.
  const body = '{ "messages":[{"role":"user","content":"Say hi"}],  "model":"gpt-4o", "temperature":0.2 }'
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${fake.apiKey}`, 'x-custom-header': 'kept' }
  const via = await fetch(`${base}/v1/chat/completions`, { method: 'POST', headers, body })
  const viaText = await via.text()
  t.equal(via.status, 200)
  t.equal(via.headers.get('x-compactd-compacted'), 'false')
  t.equal(fake.lastRequest!.rawBody, body, 'the upstream got the bytes sent')
  t.equal(fake.lastRequest!.headers['x-custom-header'], 'kept', 'unknown headers pass')
  t.equal(fake.lastRequest!.headers.authorization, `Bearer ${fake.apiKey}`, "the caller's credentials pass")
  fake.reset()
  const direct = await fetch(`${fake.openaiBaseURL}/chat/completions`, { method: 'POST', headers, body })
  // The fake stamps `created` in seconds: the one field that may differ between the two calls.
  const unstamped = (text: string) => text.replace(/"created":\d+/, '"created":0')
  t.equal(unstamped(viaText), unstamped(await direct.text()), 'the client got the bytes the provider sent')
})

t.test('a stream passes through as the provider sent it, event for event', async (t) => {
  for (const [url, direct, body] of [
    [`${base}/v1/chat/completions`, `${fake.openaiBaseURL}/chat/completions`, { model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'Summarize: src/a.ts was edited.' }] }],
    [`${base}/v1/messages`, `${fake.anthropicBaseURL}/v1/messages`, { model: 'claude-opus-4-5', max_tokens: 256, stream: true, messages: [{ role: 'user', content: 'Summarize: src/a.ts was edited.' }] }],
    [`${base}/v1/responses`, `${fake.openaiBaseURL}/responses`, { model: 'gpt-4o', stream: true, input: 'Summarize: src/a.ts was edited.' }],
  ] as const) {
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${fake.apiKey}`, 'x-api-key': fake.apiKey, 'anthropic-version': '2023-06-01' }
    fake.reset()
    const via = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) })
    t.match(via.headers.get('content-type'), /^text\/event-stream/, `${url}: an event stream`)
    const viaText = await via.text()
    fake.reset()
    const directText = await (await fetch(direct, { method: 'POST', headers, body: JSON.stringify(body) })).text()
    // The fake stamps times in seconds (created, created_at, completed_at): the one thing that may differ between the two calls.
    const unstamped = (text: string) => text.replace(/"(created|created_at|completed_at)":\d+/g, '"$1":0')
    t.equal(unstamped(viaText), unstamped(directText), `${url}: the same events, byte for byte`)
    t.ok(viaText.split('\n\n').length > 4, `${url}: several events`)
  }
})

t.test('the OpenAI SDK: chat completions, streamed and not, and the Responses API', async (t) => {
  const client = new OpenAI({ apiKey: fake.apiKey, baseURL: `${base}/v1`, maxRetries: 0 })
  const done = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Summarize: src/a.ts was edited.' }] })
  t.ok(done.choices[0]!.message.content, 'a completion')
  fake.reset()
  const stream = await client.chat.completions.create({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'Summarize: src/a.ts was edited.' }] })
  let streamed = ''
  let chunks = 0
  for await (const chunk of stream) {
    streamed += chunk.choices[0]?.delta?.content ?? ''
    chunks++
  }
  t.equal(streamed, done.choices[0]!.message.content, 'the streamed text equals the whole one')
  t.ok(chunks > 2, 'in several chunks')
  const response = await client.responses.create({ model: 'gpt-4o', input: [{ role: 'user', content: 'Summarize: src/a.ts was edited.' }] })
  t.ok(response.output_text, 'a Responses answer')
  t.equal(fake.lastRequest!.route, 'responses')
  const events: string[] = []
  for await (const event of await client.responses.create({ model: 'gpt-4o', stream: true, input: 'Hello' })) events.push(event.type)
  t.equal(events.at(-1), 'response.completed', 'a streamed Responses answer ends completed')
})

t.test('the Anthropic SDK: messages streamed and not, count_tokens answered by compactd', async (t) => {
  const client = new Anthropic({ apiKey: fake.apiKey, baseURL: base, maxRetries: 0 })
  const msg = await client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 256, messages: [{ role: 'user', content: 'Summarize: src/a.ts was edited.' }] })
  t.equal(msg.type, 'message')
  const sent = fake.lastRequest!.headers
  t.ok(sent['x-api-key'] === fake.apiKey || sent.authorization === `Bearer ${fake.apiKey}`, "the SDK's credentials reached the provider")
  t.equal(sent['anthropic-version'], '2026-10-21', 'anthropic-version passes')
  const text = await client.messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 256, messages: [{ role: 'user', content: 'Summarize: src/a.ts was edited.' }] }).finalText()
  t.equal(text, (msg.content[0] as { text: string }).text)
  fake.reset()
  const counted = await client.messages.countTokens({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'Hello there' }] })
  t.ok(counted.input_tokens > 0)
  t.equal(fake.requests.length, 0, 'count_tokens never reaches the provider')
})

for (const format of ['openai', 'anthropic', 'responses'] as const) {
  t.test(`${format}: a long conversation is compacted under the threshold, and the next turn reuses the prefix byte for byte`, async (t) => {
    const openaiMessages = longConversation()
    const threshold = 2500
    const session = `long-${format}`
    const headers = { 'x-compactd-threshold': String(threshold), 'x-compactd-session': session }
    const send = async (messages: Message[]) => {
      if (format === 'openai') {
        const client = new OpenAI({ apiKey: fake.apiKey, baseURL: `${base}/v1`, maxRetries: 0, defaultHeaders: headers })
        const { response } = await client.chat.completions.create({ model: 'gpt-4o', messages: messages as never }).withResponse()
        return { response, sent: fake.lastRequest!.body.messages as unknown[], system: undefined }
      }
      const converted = inFormat(messages, format)
      if (format === 'anthropic') {
        const client = new Anthropic({ apiKey: fake.apiKey, baseURL: base, maxRetries: 0, defaultHeaders: headers })
        const { response } = await client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 512, system: converted.system as string, messages: converted.messages as never }).withResponse()
        return { response, sent: fake.lastRequest!.body.messages as unknown[], system: fake.lastRequest!.body.system }
      }
      const client = new OpenAI({ apiKey: fake.apiKey, baseURL: `${base}/v1`, maxRetries: 0, defaultHeaders: headers })
      const { response } = await client.responses.create({ model: 'gpt-4o', input: converted.messages as never }).withResponse()
      return { response, sent: fake.lastRequest!.body.input as unknown[], system: undefined }
    }

    const first = await send(openaiMessages)
    t.equal(first.response.headers.get('x-compactd-compacted'), 'true')
    t.equal(first.response.headers.get('x-compactd-prefix'), 'new')
    t.equal(first.response.headers.get('x-compactd-session'), session)
    t.ok(Number(first.response.headers.get('x-compactd-checkpoint')) >= 1, 'a checkpoint was stored')
    const before = Number(first.response.headers.get('x-compactd-tokens-before'))
    const after = Number(first.response.headers.get('x-compactd-tokens-after'))
    t.ok(before >= threshold && after < threshold, `compacted under the threshold: ${before} → ${after}`)
    t.ok(first.sent.length < inFormat(openaiMessages, format === 'openai' ? 'anthropic' : format).messages.length + 20, 'fewer messages went on')
    // Every tool pair valid in the provider's rules: the engine's own check on what was sent.
    const parsed = parseConversation(first.sent, { format, system: first.system })
    t.doesNotThrow(() => checkToolCallIds(parsed), 'tool calls and results pair up')
    if (format === 'openai') t.same(splitPairs(first.sent as Message[]), [], 'no call without its result')

    // The next turn: the history plus two messages.
    // (A user turn first: Anthropic's writer would merge two assistant turns in a row.)
    const next = [...openaiMessages, { role: 'user', content: 'Commit it.' }, { role: 'assistant', content: 'Committing the fix now.' }]
    const second = await send(next)
    t.equal(second.response.headers.get('x-compactd-prefix'), 'reused')
    t.equal(JSON.stringify(second.sent.slice(0, first.sent.length)), JSON.stringify(first.sent), 'the compacted prefix is byte-identical')
    t.ok(second.sent.length > first.sent.length, 'with the new messages after it')
    t.equal(JSON.stringify(second.system ?? null), JSON.stringify(first.system ?? null), 'the same system prompt')

    const checkpoints = await app.inject({ method: 'GET', url: `/sessions/${session}/checkpoints` })
    t.equal(checkpoints.statusCode, 200, 'the compaction is a checkpoint of the session')
  })
}

t.test('a session is derived from the conversation when the client names none', async (t) => {
  const client = new OpenAI({ apiKey: fake.apiKey, baseURL: `${base}/v1`, maxRetries: 0, defaultHeaders: { 'x-compactd-threshold': '2500' } })
  const { response: a } = await client.chat.completions.create({ model: 'gpt-4o', messages: longConversation() as never }).withResponse()
  const { response: b } = await client.chat.completions.create({ model: 'gpt-4o', messages: [...longConversation(), { role: 'user', content: 'And now?' }] as never }).withResponse()
  t.match(a.headers.get('x-compactd-session'), /^proxy-[0-9a-f]{24}$/)
  t.equal(b.headers.get('x-compactd-session'), a.headers.get('x-compactd-session'), 'one session per conversation')
  t.equal(b.headers.get('x-compactd-prefix'), 'reused')
})

t.test('upstream errors pass through; compactd’s own errors take the provider’s shape', async (t) => {
  fake.enqueue({ kind: 'rate-limit', retryAfterSeconds: 7 })
  const limited = await fetch(`${base}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${fake.apiKey}` }, body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }) })
  t.equal(limited.status, 429)
  t.equal(limited.headers.get('retry-after'), '7')
  t.match(await limited.json(), { error: { message: /rate limit/i } }, "the provider's own body")

  const bad = await fetch(`${base}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":"claude-sonnet-4-5","messages":' })
  t.equal(bad.status, 400)
  t.match(await bad.json(), { type: 'error', error: { type: 'invalid_request_error', message: /JSON/ } }, 'Anthropic shape')
  const badThreshold = await fetch(`${base}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-compactd-threshold': 'lots' }, body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }) })
  t.equal(badThreshold.status, 400)
  t.match(await badThreshold.json(), { error: { type: 'invalid_request_error', message: /x-compactd-threshold/ } }, 'OpenAI shape, naming the header')
  const tooSmall = await fetch(`${base}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-compactd-threshold': '5' }, body: JSON.stringify({ model: 'gpt-4o', messages: longConversation(3) }) })
  t.equal(tooSmall.status, 400)
  t.match(await tooSmall.json(), { error: { code: 'context_length_exceeded' } })
})

t.test('an unreachable upstream is a 502 in the provider’s shape', async (t) => {
  const closed = await startFakeProvider()
  const url = closed.anthropicBaseURL
  await closed.close()
  const { app: other } = await buildTestApp(t, { config: { UPSTREAM_ANTHROPIC_URL: url } })
  const res = await other.inject({ method: 'POST', url: '/v1/messages', payload: { model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] } })
  t.equal(res.statusCode, 502)
  t.match(res.json(), { type: 'error', error: { type: 'api_error', message: /could not be reached/ } })
})

t.test('models are passed through', async (t) => {
  const client = new OpenAI({ apiKey: fake.apiKey, baseURL: `${base}/v1`, maxRetries: 0 })
  const models = await client.models.list()
  t.ok(models.data.length > 0)
  t.equal(fake.lastRequest!.path, '/v1/models')
})

t.test('x-compactd-recall: on answers the model’s search_context calls from the archive, then streams the final answer', async (t) => {
  const headers = { 'x-compactd-threshold': '2500', 'x-compactd-session': 'recall-openai' }
  const client = new OpenAI({ apiKey: fake.apiKey, baseURL: `${base}/v1`, maxRetries: 0, defaultHeaders: headers })
  const history = longConversation()
  await client.chat.completions.create({ model: 'gpt-4o', messages: history as never })
  fake.reset()
  // The model searches once, then answers with what the search returned.
  const answerWith = { kind: 'ok' as const, content: (turn: { lastMessage: string }) => `From the archive: ${turn.lastMessage}` }
  fake.enqueue({ kind: 'ok', toolCalls: [{ name: 'search_context', input: { query: 'src/module3.ts failing test' } }] }, answerWith)
  const recalling = new OpenAI({ apiKey: fake.apiKey, baseURL: `${base}/v1`, maxRetries: 0, defaultHeaders: { ...headers, 'x-compactd-recall': 'on' } })
  const asked = [...history, { role: 'user', content: 'What did the test of src/module3.ts fail with?' }]
  const { data, response } = await recalling.chat.completions.create({ model: 'gpt-4o', messages: asked as never }).withResponse()
  t.equal(response.headers.get('x-compactd-recall-rounds'), '1')
  t.match(data.choices[0]!.message.content, /From the archive: Archived messages matching "src\/module3\.ts failing test"[\s\S]*\[ref \w{8}\][\s\S]*module3/, 'the answer holds the archived hit')
  t.equal(fake.requests.length, 2, 'two rounds upstream')
  t.ok((fake.requests[0]!.body.tools as { function: { name: string } }[]).some((x) => x.function.name === 'search_context'), 'the tool was added')
  t.match(fake.requests[1]!.body.messages.at(-1), { role: 'tool', content: /\[ref \w{8}\]/ }, 'the search answered the call')

  fake.reset()
  fake.enqueue({ kind: 'ok', toolCalls: [{ name: 'search_context', input: { query: 'module3' } }] }, answerWith, answerWith)
  let streamed = ''
  for await (const chunk of await recalling.chat.completions.create({ model: 'gpt-4o', stream: true, messages: asked as never })) streamed += chunk.choices[0]?.delta?.content ?? ''
  t.match(streamed, /^From the archive: Archived messages matching "module3"/, 'the final answer, streamed')
  t.equal(fake.requests.at(-1)!.body.stream, true, 'the last request streamed')
  t.notOk(fake.requests[0]!.body.stream, 'the rounds did not')

  fake.reset()
  const anthropic = new Anthropic({ apiKey: fake.apiKey, baseURL: base, maxRetries: 0, defaultHeaders: { 'x-compactd-recall': 'on', 'x-compactd-session': 'nothing-archived' } })
  fake.enqueue({ kind: 'ok', toolCalls: [{ name: 'search_context', input: { query: 'anything' } }] }, answerWith)
  const msg = await anthropic.messages.create({ model: 'claude-opus-4-5', max_tokens: 256, messages: [{ role: 'user', content: 'What did we decide?' }] })
  t.match((msg.content[0] as { text: string }).text, /Nothing of this conversation has been archived yet/, 'Anthropic: a session with no archive says so')
  t.match(fake.requests[1]!.body.messages.at(-1), { role: 'user', content: [{ type: 'tool_result' }] })

  const bad = await app.inject({ method: 'POST', url: '/v1/chat/completions', headers: { 'x-compactd-recall': 'yes' }, payload: { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] } })
  t.equal(bad.statusCode, 400)
  t.match(bad.json(), { error: { message: /x-compactd-recall/ } })
})

const FIXTURE = 'deepseek_chat_dev_rerun__pylint-dev__astroid-1333.json'
t.test('a real agent session through the proxy: compacted under the threshold, pairs valid, the next turn a byte-identical prefix', { skip: conversationsSkip([FIXTURE]) }, async (t) => {
  const all = fixtureConversation(FIXTURE)
  const history = all.slice(0, all.length - 2)
  const headers = { 'x-compactd-threshold': '8000', 'x-compactd-session': 'fixture-astroid' }
  const client = new OpenAI({ apiKey: fake.apiKey, baseURL: `${base}/v1`, maxRetries: 0, defaultHeaders: headers })
  const { response } = await client.chat.completions.create({ model: 'gpt-4o', messages: history as never }).withResponse()
  t.equal(response.headers.get('x-compactd-prefix'), 'new')
  t.ok(Number(response.headers.get('x-compactd-tokens-after')) < 8000, `under the threshold: ${response.headers.get('x-compactd-tokens-before')} → ${response.headers.get('x-compactd-tokens-after')}`)
  const sent = fake.lastRequest!.body.messages as Message[]
  t.same(splitPairs(sent), [], 'every tool call with its result')
  t.doesNotThrow(() => checkToolCallIds(parseConversation(sent, { format: 'openai' })))
  const next = await client.chat.completions.create({ model: 'gpt-4o', messages: all as never }).withResponse()
  t.equal(next.response.headers.get('x-compactd-prefix'), 'reused')
  t.equal(JSON.stringify((fake.lastRequest!.body.messages as unknown[]).slice(0, sent.length)), JSON.stringify(sent), 'the same prefix, byte for byte')
  // The dashboard lists the proxy's session like any compaction series.
  const listed = await app.inject({ method: 'GET', url: '/sessions?q=fixture-astroid' })
  t.match(listed.json(), { items: [{ id: 'fixture-astroid', checkpoints: 1 }] })
})
