/**
 * build(): the whole HTTP application, without listening. The server entry point and
 * the tests both call it. Infrastructure lives in src/plugins, routes in routes/.
 */
import { randomUUID } from 'node:crypto'
import Fastify, { type FastifyInstance, type FastifyServerOptions, type RouteOptions } from 'fastify'
import { validatorCompiler } from 'fastify-type-provider-zod'
import browseRoutes from '../routes/browse.ts'
import archiveRoutes from '../routes/archive.ts'
import checkpointRoutes from '../routes/checkpoints.ts'
import compactRoutes from '../routes/compact.ts'
import displayRoutes from '../routes/display.ts'
import estimateRoutes from '../routes/estimate.ts'
import healthRoutes from '../routes/health.ts'
import importRoutes from '../routes/import.ts'
import proxyRoutes from '../routes/proxy.ts'
import sessionRoutes from '../routes/sessions.ts'
import type { Config } from './config.ts'
import type { DatabaseHandle } from './db/database.ts'
import adminSocketPlugin from './plugins/admin-socket.ts'
import authPlugin from './plugins/auth.ts'
import computePoolPlugin from './plugins/compute-pool.ts'
import databasePlugin from './plugins/database.ts'
import errorsPlugin, { clientErrorHandler, frameworkErrors } from './plugins/errors.ts'
import inputGuardsPlugin from './plugins/input-guards.ts'
import metricsPlugin from './plugins/metrics.ts'
import providersPlugin from './plugins/providers.ts'
import rateLimitPlugin from './plugins/rate-limit.ts'
import securityHeadersPlugin from './plugins/security-headers.ts'
import { fastSerializerCompiler } from './plugins/serializer.ts'
import useCasesPlugin from './plugins/use-cases.ts'
import swaggerPlugin from './plugins/swagger.ts'
import tokenCachePlugin from './plugins/token-cache.ts'
import uiPlugin, { isUiRoute } from './plugins/ui.ts'
import { serializeRequest } from './plugins/url-credentials.ts'

declare module 'fastify' {
  interface FastifyInstance {
    config: Config
    /** Every route as registered (HEAD included), in order: what test/security.test.ts checks each rule against. */
    routeInventory: readonly RouteOptions[]
  }
}

export interface BuildOptions {
  config: Config
  /** Share an open database (tests); otherwise one is opened from config and closed with the app. */
  database?: DatabaseHandle
  /** Fastify logger option; default: pino JSON at config.LOG_LEVEL. */
  logger?: FastifyServerOptions['logger']
}

/** Paths pino must never print: credentials in headers and provider keys anywhere. */
export const LOG_REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'headers["x-api-key"]',
  'req.headers["x-compactd-key"]',
  'headers["x-compactd-key"]',
  '*.apiKey',
  '*.ANTHROPIC_API_KEY',
  '*.OPENAI_API_KEY',
  '*.METRICS_TOKEN',
]

/**
 * The default logger: pino JSON at LOG_LEVEL, credentials redacted; a request's URL is
 * logged with its query values redacted (src/plugins/url-credentials.ts).
 */
export function loggerOptions(config: Config): { level: string; redact: { paths: string[]; censor: string }; serializers: { req: typeof serializeRequest } } {
  return { level: config.LOG_LEVEL, redact: { paths: LOG_REDACT_PATHS, censor: '[redacted]' }, serializers: { req: serializeRequest } }
}

/** Logger options given to build() keep the redacting request serializer unless they set their own. */
function withRequestSerializer(logger: FastifyServerOptions['logger']): FastifyServerOptions['logger'] {
  if (logger === null || typeof logger !== 'object') return logger
  const given = logger as { serializers?: Record<string, unknown> }
  return { ...logger, serializers: { req: serializeRequest, ...given.serializers } } as FastifyServerOptions['logger']
}

const REQUEST_ID = /^[\w.:-]{1,128}$/

/**
 * Longest path parameter the router accepts, in URL characters (fastify's default is
 * 100). Session ids are 1-200 characters, and a client may percent-encode every one of
 * them (":" as %3A): 3 × 200. Anything from 201 characters on reaches the route's
 * schema and is a 400 naming params.id; only longer URLs are a 414.
 */
export const MAX_PARAM_LENGTH = 600

export async function build(opts: BuildOptions): Promise<FastifyInstance> {
  const { config } = opts
  const app = Fastify({
    logger: withRequestSerializer(opts.logger ?? loggerOptions(config)),
    bodyLimit: config.BODY_LIMIT_BYTES,
    // A request (headers and body) must arrive within REQUEST_TIMEOUT_MS, else a 408
    // (fastify's default, 0, lets a slow client hold a connection and its buffer for
    // ever). Node enforces it only while headersTimeout is no longer (else a body may
    // trickle for headersTimeout, 60 s), and checks every connectionsCheckingInterval:
    // a quarter of the timeout, at most 30 s.
    requestTimeout: config.REQUEST_TIMEOUT_MS,
    http: {
      headersTimeout: Math.min(60_000, config.REQUEST_TIMEOUT_MS),
      connectionsCheckingInterval: Math.min(30_000, Math.ceil(config.REQUEST_TIMEOUT_MS / 4)),
    },
    // Honour a caller's request id (so agents can correlate), else make one.
    genReqId: (req) => {
      const given = req.headers['x-request-id']
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID()
    },
    requestIdHeader: false,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // Fastify's own early errors, in the API's error shape (src/plugins/errors.ts).
    frameworkErrors,
    clientErrorHandler,
    // The errors plugin answers 503 itself while closing, in the error shape.
    return503OnClosing: false,
  })
  app.setValidatorCompiler(validatorCompiler)
  app.setSerializerCompiler(fastSerializerCompiler as never)
  app.decorate('config', config)
  // Set on arrival (it survives an error reply); a callback hook: no promise per request.
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id)
    done()
  })
  // Swagger UI's own routes and the dashboard's (its page, config and static files) are
  // public and not rate limited. Set here, at the root, before any plugin registers: the
  // rate limiter decides per route in its own onRoute hook, which runs before the hooks of
  // a plugin's context (the dashboard's hook used to set rateLimit: false too late, so
  // /ui/app.js was limited per address after all).
  const routes: RouteOptions[] = []
  app.decorate('routeInventory', routes)
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/docs') || isUiRoute(route.url)) route.config = { ...(route.config as object), auth: false, rateLimit: false }
    routes.push(route)
  })

  // First, so that every response carries the headers (a 503 while closing, a 401, a 404).
  await app.register(securityHeadersPlugin)
  await app.register(errorsPlugin)
  await app.register(inputGuardsPlugin)
  await app.register(databasePlugin, { config, database: opts.database })
  await app.register(providersPlugin, { config })
  await app.register(authPlugin)
  await app.register(adminSocketPlugin)
  await app.register(rateLimitPlugin, { config })
  await app.register(swaggerPlugin, { config })
  await app.register(metricsPlugin)
  await app.register(tokenCachePlugin)
  await app.register(computePoolPlugin)
  await app.register(useCasesPlugin)

  await app.register(healthRoutes)
  await app.register(estimateRoutes)
  await app.register(compactRoutes)
  await app.register(importRoutes)
  await app.register(checkpointRoutes)
  await app.register(archiveRoutes)
  await app.register(sessionRoutes)
  await app.register(browseRoutes)
  await app.register(displayRoutes)
  await app.register(proxyRoutes)
  // The dashboard (GET /ui): its own CSP, no key for the page itself.
  await app.register(uiPlugin)
  return app
}
