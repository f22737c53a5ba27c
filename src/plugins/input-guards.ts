/**
 * Limits on what a request may carry, checked at the edge before any route runs:
 * - JSON bodies nest at most MAX_JSON_DEPTH levels: the message adapters and the engine
 *   walk tool inputs recursively, so a 5,000-deep value would overflow the stack (a 500);
 * - query strings are strict: a parameter the route does not declare, or one given
 *   twice, is a 400 naming `querystring.<name>` (as unknown body fields already are);
 *   so is a value holding NUL or a lone surrogate (text no SQL parameter can take), or
 *   one that is not valid percent-encoded UTF-8;
 * - no credential in the URL: `?api_key=…` and the like are a 400 credentials_in_url,
 *   before authentication (src/plugins/url-credentials.ts).
 * Both are 400 `{ error, message, issues, requestId }` through the error handler. Bodies
 * are JSON only: any other content type is a 415.
 */
import { Socket } from 'node:net'
import { errorCodes, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { z } from 'zod'
import { findTooDeep, inspectJson, MAX_JSON_DEPTH } from '../engine/json-depth.ts'
import { sqlTextProblem } from '../db/nul.ts'
import { ApiError, type ErrorIssue } from '../errors.ts'
import { refuseCredentialsInUrl } from './url-credentials.ts'

// The depth limit lives in the engine (the log importer applies it too); re-exported for the edge's callers.
export { findTooDeep, inspectJson, isTooDeep, MAX_JSON_DEPTH, type JsonVerdict } from '../engine/json-depth.ts'

/**
 * Objects and arrays a JSON body may hold. Parsed, a container costs 30–60 bytes of heap
 * for its 2–3 bytes of text, so a 20 MiB body of `[{},{},…]` would take ~430 MB; capped,
 * containers take at most ~64 MB whatever the body. Real conversations hold one container
 * per 200–500 bytes (the largest fixture: 600 KB), about 100,000 in a 20 MiB body.
 */
export const MAX_JSON_CONTAINERS = 1_000_000
/** Bodies up to this size are parsed without counting first: their worst case is ~21 × 1 MiB. */
const CONTAINER_SCAN_MIN_CHARS = 1024 * 1024

/**
 * Whether JSON text holds more than `max` objects and arrays (brackets outside strings),
 * counted before parsing so that such a body is never materialised.
 */
export function tooManyContainers(s: string, max: number = MAX_JSON_CONTAINERS): boolean {
  let n = 0
  let inString = false
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (inString) {
      if (c === 92) i++
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if ((c === 123 || c === 91) && ++n > max) return true
  }
  return false
}

/**
 * A body over BODY_LIMIT_BYTES is refused before it is read (its Content-Length says so)
 * or as soon as it passes the limit (chunked). The 413 goes out at once, but the client is
 * usually still sending: closing the socket then makes the kernel answer its next bytes
 * with a reset, and most clients (fetch, node:http) report that reset, not the 413 that
 * is waiting, unread, in their receive buffer. So the connection is not closed: Node
 * reads the rest of the body and throws it away (nothing is kept; the connection is
 * reused after it), for at most oversizedDrainBytes() and OVERSIZED_DRAIN_MS; past
 * either, or when the declared length is already past it, the connection is closed as before.
 */
export const OVERSIZED_DRAIN_MS = 10_000

/** Bytes of an oversized body read and discarded at most: 4 × the limit, and at least 64 MiB. */
export function oversizedDrainBytes(bodyLimit: number): number {
  return Math.max(4 * bodyLimit, 64 * 1024 * 1024)
}

export function lingerOverOversizedBody(req: FastifyRequest, reply: FastifyReply, bodyLimit: number): void {
  const raw = req.raw
  const socket = raw.socket
  // Only a real connection lingers: inject()'s stand-in socket has nothing to drain and no
  // destroy() (the timer below threw in any test process alive 10 s after a 413).
  if (raw.complete || !(socket instanceof Socket) || socket.destroyed) return
  const maxBytes = oversizedDrainBytes(bodyLimit)
  const declared = Number(raw.headers['content-length'])
  if (Number.isFinite(declared) && declared > maxBytes) return // fastify's Connection: close stays
  // Without Connection: close, Node discards the unread body after the response (or
  // keeps the stream flowing that fastify stopped reading) and keeps the connection.
  reply.removeHeader('connection')
  const readBefore = socket.bytesRead
  const started = Date.now()
  const stop = () => {
    clearInterval(timer)
    raw.off('end', stop)
    socket.off('close', stop)
  }
  const timer = setInterval(() => {
    if (raw.complete || socket.destroyed) return stop()
    if (socket.bytesRead - readBefore > maxBytes || Date.now() - started > OVERSIZED_DRAIN_MS) {
      stop()
      socket.destroy()
    }
  }, 50)
  timer.unref()
  raw.once('end', stop)
  socket.once('close', stop)
}

/** Query parameter names a route declares (its zod querystring object's keys); none without one. */
const declaredCache = new WeakMap<object, ReadonlySet<string>>()
const NONE: ReadonlySet<string> = new Set()
function declaredQueryKeys(schema: unknown): ReadonlySet<string> {
  if (!(schema instanceof z.ZodObject)) return NONE
  let keys = declaredCache.get(schema)
  if (!keys) {
    keys = new Set(Object.keys(schema.shape))
    declaredCache.set(schema, keys)
  }
  return keys
}

/**
 * Names of the query parameters whose raw value is not valid percent-encoded UTF-8 (`%80`,
 * an encoded lone surrogate `%ED%A0%80`, a bare `%`): the query parser keeps such text
 * as it came, undecoded, so the route would see other text than the client meant.
 */
function badlyEncoded(url: string): ReadonlySet<string> | undefined {
  const start = url.indexOf('?')
  if (start < 0 || url.indexOf('%', start) < 0) return undefined
  let out: Set<string> | undefined
  for (const pair of url.slice(start + 1).split('&')) {
    if (!pair.includes('%')) continue
    const eq = pair.indexOf('=')
    const rawName = eq < 0 ? pair : pair.slice(0, eq)
    let name = rawName
    try {
      name = decodeURIComponent(rawName.replace(/\+/g, ' '))
      if (eq >= 0) decodeURIComponent(pair.slice(eq + 1).replace(/\+/g, ' '))
    } catch {
      ;(out ??= new Set()).add(name)
    }
  }
  return out
}

function queryIssues(req: FastifyRequest): ErrorIssue[] {
  const query = req.query as Record<string, unknown> | undefined
  if (!query || typeof query !== 'object') return []
  const declared = declaredQueryKeys(req.routeOptions.schema?.querystring)
  const issues: ErrorIssue[] = []
  let undecodable: ReadonlySet<string> | undefined | null = null
  for (const [name, value] of Object.entries(query)) {
    const path = `querystring.${name}`
    if (!declared.has(name)) issues.push({ path, message: declared.size === 0 ? 'unknown query parameter (this route takes none)' : `unknown query parameter; expected ${[...declared].join(', ')}` })
    // The query parser turns a repeated name into an array; every parameter here is a scalar.
    else if (Array.isArray(value)) issues.push({ path, message: `given ${value.length} times; give it once` })
    else if (typeof value === 'string') {
      // Text every route's SQL can take (NUL is a 500 from PostgreSQL), percent-encoded as UTF-8.
      const problem = sqlTextProblem(value)
      if (problem) issues.push({ path, message: problem })
      else if (value.includes('%') && (undecodable === null ? (undecodable = badlyEncoded(req.url)) : undecodable)?.has(name)) {
        issues.push({ path, message: 'is not valid percent-encoded UTF-8 (send a literal % as %25)' })
      }
    }
  }
  return issues
}

/** Whether a route takes no body, or accepts none (its body schema allows undefined). */
const optionalBodyCache = new WeakMap<object, boolean>()
function bodyOptional(req: FastifyRequest): boolean {
  const schema = req.routeOptions.schema?.body
  if (schema === undefined || schema === null) return true
  if (typeof schema !== 'object') return false
  let optional = optionalBodyCache.get(schema)
  if (optional === undefined) {
    optional = schema instanceof z.ZodType ? schema.safeParse(undefined).success : false
    optionalBodyCache.set(schema, optional)
  }
  return optional
}

/**
 * The JSON body parser: JSON.parse and one walk of the result for the depth limit and
 * prototype poisoning (inspectJson), where fastify's default scanned the text with
 * secure-json-parse's regular expressions and this plugin then walked the value again.
 * Same answers: an empty or malformed body, or a poisoning key, is fastify's own
 * FST_ERR_CTP_* error (400 invalid_json); a value nested too deep is 400 nesting_too_deep.
 * The proxy's routes (routes/proxy.ts) parse with it too, keeping the bytes beside.
 */
export function parseGuardedJson(req: FastifyRequest, text: string, done: (err: Error | null, value?: unknown) => void): void {
  // No body with a JSON content type (many clients set it on every request): no body,
  // for a route that takes none (DELETE, GET, a refresh) or whose body is optional; an
  // empty body where one is required stays a 400 invalid_json.
  if (text.length === 0) return bodyOptional(req) ? done(null, undefined) : done(new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY(), undefined)
  if (text.length > CONTAINER_SCAN_MIN_CHARS && tooManyContainers(text)) {
    const what = `more than ${MAX_JSON_CONTAINERS.toLocaleString('en-US')} JSON objects and arrays`
    return done(new ApiError(413, 'payload_too_large', `the body holds ${what}; send fewer or larger values`, [{ path: 'body', message: what }]), undefined)
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return done(new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY(), undefined)
  }
  const verdict = inspectJson(value)
  if (verdict === 'ok') return done(null, value)
  if (verdict === 'poisoned') return done(new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY(), undefined)
  const tooDeep = findTooDeep(value) ?? { path: 'body', inString: false }
  const what = tooDeep.inString ? `JSON text nested deeper than ${MAX_JSON_DEPTH} levels` : `nested deeper than ${MAX_JSON_DEPTH} levels (the body is level 1)`
  done(new ApiError(400, 'nesting_too_deep', `${tooDeep.path}: ${what}`, [{ path: tooDeep.path, message: what }]), undefined)
}

export default fp(
  async function inputGuardsPlugin(app: FastifyInstance) {
    // The API takes JSON only: without this, fastify's built-in text/plain parser hands a
    // string to the routes, and a text body is a confusing "expected object" 400, not a 415.
    app.removeContentTypeParser('text/plain')

    // Before authentication (registered before the auth plugin): a key in the URL is a 400
    // credentials_in_url, whatever the route (src/plugins/url-credentials.ts).
    app.addHook('onRequest', refuseCredentialsInUrl)

    // A callback hook, not an async one: every request passes here (one less promise).
    app.addHook('preValidation', (req, _reply, done) => {
      // Swagger UI's own routes take their own query strings (and are not the API).
      // The proxy's routes pass the query on to the provider (routes/proxy.ts).
      if (req.routeOptions.url?.startsWith('/docs') || req.routeOptions.config?.proxy === true) return done()
      const issues = queryIssues(req)
      if (issues.length > 0) {
        return done(new ApiError(400, 'validation_error', issues.map((i) => `${i.path}: ${i.message}`).join('; '), issues))
      }
      done()
    })

    // The JSON body parser (parseGuardedJson above).
    app.removeContentTypeParser('application/json')
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => parseGuardedJson(req, body as string, done))
  },
  { name: 'input-guards' },
)
