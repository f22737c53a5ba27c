/**
 * A session's stored checkpoints and statistics. Everything is scoped to the caller's
 * tenant: another tenant's session (or an unknown one) is a 404.
 */
import type { FastifyInstance } from 'fastify'
import { breakerStatusSchema } from '../src/use-cases/shapes/controls.ts'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { STRATEGY_NAMES } from '../src/engine/compaction/strategies/index.ts'
import { errorResponseSchema, standardErrorResponses } from '../src/errors.ts'
import { MAX_PAGE_SIZE, type Checkpoint } from '../src/use-cases/checkpoints.ts'
import { sessionIdSchema } from '../src/use-cases/shapes/common.ts'

const sessionParams = z.object({ id: sessionIdSchema.describe('The sessionId given to POST /compact.') })

const checkpointExample = {
  sessionId: 'agent-run-42',
  checkpointNum: 3,
  round: 3,
  strategy: 'rules',
  fromMessageIndex: 2,
  toMessageIndex: 13,
  messagesCompressed: 12,
  summary: '## Session Summary (Compaction Round 3)\n\n### Original Task\nFix the failing test in src/db.ts\n…',
  keyFacts: {
    currentTask: 'Fix the failing test in src/db.ts',
    completedSteps: ['edited test/db.test.ts: removed `afterEach(() => close())`', 'ran npm test -- test/db.test.ts (ok)'],
    pendingSteps: [],
    keyDecisions: [],
    relevantFiles: ['test/db.test.ts', 'src/db.ts', 'src/pool.ts', 'src/config.ts'],
    errors: ['npm test -- test/db.test.ts: Error: Called end on pool more than once (resolved)'],
    userRequests: [],
  },
  originalTokens: 7124,
  compressedTokens: 422,
  compressionRatio: 16.88,
  summaryCostUsd: 0,
  targetTokens: 1500,
  model: 'gpt-4o',
  durationMs: 63,
  summaryTokens: 308,
  foldedFrom: null,
  createdAt: '2026-11-22T13:23:20.601Z',
}

const checkpointSchema = z
  .object({
    sessionId: z.string().describe('The session it belongs to.'),
    checkpointNum: z.int().describe('1, 2, ... per session, gap-free in the order compactions were stored.'),
    round: z.int().nullable().describe('Compaction round of the summary (null when the compaction only masked).'),
    strategy: z.string().nullable().describe(`What produced it: a strategy of GET /strategies (${STRATEGY_NAMES.join(', ')}).`),
    fromMessageIndex: z.int().nullable().describe('First compacted message index of the compacted input.'),
    toMessageIndex: z.int().nullable().describe('Last compacted message index of the compacted input.'),
    messagesCompressed: z.int().nullable().describe('Messages summarised or masked.'),
    summary: z.string().describe('The summary text (`## Session Summary (Compaction Round N)` ...); empty when the compaction only masked.'),
    keyFacts: z.record(z.string(), z.unknown()).nullable().describe('Continuation facts: currentTask, completedSteps, pendingSteps, keyDecisions, relevantFiles, errors, userRequests.'),
    originalTokens: z.int().nullable().describe('Tokens of the conversation before compaction.'),
    compressedTokens: z.int().nullable().describe('Tokens after.'),
    compressionRatio: z.number().nullable().describe('originalTokens / compressedTokens.'),
    summaryCostUsd: z.number().nullable().describe('Cost of the summarizer calls.'),
    targetTokens: z.int().nullable().describe('The budget it compacted to (null on checkpoints stored before this field existed).'),
    model: z.string().nullable().describe('The model the tokens were counted for.'),
    durationMs: z.int().nullable().describe('How long the compaction took, in milliseconds (folded: the sum).'),
    summaryTokens: z.int().nullable().describe('Tokens of the summary it wrote (null when it only masked, or for a fold).'),
    foldedFrom: z
      .array(z.int())
      .nullable()
      .describe('When older checkpoints were folded into this one (COMPACTION_MAX_CHECKPOINTS): every original checkpoint number it stands for, its own included. Totals are their sums.'),
    createdAt: z.string().describe('ISO 8601.'),
  })
  .meta({ id: 'Checkpoint', example: checkpointExample })

function toJson(c: Checkpoint): z.infer<typeof checkpointSchema> {
  return {
    sessionId: c.sessionId,
    checkpointNum: c.checkpointNum,
    round: c.round,
    strategy: c.strategy,
    fromMessageIndex: c.fromMessageIndex,
    toMessageIndex: c.toMessageIndex,
    messagesCompressed: c.messagesCompressed,
    summary: c.summaryContent,
    keyFacts: c.keyFacts,
    originalTokens: c.originalTokens,
    compressedTokens: c.compressedTokens,
    compressionRatio: c.compressionRatio,
    summaryCostUsd: c.summaryCostUsd,
    targetTokens: c.targetTokens ?? null,
    model: c.model ?? null,
    durationMs: c.durationMs ?? null,
    summaryTokens: c.summaryTokens ?? null,
    foldedFrom: c.foldedFrom,
    createdAt: c.createdAt.toISOString(),
  }
}

const errors = { ...standardErrorResponses, 404: errorResponseSchema }

export default async function checkpointRoutes(app: FastifyInstance) {
  const r = app.withTypeProvider<ZodTypeProvider>()

  r.get('/sessions/:id/checkpoints', {
    schema: {
      tags: ['compaction'],
      summary: "A session's checkpoints, newest first, paginated",
      params: sessionParams,
      querystring: z.object({
        cursor: z.string().max(200).optional().describe('`nextCursor` of the previous page.'),
        limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).optional().describe(`Page size, 1-${MAX_PAGE_SIZE}. Default 20.`),
      }),
      response: {
        200: z
          .object({
            items: z.array(checkpointSchema).describe('Checkpoints, newest (highest number) first.'),
            nextCursor: z.string().nullable().describe('Pass as `cursor` for the next (older) page; null on the last page.'),
          })
          .meta({ id: 'CheckpointPage', example: { items: [checkpointExample], nextCursor: 'Y3A6Mw' } }),
        ...errors,
      },
    },
    handler: async (req) => {
      const page = await app.useCases.checkpoints.list(req.tenant.tenantId, req.params.id, { cursor: req.query.cursor, limit: req.query.limit })
      return { items: page.items.map(toJson), nextCursor: page.nextCursor }
    },
  })

  r.get('/sessions/:id/checkpoints/:num', {
    schema: {
      tags: ['compaction'],
      summary: 'One checkpoint of a session',
      params: sessionParams.extend({ num: z.coerce.number().int().min(1).max(2_147_483_647).describe('The checkpoint number.') }),
      response: { 200: checkpointSchema, ...errors },
    },
    handler: async (req) => toJson(await app.useCases.checkpoints.get(req.tenant.tenantId, req.params.id, req.params.num)),
  })

  r.get('/sessions/:id/stats', {
    schema: {
      tags: ['compaction'],
      summary: "A session's compaction totals: tokens saved, summary cost, checkpoints",
      params: sessionParams,
      response: {
        200: z
          .object({
            sessionId: z.string().describe('The session.'),
            checkpoints: z.int().describe('Checkpoints stored (after folding).'),
            tokensSaved: z.int().describe('Sum of originalTokens − compressedTokens over the checkpoints.'),
            totalSummaryCostUsd: z.number().describe('Sum of summaryCostUsd.'),
            averageCompressionRatio: z.number().describe('Token-weighted: sum(originalTokens) / sum(compressedTokens) (unchanged by folding).'),
            totalOriginalTokens: z.int().describe('Sum of originalTokens.'),
            totalCompressedTokens: z.int().describe('Sum of compressedTokens.'),
            breaker: breakerStatusSchema,
          })
          .meta({
            id: 'SessionStats',
            example: {
              sessionId: 'agent-run-42',
              checkpoints: 2,
              tokensSaved: 15817,
              totalSummaryCostUsd: 0.00153225,
              averageCompressionRatio: 3.85,
              totalOriginalTokens: 21372,
              totalCompressedTokens: 5555,
              breaker: { state: 'closed', recent: [] },
            },
          }),
        ...errors,
      },
    },
    handler: async (req) => app.useCases.checkpoints.totals(req.tenant.tenantId, req.params.id),
  })

  r.post('/sessions/:id/breaker/reset', {
    schema: {
      tags: ['compaction'],
      summary: "Close a session's compaction circuit breaker and clear its history",
      description: 'Automatic compactions (the proxy, GET /context) of the session run again. A successful manual compaction (POST /compact with the sessionId) does the same.',
      params: sessionParams,
      response: { 200: z.object({ sessionId: z.string(), breaker: breakerStatusSchema }).meta({ id: 'BreakerReset' }), ...errors },
    },
    handler: async (req) => ({ sessionId: req.params.id, breaker: await app.useCases.breaker.reset(req.tenant.tenantId, req.params.id) }),
  })
}
