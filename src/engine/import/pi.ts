/**
 * pi coding-agent session JSONL (version 3: a header line, then entries with `id` /
 * `parentId`) → AI SDK messages, in file order.
 *
 * - `message` entries: user (text, images), assistant (text, thinking → reasoning,
 *   toolCall → tool calls; `usage` gives the context size), toolResult (→ tool
 *   messages), bashExecution (the user's `!` commands, as pi shows them to the model:
 *   "Ran `cmd`" and the output), custom messages.
 * - `custom_message` entries (extension messages) → user messages, unless hidden
 *   (`display: false`: volatile context an extension regenerates each turn, skipped);
 *   `branch_summary` → a user message in pi's branch-summary wrapper.
 * - `compaction` entries: the summary, `tokensBefore` and `firstKeptEntryId`. pi's model
 *   sees the summary, in its wrapper ("The conversation history before this point was
 *   compacted into the following summary: <summary>…</summary>"), before the first kept
 *   entry; the summary message is inserted there, so everything before it is what pi
 *   compacted.
 * - `session`, `model_change`, `thinking_level_change`, `custom`, `label` and
 *   `session_info` hold no conversation and are skipped.
 */
import { isRecord, type JsonObject } from '../messages/adapter.ts'
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

export const PI_ENTRY_TYPES = new Set(['session', 'message', 'compaction', 'branch_summary', 'custom_message', 'model_change', 'thinking_level_change', 'custom', 'label', 'session_info'])

export const PI_COMPACTION_PREFIX = 'The conversation history before this point was compacted into the following summary:\n\n<summary>\n'
export const PI_BRANCH_PREFIX = 'The following is a summary of a branch that this conversation came back from:\n\n<summary>\n'
const PI_SUMMARY_SUFFIX = '\n</summary>'

export function parsePi(entries: Iterable<LogEntry>): ParsedLog {
  const b = new LogBuilder('ai-sdk')
  b.session.agent = 'pi'
  const calls = new CallTracker()
  /** Entry id → index the next message got when the entry was read (where a kept range starts). */
  const startOf = new Map<string, number>()
  let lastTokens: number | undefined

  const user = (content: JsonObject[], entry: LogEntry) => {
    if (content.length > 0) b.push({ role: 'user', content }, entry)
  }

  for (const entry of entries) {
    const e = entry.value
    if (!isRecord(e)) {
      b.broken(entry, `expected a JSON object, got ${JSON.stringify(e)?.slice(0, 40)}`)
      continue
    }
    if (typeof e.id === 'string' && !startOf.has(e.id)) startOf.set(e.id, b.messages.length)
    const time = isoTime(e.timestamp)
    switch (e.type) {
      case 'session':
        if (typeof e.id === 'string') b.session.id = e.id
        if (typeof e.cwd === 'string') b.session.cwd = e.cwd
        if (time) b.session.startedAt = time
        if (e.version !== undefined) b.session.agentVersion = `session v${String(e.version)}`
        b.skipped++
        break
      case 'model_change':
        if (typeof e.modelId === 'string' || typeof e.model === 'string') b.session.model = (str(e.modelId) ?? str(e.model))!
        b.skipped++
        break
      case 'thinking_level_change':
      case 'custom':
      case 'label':
      case 'session_info':
        b.skipped++
        break
      case 'custom_message': {
        // Hidden ones (display false) are an extension's volatile context, regenerated
        // every turn (workspace trees, reminders): not the conversation.
        const text = e.display === false ? '' : textOf(e.content)
        if (text) user([aiText(text)], entry)
        else b.skipped++
        break
      }
      case 'branch_summary':
        if (typeof e.summary === 'string' && e.summary.trim()) user([aiText(`${PI_BRANCH_PREFIX}${e.summary}${PI_SUMMARY_SUFFIX}`)], entry)
        else b.broken(entry, 'a branch_summary without a summary')
        break
      case 'compaction': {
        if (typeof e.summary !== 'string') {
          b.broken(entry, 'a compaction entry without a summary')
          break
        }
        const kept = typeof e.firstKeptEntryId === 'string' ? startOf.get(e.firstKeptEntryId) : undefined
        const at = kept ?? b.messages.length
        b.insert(at, { role: 'user', content: [aiText(`${PI_COMPACTION_PREFIX}${e.summary}${PI_SUMMARY_SUFFIX}`)] }, entry)
        b.compaction({ at, summaryAt: at, line: entry.line, preTokens: tokens(e.tokensBefore) ?? lastTokens ?? null, summary: e.summary.trim(), ...(time ? { timestamp: time } : {}) })
        // Entries seen before the insert point now start one message later.
        for (const [id, index] of startOf) if (index >= at) startOf.set(id, index + 1)
        break
      }
      case 'message': {
        const m = e.message
        if (!isRecord(m)) {
          b.broken(entry, 'a message entry without a message object')
          break
        }
        message(m, entry)
        break
      }
      default:
        if (typeof e.type !== 'string') b.broken(entry, 'an entry without a type')
        else b.unknown(entry, `unknown entry type ${typeLabel(e)}`)
    }
  }
  return b.result()

  function message(m: JsonObject, entry: LogEntry): void {
    switch (m.role) {
      case 'user': {
        const content = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content
        if (!Array.isArray(content)) return b.broken(entry, 'message.content: expected a string or an array')
        return user(content.filter(isRecord).flatMap(userPart), entry)
      }
      case 'assistant': {
        if (!Array.isArray(m.content)) return b.broken(entry, 'message.content: expected an array')
        if (typeof m.model === 'string') b.session.model = m.model
        const usage = isRecord(m.usage) ? m.usage : undefined
        const used = usage ? (tokens(usage.totalTokens) ?? sum(usage.input, usage.output, usage.cacheRead, usage.cacheWrite)) : undefined
        if (used !== undefined) lastTokens = used
        const ids = new Set<string>()
        const parts: JsonObject[] = []
        for (const c of m.content) {
          if (!isRecord(c)) continue
          if (c.type === 'text' && typeof c.text === 'string') {
            if (c.text !== '') parts.push(aiText(c.text))
          } else if (c.type === 'thinking' && typeof c.thinking === 'string') {
            if (c.thinking !== '') parts.push(aiReasoning(c.thinking))
          } else if (c.type === 'toolCall' && typeof c.name === 'string') {
            const given = str(c.id)
            parts.push(aiToolCall(calls.call(given ?? `name:${c.name}`, c.name, ids, given), c.name, inputFromArgs(c.arguments)))
          }
        }
        if (parts.length === 0) {
          b.skipped++ // an aborted or empty response
          return
        }
        b.push({ role: 'assistant', content: parts }, entry)
        return
      }
      case 'toolResult': {
        const name = str(m.toolName) ?? 'unknown_tool'
        const given = str(m.toolCallId)
        const call = calls.result(given ?? `name:${name}`)
        const text = textOf(Array.isArray(m.content) ? m.content.filter((c) => isRecord(c) && c.type === 'text') : m.content)
        const images = Array.isArray(m.content) ? m.content.filter((c) => isRecord(c) && c.type === 'image').length : 0
        const full = images > 0 ? `${text}${text ? '\n' : ''}[${images} image${images > 1 ? 's' : ''}]` : text
        appendParts(b, 'tool', [aiToolResult(call?.id ?? given ?? `orphan_${name}`, call?.name ?? name, full, m.isError === true)], entry, true)
        return
      }
      case 'bashExecution': {
        if (typeof m.command !== 'string') return b.broken(entry, 'a bashExecution message without a command')
        let text = `Ran \`${m.command}\`\n`
        const output = str(m.output) ?? ''
        text += output ? `\`\`\`\n${output}\n\`\`\`` : '(no output)'
        if (m.cancelled === true) text += '\n\n(command cancelled)'
        else if (typeof m.exitCode === 'number' && m.exitCode !== 0) text += `\n\nCommand exited with code ${m.exitCode}`
        return user([aiText(text)], entry)
      }
      case 'custom': {
        const text = textOf(m.content)
        return text ? user([aiText(text)], entry) : void b.skipped++
      }
      case 'branchSummary':
        if (typeof m.summary !== 'string') return b.broken(entry, 'a branchSummary message without a summary')
        return user([aiText(`${PI_BRANCH_PREFIX}${m.summary}${PI_SUMMARY_SUFFIX}`)], entry)
      case 'compactionSummary': {
        if (typeof m.summary !== 'string') return b.broken(entry, 'a compactionSummary message without a summary')
        const at = b.push({ role: 'user', content: [aiText(`${PI_COMPACTION_PREFIX}${m.summary}${PI_SUMMARY_SUFFIX}`)] }, entry)
        b.compaction({ at, summaryAt: at, line: entry.line, preTokens: tokens(m.tokensBefore) ?? lastTokens ?? null, summary: m.summary.trim() })
        return
      }
      default:
        return b.unknown(entry, `a message with unknown role ${JSON.stringify(m.role)}`)
    }
  }
}

function userPart(c: JsonObject): JsonObject[] {
  if (c.type === 'text' && typeof c.text === 'string') return c.text === '' ? [] : [aiText(c.text)]
  if (c.type === 'image' && typeof c.data === 'string') return [{ type: 'image', image: c.data, ...(typeof c.mimeType === 'string' ? { mediaType: c.mimeType } : {}) }]
  return []
}
