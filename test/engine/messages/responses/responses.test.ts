/**
 * The OpenAI Responses format (src/engine/messages/responses/): items grouped into turns,
 * written back untouched (reasoning's encrypted content too), custom tool calls, edits,
 * detection and error wording; and, on every fixture conversation converted to Responses
 * items, the engine's compaction gives the summary text it gives in OpenAI form, keeping
 * pairs (parallel calls with their outputs).
 */
import t from 'tap'
import { compact, CompactionError } from '../../../../src/engine/compaction/compact.ts'
import { DEFAULT_COMPACT_OPTIONS } from '../../../../src/engine/compaction/types.ts'
import { findPairingProblems } from '../../../../src/engine/conversation/pairing.ts'
import { detectFormat, getAdapter, MessageFormatError, parseConversation, serializeConversation } from '../../../../src/engine/messages/index.ts'
import { countConversation, tokenizerCounter } from '../../../../src/engine/tokens/count.ts'
import { conversationsSkip, fixtureConversation, fixtureFiles } from '../../../helpers/fixtures.ts'

const items = () => [
  { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Work in /repo.' }] },
  { role: 'user', content: 'Fix the failing test.' },
  { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Look at the test first.' }], encrypted_content: 'gAAAA-opaque' },
  { type: 'message', role: 'assistant', phase: 'commentary', content: [{ type: 'output_text', text: 'Running the tests.', annotations: [] }] },
  { type: 'function_call', call_id: 'c1', name: 'shell', arguments: '{"command":["npm","test"]}' },
  { type: 'custom_tool_call', call_id: 'c2', name: 'apply_patch', input: '*** Begin Patch\n*** End Patch' },
  { type: 'function_call_output', call_id: 'c1', output: 'FAIL test/db.test.ts' },
  { type: 'custom_tool_call_output', call_id: 'c2', output: 'Done!' },
  { type: 'reasoning', id: 'rs_2', summary: [], content: null, encrypted_content: 'gBBBB-opaque' },
  { type: 'message', role: 'assistant', content: 'Fixed.' },
]

t.test('items are grouped into turns and written back as the same objects', async (t) => {
  const input = items()
  t.equal(detectFormat(input), 'responses')
  const conv = parseConversation(input)
  t.same(
    conv.messages.map((m) => [m.role, m.index, m.parts.map((p) => p.type)]),
    [
      ['developer', 0, ['text']],
      ['user', 1, ['text']],
      ['assistant', 2, ['reasoning', 'text', 'tool-call', 'tool-call']],
      ['tool', 6, ['tool-result', 'tool-result']],
      ['assistant', 8, ['reasoning', 'text']],
    ],
    'reasoning, message and parallel calls are one turn; their outputs one tool message',
  )
  t.same(conv.messages[2]!.parts[3], { type: 'tool-call', id: 'c2', name: 'apply_patch', argsText: '*** Begin Patch\n*** End Patch' }, 'a custom call: its input as the arguments')
  t.same(conv.messages[3]!.parts, [
    { type: 'tool-result', callId: 'c1', text: 'FAIL test/db.test.ts', name: 'shell' },
    { type: 'tool-result', callId: 'c2', text: 'Done!', name: 'apply_patch' },
  ])
  t.same(findPairingProblems(conv.messages), [])
  const out = serializeConversation(conv.messages, 'responses').messages
  t.equal(out.length, input.length)
  t.ok(out.every((item, i) => item === input[i]), 'every item is the caller object, encrypted reasoning included')
})

t.test('a stored group (an array element) reads as one message and writes back flat', async (t) => {
  const input = items()
  const grouped = [input[0], input[1], input.slice(2, 6), input.slice(6, 8), input.slice(8)]
  const conv = parseConversation(grouped, { format: 'responses' })
  t.same(conv.messages.map((m) => m.parts.length), [1, 1, 4, 2, 2])
  t.ok(serializeConversation(conv.messages, 'responses').messages.every((item, i) => item === input[i]))
})

t.test('conversion to the other formats and back keeps calls, results and text', async (t) => {
  const conv = parseConversation(items())
  for (const format of ['openai', 'anthropic', 'ai-sdk'] as const) {
    const out = serializeConversation(conv.messages, format)
    const other = parseConversation(out.messages, { format, system: out.system })
    const back = parseConversation(serializeConversation(other.messages, 'responses').messages, { format: 'responses' })
    t.same(findPairingProblems(back.messages), [], `${format}: paired`)
    const calls = (ms: typeof conv.messages) => ms.flatMap((m) => m.parts.filter((p) => p.type === 'tool-call').map((p) => (p.type === 'tool-call' ? p.id : '')))
    t.same(calls(back.messages), ['c1', 'c2'], `${format}: calls`)
  }
  // Converted reasoning is dropped: the API takes back only its own reasoning items.
  const fromAnthropic = parseConversation([{ role: 'assistant', content: [{ type: 'thinking', thinking: 'x', signature: 's' }, { type: 'text', text: 'hi' }] }], { format: 'anthropic' })
  t.same(serializeConversation(fromAnthropic.messages, 'responses').messages, [{ type: 'message', role: 'assistant', content: 'hi' }])
})

t.test('edits keep every other item and field', async (t) => {
  const conv = parseConversation(items())
  const a = getAdapter('responses')
  const turn = conv.messages[2]!
  const edited = a.withText(turn, 'Summary.')
  t.same((edited.raw as Record<string, unknown>[])[1], { type: 'message', role: 'assistant', phase: 'commentary', content: [{ type: 'output_text', text: 'Summary.', annotations: [] }] })
  t.equal((edited.raw as unknown[])[0], (turn.raw as unknown[])[0], 'the reasoning item untouched')
  const args = a.withToolCallArgs(turn, 'c2', '[compacted]')
  t.same((args.raw as Record<string, unknown>[])[3], { type: 'custom_tool_call', call_id: 'c2', name: 'apply_patch', input: '[compacted]' })
  const masked = a.withToolResultText(conv.messages[3]!, 'c1', '[output cleared]')
  t.same(masked.raw, [{ type: 'function_call_output', call_id: 'c1', output: '[output cleared]' }, (conv.messages[3]!.raw as unknown[])[1]])
  t.equal((masked.parts[0] as { name?: string }).name, 'shell', 'the result keeps its tool name')
  const without = a.withoutToolResult(conv.messages[3]!, 'c2')!
  t.same(without.parts.map((p) => (p.type === 'tool-result' ? p.callId : '')), ['c1'])
  t.same(
    a.createToolResults(turn, [{ id: 'c1', name: 'shell' }, { id: 'c2', name: 'apply_patch' }], 'lost').map((m) => m.raw),
    [[{ type: 'function_call_output', call_id: 'c1', output: 'lost' }, { type: 'custom_tool_call_output', call_id: 'c2', output: 'lost' }]],
    'a custom call is answered by a custom output',
  )
  t.same(a.createTextMessage('system', 'Summary').raw, { role: 'system', content: 'Summary' })
})

t.test('errors name the item and field', async (t) => {
  const cases: [unknown[], string, RegExp][] = [
    [[{ type: 'function_call', call_id: 'a', name: 'ls', arguments: {} }], 'messages[0].arguments', /JSON string/],
    [[{ type: 'function_call_output', output: 'x' }], 'messages[0].call_id', /missing/],
    [[{ type: 'message', role: 'tool', content: 'x' }], 'messages[0].role', /function_call_output items/],
    [[{ type: 'message', role: 'user', content: [{ type: 'text', text: 'x' }] }], 'messages[0].content[0].type', /input_text/],
    [[{ type: 'function_call', call_id: 'a', name: 'ls', arguments: '{}' }, { type: 'function_call', call_id: 'a', name: 'ls', arguments: '{}' }], 'messages[1].call_id', /duplicate tool call id/],
  ]
  for (const [messages, field, reason] of cases) {
    try {
      parseConversation(messages, { format: 'responses' })
      t.fail(`${field}: accepted`)
    } catch (err) {
      t.ok(err instanceof MessageFormatError)
      t.equal((err as MessageFormatError).field, field)
      t.match((err as MessageFormatError).message, reason)
    }
  }
})

const counter = tokenizerCounter('o200k_base')

t.test('every fixture compacts to the same summary text as Responses items as in OpenAI form, pairs kept', { skip: conversationsSkip() }, async (t) => {
  for (const file of fixtureFiles()) {
    const openai = parseConversation(fixtureConversation(file), { format: 'openai' }).messages
    const wire = serializeConversation(openai, 'responses').messages
    const responses = parseConversation(wire, { format: 'responses' }).messages
    for (const share of [0.1, 0.25]) {
      const target = Math.max(1, Math.floor(countConversation(openai, counter).totalTokens * share))
      const run = (format: 'openai' | 'responses', messages: typeof openai) =>
        compact({ messages, counter, options: { ...DEFAULT_COMPACT_OPTIONS, format, targetTokens: target, thresholdTokens: target, force: true } }).catch((err: unknown) => {
          if (err instanceof CompactionError && err.code === 'budget_unreachable') return 'unreachable' as const
          throw err
        })
      const [a, b] = [await run('openai', openai), await run('responses', responses)]
      const label = `${file} at ${share * 100}%`
      if (a === 'unreachable' || b === 'unreachable') {
        t.equal(b, a, `${label}: unreachable in both forms`)
        continue
      }
      t.equal(b.summary?.text, a.summary?.text, `${label}: the same summary text`)
      t.same(findPairingProblems(b.messages), [], `${label}: pairs kept`)
      const out = serializeConversation(b.messages, 'responses').messages as Record<string, unknown>[]
      const reread = parseConversation(out, { format: 'responses' })
      t.same(findPairingProblems(reread.messages), [], `${label}: the written items pair`)
      const kept = new Set(wire)
      t.ok(out.some((item) => kept.has(item)), `${label}: kept items are the caller's objects`)
    }
  }
})
