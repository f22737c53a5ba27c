/**
 * Security headers on every response (@fastify/helmet; docs/security.md, API8).
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
 * PRE_ROUTING_HEADERS, the same headers as any API response; test/security.test.ts
 * compares the two sets.
 */
import helmet, { type FastifyHelmetOptions } from '@fastify/helmet'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { DOCS_ROUTE_PREFIX } from './swagger.ts'

/** Content-Security-Policy of every API response: JSON, nothing to load or frame. */
export const API_CSP = "default-src 'none';base-uri 'none';form-action 'none';frame-ancestors 'none'"

const apiHelmet: FastifyHelmetOptions = {
  global: true,
  contentSecurityPolicy: {
    useDefaults: false,
    directives: { defaultSrc: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"], frameAncestors: ["'none'"] },
  },
  frameguard: { action: 'deny' },
  referrerPolicy: { policy: 'no-referrer' },
}

/** Swagger UI's page and assets: same-origin scripts, styles and images only. */
const docsHelmet = {
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
 * The headers helmet gives an API response (with `Cache-Control: no-store`), for the
 * few responses written before any hook runs. Keep in step with apiHelmet: the test
 * "security headers on every response" fails when the two differ.
 */
export const PRE_ROUTING_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': API_CSP,
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'DENY',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
  'cache-control': 'no-store',
}

const isDocs = (url: string | undefined) => url !== undefined && (url === DOCS_ROUTE_PREFIX || url.startsWith(`${DOCS_ROUTE_PREFIX}/`))

export default fp(
  async function securityHeadersPlugin(app: FastifyInstance) {
    // Before the docs routes exist, so each gets Swagger UI's policy as it is added.
    app.addHook('onRoute', (route) => {
      if (isDocs(route.url)) route.config = { ...(route.config as object), helmet: docsHelmet } as typeof route.config
    })
    await app.register(helmet, apiHelmet)
    app.addHook('onRequest', async (req, reply) => {
      if (!isDocs(req.routeOptions.url)) reply.header('cache-control', 'no-store')
    })
  },
  { name: 'security-headers' },
)
