/**
 * The adapter edits the engine uses instead of building provider JSON itself:
 * withText, withoutToolResult, createToolResults. Each result must be what `parse` makes
 * of its own raw (checked by serializing and parsing back), keep raw fields the engine
 * does not know, and leave the caller's input unmutated.
 */
import t, { type Test } from 'tap'
import { findPairingProblems } from '../../../src/engine/conversation/pairing.ts'
import { CREATED_INDEX, getAdapter, type CanonicalMessage, type MessageFormat } from '../../../src/engine/messages/index.ts'

type Json = any

/** Serialize in the messages' own format and parse back. */
function reparse(format: MessageFormat, messages: readonly CanonicalMessage[]): CanonicalMessage[] {
  const adapter = getAdapter(format)
  const out = adapter.serialize(messages)
  return adapter.parse(out.messages, out.system).messages
}

/** The edited list parses back to exactly the canonical parts the edit produced. */
function assertReparses(t: Test, format: MessageFormat, messages: readonly CanonicalMessage[], what: string): void {
  t.strictSame(
    reparse(format, messages).map((m) => m.parts),
    messages.map((m) => m.parts),
    `${what}: parse(serialize(...)) gives the same parts`,
  )
}

function replaceMessage(messages: readonly CanonicalMessage[], at: number, m: CanonicalMessage | null): CanonicalMessage[] {
  const copy = messages.slice()
  if (m === null) copy.splice(at, 1)
  else copy[at] = m
  return copy
}

// ---------------------------------------------------------------------------
// Samples: every kind of part, plus fields no adapter knows.

function openaiSample(): Json[] {
  return [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: [{ type: 'text', text: 'Look at this', cache: 'x' }, { type: 'image_url', image_url: { url: 'https://x/y.png' } }, { type: 'text', text: 'and fix it' }] },
    {
      role: 'assistant',
      content: 'I will read two files.',
      refusal: 'partly refused',
      annotations: [{ type: 'url_citation' }],
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } },
        { id: 'call_2', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_1', content: 'export const a = 1', extra: { keep: true } },
    { role: 'tool', tool_call_id: 'call_2', content: 'a.ts\nb.ts' },
    { role: 'assistant', content: [{ type: 'refusal', refusal: 'no' }, { type: 'text', text: 'but here' }], audio: { id: 'au_1' } },
    { role: 'assistant', content: null, function_call: { name: 'legacy', arguments: '{}' } },
    { role: 'function', name: 'legacy', content: 'legacy output' },
    { role: 'assistant', content: null, refusal: 'I cannot do that', tool_calls: [{ id: 'call_3', type: 'function', function: { name: 'bash', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'call_3', content: 'ok' },
  ]
}

function anthropicSample(): { system: Json; messages: Json[] } {
  return {
    system: [{ type: 'text', text: 'You are a coding agent.' }, { type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
    messages: [
      { role: 'user', content: 'Fix the bug', timestamp: '2025-01-01T00:00:00.000Z' },
      {
        role: 'assistant',
        id: 'msg_1',
        model: 'claude-x',
        content: [
          { type: 'thinking', thinking: 'Let me look at the file first.', signature: 'sig-AAA' },
          { type: 'text', text: 'Reading it.', citations: [{ type: 'char_location', cited_text: 'x' }], cache_control: { type: 'ephemeral' } },
          { type: 'redacted_thinking', data: 'opaque-BBB' },
          { type: 'text', text: 'And running ls.' },
          { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.ts' } },
          { type: 'tool_use', id: 'toolu_2', name: 'bash', input: { command: 'ls' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'export const a = 1' }] },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: 'a.ts', is_error: true, cache_control: { type: 'ephemeral' } },
          { type: 'text', text: 'Also check b.ts' },
        ],
      },
      { role: 'assistant', content: [{ type: 'server_tool_use', id: 'srv_1', name: 'web_search', input: {} }, { type: 'text', text: 'Done.' }] },
    ],
  }
}

function aiSdkSample(): Json[] {
  return [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Fix the bug', createdAt: '2025-01-01T00:00:00.000Z' },
    {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'Look first.', providerOptions: { anthropic: { signature: 'sig-CCC' } } },
        { type: 'text', text: 'Reading it.', providerOptions: { openai: { itemId: 'msg_1' } } },
        { type: 'text', text: 'And listing.' },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: { path: 'a.ts' }, providerOptions: { openai: { itemId: 'fc_1' } } },
        { type: 'tool-call', toolCallId: 'c2', toolName: 'bash', input: { command: 'ls' } },
        { type: 'file', data: 'AAAA', mediaType: 'application/pdf' },
      ],
      id: 'resp_1',
    },
    {
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'c1', toolName: 'read_file', output: { type: 'text', value: 'export const a = 1' } },
        { type: 'tool-result', toolCallId: 'c2', toolName: 'bash', output: { type: 'error-text', value: 'boom' }, providerOptions: { x: 1 } },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: 'ws', toolName: 'web_search', input: { q: 'x' }, providerExecuted: true },
        { type: 'tool-result', toolCallId: 'ws', toolName: 'web_search', output: { type: 'json', value: { hits: 1 } } },
        { type: 'text', text: 'Found it.' },
      ],
    },
  ]
}

function parsed(format: MessageFormat): { input: Json; messages: CanonicalMessage[] } {
  const adapter = getAdapter(format)
  if (format === 'anthropic') {
    const input = anthropicSample()
    return { input, messages: adapter.parse(input.messages, input.system).messages }
  }
  const input = format === 'openai' ? openaiSample() : aiSdkSample()
  return { input, messages: adapter.parse(input).messages }
}

// ---------------------------------------------------------------------------
// withText

t.test('withText: every message of every format re-parses to its edited parts', async (t) => {
  for (const format of ['openai', 'anthropic', 'ai-sdk'] as const) {
    for (const text of ['[condensed]', '']) {
      const { input, messages } = parsed(format)
      const before = structuredClone(input)
      const adapter = getAdapter(format)
      messages.forEach((m, at) => {
        const edited = adapter.withText(m, text)
        const texts = edited.parts.filter((p) => p.type === 'text')
        if (!m.parts.some((p) => p.type === 'text')) {
          t.equal(edited, m, `${format} #${at}: no text part, same message`)
          return
        }
        t.ok(texts.length <= 1, `${format} #${at}: at most one text part left`)
        if (text !== '') t.strictSame(texts, [{ type: 'text', text }], `${format} #${at}: one text part with the new text`)
        t.strictSame(
          edited.parts.filter((p) => p.type !== 'text'),
          m.parts.filter((p) => p.type !== 'text'),
          `${format} #${at}: other parts untouched, in order`,
        )
        t.equal(edited.index, m.index)
        assertReparses(t, format, replaceMessage(messages, at, edited), `${format} #${at} ${JSON.stringify(text)}`)
      })
      t.strictSame(input, before, `${format}: input not mutated`)
    }
  }
})

t.test('withText: openai', async (t) => {
  const { input, messages } = parsed('openai')
  const a = getAdapter('openai')

  const user = a.withText(messages[1], 'one text')
  const userContent = (user.raw as Json).content
  t.strictSame(userContent[0], { type: 'text', text: 'one text', cache: 'x' }, 'first text part keeps its other fields')
  t.equal(userContent[1], input[1].content[1], 'image part kept (same object)')
  t.equal(userContent.length, 2, 'second text part merged away')
  t.strictSame(user.parts, [{ type: 'text', text: 'one text' }, { type: 'image', url: 'https://x/y.png' }])

  const assistant = a.withText(messages[2], 'condensed')
  const raw = assistant.raw as Json
  t.equal(raw.content, 'condensed', 'string content stays a string')
  t.notOk('refusal' in raw, 'top-level refusal was a text part: merged away')
  t.equal(raw.tool_calls, input[2].tool_calls, 'tool calls untouched (same array)')
  t.equal(raw.annotations, input[2].annotations, 'unknown field kept')
  t.strictSame(assistant.parts.map((p) => p.type), ['text', 'tool-call', 'tool-call'])

  const refusalPart = a.withText(messages[5], 'x')
  t.strictSame((refusalPart.raw as Json).content, [{ type: 'refusal', refusal: 'x' }], 'first text part was a refusal part: it stays one')
  t.equal((refusalPart.raw as Json).audio, input[5].audio)

  const refusalOnly = a.withText(messages[8], 'refused, condensed')
  t.equal((refusalOnly.raw as Json).refusal, 'refused, condensed', 'the only text (top-level refusal) is replaced in place')
  t.equal((refusalOnly.raw as Json).content, null)
  t.strictSame(refusalOnly.parts, [{ type: 'text', text: 'refused, condensed' }, messages[8].parts[1]])

  t.equal(a.withText(messages[3], 'x'), messages[3], 'tool message: no text part, unchanged')
  t.equal(a.withText(messages[6], 'x'), messages[6], 'function_call only: unchanged')
  t.throws(() => getAdapter('anthropic').withText(messages[2], 'x'), /getAdapter\('openai'\)/)
})

t.test('withText: anthropic', async (t) => {
  const { input, messages } = parsed('anthropic')
  const a = getAdapter('anthropic')

  const assistant = a.withText(messages[2], 'Reading a.ts and listing.')
  const blocks = (assistant.raw as Json).content
  const original = input.messages[1].content
  t.equal(blocks.length, 5, 'two text blocks became one')
  t.equal(blocks[0], original[0], 'thinking block untouched (same object)')
  t.equal(blocks[0].signature, 'sig-AAA', 'thinking signature kept')
  t.strictSame(blocks[1], { type: 'text', text: 'Reading a.ts and listing.', cache_control: { type: 'ephemeral' } }, 'at the first text block; cache_control kept, stale citations dropped')
  t.equal(blocks[2], original[2], 'redacted thinking untouched')
  t.equal(blocks[3], original[4], 'tool_use untouched')
  t.equal(blocks[4], original[5], 'tool_use untouched')
  t.equal((assistant.raw as Json).id, 'msg_1', 'unknown message fields kept')
  t.equal((assistant.raw as Json).model, 'claude-x')
  t.strictSame(assistant.parts, [
    { type: 'reasoning', text: 'Let me look at the file first.' },
    { type: 'text', text: 'Reading a.ts and listing.' },
    { type: 'reasoning', text: 'opaque-BBB', redacted: true },
    messages[2].parts[4],
    messages[2].parts[5],
  ])

  const user = a.withText(messages[1], 'Fix it')
  t.strictSame(user.raw, { role: 'user', content: 'Fix it', timestamp: '2025-01-01T00:00:00.000Z' }, 'string stays a string, timestamp kept')

  const results = a.withText(messages[3], 'Check b.ts')
  t.equal((results.raw as Json).content[0], input.messages[2].content[0], 'tool_result blocks untouched')
  t.equal((results.raw as Json).content[1], input.messages[2].content[1])

  const system = a.withText(messages[0], 'Be a brief coding agent.')
  t.equal(system.index, -1)
  t.strictSame(system.raw, [{ type: 'text', text: 'Be a brief coding agent.' }], 'top-level system blocks: merged into one')
  const out = a.serialize(replaceMessage(messages, 0, system))
  t.equal(out.system, system.raw, 'serialize writes the edited system')
  const stringSystem = a.parse([{ role: 'user', content: 'hi' }], 'old system').messages[0]
  t.equal(a.withText(stringSystem, 'new system').raw, 'new system', 'string system stays a string')

  const toolOnly = a.parse([{ role: 'user', content: 'go' }, { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'x', input: {} }] }]).messages[1]
  t.equal(a.withText(toolOnly, 'x'), toolOnly, 'no text block: unchanged')
})

t.test('withText: ai-sdk', async (t) => {
  const { input, messages } = parsed('ai-sdk')
  const a = getAdapter('ai-sdk')
  const assistant = a.withText(messages[2], 'Reading and listing.')
  const content = (assistant.raw as Json).content
  const original = input[2].content
  t.equal(content.length, 5, 'two text parts became one')
  t.equal(content[0], original[0], 'reasoning part untouched, with its signature')
  t.strictSame(content[1], { type: 'text', text: 'Reading and listing.', providerOptions: { openai: { itemId: 'msg_1' } } }, 'providerOptions of the first text kept')
  t.equal(content[2], original[3])
  t.equal(content[3], original[4])
  t.equal(content[4], original[5], 'file part untouched')
  t.equal((assistant.raw as Json).id, 'resp_1', 'unknown field kept')

  const system = a.withText(messages[0], 'New system')
  t.strictSame(system.raw, { role: 'system', content: 'New system' })
  const user = a.withText(messages[1], 'Fix it')
  t.strictSame(user.raw, { role: 'user', content: 'Fix it', createdAt: '2025-01-01T00:00:00.000Z' })
  t.equal(a.withText(messages[3], 'x'), messages[3], 'tool message: unchanged')
  const provider = a.withText(messages[4], 'Found.')
  t.equal((provider.raw as Json).content[1], input[4].content[1], 'provider-executed result untouched')
})

// ---------------------------------------------------------------------------
// withoutToolResult

t.test('withoutToolResult: openai', async (t) => {
  const { input, messages } = parsed('openai')
  const before = structuredClone(input)
  const a = getAdapter('openai')
  t.equal(a.withoutToolResult(messages[3], 'call_1'), null, 'a tool message holds one result: nothing remains')
  t.equal(a.withoutToolResult(messages[7], 'legacy_fn_6'), null, 'function message too')
  t.throws(() => a.withoutToolResult(messages[3], 'call_2'), /no tool result with id "call_2"/)
  t.throws(() => a.withoutToolResult(messages[2], 'call_1'), /no tool result/, 'a call is not a result')
  t.strictSame(input, before)
})

t.test('withoutToolResult: anthropic', async (t) => {
  const { input, messages } = parsed('anthropic')
  const before = structuredClone(input)
  const a = getAdapter('anthropic')
  const m = a.withoutToolResult(messages[3], 'toolu_1')
  if (m === null) throw new Error('expected a message')
  t.strictSame((m.raw as Json).content, [input.messages[2].content[1], input.messages[2].content[2]], 'other blocks kept, in order')
  t.equal((m.raw as Json).content[0], input.messages[2].content[1], 'same objects, cache_control and is_error with them')
  t.strictSame(m.parts, [messages[3].parts[1], messages[3].parts[2]])
  t.equal(m.index, messages[3].index)
  assertReparses(t, 'anthropic', replaceMessage(messages, 3, m), 'one of two results removed')

  const second = a.withoutToolResult(m, 'toolu_2')
  t.strictSame(second?.raw, { role: 'user', content: [{ type: 'text', text: 'Also check b.ts' }] })
  const sole = a.parse([{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: 'y' }] }]).messages[0]
  t.equal(a.withoutToolResult(sole, 'x'), null, 'nothing remains: null')
  t.throws(() => a.withoutToolResult(messages[3], 'toolu_9'), /no tool result/)
  t.strictSame(input, before)
})

t.test('withoutToolResult: ai-sdk', async (t) => {
  const { input, messages } = parsed('ai-sdk')
  const before = structuredClone(input)
  const a = getAdapter('ai-sdk')
  const m = a.withoutToolResult(messages[3], 'c1')
  if (m === null) throw new Error('expected a message')
  t.strictSame(m.raw, { role: 'tool', content: [input[3].content[1]] })
  t.equal((m.raw as Json).content[0], input[3].content[1], 'remaining result is the same object (providerOptions kept)')
  t.strictSame(m.parts, [messages[3].parts[1]])
  assertReparses(t, 'ai-sdk', replaceMessage(messages, 3, m), 'one of two results removed')
  t.equal(a.withoutToolResult(m, 'c2'), null, 'last result removed: null')

  const provider = a.withoutToolResult(messages[4], 'ws')
  t.strictSame((provider?.raw as Json).content, [input[4].content[0], input[4].content[2]], 'provider-executed result removed from the assistant message')
  assertReparses(t, 'ai-sdk', replaceMessage(messages, 4, provider), 'provider-executed result removed')
  t.throws(() => a.withoutToolResult(messages[3], 'nope'), /no tool result/)
  t.strictSame(input, before)
})

// ---------------------------------------------------------------------------
// createToolResults

/** Conversation with the results inserted right after the call message. */
function answered(messages: readonly CanonicalMessage[], at: number, results: readonly CanonicalMessage[]): CanonicalMessage[] {
  return [...messages.slice(0, at + 1), ...results, ...messages.slice(at + 1)]
}

t.test('createToolResults: openai', async (t) => {
  const a = getAdapter('openai')
  const messages = a.parse(openaiSample().slice(0, 3)).messages // the calls, unanswered
  const calls = [
    { id: 'call_1', name: 'read_file' },
    { id: 'call_2', name: 'bash' },
  ]
  const results = a.createToolResults(messages[2], calls, '[no result recorded]')
  t.strictSame(
    results.map((m) => m.raw),
    [
      { role: 'tool', tool_call_id: 'call_1', content: '[no result recorded]' },
      { role: 'tool', tool_call_id: 'call_2', content: '[no result recorded]' },
    ],
  )
  t.strictSame(results[1].parts, [{ type: 'tool-result', callId: 'call_2', name: 'bash', text: '[no result recorded]' }], 'parts carry the tool name')
  t.ok(results.every((m) => m.index === CREATED_INDEX && m.format === 'openai' && m.role === 'tool'))
  const fixed = answered(messages, 2, results)
  assertReparses(t, 'openai', fixed, 'results after their calls')
  t.strictSame(findPairingProblems(fixed), [], 'pairing is complete')
  t.strictSame(a.createToolResults(messages[2], [], 'x'), [], 'no calls, no messages')

  // The legacy function_call is answered the legacy way.
  const legacy = a.parse([{ role: 'user', content: 'go' }, { role: 'assistant', content: null, function_call: { name: 'legacy', arguments: '{}' } }]).messages
  const legacyResults = a.createToolResults(legacy[1], [{ id: 'legacy_fn_1', name: 'legacy' }], 'none')
  t.strictSame(legacyResults[0].raw, { role: 'function', name: 'legacy', content: 'none' })
  t.strictSame(legacyResults[0].parts, [{ type: 'tool-result', callId: 'legacy_fn_1', name: 'legacy', text: 'none' }])
  const legacyFixed = answered(legacy, 1, legacyResults)
  assertReparses(t, 'openai', legacyFixed, 'legacy result')
  t.strictSame(findPairingProblems(legacyFixed), [])
})

t.test('createToolResults: anthropic', async (t) => {
  const a = getAdapter('anthropic')
  const sample = anthropicSample()
  const messages = a.parse(sample.messages.slice(0, 2), sample.system).messages
  const calls = [
    { id: 'toolu_1', name: 'read_file' },
    { id: 'toolu_2', name: 'bash' },
  ]
  const results = a.createToolResults(messages[2], calls, '[no result recorded]')
  t.equal(results.length, 1, 'one user message for all calls')
  t.strictSame(results[0].raw, {
    role: 'user',
    content: [
      { type: 'tool_result', tool_use_id: 'toolu_1', content: '[no result recorded]' },
      { type: 'tool_result', tool_use_id: 'toolu_2', content: '[no result recorded]' },
    ],
  })
  // Anthropic results do not carry the name; parse leaves it to the call, and so does this.
  t.strictSame(results[0].parts, [
    { type: 'tool-result', callId: 'toolu_1', text: '[no result recorded]' },
    { type: 'tool-result', callId: 'toolu_2', text: '[no result recorded]' },
  ])
  t.equal(results[0].index, CREATED_INDEX)
  t.equal(results[0].role, 'user')
  const fixed = answered(messages, 2, results)
  assertReparses(t, 'anthropic', fixed, 'results after their calls')
  t.strictSame(findPairingProblems(fixed), [])
  t.strictSame(a.createToolResults(messages[2], [{ id: 'toolu_1', name: 'read_file' }], '')[0].raw, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1' }] }, 'empty text: no content')
  t.strictSame(a.createToolResults(messages[2], [], 'x'), [])
})

t.test('createToolResults: ai-sdk', async (t) => {
  const a = getAdapter('ai-sdk')
  const messages = a.parse(aiSdkSample().slice(0, 3)).messages
  const calls = [
    { id: 'c1', name: 'read_file' },
    { id: 'c2', name: 'bash' },
  ]
  const results = a.createToolResults(messages[2], calls, '[no result recorded]')
  t.equal(results.length, 1, 'one tool message for all calls')
  t.strictSame(results[0].raw, {
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: 'c1', toolName: 'read_file', output: { type: 'text', value: '[no result recorded]' } },
      { type: 'tool-result', toolCallId: 'c2', toolName: 'bash', output: { type: 'text', value: '[no result recorded]' } },
    ],
  })
  t.strictSame(results[0].parts, [
    { type: 'tool-result', callId: 'c1', name: 'read_file', text: '[no result recorded]' },
    { type: 'tool-result', callId: 'c2', name: 'bash', text: '[no result recorded]' },
  ])
  t.equal(results[0].index, CREATED_INDEX)
  const fixed = answered(messages, 2, results)
  assertReparses(t, 'ai-sdk', fixed, 'results after their calls')
  t.strictSame(findPairingProblems(fixed), [])

  // A v4 caller (calls with `args`) gets v4 results (`result`), which its SDK understands.
  const v4 = a.parse([{ role: 'user', content: 'go' }, { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'd1', toolName: 'bash', args: { command: 'ls' } }] }]).messages
  const v4Results = a.createToolResults(v4[1], [{ id: 'd1', name: 'bash' }], 'none')
  t.strictSame(v4Results[0].raw, { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'd1', toolName: 'bash', result: 'none' }] })
  assertReparses(t, 'ai-sdk', answered(v4, 1, v4Results), 'v4 results')
  t.strictSame(a.createToolResults(messages[2], [], 'x'), [])
})
