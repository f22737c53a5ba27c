/**
 * @compactd/client: a typed client for the compactd HTTP API.
 *
 * The types are generated from openapi.yaml (./schema.ts, by clients/generate.ts) and
 * openapi-fetch is the transport, so every route, parameter, body and response is typed
 * by the spec itself:
 *
 *   const compactd = createCompactdClient({ baseUrl: 'http://127.0.0.1:3000' })
 *   const { data, error } = await compactd.POST('/estimate', { body: { model: 'gpt-4o', messages } })
 *
 * What this file adds to openapi-fetch: the API key, retries with backoff on 429 and 503
 * (honouring Retry-After), error bodies that always have the API's shape (a proxy's HTML
 * page becomes `{ error: 'unexpected_response', message }`), `unwrap`, which returns
 * the data or throws a typed `CompactdError` (./errors.ts), and the archive's recall
 * tools (./recall.ts): `search`, `read` and `answerRecall` on the client, and the tool
 * definitions `recallToolsOpenAI()` and `recallToolsAnthropic()`.
 */
import createClient, { type Client, type ClientOptions } from 'openapi-fetch'
import { retryAfterMs } from './errors.ts'
import { recallMethods, type RecallMethods } from './recall.ts'
import type { components, paths } from './schema.ts'

export type { components, paths } from './schema.ts'
export { CompactdError, retryAfterMs, unwrap, type ApiErrorBody, type ApiIssue } from './errors.ts'
export {
  recallToolsAnthropic,
  recallToolsOpenAI,
  type AnswerOptions,
  type AnthropicTool,
  type ArchivedMessage,
  type ArchiveSearch,
  type OpenAIFunctionTool,
  type ReadOptions,
  type RecallMethods,
  type RecallToolName,
} from './recall.ts'

/** The schemas of the API by name, e.g. `Schemas['CompactResponse']`. */
export type Schemas = components['schemas']

/**
 * The openapi-fetch client for compactd's paths (`GET`, `POST`, … typed by the spec),
 * with the archive's `search`, `read` and `answerRecall`.
 */
export type CompactdClient = Client<paths, 'application/json'> & RecallMethods

export interface RetryInfo {
  /** 1 for the first retry. */
  attempt: number
  /** The status that is retried (429 or 503). */
  status: number
  /** How long the client waits before retrying. */
  delayMs: number
  /** The server's Retry-After, in milliseconds, when it sent one. */
  retryAfterMs: number | undefined
  method: string
  url: string
}

export interface RetryOptions {
  /** Retries after the first attempt. Default 3. */
  retries?: number
  /** First backoff delay when the server sends no Retry-After; doubles each retry. Default 250 ms. */
  baseDelayMs?: number
  /**
   * Longest wait before a retry. A Retry-After longer than this is not waited for: the
   * 429/503 is returned at once (the caller decides). Default 30 s.
   */
  maxDelayMs?: number
  /** Called before each retry (logging, metrics). */
  onRetry?: (info: RetryInfo) => void
}

export interface CompactdClientOptions extends Omit<ClientOptions, 'baseUrl' | 'fetch'> {
  /** Where compactd listens, e.g. `http://127.0.0.1:3000`. */
  baseUrl: string
  /** An API key from `npm run key:create` (sent as `Authorization: Bearer`); none in open mode. */
  apiKey?: string
  /** Retries on 429 and 503; `false` turns them off. */
  retry?: RetryOptions | false
  /** The fetch to use (default: the global one). */
  fetch?: (input: Request) => Promise<Response>
}

/** A client for every route of compactd, typed by openapi.yaml. */
export function createCompactdClient(options: CompactdClientOptions): CompactdClient {
  const { baseUrl, apiKey, retry, fetch = (input: Request) => globalThis.fetch(input), ...rest } = options
  const authorized = (input: Request) => {
    if (apiKey !== undefined && !input.headers.has('authorization')) input.headers.set('authorization', `Bearer ${apiKey}`)
    return fetch(input)
  }
  const client = createClient<paths, 'application/json'>({
    ...rest,
    baseUrl,
    fetch: withApiErrors(retry === false ? authorized : withRetries(authorized, retry ?? {})),
  })
  return Object.assign(client, recallMethods(client))
}

/** Error answers always carry a JSON body in the API's shape, so `error` is what its type says. */
function withApiErrors(fetch: (input: Request) => Promise<Response>): (input: Request) => Promise<Response> {
  return async (input) => {
    const response = await fetch(input)
    if (response.ok) return response
    const text = await response.text()
    let body: unknown = text
    try {
      body = JSON.parse(text)
    } catch {
      body = { error: 'unexpected_response', message: `HTTP ${response.status} ${response.statusText}${text ? `: ${text.slice(0, 500)}` : ''}`.trim() }
    }
    if (body === null || typeof body !== 'object') body = { error: 'unexpected_response', message: `HTTP ${response.status}: ${text.slice(0, 500)}` }
    const headers = new Headers(response.headers)
    headers.set('content-type', 'application/json')
    headers.delete('content-length')
    headers.delete('content-encoding')
    return new Response(JSON.stringify(body), { status: response.status, statusText: response.statusText, headers })
  }
}

const APPEND = /\/sessions\/[^/]+\/messages\/?$/

/**
 * Whether a 429/503 may be sent again. A 429 is refused before anything happens. A 503 may
 * come after the database committed an append (docs/api.md): an append is retried only
 * with an Idempotency-Key, which makes the retry return the stored response.
 */
function mayRetry(request: Request, status: number): boolean {
  if (status === 429) return true
  if (status !== 503) return false
  return !(request.method === 'POST' && APPEND.test(new URL(request.url).pathname) && !request.headers.has('idempotency-key'))
}

function withRetries(fetch: (input: Request) => Promise<Response>, options: RetryOptions): (input: Request) => Promise<Response> {
  const retries = options.retries ?? 3
  const baseDelayMs = options.baseDelayMs ?? 250
  const maxDelayMs = options.maxDelayMs ?? 30_000
  return async (input) => {
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= retries
      // A clone per attempt: a request body can be read once.
      const response = await fetch(last ? input : input.clone())
      if (last || !mayRetry(input, response.status)) return response
      const serverDelay = retryAfterMs(response.headers.get('retry-after'))
      if (serverDelay !== undefined && serverDelay > maxDelayMs) return response
      const backoff = Math.min(maxDelayMs, baseDelayMs * 2 ** attempt)
      // The server's delay is waited in full; without one, backoff with jitter (half to all of it).
      const delayMs = serverDelay ?? Math.round(backoff / 2 + Math.random() * (backoff / 2))
      options.onRetry?.({ attempt: attempt + 1, status: response.status, delayMs, retryAfterMs: serverDelay, method: input.method, url: input.url })
      await response.body?.cancel().catch(() => {})
      await sleep(delayMs, input.signal)
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason)
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal.reason)
    }
    signal.addEventListener('abort', onAbort, { once: true })
  })
}
