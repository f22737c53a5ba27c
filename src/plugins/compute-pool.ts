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
 * The llm strategy runs in a thread too: its provider client stays on the event loop and
 * the thread gets a stand-in that posts each completion over a MessagePort
 * (src/services/summarizer-bridge.ts). Tasks (src/services/compute-tasks.ts) are pure;
 * only structured-cloneable data crosses. Threads start with the first pooled task, or
 * when the server listens (warm()). Metrics: docs/operations.md.
 */
import v8 from 'node:v8'
import { MessageChannel } from 'node:worker_threads'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { Piscina } from 'piscina'
import type { Registry } from 'prom-client'
import type { Config } from '../config.ts'
import { containsLongRun } from '../engine/tokens/tokenizer.ts'
import { ApiError } from '../errors.ts'
import { runInline, WARM_UP, type ComputeRunner, type RunOptions, type TaskName, type TaskInput, type TaskOutput } from '../use-cases/compute.ts'
import { createPoolMetrics, HEAP_BYTES_PER_BODY_BYTE, worstCaseQueuedHeapBytes } from './compute-metrics.ts'
import { ActivityClock, TaskCostModel } from './compute-budget.ts'
import { BACKGROUND_TENANT, FairQueue } from './compute-queue.ts'
import type { TokenCache } from './token-cache-store.ts'
import { computeWorkerEntry } from './compute-worker-file.ts'
import { fromWire, type TaskOutcome } from './compute-wire.ts'
import { bridgedSummarizer, serveSummarizer } from './summarizer-bridge.ts'

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
  /** Tasks dropped because their client went away (queued: never ran; running: thread replaced). */
  cancelled: number
  /** Requests refused with 503 overloaded. */
  overloaded: number
  /** Tasks past their deadline (queued or running). */
  deadlineExceeded: number
}

interface Pending {
  task: TaskName
  input: unknown
  tenant: string
  queuedAt: number
  background: boolean
  /** Expected seconds on a thread, from the task's measured seconds per byte. */
  estimate: number
  bytes: number
  resolve(value: unknown): void
  reject(err: unknown): void
  signal?: AbortSignal
  onAbort?: () => void
  cacheScope?: string
  summarizer?: RunOptions['summarizer']
  timer?: NodeJS.Timeout
  /** Set while on a thread: aborting it makes piscina terminate the thread. */
  controller?: AbortController
  startedAt?: number
  /** Time its summarizer calls were in flight: not charged to the deadline. */
  providerTime: ActivityClock
  /** The pool's start-up clock when this task was queued. */
  startupAtQueue: number
  settled: boolean
}

type Where = 'pool' | 'inline'

/** Bytes assumed for a task whose size is unknown (no Content-Length). */
const UNKNOWN_BYTES = 1_048_576

export class ComputePool implements ComputeRunner {
  readonly threads: number
  readonly queueMax: number
  readonly inlineMaxBytes: number
  readonly deadlineMs: number
  private readonly tenantQueueMax: number
  private readonly config: Config
  private readonly filename: string | undefined
  private readonly tokenCache: TokenCache | undefined
  private piscina: Piscina | undefined
  private readonly queue: FairQueue<Pending>
  private readonly onThread = new Set<Pending>()
  private waitingRequests = 0
  /** Threads being started (a first task loads the engine, about 2 s built, far more from source): no task is handed to them meanwhile. */
  private starting = 0
  /** Time during which some thread was starting: a deadline does not count it. */
  private readonly startup = new ActivityClock()
  private paused = false
  private closed = false
  /** Measured seconds per input byte of each task: the queue's expected wait. */
  private readonly costs = new TaskCostModel()
  private readonly counts = { completed: 0, inline: 0, cancelled: 0, overloaded: 0, deadlineExceeded: 0 }
  private readonly metrics: ReturnType<typeof createPoolMetrics> | undefined
  private readonly children = new Map<string, { tasks: { inc(): void }; duration: { observe(v: number): void } }>()

  constructor(opts: ComputePoolOptions) {
    this.config = opts.config
    this.threads = opts.threads ?? opts.config.COMPUTE_THREADS
    this.queueMax = opts.queueMax ?? opts.config.COMPUTE_QUEUE_MAX
    this.inlineMaxBytes = opts.inlineMaxBytes ?? opts.config.COMPUTE_INLINE_MAX_BYTES
    this.deadlineMs = opts.deadlineMs ?? opts.config.COMPUTE_DEADLINE_MS
    this.tenantQueueMax = opts.config.COMPUTE_TENANT_QUEUE_MAX || Math.max(1, Math.ceil(this.queueMax / 2))
    this.queue = new FairQueue<Pending>({
      tenantMaxThreads: opts.config.COMPUTE_TENANT_MAX_THREADS || Math.max(1, this.threads - 1),
      fairWindowMs: opts.config.COMPUTE_FAIR_WINDOW_MS,
    })
    this.filename = opts.filename
    this.tokenCache = opts.tokenCache
    this.metrics = opts.registry ? createPoolMetrics(opts.registry, this) : undefined
  }

  run<K extends TaskName>(task: K, input: TaskInput<K>, opts: RunOptions = {}): Promise<TaskOutput<K>> {
    // Inline: a small input of ordinary text runs now, to the end (no signal, no deadline: its cost is bounded).
    if (this.threads === 0 || (opts.bytes !== undefined && opts.bytes <= this.inlineMaxBytes && !containsLongRun(input))) return this.inline(task, input, opts)
    const signal = typeof opts.signal === 'function' ? opts.signal() : opts.signal
    if (signal?.aborted) {
      this.cancelled(task, 'queued')
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
        this.counts.overloaded++
        this.metrics?.overloaded.inc({ task })
        return Promise.reject(refusal)
      }
    }
    return new Promise<TaskOutput<K>>((resolve, reject) => {
      const entry: Pending = {
        task,
        input,
        tenant,
        queuedAt: performance.now(),
        background,
        estimate,
        bytes,
        resolve: resolve as (v: unknown) => void,
        reject,
        cacheScope: opts.cacheScope,
        summarizer: opts.summarizer,
        providerTime: new ActivityClock(),
        startupAtQueue: this.startup.read(performance.now()),
        settled: false,
      }
      if (signal) {
        entry.signal = signal
        entry.onAbort = () => this.clientLeft(entry)
        signal.addEventListener('abort', entry.onAbort, { once: true })
      }
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
    if (this.threads === 0 || this.closed || this.piscina) return
    this.pool()
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
    return { threads: this.threads, queueMax: this.queueMax, queued: this.queue.size, running: this.onThread.size, ...this.counts }
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
      this.settle(entry, shuttingDown())
    }
    if (this.onThread.size === 0) return
    const started = performance.now()
    while (this.onThread.size > 0 && performance.now() - started < graceMs) await new Promise((r) => setTimeout(r, 20))
    for (const entry of [...this.onThread]) entry.controller?.abort(shuttingDown())
  }

  /** Refuses new pooled tasks, fails the queued ones, waits for the running ones, and stops the threads. */
  async close(): Promise<void> {
    await this.drain(this.config.SHUTDOWN_TIMEOUT_MS / 2)
    const pool = this.piscina
    this.piscina = undefined
    await pool?.destroy()
  }

  private admission(tenant: string, estimate: number): ApiError | undefined {
    const mustWait = this.paused || this.onThread.size >= this.threads
    if (!mustWait) return undefined
    const wait = this.expectedWaitSeconds()
    const retryAfter = { 'retry-after': String(Math.max(1, Math.ceil(wait))) }
    if (this.waitingRequests >= this.queueMax) {
      return new ApiError(503, 'overloaded', `the compute pool is full: ${this.waitingRequests} requests wait for ${this.threads} busy threads (COMPUTE_QUEUE_MAX ${this.queueMax}); the work ahead takes about ${wait.toFixed(1)} s`, undefined, undefined, retryAfter)
    }
    if (this.queue.waiting(tenant) >= this.tenantQueueMax) {
      return new ApiError(503, 'overloaded', `this API key already has ${this.queue.waiting(tenant)} requests waiting for a compute thread (COMPUTE_TENANT_QUEUE_MAX ${this.tenantQueueMax}); the work ahead takes about ${wait.toFixed(1)} s`, undefined, undefined, retryAfter)
    }
    if ((wait + estimate) * 1000 > this.deadlineMs) {
      return new ApiError(503, 'overloaded', `the compute queue's work (about ${wait.toFixed(1)} s) would not leave this task time within its ${this.deadlineMs / 1000} s deadline (COMPUTE_DEADLINE_MS)`, undefined, undefined, retryAfter)
    }
    return undefined
  }

  /**
   * Time charged to a task's deadline: since it was queued, less the time a summarizer
   * provider had its calls and the time threads were starting (neither is the task's work,
   * and a thread replaced after a stopped task starts again).
   */
  private chargedMs(entry: Pending, now: number): number {
    return now - entry.queuedAt - entry.providerTime.read(now) - (this.startup.read(now) - entry.startupAtQueue)
  }

  /**
   * Has `n` threads run the warm-up compaction before any task is handed to them: a new
   * thread's first task loads the tokenizer's tables and compiles the engine, which a
   * client's request would otherwise wait for (and its deadline pay for).
   */
  private startThreads(pool: Piscina, n: number): void {
    for (let i = 0; i < n; i++) {
      this.startup.set(++this.starting > 0, performance.now())
      pool
        .run({ task: 'compact', input: WARM_UP })
        .catch(() => {})
        .finally(() => {
          this.startup.set(--this.starting > 0, performance.now())
          this.pump()
        })
    }
  }

  private async inline<K extends TaskName>(task: K, input: TaskInput<K>, opts: RunOptions): Promise<TaskOutput<K>> {
    const started = performance.now()
    this.counts.inline++
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
      this.finished(task, 'inline', outcome, (performance.now() - started) / 1000)
    }
  }

  private pool(): Piscina {
    if (this.piscina) return this.piscina
    const entry = this.filename ? { filename: this.filename } : computeWorkerEntry()
    this.piscina = new Piscina({
      filename: entry.filename,
      ...(entry.execArgv ? { execArgv: entry.execArgv } : {}),
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
    this.startThreads(this.piscina, this.threads)
    return this.piscina
  }

  private pump(): void {
    if (this.queue.size > 0) this.pool()
    while (!this.paused && !this.closed && this.onThread.size + this.starting < this.threads && this.queue.size > 0) {
      const entry = this.queue.next(performance.now())
      if (!entry) return
      if (!entry.background) this.waitingRequests--
      this.dispatch(entry)
    }
  }

  private dispatch(entry: Pending): void {
    this.onThread.add(entry)
    const started = (entry.startedAt = performance.now())
    this.metrics?.queueWait.observe({ task: entry.task }, (started - entry.queuedAt) / 1000)
    const controller = (entry.controller = new AbortController())
    let closeBridge: (() => void) | undefined
    const message: Record<string, unknown> = { task: entry.task, input: entry.input, ...(entry.cacheScope !== undefined ? { cacheScope: entry.cacheScope } : {}) }
    const transferList = []
    if (entry.summarizer) {
      const channel = new MessageChannel()
      closeBridge = serveSummarizer(channel.port1, entry.summarizer, (calls) => entry.providerTime.set(calls > 0, performance.now()))
      message.summarizer = { port: channel.port2, identity: bridgedSummarizer(entry.summarizer) }
      transferList.push(channel.port2)
    }
    // The books are kept before the caller hears back, so stats() is current when it does.
    const done = (outcome: 'ok' | 'error' | 'abandoned') => {
      const seconds = (performance.now() - started) / 1000
      closeBridge?.()
      this.onThread.delete(entry)
      this.queue.finished(entry.tenant, performance.now())
      this.counts.completed++
      // Provider time is not the task's work: it stays out of the per-byte estimate.
      if (outcome === 'ok') this.costs.learn(entry.task, seconds - entry.providerTime.read(performance.now()) / 1000, entry.bytes)
      this.metrics?.busySeconds.inc(seconds)
      this.finished(entry.task, 'pool', outcome === 'ok' ? 'ok' : 'error', seconds)
      this.pump()
    }
    this.pool()
      .run(message, { signal: controller.signal, transferList: transferList as never })
      .then(
        (result: TaskOutcome) => {
          if (result.tokenCache) this.tokenCache?.recordThread(result.tokenCache)
          done(result.ok ? 'ok' : 'error')
          this.settle(entry, result.ok ? undefined : fromWire(result.error), result.ok ? result.value : undefined)
        },
        (err: unknown) => {
          // A stopped task's thread was terminated: its replacement starts before it takes work.
          if (controller.signal.aborted && this.piscina && !this.closed) this.startThreads(this.piscina, 1)
          done(controller.signal.aborted ? 'abandoned' : 'error')
          // Aborted: the reason is the error its requester gets (deadline, client gone, shutdown).
          this.settle(entry, controller.signal.aborted && controller.signal.reason instanceof Error ? controller.signal.reason : err)
        },
      )
  }


  /** Resolves or rejects a task once, and lets go of its timer and listener. */
  private settle(entry: Pending, err: unknown, value?: unknown): void {
    if (entry.settled) return
    entry.settled = true
    clearTimeout(entry.timer)
    if (entry.onAbort) entry.signal?.removeEventListener('abort', entry.onAbort)
    if (err !== undefined) entry.reject(err)
    else entry.resolve(value)
  }

  private clientLeft(entry: Pending): void {
    if (this.queue.remove(entry)) {
      if (!entry.background) this.waitingRequests--
      this.cancelled(entry.task, 'queued')
      this.settle(entry, clientGone())
    } else if (this.onThread.has(entry)) {
      // Nobody waits for the result: the thread is stopped rather than left to finish.
      this.cancelled(entry.task, 'running')
      entry.controller?.abort(clientGone())
    }
  }

  private deadlinePassed(entry: Pending): void {
    const now = performance.now()
    const charged = this.chargedMs(entry, now)
    if (charged < this.deadlineMs && (this.onThread.has(entry) || this.queue.has(entry))) {
      // Part of the time went to a summarizer provider or a thread's start: the rest of the budget is still the task's.
      entry.timer = setTimeout(() => this.deadlinePassed(entry), this.deadlineMs - charged + 1)
      return
    }
    if (this.queue.remove(entry)) {
      if (!entry.background) this.waitingRequests--
      this.deadlineExceeded(entry.task, 'queued')
      this.settle(entry, this.deadlineError(entry, 'waited'))
      return
    }
    if (!this.onThread.has(entry)) return
    this.deadlineExceeded(entry.task, 'running')
    entry.controller?.abort(this.deadlineError(entry, 'ran'))
  }

  private deadlineError(entry: Pending, how: 'waited' | 'ran'): ApiError {
    const retry = Math.max(1, Math.ceil(this.expectedWaitSeconds()))
    const what =
      how === 'waited'
        ? `waited ${this.deadlineMs / 1000} s for a compute thread (COMPUTE_DEADLINE_MS) and was dropped`
        : `ran past its ${this.deadlineMs / 1000} s budget (COMPUTE_DEADLINE_MS) and was stopped`
    return new ApiError(503, 'deadline_exceeded', `the ${entry.task} task ${what}; a smaller input, or a retry once the queue is shorter, will fit`, undefined, undefined, { 'retry-after': String(retry) })
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

  private cancelled(task: TaskName, state: 'queued' | 'running'): void {
    this.counts.cancelled++
    this.metrics?.cancelled.inc({ task, state })
  }

  private deadlineExceeded(task: TaskName, state: 'queued' | 'running'): void {
    this.counts.deadlineExceeded++
    this.metrics?.deadline.inc({ task, state })
  }
}


function clientGone(): ApiError {
  return new ApiError(499, 'client_closed_request', 'the client closed the request before its compute task finished')
}

function shuttingDown(): ApiError {
  return new ApiError(503, 'shutting_down', 'this instance is shutting down; retry (another instance will answer)', undefined, undefined, { 'retry-after': '5' })
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
    // Before the server stops taking connections' answers: requests waiting on the pool get
    // their 503 now, and running work has half the grace, so SIGTERM ends within it.
    app.addHook('preClose', async () => pool.drain(app.config.SHUTDOWN_TIMEOUT_MS / 2))
    // Registered before the sessions plugin: closes after its worker stopped (onClose runs in reverse).
    app.addHook('onClose', async () => pool.close())
  },
  { name: 'compute-pool', dependencies: ['metrics', 'token-cache'] },
)
