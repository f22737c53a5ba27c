/**
 * The compute pool (issue 11): CPU-heavy work — compaction, counting large /estimate
 * bodies, and the background worker's rolling-summary updates — runs in worker threads
 * (piscina, at nice +COMPUTE_THREAD_NICE), so the event loop keeps
 * answering /healthz, summary reads and appends while 135 ms compactions run, and the
 * other cores work. `app.compute.run(task, input, { signal, bytes })`:
 *
 * - inline: with COMPUTE_THREADS=0, or an input of at most COMPUTE_INLINE_MAX_BYTES (the
 *   trip to a thread, a structured clone each way, costs more than such a task; the
 *   threshold is measured, docs/benchmarks.md);
 * - otherwise to a free thread, or into a FIFO queue in front of the pool. At most
 *   COMPUTE_QUEUE_MAX requests wait: one more is a 503 `overloaded` with Retry-After
 *   (the queue's work over the threads, from the mean task time), not unbounded latency.
 *   Background updates (at most WORKERS) are never refused; they wait their turn;
 * - a queued task whose client went away (its request's AbortSignal) leaves the queue
 *   and never runs. A running task finishes (a thread is not killed mid-task: it would
 *   have to load the engine again); its result is dropped.
 *
 * The tasks themselves (src/services/compute-tasks.ts) are pure; only structured-cloneable
 * data crosses (requests, options, results), never a function: the llm strategy, whose
 * summarizer is a provider client, stays on the event loop, as does /estimate's `provider`
 * method (an Anthropic call). The pool and its threads
 * start with the first pooled task, or when the server listens (warm()), so an app that
 * is only inject()ed in tests starts no thread. Metrics: docs/operations.md.
 */
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import v8 from 'node:v8'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { Piscina } from 'piscina'
import { Counter, Gauge, Histogram, type Registry } from 'prom-client'
import type { Config } from '../config.ts'
import { ApiError } from '../errors.ts'
import { fromWire, runInline, type ComputeRunner, type RunOptions, type TaskName, type TaskInput, type TaskOutcome, type TaskOutput } from '../services/compute-tasks.ts'
import type { TokenCache } from './token-cache-store.ts'

/**
 * Heap a queued request holds per byte of its body: the parsed JSON (V8 strings, objects
 * and arrays of a message list) measured at 1.3–2.1× the body's bytes, rounded up, plus
 * the request's raw bytes while it is parsed. docs/operations.md has the arithmetic.
 */
export const HEAP_BYTES_PER_BODY_BYTE = 3

/** The worker thread's entry: next to this file in the source, under dist/plugins/ in the build. */
export function computeWorkerFile(): string {
  const here = import.meta.url
  const candidates = here.endsWith('.ts') ? ['./compute-worker.ts'] : ['./plugins/compute-worker.js', '../plugins/compute-worker.js', './compute-worker.js']
  for (const c of candidates) {
    const file = fileURLToPath(new URL(c, here))
    if (existsSync(file)) return file
  }
  throw new Error(`compute pool: the worker entry (${candidates.join(' or ')}) is missing next to ${fileURLToPath(here)}; run npm run build`)
}

export interface ComputePoolOptions {
  config: Config
  /** Worker threads; 0 runs every task on the event loop. Default config.COMPUTE_THREADS. */
  threads?: number
  /** Requests waiting for a thread at most. Default config.COMPUTE_QUEUE_MAX. */
  queueMax?: number
  /** Inputs of at most this many bytes run inline. Default config.COMPUTE_INLINE_MAX_BYTES. */
  inlineMaxBytes?: number
  /** Where the metrics go (the app's registry); none: not exported. */
  registry?: Registry
  /** The worker entry (tests); default computeWorkerFile(). */
  filename?: string
  /** The app's token-count cache: tasks run inline use it, and threads report their own caches' hits and misses to it. */
  tokenCache?: TokenCache
}

export interface ComputePoolStats {
  threads: number
  queueMax: number
  /** Tasks waiting for a thread (requests and background updates). */
  queued: number
  /** Tasks on a thread now. */
  running: number
  /** Tasks finished on a thread (results and errors). */
  completed: number
  /** Tasks run on the event loop. */
  inline: number
  /** Tasks that left the queue because their client went away: they never ran. */
  cancelled: number
  /** Requests refused with 503 overloaded. */
  overloaded: number
}

interface Pending {
  task: TaskName
  input: unknown
  queuedAt: number
  background: boolean
  resolve(value: unknown): void
  reject(err: unknown): void
  signal?: AbortSignal
  onAbort?: () => void
  cacheScope?: string
}

type Where = 'pool' | 'inline'

export class ComputePool implements ComputeRunner {
  readonly threads: number
  readonly queueMax: number
  readonly inlineMaxBytes: number
  private readonly config: Config
  private readonly filename: string | undefined
  private readonly tokenCache: TokenCache | undefined
  private piscina: Piscina | undefined
  private readonly queue: Pending[] = []
  private waitingRequests = 0
  private running = 0
  private paused = false
  private closed = false
  /** Mean seconds of a pooled task (exponentially weighted): Retry-After's estimate. */
  private meanTaskSeconds = 0.25
  private readonly counts = { completed: 0, inline: 0, cancelled: 0, overloaded: 0 }
  private readonly metrics: ReturnType<typeof createPoolMetrics> | undefined
  private readonly children = new Map<string, { tasks: { inc(): void }; duration: { observe(v: number): void } }>()

  constructor(opts: ComputePoolOptions) {
    this.config = opts.config
    this.threads = opts.threads ?? opts.config.COMPUTE_THREADS
    this.queueMax = opts.queueMax ?? opts.config.COMPUTE_QUEUE_MAX
    this.inlineMaxBytes = opts.inlineMaxBytes ?? opts.config.COMPUTE_INLINE_MAX_BYTES
    this.filename = opts.filename
    this.tokenCache = opts.tokenCache
    this.metrics = opts.registry ? createPoolMetrics(opts.registry, this) : undefined
  }

  run<K extends TaskName>(task: K, input: TaskInput<K>, opts: RunOptions = {}): Promise<TaskOutput<K>> {
    // Inline first: such a task runs now, to the end, so it needs no signal (a lazy one is never made).
    if (this.threads === 0 || (opts.bytes !== undefined && opts.bytes <= this.inlineMaxBytes)) return this.inline(task, input, opts.cacheScope)
    const signal = typeof opts.signal === 'function' ? opts.signal() : opts.signal
    if (signal?.aborted) {
      this.cancelled(task)
      return Promise.reject(clientGone())
    }
    if (this.closed) return Promise.reject(new ApiError(503, 'shutting_down', 'this instance is shutting down; retry (another instance will answer)', undefined, undefined, { 'retry-after': '5' }))
    const background = opts.background === true
    const mustWait = this.paused || this.running >= this.threads
    if (mustWait && !background && this.waitingRequests >= this.queueMax) {
      this.counts.overloaded++
      this.metrics?.overloaded.inc({ task })
      const seconds = this.retryAfterSeconds()
      return Promise.reject(
        new ApiError(
          503,
          'overloaded',
          `the compute pool is full: ${this.waitingRequests} requests wait for ${this.threads} busy threads (COMPUTE_QUEUE_MAX ${this.queueMax}); retry in ${seconds} s`,
          undefined,
          undefined,
          { 'retry-after': String(seconds) },
        ),
      )
    }
    return new Promise<TaskOutput<K>>((resolve, reject) => {
      const entry: Pending = { task, input, queuedAt: performance.now(), background, resolve: resolve as (v: unknown) => void, reject, cacheScope: opts.cacheScope }
      if (signal) {
        entry.signal = signal
        entry.onAbort = () => {
          const i = this.queue.indexOf(entry)
          if (i < 0) return // already on a thread: it finishes, the result is dropped
          this.queue.splice(i, 1)
          if (!entry.background) this.waitingRequests--
          this.cancelled(task)
          reject(clientGone())
        }
        signal.addEventListener('abort', entry.onAbort, { once: true })
      }
      this.queue.push(entry)
      if (!background) this.waitingRequests++
      this.pump()
    })
  }

  /**
   * Starts the threads now (the server calls it when it listens), rather than with the
   * first pooled task, and has each run a small compaction: a thread's first task loads
   * the tokenizer's tables and compiles the engine (about 2 s here), which a client's
   * first request would otherwise wait for.
   */
  warm(): void {
    if (this.threads === 0 || this.closed || this.piscina) return
    const pool = this.pool()
    for (let i = 0; i < this.threads; i++) pool.run({ task: 'compact', input: WARM_UP }).catch(() => {})
  }

  /** Stops handing queued tasks to threads (tests: hold tasks in the queue), until resume(). */
  pause(): void {
    this.paused = true
  }

  resume(): void {
    this.paused = false
    this.pump()
  }

  stats(): ComputePoolStats {
    return { threads: this.threads, queueMax: this.queueMax, queued: this.queue.length, running: this.running, ...this.counts }
  }

  /** Refuses new pooled tasks, fails the queued ones, waits for the running ones, and stops the threads. */
  async close(): Promise<void> {
    this.closed = true
    for (const entry of this.queue.splice(0)) {
      if (entry.onAbort) entry.signal?.removeEventListener('abort', entry.onAbort)
      entry.reject(new ApiError(503, 'shutting_down', 'this instance is shutting down; retry (another instance will answer)', undefined, undefined, { 'retry-after': '5' }))
    }
    this.waitingRequests = 0
    const pool = this.piscina
    this.piscina = undefined
    await pool?.close()
  }

  private async inline<K extends TaskName>(task: K, input: TaskInput<K>, cacheScope: string | undefined): Promise<TaskOutput<K>> {
    const started = performance.now()
    this.counts.inline++
    let outcome: 'ok' | 'error' = 'error'
    try {
      const tokenCache = cacheScope === undefined ? undefined : this.tokenCache?.for(cacheScope)
      const value = await runInline(this.config, task, input, tokenCache ? { tokenCache } : {})
      outcome = 'ok'
      return value
    } finally {
      this.finished(task, 'inline', outcome, (performance.now() - started) / 1000)
    }
  }

  private pool(): Piscina {
    this.piscina ??= new Piscina({
      filename: this.filename ?? computeWorkerFile(),
      minThreads: this.threads,
      maxThreads: this.threads,
      idleTimeout: Infinity,
      concurrentTasksPerWorker: 1,
      // Above the process's nice value (Linux: per thread; piscina applies it with
      // @napi-rs/nice, and skips it where that is missing): the event loop wins the CPU when
      // both want it, and answers /healthz and summary reads between the threads' time
      // slices rather than taking turns with compactions (weights at +5: 1024 : 335).
      niceIncrement: this.config.COMPUTE_THREAD_NICE,
      workerData: { config: this.config },
    })
    return this.piscina
  }

  private pump(): void {
    while (!this.paused && this.running < this.threads && this.queue.length > 0) {
      const entry = this.queue.shift()!
      if (!entry.background) this.waitingRequests--
      if (entry.onAbort) entry.signal?.removeEventListener('abort', entry.onAbort)
      this.dispatch(entry)
    }
  }

  private dispatch(entry: Pending): void {
    this.running++
    const started = performance.now()
    this.metrics?.queueWait.observe({ task: entry.task }, (started - entry.queuedAt) / 1000)
    // The books are kept before the caller hears back, so stats() is current when it does.
    const settle = (outcome: 'ok' | 'error') => {
      const seconds = (performance.now() - started) / 1000
      this.running--
      this.counts.completed++
      this.meanTaskSeconds = 0.8 * this.meanTaskSeconds + 0.2 * seconds
      this.metrics?.busySeconds.inc(seconds)
      this.finished(entry.task, 'pool', outcome, seconds)
      this.pump()
    }
    this.pool()
      .run({ task: entry.task, input: entry.input, ...(entry.cacheScope !== undefined ? { cacheScope: entry.cacheScope } : {}) })
      .then(
        (result: TaskOutcome) => {
          if (result.tokenCache) this.tokenCache?.recordThread(result.tokenCache)
          settle(result.ok ? 'ok' : 'error')
          if (result.ok) entry.resolve(result.value)
          else entry.reject(fromWire(result.error))
        },
        (err: unknown) => {
          settle('error')
          entry.reject(err)
        },
      )
  }

  private finished(task: TaskName, where: Where, outcome: 'ok' | 'error', seconds: number): void {
    if (!this.metrics) return
    // Label children made once: every small /estimate passes here (inline), and looking
    // labels up by object costs a few µs a call.
    const key = `${task} ${where} ${outcome}`
    let child = this.children.get(key)
    if (!child) this.children.set(key, (child = { tasks: this.metrics.tasks.labels(task, where, outcome), duration: this.metrics.duration.labels(task, where) }))
    child.tasks.inc()
    child.duration.observe(seconds)
  }

  private cancelled(task: TaskName): void {
    this.counts.cancelled++
    this.metrics?.cancelled.inc({ task })
  }

  /** Whole seconds until the work ahead (queued and running) is done, at least 1. */
  private retryAfterSeconds(): number {
    const ahead = this.queue.length + this.running
    return Math.max(1, Math.ceil((ahead * this.meanTaskSeconds) / Math.max(1, this.threads)))
  }
}

/** The warm-up task: a short conversation compacted by the default pipeline with the default model's tokenizer. */
export const WARM_UP: TaskInput<'compact'> = {
  request: {
    force: true,
    targetTokens: 300,
    keepRecent: 1,
    messages: [
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: 'Fix the failing test in src/app.ts.' },
      ...Array.from({ length: 6 }, (_, i) => [
        { role: 'assistant', content: `Step ${i}.`, tool_calls: [{ id: `w${i}`, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command: `npm test -- test/${i}.test.ts` }) } }] },
        { role: 'tool', tool_call_id: `w${i}`, content: `FAIL test/${i}.test.ts\nError: expected ${i} to equal ${i + 1}\n${'at src/app.ts:12:3\n'.repeat(20)}` },
      ]).flat(),
      { role: 'assistant', content: 'The tests pass now.' },
    ],
  },
}

function clientGone(): ApiError {
  return new ApiError(499, 'client_closed_request', 'the client closed the request before its compute task started')
}

function createPoolMetrics(registry: Registry, pool: ComputePool) {
  const registers = [registry]
  new Gauge({ name: 'compactd_compute_threads', help: 'Worker threads of the compute pool (COMPUTE_THREADS).', registers }).set(pool.threads)
  new Gauge({ name: 'compactd_compute_queue_max', help: 'Requests that may wait for a compute thread (COMPUTE_QUEUE_MAX).', registers }).set(pool.queueMax)
  new Gauge({
    name: 'compactd_compute_queue_depth',
    help: 'Tasks waiting for a compute thread now.',
    registers,
    collect() {
      this.set(pool.stats().queued)
    },
  })
  new Gauge({
    name: 'compactd_compute_running',
    help: 'Tasks on a compute thread now.',
    registers,
    collect() {
      this.set(pool.stats().running)
    },
  })
  return {
    busySeconds: new Counter({ name: 'compactd_compute_busy_seconds_total', help: 'Seconds compute threads spent on tasks (utilization: its rate / compactd_compute_threads).', registers }),
    tasks: new Counter({ name: 'compactd_compute_tasks_total', help: 'Compute tasks finished, by task, where (pool or inline) and outcome (ok or error).', labelNames: ['task', 'where', 'outcome'], registers }),
    overloaded: new Counter({ name: 'compactd_compute_overloaded_total', help: 'Requests refused with 503 overloaded: the compute queue was full.', labelNames: ['task'], registers }),
    cancelled: new Counter({ name: 'compactd_compute_cancelled_total', help: 'Queued compute tasks dropped because their client went away (never run).', labelNames: ['task'], registers }),
    queueWait: new Histogram({
      name: 'compactd_compute_queue_wait_seconds',
      help: 'Time a pooled task waited for a thread, in seconds.',
      labelNames: ['task'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    duration: new Histogram({
      name: 'compactd_compute_task_duration_seconds',
      help: 'Duration of one compute task (on a thread: including the transfer both ways), by task and where, in seconds.',
      labelNames: ['task', 'where'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    }),
  }
}

/**
 * Worst-case heap of the bodies the pool lets wait: every queued request and every
 * running one holding a body of BODY_LIMIT_BYTES (see HEAP_BYTES_PER_BODY_BYTE).
 */
export function worstCaseQueuedHeapBytes(config: Pick<Config, 'BODY_LIMIT_BYTES' | 'COMPUTE_QUEUE_MAX' | 'COMPUTE_THREADS'>): number {
  return (config.COMPUTE_QUEUE_MAX + config.COMPUTE_THREADS) * config.BODY_LIMIT_BYTES * HEAP_BYTES_PER_BODY_BYTE
}

/** A request body's size from its Content-Length; undefined (chunked): the pool treats it as large. */
export function contentLength(req: FastifyRequest): number | undefined {
  const header = req.headers['content-length']
  const n = Number(header)
  return header !== undefined && Number.isFinite(n) ? n : undefined
}

/**
 * A signal that fires when the client goes away before the reply (a queued task then
 * leaves the queue), made on first call of signal(): a task run inline never calls it, so
 * a small request pays for no AbortController and no listener. Call done() once the reply
 * is decided.
 */
export function clientGoneSignal(reply: FastifyReply): { signal(): AbortSignal; done(): void } {
  let controller: AbortController | undefined
  let onClose: (() => void) | undefined
  return {
    signal() {
      if (!controller) {
        const made = (controller = new AbortController())
        onClose = () => {
          if (!reply.raw.writableEnded) made.abort()
        }
        reply.raw.once('close', onClose)
      }
      return controller.signal
    },
    done() {
      if (onClose) reply.raw.off('close', onClose)
    },
  }
}

// ---------------------------------------------------------------------------

declare module 'fastify' {
  interface FastifyInstance {
    compute: ComputePool
  }
}

export default fp(
  async function computePoolPlugin(app: FastifyInstance) {
    const pool = new ComputePool({ config: app.config, registry: app.metrics.registry, tokenCache: app.tokenCache })
    app.decorate('compute', pool)
    const worst = worstCaseQueuedHeapBytes(app.config)
    const heapLimit = v8.getHeapStatistics().heap_size_limit
    if (pool.threads > 0 && worst > heapLimit / 2) {
      const mb = (n: number) => `${Math.round(n / 1048576)} MB`
      app.log.warn(
        { worstCaseBytes: worst, heapLimitBytes: heapLimit },
        `compute queue: (COMPUTE_QUEUE_MAX + COMPUTE_THREADS) × BODY_LIMIT_BYTES × ${HEAP_BYTES_PER_BODY_BYTE} = ${mb(worst)}, more than half the heap limit (${mb(heapLimit)}): lower COMPUTE_QUEUE_MAX or BODY_LIMIT_BYTES, or raise --max-old-space-size (docs/operations.md)`,
      )
    }
    app.addHook('onListen', async () => pool.warm())
    // Registered before the sessions plugin: closes after its worker stopped (onClose runs in reverse).
    app.addHook('onClose', async () => pool.close())
  },
  { name: 'compute-pool', dependencies: ['metrics', 'token-cache'] },
)
