/**
 * `compactd mcp`: an MCP server on stdio (the official SDK) that gives an agent its
 * compacted past back. Three tools, each an HTTP call to a running compactd:
 *
 * - `search_context`: GET /sessions/{id}/search, the archive of what compaction dropped;
 * - `read_context`: GET /sessions/{id}/archive/{ref}, one archived message, whole or by
 *   lines or grep;
 * - `context_status`: GET /sessions/{id}, its latest checkpoint and its stats.
 *
 * It imports none of the service (src/app.ts and below), so it starts in a fraction of a
 * second. The service is COMPACTD_URL (default http://127.0.0.1:3000) with COMPACTD_API_KEY,
 * as for every command. The session is the tool's `session_id` argument, else
 * COMPACTD_SESSION, else CLAUDE_CODE_SESSION_ID (Claude Code gives its stdio MCP servers the
 * session id its hooks get, under which `compactd hook pre-compact` stores checkpoints).
 *
 * stdout carries the protocol only; the one line this command logs goes to stderr. A
 * failure (no session, the service down or refusing) is a tool result with isError and
 * the service's message, never the API key. Results are text without structuredContent:
 * Claude Code hands a model only the JSON of structuredContent when a result has it
 * (anthropics/claude-code#79944), and these texts are written for a model to read.
 */
import type { Readable, Writable } from 'node:stream'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { FORMAT_NAMES } from '../engine/messages/registry.ts'
import { CliError, UsageError, parseArgs } from './compactd/args.ts'
import { DEFAULT_URL, oneLine, request, serverFrom, type Server } from './compactd/client.ts'
import type { Io } from './compactd/io.ts'

/** Where the session id comes from when the tool call gives none, first found wins. */
export const SESSION_ENV = ['COMPACTD_SESSION', 'CLAUDE_CODE_SESSION_ID'] as const

/** A whole message longer than this is cut, with the lines= or grep= call that reads on. */
export const MAX_RESULT_CHARS = 30_000

const SESSION_ID = /^[A-Za-z0-9._:-]{1,200}$/
/** A status's 4xx replies come back as results; 5xx and the unreachable service throw. */
const CLIENT_ERRORS = [400, 401, 403, 404, 409, 413, 422, 429]

export const INSTRUCTIONS =
  'compactd keeps the originals of what context compaction removed from this conversation. ' +
  'When the conversation summary, or a placeholder ending in [ref xxxxxxxx], stands in for a detail you need ' +
  '(an exact error, a file as it was read, a command\'s output, a value, why something was decided), ' +
  'search_context finds it and read_context reads it back; context_status tells whether and when the conversation was compacted.'

const sessionArg = z
  .string()
  .describe(`The compactd session id. Leave it out: the server knows the current session (${SESSION_ENV.join(' or ')}).`)
  .optional()

type Reply = { status: number; body: Record<string, unknown> }
type Result = CallToolResult

const text = (t: string): Result => ({ content: [{ type: 'text', text: t }] })
const failure = (t: string): Result => ({ content: [{ type: 'text', text: t }], isError: true })
const n = (x: unknown) => (typeof x === 'number' ? x.toLocaleString('en-US') : '?')

export async function mcpCommand(argv: string[], io: Io, version: string, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const args = parseArgs(argv, { values: ['url', 'session'], booleans: [] })
  if (args.positionals.length > 0) throw new UsageError(`mcp: unexpected argument ${args.positionals[0]}`)
  const session = args.values.get('session')
  if (session !== undefined && !SESSION_ID.test(session)) throw new UsageError(`--session: ${JSON.stringify(session.slice(0, 80))} is not a session id (1-200 characters of A-Z a-z 0-9 . _ : -)`)
  const server: Server = {
    ...serverFrom(args.values.get('url'), env, DEFAULT_URL)!,
    unreachableHint: 'start the compactd service (`npm start` in its directory), or set COMPACTD_URL in this MCP server\'s environment to where it runs',
  }
  const mcp = buildMcpServer({ server, version, env, ...(session !== undefined ? { session } : {}) })
  const transport = new StdioServerTransport(io.stdin as Readable, io.stdout as Writable)
  await mcp.connect(transport)
  const from = session !== undefined ? '--session' : SESSION_ENV.find((k) => env[k])
  io.stderr.write(`compactd mcp: recall tools for ${server.url}, session ${from ? `from ${from}` : 'given by each call'}\n`)
  // The server now lives on stdin's listener: it ends when the client closes stdin, after
  // answering what it has been asked.
  return 0
}

export interface McpOptions {
  server: Server
  version: string
  env: NodeJS.ProcessEnv
  /** --session: the session when a call names none (before the environment's). */
  session?: string
}

export function buildMcpServer(opts: McpOptions): McpServer {
  const mcp = new McpServer({ name: 'compactd', version: opts.version }, { instructions: INSTRUCTIONS })
  const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }

  /** The session of a call: its argument, --session, then the environment. */
  const sessionOf = (given: string | undefined): { id: string } | { error: Result } => {
    const id = given ?? opts.session ?? SESSION_ENV.map((k) => opts.env[k]).find((v) => v)
    if (!id) {
      return {
        error: failure(
          `No compactd session: pass session_id, or set COMPACTD_SESSION to the session id in this MCP server's environment ` +
            `(the sessionId given to POST /compact, or a /sessions id). Claude Code sets CLAUDE_CODE_SESSION_ID itself.`,
        ),
      }
    }
    if (!SESSION_ID.test(id)) return { error: failure(`session_id ${JSON.stringify(id.slice(0, 80))} is not a compactd session id (1-200 characters of A-Z a-z 0-9 . _ : -)`) }
    return { id }
  }

  /** One GET; CliError (unreachable, 5xx, not JSON) becomes the failure a tool returns. */
  const get = async (path: string): Promise<Reply> => (await request<Record<string, unknown>>(opts.server, 'GET', path, undefined, CLIENT_ERRORS)) as Reply
  const guarded = async (work: () => Promise<Result>): Promise<Result> => {
    try {
      return await work()
    } catch (err) {
      if (err instanceof CliError) return failure(`compactd: ${err.message}`)
      throw err
    }
  }

  mcp.registerTool(
    'search_context',
    {
      title: 'Search the compacted past',
      description:
        "Search the original messages that context compaction removed from this conversation (compactd archived them). Use it after a compaction, when the summary or a placeholder such as `[output masked by compactd] … [ref 3answbqe]` lacks a detail you need: an exact error message, a file's contents as read, a command's output, a name or number, the reason for a decision. Write the query as keywords or a question. Each hit shows a snippet and a ref; read_context(ref) reads the whole message.",
      inputSchema: {
        query: z.string().min(1).max(2_000).describe('Keywords or a question, e.g. "chroma RateLimitError batch size".'),
        limit: z.int().min(1).max(50).optional().describe('Hits to return, 1-50 (default 5).'),
        session_id: sessionArg,
      },
      annotations: readOnly,
    },
    ({ query, limit, session_id }) =>
      guarded(async () => {
        const s = sessionOf(session_id)
        if ('error' in s) return s.error
        const qs = new URLSearchParams({ q: query, ...(limit !== undefined ? { limit: String(limit) } : {}) })
        const r = await get(`/sessions/${encodeURIComponent(s.id)}/search?${qs}`)
        if (r.status !== 200) return refused(r, s.id)
        return text(searchText(query, s.id, r.body as unknown as SearchBody))
      }),
  )

  mcp.registerTool(
    'read_context',
    {
      title: 'Read an archived message',
      description:
        'Read one original message that context compaction removed, by its ref: the 8 characters in a `[ref xxxxxxxx]` marker (masked tool outputs, the summary\'s action log) or in a search_context hit. Without lines or grep you get the whole message (a tool call comes with its results; a very long one is cut and says how to read on). lines="120-180" returns those lines, numbered; grep="text" returns the lines containing it (case-insensitive), numbered, with `context` lines around each.',
      inputSchema: {
        ref: z.string().min(1).max(64).describe('The reference, e.g. "3answbqe" (a pasted "[ref 3answbqe]" works too).'),
        lines: z.string().max(40).optional().describe('A 1-based inclusive line range like "120-180", or one line number.'),
        grep: z.string().min(1).max(200).optional().describe('Only the lines containing this text (case-insensitive, not a pattern).'),
        context: z.int().min(0).max(20).optional().describe('With grep: lines shown around each match (default 0).'),
        format: z.enum(FORMAT_NAMES).optional().describe('Return the message as JSON in this wire format instead of as text.'),
        session_id: sessionArg,
      },
      annotations: readOnly,
    },
    ({ ref, lines, grep, context, format, session_id }) =>
      guarded(async () => {
        const s = sessionOf(session_id)
        if ('error' in s) return s.error
        const bare = ref.trim().replace(/^\[?\s*ref\s+/i, '').replace(/\s*\]$/, '')
        const qs = new URLSearchParams({
          ...(lines !== undefined ? { lines: lines.replace(/\s+/g, '') } : {}),
          ...(grep !== undefined ? { grep } : {}),
          ...(context !== undefined ? { context: String(context) } : {}),
          ...(format !== undefined ? { format } : {}),
        })
        const r = await get(`/sessions/${encodeURIComponent(s.id)}/archive/${encodeURIComponent(bare)}${qs.size ? `?${qs}` : ''}`)
        if (r.status !== 200) return refused(r, s.id)
        const body = r.body as unknown as ReadBody
        if (body.text !== undefined) return text(selectionText(body, grep))
        return text(await wholeText(body, format !== undefined))
      }),
  )

  mcp.registerTool(
    'context_status',
    {
      title: "This session's context",
      description:
        'How far this conversation has been compacted: its latest compaction (checkpoint number, tokens before and after, when), the totals, and for a session kept with a rolling summary its window, summary and their ages. Use it to learn whether earlier messages were compacted away (then search_context can find them) before searching.',
      inputSchema: { session_id: sessionArg },
      annotations: readOnly,
    },
    ({ session_id }) =>
      guarded(async () => {
        const s = sessionOf(session_id)
        if ('error' in s) return s.error
        const id = encodeURIComponent(s.id)
        const [rolling, checkpoints, stats] = await Promise.all([get(`/sessions/${id}`), get(`/sessions/${id}/checkpoints?limit=1`), get(`/sessions/${id}/stats`)])
        const bad = [rolling, checkpoints, stats].find((r) => r.status !== 200 && r.status !== 404)
        if (bad) return refused(bad, s.id)
        if (rolling.status === 404 && checkpoints.status === 404) {
          return failure(`compactd has no session ${JSON.stringify(s.id)}: nothing was compacted under this id (POST /compact with sessionId) and no /sessions session has it. Check the id: session_id, or ${SESSION_ENV.join(' / ')} in this MCP server's environment.`)
        }
        return text(statusText(s.id, rolling.status === 200 ? (rolling.body as unknown as SessionBody) : undefined, checkpoints.status === 200 ? (checkpoints.body as unknown as { items: CheckpointBody[] }).items[0] : undefined, stats.status === 200 ? (stats.body as unknown as StatsBody) : undefined))
      }),
  )
  return mcp
}

/** A refused request as a tool failure: the service's code and message, and what to do about the common ones. */
function refused(r: Reply, session: string): Result {
  const code = typeof r.body?.error === 'string' ? r.body.error : `HTTP ${r.status}`
  const message = typeof r.body?.message === 'string' ? oneLine(r.body.message) : ''
  const hint =
    r.status === 401 || r.status === 403
      ? ' Set COMPACTD_API_KEY in this MCP server\'s environment to a key of the tenant that owns the session.'
      : r.status === 404
        ? ` Is ${JSON.stringify(session)} the right session? Refs are per session.`
        : ''
  return failure(`compactd refused (${r.status} ${code}): ${message}${hint}`)
}

// ---------------------------------------------------------------------------
// The texts a model reads
// ---------------------------------------------------------------------------

interface Located {
  ref: string
  role: string
  toolName: string | null
  checkpointNum: number | null
  position: number
  source: string
}
interface SearchBody {
  hits: (Located & { snippet: string; score: number })[]
  terms: string[]
}
interface ReadBody extends Located {
  format: string
  messages?: unknown[]
  text?: string
  totalLines: number
  matchedLines?: number
  truncated: boolean
  redactions: number
}

/** "tool output of bash · checkpoint 3, message 41" */
function where(m: Located): string {
  // toolName: the tools an assistant message calls, or the tool whose output this is (an
  // Anthropic tool result is a user message).
  const what = !m.toolName ? m.role : m.role === 'assistant' ? `assistant (calls ${m.toolName})` : `tool output of ${m.toolName}`
  const at = m.source === 'session' || m.checkpointNum === null ? `session message ${m.position}` : `checkpoint ${m.checkpointNum}, message ${m.position}`
  return `${what} · ${at}`
}

export function searchText(query: string, session: string, body: SearchBody): string {
  const terms = body.terms.length ? ` (words searched: ${body.terms.join(', ')})` : ''
  if (body.hits.length === 0) {
    return `No archived message of session ${session} matches ${JSON.stringify(query)}${terms}. The archive holds only what compaction removed; try other words, or context_status to see whether this session was compacted.`
  }
  const blocks = body.hits.map((h, i) => `${i + 1}. [ref ${h.ref}] ${where(h)} · score ${h.score.toFixed(2)}\n${h.snippet.trim()}`)
  return [
    `${body.hits.length} archived message${body.hits.length > 1 ? 's of' : ' of'} session ${session} ${body.hits.length > 1 ? 'match' : 'matches'} ${JSON.stringify(query)}${terms}:`,
    ...blocks,
    `Read one whole with read_context(ref); a long one in parts with lines="1-200" or grep="text".`,
  ].join('\n\n')
}

function header(b: ReadBody, lines = true): string {
  const redacted = b.redactions > 0 ? ` · ${b.redactions} secret${b.redactions > 1 ? 's' : ''} redacted before archiving` : ''
  return `[ref ${b.ref}] ${where(b)}${lines ? ` · ${n(b.totalLines)} line${b.totalLines === 1 ? '' : 's'}` : ''}${redacted}`
}

export function selectionText(b: ReadBody, grep: string | undefined): string {
  const out = [header(b)]
  if (grep !== undefined) out.push(b.matchedLines ? `${n(b.matchedLines)} line${b.matchedLines > 1 ? 's contain' : ' contains'} ${JSON.stringify(grep)}:` : `No line contains ${JSON.stringify(grep)}.`)
  if (b.text) out.push(b.text)
  if (b.truncated) {
    const last = Number(/(?:^|\n)(\d+)\t[^\n]*$/.exec(b.text ?? '')?.[1] ?? 0)
    out.push(`[cut at 64 KB after line ${n(last)}: read on with lines="${last + 1}-${Math.min(b.totalLines, last + 400)}", or narrow with grep]`)
  }
  return out.join('\n')
}

/**
 * A whole message: its text as the engine reads it (tool calls as name(args)), an
 * assistant's call followed by its results; or its JSON when a format was asked for. Cut
 * at MAX_RESULT_CHARS, with the call that reads on.
 */
export async function wholeText(b: ReadBody, asJson: boolean): Promise<string> {
  const messages = b.messages ?? []
  let texts: { label: string; text: string }[] | undefined
  if (!asJson) {
    try {
      // Loaded on the first whole read only: start-up stays light.
      const { messageText, parseConversation } = await import('../engine/messages/index.ts')
      const parsed = parseConversation(messages, { format: b.format as (typeof FORMAT_NAMES)[number], allowDuplicateCallIds: true }).messages
      // An Anthropic tool result is a user message: say what it is.
      texts = parsed.map((m) => ({ label: m.parts.some((p) => p.type === 'tool-result') ? 'tool result' : m.role, text: messageText(m) }))
    } catch {
      texts = undefined
    }
  }
  const single = texts?.length === 1
  const body = !texts ? JSON.stringify(messages, null, 1) : single ? texts[0]!.text : texts.map((m, i) => `--- ${i + 1} of ${texts.length}: ${m.label}\n${m.text}`).join('\n')
  const head = texts && !single ? `${header(b, false)} · with its ${texts.length - 1} tool result${texts.length > 2 ? 's' : ''}` : header(b)
  if (body.length <= MAX_RESULT_CHARS) return `${head}\n${body}`
  const shown = body.slice(0, MAX_RESULT_CHARS)
  const complete = shown.split('\n').length - 1
  const next = single
    ? `read on with lines="${complete + 1}-${Math.min(b.totalLines, complete + 400)}", or find a passage with grep="text"`
    : texts
      ? `lines= and grep= read the call's own ${n(b.totalLines)} lines; a result has its own ref (its [ref …] placeholder, or a search_context hit)`
      : 'read it as text (without format), by lines= or grep='
  return `${head}\n${shown}\n[cut at ${n(MAX_RESULT_CHARS)} characters: ${next}]`
}

interface SessionBody {
  messageCount: number
  windowMessages: number
  windowTokens: number
  evictedAwaitingSummary: number
  summarizedMessages: number
  summary: { version: number; tokens: number; updatedAt: string } | null
  updatedAt: string
}
interface CheckpointBody {
  checkpointNum: number
  round: number | null
  strategy: string | null
  originalTokens: number | null
  compressedTokens: number | null
  targetTokens: number | null
  model: string | null
  summaryTokens: number | null
  createdAt: string
}
interface StatsBody {
  checkpoints: number
  tokensSaved: number
  totalOriginalTokens: number
}

/** "12 minutes ago" */
export function age(iso: string, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000))
  if (!Number.isFinite(s)) return 'at an unknown time'
  const [v, unit] = s < 90 ? [s, 'second'] : s < 5400 ? [Math.round(s / 60), 'minute'] : s < 129_600 ? [Math.round(s / 3600), 'hour'] : [Math.round(s / 86_400), 'day']
  return `${v} ${unit}${v === 1 ? '' : 's'} ago`
}

export function statusText(session: string, rolling: SessionBody | undefined, latest: CheckpointBody | undefined, stats: StatsBody | undefined, now = Date.now()): string {
  const out = [`compactd session ${session}:`]
  if (latest) {
    const how = [latest.strategy, latest.round !== null ? `round ${latest.round}` : undefined, latest.model].filter(Boolean).join(', ')
    out.push(
      `- Latest compaction: checkpoint ${latest.checkpointNum}, ${age(latest.createdAt, now)} (${latest.createdAt}): ${n(latest.originalTokens)} → ${n(latest.compressedTokens)} tokens` +
        `${latest.targetTokens !== null ? ` (target ${n(latest.targetTokens)})` : ''}${how ? `; ${how}` : ''}.` +
        `${latest.summaryTokens !== null ? ` Its summary: ${n(latest.summaryTokens)} tokens.` : ' It only masked tool outputs.'}`,
    )
    if (stats) out.push(`- All compactions: ${n(stats.checkpoints)} checkpoint${stats.checkpoints === 1 ? '' : 's'}, ${n(stats.tokensSaved)} tokens saved of ${n(stats.totalOriginalTokens)}.`)
  } else out.push('- No compaction stored under this id (no checkpoint).')
  if (rolling) {
    out.push(
      `- Rolling session: ${n(rolling.messageCount)} messages appended, last ${age(rolling.updatedAt, now)}; the recent window holds ${n(rolling.windowMessages)} messages, ${n(rolling.windowTokens)} tokens.`,
      rolling.summary
        ? `- Rolling summary: version ${rolling.summary.version}, ${n(rolling.summary.tokens)} tokens, written ${age(rolling.summary.updatedAt, now)}; ${n(rolling.summarizedMessages)} messages folded in, ${n(rolling.evictedAwaitingSummary)} evicted and not yet in it.`
        : `- Rolling summary: none yet (${n(rolling.evictedAwaitingSummary)} evicted messages await one).`,
    )
  }
  out.push(latest || rolling?.summary ? 'What compaction removed is archived: search_context(query) finds it, read_context(ref) reads it.' : 'Nothing has been compacted yet: the whole conversation is still in your context.')
  return out.join('\n')
}
