/**
 * The archive's deferred index: a stop (the app's close) ends at the batch in flight and
 * leaves the rest unindexed, and the next search indexes it, so nothing archived is lost
 * to search.
 */
import t from 'tap'
import { archiveMessages, countPendingIndex } from '../../../src/archive/repository.ts'
import { archiveRecord } from '../../../src/engine/archive/record.ts'
import { parseConversation } from '../../../src/engine/messages/index.ts'
import { DEFAULT_TENANT_NAME, ensureTenant } from '../../../src/tenancy/api-keys.ts'
import { makeArchiveIndexer } from '../../../src/use-cases/archive/indexer.ts'
import { buildTestApp } from '../../helpers/build.ts'

t.test('a stopped indexer ends at its batch; the next search indexes the rest', async (t) => {
  const { app } = await buildTestApp(t)
  const tenantId = await ensureTenant(app.db, DEFAULT_TENANT_NAME)
  const messages = Array.from({ length: 250 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `message ${i} about shard_${i}` }))
  const records = parseConversation(messages).messages.map((m) => archiveRecord(m))
  await app.db.transaction().execute((trx) => archiveMessages(trx, tenantId, 's', records, { checkpointNum: 1, source: 'compact' }))
  const deps = { db: app.db, config: app.config, compute: app.compute, log: app.log }

  const first = makeArchiveIndexer(deps)
  first.schedule(tenantId, 's')
  await new Promise((resolve) => setImmediate(resolve)) // the background run starts on the next turn
  await first.stop()
  first.schedule(tenantId, 's')
  await first.drain()
  t.equal(await countPendingIndex(app.db, tenantId, 's'), 150, 'one batch of 100 indexed, then it stopped and took nothing new')

  const next = makeArchiveIndexer(deps)
  t.equal(await next.beforeSearch(tenantId, 's'), 0, 'the next search indexes what was left')
  const hit = (await app.inject({ method: 'GET', url: '/sessions/s/search?q=shard_249' })).json().hits[0]
  t.match(hit.snippet, /shard_249/)
})

t.test("the background run starts after the scheduling request's own queries, not before them", async (t) => {
  // PGlite runs one query at a time on the event loop's thread: a batch read issued at
  // schedule() went ahead of the compaction's remaining queries and delayed its response.
  const { app } = await buildTestApp(t)
  const tenantId = await ensureTenant(app.db, DEFAULT_TENANT_NAME)
  const records = parseConversation([{ role: 'user', content: 'the only message, about lease_renewal' }]).messages.map((m) => archiveRecord(m))
  await app.db.transaction().execute((trx) => archiveMessages(trx, tenantId, 'order', records, { checkpointNum: 1, source: 'compact' }))
  const order: string[] = []
  // Every query the indexer sends passes this plugin as it is built.
  const counting = app.db.withPlugin({
    transformQuery: (args) => (order.push('indexer'), args.node),
    transformResult: async (args) => args.result,
  })
  const indexer = makeArchiveIndexer({ db: counting, config: app.config, compute: app.compute, log: app.log })
  indexer.schedule(tenantId, 'order')
  order.push('request')
  await Promise.resolve() // the request's next awaits, within this turn
  order.push('request')
  await indexer.drain()
  t.same(order.slice(0, 2), ['request', 'request'], `the indexer's first query after the request's: ${order.join(', ')}`)
  t.ok(order.includes('indexer'), 'and it runs')
  t.equal(await countPendingIndex(app.db, tenantId, 'order'), 0, 'indexed')
})
