/**
 * Security headers on every response (helmet's policies; docs/security.md, API8).
 *
 * The API answers JSON only, so its Content-Security-Policy allows nothing to load and
 * no page to frame it, and its responses are `Cache-Control: no-store` (they carry
 * conversations and summaries, which no shared cache should keep). Swagger UI under
 * /docs gets the policy its page needs: its own scripts (it has no inline script), its
 * own styles (inline styles allowed), images from itself and data: URLs, the OpenAPI
 * document fetched from the same origin. `upgrade-insecure-requests` is left out: the
 * service is often reached over plain HTTP (loopback, a private network), where that
 * directive would make the browser fetch Swagger UI's assets over https and fail.
 *
 * Responses written before routing (a bad URL, a path parameter over the router's
 * limit) or outside fastify (malformed HTTP, src/plugins/errors.ts) carry
 * PRE_ROUTING_HEADERS, the same constant every API response gets.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import helmet, { type HelmetOptions } from 'helmet'
import { DOCS_ROUTE_PREFIX } from './swagger.ts'

/** Content-Security-Policy of every API response: JSON, nothing to load or frame. */
export const API_CSP = "default-src 'none';base-uri 'none';form-action 'none';frame-ancestors 'none'"

const apiHelmet: HelmetOptions = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: { defaultSrc: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"], frameAncestors: ["'none'"] },
  },
  frameguard: { action: 'deny' },
  referrerPolicy: { policy: 'no-referrer' },
}

/** Swagger UI's page and assets: same-origin scripts, styles and images only. */
const docsHelmet: HelmetOptions = {
  ...apiHelmet,
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      baseUri: ["'self'"],
      connectSrc: ["'self'"],
      fontSrc: ["'self'", 'data:'],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
      imgSrc: ["'self'", 'data:'],
      objectSrc: ["'none'"],
      scriptSrc: ["'self'"],
      scriptSrcAttr: ["'none'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
    },
  },
}

/**
 * The headers helmet's middleware sets for `options`, captured once at start-up. Our
 * policies hold no per-request values (no nonces, no functions), so the headers are
 * constants: setting them is one `reply.headers()` per request, where running helmet per
 * request (as @fastify/helmet does) rebuilt its middleware and policy strings every time,
 * 5% of a small /estimate's CPU (docs/benchmarks.md).
 */
export function helmetHeaders(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {}
  const res = {
    setHeader(name: string, value: unknown) {
      headers[name.toLowerCase()] = String(value)
    },
    removeHeader() {},
    getHeader() {
      return undefined
    },
  }
  let failure: unknown
  let called = false
  helmet(options)({} as IncomingMessage, res as unknown as ServerResponse, (err?: unknown) => {
    called = true
    failure = err
  })
  if (!called || failure) throw new Error(`helmet did not produce static headers: ${String(failure ?? 'asynchronous middleware')}`)
  return headers
}

/**
 * The headers of every API response, error or not, with `Cache-Control: no-store`. Also
 * set by hand on the few responses written before any hook runs (src/plugins/errors.ts).
 */
export const PRE_ROUTING_HEADERS: Readonly<Record<string, string>> = Object.freeze({ ...helmetHeaders(apiHelmet), 'cache-control': 'no-store' })

/** Swagger UI's responses: its own policy; cacheable (static assets). */
export const DOCS_HEADERS: Readonly<Record<string, string>> = Object.freeze(helmetHeaders(docsHelmet))

const isDocs = (url: string | undefined) => url !== undefined && (url === DOCS_ROUTE_PREFIX || url.startsWith(`${DOCS_ROUTE_PREFIX}/`))

export default fp(
  async function securityHeadersPlugin(app: FastifyInstance) {
    // A callback hook, not an async one: one less promise per request.
    app.addHook('onRequest', (req, reply, done) => {
      reply.headers(isDocs(req.routeOptions.url) ? DOCS_HEADERS : PRE_ROUTING_HEADERS)
      done()
    })
  },
  { name: 'security-headers' },
)
