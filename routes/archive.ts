/**
 * The archive of what compaction dropped (issue 21): search a session's archived
 * originals, and read one back by the reference a placeholder, a log line or a hit gives.
 * Scoped to the caller's tenant: another tenant's session is a 404.
 */
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { errorResponseSchema, standardErrorResponses } from '../src/errors.ts'
import { readParams, readQuery, readResponse, searchQuery, searchResponse } from '../src/use-cases/shapes/archive.ts'
import { sessionIdSchema } from '../src/use-cases/shapes/common.ts'

const errors = { ...standardErrorResponses, 404: errorResponseSchema }

export default async function archiveRoutes(app: FastifyInstance) {
  const r = app.withTypeProvider<ZodTypeProvider>()

  r.get('/sessions/:id/search', {
    schema: {
      tags: ['archive'],
      summary: "Search a session's archive: the messages its compactions masked, summarised or dropped",
      params: z.object({ id: sessionIdSchema.describe('The sessionId given to POST /compact, or a session of /sessions.') }),
      querystring: searchQuery,
      response: { 200: searchResponse, ...errors },
    },
    handler: async (req) => app.useCases.archive.search(req.tenant.tenantId, req.params.id, req.query),
  })

  r.get('/sessions/:id/archive/:ref', {
    schema: {
      tags: ['archive'],
      summary: 'Read one archived message back, whole or by lines',
      params: readParams.extend({ id: sessionIdSchema }),
      querystring: readQuery,
      response: { 200: readResponse, ...errors },
    },
    handler: async (req) => app.useCases.archive.read(req.tenant.tenantId, req.params.id, req.params.ref, req.query),
  })
}
