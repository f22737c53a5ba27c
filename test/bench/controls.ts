/**
 * Issue 24's controls, measured on the engine: a long Anthropic tool loop whose every
 * assistant turn thinks (the shape of an extended-thinking agent), compacted to 25% of
 * its size by mask+rules, against, in the same run:
 *   - the same compaction without controls (the baseline);
 *   - with the thinking policy (keep: 1): what it frees, and what it costs in time;
 *   - with cache economics (`when-profitable`): what the decision costs in time;
 *   - with pins on every tenth message.
 * Runs interleaved; each figure the median of the rounds after a warm-up.
 */
import { compact } from '../../src/engine/compaction/compact.ts'
import { DEFAULT_COMPACT_OPTIONS, type CompactOptions } from '../../src/engine/compaction/types.ts'
import { parseConversation } from '../../src/engine/messages/index.ts'
import { countConversation, tokenizerCounter } from '../../src/engine/tokens/count.ts'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3) * 3

function thinkingLoop(turns: number): unknown[] {
  const out: unknown[] = []
  for (let t = 0; t < turns; t++) {
    out.push({ role: 'user', content: `Task ${t}: fix the failing test in src/module${t}.ts and explain the cause.` })
    for (let k = 0; k < 3; k++) {
      const id = `toolu_${t}_${k}`
      const thought = `Turn ${t} step ${k}: the failure in src/module${t}.ts comes from the cache key, which omits the tenant; ${'I compare the key built in get() with the one in set(), then check the TTL path and the eviction order. '.repeat(12)}`
      out.push({ role: 'assistant', content: [{ type: 'thinking', thinking: thought, signature: `sig_${t}_${k}_${'x'.repeat(40)}` }, { type: 'tool_use', id, name: 'bash', input: { command: `npm test -- src/module${t}.ts` } }] })
      out.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: `FAIL src/module${t}.ts\n${'AssertionError: expected cache hit for tenant b, got tenant a\n'.repeat(8)}` }] })
    }
    out.push({ role: 'assistant', content: [{ type: 'thinking', thinking: `Done with task ${t}.`, signature: `sig_${t}_done` }, { type: 'text', text: `Fixed src/module${t}.ts: the key now includes the tenant.` }] })
  }
  return out
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}

export async function benchControls(): Promise<void> {
  const raw = thinkingLoop(60)
  const counter = tokenizerCounter('o200k_base')
  const messages = parseConversation(raw, { format: 'anthropic' }).messages
  const before = countConversation(messages, counter).totalTokens
  const target = Math.floor(before * 0.25)
  const base: CompactOptions = { ...DEFAULT_COMPACT_OPTIONS, format: 'anthropic', targetTokens: target, thresholdTokens: target }
  const variants: { name: string; options: CompactOptions }[] = [
    { name: 'mask+rules, no controls (baseline)', options: base },
    { name: '+ thinking keep 1', options: { ...base, thinking: { keep: 1 } } },
    { name: '+ cache when-profitable', options: { ...base, cache: { inputPrice: 3, cacheReadPrice: 0.3, cacheWritePrice: 3.75, horizonTurns: 10, policy: 'when-profitable' } } },
    { name: '+ pins (every 10th message)', options: { ...base, pin: messages.filter((_, i) => i % 10 === 5).map((m) => m.index) } },
  ]
  const times = new Map(variants.map((v) => [v.name, [] as number[]]))
  const results = new Map<string, Awaited<ReturnType<typeof compact>>>()
  for (let r = 0; r <= ROUNDS; r++) {
    for (const v of variants) {
      const t0 = performance.now()
      const res = await compact({ messages, options: v.options, counter })
      if (r > 0) times.get(v.name)!.push(performance.now() - t0)
      results.set(v.name, res)
    }
  }
  console.log(`\n## Issue 24's controls: a ${raw.length}-message Anthropic tool loop (${before} tokens, thinking on every assistant message) compacted to 25% (${target} tokens), ${ROUNDS} interleaved rounds\n`)
  console.log('| variant | median ms | × baseline | tokens after | thinking freed |')
  console.log('|---|---:|---:|---:|---:|')
  const baseMs = median(times.get(variants[0]!.name)!)
  for (const v of variants) {
    const ms = median(times.get(v.name)!)
    const res = results.get(v.name)!
    console.log(`| ${v.name} | ${ms.toFixed(1)} | ${(ms / baseMs).toFixed(2)} | ${res.compacted ? res.event.tokensAfter : `${before} (not compacted)`} | ${res.thinking ? `${res.thinking.tokensFreed} (${res.thinking.blocksDropped} blocks)` : '—'} |`)
  }
  const thinking = results.get(variants[1]!.name)!.thinking!
  console.log(`\nthe thinking policy alone frees ${thinking.tokensFreed} of ${before} tokens (${((100 * thinking.tokensFreed) / before).toFixed(1)}%) before any strategy runs`)
}
