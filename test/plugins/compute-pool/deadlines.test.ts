/**
 * Issue 18, bounded work in the compute pool (src/plugins/compute-pool.ts,
 * compute-queue.ts), with a thread entry that keeps its thread busy for as long as it is
 * told (test/helpers/slow-compute-worker.ts), so every case is a state, not a race:
 * - a running task past COMPUTE_DEADLINE_MS is stopped (its thread replaced) with a 503
 *   `deadline_exceeded`, and the pool goes on working;
 * - a running task whose client left is stopped too;
 * - a newcomer tenant behind another tenant's flood gets the next free thread, and a
 *   tenant never holds every thread while another is active;
 * - Retry-After on `overloaded` is the queue's expected work, not a fixed guess;
 * - shutdown refuses the queued tasks at once and abandons the running ones after the grace.
 */
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { testConfig, type Config } from '../../../src/config.ts'
import { ApiError } from '../../../src/errors.ts'
import { ComputePool } from '../../../src/plugins/compute-pool.ts'
import { BACKGROUND_TENANT, FairQueue } from '../../../src/plugins/compute-queue.ts'

const SLOW_WORKER = fileURLToPath(new URL('../../helpers/slow-compute-worker.ts', import.meta.url))

function slowPool(t: { teardown(fn: () => unknown): void }, config: Partial<Config> = {}, threads = 2): ComputePool {
  const pool = new ComputePool({ config: testConfig({ SHUTDOWN_TIMEOUT_MS: 2_000, ...config }), threads, inlineMaxBytes: 0, filename: SLOW_WORKER })
  t.teardown(() => pool.close())
  return pool
}

/** Runs a busy task of `ms` on the pool (the slow worker ignores the task name). */
function busy(pool: ComputePool, ms: number, opts: { tenant?: string; signal?: AbortSignal; bytes?: number; label?: string } = {}) {
  return pool.run('estimate', { ms, label: opts.label } as never, { bytes: opts.bytes ?? 10_000, tenant: opts.tenant ?? 'a', ...(opts.signal ? { signal: opts.signal } : {}) }) as Promise<unknown> as Promise<{ label?: string; thread: number; finishedAt: number }>
}

const errorOf = (p: Promise<unknown>) => p.then(() => undefined, (err: unknown) => err as ApiError)

t.test('a running task past its deadline is stopped, with a 503 and Retry-After, and the pool goes on', async (t) => {
  // Far below the task's 60 s (a thread's start is not charged).
  const pool = slowPool(t, { COMPUTE_DEADLINE_MS: 2_500 }, 1)
  await busy(pool, 1) // the thread is up
  const started = Date.now()
  const err = await errorOf(busy(pool, 60_000))
  const took = Date.now() - started
  t.ok(err instanceof ApiError, 'an API error')
  t.equal(err?.statusCode, 503)
  t.equal(err?.code, 'deadline_exceeded')
  t.match(err?.message, /COMPUTE_DEADLINE_MS/)
  t.ok(Number(err?.headers?.['retry-after']) >= 1, 'Retry-After is set')
  t.ok(took < 10_000, `stopped after ${took} ms, not after the task's 60 s`)
  t.equal(pool.stats().deadlineExceeded, 1)
  const next = await busy(pool, 5, { label: 'after' })
  t.equal(next.label, 'after', 'a new thread answers the next task')
})

t.test('a queued task past its deadline leaves the queue', async (t) => {
  const pool = slowPool(t, { COMPUTE_DEADLINE_MS: 2_500 }, 1)
  await busy(pool, 1)
  pool.pause()
  const err = await errorOf(busy(pool, 5))
  t.equal(err?.code, 'deadline_exceeded')
  t.match(err?.message, /waited/)
  t.equal(pool.stats().queued, 0)
  pool.resume()
})

t.test('a running task whose client went away is stopped, not left to finish', async (t) => {
  const pool = slowPool(t, {}, 1)
  await busy(pool, 1)
  const controller = new AbortController()
  const running = errorOf(busy(pool, 60_000, { signal: controller.signal }))
  while (pool.stats().running === 0) await new Promise((r) => setTimeout(r, 5))
  const started = Date.now()
  controller.abort()
  const err = await running
  t.equal(err?.statusCode, 499)
  t.equal(pool.stats().cancelled, 1)
  const next = await busy(pool, 5, { label: 'next' })
  t.equal(next.label, 'next')
  t.ok(Date.now() - started < 10_000, 'the thread was replaced, not waited for')
})

t.test('a newcomer behind another tenant\'s flood gets the next free thread', async (t) => {
  const pool = slowPool(t, { COMPUTE_QUEUE_MAX: 32, COMPUTE_TENANT_QUEUE_MAX: 16 })
  await Promise.all([busy(pool, 1), busy(pool, 1)])
  const flood = Array.from({ length: 8 }, (_, i) => busy(pool, 300, { tenant: 'flood', label: `flood-${i}` }))
  await new Promise((r) => setTimeout(r, 20))
  const newcomer = busy(pool, 10, { tenant: 'newcomer', label: 'newcomer' })
  const results = await Promise.all([...flood, newcomer])
  const newcomerDone = results.at(-1)!.finishedAt
  const floodAfter = results.slice(0, -1).filter((r) => r.finishedAt > newcomerDone).length
  t.ok(floodAfter >= 5, `the newcomer finished before ${floodAfter} of the flood's 8 tasks`)
})

t.test('a tenant holds at most all threads but one while another tenant is active; alone, all of them', async (t) => {
  const queue = new FairQueue<{ tenant: string; queuedAt: number }>({ tenantMaxThreads: 1, fairWindowMs: 10_000 })
  for (let i = 0; i < 3; i++) queue.push({ tenant: 'a', queuedAt: i })
  t.equal(queue.next(10)?.tenant, 'a')
  t.equal(queue.next(10)?.tenant, 'a', 'alone: a second thread')
  queue.push({ tenant: 'b', queuedAt: 11 })
  t.equal(queue.next(12)?.tenant, 'b', 'b first: fewest running')
  queue.finished('a', 13)
  queue.finished('a', 13)
  t.equal(queue.next(14)?.tenant, 'a')
  t.equal(queue.next(14), undefined, 'a is held to one thread while b is active')
  const background = new FairQueue<{ tenant: string; queuedAt: number }>({ tenantMaxThreads: 1, fairWindowMs: 10_000 })
  background.push({ tenant: BACKGROUND_TENANT, queuedAt: 0 })
  background.push({ tenant: BACKGROUND_TENANT, queuedAt: 1 })
  t.equal(background.next(2)?.tenant, BACKGROUND_TENANT)
  t.equal(background.next(2), undefined, 'background work never holds every thread')
})

t.test('Retry-After on overloaded is the queue\'s expected work', async (t) => {
  const pool = slowPool(t, { COMPUTE_QUEUE_MAX: 4, COMPUTE_TENANT_QUEUE_MAX: 4, COMPUTE_DEADLINE_MS: 60_000 }, 1)
  await busy(pool, 1) // the thread is up
  // Learn the task's seconds per byte: 500 ms for 10,000 bytes (a running mean).
  for (let i = 0; i < 3; i++) await busy(pool, 500)
  // One runs at once, four wait (COMPUTE_QUEUE_MAX), the sixth is refused.
  const queued = Array.from({ length: 6 }, () => busy(pool, 500).catch((e: unknown) => e))
  const refused = (await Promise.race([queued[5]!, new Promise((r) => setTimeout(() => r('still waiting'), 2000))])) as ApiError
  t.equal(refused.code, 'overloaded', 'the fifth request is refused')
  const retryAfter = Number(refused.headers?.['retry-after'])
  // Ahead of it: one running (≤ 0.5 s left) and four queued (0.5 s each) on one thread: ~2–2.5 s.
  t.ok(retryAfter >= 2 && retryAfter <= 4, `Retry-After ${retryAfter} s for ~2.5 s of queued work`)
  await Promise.all(queued.slice(0, 5))
})

t.test('one tenant cannot fill the whole queue', async (t) => {
  const pool = slowPool(t, { COMPUTE_QUEUE_MAX: 8, COMPUTE_TENANT_QUEUE_MAX: 2 }, 1)
  await busy(pool, 1)
  pool.pause()
  const mine = [busy(pool, 1), busy(pool, 1)]
  const third = await errorOf(busy(pool, 1))
  t.equal(third?.code, 'overloaded')
  t.match(third?.message, /COMPUTE_TENANT_QUEUE_MAX/)
  const other = busy(pool, 1, { tenant: 'b' })
  pool.resume()
  await Promise.all([...mine, other])
  t.pass('another tenant was still admitted')
})

t.test('shutdown refuses the queued tasks at once and abandons the running ones after the grace', async (t) => {
  const pool = slowPool(t, {}, 1)
  await busy(pool, 1)
  const running = errorOf(busy(pool, 60_000))
  while (pool.stats().running === 0) await new Promise((r) => setTimeout(r, 5))
  const queued = errorOf(busy(pool, 5))
  const started = Date.now()
  await pool.drain(300)
  t.equal((await queued)?.code, 'shutting_down')
  t.equal((await running)?.code, 'shutting_down')
  t.ok(Date.now() - started < 5_000, `drained in ${Date.now() - started} ms`)
  t.equal((await errorOf(busy(pool, 1)))?.code, 'shutting_down', 'nothing new is taken')
})
