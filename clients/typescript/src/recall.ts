/**
 * The recall tools: what compaction dropped from a conversation with a `sessionId` is in
 * compactd's archive, and a model gets it back through two tools that compactd answers.
 *
 *   search_context { query, limit? }       GET /sessions/{id}/search
 *   read_context   { ref, lines?, grep? }  GET /sessions/{id}/archive/{ref}
 *
 * The summary's second line and every masked output name them (`[ref 7hq2k9xa]`). Here:
 * their definitions for OpenAI Chat and Anthropic Messages (`recallToolsOpenAI`,
 * `recallToolsAnthropic`; the AI SDK's are `recallTools` in ./ai-sdk.ts), the client's
 * `search`, `read` and `answerRecall` (the text a tool result carries), and the
 * formatting of that text.
 */
import type { Client } from 'openapi-fetch'
import { CompactdError, unwrap } from './errors.ts'
import type { components, paths } from './schema.ts'

/** The archive hits of a search: `{ hits: [{ ref, role, toolName, snippet, score, … }], terms }`. */
export type ArchiveSearch = components['schemas']['ArchiveSearch']
/** One archived message read back: `messages` (whole) or `text` (numbered lines), `totalLines`, … */
export type ArchivedMessage = components['schemas']['ArchivedMessage']
/** The query of a read: `format`, `lines` (`"120-180"`), `grep`, `context`. */
export type ReadOptions = NonNullable<paths['/sessions/{id}/archive/{ref}']['get']['parameters']['query']>

/** The names of the recall tools. */
export const RECALL_TOOL_NAMES = ['search_context', 'read_context'] as const
export type RecallToolName = (typeof RECALL_TOOL_NAMES)[number]

/** A JSON Schema of an object, as both SDKs take a tool's input. */
export interface ObjectSchema {
  [key: string]: unknown
  type: 'object'
  properties: Record<string, { type: string; description: string; minimum?: number; maximum?: number }>
  required: string[]
  additionalProperties: false
}

/** An OpenAI Chat Completions function tool (assignable to the `openai` package's `ChatCompletionTool`). */
export interface OpenAIFunctionTool {
  type: 'function'
  function: { name: RecallToolName; description: string; parameters: ObjectSchema }
}

/** An Anthropic Messages tool (assignable to `@anthropic-ai/sdk`'s `Tool`). */
export interface AnthropicTool {
  name: RecallToolName
  description: string
  input_schema: ObjectSchema
}

/** Lines of context `read_context` shows around each `grep` match. */
export const GREP_CONTEXT = 2

/** What the model reads about each tool and its arguments: one text for every SDK. */
export const RECALL_TOOLS = {
  search_context: {
    description:
      'Search what compaction dropped from this conversation: earlier tool outputs, messages and tool calls, kept in an archive. ' +
      'Use it when the summary or a [ref …] marker points to something whose exact text you need. ' +
      'Returns the best matches, each with its ref and a snippet; read_context(ref) reads one.',
    args: {
      query: { type: 'string', description: 'What to look for: file names, identifiers, error messages, or a short question.' },
      limit: { type: 'integer', description: 'How many matches to return (default 5).', minimum: 1, maximum: 50 },
    },
    required: ['query'],
  },
  read_context: {
    description:
      'Read one archived message back by its ref (from a [ref …] marker, the summary or a search_context match): ' +
      'its whole text, or only some of its lines, numbered.',
    args: {
      ref: { type: 'string', description: 'The 8-character reference, e.g. 7hq2k9xa.' },
      lines: { type: 'string', description: 'Only these lines, 1-based and inclusive: "120-180", or "120" for one.' },
      grep: { type: 'string', description: `Only the lines containing this text (case-insensitive, not a pattern), numbered, with ${GREP_CONTEXT} lines around each.` },
    },
    required: ['ref'],
  },
} as const satisfies Record<RecallToolName, { description: string; args: ObjectSchema['properties']; required: string[] }>

function schemaOf(name: RecallToolName): ObjectSchema {
  const spec = RECALL_TOOLS[name]
  return { type: 'object', properties: { ...spec.args }, required: [...spec.required], additionalProperties: false }
}

/** The recall tools for OpenAI Chat Completions' `tools` (and any API that takes its function tools). */
export function recallToolsOpenAI(): OpenAIFunctionTool[] {
  return RECALL_TOOL_NAMES.map((name) => ({ type: 'function', function: { name, description: RECALL_TOOLS[name].description, parameters: schemaOf(name) } }))
}

/** The recall tools for Anthropic Messages' `tools`. */
export function recallToolsAnthropic(): AnthropicTool[] {
  return RECALL_TOOL_NAMES.map((name) => ({ name, description: RECALL_TOOLS[name].description, input_schema: schemaOf(name) }))
}

export function isRecallTool(name: string): name is RecallToolName {
  return (RECALL_TOOL_NAMES as readonly string[]).includes(name)
}

export interface AnswerOptions {
  /**
   * A whole message longer than this many characters is cut at a line, with a note
   * saying which `lines` to ask for next. Default 20,000 (about 5,000 tokens).
   */
  maxChars?: number
  signal?: AbortSignal
}

/** The client's archive methods (part of `CompactdClient`). */
export interface RecallMethods {
  /** GET /sessions/{id}/search: the archived messages that match `q`, best first. Throws a CompactdError. */
  search(sessionId: string, q: string, options?: { limit?: number; signal?: AbortSignal }): Promise<ArchiveSearch>
  /** GET /sessions/{id}/archive/{ref}: one archived message, whole or by `lines`/`grep`. Throws a CompactdError. */
  read(sessionId: string, ref: string, options?: ReadOptions & { signal?: AbortSignal }): Promise<ArchivedMessage>
  /**
   * The text of a recall tool's result: the hits of `search_context`, or what
   * `read_context` reads. `args` is the call's arguments, as an object or as the JSON
   * string OpenAI sends. `undefined` when `name` is not a recall tool, so a loop hands
   * every other call to its own tools. A mistake of the model's (no query, a ref the
   * archive does not have, a line past the end) is answered as text it can act on; other
   * failures (compactd unreachable, 401, 5xx) throw.
   */
  answerRecall(sessionId: string, name: string, args: unknown, options?: AnswerOptions): Promise<string | undefined>
}

/** The archive methods over an openapi-fetch client of compactd. */
export function recallMethods(client: Client<paths, 'application/json'>): RecallMethods {
  const search: RecallMethods['search'] = (sessionId, q, { signal, ...query } = {}) =>
    unwrap(client.GET('/sessions/{id}/search', { params: { path: { id: sessionId }, query: { q, ...query } }, signal }))
  const read: RecallMethods['read'] = (sessionId, ref, { signal, ...query } = {}) =>
    unwrap(client.GET('/sessions/{id}/archive/{ref}', { params: { path: { id: sessionId, ref }, query }, signal }))
  return {
    search,
    read,
    async answerRecall(sessionId, name, args, { maxChars = 20_000, signal } = {}) {
      if (!isRecallTool(name)) return undefined
      const input = recallInput(name, args)
      if (typeof input === 'string') return input
      try {
        if (input.tool === 'search_context') return formatSearch(input.query, await search(sessionId, input.query, { limit: input.limit, signal }))
        const part = input.lines !== undefined || input.grep !== undefined
        const found = await read(sessionId, input.ref, part ? { lines: input.lines, grep: input.grep, context: input.grep === undefined ? undefined : GREP_CONTEXT, signal } : { format: 'openai', signal })
        return formatRead(found, { lines: input.lines, grep: input.grep, maxChars })
      } catch (err) {
        if (err instanceof CompactdError && (err.status === 400 || err.status === 404)) return `${name} failed: ${err.message}`
        throw err
      }
    },
  }
}

export type RecallInput =
  | { tool: 'search_context'; query: string; limit?: number }
  | { tool: 'read_context'; ref: string; lines?: string; grep?: string }

/** A tool call's arguments, checked; a string is the text to answer the model with instead. */
export function recallInput(name: RecallToolName, args: unknown): RecallInput | string {
  let value = args
  if (typeof args === 'string') {
    try {
      value = args.trim() === '' ? {} : JSON.parse(args)
    } catch {
      return `${name} failed: the arguments are not JSON: ${args.slice(0, 200)}`
    }
  }
  const a = (value && typeof value === 'object' ? value : {}) as Record<string, unknown>
  const text = (key: string) => (typeof a[key] === 'string' && a[key].trim() !== '' ? a[key].trim() : typeof a[key] === 'number' ? String(a[key]) : undefined)
  if (name === 'search_context') {
    const query = text('query')
    if (query === undefined) return 'search_context failed: give a query, e.g. {"query": "the error of the last test run"}.'
    const limit = Number(a.limit)
    return { tool: name, query, ...(a.limit !== undefined && Number.isFinite(limit) ? { limit: Math.min(50, Math.max(1, Math.round(limit))) } : {}) }
  }
  const ref = text('ref')?.replace(/^\[?ref\s+|\]$/gi, '')
  if (ref === undefined) return 'read_context failed: give the ref of an archived message, e.g. {"ref": "7hq2k9xa"}.'
  const lines = text('lines')?.replace(/\s+/g, '').replace(/[–—:]/, '-')
  return { tool: name, ref, ...(lines !== undefined ? { lines } : {}), ...(text('grep') !== undefined ? { grep: text('grep') } : {}) }
}

/**
 * `read_file result (checkpoint 2)`: what a hit or a read is, in a few words. A message
 * with a tool name is a call (assistant) or results (a `tool` message; in Anthropic's
 * format, a `user` message of tool_result blocks).
 */
function label(m: Pick<ArchivedMessage, 'role' | 'toolName' | 'checkpointNum'>): string {
  const what = !m.toolName ? m.role : m.role === 'assistant' ? `assistant, calling ${m.toolName}` : `${m.toolName} result`
  return `${what} (${m.checkpointNum === null ? 'a session message' : `checkpoint ${m.checkpointNum}`})`
}

/** A search's hits as a tool result: one line per hit, ref first. */
export function formatSearch(query: string, result: ArchiveSearch): string {
  if (result.hits.length === 0) {
    return `No archived message matches ${JSON.stringify(query)}${result.terms.length ? ` (searched for: ${result.terms.join(', ')})` : ''}. Try other words: a file name, an identifier, an error message.`
  }
  const n = result.hits.length
  const lines = result.hits.map((h) => `[ref ${h.ref}] ${label(h)}: ${h.snippet.replace(/\s+/g, ' ').trim()}`)
  return [`${n} archived message${n === 1 ? '' : 's'} match${n === 1 ? 'es' : ''} ${JSON.stringify(query)}, best first; read_context(ref) reads one:`, ...lines].join('\n')
}

/** A read as a tool result: a line saying what it is, then the text (numbered lines for `lines`/`grep`). */
export function formatRead(result: ArchivedMessage, asked: { lines?: string; grep?: string; maxChars?: number } = {}): string {
  const head = `[ref ${result.ref}] ${label(result)}, ${result.totalLines} line${result.totalLines === 1 ? '' : 's'}`
  if (result.text !== undefined) {
    const which = [asked.lines !== undefined ? `lines ${asked.lines}` : '', asked.grep !== undefined ? `${result.matchedLines ?? 0} matching ${JSON.stringify(asked.grep)}` : ''].filter(Boolean).join(', ')
    const cut = result.truncated ? '\n[cut at 64 KB: ask for a narrower lines range]' : ''
    return `${head}${which ? `; ${which}` : ''}:\n${result.text || '(no line matches)'}${cut}`
  }
  const messages = (result.messages ?? []) as OpenAIMessage[]
  const text = messages.map((m) => (messages.length > 1 ? `${m.role}${m.role === 'tool' ? ` ${m.tool_call_id ?? ''}`.trimEnd() : ''}: ` : '') + textOf(m)).join('\n')
  return `${head}:\n${cutAt(text, asked.maxChars ?? 20_000)}`
}

interface OpenAIMessage {
  role: string
  content?: unknown
  tool_call_id?: string
  tool_calls?: { function?: { name?: string; arguments?: string } }[]
}

/** An OpenAI Chat message as text: its content, then its tool calls as `→ name(args)`. */
function textOf(m: OpenAIMessage): string {
  const parts: string[] = []
  if (typeof m.content === 'string') parts.push(m.content)
  else if (Array.isArray(m.content)) {
    for (const p of m.content as { type?: string; text?: string }[]) parts.push(typeof p?.text === 'string' ? p.text : `[${p?.type ?? 'part'}]`)
  }
  for (const call of m.tool_calls ?? []) parts.push(`→ ${call.function?.name ?? '?'}(${call.function?.arguments ?? ''})`)
  return parts.join('\n')
}

/** `text` up to `max` characters, cut at a line, with which lines to read next. */
function cutAt(text: string, max: number): string {
  if (text.length <= max) return text
  const lines = text.split('\n')
  let shown = 0
  let size = 0
  while (shown < lines.length && size + lines[shown]!.length + 1 <= max) size += lines[shown++]!.length + 1
  if (shown === 0) return `${text.slice(0, max)}\n[cut at ${max} of ${text.length} characters, in line 1; grep finds the part you need]`
  return `${lines.slice(0, shown).join('\n')}\n[cut: lines 1-${shown} of ${lines.length} shown; read_context with lines="${shown + 1}-${Math.min(lines.length, shown * 2)}" or grep reads more]`
}
