/**
 * The compute pool's arithmetic of time (issue 18), apart from its scheduling:
 * - ActivityClock: how long something has been going on (threads starting, a task's
 *   summarizer calls in flight): time a task's deadline does not charge it for;
 * - TaskCostModel: each task's measured seconds per input byte, which turns a queue into
 *   its expected wait (Retry-After, admission against the deadline).
 */
import type { TaskName } from '../use-cases/compute.ts'

/** Milliseconds during which something was going on, counting the current stretch up to `now`. */
export class ActivityClock {
  private ms = 0
  private since: number | undefined

  /** Whether it is going on from `now` on. */
  set(active: boolean, now: number): void {
    if (active && this.since === undefined) this.since = now
    else if (!active && this.since !== undefined) {
      this.ms += now - this.since
      this.since = undefined
    }
  }

  read(now: number): number {
    return this.ms + (this.since === undefined ? 0 : now - this.since)
  }
}

/** Seconds per byte a task is assumed to take before any has been measured: ~1 s per MB. */
const INITIAL_SECONDS_PER_BYTE = 1e-6

/** Each task's seconds per input byte, a running mean of what threads measured. */
export class TaskCostModel {
  private readonly secondsPerByte = new Map<TaskName, number>()

  /** Expected seconds on a thread for `bytes` of input (at least 5 ms). */
  estimate(task: TaskName, bytes: number): number {
    return Math.max(0.005, bytes * (this.secondsPerByte.get(task) ?? INITIAL_SECONDS_PER_BYTE))
  }

  /** A task took `seconds` of its own work (provider time left out) for `bytes` of input. */
  learn(task: TaskName, seconds: number, bytes: number): void {
    const perByte = Math.max(0, seconds) / Math.max(bytes, 1024)
    const mean = this.secondsPerByte.get(task)
    this.secondsPerByte.set(task, mean === undefined ? perByte : 0.5 * mean + 0.5 * perByte)
  }
}
