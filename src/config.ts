/**
 * Service configuration, read from the environment and validated with zod at start-up.
 * Every setting is documented in .env.example. A bad value stops the service with one
 * line naming the variable (see formatConfigError).
 */
import { availableParallelism } from 'node:os'
import { z } from 'zod'
import { isStrategyName, STRATEGY_NAMES, type RegisteredStrategyName } from './engine/compaction/strategies/index.ts'
import { DEFAULT_COMPACT_OPTIONS } from './engine/compaction/types.ts'

const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def)
const bool = (def: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .default(def ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1' || v === 'yes')
const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()))
const optionalUrl = optionalString.pipe(z.url().optional())
const csv = (v: string) =>
  v
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)

/** Hosts that are loopback only: while no API key exists the service listens on nothing else. */
export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', '::1', 'localhost'])

export const configSchema = z.object({
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: int(3000).pipe(z.number().max(65535)),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** postgres://… uses that server; unset uses the embedded PGlite in PGLITE_DATA_DIR. */
  DATABASE_URL: optionalString.pipe(
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must start with postgres:// or postgresql://')
      .optional(),
  ),
  PGLITE_DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_POOL_SIZE: int(10, 1),
  BODY_LIMIT_BYTES: int(20 * 1024 * 1024, 1024),
  /**
   * Requests per RATE_LIMIT_WINDOW_MS per API key once keys exist (0: no limit). 6,000 a
   * minute (100/s) lets one busy agent host through; it stops one tenant's runaway loop.
   */
  RATE_LIMIT_MAX: int(6_000),
  /**
   * Requests per window per client address while no key exists (open mode: one tenant,
   * loopback only, so every caller is on this host). 0, the default: no limit.
   */
  RATE_LIMIT_OPEN_MAX: int(0),
  RATE_LIMIT_WINDOW_MS: int(60_000, 1000),
  /** Grace period for in-flight requests on SIGTERM/SIGINT. */
  SHUTDOWN_TIMEOUT_MS: int(10_000, 100),
  /** A request's headers and body must arrive within this many ms, else a 408. */
  REQUEST_TIMEOUT_MS: int(120_000, 1000),
  /**
   * Set: GET /metrics needs `Authorization: Bearer <METRICS_TOKEN>` (an API key does not
   * open it). Unset: /metrics is public; restrict it at the network level.
   */
  METRICS_TOKEN: optionalString.pipe(z.string().min(32, 'must be at least 32 characters (e.g. openssl rand -hex 32)').optional()),

  DEFAULT_MODEL: z.string().min(1).default('gpt-4o'),
  UNKNOWN_MODEL_CONTEXT_LIMIT: int(128_000, 1000),
  UNKNOWN_MODEL_MAX_OUTPUT_TOKENS: int(4_096, 1),
  COMPACTION_SYSTEM_RESERVE: int(2_000),
  COMPACTION_OUTPUT_RESERVE: int(4_000),
  COMPACTION_SAFETY_BUFFER: int(5_000),
  COMPACTION_THRESHOLD_PERCENT: z.coerce.number().gt(0).max(1).default(0.8),
  /**
   * Messages whose token counts the in-process cache remembers (src/plugins/token-cache.ts;
   * about 160 bytes each, counts only, no content). 0: no cache, every message is counted.
   */
  TOKEN_CACHE_ENTRIES: int(100_000),

  ANTHROPIC_API_KEY: optionalString,
  ANTHROPIC_BASE_URL: optionalUrl,
  OPENAI_API_KEY: optionalString,
  OPENAI_BASE_URL: optionalUrl,
  /** Timeout of one provider call (count_tokens, summaries), in ms. */
  PROVIDER_TIMEOUT_MS: int(30_000, 100),
  PROVIDER_MAX_RETRIES: int(2),

  /**
   * Summarizer models a request may choose, per provider (comma-separated; the first is
   * the default). A provider is available only when its key is set (OpenAI-compatible
   * servers without auth: set OPENAI_API_KEY to any value).
   */
  SUMMARIZER_OPENAI_MODELS: z.string().default('gpt-4o-mini').transform(csv),
  SUMMARIZER_ANTHROPIC_MODELS: z.string().default('claude-haiku-4-5').transform(csv),
  /** Provider used by the llm strategy when a request names none. */
  SUMMARIZER_DEFAULT_PROVIDER: z.enum(['openai', 'anthropic']).optional(),
  /** Context window of the summarizer model when the registry does not know it (local models). */
  SUMMARIZER_CONTEXT_LIMIT: z.coerce.number().int().min(1000).optional(),

  /**
   * Compaction defaults (seeds 001-004), the engine's (DEFAULT_COMPACT_OPTIONS); each can be overridden per request.
   * The pipeline of a request that names none; unset, it depends on whether a summarizer is
   * configured (defaultPipeline): mask → llm → rules with a provider key, mask → rules without.
   */
  COMPACTION_DEFAULT_STRATEGY: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === '' ? undefined : csv(v)))
    .pipe(z.array(z.enum(STRATEGY_NAMES)).min(1).optional()),
  COMPACTION_KEEP_RECENT: int(DEFAULT_COMPACT_OPTIONS.keepRecent),
  COMPACTION_MAX_SUMMARY_TOKENS: int(DEFAULT_COMPACT_OPTIONS.maxSummaryTokens, 50),
  /** Checkpoints kept per session; older ones are folded into a summary of summaries. */
  COMPACTION_MAX_CHECKPOINTS: int(5, 1),

  /**
   * The archive of what compaction drops (issue 21): on by default for stored compactions
   * (a /compact with sessionId) and sessions' evicted messages.
   */
  ARCHIVE_ENABLED: bool(true),
  /** Bytes of archived messages one tenant may hold; a compaction past it archives nothing and says so (default 1 GiB). */
  ARCHIVE_QUOTA_BYTES: int(1_073_741_824),
  /** Archived messages older than this many days are deleted and no longer found (0: kept until their session is deleted). */
  ARCHIVE_RETENTION_DAYS: int(30),
  /** 32 bytes (64 hex characters or base64): archived messages are then encrypted at rest (AES-256-GCM), and the index keeps only lexemes. */
  ARCHIVE_ENCRYPTION_KEY: optionalString.pipe(
    z
      .string()
      .refine((v) => /^[0-9a-fA-F]{64}$/.test(v) || Buffer.from(v, 'base64').length === 32, 'must be 32 bytes: 64 hex characters or base64 (e.g. openssl rand -hex 32)')
      .optional(),
  ),

  /**
   * The provider-compatible proxy (issue 23, POST /v1/chat/completions, /v1/responses,
   * /v1/messages): where requests go on. Credentials are the caller's, passed through.
   */
  UPSTREAM_OPENAI_URL: z.url().default('https://api.openai.com/v1'),
  UPSTREAM_ANTHROPIC_URL: z.url().default('https://api.anthropic.com'),
  /**
   * Per-tenant proxy settings, by tenant name (the name its keys were created for), as
   * JSON: {"acme": {"upstreamOpenaiUrl": "…", "upstreamAnthropicUrl": "…", "threshold":
   * 60000}}. Each field overrides the server's for that tenant's proxied requests (the
   * threshold: tokens, or a fraction of the model's window below 1); a request's
   * x-compactd-threshold and a session's stored trigger still win. Set by the operator,
   * never by a tenant: an upstream URL is where the tenant's provider keys go.
   */
  PROXY_TENANTS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === '') return {}
      try {
        return JSON.parse(v) as unknown
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be JSON: {"<tenant>": {"upstreamOpenaiUrl"?, "upstreamAnthropicUrl"?, "threshold"?}}' })
        return z.NEVER
      }
    })
    .pipe(z.record(z.string(), z.strictObject({ upstreamOpenaiUrl: z.url().optional(), upstreamAnthropicUrl: z.url().optional(), threshold: z.number().positive().optional() }))),
  /**
   * A proxied conversation past its model's threshold is compacted to this share of the
   * threshold, so the next turns fit under the same compacted prefix (one cache break
   * buys many cached turns). 0.5: half the threshold.
   */
  /**
   * How long a verified API key is trusted without asking the database again, in ms (0:
   * every request asks). A revoked key then still works for up to this long on each
   * instance; the proxy's added latency with a key drops by the lookup (docs/benchmarks.md).
   */
  AUTH_KEY_CACHE_MS: int(0),
  PROXY_COMPACT_TO: z.coerce.number().gt(0).max(0.95).default(0.5),
  /**
   * Summaries the proxy's compacted prefix may hold in a row (src/use-cases/proxy/chain.ts):
   * a session compacted again keeps its prefix's head (system prompt, task, earlier
   * summaries) byte for byte and summarises only what came after it, so the provider's
   * cache still serves that head; at this many summaries, or when the head takes more than
   * 80% of the target, the whole history is compacted into one again. 1: always the whole.
   */
  PROXY_SUMMARY_CHAIN: int(3, 1).pipe(z.number().max(10)),
  /** With `x-compactd-recall: on`, the model's search_context calls the proxy answers itself, in at most this many rounds. */
  PROXY_RECALL_MAX_ROUNDS: int(3, 1).pipe(z.number().max(10)),

  /**
   * The compaction circuit breaker (issue 24, src/engine/compaction/breaker.ts): automatic
   * compactions (the proxy's, GET /context's) of a session stop after BREAKER_FAILURES in
   * a row each freed less than BREAKER_MIN_FREED_SHARE of the window, or after
   * BREAKER_MAX_COMPACTIONS within BREAKER_WITHIN_MESSAGES messages; for
   * BREAKER_COOLDOWN_SECONDS, or until a manual compaction or a reset.
   */
  BREAKER_FAILURES: int(3, 1).pipe(z.number().max(100)),
  BREAKER_MIN_FREED_SHARE: z.coerce.number().min(0).max(1).default(0.05),
  BREAKER_MAX_COMPACTIONS: int(3, 2).pipe(z.number().max(100)),
  BREAKER_WITHIN_MESSAGES: int(10, 0).pipe(z.number().max(100_000)),
  BREAKER_COOLDOWN_SECONDS: int(600, 1).pipe(z.number().max(86_400)),

  /** Serve Swagger UI at /docs. */
  DOCS_ENABLED: bool(true),

  /** Sessions (issue 4): background summary workers of this instance; 0 = a pure API node. */
  WORKERS: int(2),
  /** How often an idle worker looks for queued summary updates, in ms. */
  WORKER_POLL_MS: int(1_000, 10),
  /** A claimed update is owned this long (renewed while it runs); a dead worker's update is claimed again after it. */
  LEASE_MS: int(60_000, 100),
  /** Failed attempts retried (exponential backoff) before an update is marked failed and alerted. */
  MAX_RETRIES: int(5),
  /** Backoff after the first failed attempt, doubled per attempt (capped at 10 minutes), in ms. */
  WORKER_RETRY_BASE_MS: int(1_000, 1),
  /** Every summary is re-aged this often even without new messages, in ms (default one day). */
  DAILY_AGING_MS: int(86_400_000, 1_000),
  /** An Idempotency-Key is honoured this long; the daily job deletes older ones (default one day). */
  IDEMPOTENCY_TTL_MS: int(86_400_000, 1_000),
  /** Finished summary_update_runs audit rows are kept this long (default 7 days). */
  RUN_HISTORY_MS: int(7 * 86_400_000, 1_000),
  /**
   * During a database outage, a summary this process saw is served (stale) only if the
   * database confirmed it this recently; older, it may belong to a session another
   * instance has deleted since (default 15 minutes).
   */
  SUMMARY_FALLBACK_MAX_AGE_MS: int(900_000, 0),

  /**
   * Compute pool (issue 11, src/plugins/compute-pool.ts): worker threads for compaction and
   * rolling-summary updates. Default: the machine's cores. 0 runs them on the event loop.
   */
  COMPUTE_THREADS: int(availableParallelism()),
  /**
   * Start the pool's threads when the server listens (true: the first compaction does not
   * wait ~2 s for a thread to load the engine), or with the first pooled task (false: an
   * idle sidecar saves each thread's ~75 MB until it compacts; docs/benchmarks.md
   * "Footprint").
   */
  COMPUTE_WARM: bool(true),
  /**
   * Stop the pool's threads after this many ms without a pooled task (0: never). The next
   * pooled task starts them again and waits for their start-up (~1–2 s, not charged to its
   * deadline). An idle sidecar then holds what COMPUTE_WARM=false holds before its first
   * compaction (docs/operations.md "Memory by setting").
   */
  COMPUTE_IDLE_STOP_MS: int(0),
  /**
   * Each compute thread's young generation, in MB (V8's semi-spaces: 0 keeps V8's default,
   * up to 3 × 16 MB). 8 holds ~50 MB less at the peak of 4 compacting clients, for ~5% more
   * time (docs/benchmarks.md "Footprint").
   */
  COMPUTE_THREAD_YOUNG_MB: int(8),
  /** Requests that may wait for a compute thread; one more is a 503 overloaded with Retry-After. */
  COMPUTE_QUEUE_MAX: int(16),
  /** Requests whose body is at most this many bytes are computed on the event loop (cheaper than the trip to a thread). */
  COMPUTE_INLINE_MAX_BYTES: int(8_192),
  /**
   * A pooled compute task's budget from when it is queued (issue 18): past it a queued task
   * is dropped and a running one's thread replaced; the request gets a 503. Time waiting for
   * a summarizer provider is not counted.
   */
  COMPUTE_DEADLINE_MS: int(30_000, 100),
  /** Requests of one API key that may wait for a compute thread (0: half of COMPUTE_QUEUE_MAX). */
  COMPUTE_TENANT_QUEUE_MAX: int(0),
  /** Threads one API key may hold while another key has used the pool recently (0: all but one). */
  COMPUTE_TENANT_MAX_THREADS: int(0),
  /** How recently another key must have used the pool for COMPUTE_TENANT_MAX_THREADS to apply, in ms. */
  COMPUTE_FAIR_WINDOW_MS: int(10_000),
  /** Nice value of the compute threads above the process's (Linux: per thread): the event loop wins the CPU when both want it. 0: equal. */
  COMPUTE_THREAD_NICE: int(5).pipe(z.number().max(19)),
})

type ParsedConfig = z.infer<typeof configSchema>

/** The configuration, COMPACTION_DEFAULT_STRATEGY resolved (defaultPipeline when unset). */
export type Config = Omit<ParsedConfig, 'COMPACTION_DEFAULT_STRATEGY'> & { COMPACTION_DEFAULT_STRATEGY: RegisteredStrategyName[] }

/** The default pipeline when a summarizer is configured (issue 22): masking, the model's summary, the rules summary when the model fails. */
export const LLM_DEFAULT_PIPELINE: readonly RegisteredStrategyName[] = ['mask', 'llm', 'rules']

/**
 * The pipeline of a request that names none, when COMPACTION_DEFAULT_STRATEGY is unset: with a
 * summarizer configured (an OpenAI or Anthropic key: summarizer-model.ts offers its models)
 * mask → llm → rules, the model's summary holding what the rules cannot (decisions with their
 * reasons, findings); without one, offline: mask → rules (DEFAULT_COMPACT_OPTIONS).
 */
export function defaultPipeline(config: Pick<ParsedConfig, 'OPENAI_API_KEY' | 'ANTHROPIC_API_KEY'>): RegisteredStrategyName[] {
  return config.OPENAI_API_KEY || config.ANTHROPIC_API_KEY ? [...LLM_DEFAULT_PIPELINE] : (DEFAULT_COMPACT_OPTIONS.strategy.filter(isStrategyName) as RegisteredStrategyName[])
}

function resolved(config: Omit<ParsedConfig, 'COMPACTION_DEFAULT_STRATEGY'> & { COMPACTION_DEFAULT_STRATEGY?: RegisteredStrategyName[] | undefined }): Config {
  return { ...config, COMPACTION_DEFAULT_STRATEGY: config.COMPACTION_DEFAULT_STRATEGY ?? defaultPipeline(config) }
}

export class ConfigError extends Error {}

/** Parse the environment. Throws ConfigError whose message is one line naming the variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const result = configSchema.safeParse(env)
  if (!result.success) {
    const issue = result.error.issues[0]!
    const name = String(issue.path[0] ?? 'environment')
    const shown = env[name] === undefined ? 'unset' : JSON.stringify(redactIfSecret(name, env[name]!))
    throw new ConfigError(`invalid configuration: ${name}=${shown}: ${issue.message}`)
  }
  return resolved(result.data)
}

function redactIfSecret(name: string, value: string): string {
  if (/KEY|SECRET|PASSWORD|TOKEN/.test(name)) return '[redacted]'
  // A database URL may carry a password: never echo credentials.
  return value.replace(/\/\/[^@/]*@/, '//[redacted]@')
}

/** Config for tests and library use: defaults plus overrides, no environment (the default pipeline follows the keys given). */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return resolved({ ...configSchema.parse({}), ...overrides })
}
