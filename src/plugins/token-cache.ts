/**
 * The token-count cache (issue 11): one bounded LRU per app of per-message counts, keyed
 * by a hash of what is counted (src/engine/tokens/count.ts messageCacheKey) and holding
 * numbers only, never content. Agents resend their whole history every turn; with the
 * cache a resent message costs a hash instead of a count. Shared by /estimate, /compact
 * and the sessions service; keys are per tenant (`for(tenantId)`).
 *
 * TOKEN_CACHE_ENTRIES bounds it (0: no cache). Each compute thread (compute-pool.ts) holds
 * a cache of its own, since a thread cannot read this one; their hits and misses come back
 * with each task. Hits, misses and entries are in /metrics (compactd_token_cache_*),
 * counted in plain fields and read at scrape time.
 */
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { Counter, Gauge, type Registry } from 'prom-client'
import { TokenCache } from './token-cache-store.ts'

export { TokenCache }

declare module 'fastify' {
  interface FastifyInstance {
    /** undefined when TOKEN_CACHE_ENTRIES is 0. */
    tokenCache: TokenCache | undefined
  }
}

/** compactd_token_cache_hits_total, _misses_total and _entries, read from `cache` at scrape. */
export function registerTokenCacheMetrics(registry: Registry, cache: TokenCache): void {
  let hitsSeen = 0
  let missesSeen = 0
  new Counter({
    name: 'compactd_token_cache_hits_total',
    help: 'Messages, and texts a compaction derives (log lines, placeholders), whose token counts came from the token-count cache',
    registers: [registry],
    collect() {
      this.inc(cache.hits - hitsSeen)
      hitsSeen = cache.hits
    },
  })
  new Counter({
    name: 'compactd_token_cache_misses_total',
    help: 'Messages, and texts a compaction derives, counted and added to the token-count cache (those under the size worth caching are not looked up)',
    registers: [registry],
    collect() {
      this.inc(cache.misses - missesSeen)
      missesSeen = cache.misses
    },
  })
  new Gauge({
    name: 'compactd_token_cache_entries',
    help: `Messages in the token-count caches: the event loop's and each compute thread's (each at most TOKEN_CACHE_ENTRIES = ${cache.maxEntries})`,
    registers: [registry],
    collect() {
      this.set(cache.totalEntries)
    },
  })
}

export default fp(
  async function tokenCachePlugin(app: FastifyInstance) {
    const entries = app.config.TOKEN_CACHE_ENTRIES
    const cache = entries > 0 ? new TokenCache(entries) : undefined
    if (cache) registerTokenCacheMetrics(app.metrics.registry, cache)
    app.decorate('tokenCache', cache)
  },
  { name: 'token-cache', dependencies: ['metrics'] },
)
