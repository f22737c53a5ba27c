/**
 * A fake LLM provider for the test tree.
 *
 * `startFakeProvider()` starts a `node:http` server on 127.0.0.1 (random port)
 * that speaks enough of two wire protocols for the REAL SDKs to work against
 * it through their `baseURL` option:
 *
 *   OpenAI (Chat Completions, Responses)     Anthropic (Messages)
 *   ------------------------------------     --------------------
 *   POST /v1/chat/completions (+ SSE)        POST /v1/messages (+ SSE)
 *   POST /v1/responses (+ SSE; fake-responses.ts)
 *   GET  /v1/models                          POST /v1/messages/count_tokens
 *                                            GET  /v1/models (when called with Anthropic headers)
 *
 *   new OpenAI({ apiKey, baseURL: fake.openaiBaseURL })       // `${url}/v1`
 *   new Anthropic({ apiKey, baseURL: fake.anthropicBaseURL }) // `${url}` (the SDK adds /v1/...)
 *
 * Authentication mirrors the real services: OpenAI wants `Authorization: Bearer <key>`;
 * Anthropic wants `anthropic-version` plus either `x-api-key: <key>` or
 * `Authorization: Bearer <key>` (NOTE: @anthropic-ai/sdk 1.x sends an `apiKey`
 * as `Authorization: Bearer`, not as `x-api-key`). A key other than
 * `opts.apiKey` gets a 401 in the provider's error shape.
 *
 * Token counting (usage, count_tokens, context-window checks) is deterministic:
 *
 *   tokens = ceil(C / 4)
 *
 * where C is the total length (JS string length, no separators) of every text
 * field in the request: the system prompt (Responses: `instructions`), each
 * message's (Responses: `input` item's) text content
 * (string content, `text` parts/blocks, `thinking` blocks, tool_result
 * content), tool-call arguments / tool_use inputs (JSON-stringified) and tool
 * definitions (JSON-stringified). See `extractPromptPieces()` and
 * `countRequestTokens()`. Output tokens are ceil(output chars / 4).
 *
 * The default completion is a deterministic structured summary derived from the
 * prompt (see `buildFakeSummary()`), truncated to `max_tokens * 4` characters
 * (finish_reason 'length' / stop_reason 'max_tokens' / Responses status 'incomplete'
 * when that cut it; Responses: `max_output_tokens`).
 *
 * Behaviour is programmable per request (`enqueue`, `setDefault`): success with
 * custom content or delay, 429, 5xx, hanging forever, malformed JSON, JSON of the
 * wrong shape, a non-JSON body (an HTML error page), a response or stream cut off
 * halfway, empty content, dropped connection, or any HTTP error.
 *
 * A scripted model: a queue of `ok` behaviours, one per model call, with tool calls or
 * content. Either may be a function of the request it answers (`FakeTurn`: the body, the
 * prompt's pieces, the last message's text), so the model can act on what its tools
 * returned: call a tool with an id a result named, answer with a line it read.
 */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { RESPONSES_CONTEXT_MESSAGE, buildResponsesReply, responsesInputPieces, responsesLastMessage, validateResponsesBody } from './fake-responses.ts';

// ---------------------------------------------------------------------------
// Public types
// ---------------------------------------------------------------------------

/** Which wire protocol a request was spoken in. */
export type FakeApi = 'openai' | 'anthropic';

/**
 * Logical endpoints of the fake.
 * - `chat.completions`      POST /v1/chat/completions          (OpenAI)
 * - `responses`             POST /v1/responses                 (OpenAI Responses API)
 * - `messages`              POST /v1/messages                  (Anthropic)
 * - `messages.count_tokens` POST /v1/messages/count_tokens     (Anthropic)
 * - `models`                GET  /v1/models                    (either; shape picked from headers)
 */
export type FakeRoute = 'chat.completions' | 'responses' | 'messages' | 'messages.count_tokens' | 'models';

/** The generation endpoints, which behaviours without a `route` apply to. */
export const GENERATION_ROUTES: readonly FakeRoute[] = ['chat.completions', 'responses', 'messages'];

interface BehaviourTarget {
  /**
   * Which endpoint(s) this behaviour applies to. When omitted it applies only to
   * the GENERATION routes (`chat.completions`, `responses`, `messages`), so a queued fault is
   * not swallowed by a preceding count_tokens / models call. Use `'*'` for any.
   */
  route?: FakeRoute | readonly FakeRoute[] | '*';
}

/**
 * Answer normally. `content` overrides the generated summary; `delayMs` waits first.
 * `toolCalls` answers with tool calls (OpenAI `tool_calls` with finish_reason
 * 'tool_calls'; Responses `function_call` output items; Anthropic `tool_use` blocks
 * with stop_reason 'tool_use'), streamed or
 * not, after `content` when given (no text when not). Each may be a function of the
 * request (`FakeTurn`), called when the request arrives.
 */
export interface OkBehaviour extends BehaviourTarget {
  kind: 'ok';
  content?: string | ((turn: FakeTurn) => string);
  delayMs?: number;
  toolCalls?: FakeToolCall[] | ((turn: FakeTurn) => FakeToolCall[]);
}

/** The request a scripted `content` or `toolCalls` function answers. */
export interface FakeTurn {
  api: FakeApi;
  route: FakeRoute;
  /** The parsed request body. */
  body: Record<string, any>;
  /** The prompt's texts in order, tagged with their roles (tool definitions last, as 'tools'). */
  pieces: PromptPiece[];
  /**
   * The text of the last message: in a tool loop, the tool results just sent (Anthropic's
   * `tool_result` blocks included; Responses: the trailing `function_call_output` items).
   */
  lastMessage: string;
}

/**
 * A tool call the fake answers with; `id` (Responses: `call_id`) defaults to
 * `call_<request>_<index>` (OpenAI) or `toolu_<request>_<index>` (Anthropic).
 */
export interface FakeToolCall {
  id?: string;
  name: string;
  input: Record<string, unknown>;
}

/**
 * 429 with a provider-shaped body and a `retry-after` header (seconds, default 1).
 * `retryAfterMs` additionally sends `retry-after-ms`, which both SDKs prefer over
 * `retry-after` (handy for fast tests). `shouldRetry` sends `x-should-retry`.
 */
export interface RateLimitBehaviour extends BehaviourTarget {
  kind: 'rate-limit';
  retryAfterSeconds?: number;
  retryAfterMs?: number;
  shouldRetry?: boolean;
}

/** 5xx (default 500; 529 = Anthropic "overloaded"). `shouldRetry` sends `x-should-retry`. */
export interface ServerErrorBehaviour extends BehaviourTarget {
  kind: 'server-error';
  status?: 500 | 502 | 503 | 529;
  shouldRetry?: boolean;
}

/** Accept the request and never answer (until the client gives up or the fake closes). */
export interface TimeoutBehaviour extends BehaviourTarget {
  kind: 'timeout';
}

/** 200 + `content-type: application/json` with a body that is not valid JSON. */
export interface MalformedJsonBehaviour extends BehaviourTarget {
  kind: 'malformed-json';
}

/**
 * 200 + `content-type: application/json` with valid JSON of the wrong shape (default:
 * an object with neither `choices` nor `content`). `body` replaces it.
 */
export interface WrongShapeBehaviour extends BehaviourTarget {
  kind: 'wrong-shape';
  body?: unknown;
}

/**
 * 200 with a body that is not JSON at all, e.g. a proxy's HTML error page
 * (default `text/html`, `<html>…502 Bad Gateway…</html>`).
 */
export interface GarbageBehaviour extends BehaviourTarget {
  kind: 'garbage';
  contentType?: string;
  body?: string;
}

/**
 * The response starts and the connection dies in the middle: the headers announce the
 * full length (or an SSE stream), part of the body is sent, then the socket is destroyed.
 */
export interface TruncatedBehaviour extends BehaviourTarget {
  kind: 'truncated';
}

/** 200 with a valid shape but empty content ('' for OpenAI, `content: []` for Anthropic). */
export interface EmptyBehaviour extends BehaviourTarget {
  kind: 'empty';
}

/** Destroy the socket without answering. */
export interface DisconnectBehaviour extends BehaviourTarget {
  kind: 'disconnect';
}

/** Any HTTP error in the provider's wire shape (e.g. 400, 403, 404, 413). */
export interface HttpErrorBehaviour extends BehaviourTarget {
  kind: 'http-error';
  status: number;
  message?: string;
  /** OpenAI `error.type` / Anthropic `error.type`; a sensible default is derived from `status`. */
  type?: string;
  /** OpenAI `error.code` (ignored for Anthropic). */
  code?: string | null;
  headers?: Record<string, string>;
}

export type FakeBehaviour =
  | OkBehaviour
  | RateLimitBehaviour
  | ServerErrorBehaviour
  | TimeoutBehaviour
  | MalformedJsonBehaviour
  | WrongShapeBehaviour
  | GarbageBehaviour
  | TruncatedBehaviour
  | EmptyBehaviour
  | DisconnectBehaviour
  | HttpErrorBehaviour;

export interface FakeProviderOptions {
  /** Key both APIs accept. Default 'test-key'. */
  apiKey?: string;
  /** Delay added before every response (including errors), in ms. Default 0. */
  latencyMs?: number;
  /**
   * Context window in tokens (counted as documented above). A generation request
   * whose input exceeds it gets the provider's real-looking 400
   * (OpenAI `context_length_exceeded`, Anthropic "prompt is too long"). Default: no limit.
   * count_tokens is never limited (like the real endpoint).
   */
  contextWindow?: number;
  /**
   * Also reject when input + max_tokens exceeds `contextWindow` (as the real APIs
   * do). Default false: only the input is checked.
   */
  contextWindowIncludesMaxTokens?: boolean;
  /** Model ids listed by GET /v1/models. Default ['fake-summarizer']. */
  models?: string[];
  /** Initial default behaviour. Default `{ kind: 'ok' }`. */
  defaultBehaviour?: FakeBehaviour;
  /** Characters per SSE delta when streaming. Default 32. */
  streamChunkChars?: number;
  /** Request bodies larger than this get a 413. Default 32 MiB (Anthropic's limit). */
  maxBodyBytes?: number;
}

/** One request as the fake saw it. */
export interface RecordedRequest {
  method: string;
  /** Path without query string, e.g. '/v1/chat/completions'. */
  path: string;
  route: FakeRoute | null;
  api: FakeApi | null;
  /** Node's lower-cased header object. */
  headers: IncomingHttpHeaders;
  /** Parsed JSON body (undefined for GET / unparseable bodies). Typed loosely for test ergonomics. */
  body: any;
  rawBody: string;
  /** Date.now() when the body had been read. */
  receivedAt: number;
  /** Counted input tokens (POST routes with a valid body). */
  inputTokens?: number;
  /** Kind of behaviour that was applied (undefined if rejected earlier, e.g. 401/400). */
  behaviour?: FakeBehaviour['kind'];
  /** HTTP status sent (undefined while pending, for 'timeout' and 'disconnect'). */
  status?: number;
}

export interface FakeProvider {
  /** e.g. 'http://127.0.0.1:54321' */
  readonly url: string;
  readonly port: number;
  /** `${url}/v1` — the OpenAI SDK appends '/chat/completions' or '/responses'. */
  readonly openaiBaseURL: string;
  /** `${url}` — the Anthropic SDK appends '/v1/messages' itself. */
  readonly anthropicBaseURL: string;
  readonly apiKey: string;
  /** Every request received, in arrival order (cleared by reset()). */
  readonly requests: RecordedRequest[];
  /** The most recent request, if any. */
  readonly lastRequest: RecordedRequest | undefined;
  /** Number of behaviours still queued. */
  readonly queued: number;
  /** Queue behaviours; each is consumed by the next matching request, then the default applies. */
  enqueue(...behaviours: FakeBehaviour[]): void;
  /** Behaviour for requests with nothing queued (routes it doesn't target get a plain 'ok'). */
  setDefault(behaviour: FakeBehaviour): void;
  /** Clear requests and queue, restore the default behaviour and id counters. */
  reset(): void;
  /** Stop the server, destroying open sockets (hanging requests included). Idempotent. */
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------
// Deterministic token counting and prompt extraction
// ---------------------------------------------------------------------------

/** A piece of request text with the role it came from ('system', 'user', 'assistant', 'tool', 'tools'). */
export interface PromptPiece {
  role: string;
  text: string;
}

/** ceil(chars / 4). */
export function countTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Text of a content value: a string, or an array of parts/blocks (OpenAI or Anthropic). */
function contentText(content: unknown, out: string[]): void {
  if (typeof content === 'string') {
    out.push(content);
    return;
  }
  if (!Array.isArray(content)) return;
  for (const part of content) {
    if (typeof part === 'string') {
      out.push(part);
      continue;
    }
    if (!part || typeof part !== 'object') continue;
    const p = part as Record<string, unknown>;
    if (typeof p.text === 'string') out.push(p.text); // OpenAI text part / Anthropic text block
    if (typeof p.thinking === 'string') out.push(p.thinking); // Anthropic thinking block
    if (p.type === 'tool_use' || p.type === 'server_tool_use') out.push(JSON.stringify(p.input ?? {}));
    if (p.type === 'tool_result') contentText(p.content, out);
  }
}

/**
 * All text of a request body, in order, tagged with its role. Works for both
 * OpenAI chat / Responses bodies and Anthropic messages / count_tokens bodies.
 */
export function extractPromptPieces(body: unknown): PromptPiece[] {
  const pieces: PromptPiece[] = [];
  if (!body || typeof body !== 'object') return pieces;
  const b = body as Record<string, unknown>;
  const push = (role: string, texts: string[]): void => {
    for (const text of texts) pieces.push({ role, text });
  };

  // Anthropic top-level system prompt.
  if (b.system !== undefined) {
    const texts: string[] = [];
    contentText(b.system, texts);
    push('system', texts);
  }
  // OpenAI Responses `instructions` and `input`.
  pieces.push(...responsesInputPieces(b));
  if (Array.isArray(b.messages)) {
    for (const m of b.messages) {
      if (!m || typeof m !== 'object') continue;
      const msg = m as Record<string, unknown>;
      const role = typeof msg.role === 'string' ? msg.role : 'user';
      const texts: string[] = [];
      contentText(msg.content, texts);
      // OpenAI assistant tool calls (and the legacy function_call).
      if (Array.isArray(msg.tool_calls)) {
        for (const call of msg.tool_calls) {
          const args = (call as { function?: { arguments?: unknown } })?.function?.arguments;
          if (typeof args === 'string') texts.push(args);
        }
      }
      const fnArgs = (msg.function_call as { arguments?: unknown } | undefined)?.arguments;
      if (typeof fnArgs === 'string') texts.push(fnArgs);
      push(role, texts);
    }
  }
  // Tool definitions count too (both APIs bill them).
  if (Array.isArray(b.tools) && b.tools.length > 0) {
    push(
      'tools',
      b.tools.map((t) => JSON.stringify(t)),
    );
  }
  return pieces;
}

/** Deterministic input-token count of a request body: ceil(total text chars / 4). */
export function countRequestTokens(body: unknown): number {
  const chars = extractPromptPieces(body).reduce((n, p) => n + p.text.length, 0);
  return Math.ceil(chars / 4);
}

// ---------------------------------------------------------------------------
// Deterministic summary
// ---------------------------------------------------------------------------

/**
 * File paths with at least one directory and an extension: `src/foo.ts`,
 * `./a/b.js`, `/testbed/django/forms/widgets.py`. The look-behind stops matches
 * starting inside a word, a path or a URL (`https://x.y/z.html` is not a path).
 */
const FILE_PATH_RE = /(?<![\w./:~@-])(?:\.{1,2}\/|~\/|\/)?(?:[\w@+-][\w.@+-]*\/)+[\w.@+-]*\w\.[A-Za-z][A-Za-z0-9]{0,9}\b/g;
const ERROR_LINE_RE = /Error|Traceback|FAILED/;
const PENDING_LINE_RE = /\b(TODO|Next steps?|Pending|Remaining)\b/i;
const ROUND_RE = /Compaction Round\s+(\d+)/g;

const MAX_PATHS = 40;
const MAX_ERROR_LINES = 20;
const MAX_PENDING_LINES = 5;

function oneLine(text: string, max: number): string {
  const collapsed = text.replace(/\s+/g, ' ').trim();
  return collapsed.length > max ? `${collapsed.slice(0, max - 1)}…` : collapsed;
}

/** Unique file paths in order of first appearance. */
export function extractFilePaths(text: string): string[] {
  const seen = new Set<string>();
  for (const m of text.matchAll(FILE_PATH_RE)) {
    seen.add(m[0]);
    if (seen.size >= MAX_PATHS) break;
  }
  return [...seen];
}

/** Unique non-heading lines matching `re`, trimmed and shortened. */
function matchingLines(text: string, re: RegExp, max: number): string[] {
  const seen = new Set<string>();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || !re.test(line)) continue;
    seen.add(oneLine(line, 200));
    if (seen.size >= max) break;
  }
  return [...seen];
}

/**
 * The fake's default completion: a structured summary derived only from the prompt.
 *
 *   ## Session Summary (Compaction Round N)      N = largest `Compaction Round <N>` in the prompt, else 1
 *   ### Original Task                            first non-heading line of the first user message, ≤300 chars
 *   ### Completed Work                           one bullet per file path found in the prompt
 *   ### Key Technical Decisions                  message/token counts + a sha256 digest of the prompt
 *   ### Current State                            last non-empty line of the prompt
 *   ### Pending Work                             lines mentioning TODO / Next step / Pending / Remaining
 *   ### Errors & Resolutions                     lines containing Error / Traceback / FAILED
 *
 * Markdown heading lines (`#...`) are skipped when collecting lines, so a prompt
 * template's "### Errors & Resolutions" is not reported as an error.
 */
export function buildFakeSummary(pieces: PromptPiece[]): string {
  const all = pieces.map((p) => p.text).join('\n');

  let round = 0;
  for (const m of all.matchAll(ROUND_RE)) round = Math.max(round, Number(m[1]));
  if (round < 1) round = 1;

  const firstUser = pieces.find((p) => p.role === 'user' && p.text.trim());
  const taskLine = firstUser?.text.split(/\r?\n/).find((l) => l.trim() && !l.trim().startsWith('#'));
  const task = taskLine ? oneLine(taskLine, 300) : '(no user message)';

  const paths = extractFilePaths(all);
  const errors = matchingLines(all, ERROR_LINE_RE, MAX_ERROR_LINES);
  const pending = matchingLines(all, PENDING_LINE_RE, MAX_PENDING_LINES);

  const lines = all.split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const current = lines.length ? oneLine(lines[lines.length - 1], 200) : '(empty conversation)';

  const segments = pieces.filter((p) => p.role !== 'tools').length;
  const tokens = Math.ceil(pieces.reduce((n, p) => n + p.text.length, 0) / 4);
  const digest = createHash('sha256').update(all).digest('hex').slice(0, 12);
  const bullets = (items: string[], empty: string): string =>
    items.length ? items.map((i) => `- ${i}`).join('\n') : `- ${empty}`;

  return [
    `## Session Summary (Compaction Round ${round})`,
    '',
    '### Original Task',
    task,
    '',
    '### Completed Work',
    bullets(
      paths.map((p) => `Worked on \`${p}\``),
      'No file changes recorded.',
    ),
    '',
    '### Key Technical Decisions',
    `- Summarised ${segments} text segment(s), ${tokens} input tokens (prompt digest ${digest}).`,
    '',
    '### Current State',
    `- ${current}`,
    '',
    '### Pending Work',
    bullets(pending, 'Continue from the current state.'),
    '',
    '### Errors & Resolutions',
    bullets(errors, 'No errors recorded.'),
    '',
  ].join('\n');
}

/** What the fake would answer (before max_tokens truncation) for a request body. */
export function fakeSummaryFor(body: unknown): string {
  return buildFakeSummary(extractPromptPieces(body));
}

// ---------------------------------------------------------------------------
// Provider-shaped error bodies
// ---------------------------------------------------------------------------

interface ErrorSpec {
  status: number;
  message: string;
  /** Overrides the type derived from the status. */
  type?: string;
  /** OpenAI `code` (default null). */
  code?: string | null;
  /** OpenAI `param` (default null). */
  param?: string | null;
  headers?: Record<string, string>;
}

function openaiErrorType(status: number): string {
  if (status === 429) return 'requests';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

function anthropicErrorType(status: number): string {
  switch (status) {
    case 400:
    case 413:
    case 422:
      return 'invalid_request_error';
    case 401:
      return 'authentication_error';
    case 402:
      return 'billing_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 408:
    case 504:
      return 'timeout_error';
    case 409:
      return 'conflict_error';
    case 429:
      return 'rate_limit_error';
    case 529:
      return 'overloaded_error';
    default:
      return status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}

function errorBody(api: FakeApi, spec: ErrorSpec, requestId: string): unknown {
  if (api === 'openai') {
    return {
      error: {
        message: spec.message,
        type: spec.type ?? openaiErrorType(spec.status),
        param: spec.param ?? null,
        code: spec.code ?? null,
      },
    };
  }
  return {
    type: 'error',
    error: { type: spec.type ?? anthropicErrorType(spec.status), message: spec.message },
    request_id: requestId,
  };
}

// ---------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  if (ms <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

class BodyTooLargeError extends Error {}

function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) tooLarge = true; // keep draining so we can still answer
      else chunks.push(chunk);
    });
    req.on('end', () => (tooLarge ? reject(new BodyTooLargeError()) : resolve(Buffer.concat(chunks).toString('utf8'))));
    req.on('error', reject);
  });
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  const auth = headerValue(headers, 'authorization');
  const m = auth?.match(/^Bearer\s+(.+)$/i);
  return m ? m[1].trim() : undefined;
}

function routeMatches(b: FakeBehaviour, route: FakeRoute): boolean {
  const target = b.route;
  if (target === '*') return true;
  if (target === undefined) return GENERATION_ROUTES.includes(route);
  return typeof target === 'string' ? target === route : target.includes(route);
}

function maskKey(key: string): string {
  return key.length <= 8 ? '****' : `${key.slice(0, 3)}****${key.slice(-4)}`;
}

// ---------------------------------------------------------------------------
// The server
// ---------------------------------------------------------------------------

const OK: OkBehaviour = { kind: 'ok' };

export async function startFakeProvider(opts: FakeProviderOptions = {}): Promise<FakeProvider> {
  const apiKey = opts.apiKey ?? 'test-key';
  const latencyMs = opts.latencyMs ?? 0;
  const contextWindow = opts.contextWindow ?? Infinity;
  const models = opts.models ?? ['fake-summarizer'];
  const chunkChars = Math.max(1, opts.streamChunkChars ?? 32);
  const maxBodyBytes = opts.maxBodyBytes ?? 32 * 1024 * 1024;
  const initialDefault = opts.defaultBehaviour ?? OK;

  const requests: RecordedRequest[] = [];
  let queue: FakeBehaviour[] = [];
  let defaultBehaviour: FakeBehaviour = initialDefault;
  let seq = 0;
  let closed = false;

  // Everything that must die on close(): sockets and per-request abort controllers.
  const sockets = new Set<Socket>();
  const inflight = new Set<AbortController>();

  /** Next behaviour for `route`: the first queued one that targets it, else the default. */
  function takeBehaviour(route: FakeRoute): FakeBehaviour {
    const i = queue.findIndex((b) => routeMatches(b, route));
    if (i >= 0) return queue.splice(i, 1)[0];
    return routeMatches(defaultBehaviour, route) ? defaultBehaviour : OK;
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      // A bug in the fake: answer 500 rather than leave the client hanging.
      console.error('[fake-llm-provider] handler failed:', err);
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `fake provider bug: ${String(err)}`, type: 'server_error' } }));
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const ctrl = new AbortController();
    inflight.add(ctrl);
    // 'close' fires when the response finished OR the client went away; either way stop waiting.
    res.on('close', () => {
      ctrl.abort();
      inflight.delete(ctrl);
    });
    const signal = ctrl.signal;

    const method = (req.method ?? 'GET').toUpperCase();
    const path = new URL(req.url ?? '/', 'http://fake').pathname.replace(/\/+$/, '') || '/';
    const headers = req.headers;
    // Anthropic-ish if it carries Anthropic headers; decides the error shape for unknown routes too.
    const looksAnthropic =
      headerValue(headers, 'anthropic-version') !== undefined || headerValue(headers, 'x-api-key') !== undefined;

    let route: FakeRoute | null = null;
    let api: FakeApi | null = null;
    if (method === 'POST' && path === '/v1/chat/completions') [route, api] = ['chat.completions', 'openai'];
    else if (method === 'POST' && path === '/v1/responses') [route, api] = ['responses', 'openai'];
    else if (method === 'POST' && path === '/v1/messages') [route, api] = ['messages', 'anthropic'];
    else if (method === 'POST' && path === '/v1/messages/count_tokens') [route, api] = ['messages.count_tokens', 'anthropic'];
    else if (method === 'GET' && path === '/v1/models') [route, api] = ['models', looksAnthropic ? 'anthropic' : 'openai'];
    const shape: FakeApi = api ?? (looksAnthropic || path.startsWith('/v1/messages') ? 'anthropic' : 'openai');

    const n = ++seq; // numbers this request's ids
    const requestId = shape === 'openai' ? `req_fake_${n}` : `req_fake${String(n).padStart(20, '0')}`;
    const idHeaders: Record<string, string> =
      shape === 'openai' ? { 'x-request-id': requestId } : { 'request-id': requestId };

    let rawBody = '';
    let bodyTooLarge = false;
    try {
      rawBody = await readBody(req, maxBodyBytes);
    } catch (err) {
      if (!(err instanceof BodyTooLargeError)) return; // client went away mid-upload
      bodyTooLarge = true;
    }

    const rec: RecordedRequest = { method, path, route, api, headers, body: undefined, rawBody, receivedAt: Date.now() };
    requests.push(rec);

    // --- response writers ------------------------------------------------
    /** The 'truncated' behaviour: the success response dies halfway (see sendJson and the SSE writers). */
    let truncate = false;
    /** SSE writes so far (a truncated stream dies after two). */
    let sseWrites = 0;
    const sendJson = (status: number, body: unknown, extra: Record<string, string> = {}): void => {
      if (res.destroyed || res.headersSent) return;
      rec.status = status;
      const text = JSON.stringify(body);
      res.writeHead(status, {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(text)),
        ...idHeaders,
        ...extra,
      });
      if (truncate && status === 200) {
        // The full length is announced; half of it is sent, then the connection dies.
        res.write(text.slice(0, Math.floor(text.length / 2)), () => res.socket?.destroy());
        return;
      }
      res.end(text);
    };
    const sendError = (spec: ErrorSpec): void =>
      sendJson(spec.status, errorBody(shape, spec, requestId), spec.headers ?? {});

    if (latencyMs > 0 && !(await sleep(latencyMs, signal))) return;

    // --- routing ---------------------------------------------------------
    if (!route || !api) {
      sendError({
        status: 404,
        message:
          shape === 'openai'
            ? `Invalid URL (${method} ${path})${path.startsWith('/v1') ? '' : " - is '/v1' missing from the OpenAI baseURL?"}`
            : `Not Found: ${method} ${path}`,
      });
      return;
    }
    if (bodyTooLarge) {
      sendError({ status: 413, type: shape === 'anthropic' ? 'request_too_large' : undefined, message: 'Request exceeds the maximum allowed number of bytes.' });
      return;
    }

    // --- authentication ----------------------------------------------------
    if (api === 'openai') {
      const token = bearerToken(headers);
      if (!token) {
        sendError({
          status: 401,
          message:
            "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
        });
        return;
      }
      if (token !== apiKey) {
        sendError({
          status: 401,
          code: 'invalid_api_key',
          message: `Incorrect API key provided: ${maskKey(token)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
        });
        return;
      }
    } else {
      const key = headerValue(headers, 'x-api-key') ?? bearerToken(headers);
      if (!key) {
        sendError({ status: 401, message: 'x-api-key header is required' });
        return;
      }
      if (key !== apiKey) {
        sendError({ status: 401, message: 'invalid x-api-key' });
        return;
      }
      if (!headerValue(headers, 'anthropic-version')) {
        sendError({ status: 400, message: 'anthropic-version: header is required' });
        return;
      }
    }

    // --- body parsing & validation ------------------------------------------
    let body: Record<string, any> = {};
    if (method === 'POST') {
      try {
        const parsed: unknown = JSON.parse(rawBody);
        if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
        body = parsed as Record<string, any>;
        rec.body = body;
      } catch {
        sendError({
          status: 400,
          message:
            api === 'openai'
              ? "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)"
              : 'There was an error parsing the body of your request. Please ensure it is valid JSON.',
        });
        return;
      }
      const invalid = validate(route, body);
      if (invalid) {
        sendError({ status: 400, message: invalid.message, param: invalid.param, code: invalid.code });
        return;
      }
    }

    const pieces = method === 'POST' ? extractPromptPieces(body) : [];
    const inputTokens = Math.ceil(pieces.reduce((n, p) => n + p.text.length, 0) / 4);
    if (method === 'POST') rec.inputTokens = inputTokens;
    const maxTokens = maxTokensOf(route, body);

    // --- context window (generation routes only; a validation error, so it doesn't consume the queue) ---
    if (GENERATION_ROUTES.includes(route) && Number.isFinite(contextWindow)) {
      const requested = opts.contextWindowIncludesMaxTokens && maxTokens !== undefined ? inputTokens + maxTokens : inputTokens;
      if (inputTokens > contextWindow || requested > contextWindow) {
        if (route === 'responses') {
          sendError({ status: 400, code: 'context_length_exceeded', param: 'input', message: RESPONSES_CONTEXT_MESSAGE });
        } else if (api === 'openai') {
          sendError({
            status: 400,
            code: 'context_length_exceeded',
            param: 'messages',
            message:
              requested > inputTokens
                ? `This model's maximum context length is ${contextWindow} tokens. However, you requested ${requested} tokens (${inputTokens} in the messages, ${maxTokens} in the completion). Please reduce the length of the messages or completion.`
                : `This model's maximum context length is ${contextWindow} tokens. However, your messages resulted in ${inputTokens} tokens. Please reduce the length of the messages.`,
          });
        } else {
          sendError({
            status: 400,
            message:
              inputTokens > contextWindow
                ? `prompt is too long: ${inputTokens} tokens > ${contextWindow} maximum`
                : `input length and \`max_tokens\` exceed context limit: ${inputTokens} + ${maxTokens} > ${contextWindow}, decrease input length or \`max_tokens\` and try again`,
          });
        }
        return;
      }
    }

    // --- programmable behaviour -----------------------------------------------
    const behaviour = takeBehaviour(route);
    rec.behaviour = behaviour.kind;
    truncate = behaviour.kind === 'truncated';
    switch (behaviour.kind) {
      case 'rate-limit': {
        const h: Record<string, string> = { 'retry-after': String(behaviour.retryAfterSeconds ?? 1) };
        if (behaviour.retryAfterMs !== undefined) h['retry-after-ms'] = String(behaviour.retryAfterMs);
        if (behaviour.shouldRetry !== undefined) h['x-should-retry'] = String(behaviour.shouldRetry);
        sendError(
          api === 'openai'
            ? {
                status: 429,
                code: 'rate_limit_exceeded',
                headers: h,
                message: `Rate limit reached for ${String(body.model ?? 'fake-summarizer')} on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in ${behaviour.retryAfterSeconds ?? 1}s.`,
              }
            : { status: 429, headers: h, message: 'This request would exceed your organization’s rate limit. Please try again later.' },
        );
        return;
      }
      case 'server-error': {
        const status = behaviour.status ?? 500;
        const h: Record<string, string> = {};
        if (behaviour.shouldRetry !== undefined) h['x-should-retry'] = String(behaviour.shouldRetry);
        const message =
          status === 529
            ? 'Overloaded'
            : api === 'openai'
              ? 'The server had an error while processing your request. Sorry about that!'
              : status === 500
                ? 'Internal server error'
                : status === 502
                  ? 'Bad gateway'
                  : 'Service unavailable';
        sendError({ status, message, headers: h });
        return;
      }
      case 'http-error':
        sendError({
          status: behaviour.status,
          message: behaviour.message ?? `Fake error ${behaviour.status}`,
          type: behaviour.type,
          code: behaviour.code,
          headers: behaviour.headers,
        });
        return;
      case 'timeout':
        // Never answer. The socket dies when the client aborts or close() destroys it.
        return;
      case 'disconnect':
        req.socket.destroy();
        return;
      case 'malformed-json': {
        if (body.stream === true) {
          startSse();
          res.end('data: {"id":"broken","choices":[{"delta":{"content":"Hel\n\n');
          return;
        }
        if (res.destroyed) return;
        const text = api === 'openai' ? '{"id":"chatcmpl-broken","object":"chat.completion","choices":[{"message":' : '{"id":"msg_broken","type":"message","content":[{"type":"text","text":';
        rec.status = 200;
        res.writeHead(200, { 'content-type': 'application/json', ...idHeaders });
        res.end(text);
        return;
      }
      case 'wrong-shape':
        sendJson(200, behaviour.body !== undefined ? behaviour.body : { ok: true, data: ['not', 'a', 'completion'] });
        return;
      case 'garbage': {
        if (res.destroyed) return;
        const text = behaviour.body ?? '<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>';
        rec.status = 200;
        res.writeHead(200, { 'content-type': behaviour.contentType ?? 'text/html', 'content-length': String(Buffer.byteLength(text)), ...idHeaders });
        res.end(text);
        return;
      }
      case 'truncated':
        // Handled after the content is built (below): it needs the full body to cut it.
        break;
      case 'ok':
        if (behaviour.delayMs && !(await sleep(behaviour.delayMs, signal))) return;
        break;
      case 'empty':
        break;
    }

    // --- success responses ---------------------------------------------------
    if (route === 'models') {
      const list = behaviour.kind === 'empty' ? [] : models;
      if (api === 'openai') {
        sendJson(200, { object: 'list', data: list.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'fake' })) });
      } else {
        sendJson(200, {
          data: list.map((id) => ({ type: 'model', id, display_name: id, created_at: '2025-01-01T00:00:00Z' })),
          has_more: false,
          first_id: list[0] ?? null,
          last_id: list[list.length - 1] ?? null,
        });
      }
      return;
    }
    if (route === 'messages.count_tokens') {
      sendJson(200, { input_tokens: behaviour.kind === 'empty' ? 0 : inputTokens });
      return;
    }

    // Generation: content, then max_tokens truncation.
    const turn = (): FakeTurn => {
      const last: string[] = [];
      contentText(Array.isArray(body.messages) ? body.messages.at(-1)?.content : undefined, last);
      return { api, route, body, pieces, lastMessage: route === 'responses' ? responsesLastMessage(body) : last.join('\n') };
    };
    const scripted = behaviour.kind === 'ok' ? behaviour : undefined;
    const toolCalls = typeof scripted?.toolCalls === 'function' ? scripted.toolCalls(turn()) : (scripted?.toolCalls ?? []);
    const scriptedContent = typeof scripted?.content === 'function' ? scripted.content(turn()) : scripted?.content;
    let content =
      behaviour.kind === 'empty'
        ? ''
        : scriptedContent !== undefined
          ? scriptedContent
          : toolCalls.length > 0
            ? ''
            : buildFakeSummary(pieces);
    let truncated = false;
    if (maxTokens !== undefined && content.length > maxTokens * 4) {
      content = content.slice(0, maxTokens * 4);
      truncated = true;
    }
    const outputTokens = countTokens(content) + toolCalls.reduce((sum, c) => sum + countTokens(JSON.stringify(c.input)), 0);
    const model = String(body.model);
    const stream = body.stream === true;

    if (route === 'responses') {
      const reply = buildResponsesReply({ n, body, content, toolCalls, truncated, inputTokens, outputTokens, chunkChars });
      if (!stream) {
        sendJson(200, reply.response);
        return;
      }
      startSse();
      for (const event of reply.events) sseEvent(event.type, event);
      sseEnd();
      return;
    }
    if (api === 'openai') {
      const id = `chatcmpl-fake-${n}`;
      const created = Math.floor(Date.now() / 1000);
      const finishReason = truncated ? 'length' : toolCalls.length > 0 ? 'tool_calls' : 'stop';
      const openaiCalls = toolCalls.map((c, i) => ({ id: c.id ?? `call_${n}_${i}`, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.input) } }));
      const usage = {
        prompt_tokens: inputTokens,
        completion_tokens: outputTokens,
        total_tokens: inputTokens + outputTokens,
        prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
      };
      if (!stream) {
        sendJson(200, {
          id,
          object: 'chat.completion',
          created,
          model,
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: content === '' && openaiCalls.length > 0 ? null : content, refusal: null, annotations: [], ...(openaiCalls.length > 0 ? { tool_calls: openaiCalls } : {}) },
              logprobs: null,
              finish_reason: finishReason,
            },
          ],
          usage,
          service_tier: 'default',
          system_fingerprint: 'fp_fake',
        });
        return;
      }
      // SSE: role chunk, content chunks, finish chunk, optional usage chunk, [DONE].
      const includeUsage = body.stream_options?.include_usage === true;
      const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): void =>
        sseData({ id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_fake', choices, ...(includeUsage ? { usage: null } : {}), ...extra });
      startSse();
      chunk([{ index: 0, delta: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: null }]);
      for (const part of chunksOf(content)) chunk([{ index: 0, delta: { content: part }, logprobs: null, finish_reason: null }]);
      openaiCalls.forEach((call, index) => {
        chunk([{ index: 0, delta: { tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }, logprobs: null, finish_reason: null }]);
        for (const part of chunksOf(call.function.arguments)) chunk([{ index: 0, delta: { tool_calls: [{ index, function: { arguments: part } }] }, logprobs: null, finish_reason: null }]);
      });
      chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: finishReason }]);
      if (includeUsage) chunk([], { usage });
      sseEnd('data: [DONE]\n\n');
      return;
    }

    // Anthropic messages.
    const id = `msg_fake_${String(n).padStart(16, '0')}`;
    const stopReason = truncated ? 'max_tokens' : toolCalls.length > 0 ? 'tool_use' : 'end_turn';
    const toolUses = toolCalls.map((c, i) => ({ type: 'tool_use', id: c.id ?? `toolu_${n}_${i}`, name: c.name, input: c.input }));
    const usage = {
      input_tokens: inputTokens,
      output_tokens: outputTokens,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      cache_creation: null,
      server_tool_use: null,
      service_tier: 'standard',
      inference_geo: null,
      output_tokens_details: null,
      speed: null,
    };
    const contentBlocks: Record<string, unknown>[] = [
      ...((content === '' && behaviour.kind === 'empty') || (content === '' && toolUses.length > 0) ? [] : [{ type: 'text', text: content, citations: null }]),
      ...toolUses,
    ];
    const message = {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: contentBlocks,
      stop_reason: stopReason,
      stop_sequence: null,
      stop_details: null,
      container: null,
      diagnostics: null,
      usage,
    };
    if (!stream) {
      sendJson(200, message);
      return;
    }
    startSse();
    sseEvent('message_start', { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 0 } } });
    sseEvent('ping', { type: 'ping' });
    contentBlocks.forEach((block, index) => {
      if (block.type === 'tool_use') {
        sseEvent('content_block_start', { type: 'content_block_start', index, content_block: { ...block, input: {} } });
        for (const part of chunksOf(JSON.stringify(block.input))) {
          sseEvent('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: part } });
        }
      } else {
        sseEvent('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '', citations: null } });
        for (const part of chunksOf(content)) {
          sseEvent('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: part } });
        }
      }
      sseEvent('content_block_stop', { type: 'content_block_stop', index });
    });
    sseEvent('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null, stop_details: null },
      usage: { output_tokens: outputTokens },
    });
    sseEvent('message_stop', { type: 'message_stop' });
    sseEnd();

    // --- SSE helpers (hoisted; they close over res/rec) ---------------------
    function startSse(): void {
      rec.status = 200;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', ...idHeaders });
    }
    function sseWrite(text: string): void {
      if (res.destroyed) return;
      if (truncate && ++sseWrites > 2) {
        // A truncated stream: half of this event, then the connection dies.
        res.write(text.slice(0, Math.floor(text.length / 2)), () => res.socket?.destroy());
        truncate = false;
        sseWrites = Number.NEGATIVE_INFINITY;
        return;
      }
      if (sseWrites === Number.NEGATIVE_INFINITY) return;
      res.write(text);
    }
    function sseEnd(text = ''): void {
      // A truncated stream never ends cleanly.
      if (sseWrites !== Number.NEGATIVE_INFINITY) res.end(text);
    }
    function sseData(data: unknown): void {
      sseWrite(`data: ${JSON.stringify(data)}\n\n`);
    }
    function sseEvent(event: string, data: unknown): void {
      sseWrite(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    }
    function* chunksOf(text: string): Generator<string> {
      for (let i = 0; i < text.length; i += chunkChars) yield text.slice(i, i + chunkChars);
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    port,
    openaiBaseURL: `${url}/v1`,
    anthropicBaseURL: url,
    apiKey,
    requests,
    get lastRequest() {
      return requests[requests.length - 1];
    },
    get queued() {
      return queue.length;
    },
    enqueue(...behaviours: FakeBehaviour[]) {
      queue.push(...behaviours);
    },
    setDefault(behaviour: FakeBehaviour) {
      defaultBehaviour = behaviour;
    },
    reset() {
      requests.length = 0;
      queue = [];
      defaultBehaviour = initialDefault;
      seq = 0;
    },
    close() {
      if (closed) return Promise.resolve();
      closed = true;
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const ctrl of inflight) ctrl.abort(); // wake up delayed handlers
        for (const socket of sockets) socket.destroy(); // hanging and keep-alive connections
        server.closeAllConnections();
      });
    },
  };
}

// ---------------------------------------------------------------------------
// Request validation (the handful of checks the real APIs make first)
// ---------------------------------------------------------------------------

function validate(route: FakeRoute, body: Record<string, any>): { message: string; param?: string; code?: string } | undefined {
  if (route === 'responses') return validateResponsesBody(body);
  if (route === 'chat.completions') {
    if (typeof body.model !== 'string' || !body.model) return { message: 'you must provide a model parameter', param: 'model' };
    if (!Array.isArray(body.messages) || body.messages.length === 0) {
      return { message: `Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.`, param: 'messages' };
    }
    for (const key of ['max_tokens', 'max_completion_tokens'] as const) {
      const v = body[key];
      if (v !== undefined && v !== null && (!Number.isInteger(v) || v < 1)) {
        return { message: `Invalid '${key}': integer below minimum value. Expected a value >= 1, but got ${JSON.stringify(v)} instead.`, param: key };
      }
    }
    return undefined;
  }
  if (route === 'messages' || route === 'messages.count_tokens') {
    if (typeof body.model !== 'string' || !body.model) return { message: 'model: Field required' };
    if (!Array.isArray(body.messages)) return { message: 'messages: Field required' };
    if (route === 'messages') {
      if (body.max_tokens === undefined) return { message: 'max_tokens: Field required' };
      if (!Number.isInteger(body.max_tokens) || body.max_tokens < 1) return { message: 'max_tokens: Input should be greater than or equal to 1' };
    }
  }
  return undefined;
}

/** The output cap of a generation request, if any. */
function maxTokensOf(route: FakeRoute, body: Record<string, any>): number | undefined {
  if (route === 'chat.completions') {
    const v = body.max_completion_tokens ?? body.max_tokens;
    return typeof v === 'number' ? v : undefined;
  }
  if (route === 'messages') return typeof body.max_tokens === 'number' ? body.max_tokens : undefined;
  if (route === 'responses') return typeof body.max_output_tokens === 'number' ? body.max_output_tokens : undefined;
  return undefined;
}
