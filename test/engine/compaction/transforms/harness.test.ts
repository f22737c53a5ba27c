/**
 * Harness text out of what a compaction keeps (src/engine/compaction/transforms/harness.ts):
 * the rule on small conversations, then the issue's measure on generated harness-heavy
 * sessions (issue 9's harnessNoise, a Claude Code one, a Codex one): no line of the
 * harness text they injected reaches the output, in any format, at any budget, while the
 * work between the injections is still there.
 */
import t from 'tap'
import { compact } from '../../../../src/engine/compaction/compact.ts'
import { harnessNoisePositions, withoutHarnessText } from '../../../../src/engine/compaction/transforms/harness.ts'
import { DEFAULT_COMPACT_OPTIONS } from '../../../../src/engine/compaction/types.ts'
import type { CanonicalMessage } from '../../../../src/engine/messages/canonical.ts'
import { FORMAT_NAMES, getAdapter, parseConversation, type MessageFormat } from '../../../../src/engine/messages/index.ts'
import { countConversation, tokenizerCounter } from '../../../../src/engine/tokens/count.ts'
import { harnessNoise, harnessNoiseInjections, type OpenAIMessage } from '../../../helpers/handover-conversations.ts'
import { harnessLinesIn } from '../../../helpers/harness-lines.ts'
import { claudeCodeHarnessHeavy, claudeCodeInjections, codexHarnessHeavy, codexInjections } from '../../../helpers/noise-conversations.ts'
import { outputText } from '../../../eval/probes/core.ts'

const counter = tokenizerCounter('o200k_base')
const openai = (messages: unknown[]) => parseConversation(messages, { format: 'openai' }).messages

function inFormat(messages: readonly CanonicalMessage[], format: MessageFormat): CanonicalMessage[] {
  if (format === 'openai') return [...messages]
  const wire = getAdapter(format).serialize(messages)
  return parseConversation(wire.messages, { format, ...(wire.system !== undefined ? { system: wire.system } : {}) }).messages
}

t.test('a harness-only user message and the reply that only acknowledges it are noise; the last message never is', async (t) => {
  const ms = openai([
    { role: 'system', content: 's' },
    { role: 'user', content: 'Fix the parser.' },
    { role: 'assistant', content: 'On it.' },
    { role: 'user', content: '<system-reminder>\nUse the todo tool.\n</system-reminder>' },
    { role: 'assistant', content: 'OK.' },
    { role: 'user', content: 'continue' },
    { role: 'assistant', content: 'The parser drops `\\r\\n` in src/parse.ts: fixing it now.' },
    { role: 'user', content: 'continue' },
  ])
  t.same([...harnessNoisePositions(ms, 2)].sort(), [3, 4, 5], 'the reminder, its "OK." and the "continue" before a reply that says something')
  t.notOk(harnessNoisePositions(ms, 2).has(6), 'a reply with a path and code is not an acknowledgement')
  t.notOk(harnessNoisePositions(ms, 2).has(7), 'the last message is what the model answers next')
})

t.test('harness blocks appended to a request or to a tool result go; the human words and the result stay', async (t) => {
  const adapter = getAdapter('openai')
  const [request] = openai([{ role: 'user', content: 'Use a jittered delay.\n<system-reminder>\nThe user opened a file.\n</system-reminder>' }])
  t.equal(outputText([withoutHarnessText(request!, adapter)]).display, 'Use a jittered delay.')
  const [call, result] = openai([
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'Read', arguments: '{"file_path":"a.ts"}' } }] },
    { role: 'tool', tool_call_id: 'c1', content: '1  const a = 1\n\n<system-reminder>\nConsider whether the file is malware.\n</system-reminder>' },
  ])
  t.ok(call)
  t.equal(outputText([withoutHarnessText(result!, adapter)]).display, '1  const a = 1')
  const [quoting] = openai([{ role: 'tool', tool_call_id: 'c1', content: '<system-reminder>\nquoted in a file\n</system-reminder>\nthe file goes on' }])
  t.equal(withoutHarnessText(quoting!, adapter), quoting, 'a block in the middle of what a tool returned is its content')
})

t.test('in Anthropic form a harness text merged with tool results goes without leaving an empty block', async (t) => {
  const ms = inFormat(
    openai([
      { role: 'user', content: 'task' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'Bash', arguments: '{"command":"ls"}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'a.ts' },
      { role: 'user', content: '[Request interrupted by user for tool use]' },
    ]),
    'anthropic',
  )
  const merged = ms.find((m) => m.parts.some((p) => p.type === 'tool-result'))!
  const out = withoutHarnessText(merged, getAdapter('anthropic'))
  t.same(out.parts.map((p) => p.type), ['tool-result'])
  t.same((out.raw as { content: { type: string }[] }).content.map((b) => b.type), ['tool_result'], 'no empty text block is sent')
})

interface Case {
  name: string
  messages: OpenAIMessage[]
  injected: string[]
  targets: number[]
  /** Facts of the work between the injections that the output must still hold. */
  facts: string[]
}

function cases(): Case[] {
  const size = (ms: OpenAIMessage[]) => countConversation(openai(ms), counter).totalTokens
  const at = (ms: OpenAIMessage[], ...extra: number[]) => [...[0.1, 0.25].map((s) => Math.floor(size(ms) * s)), ...extra]
  const hn = harnessNoise()
  const cc = claudeCodeHarnessHeavy()
  const cx = codexHarnessHeavy()
  return [
    { name: 'harnessNoise', messages: hn, injected: harnessNoiseInjections(), targets: at(hn, 2000), facts: ['db/migrations', "ModuleNotFoundError: No module named 'yaml'", 'src/ingest/config_loader.py'] },
    { name: 'claudeCodeHarnessHeavy', messages: cc, injected: claudeCodeInjections(), targets: at(cc), facts: ['jittered delay, capped at 30 seconds', 'Expected 3 calls, received 1', 'src/net/client.ts'] },
    { name: 'codexHarnessHeavy', messages: cx, injected: codexInjections(), targets: at(cx), facts: ["banker's rounding only for the ledger export", 'rounds_half_up', 'src/money.rs'] },
  ]
}

t.test('harness-heavy sessions: no harness line in the output, in every format, at every budget; the work stays', async (t) => {
  for (const c of cases()) {
    for (const target of c.targets) {
      const summaries = new Set<string>()
      for (const format of FORMAT_NAMES) {
        const messages = inFormat(openai(c.messages), format)
        const res = await compact({ messages, counter, options: { ...DEFAULT_COMPACT_OPTIONS, format, targetTokens: target, thresholdTokens: 0 } })
        t.ok(res.compacted, `${c.name} at ${target} (${format}) compacted`)
        t.equal(harnessLinesIn(res.messages, c.injected, messages), 0, `${c.name} at ${target} (${format}): no harness line`)
        const out = outputText(res.messages).search
        for (const f of c.facts) t.ok(out.includes(f.toLowerCase()), `${c.name} at ${target} (${format}) keeps "${f}"`)
        summaries.add(res.summary?.text ?? '')
      }
      t.equal(summaries.size, 1, `${c.name} at ${target}: one summary text in every format`)
    }
  }
})
