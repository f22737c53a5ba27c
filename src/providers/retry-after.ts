/**
 * The provider SDKs' fetch (both SDKs, the summarizers and Anthropic count_tokens, are
 * built with it): redirects refused, and the provider's Retry-After kept within bounds.
 *
 * Redirects: fetch (and so both SDKs) follows a 3xx by default and re-sends the whole
 * request, prompt and all, to wherever `Location` points: a provider, or anything posing
 * as one on its base URL, answering `307 Location: http://127.0.0.1:…/` received the
 * conversation elsewhere. Here every request is sent with `redirect: 'manual'` and a 3xx
 * answer is turned into a provider error the SDKs do not retry (`x-should-retry: false`),
 * with a body that says why and not where (its Location is dropped): the call fails with
 * HTTP 3xx, the caller falls back (or reports the provider error), and nothing is sent
 * anywhere but the configured base URL.
 *
 * Retry-After: both SDKs retry a 429 / 5xx after the delay its `retry-after-ms` or `retry-after`
 * header asks for, however long: openai 6.x sleeps it (not even the caller's abort
 * signal ends the sleep), @anthropic-ai/sdk up to 2^31 ms. One provider answering
 * `retry-after: 3600` held a POST /compact, or a background summary update, for hours
 * instead of falling back to rules (issue 10, faults). Here a wait longer than
 * `maxWaitMs` (PROVIDER_TIMEOUT_MS) is refused: the response is marked
 * `x-should-retry: false`, which both SDKs obey, so the call fails at once with the
 * provider's own error and the caller falls back. Shorter waits are retried as before.
 */

export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>

/** Set on a response whose retry was refused, with the delay the provider asked for (ms). */
export const RETRY_REFUSED_HEADER = 'x-compactd-retry-refused-ms'

/** The delay a response asks for before a retry, in ms (undefined when it names none). */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '')
  if (Number.isFinite(ms)) return ms
  const value = headers.get('retry-after')
  if (value === null || value.trim() === '') return undefined
  const seconds = Number.parseFloat(value)
  if (Number.isFinite(seconds)) return seconds * 1000
  const at = Date.parse(value)
  return Number.isFinite(at) ? at - now : undefined
}

/** Set on the error response that stands for a refused redirect, with the provider's status. */
export const REDIRECT_REFUSED_HEADER = 'x-compactd-redirect-refused'

/** The error response a 3xx becomes: the status kept, Location and body dropped, never retried. */
function refusedRedirect(res: Response): Response {
  void res.body?.cancel().catch(() => {})
  const message = `the provider answered HTTP ${res.status} (a redirect); compactd does not follow redirects: requests go only to the configured base URL`
  return new Response(JSON.stringify({ error: { type: 'redirect_refused', message } }), {
    status: res.status,
    statusText: res.statusText,
    headers: { 'content-type': 'application/json', 'x-should-retry': 'false', [REDIRECT_REFUSED_HEADER]: String(res.status) },
  })
}

export function boundedRetryFetch(maxWaitMs: number, inner: Fetch = (input, init) => fetch(input, init)): Fetch {
  return async (input, init) => {
    // Never followed, whatever the caller asked: a 3xx comes back here and is refused.
    const res = await inner(input, { ...init, redirect: 'manual' })
    if (res.status >= 300 && res.status < 400) return refusedRedirect(res)
    if (res.ok || res.headers.get('x-should-retry') === 'false') return res
    const wait = retryAfterMs(res.headers)
    if (wait === undefined || wait <= maxWaitMs) return res
    const headers = new Headers(res.headers)
    headers.set('x-should-retry', 'false')
    headers.set(RETRY_REFUSED_HEADER, String(Math.round(wait)))
    return new Response(res.body, { status: res.status, statusText: res.statusText, headers })
  }
}

/** The refused delay in ms, when `headers` (an SDK error's) carry the mark. */
export function refusedRetryMs(headers: unknown): number | undefined {
  const get = (headers as { get?: unknown } | null | undefined)?.get
  if (typeof get !== 'function') return undefined
  const v = Number.parseFloat(String(get.call(headers, RETRY_REFUSED_HEADER) ?? ''))
  return Number.isFinite(v) ? v : undefined
}
