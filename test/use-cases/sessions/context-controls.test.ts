/**
 * A session's stored controls (src/use-cases/sessions/context-controls.ts, issue 24):
 * pinned messages come back verbatim with their tool pairs even once folded into the
 * summary; preserved strings are checked; the trigger (mode, threshold, notMidTurn)
 * decides whether GET /context compacts; trigger `off` refuses POST /compact; the proxy
 * takes the session's trigger and its own headers.
 */
import t from 'tap'
import { buildTestApp } from '../../helpers/build.ts'
import { exchange } from '../../helpers/session-conversations.ts'
import { startFakeProvider } from '../../fakes/fake-llm-provider.ts'
import { midTurn } from '../../../src/engine/conversation/pairing.ts'
import { parseConversation } from '../../../src/engine/messages/index.ts'

const rule = { role: 'user', content: 'Rule: never edit files under vendor/.' }

t.test('a pinned message folded into the summary comes back verbatim with its tool pair; preserved strings are checked', async (t) => {
  const { app } = await buildTestApp(t)
  const url = '/sessions/pins'
  const put = await app.inject({ method: 'PUT', url, payload: { format: 'openai', windowMessages: 4, batchSize: 1, pin: [2, 4], preserve: ['port 8443', 'not-said-yet'] } })
  t.equal(put.statusCode, 201)
  t.match(put.json().settings, { pin: [2, 4], preserve: ['port 8443', 'not-said-yet'] })
  const first = exchange(0, { padding: 10 }) // user, assistant call (seq 3), tool result (seq 4), …
  const history = [{ role: 'system', content: 'You are a coding agent.' }, rule, ...first.slice(1)]
  history.push({ role: 'user', content: 'The staging service listens on port 8443.' })
  for (let i = 1; i < 10; i++) history.push(...exchange(i, { padding: 10 }))
  t.equal((await app.inject({ method: 'POST', url: `${url}/messages`, payload: { messages: history } })).statusCode, 200)
  for (let k = 0; k < 20 && (await app.inject({ method: 'GET', url })).json().evictedAwaitingSummary > 0; k++) await app.summaryWorker.runOnce()
  const session = (await app.inject({ method: 'GET', url })).json()
  t.ok(session.summarizedMessages >= 4, `the pins were folded into the summary (${session.summarizedMessages} folded)`)

  const ctx = await app.inject({ method: 'GET', url: `${url}/context?budget=2000` })
  t.equal(ctx.statusCode, 200, ctx.body.slice(0, 300))
  const body = ctx.json()
  const out = body.messages.map((m: unknown) => JSON.stringify(m))
  t.ok(out.includes(JSON.stringify(rule)), 'the pinned rule, byte for byte')
  t.ok(out.includes(JSON.stringify(history[3])), 'the pinned tool result (seq 4)')
  t.ok(out.includes(JSON.stringify(history[2])), 'with its call (seq 3)')
  t.ok(out.some((m: string) => m.includes('port 8443')), 'the preserved string')
  t.same(body.contract, { pinned: [2, 4], preserved: ['port 8443'], absent: ['not-said-yet'] })

  const tight = await app.inject({ method: 'GET', url: `${url}/context?budget=120` })
  t.equal(tight.statusCode, 422)
  t.match(tight.json(), { error: 'contract_unkept' })

  const cleared = await app.inject({ method: 'PUT', url, payload: { pin: null, preserve: null } })
  t.notOk('pin' in cleared.json().settings, 'null removes a control')
})

t.test('the trigger: manual and a threshold above the budget hold /context; notMidTurn holds it mid-turn; off refuses /compact', async (t) => {
  const { app } = await buildTestApp(t)
  const url = '/sessions/trig'
  await app.inject({ method: 'PUT', url, payload: { format: 'openai', windowMessages: 1000, windowTokens: 1_000_000, trigger: { mode: 'manual' } } })
  const history = [{ role: 'system', content: 'You are a coding agent.' }, ...Array.from({ length: 8 }, (_, i) => exchange(i, { padding: 20 })).flat()]
  await app.inject({ method: 'POST', url: `${url}/messages`, payload: { messages: history } })
  const manual = (await app.inject({ method: 'GET', url: `${url}/context?budget=1500` })).json()
  t.equal(manual.compacted, false)
  t.ok(manual.tokens > 1500, 'over the budget, whole')
  t.match(manual.reason, /trigger mode manual/)

  await app.inject({ method: 'PUT', url, payload: { trigger: { mode: 'auto', threshold: 1_000_000 } } })
  const under = (await app.inject({ method: 'GET', url: `${url}/context?budget=1500` })).json()
  t.equal(under.compacted, false)
  t.match(under.reason, /threshold \(1000000 tokens\) is not reached/)
  await app.inject({ method: 'PUT', url, payload: { trigger: { mode: 'auto', threshold: 1500 } } })
  t.equal((await app.inject({ method: 'GET', url: `${url}/context?budget=1500` })).json().compacted, true, 'past the threshold it compacts')

  await app.inject({ method: 'PUT', url, payload: { trigger: { mode: 'auto', notMidTurn: true } } })
  const call = { role: 'assistant', content: null, tool_calls: [{ id: 'pending', type: 'function', function: { name: 'bash', arguments: '{"command":"npm test"}' } }] }
  await app.inject({ method: 'POST', url: `${url}/messages`, payload: { messages: [{ role: 'user', content: 'Run the tests.' }, call] } })
  const mid = (await app.inject({ method: 'GET', url: `${url}/context?budget=1500` })).json()
  t.equal(mid.compacted, false)
  t.match(mid.reason, /notMidTurn/)

  await app.inject({ method: 'PUT', url, payload: { trigger: { mode: 'off' } } })
  const refused = await app.inject({ method: 'POST', url: '/compact', payload: { messages: history, sessionId: 'trig', targetTokens: 1500 } })
  t.equal(refused.statusCode, 409)
  t.match(refused.json(), { error: 'compaction_off', issues: [{ path: 'body.sessionId' }] })
  const bad = await app.inject({ method: 'PUT', url, payload: { trigger: { mode: 'sometimes' } } })
  t.equal(bad.statusCode, 400)
  t.match(bad.json().issues, [{ path: 'body.trigger.mode' }])
})

t.test('midTurn: the last assistant message has a call without a result', async (t) => {
  const parse = (ms: unknown[]) => parseConversation(ms, { format: 'openai' }).messages
  const call = { role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'bash', arguments: '{}' } }] }
  t.equal(midTurn(parse([{ role: 'user', content: 'go' }, call])), true)
  t.equal(midTurn(parse([{ role: 'user', content: 'go' }, call, { role: 'tool', tool_call_id: 'a', content: 'ok' }])), false)
  t.equal(midTurn(parse([{ role: 'user', content: 'go' }])), false)
})

t.test("the proxy: x-compactd-trigger off forwards as sent, manual holds until x-compactd-compact: now; the session's trigger applies", async (t) => {
  const fake = await startFakeProvider()
  t.teardown(() => fake.close())
  const { app } = await buildTestApp(t, { config: { UPSTREAM_OPENAI_URL: fake.openaiBaseURL } })
  const messages = [{ role: 'system', content: 'You are a coding agent.' }, ...Array.from({ length: 8 }, (_, i) => exchange(i, { padding: 20 })).flat()]
  const send = (headers: Record<string, string>) =>
    app.inject({ method: 'POST', url: '/v1/chat/completions', headers: { authorization: `Bearer ${fake.apiKey}`, 'x-compactd-threshold': '1500', ...headers }, payload: { model: 'gpt-4o', messages } })
  const off = await send({ 'x-compactd-trigger': 'off' })
  t.equal(off.headers['x-compactd-compacted'], 'false')
  t.equal(fake.lastRequest!.body.messages.length, messages.length, 'forwarded whole')
  const manual = await send({ 'x-compactd-trigger': 'manual', 'x-compactd-session': 'proxy-manual' })
  t.equal(manual.headers['x-compactd-compacted'], 'false')
  t.match(manual.headers['x-compactd-held'], /trigger mode manual/)
  const now = await send({ 'x-compactd-trigger': 'manual', 'x-compactd-session': 'proxy-manual', 'x-compactd-compact': 'now' })
  t.equal(now.headers['x-compactd-compacted'], 'true')
  await app.inject({ method: 'PUT', url: '/sessions/proxy-stored', payload: { format: 'openai', trigger: { mode: 'manual' } } })
  const stored = await send({ 'x-compactd-session': 'proxy-stored' })
  t.match(stored.headers['x-compactd-held'], /trigger mode manual/, "the session's stored trigger")
  const bad = await send({ 'x-compactd-trigger': 'sometimes' })
  t.equal(bad.statusCode, 400)
  t.match(bad.body, /x-compactd-trigger/)
})
