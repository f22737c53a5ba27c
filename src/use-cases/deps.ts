/**
 * What the use cases are built from (src/plugins/use-cases.ts hands them over): the
 * infrastructure as values, never as imports. Each use case takes the part it needs
 * (Pick<UseCaseDeps, …>), so a test builds one from exactly that.
 */
import type { Kysely } from 'kysely'
import type { Config } from '../config.ts'
import type { Database } from '../db/schema.ts'
import type { MessageCountCache } from '../engine/tokens/count.ts'
import type { ProviderTokenCounter } from '../providers/anthropic-count.ts'
import type { SummarizerRegistry } from '../providers/summarizer-clients.ts'
import type { UpstreamClient } from '../providers/upstream.ts'
import type { ComputeRunner } from './compute.ts'
import type { ProxyMetrics } from './proxy/metrics.ts'
import type { BreakerMetrics } from './compact/breaker-metrics.ts'
import type { SessionMetrics } from './sessions/metrics.ts'

export interface Log {
  info(obj: object, msg: string): void
  warn(obj: object, msg: string): void
  error(obj: object, msg: string): void
}

export interface UseCaseDeps {
  config: Config
  db: Kysely<Database>
  /** The llm strategy's and the sessions' llm mode's provider clients. */
  summarizers: SummarizerRegistry
  /** The proxy's HTTP client to the configured provider upstreams. */
  upstream: UpstreamClient
  /** Anthropic's count_tokens (POST /estimate method `provider`). */
  anthropicCounter: ProviderTokenCounter
  /** Runs the CPU parts: the compute pool, or inlineCompute() on this thread. */
  compute: ComputeRunner
  /** What the use cases report (the metrics plugin implements it); none: nothing is reported. */
  metrics?: SessionMetrics & Partial<ProxyMetrics> & Partial<BreakerMetrics>
  /** Per-message token counts remembered across requests (src/plugins/token-cache.ts), per tenant. */
  tokenCache?: { for(tenantId: string): MessageCountCache }
  log: Log
}

/** What one request brings to a use case besides its input. */
export interface Caller {
  tenantId: string
  /**
   * Fires when the client goes away: provider calls stop, a queued task leaves the queue.
   * A function is called only when the work does not run inline (no listener for small requests).
   */
  signal?: AbortSignal | (() => AbortSignal)
  /** The request body's size in bytes (Content-Length), which decides pool or event loop. */
  bodyBytes?: number
}
