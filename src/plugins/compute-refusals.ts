/**
 * What a compute task's requester gets instead of its result: the 503s of a full queue,
 * a passed deadline and a shutdown, and the 499 of a client that went away. Each 503
 * carries a Retry-After. Split from compute-pool.ts, which decides when.
 */
import { ApiError } from '../errors.ts'
import type { TaskName } from '../use-cases/compute.ts'

/** The queue's state when a request asks to wait for a thread. */
export interface Admission {
  waitingRequests: number
  queueMax: number
  threads: number
  /** Requests of the asking tenant waiting now, and their cap. */
  tenantWaiting: number
  tenantQueueMax: number
  /** Expected seconds of the work ahead, and the new task's own estimate. */
  waitSeconds: number
  estimate: number
  deadlineMs: number
}

/** A 503 overloaded when the request may not wait: the queue or the tenant's share is full, or the wait leaves no time within the deadline. */
export function overloaded(a: Admission): ApiError | undefined {
  const wait = a.waitSeconds
  const retryAfter = { 'retry-after': String(Math.max(1, Math.ceil(wait))) }
  if (a.waitingRequests >= a.queueMax) {
    return new ApiError(503, 'overloaded', `the compute pool is full: ${a.waitingRequests} requests wait for ${a.threads} busy threads (COMPUTE_QUEUE_MAX ${a.queueMax}); the work ahead takes about ${wait.toFixed(1)} s`, undefined, undefined, retryAfter)
  }
  if (a.tenantWaiting >= a.tenantQueueMax) {
    return new ApiError(503, 'overloaded', `this API key already has ${a.tenantWaiting} requests waiting for a compute thread (COMPUTE_TENANT_QUEUE_MAX ${a.tenantQueueMax}); the work ahead takes about ${wait.toFixed(1)} s`, undefined, undefined, retryAfter)
  }
  if ((wait + a.estimate) * 1000 > a.deadlineMs) {
    return new ApiError(503, 'overloaded', `the compute queue's work (about ${wait.toFixed(1)} s) would not leave this task time within its ${a.deadlineMs / 1000} s deadline (COMPUTE_DEADLINE_MS)`, undefined, undefined, retryAfter)
  }
  return undefined
}

/** A task past its deadline: dropped from the queue ('waited') or stopped on its thread ('ran'). */
export function deadlineExceeded(task: TaskName, how: 'waited' | 'ran', deadlineMs: number, waitSeconds: number): ApiError {
  const retry = Math.max(1, Math.ceil(waitSeconds))
  const what =
    how === 'waited'
      ? `waited ${deadlineMs / 1000} s for a compute thread (COMPUTE_DEADLINE_MS) and was dropped`
      : `ran past its ${deadlineMs / 1000} s budget (COMPUTE_DEADLINE_MS) and was stopped`
  return new ApiError(503, 'deadline_exceeded', `the ${task} task ${what}; a smaller input, or a retry once the queue is shorter, will fit`, undefined, undefined, { 'retry-after': String(retry) })
}

export function clientGone(): ApiError {
  return new ApiError(499, 'client_closed_request', 'the client closed the request before its compute task finished')
}

export function shuttingDown(): ApiError {
  return new ApiError(503, 'shutting_down', 'this instance is shutting down; retry (another instance will answer)', undefined, undefined, { 'retry-after': '5' })
}
