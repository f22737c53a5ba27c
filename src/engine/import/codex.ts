/**
 * Codex CLI rollout JSONL (~/.codex/sessions/…/rollout-*.jsonl) → AI SDK messages, or,
 * when the Responses format is asked for, the rollout's own Responses items.
 *
 * Lines are `{timestamp, type, payload}`: `session_meta` (its base instructions become
 * the system message), `response_item` (Responses API items: messages, reasoning,
 * function / custom / local-shell calls and their outputs), `event_msg` (UI events;
 * `token_count` gives the context size), `turn_context` (the model) and `compacted`.
 * Older rollouts (before the `payload` envelope) hold bare items; those are read too.
 *
 * - Developer and system messages become system messages; reasoning summaries become
 *   reasoning parts of the assistant message that follows; calls join the assistant
 *   message before them, and consecutive outputs form one tool message.
 * - A `compacted` line is a compaction: its `message` is the summary (or, when empty, the
 *   summary message inside `replacement_history`), inserted as the user message Codex
 *   puts in the model's context (the handoff prefix, then the summary). preTokens: the
 *   last `token_count` before it (`last_token_usage.total_tokens`).
 * - In the Responses format (`wanted` "responses"), the items are kept as Codex wrote
 *   them (reasoning with its encrypted content too); the base instructions and summaries
 *   become message items written by that format's adapter.
 */
import { isRecord, type JsonObject } from '../messages/adapter.ts'
import { getAdapter, type MessageFormat } from '../messages/index.ts'
import {
  CallTracker,
  LogBuilder,
  aiReasoning,
  aiText,
  aiToolCall,
  aiToolResult,
  appendParts,
  inputFromArgs,
  isoTime,
  str,
  sum,
  textOf,
  tokens,
  typeLabel,
  type LogEntry,
  type ParsedLog,
} from './build.ts'

/** How Codex introduces a compaction summary in the model's context (codex-rs templates/compact/summary_prefix.md). */
export const CODEX_SUMMARY_PREFIX =
  'Another language model started to solve this problem and produced a summary of its thinking process. You also have access to the state of the tools that were used by that language model. Use this to build on the work that has already been done and avoid duplicating work. Here is the summary produced by the other language model, use the information in this summary to assist with your own analysis:'

const PREFIX_START = 'Another language model started to solve this problem'

export const CODEX_ENVELOPE_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted'])
/** Response items, as written bare by older rollouts. */
export const CODEX_ITEM_TYPES = new Set([
  'message',
  'reasoning',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'local_shell_call',
  'web_search_call',
  'ghost_snapshot',
  'compaction',
  'compaction_summary',
  'image_generation_call',
  'tool_search_call',
  'tool_search_output',
  'other',
])

/** Items that carry nothing a conversation can hold (encrypted state, snapshots, searches without output). */
const SKIPPED_ITEMS = new Set(['ghost_snapshot', 'compaction', 'compaction_summary', 'web_search_call', 'image_generation_call', 'tool_search_call', 'tool_search_output', 'other'])

/** Items kept in the Responses format: a conversation's turns (hosted tools' items are skipped as in the AI SDK form). */
const RESPONSES_ITEMS = new Set(['message', 'reasoning', 'function_call', 'function_call_output', 'custom_tool_call', 'custom_tool_call_output', 'local_shell_call', 'local_shell_call_output'])

/** `wanted`: the format the import writes; "responses" is read natively, any other through the AI SDK. */
export function parseCodex(entries: Iterable<LogEntry>, wanted?: MessageFormat): ParsedLog {
  const native = wanted === 'responses' ? 'responses' : 'ai-sdk'
  const b = new LogBuilder(native)
  /** A text message in the native format, e.g. the base instructions. */
  const textMessage = (role: 'system' | 'user', text: string): JsonObject =>
    native === 'responses' ? (getAdapter('responses').createTextMessage(role, text).raw as JsonObject) : { role, content: role === 'user' ? [aiText(text)] : text }
  const calls = new CallTracker()
  let lastTokens: number | undefined
  /** Whether the last message is an assistant message that calls and reasoning may still join. */
  let assistantOpen = false
  let ids = new Set<string>()

  const assistant = (parts: JsonObject[], entry: LogEntry) => {
    if (parts.length === 0) return
    if (!assistantOpen) ids = new Set()
    appendParts(b, 'assistant', parts, entry, assistantOpen)
    assistantOpen = true
  }

  const item = (p: JsonObject, entry: LogEntry): void => {
    if (native === 'responses') {
      if (typeof p.type === 'string' && RESPONSES_ITEMS.has(p.type)) b.push(p, entry)
      else if (typeof p.type === 'string' && SKIPPED_ITEMS.has(p.type)) b.skipped++
      else b.unknown(entry, `unknown response item type ${typeLabel(p)}`)
      return
    }
    switch (p.type) {
      case 'message': {
        const role = p.role
        const content = Array.isArray(p.content) ? p.content : typeof p.content === 'string' ? [{ type: 'input_text', text: p.content }] : undefined
        if (!content) return b.broken(entry, 'a message item without content')
        if (role === 'assistant') {
          const parts = content.filter(isRecord).flatMap((c): JsonObject[] => (typeof c.text === 'string' && c.text !== '' ? [aiText(c.text)] : typeof c.refusal === 'string' ? [aiText(c.refusal)] : []))
          return assistant(parts, entry)
        }
        assistantOpen = false
        if (role === 'developer' || role === 'system') {
          const text = textOf(content)
          if (text) b.push({ role: 'system', content: text }, entry)
          return
        }
        if (role !== 'user') return b.unknown(entry, `a message item with role ${JSON.stringify(role)}`)
        const parts: JsonObject[] = []
        for (const c of content) {
          if (!isRecord(c)) continue
          if (typeof c.text === 'string') {
            if (c.text !== '') parts.push(aiText(c.text))
          } else if (c.type === 'input_image' && typeof c.image_url === 'string') parts.push({ type: 'image', image: c.image_url })
          else if (typeof c.type === 'string') parts.push(aiText(`[${c.type}]`))
        }
        if (parts.length > 0) b.push({ role: 'user', content: parts }, entry)
        return
      }
      case 'reasoning': {
        const texts = [...(Array.isArray(p.summary) ? p.summary : []), ...(Array.isArray(p.content) ? p.content : [])]
          .map((s) => (isRecord(s) && typeof s.text === 'string' ? s.text : ''))
          .filter(Boolean)
        if (texts.length === 0) {
          b.skipped++ // encrypted only
          return
        }
        return assistant([aiReasoning(texts.join('\n\n'))], entry)
      }
      case 'function_call':
      case 'custom_tool_call':
      case 'local_shell_call': {
        const key = str(p.call_id) ?? str(p.id)
        const name = p.type === 'local_shell_call' ? 'local_shell' : str(p.name)
        if (!name) return b.broken(entry, `a ${p.type} item without a name`)
        if (!assistantOpen) ids = new Set()
        const id = calls.call(key ?? `${name}#`, name, ids, key)
        const input = p.type === 'function_call' ? inputFromArgs(p.arguments) : p.type === 'custom_tool_call' ? { input: p.input ?? '' } : (p.action ?? {})
        return assistant([aiToolCall(id, name, input)], entry)
      }
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const key = str(p.call_id)
        if (!key) return b.broken(entry, `a ${p.type} item without a call_id`)
        const call = calls.result(key)
        const output = p.output
        const text = isRecord(output) && 'content' in output ? textOf(output.content) : textOf(output)
        const failed = isRecord(output) && output.success === false
        assistantOpen = false
        appendParts(b, 'tool', [aiToolResult(call?.id ?? key, call?.name ?? 'unknown_tool', text, failed)], entry, true)
        return
      }
      default:
        if (typeof p.type === 'string' && SKIPPED_ITEMS.has(p.type)) {
          b.skipped++
          return
        }
        return b.unknown(entry, `unknown response item type ${typeLabel(p)}`)
    }
  }

  for (const entry of entries) {
    const e = entry.value
    if (!isRecord(e)) {
      b.broken(entry, `expected a JSON object, got ${JSON.stringify(e)?.slice(0, 40)}`)
      continue
    }
    const time = isoTime(e.timestamp)
    if (b.session.startedAt === undefined && time) b.session.startedAt = time
    const type = e.type
    if (typeof type === 'string' && CODEX_ENVELOPE_TYPES.has(type)) {
      const p = e.payload
      if (!isRecord(p)) {
        b.broken(entry, `a ${type} line without a payload object`)
        continue
      }
      switch (type) {
        case 'session_meta': {
          if (typeof p.id === 'string') b.session.id = p.id
          if (typeof p.cwd === 'string') b.session.cwd = p.cwd
          if (typeof p.cli_version === 'string') b.session.agentVersion = p.cli_version
          const base = isRecord(p.base_instructions) ? str(p.base_instructions.text) : str(p.base_instructions)
          if (base) {
            assistantOpen = false
            b.push(textMessage('system', base), entry)
          } else b.skipped++
          break
        }
        case 'turn_context':
          if (typeof p.model === 'string') b.session.model = p.model
          b.skipped++
          break
        case 'event_msg':
          if (p.type === 'token_count' && isRecord(p.info)) {
            const last = isRecord(p.info.last_token_usage) ? p.info.last_token_usage : undefined
            const used = last ? (tokens(last.total_tokens) ?? sum(last.input_tokens, last.output_tokens)) : undefined
            if (used !== undefined) lastTokens = used
          }
          b.skipped++
          break
        case 'compacted': {
          assistantOpen = false
          const summary = str(p.message)?.trim() || summaryIn(p.replacement_history)
          const at = b.messages.length
          if (summary) {
            const text = summary.startsWith(PREFIX_START) || summary.includes(`\n${PREFIX_START}`) ? summary : `${CODEX_SUMMARY_PREFIX}\n${summary}`
            b.push(textMessage('user', text), entry)
          }
          b.compaction({
            at,
            summaryAt: summary ? at : null,
            line: entry.line,
            preTokens: lastTokens ?? null,
            summary: summary ? withoutPrefix(summary) : null,
            ...(time ? { timestamp: time } : {}),
          })
          break
        }
        default:
          item(p, entry)
      }
      continue
    }
    // Older rollouts: a header line {id, timestamp, instructions}, bare items, state records.
    if (typeof type === 'string' && CODEX_ITEM_TYPES.has(type)) {
      item(e, entry)
      continue
    }
    if (e.record_type === 'state' || (type === undefined && typeof e.id === 'string' && 'timestamp' in e)) {
      if (typeof e.id === 'string') b.session.id = e.id
      b.skipped++
      continue
    }
    if (typeof type !== 'string') b.broken(entry, 'a line without a type')
    else b.unknown(entry, `unknown line type ${typeLabel(e)}`)
  }
  return b.result()
}

/** The handoff summary message inside a compaction's replacement history, if any. */
function summaryIn(history: unknown): string | undefined {
  if (!Array.isArray(history)) return undefined
  for (let i = history.length - 1; i >= 0; i--) {
    const item = history[i]
    if (!isRecord(item) || item.type !== 'message' || item.role !== 'user') continue
    const text = textOf(item.content)
    if (text.includes(PREFIX_START)) return text.trim()
  }
  return undefined
}

/** The summary without Codex's handoff prefix (and the history bridge before it). */
function withoutPrefix(text: string): string {
  const i = text.indexOf(PREFIX_START)
  if (i < 0) return text
  const rest = text.slice(i)
  const nl = rest.indexOf('\n')
  return (nl < 0 ? '' : rest.slice(nl + 1)).trim() || text
}
