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
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
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

    app.addHook('preValidation', async (req) => {
      // Swagger UI's own routes take their own query strings (and are not the API).
      if (req.routeOptions.url?.startsWith('/docs')) return
      const issues = queryIssues(req)
      if (issues.length > 0) {
        throw new ApiError(400, 'validation_error', issues.map((i) => `${i.path}: ${i.message}`).join('; '), issues)
      }
      const tooDeep = findTooDeep(req.body)
      if (tooDeep !== undefined) {
        const what = tooDeep.inString ? `JSON text nested deeper than ${MAX_JSON_DEPTH} levels` : `nested deeper than ${MAX_JSON_DEPTH} levels (the body is level 1)`
        throw new ApiError(400, 'nesting_too_deep', `${tooDeep.path}: ${what}`, [{ path: tooDeep.path, message: what }])
      }
    })
  },
  { name: 'input-guards' },
)
