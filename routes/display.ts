/** POST /display: messages in the canonical display form (what the dashboard shows of any format); GET /formats: which formats there are. */
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { standardErrorResponses } from '../src/errors.ts'
import { displayBody, displayResponse, formatsResponse } from '../src/use-cases/shapes/display.ts'

export default async function displayRoutes(app: FastifyInstance) {
  app.withTypeProvider<ZodTypeProvider>().get('/formats', {
    schema: {
      tags: ['messages'],
      summary: 'The message formats this server reads and writes',
      response: { 200: formatsResponse, ...standardErrorResponses },
    },
    handler: async () => app.useCases.formats(),
  })

  app.withTypeProvider<ZodTypeProvider>().post('/display', {
    schema: {
      tags: ['messages'],
      summary: 'Messages of any format in one display form',
      description: 'One display message per element of `messages` (a Responses item is one), and the top-level `system` when given. A message its format refuses is shown with its role and JSON. Used by the dashboard.',
      body: displayBody,
      response: { 200: displayResponse, ...standardErrorResponses },
    },
    handler: async (req) => app.useCases.display(req.body),
  })
}
