/**
 * The errors of @compactd/client: `CompactdError` (a 4xx/5xx answer in the API's shape),
 * `unwrap` (the data of a call, or that error thrown) and `retryAfterMs`.
 */
import type { components } from './schema.ts'

/** The body of every 4xx/5xx answer: `{ error, message, issues?, requestId }`. */
export type ApiErrorBody = components['schemas']['Error']
/** One problem of a validation error: the offending field's path and what is wrong. */
export type ApiIssue = NonNullable<ApiErrorBody['issues']>[number]

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
export function asErrorBody(status: number, body: unknown): ApiErrorBody {
  if (body && typeof body === 'object' && typeof (body as ApiErrorBody).error === 'string' && typeof (body as ApiErrorBody).message === 'string') {
    return body as ApiErrorBody
  }
  const text = typeof body === 'string' ? body : body === undefined ? '' : JSON.stringify(body)
  return { ...(body && typeof body === 'object' ? body : {}), error: `http_${status}`, message: `HTTP ${status}${text ? `: ${text.slice(0, 500)}` : ''}` }
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
