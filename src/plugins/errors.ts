/**
 * Maps every failure to the API's JSON error shape. Client mistakes are 4xx with a
 * stable code; anything unexpected is a logged 500 that leaks no internals.
 */
import { randomUUID } from 'node:crypto'
import http from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod'
import { isDatabaseUnavailable } from '../db/database.ts'
import { describeError, type ErrorIssue } from '../errors.ts'
import { PRE_ROUTING_HEADERS } from './security-headers.ts'
import { lingerOverOversizedBody } from './input-guards.ts'

/** `/messages/3/role` under `body` → `body.messages[3].role`. */
function formatPath(instancePath: string, root: string): string {
  let out = root
  for (const s of instancePath.split('/').filter(Boolean)) out += /^\d+$/.test(s) ? `[${s}]` : `.${s}`
  return out
}

/** Zod's issues as API issues: an unknown key is one issue per key, at the key's own path. */
function validationIssues(validation: { instancePath: string; message?: string; keyword?: string; params?: Record<string, unknown> }[], root: string): ErrorIssue[] {
  const issues: ErrorIssue[] = []
  for (const v of validation) {
    const keys = v.params?.keys
    if (v.keyword === 'unrecognized_keys' && Array.isArray(keys) && keys.length > 0) {
      const base = formatPath(v.instancePath, root)
      for (const key of keys) issues.push({ path: `${base}.${String(key)}`, message: root === 'querystring' ? 'unknown query parameter' : 'unknown field' })
    } else {
      issues.push({ path: formatPath(v.instancePath, root), message: v.message ?? 'invalid' })
    }
  }
  return issues
}

/**
 * Errors fastify raises before a request reaches a route, so before the error handler
 * (the Fastify `frameworkErrors` option): a malformed percent-encoding (400) and a path
 * parameter over the router's maxParamLength (414). Same shape as every other error.
 */
export function frameworkErrors(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  const requestId = req.id
  // No hook runs for these: the security headers are set here.
  reply.headers(PRE_ROUTING_HEADERS).header('x-request-id', requestId)
  switch (err.code) {
    case 'FST_ERR_BAD_URL':
      reply.code(400).send({ error: 'bad_url', message: 'the URL is not valid: a percent-encoded sequence does not decode', requestId })
      return
    case 'FST_ERR_MAX_PARAM_LENGTH':
      reply.code(414).send({ error: 'uri_too_long', message: 'a path parameter is too long (session ids are 1-200 characters)', requestId })
      return
    default:
      req.log.error({ err }, 'framework error')
      reply.code(500).send({ error: 'internal_error', message: 'internal server error', requestId })
  }
}

/**
 * Malformed HTTP that never becomes a request (node's 'clientError': a bad request line,
 * oversized headers, a timeout). There is no request id yet, so one is made for the body.
 */
export function clientErrorHandler(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  const [status, error, message] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'request_timeout', 'the request was not received in time']
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'headers_too_large', 'the request headers exceed the maximum size']
        : [400, 'bad_request', 'the request is not valid HTTP']
  const requestId = randomUUID()
  const body = JSON.stringify({ error, message, requestId })
  this.log.debug({ err: { code: err.code, message: err.message }, requestId }, 'client error')
  if (socket.writable) {
    const headers = Object.entries(PRE_ROUTING_HEADERS)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('')
    socket.write(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n${headers}x-request-id: ${requestId}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    )
  }
  socket.destroy(err)
}

/** An error's answer in the API's error shape (headers it needs already set on `reply`). */
export interface ErrorAnswer {
  status: number
  body: { error: string; message: string; requestId: string; issues?: ErrorIssue[]; [k: string]: unknown }
  /** Sent as plain JSON, past the route's response schema (a route may document its own body for the status). */
  plainJson?: boolean
}

/**
 * What an error thrown by a route or a hook answers: a validation error names its fields,
 * a described error (errors.ts) its code, fastify's own errors theirs, an unreachable
 * database a 503; anything else is logged and a 500 without detail. The default error
 * handler sends it as is; the proxy's routes send it in the provider's shape.
 */
export function errorAnswer(err: FastifyError, req: FastifyRequest, reply: FastifyReply, bodyLimit: number): ErrorAnswer {
  const requestId = req.id
  if (hasZodFastifySchemaValidationErrors(err)) {
    const root = err.validationContext ?? 'body'
    const issues = validationIssues(err.validation as Parameters<typeof validationIssues>[0], root)
    return { status: 400, body: { error: 'validation_error', message: issues.map((i) => `${i.path}: ${i.message}`).join('; '), issues, requestId } }
  }
  const described = describeError(err)
  if (described) {
    if (described.headers) reply.headers(described.headers)
    return {
      status: described.statusCode,
      body: { error: described.code, message: described.message, ...(described.issues ? { issues: described.issues } : {}), ...described.details, requestId },
    }
  }
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      // Read and discard the rest, so that the client, still sending, gets the 413.
      lingerOverOversizedBody(req, reply, bodyLimit)
      return { status: 413, body: { error: 'payload_too_large', message: `request body exceeds ${bodyLimit} bytes`, requestId } }
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, body: { error: 'unsupported_media_type', message: 'send the body as application/json', requestId } }
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, body: { error: 'invalid_json', message: 'the JSON body is empty', requestId } }
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { status: 400, body: { error: 'invalid_json', message: `malformed JSON body: ${err.message}`, requestId } }
  }
  // Fastify's JSON parser raises SyntaxError (status 400) for malformed bodies.
  if (err instanceof SyntaxError || (err.statusCode === 400 && /JSON/i.test(err.message))) {
    return { status: 400, body: { error: 'invalid_json', message: `malformed JSON body: ${err.message}`, requestId } }
  }
  const status = err.statusCode ?? 500
  if (status >= 400 && status < 500) {
    if (status === 429) {
      return { status: 429, body: { error: 'rate_limited', message: err.message, requestId } }
    }
    return { status, body: { error: (err.code ?? 'bad_request').toLowerCase(), message: err.message, requestId } }
  }
  if (isDatabaseUnavailable(err)) {
    req.log.warn({ err: { message: err.message, code: err.code } }, 'database unavailable')
    reply.header('retry-after', '5')
    return { status: 503, body: { error: 'database_unavailable', message: 'the database is unreachable right now; retry shortly', requestId }, plainJson: true }
  }
  req.log.error({ err }, 'unhandled error')
  return { status: 500, body: { error: 'internal_error', message: 'internal server error', requestId } }
}

export default fp(async function errorsPlugin(app: FastifyInstance) {
  app.setNotFoundHandler((req, reply) => {
    reply.code(404).send({ error: 'not_found', message: `no route for ${req.method} ${req.url.split('?')[0]}`, requestId: req.id })
  })

  // Requests that arrive while the server drains get a 503 in the error shape (instead of
  // fastify's return503OnClosing body, which has no requestId): app.ts turns that off.
  let closing = false
  app.addHook('preClose', async () => {
    closing = true
  })
  app.addHook('onRequest', (req, reply, done) => {
    if (!closing) return done()
    reply
      .code(503)
      .header('connection', 'close')
      .header('retry-after', '5')
      .send({ error: 'shutting_down', message: 'this instance is shutting down; retry (another instance will answer)', requestId: req.id })
  })

  app.setErrorHandler((err: FastifyError, req, reply) => {
    const answer = errorAnswer(err, req, reply, app.initialConfig.bodyLimit ?? 0)
    // Plain JSON: a route may document its own 503 body (GET /summary's placeholder).
    if (answer.plainJson) return reply.code(answer.status).serializer(JSON.stringify).send(answer.body)
    return reply.code(answer.status).send(answer.body)
  })
})
