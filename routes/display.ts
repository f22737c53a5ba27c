/** POST /display: messages in the canonical display form (what the dashboard shows of any format). */
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { standardErrorResponses } from '../src/errors.ts'
import { displayConversation } from '../src/services/display.ts'
import { formatEnum, formatField, messagesField, systemField } from './schemas.ts'

const displayMessage = z
  .object({
    role: z.string().describe('The role: system, developer, user, assistant or tool.'),
    text: z.string().describe('Its text, reasoning (prefixed "(reasoning) ") and images ("[image]"), one a line.'),
    calls: z.array(z.object({ id: z.string(), name: z.string(), args: z.string().describe('The arguments as sent, serialized.') })).describe('Its tool calls.'),
    results: z.array(z.object({ id: z.string().describe('The call it answers.'), text: z.string(), isError: z.boolean().optional() })).describe('Its tool results.'),
  })
  .meta({ id: 'DisplayMessage' })

export default async function displayRoutes(app: FastifyInstance) {
  app.withTypeProvider<ZodTypeProvider>().post('/display', {
    schema: {
      tags: ['messages'],
      summary: 'Messages of any format in one display form',
      description: 'One display message per element of `messages` (a Responses item is one), and the top-level `system` when given. A message its format refuses is shown with its role and JSON. Used by the dashboard.',
      body: z.strictObject({ messages: messagesField, format: formatField, system: systemField }).meta({ id: 'DisplayRequest' }),
      response: {
        200: z
          .object({
            format: formatEnum.describe('The detected (or given) format.'),
            system: displayMessage.optional().describe('The top-level system prompt, when given.'),
            messages: z.array(displayMessage),
          })
          .meta({ id: 'DisplayResponse' }),
        ...standardErrorResponses,
      },
    },
    handler: async (req) => displayConversation(req.body),
  })
}
