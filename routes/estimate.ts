/** POST /estimate: token counts, the model's limits, and whether to compact. */
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { standardErrorResponses } from '../src/errors.ts'
import { clientGoneSignal, contentLength } from '../src/plugins/compute-pool.ts'
import { estimateBody, estimateQuery, estimateResponse } from '../src/use-cases/shapes/estimate.ts'

export default async function estimateRoutes(app: FastifyInstance) {
  app.withTypeProvider<ZodTypeProvider>().post('/estimate', {
    schema: {
      tags: ['tokens'],
      summary: 'Count a conversation\'s tokens and check it against the compaction threshold',
      body: estimateBody,
      querystring: estimateQuery,
      response: { 200: estimateResponse, ...standardErrorResponses },
    },
    handler: async (req, reply) => {
      // Counting a large body is CPU work: the compute pool (a small one stays inline); the signal is made only then.
      const gone = clientGoneSignal(reply)
      try {
        const input = req.query.perMessage ? req.body : { ...req.body, perMessage: false }
        return await app.useCases.estimate({ tenantId: req.tenant.tenantId, signal: gone.signal, bodyBytes: contentLength(req) }, input)
      } finally {
        gone.done()
      }
    },
  })
}
