/**
 * fast-check generators of valid agent conversations in every supported format,
 * plus a pairing checker, for message and compaction property tests.
 *
 * A format-neutral `ConversationSpec` (system prompt, user task, turns of assistant
 * reasoning/text/parallel tool calls, tool results incl. huge outputs, follow-up user
 * messages) is generated once and rendered into each format, so the same conversation
 * can be compared across formats. Rendering sprinkles unknown fields (`x_meta`,
 * `providerOptions`, `cache_control`, timestamps) that adapters must preserve.
 *
 *   fc.assert(fc.property(openaiConversationArb(), (messages) => ...))
 *   fc.assert(fc.property(conversationInFormatArb(), ({ format, messages, system }) => ...))
 */
import fc from 'fast-check'
import type { CanonicalConversation, MessageFormat } from '../../src/engine/messages/canonical.ts'
import { FORMAT_NAMES } from '../../src/engine/messages/registry.ts'

export interface ToolCallSpec {
  id: string
  name: string
  input: Record<string, unknown>
  output: string
  isError: boolean
}

export interface TurnSpec {
  /** Signed thinking before the text and tool calls (Anthropic thinking, AI SDK reasoning). */
  thinking?: { text: string; signature: string }
  /** Redacted thinking data (Anthropic only; other formats skip it). */
  redactedThinking?: string
  text?: string
  /** Parallel tool calls of this assistant turn (may be empty). */
  calls: ToolCallSpec[]
  /** A user message after the results; always present when there are no calls. */
  followUp?: string
}

export interface ConversationSpec {
  system: string
  task: string
  turns: TurnSpec[]
  finalAnswer?: string
  /** Whether rendering adds unknown fields and alternative shapes. */
  extras: boolean
  /** Base of timestamps, when rendered with them. */
  startMs?: number
}

export interface Rendered {
  messages: unknown[]
  system?: unknown
}

// ---------------------------------------------------------------------------
// Text that looks like an agent session

const dirs = ['src', 'src/engine', 'src/routes', 'test', 'lib/utils', 'packages/core/src']
const files = ['index', 'server', 'db', 'parser', 'compact', 'config', 'auth_middleware']
const exts = ['ts', 'py', 'rs', 'go', 'json', 'md']
const words = ['token', 'budget', 'session', 'summary', 'window', 'checkpoint', 'schema', 'retry', 'cache', 'queue']

export const filePathArb: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom(...dirs), fc.constantFrom(...files), fc.constantFrom(...exts))
  .map(([d, f, e]) => `${d}/${f}.${e}`)

const wordArb = fc.constantFrom(...words)

export const commandArb: fc.Arbitrary<string> = fc.oneof(
  filePathArb.map((p) => `npm test -- ${p}`),
  filePathArb.map((p) => `git diff -- ${p}`),
  fc.tuple(wordArb, filePathArb).map(([w, p]) => `rg -n "${w}" ${p}`),
  fc.tuple(filePathArb, wordArb).map(([p, w]) => `pytest ${p}::test_${w} -x`),
  fc.constant('ls -la && cat package.json | head -20'),
)

export const errorLineArb: fc.Arbitrary<string> = fc.oneof(
  filePathArb.map((p) => `Error: ENOENT: no such file or directory, open '${p}'`),
  wordArb.map((w) => `TypeError: Cannot read properties of undefined (reading '${w}')`),
  fc.tuple(wordArb, filePathArb, fc.nat(900), fc.nat(80)).map(([w, p, l, c]) => `    at ${w}Handler (${p}:${l + 1}:${c + 1})`),
  fc.tuple(filePathArb, wordArb).map(([p, w]) => `FAILED ${p}::test_${w} - AssertionError: expected 3, got 4`),
)

const proseArb: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(wordArb, filePathArb).map(([w, p]) => `The ${w} logic lives in ${p}; I will check it next.`),
  fc.tuple(wordArb, wordArb).map(([a, b]) => `Keep the ${a} API stable and do not change the ${b} format.`),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }),
  fc.constant('日本語のテキストと emoji 🚀 and "quotes" \\ backslashes'),
)

/** One to four lines of prose, paths, commands and error lines. */
export const textArb: fc.Arbitrary<string> = fc
  .array(fc.oneof(proseArb, filePathArb, commandArb, errorLineArb), { minLength: 1, maxLength: 4 })
  .map((lines) => lines.join('\n'))

/** A tool output of tens to hundreds of kilobytes (a long log or file dump). */
export const hugeOutputArb: fc.Arbitrary<string> = fc
  .tuple(fc.oneof(errorLineArb, commandArb, filePathArb), fc.integer({ min: 800, max: 4000 }))
  .map(([line, n]) => {
    const lines: string[] = new Array(n)
    for (let k = 0; k < n; k++) lines[k] = `${k + 1}: ${line}`
    return lines.join('\n')
  })

const toolOutputArb: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: textArb, weight: 10 },
  { arbitrary: fc.constant(''), weight: 1 },
  { arbitrary: hugeOutputArb, weight: 1 },
)

const toolInputArb: fc.Arbitrary<{ name: string; input: Record<string, unknown> }> = fc.oneof(
  commandArb.map((command) => ({ name: 'bash', input: { command } })),
  filePathArb.map((path) => ({ name: 'read_file', input: { path } })),
  fc.tuple(filePathArb, textArb, textArb).map(([path, old_string, new_string]) => ({ name: 'edit_file', input: { path, old_string, new_string } })),
  fc.tuple(wordArb, filePathArb, fc.boolean()).map(([pattern, path, ci]) => ({ name: 'grep', input: { pattern, path, options: { ignoreCase: ci, context: [2, 2] } } })),
  fc.constant({ name: 'list_dir', input: {} }),
)

// ---------------------------------------------------------------------------
// The format-neutral conversation

const callArb = fc.record({ tool: toolInputArb, output: toolOutputArb, isError: fc.boolean() })

const turnArb = fc
  .record({
    thinking: fc.option(fc.record({ text: textArb, signature: fc.base64String({ minLength: 8, maxLength: 40 }) }), { nil: undefined }),
    redactedThinking: fc.option(fc.base64String({ minLength: 8, maxLength: 40 }), { nil: undefined }),
    text: fc.option(textArb, { nil: undefined }),
    calls: fc.array(callArb, { maxLength: 4 }),
    followUp: fc.option(textArb, { nil: undefined }),
  })
  .map((turn) => {
    // Keep every turn meaningful: no calls means the assistant speaks and the user answers.
    if (turn.calls.length === 0) return { ...turn, text: turn.text ?? 'Done with this step.', followUp: turn.followUp ?? 'Continue.' }
    return turn
  })

export function conversationSpecArb(opts: { maxTurns?: number } = {}): fc.Arbitrary<ConversationSpec> {
  return fc
    .record({
      system: textArb,
      task: textArb,
      turns: fc.array(turnArb, { maxLength: opts.maxTurns ?? 6 }),
      finalAnswer: fc.option(textArb, { nil: undefined }),
      extras: fc.boolean(),
      startMs: fc.integer({ min: 1.6e12, max: 1.9e12 }),
      idSeed: fc.nat(),
    })
    .map(({ idSeed, turns, ...rest }) => ({
      ...rest,
      // Ids are unique per conversation and valid in every format (Anthropic: [a-zA-Z0-9_-]).
      turns: turns.map((turn, t) => ({
        ...turn,
        calls: turn.calls.map((c, k) => ({
          id: `call_${idSeed.toString(36)}_${t}_${k}`,
          name: c.tool.name,
          input: c.tool.input,
          output: c.output,
          isError: c.isError,
        })),
      })),
    }))
}

// ---------------------------------------------------------------------------
// Rendering

/** Adds `x_meta` and a timestamp to some messages when the spec asks for extras. */
function decorate(spec: ConversationSpec, message: Record<string, unknown>, n: number): Record<string, unknown> {
  if (!spec.extras || n % 3 !== 0) return message
  return { ...message, timestamp: new Date((spec.startMs ?? 1.7e12) + n * 1000).toISOString(), x_meta: { seq: n, tags: ['a', 'b'] } }
}

export function toOpenAI(spec: ConversationSpec): unknown[] {
  const out: Record<string, unknown>[] = [
    { role: 'system', content: spec.system },
    { role: 'user', content: spec.extras ? [{ type: 'text', text: spec.task }] : spec.task },
  ]
  for (const turn of spec.turns) {
    const assistant: Record<string, unknown> = { role: 'assistant', content: turn.text ?? (turn.calls.length > 0 ? null : '') }
    if (turn.calls.length > 0) {
      assistant.tool_calls = turn.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.input) } }))
    }
    if (spec.extras && turn.thinking) assistant.reasoning_content = turn.thinking.text // DeepSeek-style extra field
    out.push(assistant)
    for (const c of turn.calls) out.push({ role: 'tool', tool_call_id: c.id, content: c.output, ...(spec.extras ? { name: c.name } : {}) })
    if (turn.followUp !== undefined) out.push({ role: 'user', content: turn.followUp })
  }
  if (spec.finalAnswer !== undefined) out.push({ role: 'assistant', content: spec.finalAnswer })
  return out.map((m, n) => decorate(spec, m, n))
}

export function toAnthropic(spec: ConversationSpec): Rendered {
  const system = spec.extras ? [{ type: 'text', text: spec.system, cache_control: { type: 'ephemeral' } }] : spec.system
  const out: Record<string, unknown>[] = [{ role: 'user', content: spec.task }]
  for (const turn of spec.turns) {
    const blocks: Record<string, unknown>[] = []
    if (turn.thinking) blocks.push({ type: 'thinking', thinking: turn.thinking.text, signature: turn.thinking.signature })
    if (turn.redactedThinking) blocks.push({ type: 'redacted_thinking', data: turn.redactedThinking })
    if (turn.text !== undefined) blocks.push({ type: 'text', text: turn.text, ...(spec.extras ? { citations: null } : {}) })
    for (const c of turn.calls) blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: c.input })
    if (blocks.length === 0) blocks.push({ type: 'text', text: '…' })
    out.push({ role: 'assistant', content: blocks })
    const user: Record<string, unknown>[] = turn.calls.map((c, k) => {
      const content = spec.extras && k % 2 === 1 ? [{ type: 'text', text: c.output }] : c.output
      return { type: 'tool_result', tool_use_id: c.id, content, ...(c.isError ? { is_error: true } : {}), ...(spec.extras ? { cache_control: { type: 'ephemeral' } } : {}) }
    })
    if (turn.followUp !== undefined) user.push({ type: 'text', text: turn.followUp })
    out.push({ role: 'user', content: user })
  }
  if (spec.finalAnswer !== undefined) out.push({ role: 'assistant', content: spec.finalAnswer })
  return { system, messages: out.map((m, n) => decorate(spec, m, n)) }
}

/** AI SDK v5 `ModelMessage`s, or v4 `CoreMessage` names (`args`, `result`) when `version` is 'v4'. */
export function toAiSdk(spec: ConversationSpec, version: 'v4' | 'v5' = 'v5'): unknown[] {
  const out: Record<string, unknown>[] = [
    { role: 'system', content: spec.system },
    { role: 'user', content: spec.extras ? [{ type: 'text', text: spec.task, providerOptions: { openai: { detail: 'low' } } }] : spec.task },
  ]
  for (const turn of spec.turns) {
    const parts: Record<string, unknown>[] = []
    if (turn.thinking) {
      parts.push(
        version === 'v4'
          ? { type: 'reasoning', text: turn.thinking.text, signature: turn.thinking.signature }
          : { type: 'reasoning', text: turn.thinking.text, providerOptions: { anthropic: { signature: turn.thinking.signature } } },
      )
    }
    if (turn.text !== undefined) parts.push({ type: 'text', text: turn.text })
    for (const c of turn.calls) {
      parts.push(version === 'v4' ? { type: 'tool-call', toolCallId: c.id, toolName: c.name, args: c.input } : { type: 'tool-call', toolCallId: c.id, toolName: c.name, input: c.input })
    }
    out.push({ role: 'assistant', content: parts, ...(spec.extras ? { providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } } : {}) })
    if (turn.calls.length > 0) {
      out.push({
        role: 'tool',
        content: turn.calls.map((c) =>
          version === 'v4'
            ? { type: 'tool-result', toolCallId: c.id, toolName: c.name, result: c.output, ...(c.isError ? { isError: true } : {}) }
            : { type: 'tool-result', toolCallId: c.id, toolName: c.name, output: { type: c.isError ? 'error-text' : 'text', value: c.output } },
        ),
      })
    }
    if (turn.followUp !== undefined) out.push({ role: 'user', content: turn.followUp })
  }
  if (spec.finalAnswer !== undefined) out.push({ role: 'assistant', content: spec.finalAnswer })
  return out.map((m, n) => decorate(spec, m, n))
}

/**
 * OpenAI Responses input items: reasoning items (the signature standing in for the
 * encrypted content, redacted thinking as encrypted content alone), message items,
 * function_call / function_call_output items. The API has no error flag on outputs.
 */
export function toResponses(spec: ConversationSpec): unknown[] {
  const text = (role: string, t: string) =>
    spec.extras ? { type: 'message', role, content: [role === 'assistant' ? { type: 'output_text', text: t, annotations: [] } : { type: 'input_text', text: t }] } : { role, content: t }
  const out: Record<string, unknown>[] = [
    { role: 'system', content: spec.system },
    text('user', spec.task),
  ]
  spec.turns.forEach((turn, n) => {
    if (turn.thinking) out.push({ type: 'reasoning', id: `rs_${n}`, summary: [{ type: 'summary_text', text: turn.thinking.text }], encrypted_content: turn.thinking.signature })
    if (turn.redactedThinking) out.push({ type: 'reasoning', id: `rs_${n}_r`, summary: [], encrypted_content: turn.redactedThinking })
    if (turn.text !== undefined || turn.calls.length === 0) out.push(text('assistant', turn.text ?? ''))
    for (const c of turn.calls) out.push({ type: 'function_call', call_id: c.id, name: c.name, arguments: JSON.stringify(c.input), ...(spec.extras ? { id: `fc_${c.id}`, status: 'completed' } : {}) })
    turn.calls.forEach((c, k) => {
      const output = spec.extras && k % 2 === 1 ? [{ type: 'input_text', text: c.output }] : c.output
      out.push({ type: 'function_call_output', call_id: c.id, output })
    })
    if (turn.followUp !== undefined) out.push({ role: 'user', content: turn.followUp })
  })
  if (spec.finalAnswer !== undefined) out.push({ role: 'assistant', content: spec.finalAnswer })
  return out.map((m, n) => decorate(spec, m, n))
}

export const openaiConversationArb = (opts?: { maxTurns?: number }): fc.Arbitrary<unknown[]> => conversationSpecArb(opts).map(toOpenAI)
export const anthropicConversationArb = (opts?: { maxTurns?: number }): fc.Arbitrary<Rendered> => conversationSpecArb(opts).map(toAnthropic)
export const aiSdkConversationArb = (opts?: { maxTurns?: number; version?: 'v4' | 'v5' }): fc.Arbitrary<unknown[]> =>
  fc.tuple(conversationSpecArb(opts), opts?.version ? fc.constant(opts.version) : fc.constantFrom<'v4' | 'v5'>('v4', 'v5')).map(([spec, v]) => toAiSdk(spec, v))

/** A conversation in a random format, with the spec it was rendered from. */
export function conversationInFormatArb(opts?: { maxTurns?: number }): fc.Arbitrary<{ format: MessageFormat; spec: ConversationSpec } & Rendered> {
  return fc.tuple(conversationSpecArb(opts), fc.constantFrom<MessageFormat>(...FORMAT_NAMES), fc.constantFrom<'v4' | 'v5'>('v4', 'v5')).map(([spec, format, v]): { format: MessageFormat; spec: ConversationSpec } & Rendered => {
    switch (format) {
      case 'anthropic':
        return { format, spec, ...toAnthropic(spec) }
      case 'openai':
        return { format, spec, messages: toOpenAI(spec) }
      case 'ai-sdk':
        return { format, spec, messages: toAiSdk(spec, v) }
      case 'responses':
        return { format, spec, messages: toResponses(spec) }
    }
  })
}

// ---------------------------------------------------------------------------
// Checks

/**
 * Problems with tool call/result pairing in a parsed conversation: a result with no
 * earlier unanswered call of that id, a call still unanswered when the next assistant
 * message starts, or at the end, or a result naming another tool than its call. Ids
 * may be reused once answered. Empty means paired.
 */
export function findPairingProblems(conversation: CanonicalConversation): string[] {
  const problems: string[] = []
  const pending = new Map<string, string>() // call id -> tool name
  conversation.messages.forEach((message, pos) => {
    if (message.role === 'assistant' && pending.size > 0) {
      problems.push(`message ${pos}: assistant turn starts while calls ${[...pending.keys()].join(', ')} have no result`)
      pending.clear()
    }
    for (const part of message.parts) if (part.type === 'tool-call') pending.set(part.id, part.name)
    for (const part of message.parts) {
      if (part.type !== 'tool-result') continue
      const name = pending.get(part.callId)
      if (name === undefined) problems.push(`message ${pos}: result for ${part.callId} has no pending call`)
      else if (part.name !== undefined && part.name !== name) problems.push(`message ${pos}: result for ${part.callId} names ${part.name}, the call ${name}`)
      pending.delete(part.callId)
    }
  })
  if (pending.size > 0) problems.push(`end: calls ${[...pending.keys()].join(', ')} have no result`)
  return problems
}
