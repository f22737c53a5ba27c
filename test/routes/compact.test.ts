/**
 * POST /compact over HTTP (app.inject, default backend): untouched input under the
 * threshold, force, large conversations in all three formats fitted to a target and
 * checked with POST /estimate, dry runs, impossible targets, the summarizer SSRF guard,
 * and the llm strategy against the fake provider, with every fault falling back to rules.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { build } from '../../src/app.ts'
import { testConfig, type Config } from '../../src/config.ts'
import { parseConversation, type MessageFormat } from '../../src/engine/messages/index.ts'
import { startFakeProvider, type FakeBehaviour, type FakeProvider } from '../fakes/fake-llm-provider.ts'
import { buildTestApp } from '../helpers/build.ts'
import { findPairingProblems } from '../helpers/conversation-arbitraries.ts'
import { createTestDatabase, defaultBackend } from '../helpers/databases.ts'
import { prose } from '../helpers/prose.ts'

// ---------------------------------------------------------------------------
// A generated agent session: system + task + N assistant/tool pairs with big outputs


const SYSTEM = 'You are a coding agent working in a TypeScript repository. Use the tools.'
const TASK = 'Add a --due flag to the flashcard CLI in src/cli.ts and make npm test pass.'
const FILES = ['src/cli.ts', 'src/db/schema.ts', 'src/sm2.ts', 'test/cli.test.ts', 'src/review.ts']

interface Conversation {
  messages: Record<string, unknown>[]
  system?: unknown
}

function session(format: MessageFormat, pairs = 60, outputChars = 6000): Conversation {
  const calls = Array.from({ length: pairs }, (_, k) => ({
    id: `call_${k}`,
    name: k % 3 === 0 ? 'bash' : 'read_file',
    input: k % 3 === 0 ? { command: `npm test -- ${FILES[k % FILES.length]}` } : { path: FILES[k % FILES.length] },
    text: `Step ${k}: checking ${FILES[k % FILES.length]}.`,
    output: (k % 7 === 3 ? `Error: expected 3, got 4 in ${FILES[k % FILES.length]}\n` : '') + prose(outputChars, k + 1),
  }))
  const end = [
    { role: 'assistant', content: 'All tests pass now; the --due flag lists cards due today.' },
    { role: 'user', content: 'Great. Now also add a --limit option.' },
  ]
  if (format === 'openai') {
    const messages: Record<string, unknown>[] = [{ role: 'system', content: SYSTEM }, { role: 'user', content: TASK }]
    for (const c of calls) {
      messages.push({ role: 'assistant', content: c.text, tool_calls: [{ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.input) } }] })
      messages.push({ role: 'tool', tool_call_id: c.id, content: c.output })
    }
    return { messages: [...messages, ...end] }
  }
  if (format === 'anthropic') {
    const messages: Record<string, unknown>[] = [{ role: 'user', content: TASK }]
    for (const c of calls) {
      messages.push({ role: 'assistant', content: [{ type: 'text', text: c.text }, { type: 'tool_use', id: c.id, name: c.name, input: c.input }] })
      messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: c.id, content: c.output }] })
    }
    return { messages: [...messages, ...end], system: [{ type: 'text', text: SYSTEM, cache_control: { type: 'ephemeral' } }] }
  }
  const messages: Record<string, unknown>[] = [{ role: 'system', content: SYSTEM }, { role: 'user', content: TASK }]
  for (const c of calls) {
    messages.push({ role: 'assistant', content: [{ type: 'text', text: c.text }, { type: 'tool-call', toolCallId: c.id, toolName: c.name, input: c.input }] })
    messages.push({ role: 'tool', content: [{ type: 'tool-result', toolCallId: c.id, toolName: c.name, output: { type: 'text', value: c.output } }] })
  }
  return { messages: [...messages, ...end] }
}

const FORMATS: MessageFormat[] = ['openai', 'anthropic', 'ai-sdk']
const HEADER_1 = '## Session Summary (Compaction Round 1)'

function summaryText(message: unknown): string {
  const content = (message as { content: unknown }).content
  if (typeof content === 'string') return content
  return (content as { text?: string }[]).map((b) => b.text ?? '').join('')
}

// ---------------------------------------------------------------------------

t.test('a conversation under the threshold comes back untouched', async (t) => {
  const { app } = await buildTestApp(t)
  const conv = session('openai', 3, 400)
  const res = await app.inject({ method: 'POST', url: '/compact', payload: { ...conv, model: 'gpt-4o', sessionId: 'small-1' } })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.equal(body.compacted, false)
  t.match(body.reason, /already fit/)
  t.equal(body.strategy, 'none')
  t.equal(body.targetTokens, 93600, "the default target is the model's threshold, as /estimate computes it")
  t.same(body.messages, conv.messages, 'every message as sent')
  t.notOk(body.checkpoint, 'nothing was compacted, nothing stored')
  t.notOk(body.summary)
  const stored = await app.inject({ method: 'GET', url: '/sessions/small-1/checkpoints' })
  t.equal(stored.statusCode, 404)
})

t.test('force compacts a conversation that already fits', async (t) => {
  const { app } = await buildTestApp(t)
  const conv = session('openai', 12, 3000)
  const plain = await app.inject({ method: 'POST', url: '/compact', payload: { ...conv, keepRecent: 4 } })
  t.equal(plain.json().compacted, false)
  const res = await app.inject({ method: 'POST', url: '/compact', payload: { ...conv, keepRecent: 4, force: true } })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.equal(body.compacted, true)
  t.ok(body.event.tokensAfter < body.event.tokensBefore, `${body.event.tokensBefore} → ${body.event.tokensAfter}`)
  t.same(body.messages.slice(-4), conv.messages.slice(-4), 'keepRecent messages verbatim')
})

t.test('force on a conversation smaller than any compaction: 200, unchanged, and says why', async (t) => {
  const { app } = await buildTestApp(t)
  const messages = [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'ok' }]
  for (const extra of [{}, { targetTokens: 100 }, { targetTokens: 100, strategy: 'rules' }, { keepRecent: 0 }]) {
    const res = await app.inject({ method: 'POST', url: '/compact', payload: { messages, force: true, ...extra } })
    t.equal(res.statusCode, 200, JSON.stringify(extra))
    const body = res.json()
    t.equal(body.compacted, false)
    t.match(body.reason, /already (fits|smaller)|would not make the conversation smaller/, body.reason)
    t.same(body.messages, messages, 'returned as sent')
    t.notOk(body.checkpoint)
  }
  // Stored nothing under a session either.
  const named = await app.inject({ method: 'POST', url: '/compact', payload: { messages, force: true, targetTokens: 100, sessionId: 'tiny-force' } })
  t.equal(named.statusCode, 200)
  t.equal((await app.inject({ method: 'GET', url: '/sessions/tiny-force/checkpoints' })).statusCode, 404)
  // A conversation over the target that cannot reach it is still the 422.
  const conv = session('openai', 20, 3000)
  t.equal((await app.inject({ method: 'POST', url: '/compact', payload: { ...conv, force: true, targetTokens: 100 } })).statusCode, 422)
})

t.test('reserves that leave no room are a 400 naming the fields, as on /estimate', async (t) => {
  const { app } = await buildTestApp(t)
  const messages = [{ role: 'user', content: 'hi' }]
  const res = await app.inject({ method: 'POST', url: '/compact', payload: { messages, contextLimit: 1000, outputReserve: 5000 } })
  t.equal(res.statusCode, 400)
  t.equal(res.json().error, 'validation_error')
  t.same(res.json().issues.map((i: { path: string }) => i.path).sort(), ['body.contextLimit', 'body.outputReserve'])
  // Even with an explicit target the request contradicts itself.
  const withTarget = await app.inject({ method: 'POST', url: '/compact', payload: { messages, contextLimit: 1000, outputReserve: 5000, targetTokens: 500 } })
  t.equal(withTarget.statusCode, 400)
  // gpt-4 with the default reserves: a 400 naming the model and targetTokens, unless targetTokens is given.
  t.same((await app.inject({ method: 'POST', url: '/compact', payload: { messages, model: 'gpt-4' } })).json().issues.map((i: { path: string }) => i.path), ['body.model', 'body.targetTokens'])
  t.equal((await app.inject({ method: 'POST', url: '/compact', payload: { messages, model: 'gpt-4', targetTokens: 4000 } })).statusCode, 200)
})

for (const format of FORMATS) {
  t.test(`${format}: a long session fits targetTokens, ends and system intact, pairing valid`, async (t) => {
    const { app } = await buildTestApp(t)
    const conv = session(format)
    const targetTokens = 8000
    const before = await app.inject({ method: 'POST', url: '/estimate', payload: { ...conv, model: 'gpt-4o' } })
    t.ok(before.json().totalTokens > 60_000, `input is large (${before.json().totalTokens} tokens)`)

    const res = await app.inject({ method: 'POST', url: '/compact', payload: { ...conv, model: 'gpt-4o', targetTokens } })
    t.equal(res.statusCode, 200)
    const body = res.json()
    t.equal(body.compacted, true)
    t.equal(body.format, format)
    t.equal(body.strategy, 'rules', 'default pipeline mask,rules writes a rules summary')
    t.same(body.fallbacks, [])
    t.equal(body.event.round, 1)

    // The output fits, counted by /estimate exactly as a client would.
    const after = await app.inject({ method: 'POST', url: '/estimate', payload: { messages: body.messages, system: body.system, format, model: 'gpt-4o' } })
    t.equal(after.statusCode, 200)
    t.ok(after.json().totalTokens <= targetTokens, `estimate of the output: ${after.json().totalTokens} ≤ ${targetTokens}`)
    t.equal(after.json().totalTokens, body.event.tokensAfter, 'event.tokensAfter is what /estimate counts')

    // System prompt and task byte-identical; the last messages too.
    if (format === 'anthropic') {
      t.same(body.system, conv.system, 'top-level system returned as sent')
      t.same(body.messages[0], conv.messages[0], 'task message')
    } else {
      t.notOk('system' in body)
      t.same(body.messages.slice(0, 2), conv.messages.slice(0, 2), 'system and task messages')
    }
    t.same(body.messages.slice(-10), conv.messages.slice(-10), 'the 10 most recent messages (keepRecent default)')

    // Tool pairing of the output, parsed in its own format.
    const parsed = parseConversation(body.messages, { format, system: body.system })
    t.same(findPairingProblems(parsed), [], 'every tool call has its result')

    // The summary message.
    t.ok(body.summary, 'a summary was written')
    t.ok(body.summary.text.startsWith(HEADER_1), 'summary text starts with the round 1 header')
    t.equal(body.summary.role, 'user')
    const message = body.messages[body.summary.index]
    t.ok(summaryText(message).startsWith(HEADER_1), `messages[${body.summary.index}] is the summary message`)
    t.equal(body.summary.keyFacts.currentTask.length > 0, true)
    t.ok(body.summary.keyFacts.relevantFiles.includes('src/cli.ts'))
    t.ok(body.plan.some((p: { action: string }) => p.action !== 'keep'), 'the plan says what was compacted')
  })
}

t.test('an OpenAI conversation with a separate system counts it and returns it unchanged', async (t) => {
  const { app } = await buildTestApp(t)
  const conv = session('openai')
  const messages = conv.messages.slice(1) // no system message: it is sent as `system`
  const res = await app.inject({ method: 'POST', url: '/compact', payload: { messages, system: SYSTEM, format: 'openai', targetTokens: 8000 } })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.equal(body.system, SYSTEM)
  t.same(body.messages[0], messages[0], 'the task stays first')
  const after = await app.inject({ method: 'POST', url: '/estimate', payload: { messages: body.messages, system: body.system, format: 'openai' } })
  t.ok(after.json().totalTokens <= 8000, 'fits with the system counted')
  t.ok(body.summary.text.startsWith(HEADER_1))
  t.ok(summaryText(body.messages[body.summary.index]).startsWith(HEADER_1), 'summary index points into the returned messages')
})

t.test('options: strategy as a name, summaryRole, keepRecentTokens, clearToolInputs', async (t) => {
  const { app } = await buildTestApp(t)
  const conv = session('openai', 30, 3000)
  const one = await app.inject({ method: 'POST', url: '/compact', payload: { ...conv, targetTokens: 6000, strategy: 'truncate', summaryRole: 'system' } })
  t.equal(one.statusCode, 200)
  t.equal(one.json().strategy, 'truncate')
  t.equal(one.json().summary.role, 'system')
  t.equal((one.json().messages[one.json().summary.index] as { role: string }).role, 'system')

  const byTokens = await app.inject({ method: 'POST', url: '/compact', payload: { ...conv, targetTokens: 6000, keepRecentTokens: 1500, clearToolInputs: true } })
  t.equal(byTokens.statusCode, 200)
  t.equal(byTokens.json().compacted, true)

  const both = await app.inject({ method: 'POST', url: '/compact', payload: { ...conv, keepRecent: 4, keepRecentTokens: 1500 } })
  t.equal(both.statusCode, 400)
  t.equal(both.json().error, 'validation_error')
  t.equal(both.json().issues[0].path, 'body.keepRecentTokens')

  const badSession = await app.inject({ method: 'POST', url: '/compact', payload: { ...conv, sessionId: 'has spaces/and slashes' } })
  t.equal(badSession.statusCode, 400)
  t.equal(badSession.json().issues[0].path, 'body.sessionId')

  const badStrategy = await app.inject({ method: 'POST', url: '/compact', payload: { ...conv, strategy: ['mask', 'magic'] } })
  t.equal(badStrategy.statusCode, 400)
  t.match(badStrategy.json().issues[0].path, /^body\.strategy/)
})

t.test('an impossible target is a 422 with the numbers', async (t) => {
  const { app } = await buildTestApp(t)
  const conv = session('openai', 20, 3000)
  const tiny = await app.inject({ method: 'POST', url: '/compact', payload: { ...conv, targetTokens: 100 } })
  t.equal(tiny.statusCode, 422)
  t.equal(tiny.json().error, 'budget_unreachable')
  t.equal(tiny.json().targetTokens, 100)
  t.match(tiny.json().message, /cannot fit 100 tokens/)
  for (const field of ['minimumTokens', 'tokensBefore', 'headTokens', 'summaryTokens', 'lastTurnTokens']) t.type(tiny.json()[field], 'number', `${field} is given`)
  t.ok(tiny.json().requestId)
  const minimum = tiny.json().minimumTokens
  t.ok(minimum > 100, `minimumTokens ${minimum} is above the refused target`)
  const atMinimum = await app.inject({ method: 'POST', url: '/compact', payload: { ...conv, targetTokens: minimum } })
  t.equal(atMinimum.statusCode, 200, 'minimumTokens is reachable')
  t.ok(atMinimum.json().event.tokensAfter <= minimum)
  const below = await app.inject({ method: 'POST', url: '/compact', payload: { ...conv, targetTokens: minimum - 1 } })
  t.equal(below.statusCode, 422, 'one token less is not')

  // A system prompt larger than the target: nothing can be dropped from it.
  const bigSystem = { ...conv, messages: [{ role: 'system', content: prose(12_000, 99) }, ...conv.messages.slice(1)] }
  const res = await app.inject({ method: 'POST', url: '/compact', payload: { ...bigSystem, targetTokens: 1000 } })
  t.equal(res.statusCode, 422)
  const body = res.json()
  t.equal(body.targetTokens, 1000)
  t.ok(body.headTokens > 1000, `the head alone is ${body.headTokens} tokens`)
  t.ok(body.minimumTokens > body.headTokens, `minimum ${body.minimumTokens} > head ${body.headTokens}`)
  const retry = await app.inject({ method: 'POST', url: '/compact', payload: { ...bigSystem, targetTokens: body.minimumTokens + 200 } })
  t.equal(retry.statusCode, 200, 'a target above minimumTokens works')
})

// A conversation that compacting cannot shrink (it is all head: system prompt and first
// task; or a summary and the last turn would be larger than what they replace) said
// "need at least 70368744177664": the doubling search's last bound (64 × 2^40), never
// checked. The true minimum is the smallest target that succeeds: at most the
// conversation's own size, since a target it fits returns it unchanged.
t.test('an impossible target on a short conversation names the true minimum, not 2^46', async (t) => {
  const { app } = await buildTestApp(t)
  const long = 'word '.repeat(50)
  const U = (content: string) => ({ role: 'user', content })
  const A = (content: string) => ({ role: 'assistant', content })
  const cases: [string, object][] = [
    ['user, assistant', { messages: [U('Fix the failing test in src/db.ts please'), A('Sure, running the tests now.')] }],
    ['two user messages (all head)', { messages: [U(long), U(long)] }],
    ['system, user (all head)', { messages: [{ role: 'system', content: long }, U(long)] }],
    ['assistant, user (all head)', { messages: [A(long), U(long)] }],
    ['user, assistant, long', { messages: [U(long), A(long)] }],
    ['mask only', { messages: [U(long), A(long)], strategy: 'mask' }],
    ['keepFirst 2', { messages: [U(long), A(long)], keepFirst: 2 }],
    ['anthropic', { messages: [U(long), A(long)], format: 'anthropic' }],
    ['a tool call', { messages: [U(long), { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] }, { role: 'tool', tool_call_id: 'c', content: long }] }],
  ]
  for (const [label, payload] of cases) {
    const res = await app.inject({ method: 'POST', url: '/compact', payload: { ...payload, targetTokens: 20 } })
    t.equal(res.statusCode, 422, `${label}: 422`)
    const body = res.json()
    t.equal(body.error, 'budget_unreachable')
    const minimum = body.minimumTokens as number
    t.ok(Number.isSafeInteger(minimum) && minimum > 20 && minimum <= body.tokensBefore, `${label}: minimum ${minimum}, within (20, tokensBefore ${body.tokensBefore}]`)
    t.match(body.message, new RegExp(`need(s)? at least ${minimum}\\b`), `${label}: the message says ${minimum}: ${body.message}`)
    t.notMatch(body.message, /70368744177664/)
    const at = await app.inject({ method: 'POST', url: '/compact', payload: { ...payload, targetTokens: minimum } })
    t.equal(at.statusCode, 200, `${label}: targetTokens ${minimum} succeeds`)
    t.ok(at.json().event.tokensAfter <= minimum, `${label}: and fits it`)
    const below = await app.inject({ method: 'POST', url: '/compact', payload: { ...payload, targetTokens: minimum - 1 } })
    t.equal(below.statusCode, 422, `${label}: ${minimum - 1} does not`)
    t.equal(below.json().minimumTokens, minimum, `${label}: and names the same minimum`)
  }
})

t.test('broken tool pairing: repaired by default, a 400 naming the message with reject', async (t) => {
  const { app } = await buildTestApp(t)
  const conv = session('anthropic', 20, 3000)
  // Drop the result of call_5 (messages[12] answers messages[11]).
  const messages = conv.messages.filter((_, i) => i !== 12)
  const rejected = await app.inject({ method: 'POST', url: '/compact', payload: { messages, system: conv.system, targetTokens: 6000, onBrokenInput: 'reject' } })
  t.equal(rejected.statusCode, 400)
  t.equal(rejected.json().error, 'broken_tool_pairing')
  t.equal(rejected.json().issues[0].path, 'messages[11]', "the caller's index, not shifted by the top-level system")
  t.match(rejected.json().message, /^messages\[11\]: call-without-result/)

  const repaired = await app.inject({ method: 'POST', url: '/compact', payload: { messages, system: conv.system, targetTokens: 6000 } })
  t.equal(repaired.statusCode, 200)
  t.ok(repaired.json().repairs.length > 0, 'the repair is reported')
  t.same(findPairingProblems(parseConversation(repaired.json().messages, { format: 'anthropic', system: repaired.json().system })), [])
})

// ---------------------------------------------------------------------------
// llm strategy against the fake provider

const MODEL = 'gpt-4o-mini'

async function llmApp(t: { teardown(fn: () => unknown): void }, config: Partial<Config> = {}) {
  const fake: FakeProvider = await startFakeProvider({ apiKey: 'sk-fake-compact-0123456789' })
  t.teardown(() => fake.close())
  const { app } = await buildTestApp(t, {
    config: {
      OPENAI_API_KEY: fake.apiKey,
      OPENAI_BASE_URL: fake.openaiBaseURL,
      SUMMARIZER_OPENAI_MODELS: [MODEL],
      PROVIDER_MAX_RETRIES: 0,
      PROVIDER_TIMEOUT_MS: 800,
      ...config,
    },
  })
  return { app, fake }
}

t.test('summarizer: only provider and model; baseURL, apiKey, url are refused before any request', async (t) => {
  const { app, fake } = await llmApp(t)
  const conv = session('openai', 20, 3000)
  for (const [field, value] of [
    ['baseURL', 'http://169.254.169.254/latest/'],
    ['apiKey', 'sk-attacker'],
    ['url', 'http://evil.example/v1'],
  ] as const) {
    const res = await app.inject({
      method: 'POST',
      url: '/compact',
      payload: { ...conv, targetTokens: 6000, strategy: ['llm'], summarizer: { provider: 'openai', [field]: value } },
    })
    t.equal(res.statusCode, 400, `${field} is refused`)
    t.equal(res.json().error, 'validation_error')
    t.equal(res.json().issues[0].path, `body.summarizer.${field}`, 'the unknown field is named')
    t.match(res.json().message, new RegExp(field), `the message names ${field}`)
  }
  const topLevel = await app.inject({ method: 'POST', url: '/compact', payload: { ...conv, strategy: ['llm'], baseURL: 'http://evil.example' } })
  t.equal(topLevel.statusCode, 400)
  t.match(topLevel.json().message, /baseURL/)
  t.equal(fake.requests.length, 0, 'the provider never saw a request')

  // A provider without a key here is no usable summarizer: the fallback, as with none configured.
  const unconfigured = await app.inject({ method: 'POST', url: '/compact', payload: { ...conv, targetTokens: 6000, strategy: ['llm'], summarizer: { provider: 'anthropic' } } })
  t.equal(unconfigured.statusCode, 200)
  t.equal(unconfigured.json().strategy, 'rules')
  t.match(unconfigured.json().fallbacks[0].reason, /^unavailable: summarizer provider "anthropic" is not configured on this server/)

  const model = await app.inject({ method: 'POST', url: '/compact', payload: { ...conv, targetTokens: 6000, strategy: ['llm'], summarizer: { provider: 'openai', model: 'gpt-4.1' } } })
  t.equal(model.statusCode, 400)
  t.equal(model.json().issues[0].path, 'body.summarizer.model')
  t.match(model.json().message, /gpt-4o-mini/, 'lists the allowed models')
  t.equal(fake.requests.length, 0)
})

t.test("strategy ['llm'] summarises with the configured model and reports its cost", async (t) => {
  const { app, fake } = await llmApp(t)
  const conv = session('openai', 40, 4000)
  const res = await app.inject({ method: 'POST', url: '/compact', payload: { ...conv, model: 'gpt-4o', targetTokens: 8000, strategy: ['llm'], summarizer: { provider: 'openai', model: MODEL } } })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.equal(body.strategy, 'llm')
  t.same(body.fallbacks, [])
  t.ok(body.event.costUsd > 0, `cost ${body.event.costUsd}`)
  t.ok(body.summary.text.startsWith(HEADER_1))
  t.ok(fake.requests.length >= 1)
  t.equal(fake.requests[0]!.body.model, MODEL)
  t.equal(fake.requests[0]!.headers.authorization, `Bearer ${fake.apiKey}`, "the server's key, from configuration")
  const after = await app.inject({ method: 'POST', url: '/estimate', payload: { messages: body.messages, model: 'gpt-4o' } })
  t.ok(after.json().totalTokens <= 8000)
})

t.test('dry run: a plan, no model call, nothing stored', async (t) => {
  const { app, fake } = await llmApp(t)
  const conv = session('openai', 40, 4000)
  const res = await app.inject({ method: 'POST', url: '/compact', payload: { ...conv, targetTokens: 8000, strategy: ['llm'], dryRun: true, sessionId: 'dry-1' } })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.equal(body.compacted, false)
  t.match(body.reason, /dry run/)
  t.same(body.messages, conv.messages, 'input unchanged')
  t.ok(body.plan.length >= 3)
  t.ok(body.plan.some((p: { action: string }) => p.action === 'summarize'), 'the plan names what would be summarised')
  t.ok(body.event.tokensAfter <= 8000, 'estimated result fits')
  t.equal(fake.requests.length, 0, 'no model was called')
  t.notOk(body.checkpoint)
  t.equal((await app.inject({ method: 'GET', url: '/sessions/dry-1/checkpoints' })).statusCode, 404)
})

t.test('llm without a configured provider falls back to rules', async (t) => {
  const { app } = await buildTestApp(t)
  const conv = session('openai', 40, 4000)
  const res = await app.inject({ method: 'POST', url: '/compact', payload: { ...conv, targetTokens: 8000, strategy: ['llm'] } })
  t.equal(res.statusCode, 200)
  t.equal(res.json().strategy, 'rules')
  t.equal(res.json().fallbacks[0].strategy, 'llm')
  t.match(res.json().fallbacks[0].reason, /^unavailable/)
})

const FAULTS: { name: string; behaviour: FakeBehaviour; reason: RegExp }[] = [
  { name: '429', behaviour: { kind: 'rate-limit', retryAfterMs: 1 }, reason: /^rate_limited:/ },
  { name: '500', behaviour: { kind: 'server-error', status: 500 }, reason: /^server_error:/ },
  { name: 'timeout', behaviour: { kind: 'timeout' }, reason: /^timeout:/ },
  { name: 'malformed JSON', behaviour: { kind: 'malformed-json' }, reason: /^malformed:/ },
  { name: 'empty content', behaviour: { kind: 'empty' }, reason: /^empty:/ },
  {
    name: 'over-budget content',
    behaviour: { kind: 'ok', content: `${HEADER_1}\n\n### Original Task\n${'The flashcard review queue keeps growing with every run. '.repeat(400)}` },
    reason: /^over_budget:/,
  },
]

t.test('every provider fault falls back to rules, never a 500, never error text as the summary', async (t) => {
  const { app, fake } = await llmApp(t)
  const conv = session('openai', 40, 4000)
  for (const fault of FAULTS) {
    fake.reset()
    fake.setDefault(fault.behaviour)
    const res = await app.inject({ method: 'POST', url: '/compact', payload: { ...conv, targetTokens: 8000, strategy: ['llm'], summarizer: { provider: 'openai' } } })
    t.equal(res.statusCode, 200, `${fault.name}: 200`)
    const body = res.json()
    t.equal(body.compacted, true, `${fault.name}: compacted`)
    t.equal(body.strategy, 'rules', `${fault.name}: rules wrote the summary`)
    t.equal(body.fallbacks.length, 1, `${fault.name}: one fallback`)
    t.equal(body.fallbacks[0].strategy, 'llm')
    t.match(body.fallbacks[0].reason, fault.reason, `${fault.name}: ${body.fallbacks[0].reason}`)
    t.ok(fake.requests.length >= 1, `${fault.name}: the provider was called`)
    t.ok(body.summary.text.startsWith(HEADER_1))
    t.notMatch(body.summary.text, /HTTP \d{3}|rate limited|Fake error|timed out|not valid JSON|returned no text|over its/i, `${fault.name}: the error is not the summary`)
    t.notMatch(body.summary.text, /flashcard review queue keeps growing/, `${fault.name}: rejected content is not used`)
    t.notMatch(JSON.stringify(body), new RegExp(fake.apiKey), 'the key never appears')
    t.equal(body.event.costUsd, 0, `${fault.name}: rules costs nothing`)
  }
})

t.test('a client that disconnects aborts the provider call', async (t) => {
  const fake = await startFakeProvider({ apiKey: 'sk-fake-compact-0123456789' })
  t.teardown(() => fake.close())
  fake.setDefault({ kind: 'timeout' })
  const database = await createTestDatabase(await defaultBackend())
  t.teardown(() => database.close())
  const app = await build({
    config: testConfig({ LOG_LEVEL: 'silent', OPENAI_API_KEY: fake.apiKey, OPENAI_BASE_URL: fake.openaiBaseURL, SUMMARIZER_OPENAI_MODELS: [MODEL], PROVIDER_MAX_RETRIES: 0, PROVIDER_TIMEOUT_MS: 60_000 }),
    database,
    logger: false,
  })
  // The client is gone, so no response completes: watch the handler's error instead.
  const finished: { status: number; at: number }[] = []
  app.addHook('onError', async (_req, _reply, err) => {
    finished.push({ status: (err as { statusCode?: number }).statusCode ?? 500, at: Date.now() })
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  const { port } = app.server.address() as AddressInfo

  const payload = JSON.stringify({ ...session('openai', 40, 4000), targetTokens: 8000, strategy: ['llm'] })
  const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/compact', headers: { 'content-type': 'application/json' } })
  req.on('error', () => {})
  req.end(payload)
  // Wait until the provider holds the summary request (the compaction runs on a compute
  // thread, whose first start from source takes seconds under tap), then hang up.
  for (let i = 0; i < 2400 && fake.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 25))
  t.equal(fake.requests.length, 1, 'the provider got the request')
  const hungUp = Date.now()
  req.destroy()
  for (let i = 0; i < 200 && finished.length === 0; i++) await new Promise((r) => setTimeout(r, 25))
  t.equal(finished.length, 1, 'the handler ended')
  t.ok(finished[0]!.at - hungUp < 3_000, `handler ended ${finished[0]!.at - hungUp} ms after the hang-up (provider timeout is 60 s)`)
  t.equal(finished[0]!.status, 499)
})

t.test('minGainTokens: a compaction that would save less comes back unchanged, and stores nothing', async (t) => {
  const { app } = await buildTestApp(t)
  const messages = [{ role: 'system', content: 'You are a coding agent.' }, { role: 'user', content: 'Fix the bug.' }]
  for (let i = 0; i < 20; i++) {
    messages.push({ role: 'assistant', content: `Reading src/f${i}.ts` }, { role: 'user', content: `export const v${i} = 1\n`.repeat(40) })
  }
  const full = await app.inject({ method: 'POST', url: '/estimate', payload: { messages } })
  const before = full.json().totalTokens as number
  const small = await app.inject({ method: 'POST', url: '/compact', payload: { messages, targetTokens: Math.floor(before * 0.8), minGainTokens: before, sessionId: 'min-gain' } })
  t.equal(small.statusCode, 200)
  t.match(small.json(), { compacted: false, reason: /^minGainTokens: the compaction would save \d+ tokens, fewer than \d+/ })
  t.same(small.json().messages, messages, 'the input, unchanged')
  t.equal((await app.inject({ method: 'GET', url: '/sessions/min-gain/checkpoints' })).statusCode, 404, 'no checkpoint stored')
  const big = await app.inject({ method: 'POST', url: '/compact', payload: { messages, targetTokens: Math.floor(before * 0.5), minGainTokens: 10 } })
  t.equal(big.json().compacted, true)
  const bad = await app.inject({ method: 'POST', url: '/compact', payload: { messages, minGainTokens: 0 } })
  t.equal(bad.statusCode, 400)
  t.match(bad.json().issues, [{ path: 'body.minGainTokens' }])
})
