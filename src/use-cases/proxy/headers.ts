/**
 * What the proxy reads from and passes on in headers (issue 23). The caller's provider
 * credentials (Authorization, x-api-key, anthropic-version, …) and every unknown header
 * pass through unchanged; compactd's own headers (x-compactd-*) and hop-by-hop ones do not.
 */
import { createHash } from 'node:crypto'
import type { IncomingHttpHeaders } from 'node:http'
import { ApiError } from '../../errors.ts'
import { HOP_BY_HOP } from '../../providers/upstream.ts'

/** Request headers never sent upstream: the upstream client's hop-by-hop list, `expect` (Node answers it), and compactd's own (x-compactd-*). */
const NOT_FORWARDED = new Set([...HOP_BY_HOP, 'expect'])

export function forwardedHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || NOT_FORWARDED.has(name) || name.startsWith('x-compactd-')) continue
    out[name] = Array.isArray(value) ? value.join(', ') : value
  }
  return out
}

const SESSION_ID = /^[A-Za-z0-9._:-]{1,200}$/

/** One header's value, or undefined; given twice it is a 400 naming it. */
function single(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name]
  if (Array.isArray(v)) throw new ApiError(400, 'validation_error', `${name}: given ${v.length} times; give it once`, [{ path: `headers.${name}`, message: 'given more than once' }])
  return v
}

/** The session from `x-compactd-session`, checked like every session id. */
export function givenSession(headers: IncomingHttpHeaders): string | undefined {
  const v = single(headers, 'x-compactd-session')
  if (v === undefined) return undefined
  if (!SESSION_ID.test(v)) throw new ApiError(400, 'validation_error', 'x-compactd-session: use 1-200 characters from A-Z a-z 0-9 . _ : -', [{ path: 'headers.x-compactd-session', message: 'use 1-200 characters from A-Z a-z 0-9 . _ : -' }])
  return v
}

/** `x-compactd-threshold`: tokens past which the request is compacted, overriding the model's. */
export function givenThreshold(headers: IncomingHttpHeaders): number | undefined {
  const v = single(headers, 'x-compactd-threshold')
  if (v === undefined) return undefined
  const n = Number(v)
  if (!/^\d{1,9}$/.test(v.trim()) || n < 1) throw new ApiError(400, 'validation_error', 'x-compactd-threshold: a whole number of tokens, at least 1', [{ path: 'headers.x-compactd-threshold', message: 'a whole number of tokens, at least 1' }])
  return n
}

/**
 * A session for a client that names none: one per conversation, from the tenant, the
 * system prompt and the first user message (what every later request of the same
 * conversation repeats), so a plain SDK loop gets one session without changes.
 */
export function derivedSession(tenantId: string, system: unknown, messages: readonly unknown[]): string {
  const firstUser = messages.find((m) => typeof m === 'object' && m !== null && (m as { role?: unknown }).role === 'user')
  const hash = createHash('sha256').update(tenantId).update('\u0000').update(JSON.stringify(system ?? null)).update('\u0000').update(JSON.stringify(firstUser ?? null))
  return `proxy-${hash.digest('hex').slice(0, 24)}`
}

/** `x-compactd-focus`: what the proxy's compactions give room to (/compact's `focus`), at most 2,000 characters. */
export function givenFocus(headers: IncomingHttpHeaders): string | undefined {
  const v = single(headers, 'x-compactd-focus')?.trim()
  if (!v) return undefined
  if (v.length > 2_000) throw new ApiError(400, 'validation_error', 'x-compactd-focus: at most 2000 characters', [{ path: 'headers.x-compactd-focus', message: 'at most 2000 characters' }])
  return v
}

/** `x-compactd-recall`: `on` lets the proxy answer the model's search_context calls itself (./recall.ts); `off` (the default) does not. */
export function givenRecall(headers: IncomingHttpHeaders): boolean {
  const v = single(headers, 'x-compactd-recall')
  if (v === undefined || v === 'off') return false
  if (v === 'on') return true
  throw new ApiError(400, 'validation_error', 'x-compactd-recall: "on" or "off"', [{ path: 'headers.x-compactd-recall', message: '"on" or "off"' }])
}

/** `x-compactd-trigger`: `auto` (the default), `manual` (only `x-compactd-compact: now` compacts) or `off`; overrides the session's trigger. */
export function givenTrigger(headers: IncomingHttpHeaders): 'off' | 'manual' | 'auto' | undefined {
  const v = single(headers, 'x-compactd-trigger')
  if (v === undefined) return undefined
  if (v === 'off' || v === 'manual' || v === 'auto') return v
  throw new ApiError(400, 'validation_error', 'x-compactd-trigger: "off", "manual" or "auto"', [{ path: 'headers.x-compactd-trigger', message: '"off", "manual" or "auto"' }])
}

/** `x-compactd-not-mid-turn`: `true` never compacts while the last assistant message has tool calls without results. */
export function givenNotMidTurn(headers: IncomingHttpHeaders): boolean | undefined {
  const v = single(headers, 'x-compactd-not-mid-turn')
  if (v === undefined) return undefined
  if (v === 'true' || v === 'false') return v === 'true'
  throw new ApiError(400, 'validation_error', 'x-compactd-not-mid-turn: "true" or "false"', [{ path: 'headers.x-compactd-not-mid-turn', message: '"true" or "false"' }])
}

/** `x-compactd-compact: now`: compact this request whatever its size (a manual compaction: it closes the session's breaker). */
export function givenCompactNow(headers: IncomingHttpHeaders): boolean {
  const v = single(headers, 'x-compactd-compact')
  if (v === undefined) return false
  if (v === 'now') return true
  throw new ApiError(400, 'validation_error', 'x-compactd-compact: "now"', [{ path: 'headers.x-compactd-compact', message: '"now"' }])
}
