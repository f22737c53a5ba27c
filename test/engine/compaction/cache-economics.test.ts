/**
 * The cache economics' arithmetic (src/engine/compaction/cache-economics.ts) on the worked
 * example of docs/api.md, and its use by compact(): `when-profitable` refuses a
 * compaction whose cache writes outweigh its saving over the horizon.
 */
import t from 'tap'
import { cacheEconomics, keptPrefixTokens } from '../../../src/engine/compaction/cache-economics.ts'
import { compact } from '../../../src/engine/compaction/compact.ts'
import { DEFAULT_COMPACT_OPTIONS } from '../../../src/engine/compaction/types.ts'
import { parseConversation } from '../../../src/engine/messages/index.ts'
import { countConversation, tokenizerCounter } from '../../../src/engine/tokens/count.ts'
import { cachePricesOf, resolveModel } from '../../../src/engine/models/registry.ts'

const sonnet = { inputPrice: 3, cacheReadPrice: 0.3, cacheWritePrice: 3.75, horizonTurns: 10, policy: 'when-profitable' as const }

t.test("docs/api.md's worked example", async (t) => {
  const big = cacheEconomics(sonnet, { tokensBefore: 120_000, tokensAfter: 30_000, keptPrefixTokens: 2_000, summarizerCostUsd: 0, estimated: false })
  t.equal(big.costWithoutUsd, 0.36)
  t.equal(big.costWithUsd, 0.1866)
  t.equal(big.savingUsd, 0.1734)
  t.equal(big.breakEvenTurns, 4)
  t.equal(big.profitable, true)
  t.equal(big.writeCostUsd, 0.105, '28,000 tokens written at $3.75/M that would have been read')
  const small = cacheEconomics(sonnet, { tokensBefore: 120_000, tokensAfter: 110_000, keptPrefixTokens: 2_000, summarizerCostUsd: 0, estimated: false })
  t.equal(small.costWithUsd, 0.7026)
  t.equal(small.breakEvenTurns, 125)
  t.equal(small.profitable, false)
  const uncached = cacheEconomics({ ...sonnet, cachedPrefixTokens: 0 }, { tokensBefore: 120_000, tokensAfter: 110_000, keptPrefixTokens: 2_000, summarizerCostUsd: 0, estimated: false })
  t.equal(uncached.breakEvenTurns, 1, 'nothing cached: the compaction writes less than the request would have')
  t.equal(uncached.keptPrefixTokens, 0, 'what is not cached is not kept cached')
  const never = cacheEconomics(sonnet, { tokensBefore: 1000, tokensAfter: 1000, keptPrefixTokens: 0, summarizerCostUsd: 0.01, estimated: false })
  t.equal(never.breakEvenTurns, null)
})

t.test('registry prices: Anthropic writes at 1.25×, OpenAI by family', async (t) => {
  t.same(cachePricesOf(resolveModel('claude-sonnet-4-5')), { inputPrice: 3, cacheReadPrice: 0.3, cacheWritePrice: 3.75 })
  t.same(cachePricesOf(resolveModel('gpt-5')), { inputPrice: 1.25, cacheReadPrice: 0.125, cacheWritePrice: 1.25 })
  t.same(cachePricesOf(resolveModel('gpt-4o')), { inputPrice: 2.5, cacheReadPrice: 1.25, cacheWritePrice: 2.5 })
})

t.test('compact(): when-profitable refuses a small compaction of a cached conversation, and takes a large one', async (t) => {
  const counter = tokenizerCounter('o200k_base')
  const raw: unknown[] = [{ role: 'system', content: 'You are a coding agent.' }, { role: 'user', content: 'Fix the failing tests in src/.' }]
  for (let i = 0; i < 20; i++) {
    raw.push({ role: 'assistant', content: null, tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command: `cat src/m${i}.ts` }) } }] })
    raw.push({ role: 'tool', tool_call_id: `c${i}`, content: `export function m${i}(x: number) {\n${'  return x * 2 // doubles the input for the cache key\n'.repeat(40)}}` })
  }
  const messages = parseConversation(raw, { format: 'openai' }).messages
  const before = countConversation(messages, counter).totalTokens
  const options = (targetTokens: number, horizonTurns: number) => ({ ...DEFAULT_COMPACT_OPTIONS, format: 'openai' as const, targetTokens, thresholdTokens: targetTokens, cache: { ...sonnet, horizonTurns } })
  const small = await compact({ messages, options: options(before - 300, 3), counter })
  t.equal(small.compacted, false)
  t.match(small.reason, /cachePolicy when-profitable/)
  t.equal(small.event.cache?.profitable, false)
  t.equal(small.event.cache?.estimated, true, "refused on the plan's estimate, before any summarizer")
  const large = await compact({ messages, options: options(Math.floor(before / 4), 10), counter })
  t.equal(large.compacted, true)
  t.equal(large.event.cache?.profitable, true)
  t.equal(large.event.cache?.estimated, false)
  t.ok(large.event.cache!.keptPrefixTokens > 0, 'the system prompt and the task stay cached')
  t.equal(keptPrefixTokens(messages, large.messages, (m) => countConversation([m], counter).totalTokens - 3) > 0, true)
})
