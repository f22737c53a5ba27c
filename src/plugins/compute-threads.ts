/**
 * The compute pool's threads (piscina): started with the first pooled task or when the
 * server listens (warm()), each warmed with a small compaction before it takes work.
 *
 * The llm strategy runs in a thread too: its provider client stays on the event loop and
 * the thread gets a stand-in that posts each completion over a MessagePort
 * (src/plugins/summarizer-bridge.ts).
 *
 * Split from compute-pool.ts, which keeps the queue, the deadlines and the books.
 */
import { pathToFileURL } from 'node:url'
import { MessageChannel } from 'node:worker_threads'
import { Piscina } from 'piscina'
import type { Config } from '../config.ts'
import { WARM_UP, type RunOptions, type TaskName } from '../use-cases/compute.ts'
import type { TaskOutcome } from './compute-wire.ts'
import { bridgedSummarizer, serveSummarizer } from './summarizer-bridge.ts'
import { ActivityClock } from './compute-budget.ts'
import { computeWorkerEntry, computeWorkerLoader } from './compute-worker-file.ts'

/** The environment less NODE_OPTIONS (the threads' configuration arrives as workerData, not from it). */
function withoutNodeOptions(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(env)) if (k !== 'NODE_OPTIONS' && v !== undefined) out[k] = v
  return out
}

/** What a thread is handed of a queued task. */
export interface ThreadTask {
  task: TaskName
  input: unknown
  cacheScope?: string
  summarizer?: RunOptions['summarizer']
  /** Time its summarizer calls were in flight: not charged to the deadline. */
  providerTime: ActivityClock
}

export interface ComputeThreadsOptions {
  config: Config
  threads: number
  /** The worker entry (tests); default computeWorkerEntry(). */
  filename?: string
  /** A thread finished starting: it may take a task now. */
  onStarted(): void
}

export class ComputeThreads {
  private piscina: Piscina | undefined
  /** Threads being started (a first task loads the engine, about 2 s built, far more from source): no task is handed to them meanwhile. */
  private startingThreads = 0
  /** Time during which some thread was starting: a deadline does not count it. */
  readonly startup = new ActivityClock()

  constructor(private readonly opts: ComputeThreadsOptions) {}

  /** Whether the threads were started (and not destroyed since). */
  get started(): boolean {
    return this.piscina !== undefined
  }

  get starting(): number {
    return this.startingThreads
  }

  /** Starts the threads, once: piscina, with every thread warmed. */
  start(): Piscina {
    if (this.piscina) return this.piscina
    const entry = this.opts.filename ? { filename: this.opts.filename } : computeWorkerEntry()
    const javascript = /\.m?js$/.test(entry.filename)
    this.piscina = new Piscina({
      // A JavaScript entry (the build's, the bundle of the sources) is imported by a CommonJS
      // loader, never required (why: compute-worker-loader.cjs). A .ts entry (a test's, or the
      // sources without esbuild) is given as is: only the parent's loader, through piscina's
      // require(), knows .ts.
      filename: javascript ? computeWorkerLoader() : entry.filename,
      ...(entry.execArgv ? { execArgv: entry.execArgv } : {}),
      minThreads: this.opts.threads,
      maxThreads: this.opts.threads,
      idleTimeout: Infinity,
      concurrentTasksPerWorker: 1,
      ...(this.opts.config.COMPUTE_THREAD_YOUNG_MB > 0 ? { resourceLimits: { maxYoungGenerationSizeMb: this.opts.config.COMPUTE_THREAD_YOUNG_MB } } : {}),
      // Above the process's nice value (Linux: per thread; piscina applies it with
      // @napi-rs/nice, and skips it where that is missing): the event loop wins the CPU when
      // both want it, and answers /healthz and summary reads between the threads' time
      // slices rather than taking turns with compactions (weights at +5: 1024 : 335).
      niceIncrement: this.opts.config.COMPUTE_THREAD_NICE,
      // A JavaScript entry needs no loader, so the threads get neither the parent's execArgv
      // (entry.execArgv) nor NODE_OPTIONS: an --import there (an APM agent, tap's coverage)
      // would route every module of the thread's import() through its hooks, which made two
      // threads start 2.7× slower under tap's (docs/benchmarks.md).
      ...(javascript ? { env: withoutNodeOptions(process.env) } : {}),
      workerData: { config: this.opts.config, ...(javascript ? { entryUrl: pathToFileURL(entry.filename).href } : {}) },
    })
    this.startThreads(this.piscina, this.opts.threads)
    return this.piscina
  }

  /** A stopped task's thread was terminated: its replacement starts before it takes work. */
  replaceStopped(): void {
    if (this.piscina) this.startThreads(this.piscina, 1)
  }

  /**
   * Runs a task on a thread; aborting `signal` makes piscina terminate the thread. The
   * caller closes the summarizer's bridge, if any, when the task is done.
   */
  run(entry: ThreadTask, signal: AbortSignal): { result: Promise<TaskOutcome>; closeBridge: (() => void) | undefined } {
    let closeBridge: (() => void) | undefined
    const message: Record<string, unknown> = { task: entry.task, input: entry.input, ...(entry.cacheScope !== undefined ? { cacheScope: entry.cacheScope } : {}) }
    const transferList = []
    if (entry.summarizer) {
      const channel = new MessageChannel()
      closeBridge = serveSummarizer(channel.port1, entry.summarizer, (calls) => entry.providerTime.set(calls > 0, performance.now()))
      message.summarizer = { port: channel.port2, identity: bridgedSummarizer(entry.summarizer) }
      transferList.push(channel.port2)
    }
    const result: Promise<TaskOutcome> = this.start().run(message, { signal, transferList: transferList as never })
    return { result, closeBridge }
  }

  /** Stops the threads (a later task would start them again). */
  async destroy(): Promise<void> {
    const pool = this.piscina
    this.piscina = undefined
    await pool?.destroy()
  }

  /**
   * Has `n` threads run the warm-up compaction before any task is handed to them: a new
   * thread's first task loads the tokenizer's tables and compiles the engine, which a
   * client's request would otherwise wait for (and its deadline pay for).
   */
  private startThreads(pool: Piscina, n: number): void {
    for (let i = 0; i < n; i++) {
      this.startup.set(++this.startingThreads > 0, performance.now())
      pool
        .run({ task: 'compact', input: WARM_UP })
        .catch(() => {})
        .finally(() => {
          this.startup.set(--this.startingThreads > 0, performance.now())
          this.opts.onStarted()
        })
    }
  }
}
