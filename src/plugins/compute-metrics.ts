/**
 * The compute pool's Prometheus metrics (docs/operations.md) and the arithmetic of its
 * worst-case heap, and the pool's books (its counts and those metrics, kept in step).
 * Split from compute-pool.ts, which keeps the scheduling.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client'
import type { Config } from '../config.ts'
import type { TaskName } from '../use-cases/compute.ts'

/**
 * Heap a queued request holds per byte of its body: the parsed JSON (V8 strings, objects
 * and arrays of a message list) measured at 1.3–2.1× the body's bytes, rounded up, plus
 * the request's raw bytes while it is parsed. docs/operations.md has the arithmetic.
 */
export const HEAP_BYTES_PER_BODY_BYTE = 3

/** What the gauges read from the pool when scraped. */
export interface PoolGauges {
  readonly threads: number
  readonly queueMax: number
  stats(): { queued: number; running: number }
}

export type PoolMetrics = ReturnType<typeof createPoolMetrics>

export function createPoolMetrics(registry: Registry, pool: PoolGauges) {
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
    idleStops: new Counter({ name: 'compactd_compute_idle_stops_total', help: 'Times the compute threads were stopped for being idle (COMPUTE_IDLE_STOP_MS); the next pooled task started them again.', registers }),
    busySeconds: new Counter({ name: 'compactd_compute_busy_seconds_total', help: 'Seconds compute threads spent on tasks (utilization: its rate / compactd_compute_threads).', registers }),
    tasks: new Counter({ name: 'compactd_compute_tasks_total', help: 'Compute tasks finished, by task, where (pool or inline) and outcome (ok or error).', labelNames: ['task', 'where', 'outcome'], registers }),
    overloaded: new Counter({ name: 'compactd_compute_overloaded_total', help: 'Requests refused with 503 overloaded: the compute queue was full.', labelNames: ['task'], registers }),
    cancelled: new Counter({ name: 'compactd_compute_cancelled_total', help: 'Compute tasks dropped because their client went away: queued ones never ran, running ones had their thread replaced.', labelNames: ['task', 'state'], registers }),
    deadline: new Counter({ name: 'compactd_compute_deadline_exceeded_total', help: 'Compute tasks past COMPUTE_DEADLINE_MS: queued ones left the queue, running ones had their thread replaced.', labelNames: ['task', 'state'], registers }),
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

/** What the pool has counted since it started (part of its stats()). */
export interface PoolCounts {
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

/** The pool's counts and the metrics counted with them, kept in step. */
export class PoolBooks {
  readonly counts: PoolCounts = { completed: 0, inline: 0, cancelled: 0, overloaded: 0, deadlineExceeded: 0 }
  private readonly children = new Map<string, { tasks: { inc(): void }; duration: { observe(v: number): void } }>()

  /** `metrics` undefined: counted for stats() only, not exported. */
  constructor(readonly metrics: PoolMetrics | undefined) {}

  finished(task: TaskName, where: 'pool' | 'inline', outcome: 'ok' | 'error', seconds: number): void {
    if (!this.metrics) return
    // Label children made once: every small /estimate passes here (inline), and looking
    // labels up by object costs a few µs a call.
    const key = `${task} ${where} ${outcome}`
    let child = this.children.get(key)
    if (!child) this.children.set(key, (child = { tasks: this.metrics.tasks.labels(task, where, outcome), duration: this.metrics.duration.labels(task, where) }))
    child.tasks.inc()
    child.duration.observe(seconds)
  }

  overloaded(task: TaskName): void {
    this.counts.overloaded++
    this.metrics?.overloaded.inc({ task })
  }

  cancelled(task: TaskName, state: 'queued' | 'running'): void {
    this.counts.cancelled++
    this.metrics?.cancelled.inc({ task, state })
  }

  deadlineExceeded(task: TaskName, state: 'queued' | 'running'): void {
    this.counts.deadlineExceeded++
    this.metrics?.deadline.inc({ task, state })
  }
}

/**
 * Worst-case heap of the bodies the pool lets wait: every queued request and every
 * running one holding a body of BODY_LIMIT_BYTES (see HEAP_BYTES_PER_BODY_BYTE).
 */
export function worstCaseQueuedHeapBytes(config: Pick<Config, 'BODY_LIMIT_BYTES' | 'COMPUTE_QUEUE_MAX' | 'COMPUTE_THREADS'>): number {
  return (config.COMPUTE_QUEUE_MAX + config.COMPUTE_THREADS) * config.BODY_LIMIT_BYTES * HEAP_BYTES_PER_BODY_BYTE
}

