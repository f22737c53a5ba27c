/** Window eviction (src/engine/sessions/window.ts): whole units from the oldest end, the newest unit always stays. */
import t from 'tap'
import type { CanonicalMessage } from '../../../src/engine/messages/canonical.ts'
import { planWindowEviction } from '../../../src/engine/sessions/index.ts'
import { call, msg, result, text } from './helpers.ts'

/** user, assistant call + its result, assistant text, repeated: 3 units of 4 messages per round. */
function rounds(n: number): CanonicalMessage[] {
  const out: CanonicalMessage[] = []
  for (let i = 0; i < n; i++) {
    out.push(msg('user', [text(`task ${i}`)]), msg('assistant', [call(`w${i}`, 'bash', { command: 'ls' })]), msg('tool', [result(`w${i}`, 'a.ts')]), msg('assistant', [text(`done ${i}`)]))
  }
  return out
}
const ones = (messages: readonly unknown[]) => messages.map(() => 1)

t.test('within both limits nothing is evicted', async (t) => {
  const messages = rounds(2)
  t.same(planWindowEviction(messages, ones(messages), { windowMessages: 8, windowTokens: 8 }), { evicted: 0, messages: 8, tokens: 8 })
  t.same(planWindowEviction([], [], { windowMessages: 0, windowTokens: 0 }), { evicted: 0, messages: 0, tokens: 0 }, 'an empty window')
})

t.test('over windowMessages: the oldest whole units go, a tool call with its result', async (t) => {
  const messages = rounds(3) // 12 messages
  t.same(planWindowEviction(messages, ones(messages), { windowMessages: 11, windowTokens: 1_000 }), { evicted: 1, messages: 11, tokens: 11 }, 'the user turn alone')
  t.same(planWindowEviction(messages, ones(messages), { windowMessages: 10, windowTokens: 1_000 }), { evicted: 3, messages: 9, tokens: 9 }, 'the call leaves with its result: one more than needed')
  t.same(planWindowEviction(messages, ones(messages), { windowMessages: 8, windowTokens: 1_000 }), { evicted: 4, messages: 8, tokens: 8 })
})

t.test('over windowTokens: evicted by tokens, whatever the message count', async (t) => {
  const messages = rounds(2)
  const tokens = [10, 500, 300, 20, 10, 50, 50, 20]
  t.same(planWindowEviction(messages, tokens, { windowMessages: 100, windowTokens: 300 }), { evicted: 3, messages: 5, tokens: 150 })
  t.same(planWindowEviction(messages, tokens, { windowMessages: 100, windowTokens: 150 }), { evicted: 3, messages: 5, tokens: 150 }, 'the limit is inclusive')
  t.same(planWindowEviction(messages, tokens, { windowMessages: 100, windowTokens: 149 }), { evicted: 4, messages: 4, tokens: 130 })
})

t.test('the newest unit stays, however large', async (t) => {
  const messages = rounds(1)
  t.same(planWindowEviction(messages, [1, 1, 1, 10_000], { windowMessages: 0, windowTokens: 10 }), { evicted: 3, messages: 1, tokens: 10_000 })
  const pair = rounds(1).slice(1, 3) // one call and its result: a single unit
  t.same(planWindowEviction(pair, [5_000, 5_000], { windowMessages: 1, windowTokens: 1 }), { evicted: 0, messages: 2, tokens: 10_000 })
})
