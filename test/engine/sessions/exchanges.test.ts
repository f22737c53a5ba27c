/** Exchanges (src/engine/sessions/exchanges.ts): grouping at user turns, long agent loops cut at unit boundaries, exchange time. */
import t from 'tap'
import type { CanonicalMessage } from '../../../src/engine/messages/canonical.ts'
import { EXCHANGE_MAX_UNITS, exchangeTime, groupExchanges, sessionExchanges } from '../../../src/engine/sessions/index.ts'
import { call, iso, msg, result, T0, text } from './helpers.ts'

t.test('groupExchanges keeps tool calls with their results', async (t) => {
  const messages = [
    msg('system', [text('You are an agent')]),
    msg('assistant', [text('Hello, what shall we do?')]),
    msg('user', [text('fix it')]),
    msg('assistant', [call('a', 'bash', { command: 'ls' })]),
    msg('tool', [result('a', 'x.ts')]),
    msg('user', [result('b', 'anthropic-style result in a user message')]),
    msg('assistant', [text('done')]),
    msg('user', [text('thanks, now the docs')]),
  ]
  const ex = groupExchanges(messages)
  t.same(ex.map((e) => e.messages.map((m) => m.index - messages[0]!.index)), [[1], [2, 3, 4, 5, 6], [7]])
})

t.test('groupExchanges opens an exchange at a user turn only (facts/user-turn.ts): harness text and a bare "continue" stay with the work', async (t) => {
  // Before issue 20 every user message without tool results opened an exchange, so a
  // harness "continue" started one that /compact did not count as an instruction.
  const messages = [
    msg('user', [text('Refactor the storage layer')]),
    msg('assistant', [call('a', 'bash', { command: 'ls' })]),
    msg('tool', [result('a', 'src')]),
    msg('user', [text('continue')]),
    msg('assistant', [call('b', 'bash', { command: 'npm test' })]),
    msg('tool', [result('b', 'ok')]),
    msg('user', [text('<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n</task-notification>')]),
    msg('user', [text('now the docs')]),
  ]
  t.same(groupExchanges(messages).map((e) => e.messages.map((m) => m.index - messages[0]!.index)), [[0, 1, 2, 3, 4, 5, 6], [7]])
})

/** One user task followed by `steps` tool calls, each answered by its result. */
function agentLoop(steps: number): CanonicalMessage[] {
  const out = [msg('user', [text('Refactor the storage layer')])]
  for (let i = 0; i < steps; i++) out.push(msg('assistant', [call(`s${i}`, 'bash', { command: `step ${i}` })]), msg('tool', [result(`s${i}`, `ok ${i}`)]))
  return out
}

t.test('sessionExchanges: short exchanges are groupExchanges as they are', async (t) => {
  t.equal(EXCHANGE_MAX_UNITS, 4)
  const messages = [msg('system', [text('You are an agent')]), ...agentLoop(3), msg('user', [text('thanks, now the docs')]), msg('assistant', [text('Done.')])]
  const grouped = groupExchanges(messages)
  const exchanges = sessionExchanges(messages)
  t.equal(exchanges.length, 2, 'user + 3 tool steps is 4 units: not cut')
  t.same(exchanges, grouped)
  t.same(sessionExchanges([]), [])
  t.same(sessionExchanges([msg('system', [text('only a system message')])]), [], 'system messages belong to no exchange')
})

t.test('sessionExchanges: a long agent loop is cut into pieces of at most EXCHANGE_MAX_UNITS units', async (t) => {
  const messages = agentLoop(9) // 10 units: the user turn, then 9 calls with their results
  const pieces = sessionExchanges(messages)
  t.same(
    pieces.map((p) => p.messages.length),
    [1 + 2 * 3, 2 * 4, 2 * 2],
    'units 4 + 4 + 2',
  )
  t.same(
    pieces.flatMap((p) => p.messages),
    messages,
    'nothing lost, duplicated or reordered',
  )
  for (const p of pieces.slice(1)) t.equal(p.messages[0]!.role, 'assistant', 'each later piece starts with a tool call, its result with it')
  for (const p of pieces) t.equal(p.messages.at(-1)!.role, 'tool', 'no piece ends on an unanswered call')
})

t.test('sessionExchanges: parallel calls and their results stay one unit', async (t) => {
  const messages = [
    msg('user', [text('Check everything')]),
    msg('assistant', [call('p1', 'bash', { command: 'a' }), call('p2', 'bash', { command: 'b' })]),
    msg('tool', [result('p1', 'a done')]),
    msg('tool', [result('p2', 'b done')]),
    ...agentLoop(4).slice(1),
  ]
  // Units: user | parallel call + 2 results | 4 single calls → 6 units.
  const pieces = sessionExchanges(messages)
  t.same(
    pieces.map((p) => p.messages.length),
    [1 + 3 + 2 * 2, 2 * 2],
  )
  t.same(pieces[0]!.messages.slice(1, 4), messages.slice(1, 4))
})

t.test('exchangeTime: the latest message timestamp, undefined without one', async (t) => {
  const stamped = { messages: [msg('user', [text('go')], iso(T0 + 5_000)), msg('assistant', [text('ok')], iso(T0)), msg('assistant', [text('no time')])] }
  t.equal(exchangeTime(stamped), iso(T0 + 5_000))
  t.equal(exchangeTime({ messages: [msg('user', [text('go')])] }), undefined)
  t.equal(exchangeTime({ messages: [msg('user', [text('go')], 'not a time')] }), undefined, 'an unparseable timestamp is ignored')
})
