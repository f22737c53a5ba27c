/**
 * The thinking policy (src/engine/compaction/transforms/thinking.ts) through compact(), on
 * generated conversations in the three formats that carry reasoning: it never leaves an
 * Anthropic-invalid conversation (the turn in progress keeps its thinking, byte for byte;
 * no block is edited; roles alternate; tool pairs stay whole), and it drops exactly the
 * earlier turns' reasoning it reports.
 */
import fc from 'fast-check'
import t from 'tap'
import { compact } from '../../../../src/engine/compaction/compact.ts'
import { applyThinkingPolicy, turnsOf } from '../../../../src/engine/compaction/transforms/thinking.ts'
import { DEFAULT_COMPACT_OPTIONS, type CompactOptions } from '../../../../src/engine/compaction/types.ts'
import type { CanonicalMessage, MessageFormat } from '../../../../src/engine/messages/canonical.ts'
import { getAdapter, parseConversation, serializeConversation } from '../../../../src/engine/messages/index.ts'
import { countConversation, tokenizerCounter } from '../../../../src/engine/tokens/count.ts'
import { conversationSpecArb, findPairingProblems, toAiSdk, toAnthropic, toResponses } from '../../../helpers/conversation-arbitraries.ts'

const counter = tokenizerCounter('o200k_base')
const total = (ms: readonly CanonicalMessage[]) => countConversation(ms, counter).totalTokens

const reasoningOf = (ms: readonly CanonicalMessage[]) => ms.flatMap((m) => m.parts.filter((p) => p.type === 'reasoning'))

/** The Anthropic blocks that carry reasoning, as JSON, in a serialized conversation. */
function thinkingBlocks(messages: readonly unknown[]): string[] {
  return messages.flatMap((m) => {
    const content = (m as { content?: unknown }).content
    return Array.isArray(content) ? content.filter((b) => b.type === 'thinking' || b.type === 'redacted_thinking').map((b) => JSON.stringify(b)) : []
  })
}

/** Every reasoning block (thinking, redacted thinking, reasoning item or part) of messages serialized to the wire, as JSON. */
function wireReasoning(messages: readonly CanonicalMessage[], format: MessageFormat): string[] {
  const found: string[] = []
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk)
    else if (v && typeof v === 'object') {
      const type = (v as { type?: unknown }).type
      if (type === 'thinking' || type === 'redacted_thinking' || type === 'reasoning') found.push(JSON.stringify(v))
      else Object.values(v).forEach(walk)
    }
  }
  walk(serializeConversation(messages, format).messages)
  return found
}

/**
 * What Anthropic's API refuses in a conversation's shape: an assistant message first, an
 * empty message. (Consecutive messages of one role it merges into one turn, so a message
 * of thinking alone may go whole.)
 */
function anthropicProblems(messages: readonly unknown[]): string[] {
  const problems: string[] = []
  messages.forEach((m, i) => {
    const { role, content } = m as { role: string; content: unknown }
    if (i === 0 && role !== 'user') problems.push('starts with an assistant message')
    if (content === '' || (Array.isArray(content) && content.length === 0)) problems.push(`message ${i}: empty content`)
  })
  return problems
}

const formats = [
  { format: 'anthropic' as MessageFormat, render: toAnthropic },
  { format: 'ai-sdk' as MessageFormat, render: (spec: Parameters<typeof toAiSdk>[0]) => ({ messages: toAiSdk(spec, 'v5') }) },
  { format: 'responses' as MessageFormat, render: (spec: Parameters<typeof toResponses>[0]) => ({ messages: toResponses(spec) }) },
]

for (const { format, render } of formats) {
  t.test(`${format}: the policy keeps the turn in progress and the last N turns, and leaves a valid conversation`, async (t) => {
    await fc.assert(
      fc.asyncProperty(conversationSpecArb({ maxTurns: 8 }), fc.oneof(fc.nat({ max: 3 }), fc.constant('all' as const)), fc.boolean(), async (spec, keep, tight) => {
        const rendered = render(spec) as { messages: unknown[]; system?: unknown }
        const input = parseConversation(rendered.messages, { format, system: rendered.system }).messages
        const before = total(input)
        const options: CompactOptions = { ...DEFAULT_COMPACT_OPTIONS, format, targetTokens: tight ? Math.max(400, Math.floor(before / 2)) : before + 1000, thresholdTokens: 0, thinking: { keep } }
        let result
        try {
          result = await compact({ messages: input, options, counter })
        } catch (err) {
          if ((err as { code?: string }).code === 'budget_unreachable') return
          throw err
        }
        const report = result.thinking!
        t.ok(report, 'the policy reports')
        const out = result.compacted ? result.messages : input
        // Nothing edited: every reasoning part left is one of the input's.
        const inputReasoning = new Set(reasoningOf(input).map((p) => JSON.stringify(p)))
        for (const p of reasoningOf(out)) if (!inputReasoning.has(JSON.stringify(p))) throw new Error(`a reasoning part was edited: ${JSON.stringify(p)}`)
        // The turn in progress: every assistant message of it that the output keeps keeps its
        // reasoning blocks byte for byte as the provider reads them, and its last assistant
        // message is always kept. (Under a tight budget a long tool loop's earlier steps may
        // be summarised whole, and a kept message's tool-call inputs condensed: the provider
        // checks the reasoning of what it is sent, not the calls.)
        const { turn, inProgress } = turnsOf(input)
        const last = turn.at(-1)
        if (inProgress) {
          const live = input.filter((m, i) => turn[i] === last && m.role === 'assistant')
          for (const m of live) {
            const kept = out.find((o) => o.index === m.index && o.role === 'assistant')
            if (!kept) {
              if (m === live.at(-1)) throw new Error(`the turn in progress lost its last assistant message ${m.index}`)
              continue
            }
            const keptBlocks = new Set(wireReasoning([kept], format))
            for (const b of wireReasoning([m], format)) if (!keptBlocks.has(b)) throw new Error(`the turn in progress changed message ${m.index}'s reasoning: ${b}`)
          }
        }
        if (keep === 'all') t.equal(report.blocksDropped, 0)
        // Pairs whole, and for Anthropic the API's shape rules.
        const serialized = serializeConversation(out, format)
        const reparsed = parseConversation(serialized.messages, { format, system: serialized.system })
        t.same(findPairingProblems(reparsed), [], 'tool pairs whole')
        if (format === 'anthropic') {
          t.same(anthropicProblems(serialized.messages), [])
          const original = new Set(thinkingBlocks(rendered.messages))
          for (const b of thinkingBlocks(serialized.messages)) if (!original.has(b)) throw new Error(`a thinking block changed: ${b}`)
        }
      }),
      { numRuns: 60 },
    )
  })
}

t.test('the transform alone: counts what it drops, keeps pinned messages and the last N turns', async (t) => {
  const adapter = getAdapter('anthropic')
  const think = (n: number, text = 'the cache key depends on the tenant and the model. '.repeat(20)) => ({ type: 'thinking', thinking: `${text} ${n}`, signature: `sig${n}` })
  const raw = [
    { role: 'user', content: 'task one' },
    { role: 'assistant', content: [think(1), { type: 'text', text: 'answer one' }] },
    { role: 'user', content: 'task two' },
    { role: 'assistant', content: [think(2)] },
    { role: 'assistant', content: [think(3), { type: 'tool_use', id: 'a', name: 'bash', input: {} }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: 'ok' }] },
    { role: 'assistant', content: [think(4), { type: 'text', text: 'answer two' }] },
    { role: 'user', content: 'task three' },
    { role: 'assistant', content: [think(5), { type: 'tool_use', id: 'b', name: 'bash', input: {} }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'b', content: 'ok' }] },
  ]
  const messages = parseConversation(raw, { format: 'anthropic' }).messages
  const tokensOf = (m: CanonicalMessage) => total([m])
  const none = applyThinkingPolicy(messages, { keep: 0 }, adapter, { tokensOf })
  t.equal(none.blocksDropped, 4, 'turns one and two lose theirs; turn three is in progress')
  t.equal(none.messages.length, messages.length - 1, 'a message of thinking alone is removed whole')
  t.ok(none.tokensFreed > 300)
  t.same(reasoningOf(none.messages).map((p) => p.text.split(' ').at(-1)), ['5'])
  const one = applyThinkingPolicy(messages, { keep: 2 }, adapter, { tokensOf })
  t.same(reasoningOf(one.messages).map((p) => p.text.split(' ').at(-1)), ['2', '3', '4', '5'], 'the last two turns: two and the one in progress')
  const pinned = applyThinkingPolicy(messages, { keep: 0 }, adapter, { tokensOf, pinned: new Set([1]) })
  t.same(reasoningOf(pinned.messages).map((p) => p.text.split(' ').at(-1)), ['1', '5'], 'a pinned message is never touched')
  t.equal(applyThinkingPolicy(messages, { keep: 'all' }, adapter, { tokensOf }).messages, messages)
})

t.test('Responses: a reasoning item whose turn carries server ids stays, and is reported', async (t) => {
  const adapter = getAdapter('responses')
  const items = [
    { role: 'user', content: 'one' },
    { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'plan one' }], encrypted_content: 'enc1' },
    { type: 'function_call', id: 'fc_1', call_id: 'c1', name: 'bash', arguments: '{}' },
    { type: 'function_call_output', call_id: 'c1', output: 'ok' },
    { type: 'reasoning', id: 'rs_2', summary: [{ type: 'summary_text', text: 'plan two' }], encrypted_content: 'enc2' },
    { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'done' }] },
    { role: 'user', content: 'two' },
    { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'ok' }] },
  ]
  const messages = parseConversation(items, { format: 'responses' }).messages
  const out = applyThinkingPolicy(messages, { keep: 0 }, adapter, { tokensOf: (m) => total([m]) })
  t.equal(out.keptForProvider, 1, 'rs_1 goes with fc_1')
  t.equal(out.blocksDropped, 1, 'rs_2 precedes an assistant message without an id')
  const written = serializeConversation(out.messages, 'responses').messages as { id?: string }[]
  t.same(
    written.filter((i) => i.id?.startsWith('rs_')).map((i) => i.id),
    ['rs_1'],
  )
})
