/**
 * Rate limiting. Keyed mode: RATE_LIMIT_MAX per API key. Open mode (no key exists, the
 * service listens on loopback only): RATE_LIMIT_OPEN_MAX per client address, no limit by
 * default, since every caller is on this host and one busy agent host must not be
 * throttled. 0 turns either limit off. Routes without a tenant (auth: false) that are
 * limited at all count per address against RATE_LIMIT_MAX. 429 carries Retry-After.
 */
import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { Config } from '../config.ts'
import { ApiError } from '../errors.ts'

export default fp(
  async function rateLimitPlugin(app: FastifyInstance, opts: { config: Config }) {
    const { RATE_LIMIT_MAX, RATE_LIMIT_OPEN_MAX, RATE_LIMIT_WINDOW_MS } = opts.config
    const openMode = (req: FastifyRequest) => req.tenant?.keyId === 'open-mode'
    const limitOf = (req: FastifyRequest) => (openMode(req) ? RATE_LIMIT_OPEN_MAX : RATE_LIMIT_MAX)
    await app.register(rateLimit, {
      global: true,
      // Right after auth (the key is known) and before the body is read: every request
      // counts, one that will be a 400 or a 413 included, and one over the limit costs
      // no parsing (a route-level hook, so it runs after auth's app-level onRequest).
      hook: 'onRequest',
      // A route whose config says rateLimit: false is never counted, even when that config
      // was set after this plugin's onRoute hook had already given it a limit.
      allowList: (req) => req.routeOptions.config?.rateLimit === false || limitOf(req) === 0,
      max: (req) => limitOf(req),
      timeWindow: RATE_LIMIT_WINDOW_MS,
      keyGenerator: (req) => (req.tenant && !openMode(req) ? `key:${req.tenant.keyId}` : `ip:${req.ip}`),
      // ctx.after is the time left, not the window: say the configured window, and when
      // to retry exactly as the Retry-After header does (the plugin rounds ttl up to seconds).
      errorResponseBuilder: (_req, ctx) => {
        const retryAfterSeconds = Math.ceil(ctx.ttl / 1000)
        return new ApiError(
          429,
          'rate_limited',
          `rate limit of ${ctx.max} requests per ${formatWindow(RATE_LIMIT_WINDOW_MS)} exceeded; retry after ${retryAfterSeconds} s (Retry-After)`,
          undefined,
          { retryAfterSeconds },
        )
      },
    })
  },
  { name: 'rate-limit', dependencies: ['auth'] },
)

/** 60000 → "60 s", 1500 → "1.5 s": the window as configured (RATE_LIMIT_WINDOW_MS). */
export function formatWindow(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`
}
