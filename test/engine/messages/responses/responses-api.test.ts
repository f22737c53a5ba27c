/**
 * The Responses format everywhere the other formats work: /estimate, /compact (the same
 * format out, pairs kept, parallel calls together), session appends and /context, and the
 * importer's Codex path.
 */
import t from 'tap'
import { parseConversation } from '../../../../src/engine/messages/index.ts'
import { findPairingProblems } from '../../../../src/engine/conversation/pairing.ts'
import { importLog } from '../../../../src/engine/import/index.ts'
import { buildTestApp } from '../../../helpers/build.ts'
import { prose } from '../../../helpers/prose.ts'

/** A Codex-like session: each turn reasoning (encrypted), two parallel calls, their outputs. */
function session(turns: number): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [
    { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'You are a coding agent.' }] },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Fix the failing test in src/db.ts' }] },
  ]
  for (let i = 0; i < turns; i++) {
    out.push({ type: 'reasoning', id: `rs_${i}`, summary: [], encrypted_content: `enc-${i}` })
    out.push({ type: 'function_call', call_id: `a${i}`, name: 'shell', arguments: JSON.stringify({ command: ['cat', `src/file${i}.ts`] }) })
    out.push({ type: 'function_call', call_id: `b${i}`, name: 'shell', arguments: JSON.stringify({ command: ['npm', 'test', `test/${i}.test.ts`] }) })
    out.push({ type: 'function_call_output', call_id: `a${i}`, output: prose(1500, i) })
    out.push({ type: 'function_call_output', call_id: `b${i}`, output: `FAIL test/${i}.test.ts\n${prose(800, i + 100)}` })
  }
  out.push({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'The tests pass now.', annotations: [] }] })
  return out
}

/** Calls of each assistant turn, and whether every output follows its turn's calls. */
function turnsOf(items: unknown[]): string[][] {
  return parseConversation(items, { format: 'responses' })
    .messages.filter((m) => m.role === 'assistant')
    .map((m) => m.parts.flatMap((p) => (p.type === 'tool-call' ? [p.id] : [])))
    .filter((ids) => ids.length > 0)
}

t.test('/estimate, /compact, session appends and /context take and give Responses items', async (t) => {
  const { app } = await buildTestApp(t)
  const messages = session(8)

  const est = await app.inject({ method: 'POST', url: '/estimate', payload: { messages } })
  t.equal(est.statusCode, 200, est.body.slice(0, 300))
  t.equal(est.json().format, 'responses', 'detected')

  const res = await app.inject({ method: 'POST', url: '/compact', payload: { messages, force: true, targetTokens: 2500, keepRecent: 2 } })
  t.equal(res.statusCode, 200, res.body.slice(0, 300))
  const body = res.json()
  t.equal(body.format, 'responses')
  t.same(findPairingProblems(parseConversation(body.messages, { format: 'responses' }).messages), [], 'pairs kept')
  for (const ids of turnsOf(body.messages)) t.ok(ids.length === 2 && ids[0]!.slice(1) === ids[1]!.slice(1), `parallel calls ${ids.join(', ')} kept together`)
  const kept = body.messages.filter((m: { type?: string }) => m.type === 'reasoning')
  for (const r of kept) t.match(r, { encrypted_content: /^enc-\d$/ }, 'reasoning passed through untouched')
  t.ok(body.compacted, 'compacted')
  t.ok(body.event.tokensAfter <= 2500, 'within the target')

  const id = 'responses-session'
  for (const [from, to] of [[0, 2], [2, 22], [22, messages.length]]) {
    const append = await app.inject({ method: 'POST', url: `/sessions/${id}/messages`, payload: { messages: messages.slice(from, to), format: 'responses' } })
    t.equal(append.statusCode, 200, `append ${from}..${to}: ${append.body.slice(0, 200)}`)
  }
  const ctx = await app.inject({ method: 'GET', url: `/sessions/${id}/context?budget=3000` })
  t.equal(ctx.statusCode, 200, ctx.body.slice(0, 300))
  t.equal(ctx.json().format, 'responses')
  const items = ctx.json().messages as unknown[]
  t.same(findPairingProblems(parseConversation(items, { format: 'responses' }).messages), [], '/context items pair')
  for (const ids of turnsOf(items)) t.equal(ids.length, 2, 'parallel calls together in /context')
  t.ok(items.every((item) => !Array.isArray(item)), '/context writes items, not stored groups')
})

t.test('the Codex import writes Responses items when asked, with encrypted reasoning', async (t) => {
  const lines = [
    { timestamp: '2026-01-01T00:00:00.000Z', type: 'session_meta', payload: { id: 's1', cwd: '/repo', base_instructions: { text: 'You are Codex.' } } },
    { timestamp: '2026-01-01T00:00:01.000Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Fix it' }] } },
    { timestamp: '2026-01-01T00:00:02.000Z', type: 'response_item', payload: { type: 'reasoning', summary: [], content: null, encrypted_content: 'gAAA' } },
    { timestamp: '2026-01-01T00:00:03.000Z', type: 'response_item', payload: { type: 'custom_tool_call', call_id: 'p1', name: 'apply_patch', input: '*** Begin Patch' } },
    { timestamp: '2026-01-01T00:00:04.000Z', type: 'response_item', payload: { type: 'custom_tool_call_output', call_id: 'p1', output: 'Done' } },
  ]
  const log = lines.map((l) => JSON.stringify(l)).join('\n')
  const r = importLog(log, { format: 'responses' })
  t.equal(r.format, 'responses')
  t.same(r.messages, [{ role: 'system', content: 'You are Codex.' }, ...lines.slice(1).map((l) => l.payload)], 'the rollout items as written, the instructions as a system message')
  const sdk = importLog(log, { format: 'ai-sdk' })
  t.notOk(JSON.stringify(sdk.messages).includes('gAAA'), 'other formats: through the AI SDK as before (encrypted reasoning skipped)')
})

t.test('POST /display shows every format in one form, one entry per element', async (t) => {
  const { app } = await buildTestApp(t)
  const items = session(1)
  const res = await app.inject({ method: 'POST', url: '/display', payload: { messages: items } })
  t.equal(res.statusCode, 200, res.body.slice(0, 300))
  const body = res.json()
  t.equal(body.format, 'responses')
  t.equal(body.messages.length, items.length)
  t.same(body.messages[4], { role: 'assistant', text: '', calls: [{ id: 'b0', name: 'shell', args: JSON.stringify({ command: ['npm', 'test', 'test/0.test.ts'] }) }], results: [] })
  t.same(body.messages[5].results.map((r: { id: string }) => r.id), ['a0'])
  const anthropic = await app.inject({
    method: 'POST',
    url: '/display',
    payload: { system: 'Be brief.', messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: 'ok', is_error: true }, { type: 'text', text: 'next' }] }] },
  })
  t.same(anthropic.json(), { format: 'anthropic', system: { role: 'system', text: 'Be brief.', calls: [], results: [] }, messages: [{ role: 'user', text: 'next', calls: [], results: [{ id: 'x', text: 'ok', isError: true }] }] })
  const broken = await app.inject({ method: 'POST', url: '/display', payload: { format: 'openai', messages: [{ role: 'robot', content: 'x' }] } })
  t.same(broken.json().messages, [{ role: 'robot', text: '{"role":"robot","content":"x"}', calls: [], results: [] }], 'a refused message is shown as its JSON')
})
