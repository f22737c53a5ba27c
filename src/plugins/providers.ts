/** LLM provider clients built from server configuration (never from requests). */
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Config } from '../config.ts'
import { anthropicTokenCounter, type ProviderTokenCounter } from '../providers/anthropic-count.ts'
import { createSummarizerClients, type SummarizerRegistry } from '../providers/summarizer-clients.ts'
import { makeUpstreamClient, type UpstreamClient } from '../providers/upstream.ts'

export interface Providers {
  anthropicCounter: ProviderTokenCounter
  /** Summarizer clients of the llm compaction strategy. */
  summarizers: SummarizerRegistry
  /** The proxy's HTTP client to the configured upstreams. */
  upstream: UpstreamClient
}

declare module 'fastify' {
  interface FastifyInstance {
    providers: Providers
  }
}

export default fp(
  async function providersPlugin(app: FastifyInstance, opts: { config: Config }) {
    const upstream = makeUpstreamClient()
    app.decorate('providers', { anthropicCounter: anthropicTokenCounter(opts.config), summarizers: createSummarizerClients(opts.config), upstream })
    app.addHook('onClose', async () => upstream.close())
  },
  { name: 'providers' },
)
