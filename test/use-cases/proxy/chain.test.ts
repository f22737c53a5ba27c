/**
 * Chained rounds through the proxy (src/use-cases/proxy/chain.ts): a session compacted
 * again keeps its prefix's head (system prompt, task, earlier summary) byte for byte and
 * summarises only what came after it; at PROXY_SUMMARY_CHAIN summaries the whole history
 * is compacted into one again. Driven through the proxy's HTTP route with the fake provider
 * upstream, in each wire format.
 */
import type { FastifyInstance } from 'fastify'
import t from 'tap'
import { frozenHead } from '../../../src/engine/compaction/reusable-prefix.ts'
import { checkToolCallIds, messageText, parseConversation, serializeConversation } from '../../../src/engine/messages/index.ts'
import { isSummaryMessage } from '../../../src/use-cases/proxy/chain.ts'
import { startFakeProvider, type FakeProvider } from '../../fakes/fake-llm-provider.ts'
import { buildTestApp } from '../../helpers/build.ts'
import { exchange, type Message } from '../../helpers/session-conversations.ts'

t.test('frozenHead: the leading parts through the last summary, before anything else compactd created', async (t) => {
  const summary = (n: number) => ({ created: `S${n}` })
  const isSummary = (m: unknown) => typeof m === 'string' && m.startsWith('S')
  t.same(frozenHead([{ kept: 0 }, { kept: 1 }, summary(1), { kept: 5 }, { created: 'masked' }, { kept: 7 }], isSummary), { length: 3, summaries: 1 })
  t.same(frozenHead([{ kept: 0 }, { kept: 1 }, summary(1), { kept: 4 }, summary(2), { kept: 9 }], isSummary), { length: 5, summaries: 2 })
  t.same(frozenHead([{ kept: 0 }, { created: 'masked' }, summary(1)], isSummary), { length: 0, summaries: 0 }, 'a masked result before the summary: no head')
  t.same(frozenHead([{ kept: 0 }, { kept: 1 }], isSummary), { length: 0, summaries: 0 })
})

let fake: FakeProvider
let app: FastifyInstance
let base: string

t.before(async () => {
  fake = await startFakeProvider()
  ;({ app } = await buildTestApp(t, { config: { UPSTREAM_OPENAI_URL: fake.openaiBaseURL, UPSTREAM_ANTHROPIC_URL: fake.anthropicBaseURL, PROXY_SUMMARY_CHAIN: 2 } }))
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
})
t.teardown(() => fake.close())

function history(exchanges: number): Message[] {
  const out: Message[] = [{ role: 'system', content: 'You are a coding agent. Never edit generated files.' }]
  for (let i = 0; i < exchanges; i++) out.push(...exchange(i, { padding: 40 }))
  return out
}

const ENDPOINT = { openai: ['/v1/chat/completions', 'messages', 'gpt-4o'], responses: ['/v1/responses', 'input', 'gpt-4o'], anthropic: ['/v1/messages', 'messages', 'claude-sonnet-4-5'] } as const

for (const format of ['openai', 'responses', 'anthropic'] as const) {
  t.test(`${format}: the second compaction keeps the head byte for byte; the chain's end compacts the whole`, async (t) => {
    const [path, field, model] = ENDPOINT[format]
    const session = `chain-${format}`
    const send = async (messages: Message[]) => {
      fake.reset()
      const converted = format === 'openai' ? { messages } : serializeConversation(parseConversation(messages, { format: 'openai' }).messages, format)
      const body = { model, ...(format === 'anthropic' ? { max_tokens: 256 } : {}), ...(converted.system !== undefined ? { system: converted.system } : {}), [field]: converted.messages }
      const res = await fetch(base + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${fake.apiKey}`, 'x-api-key': fake.apiKey, 'anthropic-version': '2023-06-01', 'x-compactd-threshold': '6000', 'x-compactd-session': session },
        body: JSON.stringify(body),
      })
      const text = await res.clone().text()
      t.equal(res.status, 200, text.slice(0, 200))
      const upstream = fake.lastRequest!.body as Record<string, unknown>
      return { res, sent: upstream[field] as unknown[], system: upstream.system }
    }
    const summaries = (sent: unknown[]) => sent.map((m, i) => [i, m] as const).filter(([, m]) => isSummaryMessage(m, format))
    const texts = (sent: unknown[]) => sent.map((m) => JSON.stringify(m))

    const first = await send(history(30))
    t.equal(first.res.headers.get('x-compactd-prefix'), 'new')
    const s1 = summaries(first.sent)
    t.equal(s1.length, 1, 'one summary')
    const headLength = s1[0]![0] + 1

    // The history grows until the reused prefix crosses the threshold again.
    const second = await send(history(46))
    t.equal(second.res.headers.get('x-compactd-prefix'), 'new', 'compacted again')
    t.same(texts(second.sent).slice(0, headLength), texts(first.sent).slice(0, headLength), 'the head (system prompt, task, first summary) is byte-identical')
    t.equal(JSON.stringify(second.system ?? null), JSON.stringify(first.system ?? null), 'the same system prompt')
    const s2 = summaries(second.sent)
    t.equal(s2.length, 2, 'the earlier summary, then the new one')
    const round2 = messageText(parseConversation([second.sent[s2[1]![0]]], { format, allowDuplicateCallIds: true }).messages[0]!)
    t.match(round2, /Session Summary \(Compaction Round 2\)/)
    t.match(round2, /module(3[0-9]|4[0-5])\b/, 'the new summary covers what came after the head')
    t.ok(Number(second.res.headers.get('x-compactd-tokens-after')) < 6000, `under the threshold: ${second.res.headers.get('x-compactd-tokens-after')}`)
    t.doesNotThrow(() => checkToolCallIds(parseConversation(second.sent, { format, system: second.system })), 'tool pairs valid')

    // The next turn reuses the chained prefix.
    const third = await send([...history(46), { role: 'user', content: 'Commit it.' }, { role: 'assistant', content: 'Committing.' }])
    t.equal(third.res.headers.get('x-compactd-prefix'), 'reused')
    t.same(texts(third.sent).slice(0, second.sent.length), texts(second.sent), 'byte-identical')

    // With PROXY_SUMMARY_CHAIN 2 the head is full: the next compaction folds everything into one summary.
    const fourth = await send(history(64))
    t.equal(fourth.res.headers.get('x-compactd-prefix'), 'new')
    const s4 = summaries(fourth.sent)
    t.equal(s4.length, 1, 'one summary again')
    t.match(messageText(parseConversation([fourth.sent[s4[0]![0]]], { format, allowDuplicateCallIds: true }).messages[0]!), /Compaction Round 3/)
    const checkpoints = (await app.inject({ method: 'GET', url: `/sessions/${session}/checkpoints` })).json() as { items: unknown[] }
    t.equal(checkpoints.items.length, 3, 'each compaction a checkpoint')
  })
}
