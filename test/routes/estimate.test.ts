import { Tiktoken } from 'js-tiktoken/lite'
import o200k from 'js-tiktoken/ranks/o200k_base'
import t from 'tap'
import { countRequestTokens, startFakeProvider } from '../fakes/fake-llm-provider.ts'
import { buildTestApp } from '../helpers/build.ts'

// An independent implementation (tiktoken's JS port) to check our exact counts against.
const tiktoken = new Tiktoken(o200k)
const tk = (s: string) => tiktoken.encode(s).length

t.test('tokenizer method: exact o200k counts with OpenAI chat overhead', async (t) => {
  const { app } = await buildTestApp(t)
  const messages = [
    { role: 'system', content: 'You are a careful coding agent. 日本語も話します。' },
    { role: 'user', content: 'Fix the failing test in src/db.ts; keep the public API.', name: 'alice' },
    { role: 'assistant', content: 'Looking at `src/db.ts` now: the query builder drops the WHERE clause when filters are empty.' },
  ]
  const res = await app.inject({ method: 'POST', url: '/estimate', payload: { model: 'gpt-4o', messages } })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.equal(body.method, 'tokenizer')
  t.equal(body.encoding, 'o200k_base')
  t.equal(body.format, 'openai')
  // OpenAI cookbook: 3 per message + encoded values (role, content, name) + 1 per name; +3 reply priming.
  const expected = messages.map((m) => 3 + tk(m.role) + tk(m.content) + (m.name ? 1 + tk(m.name) : 0))
  t.same(body.perMessage.map((p: { tokens: number }) => p.tokens), expected)
  t.equal(body.totalTokens, expected.reduce((a, b) => a + b, 0) + 3)
  t.equal(body.safetyMargin, 1)
})

t.test('limits, threshold and shouldCompact follow seed 004, with overrides', async (t) => {
  const { app } = await buildTestApp(t)
  const messages = [{ role: 'user', content: 'hello' }]
  const base = (await app.inject({ method: 'POST', url: '/estimate', payload: { model: 'gpt-4o', messages } })).json()
  t.equal(base.contextLimit, 128000)
  t.equal(base.maxOutputTokens, 16384)
  t.equal(base.threshold, 93600, '(128000 - 2000 - 4000 - 5000) * 0.8')
  t.equal(base.shouldCompact, false)

  const tight = (await app.inject({
    method: 'POST',
    url: '/estimate',
    payload: { model: 'gpt-4o', messages, contextLimit: 11_005, systemReserve: 0, outputReserve: 0, safetyBuffer: 11_000, thresholdPercent: 1 },
  })).json()
  t.equal(tight.threshold, 5)
  t.equal(tight.shouldCompact, true, `${tight.totalTokens} tokens >= threshold 5`)

  const claude = (await app.inject({ method: 'POST', url: '/estimate', payload: { model: 'claude-sonnet-4-5-20250929', messages } })).json()
  t.equal(claude.provider, 'anthropic')
  t.equal(claude.contextLimit, 200000)
  t.equal(claude.method, 'heuristic', 'non-OpenAI models default to the heuristic')
  t.ok(claude.safetyMargin > 1, 'with a safety margin')

  const unknown = (await app.inject({ method: 'POST', url: '/estimate', payload: { model: 'my-local-llama', messages } })).json()
  t.equal(unknown.modelKnown, false)
  t.equal(unknown.contextLimit, 128000, 'configurable default for unknown models')
})

t.test('environment overrides the threshold settings', async (t) => {
  const { app } = await buildTestApp(t, { config: { COMPACTION_THRESHOLD_PERCENT: 0.5, UNKNOWN_MODEL_CONTEXT_LIMIT: 32_000 } })
  const res = (await app.inject({ method: 'POST', url: '/estimate', payload: { model: 'mystery', messages: [] } })).json()
  t.equal(res.threshold, Math.floor((32000 - 11000) * 0.5))
  t.equal(res.totalTokens, 0, 'an empty conversation is 0 tokens')
})

t.test('tools count toward the prompt', async (t) => {
  const { app } = await buildTestApp(t)
  const messages = [{ role: 'user', content: 'what is the weather in Paris?' }]
  const tools = [
    {
      type: 'function',
      function: {
        name: 'get_weather',
        description: 'Get the current weather for a city',
        parameters: { type: 'object', properties: { city: { type: 'string', description: 'City name' }, unit: { type: 'string', enum: ['c', 'f'] } }, required: ['city'] },
      },
    },
  ]
  const without = (await app.inject({ method: 'POST', url: '/estimate', payload: { messages } })).json()
  const withTools = (await app.inject({ method: 'POST', url: '/estimate', payload: { messages, tools } })).json()
  t.ok(withTools.toolsTokens > 20, `tool schema costs ${withTools.toolsTokens} tokens`)
  t.equal(withTools.totalTokens, without.totalTokens + withTools.toolsTokens)
})

t.test('every format gives the same count for the same conversation', async (t) => {
  const { app } = await buildTestApp(t)
  const openai = [
    { role: 'user', content: 'List the files.' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }] },
    { role: 'tool', tool_call_id: 'c1', content: 'README.md\nsrc' },
  ]
  const anthropic = [
    { role: 'user', content: 'List the files.' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'bash', input: { command: 'ls' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'README.md\nsrc' }] },
  ]
  const aiSdk = [
    { role: 'user', content: 'List the files.' },
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'bash', input: { command: 'ls' } }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'bash', output: { type: 'text', value: 'README.md\nsrc' } }] },
  ]
  const formats: string[] = []
  const totals: number[] = []
  for (const messages of [openai, anthropic, aiSdk]) {
    const res = await app.inject({ method: 'POST', url: '/estimate', payload: { model: 'gpt-4o', messages } })
    t.equal(res.statusCode, 200, res.body)
    formats.push(res.json().format)
    totals.push(res.json().totalTokens)
  }
  t.same(formats, ['openai', 'anthropic', 'ai-sdk'], 'formats detected')
  t.ok(Math.max(...totals) - Math.min(...totals) <= 4, `counts agree within role framing: ${totals}`)

  const forced = await app.inject({ method: 'POST', url: '/estimate', payload: { messages: anthropic, format: 'openai' } })
  t.equal(forced.statusCode, 400, 'an explicit wrong format is a clear 400')
  t.equal(forced.json().error, 'invalid_messages')
})

t.test('heuristic method is conservative against the exact count', async (t) => {
  const { app } = await buildTestApp(t)
  const text = [
    '这是一个关于上下文压缩服务的说明。我们需要准确地估计令牌数量。',
    'sha512-' + 'a9f3b2c1d4e5f60718293a4b5c6d7e8f'.repeat(8),
    'function add(a: number, b: number): number {\n  return a + b\n}\n',
    'The agent ran the migration, found that the index was missing, and added it.',
  ].join('\n')
  const messages = [{ role: 'user', content: text }]
  const exact = (await app.inject({ method: 'POST', url: '/estimate', payload: { model: 'gpt-4o', messages, method: 'tokenizer' } })).json()
  const heur = (await app.inject({ method: 'POST', url: '/estimate', payload: { model: 'gpt-4o', messages, method: 'heuristic' } })).json()
  t.equal(heur.method, 'heuristic')
  const err = (heur.totalTokens - exact.totalTokens) / exact.totalTokens
  t.ok(err >= -0.05 && err < 0.15, `heuristic error ${(err * 100).toFixed(1)}% is within -5%..+15%`)
})

t.test('tokenizer method for a model without an exact tokenizer is a 400', async (t) => {
  const { app } = await buildTestApp(t)
  const res = await app.inject({ method: 'POST', url: '/estimate', payload: { model: 'claude-opus-4-1', method: 'tokenizer', messages: [] } })
  t.equal(res.statusCode, 400)
  t.equal(res.json().issues[0].path, 'body.method')
})

t.test('provider method: Anthropic count_tokens, with a fallback that says why', async (t) => {
  const fake = await startFakeProvider({ apiKey: 'test-key' })
  t.teardown(() => fake.close())
  const { app } = await buildTestApp(t, {
    config: { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.anthropicBaseURL, PROVIDER_TIMEOUT_MS: 1000, PROVIDER_MAX_RETRIES: 0 },
  })
  const payload = {
    model: 'claude-sonnet-4-5',
    method: 'provider',
    system: 'You are terse.',
    messages: [
      { role: 'user', content: 'Summarise the diff.' },
      { role: 'assistant', content: 'Sure.' },
    ],
  }
  const ok = (await app.inject({ method: 'POST', url: '/estimate', payload })).json()
  t.equal(ok.method, 'provider')
  t.equal(ok.fallback, undefined)
  const req = fake.requests.find((r) => r.path.endsWith('/count_tokens'))!
  t.ok(req, 'count_tokens was called')
  t.equal((req.body as { system: string }).system, 'You are terse.', 'system prompt sent as Anthropic top-level system')
  t.equal(ok.totalTokens, countRequestTokens(req.body), 'total is what the provider said')

  fake.enqueue({ kind: 'server-error', status: 500, route: 'messages.count_tokens' })
  const failed = (await app.inject({ method: 'POST', url: '/estimate', payload })).json()
  t.equal(failed.method, 'heuristic')
  t.match(failed.fallback, { from: 'provider', reason: /500/ })
  t.notMatch(JSON.stringify(failed), /test-key/, 'no key in the response')

  fake.enqueue({ kind: 'timeout', route: 'messages.count_tokens' })
  const slow = (await app.inject({ method: 'POST', url: '/estimate', payload })).json()
  t.match(slow.fallback, { from: 'provider', reason: /timed out/ })

  const openai = (await app.inject({ method: 'POST', url: '/estimate', payload: { ...payload, model: 'gpt-4o' } })).json()
  t.match(openai.fallback.reason, /Anthropic models only/)
})

t.test('provider method without a key, or with the provider unreachable, falls back', async (t) => {
  const { app } = await buildTestApp(t, { config: { ANTHROPIC_API_KEY: undefined } })
  const payload = { model: 'claude-haiku-4-5', method: 'provider', messages: [{ role: 'user', content: 'hi' }] }
  const res = (await app.inject({ method: 'POST', url: '/estimate', payload })).json()
  t.equal(res.method, 'heuristic')
  t.match(res.fallback.reason, /ANTHROPIC_API_KEY/)

  const down = await buildTestApp(t, { config: { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', PROVIDER_MAX_RETRIES: 0 } })
  const res2 = (await down.app.inject({ method: 'POST', url: '/estimate', payload })).json()
  t.equal(res2.method, 'heuristic')
  t.match(res2.fallback.reason, /unreachable/)
})

t.test('reserves the request gives that leave no room are a 400 naming them, not a threshold of 0', async (t) => {
  const { app } = await buildTestApp(t)
  const messages = [{ role: 'user', content: 'hello' }]
  const res = await app.inject({ method: 'POST', url: '/estimate', payload: { messages, contextLimit: 1000, outputReserve: 5000 } })
  t.equal(res.statusCode, 400)
  const body = res.json()
  t.equal(body.error, 'validation_error')
  t.same(body.issues.map((i: { path: string }) => i.path).sort(), ['body.contextLimit', 'body.outputReserve'])
  t.match(body.message, /leave no room/)
  t.ok(body.requestId)
  // A threshold percentage that rounds the room down to 0 tokens is named too.
  const tiny = await app.inject({ method: 'POST', url: '/estimate', payload: { messages, contextLimit: 11_002, thresholdPercent: 0.1 } })
  t.equal(tiny.statusCode, 400)
  t.same(tiny.json().issues.map((i: { path: string }) => i.path).sort(), ['body.contextLimit', 'body.thresholdPercent'])
  // A model whose window the server's default reserves fill (gpt-4: 8,192 < 11,000) is still
  // counted: threshold 0, with a note (test/api-docs-agreement.test.ts).
  const small = await app.inject({ method: 'POST', url: '/estimate', payload: { messages, model: 'gpt-4' } })
  t.equal(small.statusCode, 200)
  t.equal(small.json().threshold, 0)
  t.match(small.json().thresholdNote, /smaller than the server's default reserves/)
  // One token of room is enough.
  const one = await app.inject({ method: 'POST', url: '/estimate', payload: { messages, contextLimit: 11_001, thresholdPercent: 1 } })
  t.equal(one.statusCode, 200)
  t.equal(one.json().threshold, 1)
})

t.test('?perMessage=false: the totals only; anything but true or false is a 400 naming it', async (t) => {
  const { app } = await buildTestApp(t)
  const payload = { model: 'gpt-4o', messages: [{ role: 'system', content: 'You are a coding agent.' }, { role: 'user', content: 'Fix the failing test in src/db.ts' }] }
  const full = (await app.inject({ method: 'POST', url: '/estimate', payload })).json()
  const lean = await app.inject({ method: 'POST', url: '/estimate?perMessage=false', payload })
  t.equal(lean.statusCode, 200)
  t.notOk('perMessage' in lean.json(), 'no perMessage')
  t.same({ ...lean.json(), perMessage: full.perMessage }, full, 'the same answer otherwise')
  t.equal((await app.inject({ method: 'POST', url: '/estimate?perMessage=true', payload })).json().perMessage.length, 2)
  const bad = await app.inject({ method: 'POST', url: '/estimate?perMessage=no', payload })
  t.equal(bad.statusCode, 400)
  t.match(bad.json().issues, [{ path: 'querystring.perMessage' }])
})
