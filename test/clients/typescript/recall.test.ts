/**
 * The recall tools of @compactd/client (clients/typescript/src/recall.ts) against a
 * compactd listening on a port: a conversation compacted with a sessionId, then what it
 * dropped found with `search`, read back with `read`, and answered as tool results by
 * `answerRecall`; the tool definitions as the OpenAI and Anthropic SDKs take them.
 */
import type Anthropic from '@anthropic-ai/sdk'
import type { FastifyInstance } from 'fastify'
import type OpenAI from 'openai'
import type * as Tap from 'tap'
import t from 'tap'
import { CompactdError, createCompactdClient, recallToolsAnthropic, recallToolsOpenAI, type CompactdClient } from '../../../clients/typescript/src/index.ts'
import { formatRead, formatSearch, recallInput } from '../../../clients/typescript/src/recall.ts'
import { buildTestApp } from '../../helpers/build.ts'
import { prose } from '../../helpers/prose.ts'

/** The one line of the conversation that says what is wrong; it is in the output of src/cart/part2.ts only. */
const FACT = 'export const total = (cart: Cart) => cart.items.slice(0, -1).reduce((sum, item) => sum + item.price * item.quantity, 0)'
const SESSION = 'recall-ts'

/** A coding agent reading 12 files of 60 lines; the third holds FACT as its line 41. */
function conversation(): Record<string, unknown>[] {
  const file = (i: number) =>
    Array.from({ length: 60 }, (_, n) => (i === 2 && n === 40 ? FACT : `// src/cart/part${i}.ts:${n + 1} ${prose(60, i * 100 + n)}`)).join('\n')
  return [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Find why the checkout total is off by one.' },
    ...Array.from({ length: 12 }, (_, i) => [
      { role: 'assistant', content: null, tool_calls: [{ id: `call_${i}`, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: `src/cart/part${i}.ts` }) } }] },
      { role: 'tool', tool_call_id: `call_${i}`, content: file(i) },
    ]).flat(),
  ]
}

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 })
  return `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
}

/** A client over a compactd that has compacted conversation() under SESSION. */
async function compacted(t: Tap.Test): Promise<CompactdClient> {
  const { app } = await buildTestApp(t)
  const compactd = createCompactdClient({ baseUrl: await listen(app) })
  const { data } = await compactd.POST('/compact', { body: { model: 'gpt-4o', messages: conversation(), targetTokens: 3000, sessionId: SESSION } })
  t.equal(data!.archive?.status, 'archived')
  t.notOk(JSON.stringify(data!.messages).includes('slice(0, -1)'), 'the compacted messages no longer hold the fact')
  return compactd
}

t.test('the tool definitions: search_context and read_context, as the OpenAI and Anthropic SDKs type them', async (t) => {
  const openai: OpenAI.ChatCompletionTool[] = recallToolsOpenAI()
  const anthropic: Anthropic.Tool[] = recallToolsAnthropic()
  t.same(openai.map((tool) => (tool.type === 'function' ? tool.function.name : '')), ['search_context', 'read_context'])
  t.same(anthropic.map((tool) => tool.name), ['search_context', 'read_context'])
  const [search, read] = recallToolsOpenAI()
  t.same(search!.function.parameters.required, ['query'])
  t.same(Object.keys(search!.function.parameters.properties), ['query', 'limit'])
  t.same(read!.function.parameters.required, ['ref'])
  t.same(Object.keys(read!.function.parameters.properties), ['ref', 'lines', 'grep'])
  t.same(anthropic[1]!.input_schema, read!.function.parameters, 'one schema for both')
  t.equal(anthropic[0]!.description, search!.function.description)
  // Each call gives fresh objects: a caller may change its copy.
  recallToolsOpenAI()[0]!.function.parameters.required.push('limit')
  t.same(recallToolsOpenAI()[0]!.function.parameters.required, ['query'])
})

t.test('search and read: the archive of a compaction, typed by the spec', async (t) => {
  const compactd = await compacted(t)
  const { hits, terms } = await compactd.search(SESSION, 'where is the cart total computed', { limit: 3 })
  t.ok(terms.includes('total'))
  t.ok(hits.length >= 1 && hits.length <= 3)
  const hit = hits[0]!
  t.match(hit, { role: 'tool', toolName: 'read_file', checkpointNum: 1, source: 'compact' })
  t.match(hit.ref, /^[0-9a-z]{8}$/)
  t.match(hit.snippet, /slice\(0, -1\)/)

  const whole = await compactd.read(SESSION, hit.ref)
  t.equal(whole.totalLines, 60)
  t.equal(whole.format, 'openai')
  t.match(whole.messages, [{ role: 'tool', tool_call_id: 'call_2' }])
  const lines = await compactd.read(SESSION, hit.ref, { lines: '40-41' })
  t.equal(lines.text, `40\t// src/cart/part2.ts:40 ${prose(60, 239)}\n41\t${FACT}`)
  t.equal(lines.messages, undefined)
  const grep = await compactd.read(SESSION, hit.ref, { grep: 'SLICE(0', context: 1 })
  t.equal(grep.matchedLines, 1)
  t.same(grep.text!.split('\n').map((l) => l.split('\t')[0]), ['40', '41', '42'])
  const anthropic = await compactd.read(SESSION, hit.ref, { format: 'anthropic' })
  t.match(anthropic.messages, [{ role: 'user', content: [{ type: 'tool_result' }] }])

  const missing = await compactd.read(SESSION, 'zzzzzzzz').catch((err: unknown) => err)
  t.ok(missing instanceof CompactdError && missing.status === 404, 'an unknown ref throws a 404 CompactdError')
})

t.test('answerRecall: the text of each recall tool result, and undefined for any other tool', async (t) => {
  const compactd = await compacted(t)
  t.equal(await compactd.answerRecall(SESSION, 'read_file', { path: 'src/cart/part2.ts' }), undefined, 'not a recall tool: the loop answers it')

  const found = (await compactd.answerRecall(SESSION, 'search_context', { query: 'cart total', limit: 2 }))!
  const [head, first] = found.split('\n')
  t.match(head, /^[12] archived messages? match(es)? "cart total", best first; read_context\(ref\) reads one:$/)
  const ref = /^\[ref ([0-9a-z]{8})\] read_file result \(checkpoint 1\): .*slice\(0, -1\)/.exec(first!)?.[1]
  t.ok(ref, `the first hit names its ref, tool and snippet: ${first}`)
  t.equal(await compactd.answerRecall(SESSION, 'search_context', JSON.stringify({ query: 'cart total', limit: 2 })), found, "OpenAI's JSON string of arguments")

  const grep = (await compactd.answerRecall(SESSION, 'read_context', { ref, grep: 'slice(0' }))!
  t.equal(grep.split('\n')[0], `[ref ${ref}] read_file result (checkpoint 1), 60 lines; 1 matching "slice(0":`)
  t.same(grep.split('\n').slice(1).map((l) => l.split('\t')[0]), ['39', '40', '41', '42', '43'], 'numbered, 2 lines around the match')
  t.ok(grep.includes(`41\t${FACT}`))
  const lines = (await compactd.answerRecall(SESSION, 'read_context', { ref: `[ref ${ref!.toUpperCase()}]`, lines: '41' }))!
  t.equal(lines, `[ref ${ref}] read_file result (checkpoint 1), 60 lines; lines 41:\n41\t${FACT}`, 'a ref as printed, in any case')
  const whole = (await compactd.answerRecall(SESSION, 'read_context', { ref }))!
  t.equal(whole.split('\n').length, 61, 'the whole output, after one line saying what it is')
  t.equal(whole.split('\n')[41], FACT, 'not numbered')

  // Too long for maxChars: cut at a line, saying what to read next.
  const cut = (await compactd.answerRecall(SESSION, 'read_context', { ref }, { maxChars: 1000 }))!
  t.ok(cut.length < 1200)
  t.match(cut.split('\n').at(-1), /^\[cut: lines 1-\d+ of 60 shown; read_context with lines="\d+-\d+" or grep reads more\]$/)

  // The assistant's call, read back with its result.
  const { hits } = await compactd.search(SESSION, 'part7.ts', { limit: 5 })
  const call = hits.find((h) => h.role === 'assistant')!
  t.ok(call, 'the tool call is archived too')
  const pair = (await compactd.answerRecall(SESSION, 'read_context', { ref: call.ref }))!
  t.match(pair, /^\[ref \w{8}\] assistant, calling read_file \(checkpoint 1\), 1 line:\nassistant: → read_file\(\{"path":"src\/cart\/part7\.ts"\}\)\ntool call_7: \/\/ src\/cart\/part7\.ts:1 /)
})

t.test("answerRecall: the model's mistakes come back as text it can act on; compactd failing throws", async (t) => {
  const compactd = await compacted(t)
  const answer = (name: string, args: unknown) => compactd.answerRecall(SESSION, name, args)
  t.match(await answer('search_context', {}), /^search_context failed: give a query/)
  t.match(await answer('search_context', '{"query": '), /^search_context failed: the arguments are not JSON/)
  t.match(await answer('search_context', { query: 'zebra quokka' }), /^No archived message matches "zebra quokka"\. Try other words/)
  t.match(await answer('read_context', {}), /^read_context failed: give the ref/)
  t.match(await answer('read_context', { ref: 'zzzzzzzz' }), /^read_context failed: no archived message zzzzzzzz in session "recall-ts"/)
  t.match(await answer('read_context', { ref: 'not a ref' }), /^read_context failed: params\.ref: "not a ref" is not an archive reference/)
  const { hits } = await compactd.search(SESSION, 'cart total')
  t.match(await answer('read_context', { ref: hits[0]!.ref, lines: '900-910' }), /^read_context failed: querystring\.lines: the message has 60 lines/)
  t.match(await answer('read_context', { ref: hits[0]!.ref, grep: 'no such text' }), /; 0 matching "no such text":\n\(no line matches\)$/)
  t.match(await compactd.answerRecall('no-such-session', 'search_context', { query: 'total' }), /^search_context failed: no session "no-such-session"/)
  t.same(recallInput('search_context', { query: 'x', limit: 500 }), { tool: 'search_context', query: 'x', limit: 50 }, 'a limit is kept within 1–50')
  t.same(recallInput('read_context', { ref: 'abcdefgh', lines: '10 – 20' }), { tool: 'read_context', ref: 'abcdefgh', lines: '10-20' })

  const down = createCompactdClient({ baseUrl: 'http://127.0.0.1:9', retry: false })
  await t.rejects(down.answerRecall(SESSION, 'search_context', { query: 'total' }), 'unreachable: the loop sees the error')
})

t.test('formatSearch and formatRead without a server', async (t) => {
  const hit = { ref: 'abcdefgh', role: 'user', toolName: null, snippet: 'a\n  b', score: 1, checkpointNum: null, position: 3, source: 'session' as const }
  t.equal(formatSearch('q', { hits: [hit], terms: ['q'] }), '1 archived message matches "q", best first; read_context(ref) reads one:\n[ref abcdefgh] user (a session message): a b')
  const anthropicResult = { ...hit, toolName: 'read_file', checkpointNum: 4 }
  t.match(formatSearch('q', { hits: [anthropicResult], terms: [] }), /\n\[ref abcdefgh\] read_file result \(checkpoint 4\): a b$/, "Anthropic's tool results are user messages")
  const read = { ref: 'abcdefgh', role: 'tool', toolName: 'bash', checkpointNum: 2, position: 1, source: 'compact' as const, format: 'openai' as const, totalLines: 1, redactions: 0 }
  t.equal(formatRead({ ...read, text: '1\tx'.repeat(1), truncated: true }, { lines: '1' }), '[ref abcdefgh] bash result (checkpoint 2), 1 line; lines 1:\n1\tx\n[cut at 64 KB: ask for a narrower lines range]')
  t.equal(formatRead({ ...read, messages: [{ role: 'tool', tool_call_id: 'c', content: [{ type: 'text', text: 'out' }, { type: 'image_url' }] }], truncated: false }), '[ref abcdefgh] bash result (checkpoint 2), 1 line:\nout\n[image_url]')
  t.match(formatRead({ ...read, messages: [{ role: 'tool', content: 'x'.repeat(50) }], truncated: false }, { maxChars: 10 }), /\nxxxxxxxxxx\n\[cut at 10 of 50 characters, in line 1; grep finds the part you need\]$/)
})
