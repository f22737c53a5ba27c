/**
 * Prometheus metrics (prom-client) on GET /metrics. Each app instance has its own
 * registry (never prom-client's global one), so several apps in one process (tests)
 * do not collide. docs/operations.md lists the metrics and the alert rules.
 *
 * Queue depth and the oldest queued age are read from the database at scrape time
 * (the queue is shared by every instance, so any instance reports the same numbers).
 * The domain reports through the hook interfaces it defines (SessionMetrics, which
 * includes CompactionMetrics); AppMetrics implements them and the app's wiring passes
 * `app.metrics` in, so each app counts only its own work.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { sql, type Kysely } from 'kysely'
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { Database } from '../db/schema.ts'
import { ApiError } from '../errors.ts'
import type { ProxyMetrics } from '../use-cases/proxy/metrics.ts'
import type { BreakerMetrics } from '../use-cases/compact/breaker-metrics.ts'
import type { SessionMetrics } from '../use-cases/sessions/metrics.ts'

export interface AppMetrics extends SessionMetrics, ProxyMetrics, BreakerMetrics {
  registry: Registry
  /** Enqueues: `outcome` new (an entry was created) or merged (into the pending one). */
  updatesQueued: Counter<'priority' | 'outcome'>
  updatesCompleted: Counter<'mode'>
  /** Failed attempts (each is retried until MAX_RETRIES). */
  updatesFailed: Counter<'reason'>
  /** Updates given up on after MAX_RETRIES (status failed, alert logged). */
  updatesGaveUp: Counter
  updateDuration: Histogram<'mode'>
  summaryTokens: Histogram
  /** Summary tokens / the session's budget, per written version. */
  summaryBudgetRatio: Histogram
  emergencyTruncations: Counter
  compactions: Counter<'strategy'>
  compactionTokensSaved: Counter
  /** Proxied requests by endpoint and outcome (passthrough, reused prefix, compacted now). */
  proxyRequests: Counter<'endpoint' | 'outcome'>
  proxyTokensSaved: Counter<'endpoint'>
  breakerRefusals: Counter<'path'>
  breakerOpened: Counter
  httpDuration: Histogram<'method' | 'route' | 'status_code'>
}

export interface QueueStats {
  depth: number
  failed: number
  /** Seconds since the oldest pending entry was queued (0 when empty). */
  oldestAgeSeconds: number
}

export async function queueStats(db: Kysely<Database>): Promise<QueueStats> {
  const row = await sql<{ depth: number | string; failed: number | string; oldest: number | string | null }>`
    select count(*) filter (where status = 'pending') as depth,
           count(*) filter (where status = 'failed') as failed,
           extract(epoch from now() - min(queued_at) filter (where status = 'pending')) as oldest
    from summary_update_queue`.execute(db)
  const r = row.rows[0]
  return { depth: Number(r?.depth ?? 0), failed: Number(r?.failed ?? 0), oldestAgeSeconds: Math.max(0, Number(r?.oldest ?? 0)) }
}

export function createMetrics(opts: { queueStats?: () => Promise<QueueStats>; defaultMetrics?: boolean } = {}): AppMetrics {
  const registry = new Registry()
  const registers = [registry]
  if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: registry, prefix: 'compactd_' })

  // One database read per scrape, shared by the queue gauges.
  let pending: Promise<QueueStats | undefined> | undefined
  const stats = (): Promise<QueueStats | undefined> => {
    if (!opts.queueStats) return Promise.resolve(undefined)
    pending ??= opts
      .queueStats()
      .catch(() => undefined)
      .finally(() => setTimeout(() => (pending = undefined), 0))
    return pending
  }
  const queueGauge = (name: string, help: string, pick: (s: QueueStats) => number) =>
    new Gauge({
      name,
      help,
      registers,
      async collect() {
        const s = await stats()
        if (s) this.set(pick(s))
      },
    })
  queueGauge('compactd_summary_queue_depth', 'Summary updates pending in the queue (all instances).', (s) => s.depth)
  queueGauge('compactd_summary_queue_failed', 'Summary updates given up on (status failed) still in the queue.', (s) => s.failed)
  queueGauge('compactd_summary_queue_oldest_age_seconds', 'Age of the oldest pending summary update, in seconds.', (s) => s.oldestAgeSeconds)

  const counters = {
    registry,
    updatesQueued: new Counter({
      name: 'compactd_summary_updates_queued_total',
      help: 'Summary updates queued, by priority (low, high, aging) and outcome (new entry, or merged into the pending one).',
      labelNames: ['priority', 'outcome'],
      registers,
    }),
    updatesCompleted: new Counter({ name: 'compactd_summary_updates_completed_total', help: 'Summary updates completed, by mode (rules, llm, llm-fallback).', labelNames: ['mode'], registers }),
    updatesFailed: new Counter({ name: 'compactd_summary_updates_failed_total', help: 'Failed summary update attempts (retried with backoff).', labelNames: ['reason'], registers }),
    updatesGaveUp: new Counter({ name: 'compactd_summary_updates_gave_up_total', help: 'Summary updates marked failed after MAX_RETRIES attempts (alert).', registers }),
    claimWait: new Histogram({
      name: 'compactd_summary_claim_wait_seconds',
      help: 'How long a summary update waited in the queue, from when it was available to when a worker claimed it, in seconds.',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300],
      registers,
    }),
    updateDuration: new Histogram({
      name: 'compactd_summary_update_duration_seconds',
      help: 'Duration of one summary update (claim to commit), in seconds.',
      labelNames: ['mode'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers,
    }),
    summaryTokens: new Histogram({
      name: 'compactd_summary_tokens',
      help: 'Size of each written summary version, in tokens.',
      buckets: [250, 500, 1000, 2000, 4000, 6000, 8000, 9000, 9500, 10000, 15000, 20000, 50000],
      registers,
    }),
    summaryBudgetRatio: new Histogram({
      name: 'compactd_summary_budget_ratio',
      help: "Each written summary's tokens divided by its session's budget.",
      buckets: [0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 1],
      registers,
    }),
    emergencyTruncations: new Counter({
      name: 'compactd_summary_emergency_truncations_total',
      help: 'Summaries cut by emergency truncation to stay within the hard budget.',
      registers,
    }),
    compactions: new Counter({ name: 'compactd_compactions_total', help: 'Compactions performed (POST /compact and session context), by strategy.', labelNames: ['strategy'], registers }),
    compactionTokensSaved: new Counter({ name: 'compactd_compaction_tokens_saved_total', help: 'Tokens removed by compactions (tokensBefore - tokensAfter).', registers }),
    proxyRequests: new Counter({
      name: 'compactd_proxy_requests_total',
      help: 'Requests through the provider-compatible proxy, by endpoint and outcome: passthrough (under the threshold), reused (the compacted prefix repeated byte for byte: cacheable), compacted (a new prefix).',
      labelNames: ['endpoint', 'outcome'],
      registers,
    }),
    breakerRefusals: new Counter({ name: 'compactd_breaker_refusals_total', help: "Automatic compactions refused because the session's circuit breaker was open, by path (proxy, context).", labelNames: ['path'], registers }),
    breakerOpened: new Counter({ name: 'compactd_breaker_opened_total', help: 'Times a session compaction circuit breaker opened (compactions that thrash).', registers }),
    proxyTokensSaved: new Counter({ name: 'compactd_proxy_tokens_saved_total', help: 'Input tokens the proxy kept from the provider (request tokens less forwarded tokens).', labelNames: ['endpoint'], registers }),
    httpDuration: new Histogram({
      name: 'compactd_http_request_duration_seconds',
      help: 'HTTP request duration by method, route pattern and status code, in seconds.',
      labelNames: ['method', 'route', 'status_code'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
  }
  // The domain's hooks, onto the counters above.
  return {
    ...counters,
    onUpdateQueued(priority, outcome, count = 1) {
      counters.updatesQueued.inc({ priority, outcome }, count)
    },
    onUpdatesClaimed(waited) {
      for (const s of waited) counters.claimWait.observe(s)
    },
    onUpdateCompleted({ mode, seconds, written, emergencyTruncated }) {
      counters.updatesCompleted.inc({ mode })
      counters.updateDuration.observe({ mode }, seconds)
      if (written) {
        counters.summaryTokens.observe(written.tokens)
        counters.summaryBudgetRatio.observe(written.tokens / Math.max(1, written.budget))
      }
      if (emergencyTruncated) counters.emergencyTruncations.inc()
    },
    onUpdateFailed(reason) {
      counters.updatesFailed.inc({ reason })
    },
    onUpdateGaveUp() {
      counters.updatesGaveUp.inc()
    },
    onCompaction(event) {
      counters.compactions.inc({ strategy: event.strategy })
      counters.compactionTokensSaved.inc(Math.max(0, event.tokensBefore - event.tokensAfter))
    },
    onBreakerRefused(path) {
      counters.breakerRefusals.inc({ path })
    },
    onBreakerOpened() {
      counters.breakerOpened.inc()
    },
    onProxied(endpoint, outcome, tokensSaved) {
      counters.proxyRequests.inc({ endpoint, outcome })
      if (tokensSaved > 0) counters.proxyTokensSaved.inc({ endpoint }, tokensSaved)
    },
  }
}

// ---------------------------------------------------------------------------

declare module 'fastify' {
  interface FastifyInstance {
    metrics: AppMetrics
  }
}

export default fp(
  async function metricsPlugin(app: FastifyInstance) {
    const metrics = createMetrics({ queueStats: () => queueStats(app.db) })
    app.decorate('metrics', metrics)

    // Label children made once per method, route and status (prom-client looks labels up
    // by object, a few µs a call); a callback hook: no promise per request.
    const durations = new Map<string, { observe(seconds: number): void }>()
    app.addHook('onResponse', (req, reply, done) => {
      const route = req.routeOptions.url ?? 'unmatched'
      const key = `${req.method} ${reply.statusCode} ${route}`
      let child = durations.get(key)
      if (!child) durations.set(key, (child = metrics.httpDuration.labels({ method: req.method, route, status_code: String(reply.statusCode) })))
      child.observe(reply.elapsedTime / 1000)
      done()
    })

    // Operator-only: an API key (a tenant's credential) never opens it; METRICS_TOKEN does.
    const token = app.config.METRICS_TOKEN
    if (!token) {
      app.addHook('onReady', async () => {
        if (!(await app.authOpenMode())) app.log.warn('GET /metrics is public: set METRICS_TOKEN or restrict it at the network level')
      })
    }
    app.get('/metrics', {
      config: { auth: false, rateLimit: false },
      schema: {
        tags: ['health'],
        summary: 'Prometheus metrics: summary updates, queue, compactions, HTTP latency',
        description:
          'Prometheus text exposition format, not rate limited. With METRICS_TOKEN set it needs `Authorization: Bearer <METRICS_TOKEN>` (an API key is a 401); unset, it is public: restrict it at the network level. It holds totals only, no tenant, session or content. See docs/operations.md.',
        security: [{ metricsToken: [] }],
      },
      onRequest: async (req, reply) => {
        if (token && !bearerIs(req, token)) {
          reply.header('www-authenticate', 'Bearer realm="metrics"')
          throw new ApiError(401, 'unauthorized', 'missing or invalid metrics token (send Authorization: Bearer <METRICS_TOKEN>)')
        }
      },
      handler: async (_req, reply) => {
        const body = await metrics.registry.metrics()
        return reply.type(metrics.registry.contentType).send(body)
      },
    })
  },
  { name: 'metrics', dependencies: ['database', 'auth'] },
)

/** Whether the request's bearer token is `secret`, compared in constant time. */
function bearerIs(req: FastifyRequest, secret: string): boolean {
  const header = req.headers.authorization
  const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null
  if (!match) return false
  const digest = (s: string) => createHash('sha256').update(s).digest()
  return timingSafeEqual(digest(match[1]!), digest(secret))
}
