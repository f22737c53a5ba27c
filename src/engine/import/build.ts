/**
 * What the source parsers write into: messages in the parser's native format (each with
 * the log line it came from), the compactions found, the lines skipped. Plus small
 * helpers every parser uses (AI SDK parts, tool-call pairing, numbers and text).
 */
import type { JsonObject } from '../messages/adapter.ts'
import { CONVERTED_ARGS_KEY, inputFromArgsText, isRecord } from '../messages/adapter.ts'
import type { MessageFormat } from '../messages/canonical.ts'
import type { ImportedCompaction, ImportIssue, ImportSession } from './types.ts'

/** One entry of the log: a JSONL line (`line`) or an element of a JSON document (`path`). */
export interface LogEntry {
  value: unknown
  line: number | null
  path?: string
}

export interface NativeMessage {
  raw: JsonObject
  line: number | null
  path?: string
}

/** A compaction while parsing: `at` is the index in the native messages where it takes effect. */
export interface PendingCompaction extends Omit<ImportedCompaction, 'position'> {
  at: number
  /** Index of the message holding the summary (equal to `at` when there is one). */
  summaryAt: number | null
}

export interface ParsedLog {
  format: MessageFormat
  messages: NativeMessage[]
  compactions: PendingCompaction[]
  issues: ImportIssue[]
  skipped: number
  session: ImportSession
}

export class LogBuilder {
  readonly messages: NativeMessage[] = []
  readonly compactions: PendingCompaction[] = []
  readonly issues: ImportIssue[] = []
  skipped = 0
  readonly session: ImportSession = {}

  constructor(readonly format: MessageFormat) {}

  push(raw: JsonObject, at: Pick<LogEntry, 'line' | 'path'>): number {
    this.messages.push(where(raw, at))
    return this.messages.length - 1
  }

  /** Inserts a message at `index`; compactions at or after it move one down. */
  insert(index: number, raw: JsonObject, at: Pick<LogEntry, 'line' | 'path'>): void {
    this.messages.splice(index, 0, where(raw, at))
    for (const c of this.compactions) {
      if (c.at >= index) c.at++
      if (c.summaryAt !== null && c.summaryAt >= index) c.summaryAt++
    }
  }

  last(): NativeMessage | undefined {
    return this.messages[this.messages.length - 1]
  }

  broken(entry: Pick<LogEntry, 'line' | 'path'>, message: string): void {
    this.issues.push({ line: entry.line, ...(entry.path ? { path: entry.path } : {}), kind: 'broken', message })
  }

  unknown(entry: Pick<LogEntry, 'line' | 'path'>, message: string): void {
    this.issues.push({ line: entry.line, ...(entry.path ? { path: entry.path } : {}), kind: 'unknown', message })
  }

  compaction(c: PendingCompaction): PendingCompaction {
    this.compactions.push(c)
    return c
  }

  result(): ParsedLog {
    return { format: this.format, messages: this.messages, compactions: this.compactions, issues: this.issues, skipped: this.skipped, session: this.session }
  }
}

function where(raw: JsonObject, at: Pick<LogEntry, 'line' | 'path'>): NativeMessage {
  return { raw, line: at.line, ...(at.path ? { path: at.path } : {}) }
}

/**
 * Pairs results with calls by the id the log gives, keeping the ids of one message
 * distinct (a repeated or missing id gets a suffix), so the adapters accept the
 * conversation and each result answers the call it was written for.
 */
export class CallTracker {
  private readonly pending = new Map<string, { id: string; name: string }[]>()
  private readonly names = new Map<string, string>()
  private generated = 0

  /** The id to write for a call known by `key` (its id in the log, or a name when the log has none). */
  call(key: string, name: string, usedInMessage: Set<string>, preferred?: string): string {
    let id = preferred && preferred.length > 0 ? preferred : `call_${++this.generated}`
    if (usedInMessage.has(id)) {
      let n = 2
      while (usedInMessage.has(`${id}~${n}`)) n++
      id = `${id}~${n}`
    }
    usedInMessage.add(id)
    const queue = this.pending.get(key)
    if (queue) queue.push({ id, name })
    else this.pending.set(key, [{ id, name }])
    this.names.set(id, name)
    return id
  }

  /** The call a result for `key` answers (the oldest unanswered one), or undefined. */
  result(key: string): { id: string; name: string } | undefined {
    const queue = this.pending.get(key)
    const call = queue?.shift()
    if (queue && queue.length === 0) this.pending.delete(key)
    return call
  }

  nameOf(id: string): string | undefined {
    return this.names.get(id)
  }
}

// ---------------------------------------------------------------------------
// AI SDK (v5 ModelMessage) parts: the native format of most sources

export function aiText(text: string): JsonObject {
  return { type: 'text', text }
}

export function aiReasoning(text: string): JsonObject {
  return { type: 'reasoning', text }
}

export function aiToolCall(id: string, name: string, input: unknown): JsonObject {
  return { type: 'tool-call', toolCallId: id, toolName: name, input: input ?? {} }
}

export function aiToolResult(id: string, name: string, text: string, isError = false): JsonObject {
  return { type: 'tool-result', toolCallId: id, toolName: name, output: { type: isError ? 'error-text' : 'text', value: text } }
}

/** Tool input from an arguments string: a JSON object as is, anything else wrapped (as the adapters convert). */
export function inputFromArgs(args: unknown): unknown {
  if (typeof args === 'string') return inputFromArgsText(args, CONVERTED_ARGS_KEY)
  if (isRecord(args)) return args
  return args === undefined || args === null ? {} : { [CONVERTED_ARGS_KEY]: JSON.stringify(args) }
}

/**
 * Appends parts to the last message when it has `role` and array content (and `canJoin`
 * says so), else pushes a new message.
 */
export function appendParts(b: LogBuilder, role: 'user' | 'assistant' | 'tool', parts: JsonObject[], at: Pick<LogEntry, 'line' | 'path'>, canJoin: boolean): void {
  if (parts.length === 0) return
  const last = b.last()
  if (canJoin && last && last.raw.role === role && Array.isArray(last.raw.content)) {
    ;(last.raw.content as JsonObject[]).push(...parts)
    return
  }
  b.push({ role, content: parts }, at)
}

// ---------------------------------------------------------------------------
// Small readers

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}

export function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined
}

/** A positive integer token count, or undefined. */
export function tokens(value: unknown): number | undefined {
  const n = num(value)
  return n !== undefined && n > 0 ? Math.round(n) : undefined
}

export function sum(...values: unknown[]): number | undefined {
  let total = 0
  let any = false
  for (const v of values) {
    const n = num(v)
    if (n !== undefined) {
      total += n
      any = true
    }
  }
  return any && total > 0 ? Math.round(total) : undefined
}

/** ISO timestamp of a value (string or epoch milliseconds), or undefined. */
export function isoTime(value: unknown): string | undefined {
  const ms = typeof value === 'string' ? Date.parse(value) : typeof value === 'number' ? value : NaN
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : undefined
}

/** Text of a value that should be text: a string, or the text items of a content array. */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value
  if (Array.isArray(value)) {
    const out: string[] = []
    for (const item of value) {
      if (typeof item === 'string') out.push(item)
      else if (isRecord(item) && typeof item.text === 'string') out.push(item.text)
    }
    return out.join('\n')
  }
  if (value === undefined || value === null) return ''
  return JSON.stringify(value) ?? ''
}

export function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}

/** `type` of an entry for messages: `"foo"`, or a description when it has none. */
export function typeLabel(entry: JsonObject): string {
  return typeof entry.type === 'string' ? JSON.stringify(entry.type.length > 60 ? `${entry.type.slice(0, 60)}…` : entry.type) : 'without a type'
}
