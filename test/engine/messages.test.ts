/**
 * Message layer: parsing, validation, detection, same-format round trips (byte-for-byte,
 * same references) and cross-format conversion (text, tool calls, results, pairing).
 */
import fc from 'fast-check'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import t, { type Test } from 'tap'
import {
  CONTINUATION_TEXT,
  FORMAT_NAMES,
  MessageFormatError,
  detectFormat,
  getAdapter,
  parseConversation,
  serializeConversation,
  type CanonicalConversation,
  type CanonicalMessage,
  type MessageFormat,
} from '../../src/engine/messages/index.ts'
import { conversationInFormatArb, findPairingProblems, type Rendered } from '../helpers/conversation-arbitraries.ts'
import { CONVERSATIONS, conversationsSkip, fixtureFiles } from '../helpers/fixtures.ts'

// ---------------------------------------------------------------------------
// Helpers

function catchFormatError(fn: () => unknown): MessageFormatError {
  try {
    fn()
  } catch (err) {
    if (err instanceof MessageFormatError) return err
    throw err
  }
  throw new Error('expected a MessageFormatError, nothing was thrown')
}

/** Tool arguments compared by meaning: JSON objects as objects, '' as {}, other text wrapped as the converters do. */
function normArgs(argsText: string): unknown {
  if (argsText.trim() === '') return {}
  try {
    const value: unknown = JSON.parse(argsText)
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value
  } catch {
    // wrapped below
  }
  return { _arguments: argsText }
}

function callsOf(conv: CanonicalConversation) {
  return conv.messages.flatMap((m) => m.parts.flatMap((p) => (p.type === 'tool-call' ? [{ id: p.id, name: p.name, args: normArgs(p.argsText) }] : [])))
}

function resultsOf(conv: CanonicalConversation, withError = false) {
  return conv.messages.flatMap((m) =>
    m.parts.flatMap((p) => (p.type === 'tool-result' ? [withError ? { callId: p.callId, text: p.text, isError: p.isError === true } : { callId: p.callId, text: p.text }] : [])),
  )
}

const isSystem = (m: CanonicalMessage) => m.role === 'system' || m.role === 'developer'

/** Non-empty text parts of user/assistant messages, in order. */
function dialogueTexts(conv: CanonicalConversation): string[] {
  return conv.messages.filter((m) => !isSystem(m)).flatMap((m) => m.parts.flatMap((p) => (p.type === 'text' && p.text !== '' ? [p.text] : [])))
}

function systemTexts(conv: CanonicalConversation): string[] {
  return conv.messages.filter(isSystem).flatMap((m) => m.parts.flatMap((p) => (p.type === 'text' && p.text !== '' ? [p.text] : [])))
}

type Json = Record<string, any>

/** Rules the Anthropic API enforces on a request's messages. */
function anthropicProblems(messages: readonly unknown[]): string[] {
  const problems: string[] = []
  const msgs = messages as Json[]
  if (msgs.length > 0 && msgs[0].role !== 'user') problems.push('first message is not a user message')
  msgs.forEach((m, k) => {
    if (m.role !== 'user' && m.role !== 'assistant') problems.push(`${k}: role ${m.role}`)
    if (k > 0 && msgs[k - 1].role === m.role) problems.push(`${k}: role ${m.role} repeats`)
    const blocks: Json[] = Array.isArray(m.content) ? m.content : []
    for (const b of blocks) if (b.type === 'text' && b.text === '') problems.push(`${k}: empty text block`)
    const useIds = blocks.filter((b) => b.type === 'tool_use').map((b) => b.id)
    if (m.role === 'assistant' && useIds.length > 0) {
      const next = msgs[k + 1]
      const nextBlocks: Json[] = next && Array.isArray(next.content) ? next.content : []
      const firstOther = nextBlocks.findIndex((b) => b.type !== 'tool_result')
      const leading = firstOther === -1 ? nextBlocks : nextBlocks.slice(0, firstOther)
      if (nextBlocks.slice(leading.length).some((b) => b.type === 'tool_result')) problems.push(`${k + 1}: tool_result after other content`)
      const answered = new Set(leading.map((b) => b.tool_use_id))
      for (const id of useIds) if (!answered.has(id)) problems.push(`${k}: tool_use ${id} not answered by the next message`)
    }
  })
  return problems
}

// ---------------------------------------------------------------------------
// Sample conversations using every feature of each format

const openaiSample = (): Json[] => [
  { role: 'system', content: 'You are a coding agent.', x_custom: 1 },
  { role: 'developer', content: [{ type: 'text', text: 'Prefer small diffs.' }] },
  {
    role: 'user',
    name: 'alice',
    timestamp: '2025-01-02T03:04:05Z',
    content: [
      { type: 'text', text: 'Fix src/db.ts' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0K', detail: 'low' } },
      { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } },
      { type: 'file', file: { file_id: 'file-1' } },
    ],
  },
  {
    role: 'assistant',
    content: null,
    refusal: null,
    annotations: [],
    tool_calls: [
      { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"src/db.ts"}' } },
      { id: 'call_2', type: 'function', function: { name: 'bash', arguments: '{"command": "npm test"}' } },
    ],
  },
  { role: 'tool', tool_call_id: 'call_1', content: 'export const db = 1' },
  { role: 'tool', tool_call_id: 'call_2', content: [{ type: 'text', text: 'FAIL test/db.test.ts' }, { type: 'text', text: '1 failed' }], extra: { keep: true } },
  { role: 'assistant', content: [{ type: 'text', text: 'Found it.' }, { type: 'refusal', refusal: 'Not that.' }], function_call: { name: 'legacy', arguments: '{}' } },
  { role: 'function', name: 'legacy', content: 'ok' },
  { role: 'assistant', content: 'Done.', createdAt: 1700000000000 },
]

const anthropicSystemSample = () => [{ type: 'text', text: 'You are a coding agent.', cache_control: { type: 'ephemeral' } }]
const anthropicSample = (): Json[] => [
  { role: 'user', content: 'Fix the failing test in src/db.ts' },
  {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'Need to read the file first.', signature: 'sig-1' },
      { type: 'redacted_thinking', data: 'ENCRYPTED' },
      { type: 'text', text: 'Reading.' },
      { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'src/db.ts' } },
      { type: 'tool_use', id: 'toolu_2', name: 'bash', input: { command: 'npm test' }, cache_control: { type: 'ephemeral' } },
    ],
  },
  {
    role: 'user',
    content: [
      { type: 'tool_result', tool_use_id: 'toolu_1', content: 'export const db = 1' },
      { type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: 'FAIL' }, { type: 'text', text: '1 failed' }], is_error: true },
      { type: 'text', text: 'Also check the README.' },
    ],
  },
  {
    role: 'assistant',
    content: [
      { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'x' } },
      { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] },
      { type: 'text', text: 'Searched.', citations: [{ type: 'web_search_result_location', url: 'https://x' }] },
    ],
  },
  {
    role: 'user',
    timestamp: '2025-01-02T03:04:05.000Z',
    content: [
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBOR' } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } },
      { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'doc' } },
      { type: 'text', text: 'See screenshot' },
    ],
  },
  { role: 'assistant', content: 'Done.', x_meta: { a: 1 } },
]

const aiSdkSample = (): Json[] => [
  { role: 'system', content: 'You are a coding agent.', providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'Fix src/db.ts' },
      { type: 'image', image: 'https://example.com/a.png', mediaType: 'image/png' },
      { type: 'file', data: 'JVBERi0', mediaType: 'application/pdf', filename: 'spec.pdf' },
    ],
  },
  {
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'Read first.', providerOptions: { anthropic: { signature: 'sig-1' } } },
      { type: 'text', text: 'Reading.' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: { path: 'src/db.ts' }, providerOptions: { openai: { itemId: 'fc_1' } } },
      { type: 'tool-call', toolCallId: 'c2', toolName: 'bash', args: { command: 'npm test' } }, // v4 name
    ],
  },
  {
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: 'c1', toolName: 'read_file', output: { type: 'text', value: 'export const db = 1' } },
      { type: 'tool-result', toolCallId: 'c2', toolName: 'bash', result: { exitCode: 1, stderr: 'FAIL' }, isError: true }, // v4 names
    ],
  },
  { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c3', toolName: 'grep', input: { pattern: 'db' } }] },
  {
    role: 'tool',
    content: [{ type: 'tool-result', toolCallId: 'c3', toolName: 'grep', output: { type: 'json', value: { matches: ['src/db.ts:1'] } } }],
  },
  { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c4', toolName: 'bash', input: { command: 'false' } }] },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'c4',
        toolName: 'bash',
        output: { type: 'content', value: [{ type: 'text', text: 'exit 1' }, { type: 'media', data: 'iVBOR', mediaType: 'image/png' }] },
      },
    ],
  },
  { role: 'assistant', content: 'Done.', createdAt: '2025-01-02T03:04:05.000Z' },
]

// ---------------------------------------------------------------------------
// Parsing and same-format round trips

t.test('openai: parse maps every feature, and serialize returns the same objects', async (t) => {
  const input = openaiSample()
  const copy = structuredClone(input)
  const conv = parseConversation(input, {})
  t.equal(conv.format, 'openai')
  t.same(
    conv.messages.map((m) => [m.role, m.index, m.parts.map((p) => p.type).join(',')]),
    [
      ['system', 0, 'text'],
      ['developer', 1, 'text'],
      ['user', 2, 'text,image,opaque,opaque'],
      ['assistant', 3, 'tool-call,tool-call'],
      ['tool', 4, 'tool-result'],
      ['tool', 5, 'tool-result'],
      ['assistant', 6, 'text,text,tool-call'],
      ['tool', 7, 'tool-result'],
      ['assistant', 8, 'text'],
    ],
  )
  const [, , user, calls, r1, r2, legacy, legacyResult, last] = conv.messages
  t.equal(user.name, 'alice')
  t.equal(user.timestamp, '2025-01-02T03:04:05.000Z')
  t.equal(last.timestamp, new Date(1700000000000).toISOString())
  t.same(user.parts[1], { type: 'image', url: 'data:image/png;base64,iVBORw0K', mediaType: 'image/png' })
  t.same(calls.parts[1], { type: 'tool-call', id: 'call_2', name: 'bash', argsText: '{"command": "npm test"}' })
  t.same(r1.parts[0], { type: 'tool-result', callId: 'call_1', name: 'read_file', text: 'export const db = 1' }, 'name resolved from the call')
  t.same(r2.parts[0], { type: 'tool-result', callId: 'call_2', name: 'bash', text: 'FAIL test/db.test.ts\n1 failed' })
  t.same(legacy.parts[1], { type: 'text', text: 'Not that.' }, 'refusal parts are text')
  t.same(legacy.parts[2], { type: 'tool-call', id: 'legacy_fn_6', name: 'legacy', argsText: '{}' })
  t.same(legacyResult.parts[0], { type: 'tool-result', callId: 'legacy_fn_6', name: 'legacy', text: 'ok' })
  t.same(findPairingProblems(conv), [])

  const out = serializeConversation(conv.messages, 'openai')
  t.equal(out.system, undefined)
  t.equal(out.messages.length, input.length)
  out.messages.forEach((m, i) => t.equal(m, input[i], `message ${i} is the same object`))
  t.same(input, copy, 'input not mutated')
  t.strictSame(JSON.parse(JSON.stringify(out.messages)), copy)
})

t.test('anthropic: parse maps every feature, and serialize returns the same objects and system', async (t) => {
  const input = anthropicSample()
  const system = anthropicSystemSample()
  const copy = structuredClone({ input, system })
  const conv = parseConversation(input, { system })
  t.equal(conv.format, 'anthropic')
  t.equal(conv.anthropicSystem, system)
  t.same(
    conv.messages.map((m) => [m.role, m.index, m.parts.map((p) => p.type).join(',')]),
    [
      ['system', -1, 'text'],
      ['user', 0, 'text'],
      ['assistant', 1, 'reasoning,reasoning,text,tool-call,tool-call'],
      ['user', 2, 'tool-result,tool-result,text'],
      ['assistant', 3, 'opaque,opaque,text'],
      ['user', 4, 'image,image,opaque,text'],
      ['assistant', 5, 'text'],
    ],
  )
  const [sys, , assistant, results, , images] = conv.messages
  t.equal(sys.raw, system)
  t.same(assistant.parts.slice(0, 2), [
    { type: 'reasoning', text: 'Need to read the file first.' },
    { type: 'reasoning', text: 'ENCRYPTED', redacted: true },
  ])
  t.same(assistant.parts[3], { type: 'tool-call', id: 'toolu_1', name: 'read_file', argsText: '{"path":"src/db.ts"}' })
  t.same(results.parts[1], { type: 'tool-result', callId: 'toolu_2', text: 'FAIL\n1 failed', isError: true })
  t.same(images.parts.slice(0, 2), [
    { type: 'image', mediaType: 'image/png', data: 'iVBOR' },
    { type: 'image', url: 'https://example.com/a.png' },
  ])
  t.equal(images.timestamp, '2025-01-02T03:04:05.000Z')

  const out = serializeConversation(conv.messages, 'anthropic')
  t.equal(out.system, system, 'original system reused')
  out.messages.forEach((m, i) => t.equal(m, input[i], `message ${i} is the same object`))
  t.strictSame(JSON.parse(JSON.stringify(out)), { messages: copy.input, system: copy.system })
  t.same({ input, system }, copy, 'input not mutated')
})

t.test('ai-sdk: parse maps v5 and v4 parts, and serialize returns the same objects', async (t) => {
  const input = aiSdkSample()
  const copy = structuredClone(input)
  const conv = parseConversation(input, {})
  t.equal(conv.format, 'ai-sdk')
  t.same(
    conv.messages.map((m) => [m.role, m.parts.map((p) => p.type).join(',')]),
    [
      ['system', 'text'],
      ['user', 'text,image,opaque'],
      ['assistant', 'reasoning,text,tool-call,tool-call'],
      ['tool', 'tool-result,tool-result'],
      ['assistant', 'tool-call'],
      ['tool', 'tool-result'],
      ['assistant', 'tool-call'],
      ['tool', 'tool-result'],
      ['assistant', 'text'],
    ],
  )
  const m = conv.messages
  t.same(m[1].parts[1], { type: 'image', mediaType: 'image/png', url: 'https://example.com/a.png' })
  t.same(m[2].parts[3], { type: 'tool-call', id: 'c2', name: 'bash', argsText: '{"command":"npm test"}' }, 'v4 args')
  t.same(m[3].parts, [
    { type: 'tool-result', callId: 'c1', name: 'read_file', text: 'export const db = 1' },
    { type: 'tool-result', callId: 'c2', name: 'bash', text: '{"exitCode":1,"stderr":"FAIL"}', isError: true },
  ])
  t.same(m[5].parts[0], { type: 'tool-result', callId: 'c3', name: 'grep', text: '{"matches":["src/db.ts:1"]}' })
  t.same(m[7].parts[0], { type: 'tool-result', callId: 'c4', name: 'bash', text: 'exit 1\n[media]' })
  t.equal(m[8].timestamp, '2025-01-02T03:04:05.000Z')
  t.same(findPairingProblems(conv), [])

  const out = serializeConversation(conv.messages, 'ai-sdk')
  out.messages.forEach((msg, i) => t.equal(msg, input[i], `message ${i} is the same object`))
  t.strictSame(JSON.parse(JSON.stringify(out.messages)), copy)
})

t.test('empty conversations are valid', async (t) => {
  for (const format of FORMAT_NAMES) {
    const conv = parseConversation([], { format })
    t.same(conv.messages, [])
    t.same(serializeConversation(conv.messages, format).messages, [])
  }
  t.equal(parseConversation([], {}).format, 'openai')
})

// ---------------------------------------------------------------------------
// Cross-format conversion

/** An OpenAI agent session: developer rules, parallel calls, an error, a follow-up. */
const openaiSession = (): Json[] => [
  { role: 'system', content: 'You are a coding agent. Keep the public API.' },
  { role: 'developer', content: 'Never edit migrations/.' },
  { role: 'user', content: 'The test in test/db.test.ts fails. Fix it.' },
  {
    role: 'assistant',
    content: 'Let me look at the file and run the tests.',
    tool_calls: [
      { id: 'call_a', type: 'function', function: { name: 'read_file', arguments: '{"path": "src/db.ts"}' } },
      { id: 'call_b', type: 'function', function: { name: 'bash', arguments: '{"command":"npm test -- test/db.test.ts"}' } },
      { id: 'call_c', type: 'function', function: { name: 'list_dir', arguments: '' } },
    ],
  },
  { role: 'tool', tool_call_id: 'call_a', content: 'export function query() {}' },
  { role: 'tool', tool_call_id: 'call_b', content: 'FAILED test/db.test.ts\nTypeError: x is undefined' },
  { role: 'tool', tool_call_id: 'call_c', content: '' },
  { role: 'user', content: 'Also keep the logging.' },
  { role: 'assistant', content: '', tool_calls: [{ id: 'call_d', type: 'function', function: { name: 'edit', arguments: 'not json' } }] },
  { role: 'tool', tool_call_id: 'call_d', content: 'edited' },
  { role: 'assistant', content: 'Fixed: query() now handles empty filters.' },
]

function assertSameDialogue(t: Test, before: CanonicalConversation, after: CanonicalConversation) {
  t.same(callsOf(after), callsOf(before), 'tool calls: ids, names, arguments')
  t.same(resultsOf(after), resultsOf(before), 'tool results')
  t.same(dialogueTexts(after), dialogueTexts(before), 'user/assistant text')
  t.same(systemTexts(after), systemTexts(before), 'system text')
  t.same(findPairingProblems(after), [], 'every call paired with its result')
}

t.test('openai -> anthropic -> openai keeps text, calls, results and pairing', async (t) => {
  const original = parseConversation(openaiSession(), {})
  const anthropic = serializeConversation(original.messages, 'anthropic')
  t.same(anthropicProblems(anthropic.messages), [])
  t.same(anthropic.system, [
    { type: 'text', text: 'You are a coding agent. Keep the public API.' },
    { type: 'text', text: 'Never edit migrations/.' },
  ])
  const msgs = anthropic.messages as Json[]
  t.same(
    msgs[1].content.map((b: Json) => b.type),
    ['text', 'tool_use', 'tool_use', 'tool_use'],
    'parallel calls in one assistant message',
  )
  t.same(msgs[1].content[3].input, {}, 'empty arguments become {}')
  t.same(
    msgs[2].content.map((b: Json) => b.type),
    ['tool_result', 'tool_result', 'tool_result', 'text'],
    'results merged into one user message, before the follow-up',
  )
  t.notOk('content' in msgs[2].content[2], 'empty result has no content')
  t.same(msgs[3].content[0].input, { _arguments: 'not json' }, 'non-JSON arguments are wrapped')

  const viaAnthropic = parseConversation(anthropic.messages, { system: anthropic.system })
  t.equal(viaAnthropic.format, 'anthropic')
  assertSameDialogue(t, original, viaAnthropic)
  const back = parseConversation(serializeConversation(viaAnthropic.messages, 'openai').messages, {})
  assertSameDialogue(t, original, back)
  const backMsgs = serializeConversation(viaAnthropic.messages, 'openai').messages as Json[]
  t.same(
    backMsgs.map((m) => m.role),
    ['system', 'user', 'assistant', 'tool', 'tool', 'tool', 'user', 'assistant', 'tool', 'assistant'],
  )
  t.equal(backMsgs[7].content, null, 'assistant with only tool calls has null content')
})

t.test('openai -> ai-sdk -> openai keeps text, calls, results and pairing', async (t) => {
  const original = parseConversation(openaiSession(), {})
  const sdk = serializeConversation(original.messages, 'ai-sdk')
  t.equal(sdk.system, undefined)
  const msgs = sdk.messages as Json[]
  t.same(
    msgs.map((m) => m.role),
    ['system', 'system', 'user', 'assistant', 'tool', 'tool', 'tool', 'user', 'assistant', 'tool', 'assistant'],
  )
  t.same(msgs[3].content[1], { type: 'tool-call', toolCallId: 'call_a', toolName: 'read_file', input: { path: 'src/db.ts' } })
  t.same(msgs[4].content, [{ type: 'tool-result', toolCallId: 'call_a', toolName: 'read_file', output: { type: 'text', value: 'export function query() {}' } }])
  const viaSdk = parseConversation(sdk.messages, { format: 'ai-sdk' })
  assertSameDialogue(t, original, viaSdk)
  t.equal(detectFormat(sdk.messages), 'ai-sdk')
  const back = parseConversation(serializeConversation(viaSdk.messages, 'openai').messages, {})
  assertSameDialogue(t, original, back)
})

t.test('anthropic output: alternation, user first, merged neighbours, system handling', async (t) => {
  t.test('conversation starting with the assistant gets a minimal user message', async (t) => {
    const conv = parseConversation(
      [
        { role: 'assistant', content: 'Resuming.' },
        { role: 'user', content: 'ok' },
        { role: 'user', content: 'and go on' },
      ],
      {},
    )
    const out = serializeConversation(conv.messages, 'anthropic')
    t.same(out.messages, [
      { role: 'user', content: CONTINUATION_TEXT },
      { role: 'assistant', content: 'Resuming.' },
      { role: 'user', content: [{ type: 'text', text: 'ok' }, { type: 'text', text: 'and go on' }] },
    ])
    t.equal(out.system, undefined)
  })

  t.test('kept anthropic messages are reused and never merged, even when roles repeat', async (t) => {
    const input = anthropicSample()
    const copy = structuredClone(input)
    const conv = parseConversation(input, { system: 'Be brief.' })
    const adapter = getAdapter('anthropic')
    const summary = adapter.createTextMessage('user', 'Summary of earlier work: db.ts was read.')
    // Engine-style edit: drop the first user message, put a summary before the tool results.
    const edited = [conv.messages[0], summary, conv.messages[2], conv.messages[3], conv.messages[4], conv.messages[5], conv.messages[6]]
    const out = serializeConversation(edited, 'anthropic')
    t.equal(out.system, 'Be brief.')
    t.same(anthropicProblems(out.messages), [])
    t.equal(out.messages[0], summary.raw, 'lone created message used as is')
    t.equal(out.messages[1], input[1])
    t.equal(out.messages[2], input[2])
    // A created user message next to the caller's user message: both kept as they are
    // (the API combines consecutive same-role turns), so the caller's object is untouched.
    const adjacent = serializeConversation([conv.messages[0], conv.messages[1], summary, conv.messages[2]], 'anthropic').messages
    t.equal(adjacent[0], input[0], 'the caller\'s user message is the same object')
    t.equal(adjacent[1], summary.raw)
    t.equal(adjacent.length, 3)
    t.same(input, copy, 'serializing does not mutate the input')
  })

  t.test('system and developer messages from any place go to the top-level system', async (t) => {
    const conv = parseConversation(anthropicSample(), { system: anthropicSystemSample() })
    const extra = getAdapter('openai').createTextMessage('developer', 'Use tabs.')
    const out = serializeConversation([...conv.messages.slice(0, 3), extra, ...conv.messages.slice(3)], 'anthropic')
    t.same(out.system, [...anthropicSystemSample(), { type: 'text', text: 'Use tabs.' }], 'original blocks kept, new text appended')
    t.same(anthropicProblems(out.messages), [])
    t.equal(out.messages.length, 6)
  })
})

t.test('thinking blocks stay before tool_use across formats', async (t) => {
  const input = anthropicSample()
  const conv = parseConversation(input, { system: 'S' })
  const sdk = serializeConversation(conv.messages, 'ai-sdk').messages as Json[]
  t.same(sdk[0], { role: 'system', content: 'S' })
  t.same(
    sdk[2].content.map((p: Json) => p.type),
    ['reasoning', 'reasoning', 'text', 'tool-call', 'tool-call'],
  )
  t.same(sdk[2].content[0], { type: 'reasoning', text: 'Need to read the file first.', providerOptions: { anthropic: { signature: 'sig-1' } } })
  t.same(sdk[2].content[1], { type: 'reasoning', text: '', providerOptions: { anthropic: { redactedData: 'ENCRYPTED' } } })
  t.same(sdk[3].role, 'tool', 'user tool_result blocks become a tool message')
  t.same(sdk[4], { role: 'user', content: 'Also check the README.' })

  const back = serializeConversation(parseConversation(sdk, { format: 'ai-sdk' }).messages, 'anthropic')
  t.same(back.system, 'S')
  t.same(anthropicProblems(back.messages), [])
  t.same((back.messages as Json[])[1].content.slice(0, 4), [
    { type: 'thinking', thinking: 'Need to read the file first.', signature: 'sig-1' },
    { type: 'redacted_thinking', data: 'ENCRYPTED' },
    { type: 'text', text: 'Reading.' },
    { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'src/db.ts' } },
  ])

  const openai = serializeConversation(conv.messages, 'openai').messages as Json[]
  t.same(openai[2].content, 'Reading.', 'OpenAI output drops reasoning it cannot take back')
  t.same(
    openai[2].tool_calls.map((c: Json) => c.id),
    ['toolu_1', 'toolu_2'],
  )
  // Unsigned reasoning (e.g. from another provider through the AI SDK) cannot go to Anthropic.
  const unsigned = parseConversation(
    [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [{ type: 'reasoning', text: 'hmm' }, { type: 'tool-call', toolCallId: 'x', toolName: 'ls', input: {} }] },
    ],
    {},
  )
  t.same((serializeConversation(unsigned.messages, 'anthropic').messages as Json[])[1].content, [{ type: 'tool_use', id: 'x', name: 'ls', input: {} }])
})

// ---------------------------------------------------------------------------
// Creating and editing messages

t.test('createTextMessage in each format', async (t) => {
  for (const format of FORMAT_NAMES) {
    const adapter = getAdapter(format)
    for (const role of ['user', 'assistant'] as const) {
      const m = adapter.createTextMessage(role, 'Summary: fixed src/db.ts')
      t.same(m.raw, { role, content: 'Summary: fixed src/db.ts' }, `${format} ${role}`)
      t.equal(m.format, format)
      t.same(m.parts, [{ type: 'text', text: 'Summary: fixed src/db.ts' }])
      // A created message parses back to the same canonical content.
      t.same(adapter.parse([m.raw]).messages[0].parts, m.parts)
    }
  }
  t.same(getAdapter('openai').createTextMessage('developer', 'x').raw, { role: 'developer', content: 'x' })
  const sdkDev = getAdapter('ai-sdk').createTextMessage('developer', 'x')
  t.same([sdkDev.role, sdkDev.raw], ['system', { role: 'system', content: 'x' }], 'AI SDK has no developer role')
  for (const role of ['system', 'developer'] as const) {
    // Anthropic has no system role inside messages: the text goes to the top-level system.
    const m = getAdapter('anthropic').createTextMessage(role, 'x')
    t.same([m.role, m.raw], ['system', 'x'])
    t.same(serializeConversation([m, getAdapter('anthropic').createTextMessage('user', 'hi')], 'anthropic'), { messages: [{ role: 'user', content: 'hi' }], system: 'x' })
  }
})

t.test('withToolResultText / withToolCallArgs keep every other field', async (t) => {
  t.test('openai', async (t) => {
    const input = openaiSample()
    const copy = structuredClone(input)
    const conv = parseConversation(input, {})
    const a = getAdapter('openai')
    const masked = a.withToolResultText(conv.messages[5], 'call_2', '[output cleared: 2 lines]')
    t.same(masked.raw, { role: 'tool', tool_call_id: 'call_2', content: '[output cleared: 2 lines]', extra: { keep: true } })
    t.same(masked.parts, [{ type: 'tool-result', callId: 'call_2', name: 'bash', text: '[output cleared: 2 lines]' }])
    t.equal(masked.index, 5)
    const cleared = a.withToolCallArgs(conv.messages[3], 'call_2', '{"command":"[cleared]"}')
    const raw = cleared.raw as Json
    t.equal(raw.tool_calls[0], input[3].tool_calls[0], 'other call untouched')
    t.same(raw.tool_calls[1], { id: 'call_2', type: 'function', function: { name: 'bash', arguments: '{"command":"[cleared]"}' } })
    t.same(raw.annotations, [])
    t.equal((cleared.parts[1] as Json).argsText, '{"command":"[cleared]"}')
    const legacy = a.withToolCallArgs(conv.messages[6], 'legacy_fn_6', '{"x":1}')
    t.same((legacy.raw as Json).function_call, { name: 'legacy', arguments: '{"x":1}' })
    t.same(input, copy, 'input not mutated')
    t.throws(() => a.withToolResultText(conv.messages[5], 'nope', 'x'), /no tool result/)
    t.throws(() => getAdapter('anthropic').withToolResultText(conv.messages[5], 'call_2', 'x'), /getAdapter\('openai'\)/)
  })

  t.test('anthropic', async (t) => {
    const input = anthropicSample()
    input[2].content[1].cache_control = { type: 'ephemeral' }
    const copy = structuredClone(input)
    const conv = parseConversation(input, {})
    const a = getAdapter('anthropic')
    const masked = a.withToolResultText(conv.messages[2], 'toolu_2', '[cleared]')
    const blocks = (masked.raw as Json).content
    t.equal(blocks[0], input[2].content[0])
    t.same(blocks[1], { type: 'tool_result', tool_use_id: 'toolu_2', content: '[cleared]', is_error: true, cache_control: { type: 'ephemeral' } })
    t.same(masked.parts[1], { type: 'tool-result', callId: 'toolu_2', text: '[cleared]', isError: true })
    const obj = a.withToolCallArgs(conv.messages[1], 'toolu_1', '{"path":"[cleared]"}')
    t.same((obj.raw as Json).content[3].input, { path: '[cleared]' })
    const wrapped = a.withToolCallArgs(conv.messages[1], 'toolu_2', 'cleared 2 KB of input')
    t.same((wrapped.raw as Json).content[4], { type: 'tool_use', id: 'toolu_2', name: 'bash', input: { _compacted: 'cleared 2 KB of input' }, cache_control: { type: 'ephemeral' } })
    t.equal((wrapped.parts[4] as Json).argsText, '{"_compacted":"cleared 2 KB of input"}')
    t.same(input, copy, 'input not mutated')
  })

  t.test('ai-sdk', async (t) => {
    const input = aiSdkSample()
    const copy = structuredClone(input)
    const conv = parseConversation(input, {})
    const a = getAdapter('ai-sdk')
    const v5 = a.withToolResultText(conv.messages[3], 'c1', '[cleared]')
    t.same((v5.raw as Json).content[0], { type: 'tool-result', toolCallId: 'c1', toolName: 'read_file', output: { type: 'text', value: '[cleared]' } })
    const v4 = a.withToolResultText(conv.messages[3], 'c2', '[cleared]')
    t.same((v4.raw as Json).content[1], { type: 'tool-result', toolCallId: 'c2', toolName: 'bash', result: '[cleared]', isError: true })
    t.same(v4.parts[1], { type: 'tool-result', callId: 'c2', name: 'bash', text: '[cleared]', isError: true })
    const err = parseConversation([{ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'e', toolName: 'x', output: { type: 'error-json', value: { a: 1 } } }] }], { format: 'ai-sdk' })
    t.same((a.withToolResultText(err.messages[0], 'e', 'gone').raw as Json).content[0].output, { type: 'error-text', value: 'gone' }, 'error-ness kept')
    const input5 = a.withToolCallArgs(conv.messages[2], 'c1', 'cleared')
    t.same((input5.raw as Json).content[2], { type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: { _compacted: 'cleared' }, providerOptions: { openai: { itemId: 'fc_1' } } })
    const args4 = a.withToolCallArgs(conv.messages[2], 'c2', '{"command":"ls"}')
    t.same((args4.raw as Json).content[3], { type: 'tool-call', toolCallId: 'c2', toolName: 'bash', args: { command: 'ls' } })
    t.same(input, copy, 'input not mutated')
  })
})

// ---------------------------------------------------------------------------
// Detection

t.test('detectFormat', async (t) => {
  t.equal(detectFormat(openaiSample()), 'openai')
  t.equal(detectFormat(anthropicSample()), 'anthropic')
  t.equal(detectFormat(aiSdkSample()), 'ai-sdk')
  const plain = [
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: 'hello' },
  ]
  t.equal(detectFormat(plain), 'openai', 'plain string messages default to openai')
  t.equal(detectFormat([{ role: 'system', content: 's' }, ...plain]), 'openai')
  t.equal(detectFormat(plain, { system: 'be brief' }), 'anthropic', 'a top-level system means anthropic')
  t.equal(detectFormat([{ role: 'developer', content: 'x' }]), 'openai')
  t.equal(detectFormat([{ role: 'tool', tool_call_id: 'a', content: 'x' }]), 'openai')
  t.equal(detectFormat([{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x' } }] }]), 'openai')
  t.equal(detectFormat([{ role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'https://x' } }] }]), 'anthropic')
  t.equal(detectFormat([{ role: 'user', content: [{ type: 'image', image: 'https://x' }] }]), 'ai-sdk')
  t.equal(detectFormat([{ role: 'assistant', content: [{ type: 'thinking', thinking: 'x', signature: 's' }] }]), 'anthropic')
  t.equal(detectFormat([{ role: 'assistant', content: [{ type: 'reasoning', text: 'x' }] }]), 'ai-sdk')
  t.equal(detectFormat([{ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'a', toolName: 'b', output: { type: 'text', value: '' } }] }]), 'ai-sdk')

  t.test('explicit format overrides detection', async (t) => {
    t.equal(parseConversation(plain, { format: 'anthropic' }).format, 'anthropic')
    t.equal(parseConversation(plain, { format: 'ai-sdk' }).format, 'ai-sdk')
    const err = catchFormatError(() => parseConversation(openaiSample(), { format: 'anthropic' }))
    t.equal(err.field, 'messages[0].role', 'and then validates against that format')
  })

  t.test('mixed signals are an ambiguity error naming index and field', async (t) => {
    const mixed = [
      { role: 'user', content: 'run ls' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'ls', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'a', content: 'x' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'b', name: 'ls', input: {} }] },
    ]
    const err = catchFormatError(() => parseConversation(mixed, {}))
    t.equal(err.index, 3)
    t.equal(err.field, 'messages[3].content[0].type')
    t.match(err.message, /ambiguous/)
    t.match(err.message, /found a "tool_use" part \(Anthropic\) here, but tool_calls \(OpenAI\) at messages\[1\]\.tool_calls/)
    t.match(err.message, /Formats seen: OpenAI, Anthropic/)
    t.match(err.message, /"format"/)
    const sys = catchFormatError(() => detectFormat([{ role: 'system', content: 's' }], { system: 'also' }))
    t.equal(sys.field, 'messages[0].role')
    t.match(sys.message, /found role "system" inside messages \(OpenAI or AI SDK or OpenAI Responses\) here, but a top-level system prompt \(Anthropic\) at system\./)
    const sdkVsOpenai = catchFormatError(() => detectFormat([{ role: 'assistant', content: [{ type: 'tool-call' }] }, { role: 'developer', content: 'x' }]))
    t.equal(sdkVsOpenai.index, 1)
  })
})

// ---------------------------------------------------------------------------
// Validation

interface BadCase {
  name: string
  format?: MessageFormat
  messages: unknown
  system?: unknown
  field: string
  index: number | null
  match?: RegExp
}

const tc = (id: string) => ({ id, type: 'function', function: { name: 'ls', arguments: '{}' } })
const badCases: BadCase[] = [
  { name: 'messages not an array', messages: { role: 'user' }, field: 'messages', index: null },
  { name: 'unknown format', format: 'gemini' as MessageFormat, messages: [], field: 'format', index: null },
  { name: 'message not an object', messages: [42], field: 'messages[0]', index: 0 },
  { name: 'missing role', messages: [{ content: 'x' }], field: 'messages[0].role', index: 0, match: /missing/ },
  { name: 'unknown openai role', format: 'openai', messages: [{ role: 'robot', content: 'x' }], field: 'messages[0].role', index: 0, match: /"robot"/ },
  { name: 'user content a number', messages: [{ role: 'user', content: 5 }], field: 'messages[0].content', index: 0, match: /got a number/ },
  { name: 'text part without text', messages: [{ role: 'user', content: [{ type: 'text' }] }], field: 'messages[0].content[0].text', index: 0 },
  {
    name: 'tool message without tool_call_id',
    messages: [{ role: 'assistant', content: null, tool_calls: [tc('a')] }, { role: 'tool', content: 'x' }],
    field: 'messages[1].tool_call_id',
    index: 1,
  },
  {
    name: 'tool arguments as an object',
    messages: [{ role: 'user', content: 'x' }, { role: 'user', content: 'y' }, { role: 'user', content: 'z' }, { role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'ls', arguments: { path: '.' } } }] }],
    field: 'messages[3].tool_calls[0].function.arguments',
    index: 3,
    match: /^messages\[3\]\.tool_calls\[0\]\.function\.arguments: expected a string \(OpenAI sends tool arguments as a JSON string\), got an object$/,
  },
  { name: 'tool call without id', messages: [{ role: 'assistant', content: null, tool_calls: [{ type: 'function', function: { name: 'ls', arguments: '{}' } }] }], field: 'messages[0].tool_calls[0].id', index: 0 },
  { name: 'tool call with wrong type', messages: [{ role: 'assistant', tool_calls: [{ id: 'a', type: 'fn' }] }], field: 'messages[0].tool_calls[0].type', index: 0 },
  { name: 'tool_calls on a user message', format: 'openai', messages: [{ role: 'user', content: 'x', tool_calls: [tc('a')] }], field: 'messages[0].tool_calls', index: 0 },
  { name: 'anthropic role system', format: 'anthropic', messages: [{ role: 'system', content: 'x' }], field: 'messages[0].role', index: 0, match: /top-level `system`/ },
  {
    name: 'tool_use without id',
    messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: [{ type: 'tool_use', name: 'ls', input: {} }] }],
    field: 'messages[1].content[0].id',
    index: 1,
  },
  { name: 'tool_use without name', messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 'a', input: {} }] }], field: 'messages[0].content[0].name', index: 0 },
  { name: 'tool_use input a string', messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'ls', input: '{}' }] }], field: 'messages[0].content[0].input', index: 0 },
  {
    name: 'tool_result without tool_use_id',
    messages: [
      { role: 'user', content: 'x' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'ls', input: {} }, { type: 'tool_use', id: 'b', name: 'ls', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: 'ok' }, { type: 'tool_result', content: 'ok' }] },
      { role: 'assistant', content: 'done' },
    ],
    field: 'messages[2].content[1].tool_use_id',
    index: 2,
  },
  { name: 'tool_result in an assistant message', format: 'anthropic', messages: [{ role: 'assistant', content: [{ type: 'tool_result', tool_use_id: 'a' }] }], field: 'messages[0].content[0].type', index: 0 },
  { name: 'anthropic system with an image', messages: [], system: [{ type: 'image', source: {} }], field: 'system[0].type', index: null },
  { name: 'anthropic system a number', format: 'anthropic', messages: [], system: 3, field: 'system', index: null },
  { name: 'ai-sdk tool-call without toolCallId', messages: [{ role: 'assistant', content: [{ type: 'tool-call', toolName: 'ls', input: {} }] }], field: 'messages[0].content[0].toolCallId', index: 0 },
  { name: 'ai-sdk tool-call without input', messages: [{ role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'a', toolName: 'ls' }] }], field: 'messages[0].content[0].input', index: 0, match: /`args` in v4/ },
  { name: 'ai-sdk tool content a string', format: 'ai-sdk', messages: [{ role: 'tool', content: 'x' }], field: 'messages[0].content', index: 0 },
  { name: 'ai-sdk tool-result without output', messages: [{ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'a', toolName: 'ls' }] }], field: 'messages[0].content[0].output', index: 0 },
  { name: 'ai-sdk output not an object', messages: [{ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'a', toolName: 'ls', output: 'x' }] }], field: 'messages[0].content[0].output', index: 0 },
  { name: 'ai-sdk developer role', format: 'ai-sdk', messages: [{ role: 'developer', content: 'x' }], field: 'messages[0].role', index: 0 },
  { name: 'ai-sdk system with parts', format: 'ai-sdk', messages: [{ role: 'system', content: [{ type: 'text', text: 'x' }] }], field: 'messages[0].content', index: 0 },
]

t.test('invalid inputs produce MessageFormatError with the right field', async (t) => {
  for (const c of badCases) {
    const err = catchFormatError(() => parseConversation(c.messages, { format: c.format, system: c.system }))
    t.equal(err.field, c.field, `${c.name}: field`)
    t.equal(err.index, c.index, `${c.name}: index`)
    t.ok(err.message.startsWith(`${c.field}: `), `${c.name}: message starts with the field`)
    if (c.match) t.match(err.message, c.match, `${c.name}: message`)
  }
  const err = catchFormatError(() => parseConversation([{}], {}))
  t.same(err.toJSON(), { error: 'invalid_messages', message: err.message, index: 0, field: 'messages[0].role' })
})

// ---------------------------------------------------------------------------
// Property tests over generated conversations

const otherFormats = (format: MessageFormat) => FORMAT_NAMES.filter((f) => f !== format)

t.test('property: same-format round trip is the identity (same references)', async (t) => {
  fc.assert(
    fc.property(conversationInFormatArb(), ({ format, messages, system }) => {
      const conv = parseConversation(messages, { format, system })
      const out = serializeConversation(conv.messages, format)
      if (out.messages.length !== messages.length) throw new Error('length changed')
      out.messages.forEach((m, i) => {
        if (m !== messages[i]) throw new Error(`message ${i} is not the same object`)
      })
      if (out.system !== system) throw new Error('system not reused')
      if (findPairingProblems(conv).length > 0) throw new Error(findPairingProblems(conv).join('; '))
      // Detection either finds the format or one that reads the conversation identically.
      const detected = parseConversation(messages, { system })
      if (detected.format !== format) {
        assert.deepEqual(detected.messages.map((m) => [m.role, m.parts]), conv.messages.map((m) => [m.role, m.parts]))
      }
    }),
    { numRuns: 150 },
  )
  t.pass('150 generated conversations round-tripped')
})

t.test('property: cross-format conversion keeps calls, results, text and pairing', async (t) => {
  fc.assert(
    fc.property(conversationInFormatArb(), ({ format, messages, system }) => {
      const conv = parseConversation(messages, { format, system })
      for (const target of otherFormats(format)) {
        const out: Rendered = serializeConversation(conv.messages, target)
        if (target === 'anthropic') {
          const problems = anthropicProblems(out.messages)
          if (problems.length > 0) throw new Error(`anthropic output: ${problems.join('; ')}`)
        }
        const converted = parseConversation(out.messages, { format: target, system: out.system })
        const pairing = findPairingProblems(converted)
        if (pairing.length > 0) throw new Error(`${format} -> ${target}: ${pairing.join('; ')}`)
        // OpenAI Chat Completions and Responses results carry no error flag.
        const withError = ![format, target].some((f) => f === 'openai' || f === 'responses')
        const label = `${format} -> ${target}`
        assert.deepEqual(callsOf(converted), callsOf(conv), `${label}: calls`)
        assert.deepEqual(resultsOf(converted, withError), resultsOf(conv, withError), `${label}: results`)
        assert.deepEqual(dialogueTexts(converted), dialogueTexts(conv), `${label}: text`)
        assert.deepEqual(systemTexts(converted), systemTexts(conv), `${label}: system`)
        // And back again.
        const back = serializeConversation(converted.messages, format)
        const again = parseConversation(back.messages, { format, system: back.system })
        assert.deepEqual(findPairingProblems(again), [], `${label} -> ${format}: pairing`)
        assert.deepEqual(callsOf(again), callsOf(conv), `${label} -> ${format}: calls`)
        assert.deepEqual(resultsOf(again), resultsOf(conv), `${label} -> ${format}: results`)
      }
    }),
    { numRuns: 60 },
  )
  t.pass('60 generated conversations converted to the other formats and back')
})

// ---------------------------------------------------------------------------
// Real sessions

const fixturesSkip = conversationsSkip()
if (fixturesSkip) {
  t.test('real sessions convert to every format and back', { skip: fixturesSkip }, async () => {})
} else {
  t.test('real sessions convert to every format and back', async (t) => {
    for (const file of fixtureFiles()) {
      t.test(file, async (t) => {
        const { messages } = JSON.parse(fs.readFileSync(path.join(CONVERSATIONS, file), 'utf8')) as { messages: unknown[] }
        const original = parseConversation(messages, {})
        t.equal(original.format, 'openai')
        t.same(findPairingProblems(original), [], 'source is paired')
        const same = serializeConversation(original.messages, 'openai').messages
        t.ok(same.every((m, i) => m === messages[i]), 'openai round trip reuses every message')
        for (const target of ['anthropic', 'ai-sdk', 'responses'] as const) {
          const out = serializeConversation(original.messages, target)
          if (target === 'anthropic') t.same(anthropicProblems(out.messages), [], 'valid anthropic shape')
          const converted = parseConversation(out.messages, { format: target, system: out.system })
          // Detection finds the target, or (no distinguishing signal) a format that reads it identically.
          const detected = parseConversation(out.messages, { system: out.system })
          if (detected.format !== target) t.same(detected.messages.map((m) => m.parts), converted.messages.map((m) => m.parts), `detected as ${detected.format}, same reading`)
          const back = parseConversation(serializeConversation(converted.messages, 'openai').messages, { format: 'openai' })
          for (const [label, conv] of [
            [target, converted],
            [`${target} -> openai`, back],
          ] as const) {
            t.same(findPairingProblems(conv), [], `${label}: paired`)
            t.same(callsOf(conv), callsOf(original), `${label}: calls`)
            t.same(resultsOf(conv), resultsOf(original), `${label}: results`)
            t.same(dialogueTexts(conv), dialogueTexts(original), `${label}: text`)
            t.same(systemTexts(conv), systemTexts(original), `${label}: system text`)
          }
        }
      })
    }
  })
}
