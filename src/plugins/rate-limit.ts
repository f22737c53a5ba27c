/** Per-API-key rate limiting (per client IP in open mode). 429 carries Retry-After. */
import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Config } from '../config.ts'
import { ApiError } from '../errors.ts'

export default fp(
  async function rateLimitPlugin(app: FastifyInstance, opts: { config: Config }) {
    await app.register(rateLimit, {
      global: true,
      // After auth, so the key is known.
      hook: 'preHandler',
      max: opts.config.RATE_LIMIT_MAX,
      timeWindow: opts.config.RATE_LIMIT_WINDOW_MS,
      keyGenerator: (req) => (req.tenant && req.tenant.keyId !== 'open-mode' ? `key:${req.tenant.keyId}` : `ip:${req.ip}`),
      // ctx.after is the time left, not the window: say the configured window, and when
      // to retry exactly as the Retry-After header does (the plugin rounds ttl up to seconds).
      errorResponseBuilder: (_req, ctx) => {
        const retryAfterSeconds = Math.ceil(ctx.ttl / 1000)
        return new ApiError(
          429,
          'rate_limited',
          `rate limit of ${ctx.max} requests per ${formatWindow(opts.config.RATE_LIMIT_WINDOW_MS)} exceeded; retry after ${retryAfterSeconds} s (Retry-After)`,
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
