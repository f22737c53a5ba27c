/**
 * Limits on what a request may carry, checked at the edge before any route runs:
 * - JSON bodies nest at most MAX_JSON_DEPTH levels: the message adapters and the engine
 *   walk tool inputs recursively, so a 5,000-deep value would overflow the stack (a 500);
 * - query strings are strict: a parameter the route does not declare, or one given
 *   twice, is a 400 naming `querystring.<name>` (as unknown body fields already are).
 * Both are 400 `{ error, message, issues, requestId }` through the error handler. Bodies
 * are JSON only: any other content type is a 415.
 */
import { Socket } from 'node:net'
import { errorCodes, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { z } from 'zod'
import { ApiError, type ErrorIssue } from '../errors.ts'

/**
 * Deepest nesting of a JSON body, counting the body itself as level 1. A message's tool
 * input sits at level 6 (body → messages → message → content → part → input), which
 * leaves it 58 levels of its own: far more than any real tool schema uses.
 */
export const MAX_JSON_DEPTH = 64

interface Frame {
  value: object
  depth: number
  parent: Frame | undefined
  key: string | number
}

function pathOf(frame: Frame, root: string): string {
  const keys: (string | number)[] = []
  for (let f: Frame | undefined = frame; f?.parent; f = f.parent) keys.push(f.key)
  let out = root
  for (let i = keys.length - 1; i >= 0; i--) {
    const k = keys[i]!
    out += typeof k === 'number' ? `[${k}]` : /^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`
  }
  return out
}

/**
 * Whether a string is JSON text nested deeper than `max` levels. The engine parses
 * JSON-looking strings (OpenAI tool arguments, tool results) and walks the result
 * recursively, so these count too. A bracket scan first (cheap, no allocation); only a
 * string over the limit is parsed (V8's JSON.parse is iterative), so text that merely
 * starts with brackets and is not JSON is left alone, as the engine leaves it.
 */
function jsonTextTooDeep(s: string, max: number): boolean {
  let i = 0
  while (i < s.length && (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 10 || s.charCodeAt(i) === 13 || s.charCodeAt(i) === 9)) i++
  const first = s.charCodeAt(i)
  if (first !== 123 && first !== 91) return false
  let depth = 0
  let inString = false
  let over = false
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (inString) {
      if (c === 92) i++ // backslash: skip the escaped character
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 123 || c === 91) {
      if (++depth > max) {
        over = true
        break
      }
    } else if (c === 125 || c === 93) depth--
  }
  if (!over) return false
  try {
    JSON.parse(s)
    return true
  } catch {
    return false
  }
}

/** What a body's one walk found: nothing, a value nested too deep, or a prototype-poisoning key. */
export type JsonVerdict = 'ok' | 'too-deep' | 'poisoned'

/**
 * One walk over a parsed body that allocates nothing per node (no key arrays, no frames
 * with parents): whether any value is nested deeper than `max` levels, as findTooDeep()
 * defines it (which runs only when this says so, to name the path), and whether an object
 * has a `__proto__` key or a `constructor` key holding a `prototype`: the keys a later
 * object merge could turn into prototype pollution. JSON.parse makes them plain own
 * properties; like fastify's default parser (secure-json-parse, which this replaces:
 * the walk is needed for the depth anyway), such a body is refused.
 */
export function inspectJson(value: unknown, max: number = MAX_JSON_DEPTH): JsonVerdict {
  if (typeof value === 'string') return jsonTextTooDeep(value, max) ? 'too-deep' : 'ok'
  if (value === null || typeof value !== 'object') return 'ok'
  const values: object[] = [value]
  const depths: number[] = [1]
  let verdict: JsonVerdict = 'ok'
  while (values.length > 0) {
    const v = values.pop()!
    const depth = depths.pop()!
    if (depth > max) return 'too-deep'
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const child: unknown = v[i]
        if (typeof child === 'string') {
          if (jsonTextTooDeep(child, max)) return 'too-deep'
        } else if (child !== null && typeof child === 'object') {
          values.push(child)
          depths.push(depth + 1)
        }
      }
    } else {
      for (const key in v) {
        const child: unknown = (v as Record<string, unknown>)[key]
        // Recorded, not returned: a too-deep value anywhere is the more specific answer.
        if (key === '__proto__' || (key === 'constructor' && child !== null && typeof child === 'object' && Object.hasOwn(child, 'prototype'))) verdict = 'poisoned'
        if (typeof child === 'string') {
          if (jsonTextTooDeep(child, max)) return 'too-deep'
        } else if (child !== null && typeof child === 'object') {
          values.push(child)
          depths.push(depth + 1)
        }
      }
    }
  }
  return verdict
}

/** Whether any value is nested deeper than `max` levels (inspectJson's depth half). */
export function isTooDeep(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  return inspectJson(value, max) === 'too-deep'
}

/**
 * Path of the first value nested deeper than `max` levels (depth-first, in document
 * order), or undefined: a container below level `max`, or a string holding JSON text
 * nested deeper than `max` on its own. Iterative with an explicit stack, so it cannot
 * overflow itself.
 */
export function findTooDeep(value: unknown, max: number = MAX_JSON_DEPTH, root = 'body'): { path: string; inString: boolean } | undefined {
  if (typeof value === 'string') return jsonTextTooDeep(value, max) ? { path: root, inString: true } : undefined
  if (value === null || typeof value !== 'object') return undefined
  const stack: Frame[] = [{ value, depth: 1, parent: undefined, key: '' }]
  while (stack.length > 0) {
    const frame = stack.pop()!
    if (frame.depth > max) return { path: pathOf(frame, root), inString: false }
    const v = frame.value
    const keys: (string | number)[] = Array.isArray(v) ? v.map((_, i) => i) : Object.keys(v)
    // Strings first, in order (they are leaves); containers pushed in reverse so the first is visited first.
    for (const key of keys) {
      const child: unknown = (v as Record<string | number, unknown>)[key]
      if (typeof child === 'string' && jsonTextTooDeep(child, max)) return { path: pathOf({ value: v, depth: frame.depth + 1, parent: frame, key }, root), inString: true }
    }
    for (let i = keys.length - 1; i >= 0; i--) {
      const child: unknown = (v as Record<string | number, unknown>)[keys[i]!]
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth: frame.depth + 1, parent: frame, key: keys[i]! })
    }
  }
  return undefined
}

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

function queryIssues(req: FastifyRequest): ErrorIssue[] {
  const query = req.query as Record<string, unknown> | undefined
  if (!query || typeof query !== 'object') return []
  const declared = declaredQueryKeys(req.routeOptions.schema?.querystring)
  const issues: ErrorIssue[] = []
  for (const [name, value] of Object.entries(query)) {
    const path = `querystring.${name}`
    if (!declared.has(name)) issues.push({ path, message: declared.size === 0 ? 'unknown query parameter (this route takes none)' : `unknown query parameter; expected ${[...declared].join(', ')}` })
    // The query parser turns a repeated name into an array; every parameter here is a scalar.
    else if (Array.isArray(value)) issues.push({ path, message: `given ${value.length} times; give it once` })
  }
  return issues
}

export default fp(
  async function inputGuardsPlugin(app: FastifyInstance) {
    // The API takes JSON only: without this, fastify's built-in text/plain parser hands a
    // string to the routes, and a text body is a confusing "expected object" 400, not a 415.
    app.removeContentTypeParser('text/plain')

    // A callback hook, not an async one: every request passes here (one less promise).
    app.addHook('preValidation', (req, _reply, done) => {
      // Swagger UI's own routes take their own query strings (and are not the API).
      if (req.routeOptions.url?.startsWith('/docs')) return done()
      const issues = queryIssues(req)
      if (issues.length > 0) {
        return done(new ApiError(400, 'validation_error', issues.map((i) => `${i.path}: ${i.message}`).join('; '), issues))
      }
      done()
    })

    // The JSON body parser: JSON.parse and one walk of the result for the depth limit and
    // prototype poisoning (inspectJson), where fastify's default scanned the text with
    // secure-json-parse's regular expressions and this plugin then walked the value again.
    // Same answers: an empty or malformed body, or a poisoning key, is fastify's own
    // FST_ERR_CTP_* error (400 invalid_json); a value nested too deep is 400 nesting_too_deep.
    app.removeContentTypeParser('application/json')
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
      const text = body as string
      if (text.length === 0) return done(new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY(), undefined)
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
    })
  },
  { name: 'input-guards' },
)
