/**
 * Open-mode data and the first key (issue 10, defect 9): without adoption, what was
 * stored in open mode is invisible to the new key; with --adopt-open-data
 * (provisionKey({ adoptOpenData })) every session row and checkpoint moves to the key's
 * tenant, on both backends, and a clash moves nothing and creates no key.
 */
import t, { type Test } from 'tap'
import { insertCheckpoint, type CheckpointData } from '../../src/checkpoints/repository.ts'
import { activeKeyCount, createApiKey, DEFAULT_TENANT_NAME } from '../../src/tenancy/api-keys.ts'
import { AdoptConflictError } from '../../src/tenancy/open-data.ts'
import { provisionKey } from '../../src/tenancy/provision.ts'
import { buildTestApp } from '../helpers/build.ts'
import { BACKENDS, POSTGRES_SKIP_REASON, postgresAvailable } from '../helpers/databases.ts'
import type { FastifyInstance } from 'fastify'

const pgOk = await postgresAvailable()

const checkpoint = (k: number): CheckpointData => ({
  fromMessageIndex: 0,
  toMessageIndex: 10,
  messagesCompressed: 10,
  summaryContent: `## Session Summary (Compaction Round ${k})`,
  keyFacts: { currentTask: 'x' },
  originalTokens: 1000,
  compressedTokens: 100,
  compressionRatio: 10,
  summaryCostUsd: 0,
  strategy: 'rules',
  round: k,
})

const exchange = (i: number) => [
  { role: 'user', content: `Fix the failing test in src/module${i}.ts` },
  { role: 'assistant', content: `Fixed src/module${i}.ts: the test passes.` },
]

/** In open mode: a session with evicted messages (queued update), a manual summary, an Idempotency-Key; checkpoints of another id. */
async function storeOpenModeData(t: Test, app: FastifyInstance): Promise<void> {
  t.equal((await app.inject({ method: 'PUT', url: '/sessions/run-1', payload: { windowMessages: 2, batchSize: 1 } })).statusCode, 201)
  for (let i = 0; i < 3; i++) {
    const res = await app.inject({ method: 'POST', url: '/sessions/run-1/messages', headers: { 'idempotency-key': `k${i}` }, payload: { messages: exchange(i) } })
    t.equal(res.statusCode, 200, res.body)
  }
  const summary = await app.inject({ method: 'PUT', url: '/sessions/run-1/summary', payload: { content: '## Previously in This Session\n1. Fixed src/module0.ts', baseVersion: 0 } })
  t.equal(summary.statusCode, 200, summary.body)
  t.equal((await app.inject({ method: 'PUT', url: '/sessions/other', payload: {} })).statusCode, 201)
  const tenantId = (await app.db.selectFrom('tenants').select('id').where('name', '=', DEFAULT_TENANT_NAME).executeTakeFirstOrThrow()).id
  await insertCheckpoint(app.db, tenantId, 'compacted-only', checkpoint(1))
  await insertCheckpoint(app.db, tenantId, 'compacted-only', checkpoint(2))
}

async function rowsPerTenant(app: FastifyInstance): Promise<Record<string, Record<string, number>>> {
  const out: Record<string, Record<string, number>> = {}
  for (const table of ['sessions', 'session_messages', 'session_summaries', 'summary_update_queue', 'idempotency_keys', 'checkpoint_summaries'] as const) {
    const rows = await app.db
      .selectFrom(table)
      .innerJoin('tenants', 'tenants.id', `${table}.tenant_id`)
      .select(['tenants.name as name', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('tenants.name')
      .execute()
    out[table] = Object.fromEntries(rows.map((r) => [r.name, Number(r.n)]))
  }
  return out
}

for (const backend of BACKENDS) {
  const skip = backend === 'postgres' && !pgOk ? POSTGRES_SKIP_REASON : false

  t.test(`${backend}: without adoption, open-mode data is invisible to the first key`, { skip }, async (t) => {
    const { app } = await buildTestApp(t, { backend })
    await storeOpenModeData(t, app)
    const { key } = await createApiKey(app.db, 'acme')
    await app.authOpenMode({ refresh: true })
    const auth = { authorization: `Bearer ${key}` }
    t.equal((await app.inject({ method: 'GET', url: '/sessions/run-1', headers: auth })).statusCode, 404)
    t.equal((await app.inject({ method: 'GET', url: '/sessions/compacted-only/checkpoints', headers: auth })).statusCode, 404)
  })

  t.test(`${backend}: --adopt-open-data moves every session and checkpoint to the key's tenant`, { skip }, async (t) => {
    const { app } = await buildTestApp(t, { backend })
    await storeOpenModeData(t, app)
    const before = await app.inject({ method: 'GET', url: '/sessions/run-1' })
    const beforeSummary = await app.inject({ method: 'GET', url: '/sessions/run-1/summary' })
    const beforeContext = await app.inject({ method: 'GET', url: '/sessions/run-1/context' })
    const beforeRows = await rowsPerTenant(app)
    t.equal(beforeRows.summary_update_queue![DEFAULT_TENANT_NAME], 1, 'an update is queued (WORKERS=0)')

    const created = await provisionKey(app.db, { tenant: 'acme', adoptOpenData: true })
    t.same(created.adopted, { sessions: 2, messages: 6, checkpoints: 2, checkpointSessions: 1 })
    await app.authOpenMode({ refresh: true })

    const afterRows = await rowsPerTenant(app)
    for (const [table, counts] of Object.entries(afterRows)) {
      t.same(counts, { acme: beforeRows[table]![DEFAULT_TENANT_NAME] }, `${table}: every row moved to acme, none left under default`)
    }
    const auth = { authorization: `Bearer ${created.key}` }
    const after = await app.inject({ method: 'GET', url: '/sessions/run-1', headers: auth })
    t.equal(after.statusCode, 200)
    t.same(after.json(), before.json(), 'the session reads the same under the new key')
    t.same((await app.inject({ method: 'GET', url: '/sessions/run-1/summary', headers: auth })).json().content, beforeSummary.json().content)
    t.same((await app.inject({ method: 'GET', url: '/sessions/run-1/context', headers: auth })).json().messages, beforeContext.json().messages)
    const cps = await app.inject({ method: 'GET', url: '/sessions/compacted-only/checkpoints', headers: auth })
    t.same(cps.json().items.map((c: { checkpointNum: number }) => c.checkpointNum).sort(), [1, 2])
    const replay = await app.inject({ method: 'POST', url: '/sessions/run-1/messages', headers: { ...auth, 'idempotency-key': 'k2' }, payload: { messages: exchange(2) } })
    t.equal(replay.headers['idempotent-replayed'], 'true', 'Idempotency-Keys moved with the session')
    const next = await app.inject({ method: 'POST', url: '/sessions/run-1/messages', headers: auth, payload: { messages: exchange(3) } })
    t.equal(next.json().firstSeq, 7, 'appends continue the moved sequence')
    const checkpointed = await insertCheckpoint(app.db, created.tenantId, 'compacted-only', checkpoint(3))
    t.equal(checkpointed.checkpoint.checkpointNum, 3, 'checkpoint numbering continues')
  })

  t.test(`${backend}: a session id the tenant already has: nothing moves, no key is created`, { skip }, async (t) => {
    const { app } = await buildTestApp(t, { backend })
    await storeOpenModeData(t, app)
    const existing = await createApiKey(app.db, 'acme')
    await app.authOpenMode({ refresh: true })
    const auth = { authorization: `Bearer ${existing.key}` }
    t.equal((await app.inject({ method: 'PUT', url: '/sessions/run-1', headers: auth, payload: {} })).statusCode, 201)
    await insertCheckpoint(app.db, existing.tenantId, 'compacted-only', checkpoint(1))
    const beforeRows = await rowsPerTenant(app)

    const err = await provisionKey(app.db, { tenant: 'acme', adoptOpenData: true }).catch((e: unknown) => e)
    t.type(err, AdoptConflictError)
    t.same((err as AdoptConflictError).sessionIds, ['compacted-only', 'run-1'])
    t.match((err as Error).message, /tenant "acme" already has session ids "compacted-only", "run-1"; nothing was changed/)
    t.equal(await activeKeyCount(app.db), 1, 'no key was created')
    t.same(await rowsPerTenant(app), beforeRows, 'nothing moved')

    const other = await provisionKey(app.db, { tenant: 'globex', adoptOpenData: true })
    t.same(other.adopted, { sessions: 2, messages: 6, checkpoints: 2, checkpointSessions: 1 }, 'another tenant adopts it')
  })

  t.test(`${backend}: a key for "default" sees open-mode data as is; nothing to adopt twice`, { skip }, async (t) => {
    const { app } = await buildTestApp(t, { backend })
    await storeOpenModeData(t, app)
    const created = await provisionKey(app.db, { tenant: DEFAULT_TENANT_NAME, adoptOpenData: true })
    t.same(created.adopted, { sessions: 0, messages: 0, checkpoints: 0, checkpointSessions: 0 })
    await app.authOpenMode({ refresh: true })
    t.equal((await app.inject({ method: 'GET', url: '/sessions/run-1', headers: { authorization: `Bearer ${created.key}` } })).statusCode, 200)
    const moved = await provisionKey(app.db, { tenant: 'acme', adoptOpenData: true })
    t.equal(moved.adopted!.sessions, 2)
    const again = await provisionKey(app.db, { tenant: 'globex', adoptOpenData: true })
    t.same(again.adopted, { sessions: 0, messages: 0, checkpoints: 0, checkpointSessions: 0 }, 'adopted data is no longer open-mode data')
  })
}
