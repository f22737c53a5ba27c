/**
 * memoizedCounter (src/engine/tokens/count.ts): the same counts as the counter it wraps,
 * a long text tokenized once however often it is asked for, short texts passed through;
 * and compact(), which counts through it, reports what the plain counter counts.
 */
import t from 'tap'
import { compact } from '../../../src/engine/compaction/compact.ts'
import { DEFAULT_COMPACT_OPTIONS } from '../../../src/engine/compaction/types.ts'
import { parseConversation } from '../../../src/engine/messages/index.ts'
import { countConversation, memoizedCounter, tokenizerCounter, type MessageCounts, type TokenCounter } from '../../../src/engine/tokens/count.ts'

t.test('counts as the wrapped counter; a long text is tokenized once', async (t) => {
  const base = tokenizerCounter('o200k_base')
  const asked: string[] = []
  const spy: TokenCounter = { ...base, text: (s) => (asked.push(s), base.text(s)) }
  const memo = memoizedCounter(spy)
  const long = 'The retry budget of worker 7 is 52 attempts, set in config/worker_7.yaml. '.repeat(20)
  const short = 'exit 1'
  for (let i = 0; i < 3; i++) {
    t.equal(memo.text(long), base.text(long))
    t.equal(memo.text(short), base.text(short))
  }
  t.equal(asked.filter((s) => s === long).length, 1, 'the long text once')
  t.equal(asked.filter((s) => s === short).length, 3, 'short texts are counted each time (a lookup would cost as much)')
  t.equal(memo.id, base.id, 'the same cache identity')
  t.equal(memo.method, base.method)
})

t.test('compact() through it: its token figures are what the plain counter counts of its input and output', async (t) => {
  const messages: unknown[] = [{ role: 'user', content: 'Find why the cache misses.' }]
  for (let k = 0; k < 12; k++) {
    messages.push({ role: 'assistant', content: null, tool_calls: [{ id: `c${k}`, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command: `grep -rn "cache_key_${k}" src/` }) } }] })
    messages.push({ role: 'tool', tool_call_id: `c${k}`, content: Array.from({ length: 60 }, (_, i) => `src/cache/part_${k}.ts:${i}: const key_${i} = hash(tenant, model_${k})`).join('\n') })
  }
  messages.push({ role: 'assistant', content: 'The key omits the model version; the fix goes in src/cache/key.ts.' })
  const base = tokenizerCounter('o200k_base')
  const input = parseConversation(messages).messages
  const res = await compact({ messages: input, counter: base, options: { ...DEFAULT_COMPACT_OPTIONS, format: 'openai', strategy: ['mask', 'rules'], targetTokens: 1500, thresholdTokens: 0 } })
  t.ok(res.compacted, 'masked and summarised: results counted again on the way')
  t.equal(res.event.tokensBefore, countConversation(input, base).totalTokens, 'tokensBefore as the plain counter counts the input')
  t.equal(res.event.tokensAfter, countConversation(res.messages, base).totalTokens, 'tokensAfter as it counts the output')
})

t.test('with a token-count cache: the texts a compaction derives are counted once across compactions, per scope', async (t) => {
  const messages: unknown[] = [{ role: 'user', content: 'Find why the cache misses.' }]
  for (let k = 0; k < 12; k++) {
    messages.push({ role: 'assistant', content: null, tool_calls: [{ id: `c${k}`, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command: `grep -rn "cache_key_${k}" src/cache/ --include=*.ts --exclude-dir=node_modules --exclude-dir=dist` }) } }] })
    messages.push({ role: 'tool', tool_call_id: `c${k}`, content: Array.from({ length: 60 }, (_, i) => `src/cache/part_${k}.ts:${i}: const key_${i} = hash(tenant, model_${k})`).join('\n') })
  }
  messages.push({ role: 'assistant', content: 'The key omits the model version; the fix goes in src/cache/key.ts.' })
  const input = parseConversation(messages).messages
  const base = tokenizerCounter('o200k_base')
  const store = new Map<string, MessageCounts>()
  const run = async (scope: string) => {
    const asked: string[] = []
    const counter: TokenCounter = { ...base, text: (s) => (asked.push(s), base.text(s)), cache: { store, scope } }
    const res = await compact({ messages: input, counter, options: { ...DEFAULT_COMPACT_OPTIONS, format: 'openai', strategy: ['mask', 'rules'], targetTokens: 1500, thresholdTokens: 0 } })
    return { res, derived: asked.filter((s) => s.length >= 64 && s.length <= 2000).length }
  }
  const first = await run('tenant-a')
  const again = await run('tenant-a')
  t.ok(first.derived > 20, `the first compaction counts its derived texts (${first.derived})`)
  t.equal(again.derived, 0, 'the same history again: every one of them from the cache')
  t.same(again.res.messages, first.res.messages, 'the same output')
  t.same(again.res.event.tokensAfter, first.res.event.tokensAfter, 'the same figures')
  const other = await run('tenant-b')
  t.equal(other.derived, first.derived, 'another scope reads none of them')
})
