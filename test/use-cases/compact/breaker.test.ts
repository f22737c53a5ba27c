/**
 * The compaction circuit breaker end to end (src/use-cases/compact/breaker.ts): a session
 * that refills its context after every compaction trips it, on GET /context and through
 * the proxy; refusals are clear (409 breaker_open with Retry-After, or the proxy's
 * x-compactd-breaker header, and a metric); GET /stats shows it; a manual compaction or a
 * reset closes it.
 */
import type { FastifyInstance } from 'fastify'
import OpenAI from 'openai'
import t from 'tap'
import { breakerStatus, recordAutomatic, type BreakerSettings } from '../../../src/engine/compaction/breaker.ts'
import { startFakeProvider, type FakeProvider } from '../../fakes/fake-llm-provider.ts'
import { buildTestApp } from '../../helpers/build.ts'

/** One exchange whose tool output refills the context: a large file read. */
function refill(i: number): Record<string, unknown>[] {
  const id = `read_${i}`
  return [
    { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: `src/big${i}.ts` }) } }] },
    { role: 'tool', tool_call_id: id, content: `// src/big${i}.ts\n${`export const value${i} = compute(input, options) // line\n`.repeat(120)}` },
  ]
}

t.test('the rules: K small compactions in a row, or M within W messages, open it; the cooldown lets one more through', async (t) => {
  const s: BreakerSettings = { failures: 3, minFreedShare: 0.05, maxCompactions: 3, withinMessages: 6, cooldownSeconds: 60 }
  const at = (sec: number) => new Date(Date.UTC(2026, 10, 28, 0, 0, sec)).toISOString()
  let state = { recent: [] as ReturnType<typeof breakerStatus>['recent'] }
  state = recordAutomatic(state, { at: at(0), messages: 10, freedTokens: 100, windowTokens: 10_000 }, s)
  state = recordAutomatic(state, { at: at(1), messages: 30, freedTokens: 200, windowTokens: 10_000 }, s)
  t.equal(breakerStatus(state, new Date(at(2))).state, 'closed', 'two small ones are not yet a pattern')
  const open = recordAutomatic(state, { at: at(2), messages: 50, freedTokens: 300, windowTokens: 10_000 }, s)
  const status = breakerStatus(open, new Date(at(3)))
  t.equal(status.state, 'open')
  t.match(status.reason, /3 automatic compactions in a row each freed less than 5% of the window/)
  t.equal(status.retryAfterSeconds, 59)
  t.equal(breakerStatus(open, new Date(at(70))).state, 'closed', 'after the cooldown')
  const big = { recent: [] as ReturnType<typeof breakerStatus>['recent'] }
  let fast = recordAutomatic(big, { at: at(0), messages: 10, freedTokens: 5000, windowTokens: 10_000 }, s)
  fast = recordAutomatic(fast, { at: at(1), messages: 12, freedTokens: 5000, windowTokens: 10_000 }, s)
  fast = recordAutomatic(fast, { at: at(2), messages: 14, freedTokens: 5000, windowTokens: 10_000 }, s)
  t.match(breakerStatus(fast, new Date(at(3))).reason, /3 automatic compactions within 6 messages \(at messages 10, 12, 14\)/)
  let spaced = recordAutomatic(big, { at: at(0), messages: 10, freedTokens: 5000, windowTokens: 10_000 }, s)
  spaced = recordAutomatic(spaced, { at: at(1), messages: 20, freedTokens: 5000, windowTokens: 10_000 }, s)
  spaced = recordAutomatic(spaced, { at: at(2), messages: 30, freedTokens: 5000, windowTokens: 10_000 }, s)
  t.equal(breakerStatus(spaced, new Date(at(3))).state, 'closed', 'compactions that free much, far apart, are healthy')
})

t.test('GET /context: a session refilling after every compaction trips the breaker; a manual compaction closes it', async (t) => {
  const { app } = await buildTestApp(t)
  const url = '/sessions/refill'
  t.equal((await app.inject({ method: 'PUT', url, payload: { format: 'openai', windowMessages: 1000, windowTokens: 1_000_000 } })).statusCode, 201)
  const history: Record<string, unknown>[] = [{ role: 'system', content: 'You are a coding agent.' }, { role: 'user', content: 'Read every big file and summarise the values.' }]
  t.equal((await app.inject({ method: 'POST', url: `${url}/messages`, payload: { messages: history } })).statusCode, 200)
  const budget = 2500
  const seen: string[] = []
  let refused: Awaited<ReturnType<FastifyInstance['inject']>> | undefined
  for (let i = 0; i < 8 && !refused; i++) {
    const turn = refill(i)
    history.push(...turn)
    await app.inject({ method: 'POST', url: `${url}/messages`, payload: { messages: turn } })
    const ctx = await app.inject({ method: 'GET', url: `${url}/context?budget=${budget}` })
    seen.push(ctx.statusCode === 200 ? String(ctx.json().compacted) : String(ctx.statusCode))
    if (ctx.statusCode === 409) refused = ctx
  }
  t.ok(refused, `the breaker opened (${seen.join(', ')})`)
  t.same(seen.filter((s) => s === 'true').length, 3, 'three compactions within ten messages, then refused')
  t.match(refused!.json(), { error: 'breaker_open', retryAfterSeconds: Number, breaker: { state: 'open' } })
  t.match(refused!.json().message, /within 10 messages/)
  t.ok(Number(refused!.headers['retry-after']) > 0, 'Retry-After')
  const again = await app.inject({ method: 'GET', url: `${url}/context?budget=${budget}` })
  t.equal(again.statusCode, 409, 'still open for the same conversation')
  const big = await app.inject({ method: 'GET', url: `${url}/context?budget=100000` })
  t.equal(big.statusCode, 200, 'a context that fits needs no compaction, open or not')

  const stats = (await app.inject({ method: 'GET', url: `${url}/stats` })).json()
  t.equal(stats.breaker.state, 'open')
  t.equal(stats.breaker.recent.length, 3)
  const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body
  t.match(metrics, /compactd_breaker_refusals_total\{path="context"\} 2\n/, 'the two 409s, not the context that fitted')
  t.match(metrics, /compactd_breaker_opened_total [1-9]/)

  // A manual compaction of the session closes it.
  const manual = await app.inject({ method: 'POST', url: '/compact', payload: { messages: history, sessionId: 'refill', targetTokens: budget } })
  t.equal(manual.statusCode, 200, manual.body.slice(0, 200))
  t.equal((await app.inject({ method: 'GET', url: `${url}/stats` })).json().breaker.state, 'closed')
  t.equal((await app.inject({ method: 'GET', url: `${url}/context?budget=${budget}` })).statusCode, 200, 'automatic compaction runs again')

  // So does a reset.
  const reset = await app.inject({ method: 'POST', url: `${url}/breaker/reset` })
  t.same(reset.json(), { sessionId: 'refill', breaker: { state: 'closed', recent: [] } })
})

t.test('the proxy: held while the breaker is open (x-compactd-breaker, retry-after), compacted again after x-compactd-compact: now', async (t) => {
  const fake: FakeProvider = await startFakeProvider()
  t.teardown(() => fake.close())
  const { app } = await buildTestApp(t, { config: { UPSTREAM_OPENAI_URL: fake.openaiBaseURL } })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  const baseURL = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/v1`
  const headers = { 'x-compactd-session': 'proxy-refill', 'x-compactd-threshold': '2500' }
  const client = new OpenAI({ apiKey: fake.apiKey, baseURL, defaultHeaders: headers, maxRetries: 0 })
  const messages: Record<string, unknown>[] = [{ role: 'system', content: 'You are a coding agent.' }, { role: 'user', content: 'Read every big file.' }]
  const seen: string[] = []
  let held: Record<string, string> | undefined
  for (let i = 0; i < 10 && !held; i++) {
    messages.push(...refill(i))
    const { response } = await client.chat.completions.create({ model: 'gpt-4o', messages: messages as never }).withResponse()
    seen.push(`${response.headers.get('x-compactd-compacted')}/${response.headers.get('x-compactd-prefix') ?? '-'}`)
    if (response.headers.get('x-compactd-breaker') === 'open') held = Object.fromEntries(response.headers.entries())
  }
  t.ok(held, `held after repeated compactions (${seen.join(', ')}) ${(await app.inject({ method: 'GET', url: '/sessions/proxy-refill/stats' })).body}`)
  t.ok(Number(held!['retry-after']) > 0)
  t.match(held!['x-compactd-held'], /breaker is open/)
  t.equal(held!['x-compactd-compacted'], 'false', 'forwarded as sent')
  const { response } = await client.chat.completions.create({ model: 'gpt-4o', messages: messages as never }, { headers: { 'x-compactd-compact': 'now' } }).withResponse()
  t.equal(response.headers.get('x-compactd-compacted'), 'true', 'a manual compaction')
  t.equal((await app.inject({ method: 'GET', url: '/sessions/proxy-refill/stats' })).json().breaker.state, 'closed')
})
