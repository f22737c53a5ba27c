/**
 * Maps every failure to the API's JSON error shape. Client mistakes are 4xx with a
 * stable code; anything unexpected is a logged 500 that leaks no internals.
 */
import type { FastifyError, FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod'
import { isDatabaseUnavailable } from '../db/database.ts'
import { ApiError, type ErrorIssue } from '../errors.ts'
import { MessageFormatError } from '../engine/messages/errors.ts'
import { CompactionError } from '../engine/compaction/compact.ts'
import { SummarizerSelectionError } from '../providers/summarizer-clients.ts'

/** `/messages/3/role` under `body` → `body.messages[3].role`. */
function formatPath(instancePath: string, root: string): string {
  let out = root
  for (const s of instancePath.split('/').filter(Boolean)) out += /^\d+$/.test(s) ? `[${s}]` : `.${s}`
  return out
}

export default fp(async function errorsPlugin(app: FastifyInstance) {
  app.setNotFoundHandler((req, reply) => {
    reply.code(404).send({ error: 'not_found', message: `no route for ${req.method} ${req.url.split('?')[0]}`, requestId: req.id })
  })

  app.setErrorHandler((err: FastifyError, req, reply) => {
    const requestId = req.id
    if (hasZodFastifySchemaValidationErrors(err)) {
      const root = err.validationContext ?? 'body'
      const issues: ErrorIssue[] = err.validation.map((v) => ({
        path: formatPath(v.instancePath, root),
        message: v.message ?? 'invalid',
      }))
      return reply.code(400).send({
        error: 'validation_error',
        message: issues.map((i) => `${i.path}: ${i.message}`).join('; '),
        issues,
        requestId,
      })
    }
    if (err instanceof MessageFormatError) {
      return reply.code(400).send({
        error: 'invalid_messages',
        message: err.message,
        issues: [{ path: err.field, message: err.reason }],
        requestId,
      })
    }
    if (err instanceof CompactionError) {
      if (err.code === 'budget_unreachable') {
        // The numbers (targetTokens, minimumTokens, ...) let the caller pick a reachable target.
        return reply.code(422).send({ error: err.code, message: err.message, ...err.details, requestId })
      }
      const problems = Array.isArray(err.details.problems) ? (err.details.problems as { index: number; callId: string; problem: string }[]) : []
      return reply.code(400).send({
        error: err.code,
        message: err.message,
        issues: problems.map((p) => ({ path: `messages[${p.index}]`, message: `${p.problem} (tool call id ${p.callId})` })),
        requestId,
      })
    }
    if (err instanceof SummarizerSelectionError) {
      return reply.code(400).send({
        error: 'invalid_summarizer',
        message: err.message,
        issues: [{ path: `body.summarizer.${err.field}`, message: err.message }],
        requestId,
      })
    }
    if (err instanceof ApiError) {
      return reply.code(err.statusCode).send({
        error: err.code,
        message: err.message,
        ...(err.issues ? { issues: err.issues } : {}),
        ...err.details,
        requestId,
      })
    }
    switch (err.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return reply.code(413).send({ error: 'payload_too_large', message: `request body exceeds ${app.initialConfig.bodyLimit} bytes`, requestId })
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return reply.code(415).send({ error: 'unsupported_media_type', message: 'send the body as application/json', requestId })
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return reply.code(400).send({ error: 'invalid_json', message: 'the JSON body is empty', requestId })
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
        return reply.code(400).send({ error: 'invalid_json', message: `malformed JSON body: ${err.message}`, requestId })
    }
    // Fastify's JSON parser raises SyntaxError (status 400) for malformed bodies.
    if (err instanceof SyntaxError || (err.statusCode === 400 && /JSON/i.test(err.message))) {
      return reply.code(400).send({ error: 'invalid_json', message: `malformed JSON body: ${err.message}`, requestId })
    }
    const status = err.statusCode ?? 500
    if (status >= 400 && status < 500) {
      if (status === 429) {
        return reply.code(429).send({ error: 'rate_limited', message: err.message, requestId })
      }
      return reply.code(status).send({ error: (err.code ?? 'bad_request').toLowerCase(), message: err.message, requestId })
    }
    if (isDatabaseUnavailable(err)) {
      req.log.warn({ err: { message: err.message, code: err.code } }, 'database unavailable')
      return reply
        .code(503)
        .header('retry-after', '5')
        // Plain JSON: a route may document its own 503 body (GET /summary's placeholder).
        .serializer(JSON.stringify)
        .send({ error: 'database_unavailable', message: 'the database is unreachable right now; retry shortly', requestId })
    }
    req.log.error({ err }, 'unhandled error')
    return reply.code(500).send({ error: 'internal_error', message: 'internal server error', requestId })
  })
})
