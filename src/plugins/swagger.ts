/** OpenAPI 3.1 generated from the routes' zod schemas; Swagger UI at /docs. */
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod'
import type { Config } from '../config.ts'

/** Where Swagger UI and the OpenAPI document (`/docs/json`) are served. */
export const DOCS_ROUTE_PREFIX = '/docs'

export const API_DESCRIPTION = `compactd keeps LLM agents inside their context window.

POST your message array (OpenAI Chat Completions, Anthropic Messages or Vercel AI SDK format; detected automatically) to estimate its tokens, and to compact it to a budget.

**Authentication.** Send \`Authorization: Bearer <key>\`. Keys are created with \`npm run key:create -- --tenant NAME\`. While no key exists the service runs open, single-tenant, on loopback only.

**Errors.** Every 4xx/5xx body is JSON: \`{ error, message, issues?, requestId }\`, where \`error\` is a stable code and \`issues\` names the offending fields.`

export default fp(
  async function swaggerPlugin(app: FastifyInstance, opts: { config: Config }) {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: { title: 'compactd', version: '0.1.0', description: API_DESCRIPTION },
        components: {
          securitySchemes: {
            bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key from `npm run key:create`.' },
            metricsToken: { type: 'http', scheme: 'bearer', description: 'The METRICS_TOKEN of the server (GET /metrics only; public while it is unset).' },
            compactdKey: {
              type: 'apiKey',
              in: 'header',
              name: 'x-compactd-key',
              description: "An API key from `npm run key:create`, on the proxy's routes (/v1/…), where Authorization and x-api-key carry the caller's provider credentials.",
            },
          },
        },
        security: [{ bearerAuth: [] }],
        tags: [
          { name: 'tokens', description: 'Token estimation and compaction thresholds' },
          { name: 'proxy', description: "Provider-compatible endpoints: point an OpenAI or Anthropic SDK's baseURL at compactd, and long conversations are compacted on the way" },
          { name: 'compaction', description: 'Compaction of conversations, and the checkpoints stored per session' },
          { name: 'archive', description: 'The archive of what compaction dropped: search it, read an original back by its reference' },
          { name: 'sessions', description: 'Sessions: a sliding window of recent messages and a rolling summary kept current in the background' },
          { name: 'messages', description: 'Messages of any format in one display form (for the dashboard)' },
          { name: 'health', description: 'Liveness, readiness and metrics' },
        ],
      },
      transform: jsonSchemaTransform,
      transformObject: jsonSchemaTransformObject,
    })
    if (opts.config.DOCS_ENABLED) {
      await app.register(swaggerUi, { routePrefix: DOCS_ROUTE_PREFIX, uiConfig: { docExpansion: 'list', deepLinking: true } })
    }
  },
  { name: 'swagger' },
)
