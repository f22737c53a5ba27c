/**
 * The compute pool's queue (issue 18): one FIFO per tenant, served fairly, so one key
 * cannot take the whole pool.
 *
 * - A free thread goes to the tenant with the fewest tasks running, oldest waiting task
 *   first among equals: a newcomer behind a flood gets the next thread that frees, not the
 *   flood's back.
 * - A tenant holds at most `tenantMaxThreads` threads while another tenant has used the
 *   pool within `fairWindowMs`: then a thread is always left for someone else. Alone, a
 *   tenant may use every thread (work-conserving: a single-tenant install loses nothing).
 * - Background work (the rolling-summary worker) is its own tenant, always held to
 *   `tenantMaxThreads`, and does not count as another tenant: the service's own upkeep
 *   never takes every thread from requests, nor caps a single client.
 * - What the queue's work will take (the Retry-After of a refusal) is the sum of its
 *   tasks' estimates over the threads (see ComputePool.expectedWaitSeconds).
 */

export const BACKGROUND_TENANT = '\u0000background'

export interface QueuedTask {
  tenant: string
  queuedAt: number
}

export interface FairQueueOptions {
  /** Threads a tenant may hold while another has used the pool recently. */
  tenantMaxThreads: number
  /** How recently another tenant must have used the pool for the cap to apply, in ms. */
  fairWindowMs: number
}

export class FairQueue<T extends QueuedTask> {
  private readonly queues = new Map<string, T[]>()
  private readonly running = new Map<string, number>()
  private readonly lastActive = new Map<string, number>()
  private count = 0

  constructor(private readonly opts: FairQueueOptions) {}

  get size(): number {
    return this.count
  }

  /** Tasks of this tenant waiting now. */
  waiting(tenant: string): number {
    return this.queues.get(tenant)?.length ?? 0
  }

  /** Tasks of this tenant on a thread now. */
  runningOf(tenant: string): number {
    return this.running.get(tenant) ?? 0
  }

  push(task: T): void {
    let queue = this.queues.get(task.tenant)
    if (!queue) this.queues.set(task.tenant, (queue = []))
    queue.push(task)
    this.count++
    this.lastActive.set(task.tenant, task.queuedAt)
  }

  has(task: T): boolean {
    return this.queues.get(task.tenant)?.includes(task) ?? false
  }

  /** Takes a waiting task out (its client left, or its deadline passed); false if it was not waiting. */
  remove(task: T): boolean {
    const queue = this.queues.get(task.tenant)
    const i = queue ? queue.indexOf(task) : -1
    if (i < 0) return false
    queue!.splice(i, 1)
    if (queue!.length === 0) this.queues.delete(task.tenant)
    this.count--
    return true
  }

  /** Every waiting task, in no particular order. */
  *all(): IterableIterator<T> {
    for (const queue of this.queues.values()) yield* queue
  }

  /** Empties the queue, returning what waited. */
  drain(): T[] {
    const out = [...this.all()]
    this.queues.clear()
    this.count = 0
    return out
  }

  /** The task the next free thread should run, taken out of the queue and counted as running; undefined: none may run now. */
  next(now: number): T | undefined {
    let best: { tenant: string; queue: T[]; running: number } | undefined
    for (const [tenant, queue] of this.queues) {
      const running = this.runningOf(tenant)
      if (running >= this.opts.tenantMaxThreads && this.capApplies(tenant, now)) continue
      if (!best || running < best.running || (running === best.running && queue[0]!.queuedAt < best.queue[0]!.queuedAt)) best = { tenant, queue, running }
    }
    if (!best) return undefined
    const task = best.queue.shift()!
    if (best.queue.length === 0) this.queues.delete(best.tenant)
    this.count--
    this.running.set(best.tenant, best.running + 1)
    this.lastActive.set(best.tenant, now)
    return task
  }

  /** A task that next() handed out has finished. */
  finished(tenant: string, now: number): void {
    const running = this.runningOf(tenant) - 1
    if (running > 0) this.running.set(tenant, running)
    else this.running.delete(tenant)
    this.lastActive.set(tenant, now)
    // Forget tenants idle for long (the map stays as small as the set of active tenants).
    if (this.lastActive.size > 1024) for (const [t, at] of this.lastActive) if (now - at > this.opts.fairWindowMs && !this.running.has(t) && !this.queues.has(t)) this.lastActive.delete(t)
  }

  /** Background work is always capped; a tenant, while another (not background) has been active within the window. */
  private capApplies(tenant: string, now: number): boolean {
    if (tenant === BACKGROUND_TENANT) return true
    for (const [other, at] of this.lastActive) {
      if (other === tenant || other === BACKGROUND_TENANT) continue
      if (this.running.has(other) || this.queues.has(other) || now - at <= this.opts.fairWindowMs) return true
    }
    return false
  }
}
