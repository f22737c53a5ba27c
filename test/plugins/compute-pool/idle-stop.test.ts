/**
 * COMPUTE_IDLE_STOP_MS (issue 25): the pool's threads stop once nothing has used them for
 * that long, and the next pooled task starts them again and is answered; 0 (the default)
 * keeps them.
 */
import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildTestApp } from '../../helpers/build.ts'

const threadsOf = (compute: unknown) => (compute as { threadPool: { started: boolean; starting: number } }).threadPool
const body = { messages: [{ role: 'user', content: 'hello '.repeat(2000) }, { role: 'assistant', content: 'ok' }], targetTokens: 100000 }

async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms
  while (Date.now() < until) {
    if (check()) return true
    await new Promise((r) => setTimeout(r, 25))
  }
  return check()
}

async function compactOnce(t: Test, app: FastifyInstance): Promise<void> {
  const res = await app.inject({ method: 'POST', url: '/compact', payload: body })
  t.equal(res.statusCode, 200, 'a pooled compaction is answered')
}

t.test('threads stop after the idle time and start again for the next task', async (t) => {
  const { app } = await buildTestApp(t, { config: { COMPUTE_THREADS: 1, COMPUTE_WARM: true, COMPUTE_INLINE_MAX_BYTES: 0, COMPUTE_IDLE_STOP_MS: 300 } })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const threads = threadsOf(app.compute)
  t.equal(threads.started, true, 'warmed at listen')
  // Start-up (the engine loaded from source) takes seconds under load; the idle time counts from its end.
  t.ok(await waitFor(() => !threads.started, 120_000), 'stopped once idle')
  t.equal(app.compute.stats().idleStops, 1)
  await compactOnce(t, app)
  t.equal(threads.started, true, 'the task started them again')
  t.ok(await waitFor(() => !threads.started, 120_000), 'and they stop again once idle')
  t.equal(app.compute.stats().idleStops, 2)
  const metrics = await app.inject({ method: 'GET', url: '/metrics' })
  t.match(metrics.body, /^compactd_compute_idle_stops_total 2$/m, 'counted on /metrics')
})

t.test('a task within the idle time keeps the threads', async (t) => {
  const { app } = await buildTestApp(t, { config: { COMPUTE_THREADS: 1, COMPUTE_WARM: false, COMPUTE_INLINE_MAX_BYTES: 0, COMPUTE_IDLE_STOP_MS: 1_500 } })
  const threads = threadsOf(app.compute)
  await compactOnce(t, app)
  for (let i = 0; i < 3; i++) {
    await new Promise((r) => setTimeout(r, 500))
    await compactOnce(t, app)
    t.equal(threads.started, true, `still started after task ${i + 2}`)
  }
  t.equal(app.compute.stats().idleStops, 0, 'never idle for 1.5 s')
})

t.test('0 (the default) never stops them', async (t) => {
  const { app } = await buildTestApp(t, { config: { COMPUTE_THREADS: 1, COMPUTE_WARM: false, COMPUTE_INLINE_MAX_BYTES: 0 } })
  t.equal(app.config.COMPUTE_IDLE_STOP_MS, 0)
  await compactOnce(t, app)
  await new Promise((r) => setTimeout(r, 1_000))
  t.equal(threadsOf(app.compute).started, true, 'still started a second after its last task')
  t.equal(app.compute.stats().idleStops, 0)
})
