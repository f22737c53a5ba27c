/**
 * A session's evicted messages are archived as they leave the window (issue 21): found by
 * GET /sessions/{id}/search with their seq as position, and read back; the append says
 * what it archived.
 */
import t from 'tap'
import { buildTestApp } from '../../helpers/build.ts'

t.test('evicted messages are archived, searchable and read back', async (t) => {
  const { app } = await buildTestApp(t)
  t.equal((await app.inject({ method: 'PUT', url: '/sessions/win', payload: { windowMessages: 4, windowTokens: 100_000, batchSize: 50 } })).statusCode, 201)
  const exchange = (k: number) => [
    { role: 'user', content: `Step ${k}: look up the retry budget of worker ${k}.` },
    { role: 'assistant', content: `Worker ${k} has a retry budget of ${k * 7 + 3} attempts, set in config/worker_${k}.yaml.` },
  ]
  let archived = 0
  for (let k = 0; k < 6; k++) {
    const res = (await app.inject({ method: 'POST', url: '/sessions/win/messages', payload: { messages: exchange(k) } })).json()
    if (res.evicted > 0) {
      t.equal(res.archive.status, 'archived', `append ${k}: its evictions are archived`)
      archived += res.archive.archived
    } else t.notOk(res.archive, `append ${k}: nothing evicted, no report`)
  }
  t.ok(archived >= 6, `${archived} archived`)
  const found = (await app.inject({ method: 'GET', url: `/sessions/win/search?q=${encodeURIComponent('retry budget in worker_1.yaml')}` })).json()
  const hit = found.hits.find((h: { snippet: string }) => h.snippet.includes('worker_1.yaml'))
  t.ok(hit, 'the evicted answer is found')
  t.equal(hit.source, 'session')
  t.equal(hit.checkpointNum, null)
  t.equal(hit.position, 4, 'position is the seq')
  const read = (await app.inject({ method: 'GET', url: `/sessions/win/archive/${hit.ref}` })).json()
  t.same(read.messages, [exchange(1)[1]])
  t.equal((await app.inject({ method: 'DELETE', url: '/sessions/win' })).statusCode, 204)
  t.equal((await app.inject({ method: 'GET', url: '/sessions/win/search?q=worker' })).statusCode, 404, 'deleted with the session')
})
