/** POST /compact: fit a conversation into a token budget, in the caller's format. */
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { errorResponseSchema, standardErrorResponses } from '../src/errors.ts'
import { contentLength } from '../src/plugins/compute-pool.ts'
import { compactBody, compactResponse } from '../src/use-cases/shapes/compact.ts'
import { strategiesResponseSchema } from '../src/use-cases/shapes/strategies.ts'

export default async function compactRoutes(app: FastifyInstance) {
  app.withTypeProvider<ZodTypeProvider>().get('/strategies', {
    schema: {
      tags: ['compaction'],
      summary: 'The compaction strategies this server knows, its default pipeline, and the pipelines a menu offers',
      response: { 200: strategiesResponseSchema, ...standardErrorResponses },
    },
    handler: async () => app.useCases.strategies(),
  })

  app.withTypeProvider<ZodTypeProvider>().post('/compact', {
    schema: {
      tags: ['compaction'],
      summary: 'Compact a conversation to a token budget, keeping tool calls paired and recent messages verbatim',
      body: compactBody,
      response: { 200: compactResponse, ...standardErrorResponses, 409: errorResponseSchema, 422: errorResponseSchema },
    },
    handler: async (req, reply) => {
      // When the client goes away before the reply: provider calls stop, a queued
      // compaction leaves the compute queue.
      const controller = new AbortController()
      const onClose = () => {
        if (!reply.raw.writableEnded) controller.abort()
      }
      reply.raw.once('close', onClose)
      try {
        return await app.useCases.compact({ tenantId: req.tenant.tenantId, signal: controller.signal, bodyBytes: contentLength(req) }, req.body)
      } finally {
        reply.raw.off('close', onClose)
      }
    },
  })
}
