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
  await first.stop()
  first.schedule(tenantId, 's')
  await first.drain()
  t.equal(await countPendingIndex(app.db, tenantId, 's'), 150, 'one batch of 100 indexed, then it stopped and took nothing new')

  const next = makeArchiveIndexer(deps)
  t.equal(await next.beforeSearch(tenantId, 's'), 0, 'the next search indexes what was left')
  const hit = (await app.inject({ method: 'GET', url: '/sessions/s/search?q=shard_249' })).json().hits[0]
  t.match(hit.snippet, /shard_249/)
})
