/**
 * The provider-compatible proxy (issue 23): POST /v1/chat/completions, /v1/responses and
 * /v1/messages go on to the configured provider, compacted past the model's threshold;
 * POST /v1/messages/count_tokens is answered here; GET /v1/models is passed through.
 *
 * In this plugin's scope: the body's bytes are kept beside the parsed value (a request
 * below the threshold goes on byte for byte), compactd's key is x-compactd-key (Authorization
 * and x-api-key are the provider's), the query passes on, and compactd's own errors take the
 * endpoint's provider shape.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import type { z } from 'zod'
import { REQUEST_WIRES, type ProxyErrorKind, type RequestWire } from '../src/engine/messages/index.ts'
import { contentLength } from '../src/plugins/compute-pool.ts'
import { errorAnswer } from '../src/plugins/errors.ts'
import { parseGuardedJson } from '../src/plugins/input-guards.ts'
import {
  chatCompletionsProxyBody,
  countTokensProxyBody,
  countTokensProxyResponse,
  messagesProxyBody,
  passedThroughResponse,
  providerErrorResponse,
  responsesProxyBody,
} from '../src/use-cases/shapes/proxy.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The body's bytes as they came (the proxy's routes only). */
    rawBody?: Buffer
  }
}

const BODIES: Record<string, z.ZodType> = {
  '/v1/chat/completions': chatCompletionsProxyBody,
  '/v1/responses': responsesProxyBody,
  '/v1/messages': messagesProxyBody,
}

/** The credential of these routes (the OpenAPI file's compactdKey scheme). */
const COMPACTD_KEY = [{ compactdKey: [] }]

const errorResponses = { 400: providerErrorResponse, 401: providerErrorResponse, 413: providerErrorResponse, 429: providerErrorResponse, 502: providerErrorResponse, 503: providerErrorResponse }

/** The error kind of a status compactd answers with. */
function kindOf(status: number, code: string): ProxyErrorKind {
  if (code === 'context_length_exceeded') return 'context_length_exceeded'
  if (status === 401) return 'authentication'
  if (status === 429) return 'rate_limit'
  if (status === 502) return 'upstream_unreachable'
  if (status === 503) return 'overloaded'
  return status < 500 ? 'invalid_request' : 'internal'
}

/** Which provider's shape an error on this request takes: the route's, or Anthropic's when the caller speaks its headers. */
function wireOf(req: FastifyRequest): RequestWire {
  const byPath = REQUEST_WIRES.find((w) => w.wire.path === req.routeOptions.url)?.wire
  if (byPath) return byPath
  const anthropic = req.routeOptions.url?.startsWith('/v1/messages') === true || req.headers['anthropic-version'] !== undefined
  return REQUEST_WIRES.find((w) => w.wire.upstream === (anthropic ? 'anthropic' : 'openai'))!.wire
}

/** Aborts when the client goes away before the response has been written (streams included). */
function clientGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController()
  reply.raw.once('close', () => {
    if (!reply.raw.writableEnded) controller.abort()
  })
  return controller.signal
}

export default async function proxyRoutes(app: FastifyInstance) {
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    req.rawBody = body as Buffer
    parseGuardedJson(req, (body as Buffer).toString('utf8'), done)
  })
  app.setErrorHandler((err: FastifyError, req, reply) => {
    const answer = errorAnswer(err, req, reply, app.initialConfig.bodyLimit ?? 0)
    return reply.code(answer.status).serializer(JSON.stringify).send(wireOf(req).errorBody(kindOf(answer.status, answer.body.error), answer.body.message))
  })
  const typed = app.withTypeProvider<ZodTypeProvider>()

  for (const { format, wire } of REQUEST_WIRES) {
    typed.post(wire.path, {
      config: { proxy: true },
      schema: {
        tags: ['proxy'],
      security: COMPACTD_KEY,
        summary: `${wire.upstream === 'openai' ? 'OpenAI' : 'Anthropic'}-compatible ${wire.path}: compacted past the model's threshold, then passed on to the provider (streaming included)`,
        body: BODIES[wire.path]!,
        response: { 200: passedThroughResponse, ...errorResponses },
      },
      handler: async (req, reply) => {
        const res = await app.useCases.proxy.request(
          { tenantId: req.tenant.tenantId, signal: clientGone(reply), bodyBytes: contentLength(req) },
          { wire, format, rawBody: req.rawBody ?? Buffer.from(JSON.stringify(req.body)), body: req.body as Record<string, unknown>, headers: req.headers },
        )
        return reply.code(res.status).headers(res.headers).send(res.body)
      },
    })
  }

  typed.post('/v1/messages/count_tokens', {
    config: { proxy: true },
    schema: {
      tags: ['proxy'],
      security: COMPACTD_KEY,
      summary: "Anthropic-compatible count_tokens, answered by compactd's own counter",
      body: countTokensProxyBody,
      response: { 200: countTokensProxyResponse, ...errorResponses },
    },
    handler: async (req) => app.useCases.proxy.countTokens({ tenantId: req.tenant.tenantId, bodyBytes: contentLength(req) }, req.body),
  })

  typed.get('/v1/models', {
    config: { proxy: true },
    schema: {
      tags: ['proxy'],
      security: COMPACTD_KEY,
      summary: "The provider's model list, passed through (Anthropic's when the request carries anthropic-version or x-api-key, else OpenAI's)",
      response: { 200: passedThroughResponse, ...errorResponses },
    },
    handler: async (req, reply) => {
      const at = req.url.indexOf('?')
      const res = await app.useCases.proxy.listModels({ tenantId: req.tenant.tenantId, signal: clientGone(reply) }, req.headers, at < 0 ? '' : req.url.slice(at))
      return reply.code(res.status).headers(res.headers).send(res.body)
    },
  })
}
