/**
 * COMPUTE_IDLE_STOP_MS (issue 25): a timer that stops the compute pool's threads once the
 * pool has been idle for that long. The pool arms it whenever it may have become idle
 * (after a task, when its threads finish starting) and disarms it when a task arrives;
 * the threads are stopped only if the pool is still idle when it fires.
 */
export class IdleStop {
  private timer: NodeJS.Timeout | undefined
  /** Times the threads were stopped for being idle. */
  stops = 0

  constructor(
    private readonly ms: number,
    private readonly isIdle: () => boolean,
    private readonly stop: () => void,
  ) {}

  arm(): void {
    if (this.ms <= 0 || this.timer || !this.isIdle()) return
    this.timer = setTimeout(() => {
      this.timer = undefined
      if (!this.isIdle()) return
      this.stops++
      this.stop()
    }, this.ms)
    this.timer.unref()
  }

  disarm(): void {
    clearTimeout(this.timer)
    this.timer = undefined
  }
}
