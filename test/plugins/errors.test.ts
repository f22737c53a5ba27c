/** Bad input is always a clear 4xx JSON error, never a 500. */
import fc from 'fast-check'
import t from 'tap'
import { buildTestApp } from '../helpers/build.ts'

t.test('error shapes', async (t) => {
  const { app } = await buildTestApp(t, { config: { BODY_LIMIT_BYTES: 64 * 1024 } })

  const malformed = await app.inject({ method: 'POST', url: '/estimate', headers: { 'content-type': 'application/json' }, payload: '{"messages": [' })
  t.equal(malformed.statusCode, 400)
  t.equal(malformed.json().error, 'invalid_json')
  t.ok(malformed.json().requestId, 'carries the request id')

  const empty = await app.inject({ method: 'POST', url: '/estimate', headers: { 'content-type': 'application/json' }, payload: '' })
  t.equal(empty.statusCode, 400)

  const big = await app.inject({
    method: 'POST',
    url: '/estimate',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(70 * 1024) }] }),
  })
  t.equal(big.statusCode, 413)
  t.equal(big.json().error, 'payload_too_large')

  const missing = await app.inject({ method: 'POST', url: '/estimate', payload: {} })
  t.equal(missing.statusCode, 400)
  t.equal(missing.json().error, 'validation_error')
  t.same(missing.json().issues.map((i: { path: string }) => i.path), ['body.messages'])

  const typo = await app.inject({ method: 'POST', url: '/estimate', payload: { messages: [], methd: 'x' } })
  t.equal(typo.statusCode, 400, 'unknown fields are rejected, so typos are caught')
  t.match(typo.json().message, /methd/)

  const badMethod = await app.inject({ method: 'POST', url: '/estimate', payload: { messages: [], method: 'guess' } })
  t.equal(badMethod.statusCode, 400)
  t.equal(badMethod.json().issues[0].path, 'body.method')

  const badMessage = await app.inject({ method: 'POST', url: '/estimate', payload: { messages: [{ role: 'user', content: 'a' }, { role: 'tool', content: 'x' }] } })
  t.equal(badMessage.statusCode, 400)
  t.equal(badMessage.json().error, 'invalid_messages')
  t.match(badMessage.json().issues[0].path, /messages\[1\]/, 'names the index')

  const notFound = await app.inject({ method: 'GET', url: '/nope' })
  t.equal(notFound.statusCode, 404)
  t.equal(notFound.json().error, 'not_found')

  const wrongType = await app.inject({ method: 'POST', url: '/estimate', headers: { 'content-type': 'application/xml' }, payload: '<messages/>' })
  t.equal(wrongType.statusCode, 415)
  t.equal(wrongType.json().error, 'unsupported_media_type')
})

t.test('request ids are echoed, or made', async (t) => {
  const { app } = await buildTestApp(t)
  const given = await app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'agent-42' } })
  t.equal(given.headers['x-request-id'], 'agent-42')
  const made = await app.inject({ method: 'GET', url: '/healthz' })
  t.match(made.headers['x-request-id'], /^[0-9a-f-]{36}$/)
})

t.test('property: thousands of malformed bodies never produce a 500', async (t) => {
  const { app } = await buildTestApp(t)
  const anyJson = fc.jsonValue({ maxDepth: 4 })
  const part = fc.oneof(
    fc.record({ type: fc.constantFrom('text', 'image', 'tool_use', 'tool_result', 'thinking', 'tool-call', 'tool-result', 'reasoning', 'image_url', 'x'), text: anyJson, id: anyJson, input: anyJson, content: anyJson, toolCallId: anyJson, tool_use_id: anyJson, output: anyJson }, { requiredKeys: ['type'] }),
    anyJson,
  )
  const message = fc.oneof(
    fc.record(
      {
        role: fc.oneof(fc.constantFrom('system', 'developer', 'user', 'assistant', 'tool', 'function', ''), anyJson),
        content: fc.oneof(fc.string(), fc.array(part, { maxLength: 4 }), anyJson),
        tool_calls: fc.oneof(fc.array(fc.record({ id: anyJson, type: anyJson, function: fc.record({ name: anyJson, arguments: anyJson }) }), { maxLength: 3 }), anyJson),
        tool_call_id: anyJson,
        name: anyJson,
      },
      { requiredKeys: [] },
    ),
    anyJson,
  )
  const valid = fc.record({ messages: fc.array(fc.record({ role: fc.constantFrom('user', 'assistant'), content: fc.string() }), { maxLength: 5 }) })
  const body = fc.oneof(
    valid,
    fc.record(
      {
        messages: fc.oneof(fc.array(message, { maxLength: 6 }), anyJson),
        format: fc.oneof(fc.constantFrom('openai', 'anthropic', 'ai-sdk', 'xml'), anyJson),
        model: fc.oneof(fc.constantFrom('gpt-4o', 'claude-sonnet-4-5', 'gpt-4', 'unknown-model'), anyJson),
        method: fc.oneof(fc.constantFrom('tokenizer', 'heuristic', 'provider'), anyJson),
        tools: anyJson,
        system: anyJson,
        thresholdPercent: anyJson,
        contextLimit: anyJson,
      },
      { requiredKeys: [] },
    ),
    anyJson,
  )
  let runs = 0
  const statuses = new Map<number, number>()
  await fc.assert(
    fc.asyncProperty(body, async (payload) => {
      runs++
      const res = await app.inject({ method: 'POST', url: '/estimate', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(payload) ?? 'null' })
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1)
      if (res.statusCode >= 500) throw new Error(`500 for ${JSON.stringify(payload).slice(0, 500)}: ${res.body}`)
      if (res.statusCode >= 400) {
        const err = res.json()
        if (typeof err.error !== 'string' || typeof err.message !== 'string') throw new Error(`bad error body ${res.body}`)
      }
    }),
    { numRuns: 3000, seed: 20261122 },
  )
  // Raw byte garbage too, not just JSON values.
  await fc.assert(
    fc.asyncProperty(fc.string({ maxLength: 200 }), async (raw) => {
      runs++
      const res = await app.inject({ method: 'POST', url: '/estimate', headers: { 'content-type': 'application/json' }, payload: raw })
      if (res.statusCode >= 500) throw new Error(`500 for raw ${JSON.stringify(raw)}`)
    }),
    { numRuns: 1000, seed: 7 },
  )
  t.equal(runs, 4000)
  t.ok((statuses.get(400) ?? 0) > 1000, 'most generated bodies are rejected with 400')
  t.ok((statuses.get(200) ?? 0) > 0, 'some generated bodies are valid')
})
