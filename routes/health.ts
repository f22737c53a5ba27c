/** Liveness and readiness probes. No authentication, no rate limit. */
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'

const probeConfig = { auth: false, rateLimit: false } as const

export default async function healthRoutes(app: FastifyInstance) {
  const r = app.withTypeProvider<ZodTypeProvider>()
  r.get('/healthz', {
    config: probeConfig,
    schema: {
      tags: ['health'],
      summary: 'Liveness: the process is up',
      security: [],
      response: { 200: z.object({ status: z.literal('ok') }) },
    },
    handler: async () => ({ status: 'ok' as const }),
  })

  r.get('/readyz', {
    config: probeConfig,
    schema: {
      tags: ['health'],
      summary: 'Readiness: the database answers and every migration is applied',
      security: [],
      response: {
        200: z.object({ status: z.literal('ready'), database: z.string() }),
        // The one error shape (error, message, requestId), plus the probe's own fields.
        503: z.object({ status: z.literal('unavailable'), error: z.literal('not_ready'), message: z.string(), database: z.string(), requestId: z.string() }),
      },
    },
    handler: async (req, reply) => {
      const database = app.database.kind
      const requestId = req.id
      const state = await app.useCases.readiness()
      if (state.ready) return { status: 'ready' as const, database }
      return reply.code(503).send({ status: 'unavailable' as const, error: 'not_ready' as const, message: state.reason, database, requestId })
    },
  })
}
