/**
 * Sessions with rolling summaries (issue 4). Everything is scoped to the caller's tenant:
 * another tenant's session (or an unknown one) is a 404. Domain: src/sessions/.
 */
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { errorResponseSchema, standardErrorResponses } from '../src/errors.ts'
import { SUMMARY_UNAVAILABLE } from '../src/use-cases/sessions/index.ts'
import { sessionIdSchema } from '../src/use-cases/shapes/common.ts'
import { putSummaryBody, putSummaryResponse, refreshResponse, summarySchema } from '../src/use-cases/shapes/session-summary.ts'
import { appendBody, appendResponse, contextQuery, contextResponse, continuationResponse, putSessionBody, sessionSchema } from '../src/use-cases/shapes/sessions.ts'

const params = z.object({ id: sessionIdSchema.describe('The session id, chosen by the caller (1-200 characters from A-Z a-z 0-9 . _ : -).') })
const errors = { ...standardErrorResponses, 404: errorResponseSchema }

export default async function sessionRoutes(app: FastifyInstance) {
  const r = app.withTypeProvider<ZodTypeProvider>()

  r.put('/sessions/:id', {
    schema: {
      tags: ['sessions'],
      summary: "Create a session or update its settings (window, summary budget, batch size, mode)",
      params,
      body: putSessionBody,
      response: { 200: sessionSchema, 201: sessionSchema, 409: errorResponseSchema, ...errors },
    },
    handler: async (req, reply) => {
      const { created, session } = await app.useCases.sessions.putSession(req.tenant.tenantId, req.params.id, req.body)
      return reply.code(created ? 201 : 200).send(session)
    },
  })

  r.get('/sessions/:id', {
    schema: { tags: ['sessions'], summary: "A session's settings and counters", params, response: { 200: sessionSchema, ...errors } },
    handler: async (req) => app.useCases.sessions.getSession(req.tenant.tenantId, req.params.id),
  })

  r.delete('/sessions/:id', {
    schema: {
      tags: ['sessions'],
      summary: 'Delete a session: messages, summaries, checkpoints and queued work, in one transaction',
      params,
      response: { 204: z.null().describe('Deleted.'), ...errors },
    },
    handler: async (req, reply) => {
      await app.useCases.sessions.deleteSession(req.tenant.tenantId, req.params.id)
      return reply.code(204).send(null)
    },
  })

  r.post('/sessions/:id/messages', {
    schema: {
      tags: ['sessions'],
      summary: 'Append messages; returns the window state (idempotent with an Idempotency-Key)',
      description:
        'Creates the session on first use. Messages that fall out of the recent window are kept, marked evicted, and folded into the rolling summary in the background once batchSize exchanges have accumulated. With an `Idempotency-Key`, a retried request returns the first response (header `Idempotent-Replayed: true`) and appends nothing.',
      params,
      headers: z.object({
        'idempotency-key': z
          .string()
          .min(1)
          .max(200)
          .optional()
          .describe('Any unique string per logical append (e.g. a UUID). Reusing it with a different body is a 422.'),
      }),
      body: appendBody,
      response: { 200: appendResponse, 422: errorResponseSchema, ...errors },
    },
    handler: async (req, reply) => {
      const key = req.headers['idempotency-key']
      const { result, replayed } = await app.useCases.sessions.appendMessages(req.tenant.tenantId, req.params.id, req.body, key)
      if (replayed) reply.header('idempotent-replayed', 'true')
      return result
    },
  })

  r.get('/sessions/:id/summary', {
    schema: {
      tags: ['sessions'],
      summary: 'The current rolling summary (never waits on a running update)',
      description: `Reads the last committed version without locks. When the database is unreachable, returns the last summary this process saw (if the database confirmed it within SUMMARY_FALLBACK_MAX_AGE_MS) with \`stale\` and \`degraded\` true; failing that, the placeholder "${SUMMARY_UNAVAILABLE}" with status 503.`,
      params,
      response: { ...errors, 200: summarySchema, 503: summarySchema },
    },
    handler: async (req, reply) => {
      const { status, view } = await app.useCases.sessions.getSummary(req.tenant.tenantId, req.params.id)
      return reply.code(status).send(view)
    },
  })

  r.put('/sessions/:id/summary', {
    schema: {
      tags: ['sessions'],
      summary: 'Replace the summary by hand (a new version; compare-and-set on baseVersion)',
      params,
      body: putSummaryBody,
      response: { 200: putSummaryResponse, 409: errorResponseSchema, 422: errorResponseSchema, ...errors },
    },
    handler: async (req) => app.useCases.sessions.putSummary(req.tenant.tenantId, req.params.id, req.body),
  })

  r.post('/sessions/:id/summary/refresh', {
    schema: {
      tags: ['sessions'],
      summary: 'Queue a summary update now, at high priority',
      params,
      response: { 202: refreshResponse, ...errors },
    },
    handler: async (req, reply) => {
      const res = await app.useCases.sessions.refresh(req.tenant.tenantId, req.params.id)
      return reply.code(202).send({ sessionId: req.params.id, queued: res.queued, priority: 'high' as const, evictedAwaitingSummary: res.evictedAwaitingSummary })
    },
  })

  r.get('/sessions/:id/context', {
    schema: {
      tags: ['sessions'],
      summary: 'What to send to the model now: system, summary, recent window, within a budget',
      params,
      querystring: contextQuery,
      description: "The session's controls apply (PUT /sessions/:id): pinned messages are sent verbatim, preserved strings kept (a 422 `contract_unkept` when the budget cannot hold them), the focus and thinking policy given to its compaction, and its trigger decides whether it is compacted at all. While the session's compaction breaker is open, a context over the budget is a 409 `breaker_open` with Retry-After.",
      response: { 200: contextResponse, 409: errorResponseSchema, 422: errorResponseSchema, ...errors },
    },
    handler: async (req) => app.useCases.sessions.context(req.tenant.tenantId, req.params.id, req.query),
  })

  r.get('/sessions/:id/continuation', {
    schema: {
      tags: ['sessions'],
      summary: "Seed 003's continuation context: current task, steps, decisions, files, and a prompt block",
      params,
      response: { 200: continuationResponse, ...errors },
    },
    handler: async (req) => app.useCases.sessions.continuation(req.tenant.tenantId, req.params.id),
  })
}
