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
      errorResponseBuilder: (_req, ctx) =>
        new ApiError(429, 'rate_limited', `rate limit of ${ctx.max} requests per ${ctx.after} window exceeded; retry after ${Math.ceil(ctx.ttl / 1000)} s`),
    })
  },
  { name: 'rate-limit', dependencies: ['auth'] },
)
