/** POST /import: an agent's session log in, its conversation (in any format) and compactions out. */
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { standardErrorResponses } from '../src/errors.ts'
import { clientGoneSignal, contentLength } from '../src/plugins/compute-pool.ts'
import { importBody, importResponse } from '../src/use-cases/shapes/import.ts'

export default async function importRoutes(app: FastifyInstance) {
  app.withTypeProvider<ZodTypeProvider>().post('/import', {
    schema: {
      tags: ['compaction'],
      summary: 'Convert an agent session log (Claude Code, Codex CLI, Gemini CLI, pi, SWE-agent) into messages, with the compactions it records',
      description: 'Broken or unknown lines are reported in `issues` and skipped, never fatal. A body that is no log at all is a 400 `invalid_log` naming the field. See docs/api.md#post-import.',
      body: importBody,
      response: { 200: importResponse, ...standardErrorResponses },
    },
    handler: async (req, reply) => {
      // Reading a large log is CPU work: the compute pool (a small one stays inline).
      const gone = clientGoneSignal(reply)
      try {
        return await app.useCases.import({ tenantId: req.tenant.tenantId, signal: gone.signal, bodyBytes: contentLength(req) }, req.body)
      } finally {
        gone.done()
      }
    },
  })
}
