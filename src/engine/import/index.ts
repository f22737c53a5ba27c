/**
 * Agent-log import (seed 003): an agent's own session log in, the conversation in any
 * message format out, with the compactions the agent did and the lines it skipped.
 * Pure: the caller reads the file; nothing here does I/O.
 *
 *   read        a JSON document, or JSON Lines (a broken line is an issue, never fatal)
 *   detect      the source, unless given (detect.ts)
 *   parse       the source's parser → messages in its native format (Anthropic for
 *               Claude Code, AI SDK for the others), compactions at their positions
 *   scope       `current`: leading system messages + everything from the last compaction on
 *   validate    through the native adapter; a message it refuses is an issue, dropped
 *   repair      tool calls and results paired (conversation/pairing.ts), each fix reported
 *   write       in the requested format through the adapters; positions mapped to it
 */
import type { MessageFormat } from '../messages/canonical.ts'
import type { CanonicalMessage } from '../messages/canonical.ts'
import { FORMAT_NAMES_TEXT, getAdapter, isMessageFormat } from '../messages/index.ts'
import { MessageFormatError } from '../messages/errors.ts'
import { duplicateCallIdIn, MISSING_RESULT_TEXT, repairPairing } from '../conversation/pairing.ts'
import { isRecord, type JsonObject } from '../messages/adapter.ts'
import { findTooDeep, isTooDeep, MAX_JSON_DEPTH } from '../json-depth.ts'
import type { LogEntry, NativeMessage, ParsedLog } from './build.ts'
import { describe } from './build.ts'
import { parseClaudeCode } from './claude-code.ts'
import { parseCodex } from './codex.ts'
import { detectEntrySource, documentLayout, sourceOfLayout, type DocumentLayout } from './detect.ts'
import { parseGeminiContents, parseGeminiRecords } from './gemini.ts'
import { parsePi } from './pi.ts'
import { parseSweAgent } from './swe-agent.ts'
import { IMPORT_SOURCES, ImportError, MAX_LISTED_ISSUES, type ImportedCompaction, type ImportIssue, type ImportOptions, type ImportResult, type ImportScope, type ImportSource } from './types.ts'

export * from './types.ts'
export { detectEntrySource, documentLayout } from './detect.ts'

/**
 * Entries nested deeper than this are broken: the adapters walk tool inputs recursively
 * (and JSON.stringify them). The HTTP body's limit (MAX_JSON_DEPTH): a line counts as
 * level 1, and a JSON string inside it (a tool call's `arguments`, which the parsers
 * parse) as level 1 of its own.
 */
export const MAX_ENTRY_DEPTH = MAX_JSON_DEPTH

const SOURCES_TEXT = 'Claude Code session JSONL, Codex CLI rollout JSONL, Gemini CLI session JSON, pi session JSONL, or a SWE-agent / mini-swe-agent trajectory'

/**
 * Imports one log. `log` is the file's text, or (from a JSON API) an already parsed JSON
 * document or array of entries. Throws ImportError for input that is not a log at all.
 */
export function importLog(log: unknown, options: ImportOptions = {}): ImportResult {
  const format = options.format ?? 'openai'
  const scope: ImportScope = options.scope ?? 'all'
  if (!isMessageFormat(format)) throw new ImportError('format', `format: expected ${FORMAT_NAMES_TEXT}, got ${JSON.stringify(format)}`)
  if (scope !== 'all' && scope !== 'current') throw new ImportError('scope', `scope: expected "all" or "current", got ${JSON.stringify(scope)}`)
  if (options.source !== undefined && !IMPORT_SOURCES.includes(options.source)) {
    throw new ImportError('source', `source: expected one of ${IMPORT_SOURCES.map((s) => `"${s}"`).join(', ')}, got ${JSON.stringify(options.source)}`)
  }

  let doc: unknown
  let text: string | undefined
  if (typeof log === 'string') {
    text = log.charCodeAt(0) === 0xfeff ? log.slice(1) : log
    if (text.trim() === '') throw new ImportError('log', 'log: the log is empty')
    const first = text.trimStart()[0]
    if (first === '{' || first === '[') {
      try {
        doc = JSON.parse(text)
      } catch {
        doc = undefined // JSON Lines, or broken: read line by line
      }
    }
  } else if (isRecord(log) || Array.isArray(log)) doc = log
  else throw new ImportError('log', `log: expected the log's text (a string), got ${describe(log)}`)

  if (doc !== undefined) {
    const layout = documentLayout(doc)
    if (layout) return fromDocument(doc, layout, options, format, scope)
    // A JSONL log of one line parses as a document; an API caller may send the entries as an array.
    const values: unknown[] | undefined = Array.isArray(doc) ? doc : isRecord(doc) && (text === undefined || !text.trim().includes('\n')) ? [doc] : undefined
    if (!values) {
      throw new ImportError('log', `log: a JSON document this importer does not know; expected ${SOURCES_TEXT}${options.source ? '' : ' (or give source)'}`)
    }
    const entries: LogEntry[] = []
    const readIssues: ImportIssue[] = []
    for (let i = 0; i < values.length; i++) {
      const deep = depthProblem(values[i], MAX_ENTRY_DEPTH)
      if (deep) readIssues.push({ line: i + 1, kind: 'broken', message: deep })
      else entries.push({ value: values[i], line: i + 1 })
    }
    if (entries.length === 0) throw new ImportError('log', `log: no entry of the log can be read (line ${readIssues[0]!.line}: ${readIssues[0]!.message})`)
    return fromEntries(entries, readIssues, values.length, options, format, scope)
  }

  // JSON Lines.
  const lines = text!.split('\n')
  const entries: LogEntry[] = []
  const readIssues: ImportIssue[] = []
  const total = lines.length
  for (let i = 0; i < total; i++) {
    const line = lines[i]!
    if (options.onProgress && i % 1000 === 0) options.onProgress(i, total)
    if (line.trim() === '') continue
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch (err) {
      readIssues.push({ line: i + 1, kind: 'broken', message: `not valid JSON: ${(err as Error).message}` })
      continue
    }
    const deep = depthProblem(value, MAX_ENTRY_DEPTH)
    if (deep) {
      readIssues.push({ line: i + 1, kind: 'broken', message: deep })
      continue
    }
    entries.push({ value, line: i + 1 })
  }
  options.onProgress?.(total, total)
  if (entries.length === 0) {
    const first = readIssues[0]
    throw new ImportError('log', `log: no line is valid JSON${first ? ` (line ${first.line}: ${first.message})` : ''}; expected ${SOURCES_TEXT}`)
  }
  const lineCount = text!.endsWith('\n') ? total - 1 : total
  return fromEntries(entries, readIssues, lineCount, options, format, scope)
}

function fromDocument(doc: unknown, layout: DocumentLayout, options: ImportOptions, format: MessageFormat, scope: ImportScope): ImportResult {
  const source = sourceOfLayout(layout)
  if (options.source !== undefined && options.source !== source) {
    throw new ImportError('source', `source: the log is not a ${options.source} log; it looks like ${source}`)
  }
  // Entries sit at level 2 or 3 of a document: they keep MAX_ENTRY_DEPTH levels of their own.
  const deep = depthProblem(doc, MAX_ENTRY_DEPTH + 2, MAX_ENTRY_DEPTH)
  if (deep) throw new ImportError('log', `log: ${deep}`)
  let parsed: ParsedLog
  let entries: number
  if (layout === 'swe-agent') {
    parsed = parseSweAgent(doc as JsonObject)
    const d = doc as JsonObject
    entries = (Array.isArray(d.history) ? d.history : Array.isArray(d.messages) ? d.messages : Array.isArray(d.trajectory) ? d.trajectory : []).length
  } else if (layout === 'gemini-contents') {
    const list = doc as unknown[]
    parsed = parseGeminiContents(list.map((value, i) => ({ value, line: null, path: `[${i}]` })))
    entries = list.length
  } else {
    const d = doc as JsonObject
    const list = d.messages as unknown[]
    parsed = parseGeminiRecords(
      list.map((value, i) => ({ value, line: null, path: `messages[${i}]` })),
      d,
    )
    entries = list.length
  }
  return finish(parsed, source, options.source === undefined, [], { entries }, format, scope)
}

function fromEntries(entries: LogEntry[], readIssues: ImportIssue[], lines: number, options: ImportOptions, format: MessageFormat, scope: ImportScope): ImportResult {
  const detected = detectEntrySource(entries.map((e) => e.value))
  const source = options.source ?? detected
  if (!source) {
    throw new ImportError('log', `log: not a log this importer knows; expected ${SOURCES_TEXT}${options.source ? '' : ' (or give source)'}`)
  }
  if (source === 'swe-agent') throw new ImportError('source', `source: a swe-agent trajectory is one JSON document, not JSON Lines${detected ? `; this log looks like ${detected}` : ''}`)
  const parsed = parseEntries(source, entries, format)
  if (parsed.messages.length === 0 && parsed.compactions.length === 0) {
    if (options.source !== undefined && detected !== undefined && detected !== source) throw new ImportError('source', `source: the log is not a ${source} log; it looks like ${detected}`)
    const first = [...readIssues, ...parsed.issues].sort((a, b) => (a.line ?? 0) - (b.line ?? 0))[0]
    if (first && parsed.skipped === 0) throw new ImportError('log', `log: no entry of the log could be read as ${source} (line ${first.line}: ${first.message})`)
  }
  return finish(parsed, source, options.source === undefined, readIssues, { lines, entries: entries.length }, format, scope)
}

function parseEntries(source: Exclude<ImportSource, 'swe-agent'>, entries: LogEntry[], format: MessageFormat): ParsedLog {
  switch (source) {
    case 'claude-code':
      return parseClaudeCode(entries)
    case 'codex':
      return parseCodex(entries, format)
    case 'pi':
      return parsePi(entries)
    case 'gemini-cli':
      return parseGeminiRecords(entries)
  }
}

interface Kept {
  message: NativeMessage
  /** Index in the parser's messages. */
  at: number
}

function finish(
  parsed: ParsedLog,
  source: ImportSource,
  detected: boolean,
  readIssues: ImportIssue[],
  counts: { lines?: number; entries: number },
  format: MessageFormat,
  scope: ImportScope,
): ImportResult {
  const issues = [...readIssues, ...parsed.issues].sort((a, b) => (a.line ?? 0) - (b.line ?? 0))

  // Scope: the last compaction's point on, after the leading system messages.
  let kept: Kept[] = parsed.messages.map((message, at) => ({ message, at }))
  const last = parsed.compactions[parsed.compactions.length - 1]
  let cut = 0
  if (scope === 'current' && last) {
    cut = last.summaryAt ?? last.at
    let lead = 0
    while (lead < cut && parsed.messages[lead]!.raw.role === 'system') lead++
    kept = [...kept.slice(0, lead), ...kept.slice(cut)]
  }

  // Validate through the native adapter; a message it refuses is reported and dropped.
  const adapter = getAdapter(parsed.format)
  let canonical: CanonicalMessage[] = []
  for (let attempt = 0; ; attempt++) {
    try {
      canonical = adapter.parse(kept.map((k) => k.message.raw)).messages
      const twin = duplicateCallIdIn(canonical)
      if (twin) throw new MessageFormatError(`messages[${twin.index}]`, `two tool calls with the id ${JSON.stringify(twin.callId)} in one message`, twin.index)
      break
    } catch (err) {
      if (!(err instanceof MessageFormatError) || err.index === null || err.index < 0 || err.index >= kept.length || attempt >= 1000) throw err
      const bad = kept[err.index]!.message
      const field = err.field.replace(/^messages\[\d+\]\.?/, '')
      issues.push({ line: bad.line, ...(bad.path ? { path: bad.path } : {}), kind: 'broken', message: `${field ? `${field}: ` : ''}${err.reason}` })
      kept.splice(err.index, 1)
    }
  }

  const whereOf = (index: number): { line: number | null; path?: string } => {
    const m = index >= 0 && index < kept.length ? kept[index]!.message : undefined
    return m ? { line: m.line, ...(m.path ? { path: m.path } : {}) } : { line: null }
  }
  const repaired = repairPairing(canonical, {
    dropResult: (message, callId) => adapter.withoutToolResult(message, callId),
    makeResults: (after, calls) => adapter.createToolResults(after, calls, MISSING_RESULT_TEXT),
  })
  const messages = repaired.messages
  const written = getAdapter(format).serialize(messages)

  // Where each compaction lands in the written messages.
  const firstAtOrAfter = (at: number): number => {
    for (let k = 0; k < messages.length; k++) {
      const i = messages[k]!.index
      if (i >= 0 && i < kept.length && kept[i]!.at >= at) return k
    }
    return messages.length
  }
  const identity = format === parsed.format && written.messages.length === messages.length
  const outIndex = (k: number, holdsSummary: boolean): number => {
    if (identity) return k
    if (holdsSummary) return Math.max(0, getAdapter(format).serialize(messages.slice(0, k + 1)).messages.length - 1)
    return getAdapter(format).serialize(messages.slice(0, k)).messages.length
  }
  const compactions: ImportedCompaction[] = parsed.compactions.map((c) => {
    const anchor = c.summaryAt ?? c.at
    let position: number | null = null
    if (scope === 'all' || !last || anchor >= cut) {
      const k = firstAtOrAfter(anchor)
      position = outIndex(k, c.summaryAt !== null && k < messages.length)
    }
    const { at: _at, summaryAt: _summaryAt, ...rest } = c
    return { position, ...rest }
  })

  return {
    source,
    detected,
    format,
    scope,
    messages: written.messages,
    ...(written.system !== undefined ? { system: written.system } : {}),
    compactions,
    issues: issues.slice(0, MAX_LISTED_ISSUES),
    issuesOmitted: Math.max(0, issues.length - MAX_LISTED_ISSUES),
    repairs: repaired.repairs.map((r) => ({ ...whereOf(r.index), action: r.action })),
    stats: { ...counts, skipped: parsed.skipped, messages: written.messages.length },
    session: parsed.session,
  }
}

/**
 * Why a JSON value cannot be read, or undefined: it nests deeper than `max` levels, or
 * a string in it holds JSON text nested deeper than `textMax` on its own (the parsers
 * parse tool-call `arguments` strings, and the adapters walk and stringify the result
 * recursively: 20,000 levels overflowed the stack). Iterative.
 */
function depthProblem(value: unknown, max: number, textMax: number = max): string | undefined {
  if (!isTooDeep(value, max, textMax)) return undefined
  const found = findTooDeep(value, max, '', textMax)
  const path = found?.path.replace(/^\./, '') ?? ''
  if (found?.inString) return `${path || 'the entry'}: JSON text nested deeper than ${textMax} levels`
  return `nested deeper than ${max === textMax ? max : textMax} levels`
}
