/** What the proxy reports to metrics, as an injected hook (the metrics plugin implements it, like SessionMetrics). */
export type ProxyOutcome = 'passthrough' | 'reused' | 'compacted'

export interface ProxyMetrics {
  /** One proxied request: forwarded as sent, with a reused compacted prefix, or compacted now; the input tokens kept from the provider. */
  onProxied(endpoint: string, outcome: ProxyOutcome, tokensSaved: number): void
}
