/**
 * Credentials never travel in a URL, and URLs are logged without query values.
 *
 * - A request whose query string carries a credential (a parameter named like one:
 *   `api_key`, `apikey`, `key`, `access_token`, `x-compactd-key`, …, or any name or value
 *   starting with the key prefix `cpd_`) is refused before authentication with a 400
 *   `credentials_in_url`: URLs end up in logs, proxies and browser history. Keys go in
 *   the `Authorization: Bearer <key>` header (src/plugins/auth.ts).
 * - The request serializer of the logger prints the path and, of the query string, the
 *   names and only the values of a few harmless parameters (sort, order, limit, …);
 *   every other value is `[redacted]`. So a refused request's key is not logged either.
 */
import type { FastifyRequest } from 'fastify'
import { ApiError } from '../errors.ts'
import { KEY_PREFIX } from '../tenancy/api-keys.ts'

/** Query parameter names (lower case, without `-`, `_`, `.`) that can only mean a credential. */
const CREDENTIAL_NAMES = new Set([
  'apikey',
  'key',
  'xapikey',
  'xcompactdkey',
  'compactdkey',
  'accesstoken',
  'token',
  'authtoken',
  'apitoken',
  'bearer',
  'auth',
  'authorization',
  'password',
  'secret',
  'clientsecret',
])

const KEY_PREFIX_LC = KEY_PREFIX.toLowerCase()

function normalName(name: string): string {
  return name.toLowerCase().replace(/[-_.\s]/g, '')
}

function startsWithKeyPrefix(s: string): boolean {
  return s.trimStart().toLowerCase().startsWith(KEY_PREFIX_LC)
}

/** The first query parameter that carries a credential, or undefined. */
export function credentialParameter(query: unknown): string | undefined {
  if (!query || typeof query !== 'object') return undefined
  for (const [name, value] of Object.entries(query as Record<string, unknown>)) {
    if (CREDENTIAL_NAMES.has(normalName(name)) || startsWithKeyPrefix(name)) return name
    const values = Array.isArray(value) ? value : [value]
    if (values.some((v) => typeof v === 'string' && startsWithKeyPrefix(v))) return name
  }
  return undefined
}

/** The 400 for a credential in the URL; it names the parameter, never its value. */
export function credentialsInUrlError(name: string): ApiError {
  // A name that is itself the key (`?cpd_…`) is not echoed.
  const shown = startsWithKeyPrefix(name) || name.length > 40 ? '(a key)' : name
  const path = `querystring.${shown}`
  return new ApiError(
    400,
    'credentials_in_url',
    `${path}: credentials are not accepted in the URL (URLs are logged and cached); send the API key in the Authorization header: Authorization: Bearer <key>`,
    [{ path, message: 'a credential in the URL; send it in the Authorization header' }],
  )
}

/** onRequest: refuse a request that carries a credential in its query string. */
export function refuseCredentialsInUrl(req: FastifyRequest, _reply: unknown, done: (err?: Error) => void): void {
  if (req.url.indexOf('?') < 0) return done()
  const name = credentialParameter(req.query)
  done(name === undefined ? undefined : credentialsInUrlError(name))
}

/** Query parameters whose values are logged: enums and numbers, never text a caller chose. */
const LOGGED_VALUES = new Set(['sort', 'order', 'limit', 'status', 'format', 'budget'])
const SAFE_NAME = /^[A-Za-z][\w.-]{0,39}$/
const SAFE_VALUE = /^[\w.-]{0,40}$/
/** A key anywhere in the path (a caller who used one as a session id): not logged either. */
const KEY_IN_PATH = new RegExp(`${KEY_PREFIX}[A-Za-z0-9_-]{8,}`, 'gi')

function decoded(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '))
  } catch {
    return s
  }
}

/**
 * A URL as logged: the path, and the query string with every value `[redacted]` except
 * those of LOGGED_VALUES (when they are short and plain); a name that is not a plain
 * identifier, or that holds a key, is `[redacted]` too.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?')
  const path = (q < 0 ? url : url.slice(0, q)).replace(KEY_IN_PATH, '[redacted]')
  if (q < 0) return path
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      if (pair === '') return pair
      const eq = pair.indexOf('=')
      const rawName = eq < 0 ? pair : pair.slice(0, eq)
      const name = decoded(rawName)
      const nameOk = SAFE_NAME.test(name) && !startsWithKeyPrefix(name)
      const shownName = nameOk ? name : '[redacted]'
      if (eq < 0) return shownName
      const value = pair.slice(eq + 1)
      const valueOk = nameOk && LOGGED_VALUES.has(name) && SAFE_VALUE.test(value) && !startsWithKeyPrefix(value)
      return `${shownName}=${valueOk ? value : '[redacted]'}`
    })
    .join('&')
  return `${path}?${query}`
}

/** Fastify's request serializer (method, url, host, address), with the URL redacted. */
export function serializeRequest(req: FastifyRequest): Record<string, unknown> {
  return {
    method: req.method,
    url: redactUrl(req.url),
    version: req.headers?.['accept-version'],
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket ? req.socket.remotePort : undefined,
  }
}
