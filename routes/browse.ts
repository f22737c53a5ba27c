/**
 * Paged read-only listings (issue 13, what the dashboard at /ui reads): the tenant's
 * sessions and compaction series, a session's summary versions, one version's text, and
 * a session's stored messages. Scoped to the caller's tenant; another tenant's session
 * is a 404. Domain: src/sessions/browse.ts.
 */
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { errorResponseSchema, standardErrorResponses } from '../src/errors.ts'
import { MAX_LIST_PAGE, SESSION_SORTS, type SummaryVersionInfo } from '../src/use-cases/browse.ts'
import type { MessageFormat } from '../src/engine/messages/registry.ts'
import { sessionIdSchema, formatEnum } from '../src/use-cases/shapes/common.ts'

const params = z.object({ id: sessionIdSchema.describe('The session id.') })
const errors = { ...standardErrorResponses, 404: errorResponseSchema }
const cursorField = z.string().max(500).optional().describe('`nextCursor` of the previous page.')
const limitField = (dflt: number) => z.coerce.number().int().min(1).max(MAX_LIST_PAGE).optional().describe(`Page size, 1-${MAX_LIST_PAGE}. Default ${dflt}.`)

const sessionListItem = z.object({
  id: z.string().describe('The session id (or the sessionId given to POST /compact).'),
  kind: z.enum(['session', 'series', 'both']).describe('`session`: a session with a rolling summary; `series`: only compactions stored with POST /compact and a sessionId; `both`.'),
  lastActivity: z.string().describe('ISO 8601: the latest append, settings change, summary version or checkpoint.'),
  messageCount: z.int().describe('Messages appended (0 for a series).'),
  windowMessages: z.int().describe('Messages in the recent window now (system messages excepted).'),
  windowTokens: z.int().describe('Tokens of the recent window now.'),
  windowLimit: z.object({ messages: z.int(), tokens: z.int() }).nullable().describe("The session's window size (null for a series)."),
  summaryVersion: z.int().describe('Current rolling-summary version (0: none).'),
  summaryTokens: z.int().describe('Tokens of the current summary.'),
  checkpoints: z.int().describe('Checkpoints stored (after folding).'),
  tokensSaved: z.int().describe('Sum of originalTokens − compressedTokens over the checkpoints.'),
  update: z
    .object({
      status: z.enum(['pending', 'running', 'failed']).describe('pending: queued; running: a worker holds it; failed: gave up after MAX_RETRIES.'),
      attempts: z.int().describe('Attempts so far.'),
      lastError: z.string().nullable().describe('The last attempt\'s error, when it failed.'),
    })
    .nullable()
    .describe('The queued background summary update, if any.'),
  updateFailures: z.int().describe('Failed attempts of the queued update (0 when none failed).'),
})

const versionInfo = {
  version: z.int().describe('The version (1, 2, ...).'),
  tokens: z.int().describe('Tokens of the version.'),
  updatedAt: z.string().describe('ISO 8601: when it was written.'),
  source: z.enum(['background', 'manual']).describe('As GET /summary reports it.'),
  writtenBy: z.enum(['background', 'aging', 'manual']).describe('`background`: an update that folded evicted messages in; `aging`: the daily re-aging (nothing new folded); `manual`: PUT /summary.'),
  mode: z.string().nullable().describe('Mode of the background update (rules, llm, llm-fallback); null for a manual version or when the update\'s record was purged (RUN_HISTORY_MS).'),
  foldedMessages: z.int().nullable().describe('Messages the update folded in; null as for mode.'),
}

const versionJson = (v: SummaryVersionInfo) => ({ ...v, updatedAt: v.updatedAt.toISOString() })

export default async function browseRoutes(app: FastifyInstance) {
  const r = app.withTypeProvider<ZodTypeProvider>()

  r.get('/sessions', {
    schema: {
      tags: ['sessions'],
      summary: 'The tenant\'s sessions and compaction series, searchable, sorted and paged',
      description: 'One row per id that is a session (PUT /sessions/:id, appends), a compaction series (POST /compact with a sessionId), or both, with its counters.',
      querystring: z.object({
        q: z.string().max(200).optional().describe('Only ids containing this text (case-insensitive).'),
        sort: z.enum(SESSION_SORTS).optional().describe('Sort key. Default lastActivity.'),
        order: z.enum(['asc', 'desc']).optional().describe('Default: desc (asc when sorting by id).'),
        cursor: cursorField,
        limit: limitField(50),
      }),
      response: {
        200: z
          .object({
            items: z.array(sessionListItem),
            nextCursor: z.string().nullable().describe('Pass as `cursor` (with the same q, sort and order) for the next page; null on the last page.'),
            total: z.int().describe('Rows matching `q`, on every page.'),
          })
          .meta({
            id: 'SessionList',
            example: {
              items: [
                {
                  id: 'agent-run-42',
                  kind: 'both',
                  lastActivity: '2026-11-22T13:24:02.930Z',
                  messageCount: 58,
                  windowMessages: 20,
                  windowTokens: 9120,
                  windowLimit: { messages: 20, tokens: 16000 },
                  summaryVersion: 3,
                  summaryTokens: 812,
                  checkpoints: 2,
                  tokensSaved: 15817,
                  update: null,
                  updateFailures: 0,
                },
              ],
              nextCursor: null,
              total: 1,
            },
          }),
        ...standardErrorResponses,
      },
    },
    handler: async (req) => {
      const page = await app.useCases.browse.sessions(req.tenant.tenantId, req.query)
      return { ...page, items: page.items.map((i) => ({ ...i, lastActivity: i.lastActivity.toISOString() })) }
    },
  })

  r.get('/sessions/:id/summary/versions', {
    schema: {
      tags: ['sessions'],
      summary: "A session's summary versions, newest first, paged (without their text)",
      params,
      querystring: z.object({ cursor: cursorField, limit: limitField(50) }),
      response: {
        200: z
          .object({
            items: z.array(z.object(versionInfo)),
            nextCursor: z.string().nullable().describe('Pass as `cursor` for the next (older) page; null on the last page.'),
          })
          .meta({
            id: 'SummaryVersionPage',
            example: {
              items: [{ version: 3, tokens: 812, updatedAt: '2026-11-22T13:23:20.601Z', source: 'background', writtenBy: 'background', mode: 'rules', foldedMessages: 6 }],
              nextCursor: null,
            },
          }),
        ...errors,
      },
    },
    handler: async (req) => {
      const page = await app.useCases.browse.summaryVersions(req.tenant.tenantId, req.params.id, req.query)
      return { items: page.items.map(versionJson), nextCursor: page.nextCursor }
    },
  })

  r.get('/sessions/:id/summary/versions/:version', {
    schema: {
      tags: ['sessions'],
      summary: 'One summary version, with its text',
      params: params.extend({ version: z.coerce.number().int().min(1).max(2_147_483_647).describe('The version.') }),
      response: {
        200: z
          .object({
            sessionId: z.string().describe('The session.'),
            ...versionInfo,
            content: z.string().describe('The document as stored, with the items\' `<!-- … -->` comments.'),
            text: z.string().describe('The same without the comments.'),
          })
          .meta({ id: 'SummaryVersion' }),
        ...errors,
      },
    },
    handler: async (req) => {
      const v = await app.useCases.browse.summaryVersion(req.tenant.tenantId, req.params.id, req.params.version)
      return { sessionId: req.params.id, ...versionJson(v), content: v.content, text: v.text }
    },
  })

  r.get('/sessions/:id/messages', {
    schema: {
      tags: ['sessions'],
      summary: "A session's stored messages, oldest first, paged (status=window: the recent window)",
      params,
      querystring: z.object({
        status: z.enum(['window', 'evicted', 'summarized']).optional().describe('Only messages in this state: the recent `window`, `evicted` awaiting summary, or `summarized`. Default: all.'),
        cursor: cursorField,
        limit: limitField(50),
      }),
      response: {
        200: z
          .object({
            sessionId: z.string().describe('The session.'),
            format: formatEnum.nullable().describe("The session's message format."),
            items: z.array(
              z.object({
                seq: z.int().describe('Position in the session (1, 2, ...).'),
                role: z.string().describe('The message\'s role.'),
                tokens: z.int().describe('Its tokens, counted for the session\'s model when appended.'),
                status: z.enum(['window', 'evicted', 'summarized']).describe('Where it is now.'),
                messageAt: z.string().describe('ISO 8601: its own timestamp, else when it was appended.'),
                message: z.unknown().describe('The message as appended.'),
              }),
            ),
            nextCursor: z.string().nullable().describe('Pass as `cursor` for the next (newer) page; null on the last page.'),
          })
          .meta({ id: 'SessionMessagePage' }),
        ...errors,
      },
    },
    handler: async (req) => {
      const page = await app.useCases.browse.messages(req.tenant.tenantId, req.params.id, req.query)
      return {
        sessionId: req.params.id,
        format: page.format as MessageFormat | null,
        items: page.items.map((m) => ({ ...m, messageAt: m.messageAt.toISOString() })),
        nextCursor: page.nextCursor,
      }
    },
  })
}
