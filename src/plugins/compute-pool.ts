/**
 * The compute pool (issues 11 and 18): CPU-heavy work — compaction (the llm strategy's
 * too), counting large /estimate bodies, imports and the background worker's
 * rolling-summary updates — runs in worker threads (piscina, at nice
 * +COMPUTE_THREAD_NICE), so the event loop keeps answering /healthz, summary reads and
 * appends. `app.compute.run(task, input, { signal, bytes, tenant, summarizer })`:
 *
 * - inline: with COMPUTE_THREADS=0, or a small input (at most COMPUTE_INLINE_MAX_BYTES)
 *   with no pathological text (containsLongRun: a long run of one character class costs
 *   up to 30× prose of its size to count, so a small body of it is heavy too);
 * - otherwise to a thread through a fair queue (compute-queue.ts): per tenant, the tenant
 *   with the fewest running tasks first, and no tenant holds every thread while another is
 *   active. At most COMPUTE_QUEUE_MAX requests wait, COMPUTE_TENANT_QUEUE_MAX of one
 *   tenant; past either, or when the queue's expected wait exceeds the deadline, a 503
 *   `overloaded` whose Retry-After is that expected wait (the sum of the waiting and
 *   running tasks' estimates, from measured seconds per byte of each task, over the threads);
 * - every pooled task has a deadline, COMPUTE_DEADLINE_MS from when it was queued. Past
 *   it a queued task leaves the queue, and a running one is abandoned: piscina terminates
 *   its thread and starts another. The request gets a 503 `deadline_exceeded`. Time spent
 *   waiting for a summarizer provider is not charged;
 * - a task whose client went away (its request's AbortSignal) leaves the queue, or, when
 *   running, has its thread replaced: nobody waits for its result;
 * - on shutdown (preClose), queued tasks are refused, running ones get half of
 *   SHUTDOWN_TIMEOUT_MS to finish, then are abandoned, so the process exits in its grace.
 *
 * Tasks (src/use-cases/compute.ts) are pure; only structured-cloneable data crosses.
 * The parts: compute-queue.ts (the fair queue), compute-threads.ts (piscina, warm-up, the
 * llm strategy's summarizer bridge), compute-pending.ts (a task until it is answered),
 * compute-refusals.ts (the 503s and the 499), compute-budget.ts (time and cost),
 * compute-metrics.ts (metrics and counts; docs/operations.md).
 */
import v8 from 'node:v8'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Registry } from 'prom-client'
import type { Config } from '../config.ts'
import { containsLongRun } from '../engine/tokens/tokenizer.ts'
import type { ApiError } from '../errors.ts'
import { runInline, type ComputeRunner, type RunOptions, type TaskName, type TaskInput, type TaskOutput } from '../use-cases/compute.ts'
import { createPoolMetrics, HEAP_BYTES_PER_BODY_BYTE, PoolBooks, worstCaseQueuedHeapBytes, type PoolCounts } from './compute-metrics.ts'
import { TaskCostModel } from './compute-budget.ts'
import { PendingTask } from './compute-pending.ts'
import { BACKGROUND_TENANT, FairQueue } from './compute-queue.ts'
import { clientGone, deadlineExceeded, overloaded, shuttingDown } from './compute-refusals.ts'
import { ComputeThreads } from './compute-threads.ts'
import { IdleStop } from './compute-idle-stop.ts'
import type { TokenCache } from './token-cache-store.ts'
import { fromWire, type TaskOutcome } from './compute-wire.ts'

export { HEAP_BYTES_PER_BODY_BYTE, worstCaseQueuedHeapBytes } from './compute-metrics.ts'
export { clientGoneSignal, contentLength } from './compute-request.ts'
export { WARM_UP } from '../use-cases/compute.ts'

export interface ComputePoolOptions {
  config: Config
  /** Worker threads; 0 runs every task on the event loop. Default config.COMPUTE_THREADS. */
  threads?: number
  /** Requests waiting for a thread at most. Default config.COMPUTE_QUEUE_MAX. */
  queueMax?: number
  /** Inputs of at most this many bytes run inline. Default config.COMPUTE_INLINE_MAX_BYTES. */
  inlineMaxBytes?: number
  /** A pooled task's budget from when it is queued, in ms. Default config.COMPUTE_DEADLINE_MS. */
  deadlineMs?: number
  /** Where the metrics go (the app's registry); none: not exported. */
  registry?: Registry
  /** The worker entry (tests); default computeWorkerEntry(). */
  filename?: string
  /** The app's token-count cache: tasks run inline use it, and threads report their own caches' hits and misses to it. */
  tokenCache?: TokenCache
}

export interface ComputePoolStats extends PoolCounts {
  threads: number
  queueMax: number
  /** Tasks waiting for a thread (requests and background updates). */
  queued: number
  /** Tasks on a thread now. */
  running: number
  /** Times the threads were stopped for being idle (COMPUTE_IDLE_STOP_MS). */
  idleStops: number
}

/** Bytes assumed for a task whose size is unknown (no Content-Length). */
const UNKNOWN_BYTES = 1_048_576

export class ComputePool implements ComputeRunner {
  readonly threads: number
  readonly queueMax: number
  readonly inlineMaxBytes: number
  readonly deadlineMs: number
  private readonly tenantQueueMax: number
  private readonly config: Config
  private readonly tokenCache: TokenCache | undefined
  private readonly threadPool: ComputeThreads
  private readonly queue: FairQueue<PendingTask>
  private readonly onThread = new Set<PendingTask>()
  private waitingRequests = 0
  private paused = false
  private closed = false
  /** COMPUTE_IDLE_STOP_MS: stops the threads once nothing is queued, running or starting for that long. */
  private readonly idleStop: IdleStop
  /** Measured seconds per input byte of each task: the queue's expected wait. */
  private readonly costs = new TaskCostModel()
  private readonly books: PoolBooks

  constructor(opts: ComputePoolOptions) {
    this.config = opts.config
    this.threads = opts.threads ?? opts.config.COMPUTE_THREADS
    this.queueMax = opts.queueMax ?? opts.config.COMPUTE_QUEUE_MAX
    this.inlineMaxBytes = opts.inlineMaxBytes ?? opts.config.COMPUTE_INLINE_MAX_BYTES
    this.deadlineMs = opts.deadlineMs ?? opts.config.COMPUTE_DEADLINE_MS
    this.tenantQueueMax = opts.config.COMPUTE_TENANT_QUEUE_MAX || Math.max(1, Math.ceil(this.queueMax / 2))
    this.queue = new FairQueue<PendingTask>({
      tenantMaxThreads: opts.config.COMPUTE_TENANT_MAX_THREADS || Math.max(1, this.threads - 1),
      fairWindowMs: opts.config.COMPUTE_FAIR_WINDOW_MS,
    })
    this.idleStop = new IdleStop(opts.config.COMPUTE_IDLE_STOP_MS, () => !this.closed && this.idle(), () => {
      this.books.metrics?.idleStops.inc()
      // destroy() forgets the piscina at once, so a task that arrives meanwhile starts new threads.
      void this.threadPool.destroy().catch(() => {})
    })
    this.threadPool = new ComputeThreads({ config: opts.config, threads: this.threads, ...(opts.filename !== undefined ? { filename: opts.filename } : {}), onStarted: () => this.pump() })
    this.tokenCache = opts.tokenCache
    this.books = new PoolBooks(opts.registry ? createPoolMetrics(opts.registry, this) : undefined)
  }

  run<K extends TaskName>(task: K, input: TaskInput<K>, opts: RunOptions = {}): Promise<TaskOutput<K>> {
    // Inline: a small input of ordinary text runs now, to the end (no signal, no deadline: its cost is bounded).
    if (this.threads === 0 || (opts.bytes !== undefined && opts.bytes <= this.inlineMaxBytes && (opts.shapeFree === true || !containsLongRun(input)))) return this.inline(task, input, opts)
    const signal = typeof opts.signal === 'function' ? opts.signal() : opts.signal
    if (signal?.aborted) {
      this.books.cancelled(task, 'queued')
      return Promise.reject(clientGone())
    }
    if (this.closed) return Promise.reject(shuttingDown())
    const background = opts.background === true
    const tenant = background ? BACKGROUND_TENANT : (opts.tenant ?? opts.cacheScope ?? 'anonymous')
    const bytes = opts.bytes ?? UNKNOWN_BYTES
    const estimate = this.costs.estimate(task, bytes)
    if (!background) {
      const refusal = this.admission(tenant, estimate)
      if (refusal) {
        this.books.overloaded(task)
        return Promise.reject(refusal)
      }
    }
    this.idleStop.disarm()
    return new Promise<TaskOutput<K>>((resolve, reject) => {
      const startupAtQueue = this.threadPool.startup.read(performance.now())
      const entry = new PendingTask({ task, input, tenant, background, estimate, bytes, cacheScope: opts.cacheScope, summarizer: opts.summarizer, startupAtQueue }, { resolve: resolve as (v: unknown) => void, reject })
      if (signal) entry.watch(signal, () => this.clientLeft(entry))
      entry.timer = setTimeout(() => this.deadlinePassed(entry), this.deadlineMs)
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
    if (this.threads === 0 || this.closed || this.threadPool.started) return
    this.threadPool.start()
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
    return { threads: this.threads, queueMax: this.queueMax, queued: this.queue.size, running: this.onThread.size, idleStops: this.idleStop.stops, ...this.books.counts }
  }

  /**
   * Seconds until the work ahead of a new task is done: what is left of each running task's
   * estimate (at least 50 ms; none past its deadline) and the estimate of each waiting one,
   * over the threads.
   */
  expectedWaitSeconds(now = performance.now()): number {
    let seconds = 0
    for (const entry of this.onThread) {
      const elapsed = (now - entry.startedAt!) / 1000
      const leftOfDeadline = Math.max(0, (this.deadlineMs - this.chargedMs(entry, now)) / 1000)
      seconds += Math.min(leftOfDeadline, Math.max(0.05, entry.estimate - elapsed))
    }
    for (const entry of this.queue.all()) seconds += entry.estimate
    return seconds / Math.max(1, this.threads)
  }

  /**
   * Shutdown's first step (preClose): refuses new tasks and the queued ones, and gives the
   * running ones `graceMs` to finish before abandoning them (their requests get a 503).
   */
  async drain(graceMs: number): Promise<void> {
    this.closed = true
    for (const entry of this.queue.drain()) {
      if (!entry.background) this.waitingRequests--
      entry.settle(shuttingDown())
    }
    if (this.onThread.size === 0) return
    const started = performance.now()
    while (this.onThread.size > 0 && performance.now() - started < graceMs) await new Promise((r) => setTimeout(r, 20))
    for (const entry of [...this.onThread]) entry.controller?.abort(shuttingDown())
  }

  /** Refuses new pooled tasks, fails the queued ones, waits for the running ones, and stops the threads. */
  async close(): Promise<void> {
    this.idleStop.disarm()
    await this.drain(this.config.SHUTDOWN_TIMEOUT_MS / 2)
    await this.threadPool.destroy()
  }

  private admission(tenant: string, estimate: number): ApiError | undefined {
    const mustWait = this.paused || this.onThread.size >= this.threads
    if (!mustWait) return undefined
    return overloaded({
      waitingRequests: this.waitingRequests,
      queueMax: this.queueMax,
      threads: this.threads,
      tenantWaiting: this.queue.waiting(tenant),
      tenantQueueMax: this.tenantQueueMax,
      waitSeconds: this.expectedWaitSeconds(),
      estimate,
      deadlineMs: this.deadlineMs,
    })
  }

  /**
   * Time charged to a task's deadline: since it was queued, less the time a summarizer
   * provider had its calls and the time threads were starting (neither is the task's work,
   * and a thread replaced after a stopped task starts again).
   */
  private chargedMs(entry: PendingTask, now: number): number {
    return now - entry.queuedAt - entry.providerTime.read(now) - (this.threadPool.startup.read(now) - entry.startupAtQueue)
  }

  private async inline<K extends TaskName>(task: K, input: TaskInput<K>, opts: RunOptions): Promise<TaskOutput<K>> {
    const started = performance.now()
    this.books.counts.inline++
    let outcome: 'ok' | 'error' = 'error'
    try {
      const tokenCache = opts.cacheScope === undefined ? undefined : this.tokenCache?.for(opts.cacheScope)
      // Only a task that calls a provider waits on I/O inline; the others run to the end at once.
      const signal = opts.summarizer && opts.signal ? (typeof opts.signal === 'function' ? opts.signal() : opts.signal) : undefined
      const value = await runInline(this.config, task, input, {
        ...(tokenCache ? { tokenCache } : {}),
        ...(opts.summarizer ? { summarizer: opts.summarizer } : {}),
        ...(signal ? { signal } : {}),
      })
      outcome = 'ok'
      return value
    } finally {
      this.books.finished(task, 'inline', outcome, (performance.now() - started) / 1000)
    }
  }

  private pump(): void {
    if (this.queue.size > 0) this.threadPool.start()
    while (!this.paused && !this.closed && this.onThread.size + this.threadPool.starting < this.threads && this.queue.size > 0) {
      const entry = this.queue.next(performance.now())
      if (!entry) return
      if (!entry.background) this.waitingRequests--
      this.dispatch(entry)
    }
    this.idleStop.arm()
  }

  private idle(): boolean {
    return this.threadPool.started && this.threadPool.starting === 0 && this.queue.size === 0 && this.onThread.size === 0
  }

  private dispatch(entry: PendingTask): void {
    this.onThread.add(entry)
    const started = (entry.startedAt = performance.now())
    this.books.metrics?.queueWait.observe({ task: entry.task }, (started - entry.queuedAt) / 1000)
    const controller = (entry.controller = new AbortController())
    const thread = this.threadPool.run(entry, controller.signal)
    // The books are kept before the caller hears back, so stats() is current when it does.
    const done = (outcome: 'ok' | 'error' | 'abandoned') => {
      const seconds = (performance.now() - started) / 1000
      thread.closeBridge?.()
      this.onThread.delete(entry)
      this.queue.finished(entry.tenant, performance.now())
      this.books.counts.completed++
      // Provider time is not the task's work: it stays out of the per-byte estimate.
      if (outcome === 'ok') this.costs.learn(entry.task, seconds - entry.providerTime.read(performance.now()) / 1000, entry.bytes)
      this.books.metrics?.busySeconds.inc(seconds)
      this.books.finished(entry.task, 'pool', outcome === 'ok' ? 'ok' : 'error', seconds)
      this.pump()
    }
    thread.result.then(
      (result: TaskOutcome) => {
        if (result.tokenCache) this.tokenCache?.recordThread(result.tokenCache)
        done(result.ok ? 'ok' : 'error')
        entry.settle(result.ok ? undefined : fromWire(result.error), result.ok ? result.value : undefined)
      },
      (err: unknown) => {
        // A stopped task's thread was terminated: its replacement starts before it takes work.
        if (controller.signal.aborted && !this.closed) this.threadPool.replaceStopped()
        done(controller.signal.aborted ? 'abandoned' : 'error')
        // Aborted: the reason is the error its requester gets (deadline, client gone, shutdown).
        entry.settle(controller.signal.aborted && controller.signal.reason instanceof Error ? controller.signal.reason : err)
      },
    )
  }

  private clientLeft(entry: PendingTask): void {
    if (this.queue.remove(entry)) {
      if (!entry.background) this.waitingRequests--
      this.books.cancelled(entry.task, 'queued')
      entry.settle(clientGone())
    } else if (this.onThread.has(entry)) {
      // Nobody waits for the result: the thread is stopped rather than left to finish.
      this.books.cancelled(entry.task, 'running')
      entry.controller?.abort(clientGone())
    }
  }

  private deadlinePassed(entry: PendingTask): void {
    const now = performance.now()
    const charged = this.chargedMs(entry, now)
    if (charged < this.deadlineMs && (this.onThread.has(entry) || this.queue.has(entry))) {
      // Part of the time went to a summarizer provider or a thread's start: the rest of the budget is still the task's.
      entry.timer = setTimeout(() => this.deadlinePassed(entry), this.deadlineMs - charged + 1)
      return
    }
    if (this.queue.remove(entry)) {
      if (!entry.background) this.waitingRequests--
      this.books.deadlineExceeded(entry.task, 'queued')
      entry.settle(this.deadlineError(entry, 'waited'))
      return
    }
    if (!this.onThread.has(entry)) return
    this.books.deadlineExceeded(entry.task, 'running')
    entry.controller?.abort(this.deadlineError(entry, 'ran'))
  }

  private deadlineError(entry: PendingTask, how: 'waited' | 'ran'): ApiError {
    return deadlineExceeded(entry.task, how, this.deadlineMs, this.expectedWaitSeconds())
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
    if (app.config.COMPUTE_WARM) app.addHook('onListen', async () => pool.warm())
    // Before the server stops taking connections' answers: requests waiting on the pool get
    // their 503 now, and running work has half the grace, so SIGTERM ends within it.
    app.addHook('preClose', async () => pool.drain(app.config.SHUTDOWN_TIMEOUT_MS / 2))
    // Registered before the sessions plugin: closes after its worker stopped (onClose runs in reverse).
    app.addHook('onClose', async () => pool.close())
  },
  { name: 'compute-pool', dependencies: ['metrics', 'token-cache'] },
)
