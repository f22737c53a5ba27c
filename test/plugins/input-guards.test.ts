/**
 * Issue 10, "Nothing lost, never a 500": input a client can send is a 4xx in the one
 * error shape, never a 500 — deep nesting, long session ids, query strings, fastify's
 * own errors (414, 404, 415, 413, bad URLs, malformed JSON), the 429 message.
 */
import t, { type Test } from 'tap'
import type { InjectOptions } from 'fastify'
import fc from 'fast-check'
import { findTooDeep, inspectJson, isTooDeep, MAX_JSON_CONTAINERS, MAX_JSON_DEPTH, tooManyContainers } from '../../src/plugins/input-guards.ts'
import { buildTestApp } from '../helpers/build.ts'

interface Injected {
  statusCode: number
  body: string
  headers: Record<string, unknown>
}

/** The one error shape: `{ error, message, issues?, requestId }`, requestId echoed in x-request-id. */
function assertErrorShape(t: Test, res: Injected, label: string): Record<string, unknown> {
  let body: Record<string, unknown> = {}
  try {
    body = JSON.parse(res.body)
  } catch {
    t.fail(`${label}: body is not JSON: ${res.body.slice(0, 200)}`)
    return body
  }
  t.type(body.error, 'string', `${label}: error`)
  t.type(body.message, 'string', `${label}: message`)
  t.type(body.requestId, 'string', `${label}: requestId`)
  t.equal(body.requestId, res.headers['x-request-id'], `${label}: requestId is the x-request-id`)
  t.notOk('statusCode' in body || 'code' in body, `${label}: none of fastify's own fields`)
  if (body.issues !== undefined) {
    t.ok(Array.isArray(body.issues) && (body.issues as unknown[]).every((i) => typeof (i as { path?: unknown }).path === 'string' && typeof (i as { message?: unknown }).message === 'string'), `${label}: issues are {path, message}`)
  }
  return body
}

/** JSON text of `{"a":{"a":…"x"…}}`, `levels` objects deep, without building it (JSON.stringify would overflow). */
const nestedObjects = (levels: number) => '{"a":'.repeat(levels) + '"x"' + '}'.repeat(levels)
const nestedArrays = (levels: number) => '['.repeat(levels) + '1' + ']'.repeat(levels)

/** A request body whose tool-call input is the raw JSON `input`, in AI SDK or Anthropic form. */
function toolCallBody(form: 'ai-sdk' | 'anthropic', input: string): string {
  const marker = '"__INPUT__"'
  const messages =
    form === 'ai-sdk'
      ? [
          { role: 'user', content: 'run it' },
          { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'run', input: '__INPUT__' }] },
          { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'run', output: { type: 'text', value: 'ok' } }] },
        ]
      : [
          { role: 'user', content: 'run it' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'run', input: '__INPUT__' }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'ok' }] },
        ]
  return JSON.stringify({ messages }).replace(marker, input)
}

const json = { 'content-type': 'application/json' }

t.test('deep nesting is a 400 naming the too-deep value, on every route that takes messages', async (t) => {
  const { app } = await buildTestApp(t)
  for (const form of ['ai-sdk', 'anthropic'] as const) {
    for (const url of ['/estimate', '/compact', `/sessions/deep-${form}/messages`]) {
      for (const [shape, input] of [['objects', nestedObjects(5000)], ['arrays', nestedArrays(5000)]] as const) {
        const res = await app.inject({ method: 'POST', url, headers: json, payload: toolCallBody(form, input) })
        const label = `${form} ${shape} ${url}`
        t.equal(res.statusCode, 400, label)
        const body = assertErrorShape(t, res, label)
        t.equal(body.error, 'nesting_too_deep', label)
        const path = (body.issues as { path: string }[])[0]!.path
        t.ok(path.startsWith('body.messages[1].content[0].input'), `${label}: path ${path.slice(0, 60)}…`)
        t.match(body.message, new RegExp(`${MAX_JSON_DEPTH} levels`), `${label}: the limit is stated`)
      }
    }
  }
  // Nothing was stored by the refused appends.
  t.equal((await app.inject({ method: 'GET', url: '/sessions/deep-anthropic' })).statusCode, 404)
})

t.test(`the depth limit is exactly ${MAX_JSON_DEPTH} levels, counting the body as level 1`, async (t) => {
  const { app } = await buildTestApp(t)
  // body(1) → messages(2) → message(3) → content(4) → part(5) → input(6) → …
  const extra = MAX_JSON_DEPTH - 6
  const ok = await app.inject({ method: 'POST', url: '/estimate', headers: json, payload: toolCallBody('anthropic', nestedObjects(extra + 1)) })
  t.equal(ok.statusCode, 200, `${MAX_JSON_DEPTH} levels are accepted`)
  const over = await app.inject({ method: 'POST', url: '/estimate', headers: json, payload: toolCallBody('anthropic', nestedObjects(extra + 2)) })
  t.equal(over.statusCode, 400, `${MAX_JSON_DEPTH + 1} are not`)
  t.equal(over.json().issues[0].path, 'body.messages[1].content[0].input' + '.a'.repeat(extra + 1))
  // A deep top-level value (not in messages) is named too.
  const system = await app.inject({ method: 'POST', url: '/estimate', headers: json, payload: `{"messages":[],"system":${nestedArrays(100)}}` })
  t.equal(system.statusCode, 400)
  t.equal(system.json().issues[0].path, 'body.system' + '[0]'.repeat(MAX_JSON_DEPTH - 1))
})

t.test('the per-request depth check (isTooDeep) and the one that names the path (findTooDeep) always agree', async (t) => {
  // Every request pays isTooDeep; findTooDeep runs only when it says yes. A value one
  // flags and the other misses would be a deep body let through, or a 400 with no path.
  const max = 6
  const { tree } = fc.letrec((tie) => ({
    tree: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.constant(null), fc.json({ maxDepth: 9 })),
      fc.array(tie('tree'), { maxLength: 3 }),
      fc.dictionary(fc.constantFrom('a', 'b', 'input', 'content'), tie('tree'), { maxKeys: 3 }),
    ),
  }))
  fc.assert(
    fc.property(tree, (value) => {
      const named = findTooDeep(value, max)
      return isTooDeep(value, max) === (named !== undefined)
    }),
    { numRuns: 2000 },
  )
  // Both ways of being too deep, by a margin of one.
  const nested = (n: number): unknown => (n === 0 ? 'leaf' : { a: nested(n - 1) })
  t.equal(isTooDeep(nested(max), max), false, `${max} levels pass`)
  t.equal(isTooDeep(nested(max + 1), max), true, `${max + 1} levels do not`)
  t.equal(isTooDeep({ a: [JSON.stringify(nested(max))] }, max), false, 'JSON text within the limit on its own passes')
  t.equal(isTooDeep({ a: [JSON.stringify(nested(max + 1))] }, max), true, 'JSON text deeper than the limit on its own does not')
  t.equal(isTooDeep({ a: '[[[[[[[[ not JSON' }, max), false, 'brackets that are not JSON are text')
})

t.test('prototype poisoning keys are refused as fastify refused them; the same words elsewhere are fine', async (t) => {
  t.equal(inspectJson(JSON.parse('{"a":[{"b":{"__proto__":{"x":1}}}]}')), 'poisoned', '__proto__ at any depth')
  t.equal(inspectJson(JSON.parse('{"a":{"constructor":{"prototype":{"x":1}}}}')), 'poisoned', 'constructor.prototype')
  t.equal(inspectJson(JSON.parse('{"constructor":"a string","prototype":1,"a":{"constructor":{"name":"x"}}}')), 'ok', 'constructor without a prototype, prototype alone')
  t.equal(inspectJson(JSON.parse('["__proto__", {"text":"__proto__ and constructor.prototype"}]')), 'ok', 'the words as values')
  const { app } = await buildTestApp(t)
  const tool = (input: string) => `{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"edit","input":${input}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}]}`
  for (const [label, input] of [
    ['__proto__ in a tool input', '{"__proto__":{"isAdmin":true}}'],
    ['constructor.prototype in a tool input', '{"constructor":{"prototype":{"isAdmin":true}}}'],
  ]) {
    const res = await app.inject({ method: 'POST', url: '/estimate', headers: json, payload: tool(input!) })
    t.equal(res.statusCode, 400, label)
    t.equal(res.json().error, 'invalid_json', label)
  }
  const fine = await app.inject({ method: 'POST', url: '/estimate', headers: json, payload: tool('{"constructor":{"name":"Widget"},"text":"__proto__"}') })
  t.equal(fine.statusCode, 200, 'a tool input naming a constructor is a tool input')
  const empty = await app.inject({ method: 'POST', url: '/estimate', headers: json, payload: '' })
  t.equal(empty.statusCode, 400)
  t.same([empty.json().error, empty.json().message], ['invalid_json', 'the JSON body is empty'])
})

t.test(`a body of more than ${MAX_JSON_CONTAINERS} objects and arrays is a 413 before it is parsed; braces inside strings do not count`, async (t) => {
  t.equal(tooManyContainers('[{},{},[]]', 3), true)
  t.equal(tooManyContainers('[{},{},[]]', 4), false)
  t.equal(tooManyContainers(JSON.stringify(['{{{{[[[[', 'a\\"{[']), 1), false, 'brackets in strings, escaped quotes included')
  const { app } = await buildTestApp(t, { config: { BODY_LIMIT_BYTES: 16 * 1024 * 1024 } })
  // ~3.3 MB of empty objects: ~70 MB of heap once parsed, ~21 × the text.
  const bomb = `{"messages":[${'{},'.repeat(MAX_JSON_CONTAINERS)}{}]}`
  const res = await app.inject({ method: 'POST', url: '/estimate', headers: json, payload: bomb })
  t.equal(res.statusCode, 413)
  const body = assertErrorShape(t, res, 'container bomb')
  t.equal(body.error, 'payload_too_large')
  t.match(body.message, /more than 1,000,000 JSON objects and arrays/)
  // A large real-looking body (2 MB, braces in its text) is parsed and answered.
  const code = 'function f() { return [{ a: 1 }, [2, 3]] }\n'.repeat(25_000)
  const big = await app.inject({ method: 'POST', url: '/estimate', headers: json, payload: { method: 'heuristic', messages: [{ role: 'user', content: code }] } })
  t.equal(big.statusCode, 200, 'a 1 MB message of code')
  t.equal((await app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200, 'the service stays ready')
})

t.test('session ids of 1-200 characters work on every route; longer ones are a 400 or 414 in the error shape', async (t) => {
  const { app } = await buildTestApp(t)
  for (const id of ['a'.repeat(101), 'A1._:-'.repeat(33) + 'zz', 'x'.repeat(200)]) {
    t.equal(id.length > 100 && id.length <= 200, true)
    const compact = await app.inject({ method: 'POST', url: '/compact', payload: { sessionId: id, force: true, keepRecent: 1, targetTokens: 2000, messages: longConversation() } })
    t.equal(compact.statusCode, 200, `compact with a ${id.length}-character id`)
    t.ok(compact.json().checkpoint, 'a checkpoint was stored')
    for (const path of ['/checkpoints', '/checkpoints/1', '/stats']) {
      const res = await app.inject({ method: 'GET', url: `/sessions/${id}${path}` })
      t.equal(res.statusCode, 200, `GET /sessions/<${id.length}>${path}`)
    }
    t.equal((await app.inject({ method: 'PUT', url: `/sessions/${id}`, payload: {} })).statusCode, 201)
    const append = await app.inject({ method: 'POST', url: `/sessions/${id}/messages`, payload: { messages: [{ role: 'user', content: 'hi' }] } })
    t.equal(append.statusCode, 200)
    for (const path of ['', '/summary', '/context', '/continuation']) {
      const res = await app.inject({ method: 'GET', url: `/sessions/${id}${path}` })
      t.equal(res.statusCode, 200, `GET /sessions/<${id.length}>${path}`)
    }
    t.equal((await app.inject({ method: 'POST', url: `/sessions/${id}/summary/refresh` })).statusCode, 202)
    t.equal((await app.inject({ method: 'DELETE', url: `/sessions/${id}` })).statusCode, 204, `DELETE /sessions/<${id.length}>`)
  }
  // Percent-encoded ':' (3 characters each in the URL) still routes.
  const colons = ':'.repeat(200)
  t.equal((await app.inject({ method: 'PUT', url: `/sessions/${encodeURIComponent(colons)}`, payload: {} })).statusCode, 201)
  t.equal((await app.inject({ method: 'GET', url: `/sessions/${encodeURIComponent(colons)}` })).json().id, colons)

  const tooLong = await app.inject({ method: 'GET', url: `/sessions/${'b'.repeat(201)}` })
  t.equal(tooLong.statusCode, 400)
  t.equal(assertErrorShape(t, tooLong, '201 characters').error, 'validation_error')
  t.equal(tooLong.json().issues[0].path, 'params.id')
  const absurd = await app.inject({ method: 'DELETE', url: `/sessions/${'b'.repeat(5000)}` })
  t.equal(absurd.statusCode, 414)
  t.equal(assertErrorShape(t, absurd, '5000 characters').error, 'uri_too_long')
})

t.test("fastify's own errors use the one error shape with a requestId", async (t) => {
  const { app } = await buildTestApp(t, { config: { BODY_LIMIT_BYTES: 4096 } })
  const cases: [string, InjectOptions, number, string][] = [
    ['unknown route', { method: 'GET', url: '/nope' }, 404, 'not_found'],
    ['unknown method', { method: 'PATCH', url: '/estimate' }, 404, 'not_found'],
    ['bad percent-encoding', { method: 'GET', url: '/sessions/%E0%A4%A' }, 400, 'bad_url'],
    ['too long a parameter', { method: 'GET', url: `/sessions/${'c'.repeat(3000)}/context` }, 414, 'uri_too_long'],
    ['wrong content-type', { method: 'POST', url: '/estimate', headers: { 'content-type': 'text/plain' }, payload: 'hi' }, 415, 'unsupported_media_type'],
    ['no content-type', { method: 'POST', url: '/estimate', headers: { 'content-type': '' }, payload: '{"messages":[]}' }, 415, 'unsupported_media_type'],
    ['too large', { method: 'POST', url: '/estimate', headers: json, payload: JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(5000) }] }) }, 413, 'payload_too_large'],
    ['malformed JSON', { method: 'POST', url: '/compact', headers: json, payload: '{"messages": [' }, 400, 'invalid_json'],
    ['empty JSON', { method: 'POST', url: '/compact', headers: json, payload: '' }, 400, 'invalid_json'],
    ['prototype poisoning', { method: 'POST', url: '/estimate', headers: json, payload: '{"messages":[],"__proto__":{"x":1}}' }, 400, 'invalid_json'],
    ['JSON null body', { method: 'POST', url: '/estimate', headers: json, payload: 'null' }, 400, 'validation_error'],
    ['bad header', { method: 'POST', url: '/sessions/h/messages', headers: { 'idempotency-key': 'k'.repeat(300) }, payload: { messages: [{ role: 'user', content: 'a' }] } }, 400, 'validation_error'],
  ]
  for (const [label, req, status, code] of cases) {
    const res = await app.inject(req)
    t.equal(res.statusCode, status, label)
    t.equal(assertErrorShape(t, res, label).error, code, label)
  }
})

// Many clients send `content-type: application/json` on every request. A DELETE (or any
// route that takes no body) with that header and no body was a 400 invalid_json "the
// JSON body is empty"; it is a request without a body. Where a body is required, an
// empty one is still the 400 invalid_json.
t.test('a JSON content type with no body is no body on every route that takes none; where one is required, still invalid_json', async (t) => {
  const { app } = await buildTestApp(t)
  const put = (id: string) => app.inject({ method: 'PUT', url: `/sessions/${id}`, payload: {} })
  t.equal((await put('del-1')).statusCode, 201)
  const del = await app.inject({ method: 'DELETE', url: '/sessions/del-1', headers: json })
  t.equal(del.statusCode, 204, 'DELETE with a JSON content type and no body: 204')
  const again = await app.inject({ method: 'DELETE', url: '/sessions/del-1', headers: { ...json, 'content-length': '0' } })
  t.equal(again.statusCode, 404, 'again, with content-length: 0: the 404, not invalid_json')
  t.equal(again.json().error, 'not_found')
  t.equal((await app.inject({ method: 'GET', url: '/sessions/del-1' })).statusCode, 404, 'the first DELETE deleted it')

  // Every route without a body: the same status with and without the header.
  const pathOf = (url: string) => url.replace(':id', 'del-2').replace(':version', '1').replace(':num', '1').replace('*', 'app.js')
  const bodiless = app.routeInventory.filter((r) => !r.schema?.body && !r.url.startsWith('/docs'))
  t.ok(bodiless.some((r) => r.method === 'DELETE') && bodiless.some((r) => r.method === 'POST'), 'DELETE and POST routes without a body are among them')
  for (const route of bodiless) {
    for (const method of [route.method].flat()) {
      if (method === 'HEAD') continue
      // The session exists before each call (a DELETE removes it).
      await put('del-2')
      const without = await app.inject({ method: method as 'GET', url: pathOf(route.url) })
      await put('del-2')
      const withHeader = await app.inject({ method: method as 'GET', url: pathOf(route.url), headers: json })
      t.equal(withHeader.statusCode, without.statusCode, `${method} ${route.url}: ${without.statusCode} with or without the JSON content type`)
      t.not(withHeader.body.includes('invalid_json'), true, `${method} ${route.url}: not invalid_json`)
    }
  }

  // Over a real connection (fetch sends the header and no body).
  t.equal((await put('del-3')).statusCode, 201)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  const res = await fetch(`http://127.0.0.1:${port}/sessions/del-3`, { method: 'DELETE', headers: json })
  t.equal(res.status, 204, 'fetch DELETE with a JSON content type: 204')

  // A route whose body is required: empty is still the clear 400.
  for (const [method, url] of [['POST', '/estimate'], ['POST', '/compact'], ['PUT', '/sessions/del-4'], ['POST', '/sessions/del-4/messages']] as const) {
    const empty = await app.inject({ method, url, headers: json })
    t.equal(empty.statusCode, 400, `${method} ${url} with an empty body: 400`)
    t.same([empty.json().error, empty.json().message], ['invalid_json', 'the JSON body is empty'])
  }
})

t.test('query strings are strict: unknown and repeated parameters are a 400 naming them', async (t) => {
  const { app } = await buildTestApp(t)
  await app.inject({ method: 'POST', url: '/sessions/q/messages', payload: { messages: [{ role: 'user', content: 'hi' }] } })
  const unknown: [string, string, unknown?][] = [
    ['POST', '/estimate?foo=1', { messages: [] }],
    ['POST', '/compact?dryrun=true', { messages: [] }],
    ['GET', '/sessions/q?x=1'],
    ['GET', '/sessions/q/context?budjet=100'],
    ['GET', '/sessions/q/checkpoints?cursor=a&page=2'],
    ['GET', '/healthz?x=1'],
  ]
  for (const [method, url, payload] of unknown) {
    const res = await app.inject({ method: method as 'GET', url, ...(payload ? { payload: payload as object } : {}) })
    t.equal(res.statusCode, 400, url)
    const body = assertErrorShape(t, res, url)
    const name = url.split('?')[1]!.split('&').pop()!.split('=')[0]!
    t.same((body.issues as { path: string }[]).map((i) => i.path), [`querystring.${name}`], url)
  }
  const twice = await app.inject({ method: 'GET', url: '/sessions/q/context?budget=100&budget=200' })
  t.equal(twice.statusCode, 400)
  t.equal(assertErrorShape(t, twice, 'twice').error, 'validation_error')
  t.same(twice.json().issues, [{ path: 'querystring.budget', message: 'given 2 times; give it once' }])
  t.notMatch(twice.body, /NaN/)
  const ok = await app.inject({ method: 'GET', url: '/sessions/q/context?budget=5000&format=anthropic' })
  t.equal(ok.statusCode, 200, 'known parameters, once each, still work')
})

t.test('the 429 message gives the real window and when to retry', async (t) => {
  // Open mode (no key): RATE_LIMIT_OPEN_MAX applies, unlimited by default.
  const { app } = await buildTestApp(t, { config: { RATE_LIMIT_OPEN_MAX: 2, RATE_LIMIT_WINDOW_MS: 60_000 } })
  const call = () => app.inject({ method: 'POST', url: '/estimate', payload: { messages: [] } })
  await call()
  await call()
  const limited = await call()
  t.equal(limited.statusCode, 429)
  const body = assertErrorShape(t, limited, '429')
  t.equal(body.error, 'rate_limited')
  const retry = Number(limited.headers['retry-after'])
  t.ok(retry > 0 && retry <= 60, `Retry-After ${retry}`)
  t.match(body.message, /2 requests per 60 s\b/, body.message as string)
  t.match(body.message, new RegExp(`retry after ${retry} s`))
  t.equal(body.retryAfterSeconds, retry)
})

/** Enough to compact: a task, ten tool round trips with long outputs, a closing answer. */
function longConversation(): Record<string, unknown>[] {
  const messages: Record<string, unknown>[] = [{ role: 'user', content: 'Fix the failing test in src/db.ts' }]
  for (let i = 0; i < 10; i++) {
    messages.push({ role: 'assistant', content: null, tool_calls: [{ id: `call_${i}`, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command: `cat src/file${i}.ts` }) } }] })
    messages.push({ role: 'tool', tool_call_id: `call_${i}`, content: `export const value${i} = ${i}\n`.repeat(60) })
  }
  messages.push({ role: 'assistant', content: 'Done: the test passes.' })
  return messages
}

t.test('strings a session would store as text or jsonb must be valid Unicode; messages keep lone surrogates', async (t) => {
  const { app } = await buildTestApp(t)
  const settings = await app.inject({ method: 'PUT', url: '/sessions/u1', payload: { model: 'gpt-4o\ud800' } })
  t.equal(settings.statusCode, 400, 'a lone surrogate in settings was a 500 (jsonb refuses it)')
  t.equal(assertErrorShape(t, settings, 'settings').error, 'validation_error')
  t.equal(settings.json().issues[0].path, 'body.model')
  const system = await app.inject({ method: 'PUT', url: '/sessions/u1', payload: { system: [{ type: 'text', text: 'be \udc00 brief' }] } })
  t.equal(system.statusCode, 400)
  t.equal(system.json().issues[0].path, 'body.system[0].text')
  const summary = await app.inject({ method: 'PUT', url: '/sessions/u1/summary', payload: { content: '## Previously in This Session\n1. a\ud83d\n' } })
  t.equal(summary.statusCode, 400, 'text storage would replace it with U+FFFD')
  t.equal(summary.json().issues[0].path, 'body.content')
  const messages = [{ role: 'user', content: 'emoji cut in half: \ud83d' }, { role: 'assistant', content: 'NUL \u0000 and a pair 🚀' }]
  t.equal((await app.inject({ method: 'POST', url: '/sessions/u1/messages', payload: { messages } })).statusCode, 200)
  const context = await app.inject({ method: 'GET', url: '/sessions/u1/context' })
  t.equal(JSON.stringify(context.json().messages), JSON.stringify(messages), 'messages read back byte for byte')
})

t.test("a session's system prompt is a string or text blocks when written (a number was stored, then /context was a 500)", async (t) => {
  const { app } = await buildTestApp(t)
  await app.inject({ method: 'POST', url: '/sessions/sys1/messages', payload: { messages: [{ role: 'user', content: 'hi' }] } })
  for (const system of [100000001, true, { text: 'x' }, [1], [{ type: 'image', text: 'x' }]]) {
    const append = await app.inject({ method: 'POST', url: '/sessions/sys1/messages', payload: { messages: [{ role: 'user', content: 'again' }], system } })
    t.equal(append.statusCode, 400, `append with system ${JSON.stringify(system)}`)
    t.match(append.json().issues[0].path, /^body\.system/)
    t.equal((await app.inject({ method: 'PUT', url: '/sessions/sys1', payload: { system } })).statusCode, 400, `PUT with system ${JSON.stringify(system)}`)
  }
  const blocks = [{ type: 'text', text: 'be brief', cache_control: { type: 'ephemeral' } }]
  t.equal((await app.inject({ method: 'PUT', url: '/sessions/sys1', payload: { system: blocks } })).statusCode, 200)
  const context = await app.inject({ method: 'GET', url: '/sessions/sys1/context' })
  t.equal(context.statusCode, 200)
  t.equal(context.json().messages[0].content, 'be brief')
})
