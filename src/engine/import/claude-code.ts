/**
 * Claude Code session JSONL (~/.claude/projects/<project>/<session id>.jsonl) → Anthropic
 * Messages, its native format: each `user` / `assistant` line carries an Anthropic
 * message (`message: {role, content}`), so content blocks (thinking with its signature,
 * tool_use, tool_result, images) pass through as they are.
 *
 * - Lines are read in file order. Claude Code writes one assistant response as several
 *   lines (one per content block, the same `message.id`); those are joined. Consecutive
 *   user lines holding only tool results (parallel calls) are joined too.
 * - `isSidechain` lines (a subagent's own conversation) are skipped.
 * - Compactions: a `system` line with subtype `compact_boundary` (`compactMetadata:
 *   {trigger, preTokens}`) followed by the continued-session summary, a user line with
 *   `isCompactSummary` ("This session is being continued from a previous conversation
 *   that ran out of context. …"). A summary without a boundary (older versions) is a
 *   compaction too; its preTokens come from the last assistant line's usage.
 * - Known lines without conversation (`summary` titles, `file-history-snapshot`,
 *   `queue-operation`, `progress`, other `system` subtypes, …) are skipped; other types
 *   are reported as unknown.
 */
import { isRecord, type JsonObject } from '../messages/adapter.ts'
import { detectEarlierSummary } from '../facts/earlier-summary.ts'
import { LogBuilder, isoTime, str, sum, textOf, tokens, typeLabel, type LogEntry, type ParsedLog, type PendingCompaction } from './build.ts'

/** Line types Claude Code writes that hold no conversation. */
export const CLAUDE_CODE_META_TYPES = new Set([
  'summary',
  'file-history-snapshot',
  'queue-operation',
  'progress',
  'attachment',
  'custom-title',
  'agent-name',
  'tag',
  'last-prompt',
  'pr-link',
  'x-compact',
])

export const CLAUDE_CODE_CONTINUED = 'This session is being continued from a previous conversation that ran out of context.'

export function parseClaudeCode(entries: Iterable<LogEntry>): ParsedLog {
  const b = new LogBuilder('anthropic')
  /** Usage of the last assistant line: the context size before a compaction without metadata. */
  let lastUsage: number | undefined
  /** The assistant message lines with this API message id are being joined into. */
  let joinId: string | undefined
  /** A boundary waiting for its summary message. */
  let pending: PendingCompaction | undefined

  for (const entry of entries) {
    const e = entry.value
    if (!isRecord(e)) {
      b.broken(entry, `expected a JSON object, got ${JSON.stringify(e)?.slice(0, 40)}`)
      continue
    }
    const type = e.type
    if (typeof e.sessionId === 'string') b.session.id = e.sessionId
    if (typeof e.cwd === 'string') b.session.cwd = e.cwd
    if (typeof e.version === 'string') b.session.agentVersion = e.version
    if (b.session.startedAt === undefined && isoTime(e.timestamp)) b.session.startedAt = isoTime(e.timestamp)

    if (type === 'user' || type === 'assistant') {
      if (e.isSidechain === true) {
        b.skipped++
        continue
      }
      const m = e.message
      if (!isRecord(m)) {
        b.broken(entry, `a ${type} line without a message object`)
        continue
      }
      const content: unknown = m.content
      if (typeof content !== 'string' && !Array.isArray(content)) {
        b.broken(entry, `message.content: expected a string or an array of content blocks`)
        continue
      }
      const blocks: unknown[] = typeof content === 'string' ? (content === '' ? [] : [{ type: 'text', text: content }]) : content
      /** The message's own content: a string stays a string. */
      const own = (): unknown => (typeof content === 'string' ? content : blocks.slice())
      if (blocks.some((x) => !isRecord(x) || typeof x.type !== 'string')) {
        b.broken(entry, 'message.content: every content block needs a type')
        continue
      }
      if (type === 'assistant') {
        const usage = isRecord(m.usage) ? m.usage : undefined
        const used = usage ? sum(usage.input_tokens, usage.cache_creation_input_tokens, usage.cache_read_input_tokens, usage.output_tokens) : undefined
        if (used !== undefined) lastUsage = used
        if (typeof m.model === 'string' && !m.model.startsWith('<')) b.session.model = m.model
        if (pending) pending = undefined // the boundary got no summary
        const id = str(m.id)
        const last = b.last()
        if (id !== undefined && id === joinId && last?.raw.role === 'assistant') {
          joinInto(last.raw, blocks)
          continue
        }
        joinId = id
        if (blocks.length === 0) {
          b.skipped++
          continue
        }
        b.push({ role: 'assistant', content: own() }, entry)
        continue
      }
      // user
      joinId = undefined
      const text = textOf(blocks.filter((x) => (x as JsonObject).type === 'text'))
      const earlier = text ? detectEarlierSummary(text) : undefined
      if (e.isCompactSummary === true || earlier?.source === 'claude-code') {
        const at = b.push({ role: 'user', content: own() }, entry)
        const summary = earlier?.text ?? text
        if (pending) {
          pending.at = at
          pending.summaryAt = at
          pending.summary = summary
          pending = undefined
        } else {
          b.compaction({ at, summaryAt: at, line: entry.line, preTokens: lastUsage ?? null, summary, ...(isoTime(e.timestamp) ? { timestamp: isoTime(e.timestamp)! } : {}) })
        }
        continue
      }
      if (blocks.length === 0) {
        b.skipped++
        continue
      }
      const onlyResults = blocks.every((x) => (x as JsonObject).type === 'tool_result')
      const last = b.last()
      if (onlyResults && last?.raw.role === 'user' && Array.isArray(last.raw.content) && (last.raw.content as JsonObject[]).every((x) => x.type === 'tool_result')) {
        joinInto(last.raw, blocks)
        continue
      }
      b.push({ role: 'user', content: own() }, entry)
      continue
    }

    if (type === 'system') {
      joinId = undefined
      if (e.subtype === 'compact_boundary') {
        const meta = isRecord(e.compactMetadata) ? e.compactMetadata : {}
        const trigger = meta.trigger === 'auto' || meta.trigger === 'automatic' ? 'auto' : meta.trigger === 'manual' ? 'manual' : undefined
        pending = b.compaction({
          at: b.messages.length,
          summaryAt: null,
          line: entry.line,
          ...(trigger ? { trigger } : {}),
          preTokens: tokens(meta.preTokens) ?? lastUsage ?? null,
          summary: null,
          ...(isoTime(e.timestamp) ? { timestamp: isoTime(e.timestamp)! } : {}),
        })
      } else b.skipped++
      continue
    }
    if (typeof type === 'string' && CLAUDE_CODE_META_TYPES.has(type)) {
      b.skipped++
      continue
    }
    if (typeof type !== 'string') b.broken(entry, 'a line without a type')
    else b.unknown(entry, `unknown line type ${typeLabel(e)}`)
  }
  return b.result()
}

/** Appends content blocks to a message (its string content becoming a text block). */
function joinInto(raw: JsonObject, blocks: unknown[]): void {
  if (typeof raw.content === 'string') raw.content = raw.content === '' ? [] : [{ type: 'text', text: raw.content }]
  ;(raw.content as unknown[]).push(...blocks)
}
