/** LLM provider clients built from server configuration (never from requests). */
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Config } from '../config.ts'
import { anthropicTokenCounter, type ProviderTokenCounter } from '../providers/anthropic-count.ts'
import { createSummarizerClients, type SummarizerRegistry } from '../providers/summarizer-clients.ts'

export interface Providers {
  anthropicCounter: ProviderTokenCounter
  /** Summarizer clients of the llm compaction strategy. */
  summarizers: SummarizerRegistry
}

declare module 'fastify' {
  interface FastifyInstance {
    providers: Providers
  }
}

export default fp(
  async function providersPlugin(app: FastifyInstance, opts: { config: Config }) {
    app.decorate('providers', { anthropicCounter: anthropicTokenCounter(opts.config), summarizers: createSummarizerClients(opts.config) })
  },
  { name: 'providers' },
)
