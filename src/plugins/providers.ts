/** LLM provider clients built from server configuration (never from requests). */
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Config } from '../config.ts'
import { anthropicTokenCounter, type ProviderTokenCounter } from '../providers/anthropic-count.ts'

export interface Providers {
  anthropicCounter: ProviderTokenCounter
}

declare module 'fastify' {
  interface FastifyInstance {
    providers: Providers
  }
}

export default fp(
  async function providersPlugin(app: FastifyInstance, opts: { config: Config }) {
    app.decorate('providers', { anthropicCounter: anthropicTokenCounter(opts.config) })
  },
  { name: 'providers' },
)
