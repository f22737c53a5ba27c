/**
 * A read with nothing learned adds nothing to the Completed Work table
 * (src/engine/facts/read-reuse.ts): the evidence on small event lists, then a generated
 * exploring session in three dialects (readsSession) compacted in every format.
 */
import t from 'tap'
import { compact } from '../../../src/engine/compaction/compact.ts'
import { DEFAULT_COMPACT_OPTIONS } from '../../../src/engine/compaction/types.ts'
import { classifyMessages } from '../../../src/engine/facts/events.ts'
import { pathsLearnedFrom } from '../../../src/engine/facts/read-reuse.ts'
import { FORMAT_NAMES, getAdapter, parseConversation } from '../../../src/engine/messages/index.ts'
import { countConversation, tokenizerCounter } from '../../../src/engine/tokens/count.ts'
import { READS_UNUSED, READS_USED, readsSession } from '../../helpers/noise-conversations.ts'
import { outputText } from '../../eval/probes/core.ts'

const events = (messages: unknown[]) => classifyMessages(parseConversation(messages, { format: 'openai' }).messages)
const call = (id: string, name: string, args: unknown) => ({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] })

t.test('evidence of use: a token first seen in the read, used later by the agent; or the file named in its prose', async (t) => {
  const es = events([
    { role: 'user', content: 'Why is the cache cold?' },
    call('r1', 'read_file', { path: 'src/cache.ts' }),
    { role: 'tool', tool_call_id: 'r1', content: 'export const CACHE_TTL_MS = 60000\nexport function warmCache() {}' },
    call('r2', 'read_file', { path: 'src/other.ts' }),
    { role: 'tool', tool_call_id: 'r2', content: 'export const unrelated_thing = 1' },
    { role: 'assistant', content: 'The TTL is too short: CACHE_TTL_MS expires entries after a minute.' },
  ])
  t.same([...pathsLearnedFrom(es, [{ event: 2, paths: ['src/cache.ts'], output: 'export const CACHE_TTL_MS = 60000\nexport function warmCache() {}' }, { event: 4, paths: ['src/other.ts'], output: 'export const unrelated_thing = 1' }])], ['src/cache.ts'])
  const known = events([
    { role: 'user', content: 'Is CACHE_TTL_MS right?' },
    call('r1', 'read_file', { path: 'src/cache.ts' }),
    { role: 'tool', tool_call_id: 'r1', content: 'export const CACHE_TTL_MS = 60000' },
    { role: 'assistant', content: 'CACHE_TTL_MS is used in one place.' },
  ])
  t.same([...pathsLearnedFrom(known, [{ event: 2, paths: ['src/cache.ts'], output: 'export const CACHE_TTL_MS = 60000' }])], [], 'a token the user gave before the read is no evidence of it')
  const named = events([
    { role: 'user', content: 'Look around.' },
    call('r1', 'read_file', { path: 'src/cache.ts' }),
    { role: 'tool', tool_call_id: 'r1', content: 'plain words only' },
    { role: 'assistant', content: 'cache.ts is where entries expire.' },
  ])
  t.same([...pathsLearnedFrom(named, [{ event: 2, paths: ['src/cache.ts'], output: 'plain words only' }])], ['src/cache.ts'], "the file's name in the agent's prose")
})

t.test('readsSession: rows for the reads that were used, none for the others, which are still said, in every format', async (t) => {
  const counter = tokenizerCounter('o200k_base')
  const openai = parseConversation(readsSession(), { format: 'openai' }).messages
  const size = countConversation(openai, counter).totalTokens
  for (const share of [0.25, 0.5]) {
    const texts = new Set<string>()
    let output = ''
    for (const format of FORMAT_NAMES) {
      const wire = getAdapter(format).serialize(openai)
      const messages = format === 'openai' ? openai : parseConversation(wire.messages, { format, ...(wire.system !== undefined ? { system: wire.system } : {}) }).messages
      const res = await compact({ messages, counter, options: { ...DEFAULT_COMPACT_OPTIONS, format, targetTokens: Math.floor(size * share), thresholdTokens: 0 } })
      texts.add(res.summary?.text ?? '')
      output = outputText(res.messages).display
    }
    t.equal(texts.size, 1, `${share * 100}%: one summary text in every format`)
    const text = [...texts][0]!
    const table = /### Completed Work\n([\s\S]*?)(?:\n\n|$)/.exec(text)?.[1] ?? ''
    for (const p of READS_UNUSED) t.notOk(table.includes(`${p} |`), `${share * 100}%: no row for ${p}`)
    if (share === 0.5) {
      for (const p of READS_USED) t.ok(table.includes(`${p} | read`), `${share * 100}%: a row for ${p}`)
      for (const p of READS_UNUSED) t.ok(output.includes(p), `${share * 100}%: the read of ${p} is still said (a log line or a kept call)`)
    }
  }
})
