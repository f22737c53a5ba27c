/**
 * COMPUTE_WARM (issue 25): by default the pool's threads start when the server listens;
 * with false, not until the first pooled task, so an idle service holds no thread.
 */
import t from 'tap'
import { buildTestApp } from '../../helpers/build.ts'

const started = (compute: unknown) => (compute as { threadPool: { started: boolean } }).threadPool.started

for (const warm of [true, false]) {
  t.test(`COMPUTE_WARM=${warm}`, async (t) => {
    const { app } = await buildTestApp(t, { config: { COMPUTE_THREADS: 1, COMPUTE_WARM: warm, COMPUTE_INLINE_MAX_BYTES: 0 } })
    await app.listen({ host: '127.0.0.1', port: 0 })
    t.equal(started(app.compute), warm, warm ? 'threads started at listen' : 'no thread yet')
    const res = await app.inject({ method: 'POST', url: '/compact', payload: { messages: [{ role: 'user', content: 'hello '.repeat(2000) }, { role: 'assistant', content: 'ok' }], targetTokens: 100000 } })
    t.equal(res.statusCode, 200)
    t.equal(started(app.compute), true, 'a pooled task starts them')
  })
}
