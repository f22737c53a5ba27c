/**
 * A pooled task from when it is queued to when its requester hears back: what the fair
 * queue, a thread and the deadline need of it, and its answer, given once. Split from
 * compute-pool.ts, which moves it from the queue to a thread.
 */
import type { RunOptions, TaskName } from '../use-cases/compute.ts'
import { ActivityClock } from './compute-budget.ts'
import type { QueuedTask } from './compute-queue.ts'
import type { ThreadTask } from './compute-threads.ts'

export interface PendingTaskInit {
  task: TaskName
  input: unknown
  tenant: string
  background: boolean
  /** Expected seconds on a thread, from the task's measured seconds per byte. */
  estimate: number
  bytes: number
  cacheScope?: string | undefined
  summarizer?: RunOptions['summarizer']
  /** The pool's start-up clock when this task was queued. */
  startupAtQueue: number
}

export interface Answer {
  resolve(value: unknown): void
  reject(err: unknown): void
}

export class PendingTask implements QueuedTask, ThreadTask {
  readonly task: TaskName
  readonly input: unknown
  readonly tenant: string
  readonly background: boolean
  readonly estimate: number
  readonly bytes: number
  readonly cacheScope: string | undefined
  readonly summarizer: RunOptions['summarizer']
  readonly startupAtQueue: number
  readonly queuedAt = performance.now()
  /** Time its summarizer calls were in flight: not charged to the deadline. */
  readonly providerTime = new ActivityClock()
  /** The deadline's timer (compute-pool.ts renews it while part of the time is not charged). */
  timer?: NodeJS.Timeout
  /** Set while on a thread: aborting it makes piscina terminate the thread. */
  controller?: AbortController
  startedAt?: number
  private settled = false
  private signal?: AbortSignal
  private onAbort?: () => void

  constructor(
    init: PendingTaskInit,
    private readonly answer: Answer,
  ) {
    this.task = init.task
    this.input = init.input
    this.tenant = init.tenant
    this.background = init.background
    this.estimate = init.estimate
    this.bytes = init.bytes
    this.cacheScope = init.cacheScope
    this.summarizer = init.summarizer
    this.startupAtQueue = init.startupAtQueue
  }

  /** Calls `onAbort` when the task's client goes away (its request's AbortSignal), until settled. */
  watch(signal: AbortSignal, onAbort: () => void): void {
    this.signal = signal
    this.onAbort = onAbort
    signal.addEventListener('abort', onAbort, { once: true })
  }

  /** Resolves or rejects the task once, and lets go of its timer and listener. */
  settle(err: unknown, value?: unknown): void {
    if (this.settled) return
    this.settled = true
    clearTimeout(this.timer)
    if (this.onAbort) this.signal?.removeEventListener('abort', this.onAbort)
    if (err !== undefined) this.answer.reject(err)
    else this.answer.resolve(value)
  }
}
