/**
 * Gemini CLI sessions → AI SDK messages. Two layouts:
 *
 * - A Gemini API `Content[]` array (`/chat save` checkpoints, trajectory files):
 *   `{role: "user" | "model", parts}`. Text parts (`thought: true` → reasoning),
 *   `functionCall` → tool calls, `functionResponse` → tool results (paired by id, or by
 *   name when the log has no ids), inline data → images, code execution → text.
 * - A chat recording (`~/.gemini/tmp/<project>/chats/session-*.json`, `{sessionId,
 *   startTime, messages}`, or the same records one per line): records of type `user` and
 *   `gemini` (text, `thoughts`, `toolCalls` with their results, `tokens`); `info`,
 *   `error` and `warning` records are UI only and skipped.
 *
 * Compactions: Gemini CLI's compression leaves a user message starting `<state_snapshot>`
 * (the summary). preTokens: the last recorded `tokens` (chat recordings only).
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

export const GEMINI_RECORD_TYPES = new Set(['user', 'gemini', 'info', 'error', 'warning'])
const STATE_SNAPSHOT = '<state_snapshot>'

interface State {
  b: LogBuilder
  calls: CallTracker
  lastTokens?: number
}

/** A Content[] array (each element an entry with a `[i]` path). */
export function parseGeminiContents(entries: Iterable<LogEntry>): ParsedLog {
  const s: State = { b: new LogBuilder('ai-sdk'), calls: new CallTracker() }
  s.b.session.agent = 'gemini-cli'
  for (const entry of entries) {
    const c = entry.value
    if (!isRecord(c) || !Array.isArray(c.parts)) {
      s.b.broken(entry, 'expected a Content object {role, parts}')
      continue
    }
    if (c.role === 'model') modelParts(s, c.parts, entry)
    else if (c.role === 'user') userParts(s, c.parts, entry)
    else s.b.unknown(entry, `a Content with role ${JSON.stringify(c.role)}`)
  }
  return s.b.result()
}

/** Chat-recording records: a document's `messages` (paths), or one record per line. */
export function parseGeminiRecords(entries: Iterable<LogEntry>, meta?: JsonObject): ParsedLog {
  const s: State = { b: new LogBuilder('ai-sdk'), calls: new CallTracker() }
  const b = s.b
  b.session.agent = 'gemini-cli'
  if (meta) readMeta(b, meta)
  for (const entry of entries) {
    const r = entry.value
    if (!isRecord(r)) {
      b.broken(entry, `expected a JSON object, got ${JSON.stringify(r)?.slice(0, 40)}`)
      continue
    }
    if (r.type === undefined && typeof r.sessionId === 'string') {
      readMeta(b, r) // a JSONL recording's header line
      b.skipped++
      continue
    }
    switch (r.type) {
      case 'user': {
        const content = r.content
        if (typeof content === 'string') userParts(s, content === '' ? [] : [{ text: content }], entry)
        else if (Array.isArray(content)) userParts(s, content, entry)
        else if (isRecord(content)) userParts(s, [content], entry)
        else b.broken(entry, 'a user record without content')
        break
      }
      case 'gemini': {
        if (typeof r.model === 'string') b.session.model = r.model
        const t = isRecord(r.tokens) ? r.tokens : undefined
        const used = t ? (tokens(t.total) ?? sum(t.input, t.output)) : undefined
        if (used !== undefined) s.lastTokens = used
        const parts: JsonObject[] = []
        for (const thought of Array.isArray(r.thoughts) ? r.thoughts : []) {
          if (!isRecord(thought)) continue
          const text = [str(thought.subject), str(thought.description)].filter(Boolean).join(': ')
          if (text) parts.push(aiReasoning(text))
        }
        const content = r.content
        const contentParts = typeof content === 'string' ? (content === '' ? [] : [{ text: content }]) : Array.isArray(content) ? content : []
        const ids = new Set<string>()
        const results: JsonObject[] = []
        for (const p of contentParts) if (isRecord(p)) parts.push(...modelPart(s, p, ids))
        for (const call of Array.isArray(r.toolCalls) ? r.toolCalls : []) {
          if (!isRecord(call) || typeof call.name !== 'string') continue
          const id = s.calls.call(str(call.id) ?? `name:${call.name}`, call.name, ids, str(call.id))
          parts.push(aiToolCall(id, call.name, inputFromArgs(call.args)))
          const answer = s.calls.result(str(call.id) ?? `name:${call.name}`)
          if (call.result !== undefined && call.result !== null) {
            results.push(aiToolResult(answer?.id ?? id, call.name, resultText(call.result, call.resultDisplay), call.status === 'error'))
          } else if (typeof call.resultDisplay === 'string' && call.resultDisplay !== '') {
            results.push(aiToolResult(answer?.id ?? id, call.name, call.resultDisplay, call.status === 'error'))
          }
        }
        if (parts.length === 0) {
          b.skipped++
          break
        }
        b.push({ role: 'assistant', content: parts }, entry)
        if (results.length > 0) b.push({ role: 'tool', content: results }, entry)
        break
      }
      case 'info':
      case 'error':
      case 'warning':
        b.skipped++
        break
      default:
        if (typeof r.type !== 'string') b.broken(entry, 'a record without a type')
        else b.unknown(entry, `unknown record type ${typeLabel(r)}`)
    }
  }
  return b.result()
}

function readMeta(b: LogBuilder, meta: JsonObject): void {
  if (typeof meta.sessionId === 'string') b.session.id = meta.sessionId
  const started = isoTime(meta.startTime)
  if (started) b.session.startedAt = started
}

function userParts(s: State, parts: unknown[], entry: LogEntry): void {
  const results: JsonObject[] = []
  const content: JsonObject[] = []
  for (const p of parts) {
    if (typeof p === 'string') {
      if (p !== '') content.push(aiText(p))
      continue
    }
    if (!isRecord(p)) continue
    if (isRecord(p.functionResponse)) {
      const r = p.functionResponse
      const name = str(r.name) ?? 'unknown_tool'
      const key = str(r.id) ?? `name:${name}`
      const call = s.calls.result(key)
      const response = r.response
      const failed = isRecord(response) && response.error !== undefined && response.output === undefined
      results.push(aiToolResult(call?.id ?? str(r.id) ?? `orphan_${name}`, call?.name ?? name, resultText(response), failed))
    } else if (typeof p.text === 'string') {
      if (p.text !== '') content.push(aiText(p.text))
    } else if (isRecord(p.inlineData) && typeof p.inlineData.data === 'string') {
      content.push({ type: 'image', image: p.inlineData.data, ...(typeof p.inlineData.mimeType === 'string' ? { mediaType: p.inlineData.mimeType } : {}) })
    } else if (isRecord(p.fileData) && typeof p.fileData.fileUri === 'string') {
      content.push(aiText(`[file ${p.fileData.fileUri}]`))
    }
  }
  if (results.length > 0) appendParts(s.b, 'tool', results, entry, true)
  if (content.length === 0) return
  const at = s.b.push({ role: 'user', content }, entry)
  const text = content.map((c) => (typeof c.text === 'string' ? c.text : '')).join('\n')
  if (text.trimStart().startsWith(STATE_SNAPSHOT)) {
    s.b.compaction({ at, summaryAt: at, line: entry.line, ...(entry.path ? { path: entry.path } : {}), preTokens: s.lastTokens ?? null, summary: text.trim() })
  }
}

function modelParts(s: State, parts: unknown[], entry: LogEntry): void {
  const ids = new Set<string>()
  const content: JsonObject[] = []
  for (const p of parts) if (isRecord(p)) content.push(...modelPart(s, p, ids))
  if (content.length > 0) s.b.push({ role: 'assistant', content }, entry)
}

function modelPart(s: State, p: JsonObject, ids: Set<string>): JsonObject[] {
  if (typeof p.text === 'string') return p.text === '' ? [] : [p.thought === true ? aiReasoning(p.text) : aiText(p.text)]
  if (isRecord(p.functionCall)) {
    const name = str(p.functionCall.name) ?? 'unknown_tool'
    const given = str(p.functionCall.id)
    const id = s.calls.call(given ?? `name:${name}`, name, ids, given)
    return [aiToolCall(id, name, inputFromArgs(p.functionCall.args))]
  }
  if (isRecord(p.executableCode) && typeof p.executableCode.code === 'string') {
    return [aiText(`\`\`\`${String(p.executableCode.language ?? '').toLowerCase()}\n${p.executableCode.code}\n\`\`\``)]
  }
  if (isRecord(p.codeExecutionResult)) return [aiText(`[${String(p.codeExecutionResult.outcome ?? 'result')}]\n${textOf(p.codeExecutionResult.output)}`)]
  return []
}

/** A function response (or a recorded tool result) as text: its output, its error, or its JSON. */
function resultText(response: unknown, display?: unknown): string {
  if (Array.isArray(response)) {
    const texts = response.map((p) => (isRecord(p) && isRecord(p.functionResponse) ? resultText(p.functionResponse.response) : textOf([p]))).filter(Boolean)
    if (texts.length > 0) return texts.join('\n')
    return typeof display === 'string' ? display : ''
  }
  if (isRecord(response)) {
    if (isRecord(response.functionResponse)) return resultText(response.functionResponse.response)
    if (typeof response.output === 'string') return response.output
    if (typeof response.error === 'string') return response.error
    if (typeof response.text === 'string') return response.text
  }
  return textOf(response)
}
