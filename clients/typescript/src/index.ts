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
 * page becomes `{ error: 'unexpected_response', message }`), and `unwrap`, which returns
 * the data or throws a typed `CompactdError`.
 */
import createClient, { type Client, type ClientOptions } from 'openapi-fetch'
import type { components, paths } from './schema.ts'

export type { components, paths } from './schema.ts'

/** The schemas of the API by name, e.g. `Schemas['CompactResponse']`. */
export type Schemas = components['schemas']
/** The body of every 4xx/5xx answer: `{ error, message, issues?, requestId }`. */
export type ApiErrorBody = components['schemas']['Error']
/** One problem of a validation error: the offending field's path and what is wrong. */
export type ApiIssue = NonNullable<ApiErrorBody['issues']>[number]

/** The openapi-fetch client for compactd's paths. */
export type CompactdClient = Client<paths, 'application/json'>

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
  return createClient<paths, 'application/json'>({
    ...rest,
    baseUrl,
    fetch: withApiErrors(retry === false ? authorized : withRetries(authorized, retry ?? {})),
  })
}

/** A 4xx/5xx answer of compactd, with the API's error code, message and issues. */
export class CompactdError extends Error {
  override readonly name = 'CompactdError'
  /** The HTTP status. */
  readonly status: number
  /** The stable error code, e.g. `validation_error`, `budget_unreachable`, `rate_limited`. */
  readonly error: string
  /** For validation errors: each offending field's path and what is wrong with it. */
  readonly issues: ApiIssue[]
  /** The request id (`x-request-id`), for support. */
  readonly requestId: string | undefined
  /** Retry-After in seconds, when the server sent one (429, 503). */
  readonly retryAfterSeconds: number | undefined
  /** The whole body: routes add fields, e.g. `minimumTokens` on a 422 `budget_unreachable`. */
  readonly body: ApiErrorBody

  constructor(status: number, body: ApiErrorBody, retryAfterSeconds?: number) {
    super(body.message)
    this.status = status
    this.error = body.error
    this.issues = body.issues ?? []
    this.requestId = body.requestId ?? undefined
    this.retryAfterSeconds = retryAfterSeconds
    this.body = body
  }
}

type Result = { data?: unknown; error?: unknown; response: Response }

/**
 * The data of a call, or a thrown `CompactdError`:
 *
 *   const estimate = await unwrap(compactd.POST('/estimate', { body }))
 */
export async function unwrap<R extends Result>(pending: Promise<R>): Promise<Exclude<R['data'], undefined>> {
  const result = await pending
  if (result.response.ok) return result.data as Exclude<R['data'], undefined>
  const retryAfter = retryAfterMs(result.response.headers.get('retry-after'))
  throw new CompactdError(result.response.status, asErrorBody(result.response.status, result.error), retryAfter === undefined ? undefined : retryAfter / 1000)
}

/** An error body in the API's shape whatever the server sent (the GET /summary 503 placeholder, a proxy's page). */
function asErrorBody(status: number, body: unknown): ApiErrorBody {
  if (body && typeof body === 'object' && typeof (body as ApiErrorBody).error === 'string' && typeof (body as ApiErrorBody).message === 'string') {
    return body as ApiErrorBody
  }
  const text = typeof body === 'string' ? body : body === undefined ? '' : JSON.stringify(body)
  return { ...(body && typeof body === 'object' ? body : {}), error: `http_${status}`, message: `HTTP ${status}${text ? `: ${text.slice(0, 500)}` : ''}` }
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

/**
 * Retry-After in milliseconds: delay-seconds or an HTTP date (RFC 9110 10.2.3); undefined
 * when absent or unreadable.
 */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined
  const trimmed = value.trim()
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000)
  const date = Date.parse(trimmed)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
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
