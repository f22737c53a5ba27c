/**
 * The preservation contract (src/use-cases/compact/contract.ts) and /compact's `pin` and
 * `preserve` through the HTTP layer: pins and preserved strings always survive, or the
 * answer is a 422 listing what did not.
 */
import fc from 'fast-check'
import t from 'tap'
import { pinsFor, refuseImpossibleContract, unkeptOf } from '../../../src/use-cases/compact/contract.ts'
import { buildTestApp } from '../../helpers/build.ts'
import { conversationInFormatArb, findPairingProblems } from '../../helpers/conversation-arbitraries.ts'
import { parseConversation } from '../../../src/engine/messages/index.ts'
import { thrown } from '../../helpers/thrown.ts'

const messages = [
  { role: 'system', content: 'rules' },
  { role: 'user', content: 'Never touch "vendor/" files.' },
  { role: 'assistant', content: 'ok' },
  { role: 'user', content: 'The deploy URL is https://example.test/deploy and the port 8443.' },
]

t.test('the checks: pins past the end and strings not in the input are 400s naming them', async (t) => {
  t.doesNotThrow(() => refuseImpossibleContract({ messages, pin: [0, 3], preserve: ['vendor/', 'https://example.test/deploy', 'Never touch "vendor/"'] }))
  t.match(thrown(() => refuseImpossibleContract({ messages, pin: [4] })), { statusCode: 400, issues: [{ path: 'body.pin[0]' }] })
  t.match(thrown(() => refuseImpossibleContract({ messages, preserve: ['port 8443', 'port 9000'] })), { statusCode: 400, issues: [{ path: 'body.preserve[1]' }] })
  t.same(unkeptOf({ messages, pin: [1, 3], preserve: ['8443', 'rules'] }, { messages: [messages[0], messages[1]] }), { pin: [3], preserve: ['8443'] })
  t.same(pinsFor({ messages, pin: [0] }, ['8443']), [0, 3], 'the last message holding a missing string')
})

t.test('/compact keeps pinned messages byte for byte with their pairs, and preserved strings', async (t) => {
  const { app } = await buildTestApp(t)
  const conversation: Record<string, unknown>[] = [{ role: 'system', content: 'You are a coding agent.' }, { role: 'user', content: 'Fix the failing tests.' }]
  for (let i = 0; i < 16; i++) {
    conversation.push(
      { role: 'assistant', content: null, tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command: `npm test -- src/m${i}.ts` }) } }] },
      { role: 'tool', tool_call_id: `c${i}`, content: `FAIL src/m${i}.ts\n${i === 5 ? 'the secret handshake is KESTREL-7731\n' : ''}${'AssertionError: expected 4 to equal 5\n'.repeat(30)}` },
    )
  }
  conversation.push({ role: 'user', content: 'Go on.' })
  const pinned = 9 // the tool result of c3 (its call is 8), deep in the middle
  const res = await app.inject({ method: 'POST', url: '/compact', payload: { messages: conversation, targetTokens: 2500, pin: [pinned], preserve: ['KESTREL-7731'] } })
  t.equal(res.statusCode, 200, res.body.slice(0, 300))
  const body = res.json()
  t.equal(body.compacted, true)
  const out = body.messages.map((m: unknown) => JSON.stringify(m))
  t.ok(out.includes(JSON.stringify(conversation[pinned])), 'the pinned result, byte for byte')
  t.ok(out.includes(JSON.stringify(conversation[pinned - 1])), 'with its call')
  t.ok(out.some((m: string) => m.includes('KESTREL-7731')), 'the preserved string')
  t.same(body.contract, { pinned: [pinned], preserved: ['KESTREL-7731'] })
  t.same(findPairingProblems(parseConversation(body.messages, { format: 'openai' })), [])

  const tooMuch = await app.inject({ method: 'POST', url: '/compact', payload: { messages: conversation, targetTokens: 600, pin: [4, 6, 8, 10, 12] } })
  t.equal(tooMuch.statusCode, 422)
  t.match(tooMuch.json(), { error: 'contract_unkept', unkept: { pin: Array } })
  t.ok(tooMuch.json().unkept.pin.length > 0, 'lists the pins it could not keep')
  const absent = await app.inject({ method: 'POST', url: '/compact', payload: { messages: conversation, preserve: ['not-in-there'] } })
  t.equal(absent.statusCode, 400)
  t.match(absent.json().issues, [{ path: 'body.preserve[0]' }])
  const past = await app.inject({ method: 'POST', url: '/compact', payload: { messages: conversation, pin: [conversation.length] } })
  t.equal(past.statusCode, 400)
  t.match(past.json().issues, [{ path: 'body.pin[0]' }])
})

t.test('property: in every format, pins and preserved strings survive, or the answer is a 422 listing them', async (t) => {
  const { app } = await buildTestApp(t)
  let kept = 0
  let refused = 0
  await fc.assert(
    fc.asyncProperty(conversationInFormatArb({ maxTurns: 10 }), fc.double({ min: 0.15, max: 0.7, noNaN: true }), fc.nat(), fc.nat(), async (conv, share, a, b) => {
      if (conv.messages.length < 3) return
      const pin = [...new Set([a % conv.messages.length, b % conv.messages.length])]
      const estimate = await app.inject({ method: 'POST', url: '/estimate', payload: { messages: conv.messages, format: conv.format, ...(conv.system !== undefined ? { system: conv.system } : {}) } })
      const targetTokens = Math.max(50, Math.floor(estimate.json().totalTokens * share))
      const res = await app.inject({ method: 'POST', url: '/compact', payload: { messages: conv.messages, format: conv.format, ...(conv.system !== undefined ? { system: conv.system } : {}), targetTokens, pin } })
      if (res.statusCode === 422) {
        refused++
        return
      }
      if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body.slice(0, 300)}`)
      const out = new Set((res.json().messages as unknown[]).map((m) => JSON.stringify(m)))
      for (const i of pin) if (!out.has(JSON.stringify(conv.messages[i]))) throw new Error(`${conv.format}: pin ${i} lost at ${targetTokens} tokens`)
      kept++
    }),
    { numRuns: 40, seed: 24 },
  )
  t.ok(kept > 0, `kept in ${kept} runs, refused with a 422 in ${refused}`)
})
