/**
 * A tool's internal bookkeeping arguments never reach the action log
 * (src/engine/facts/tool-target.ts): targets of browser, computer-use, subagent and MCP
 * calls, then a generated session with such tools (browserArtifacts) compacted in every
 * format.
 */
import t from 'tap'
import { compact } from '../../../src/engine/compaction/compact.ts'
import { DEFAULT_COMPACT_OPTIONS } from '../../../src/engine/compaction/types.ts'
import { isInternalRef, otherToolTarget, saysNothing } from '../../../src/engine/facts/tool-target.ts'
import { digestToolCall } from '../../../src/engine/facts/tools.ts'
import { FORMAT_NAMES, getAdapter, parseConversation } from '../../../src/engine/messages/index.ts'
import { messageText } from '../../../src/engine/messages/canonical.ts'
import { countConversation, tokenizerCounter } from '../../../src/engine/tokens/count.ts'
import { BOOKKEEPING, browserArtifacts, MEANINGFUL } from '../../helpers/noise-conversations.ts'

t.test('targets: what the call acted on or was for, never its bookkeeping', async (t) => {
  t.equal(otherToolTarget({ action: 'open', name: 'test', url: 'https://example.com/a' }), 'open https://example.com/a')
  t.equal(otherToolTarget({ action: 'run', name: 'test', _i: 'Measure the height' }), 'run Measure the height')
  t.equal(otherToolTarget({ action: 'run', name: 'test', code: "await page.goto('file:///repo/a.html')" }), 'run file:///repo/a.html')
  t.equal(otherToolTarget({ element: 'Save button', ref: 'e42' }), 'Save button')
  t.equal(otherToolTarget({ action: 'left_click', coordinate: [1, 2] }), 'left_click')
  t.equal(otherToolTarget({ action: 'await', id: 'job-1' }), 'await')
  t.equal(otherToolTarget({ name: 'pdf' }), 'pdf', 'a name when nothing else says it')
  t.equal(otherToolTarget({ __gjcColdSpillArguments: true, refPath: 'x', notice: 'evicted' }), undefined)
  t.ok(isInternalRef('artifact://8'))
  t.ok(isInternalRef('agent://3-ReviewPR53'))
  for (const u of ['https://example.com', 'file:///repo/a.html', 's3://bucket/key']) t.notOk(isInternalRef(u), u)
  t.ok(saysNothing(digestToolCall('read', '{"path":"artifact://8"}', 'stored output')), 'a read back of stored output')
  t.ok(saysNothing(digestToolCall('bash', '{"__gjcColdSpillArguments":true,"notice":"evicted"}', 'ok')), 'a call whose arguments are gone')
  t.equal(digestToolCall('bash', '{"__gjcColdSpillArguments":true,"notice":"evicted"}', 'ok').target, undefined, 'spilled JSON is no command')
  t.notOk(saysNothing(digestToolCall('bash', '{"__gjcColdSpillArguments":true}', 'Error: boom\nExit code 1')), 'unless it failed')
  t.notOk(saysNothing(digestToolCall('read', '{"path":"/repo/a.ts"}', 'x')))
})

t.test('browserArtifacts: no bookkeeping in the summary or its log, what was done is there, in every format', async (t) => {
  const counter = tokenizerCounter('o200k_base')
  const openai = parseConversation(browserArtifacts(), { format: 'openai' }).messages
  const size = countConversation(openai, counter).totalTokens
  for (const share of [0.25, 0.5]) {
    const texts = new Set<string>()
    const outputs: string[] = []
    for (const format of FORMAT_NAMES) {
      const wire = getAdapter(format).serialize(openai)
      const messages = format === 'openai' ? openai : parseConversation(wire.messages, { format, ...(wire.system !== undefined ? { system: wire.system } : {}) }).messages
      const res = await compact({ messages, counter, options: { ...DEFAULT_COMPACT_OPTIONS, format, targetTokens: Math.floor(size * share), thresholdTokens: 0 } })
      texts.add(res.summary?.text ?? '')
      outputs.push(res.messages.map(messageText).join('\n'))
    }
    t.equal(texts.size, 1, `${share * 100}%: one summary text in every format`)
    const text = [...texts][0]!
    for (const b of BOOKKEEPING) t.notOk(text.includes(b), `${share * 100}%: no "${b}"`)
    // Said in the summary, or kept in the condensed messages beside it (at 50% the recent
    // window's share leaves the middle condensed rather than logged).
    for (const m of MEANINGFUL) t.ok(outputs.every((o) => text.includes(m) || o.includes(m)), `${share * 100}%: "${m}" is said`)
  }
})
