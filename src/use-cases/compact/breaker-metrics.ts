/** What the compaction circuit breaker reports to metrics, as an injected hook (the metrics plugin implements it, like ProxyMetrics). */

/** Where an automatic compaction was refused. */
export type BreakerPath = 'proxy' | 'context'

export interface BreakerMetrics {
  onBreakerRefused(path: BreakerPath): void
  onBreakerOpened(): void
}
