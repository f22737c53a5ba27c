/** Storage runs on both backends: one code path, one set of migrations. */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { openDatabase } from '../../src/db/database.ts'
import { migrateToLatest, migrationsApplied } from '../../src/db/migrate.ts'
import { activeKeyCount, createApiKey, findTenantByKey } from '../../src/tenancy/api-keys.ts'
import { migrations } from '../../migrations/index.ts'
import { buildTestApp } from '../helpers/build.ts'
import { BACKENDS, createTestDatabase, POSTGRES_SKIP_REASON, postgresAvailable } from '../helpers/databases.ts'

const pgOk = await postgresAvailable()

for (const backend of BACKENDS) {
  const skip = backend === 'postgres' && !pgOk ? POSTGRES_SKIP_REASON : false
  t.test(`${backend}: migrations, tenants and keys`, { skip }, async (t) => {
    const database = await createTestDatabase(backend, { empty: true })
    t.teardown(() => database.close())
    t.equal(database.kind, backend)
    t.equal(await migrationsApplied(database.db), false, 'fresh database has pending migrations')
    t.same(await migrateToLatest(database.db), Object.keys(migrations), 'every migration applies')
    t.same(await migrateToLatest(database.db), [], 'a second run applies nothing')
    t.equal(await migrationsApplied(database.db), true)

    t.equal(await activeKeyCount(database.db), 0)
    const { key, tenantId } = await createApiKey(database.db, 'acme')
    t.equal(await activeKeyCount(database.db), 1)
    t.same(await findTenantByKey(database.db, key).then((r) => r?.tenantId), tenantId)
    t.equal(await findTenantByKey(database.db, key + 'x'), undefined)
    await database.db.updateTable('api_keys').set({ revoked_at: new Date() }).execute()
    t.equal(await findTenantByKey(database.db, key), undefined, 'revoked keys stop working')
  })

  t.test(`${backend}: readyz reports database and migrations`, { skip }, async (t) => {
    const { app } = await buildTestApp(t, { backend })
    const res = await app.inject({ method: 'GET', url: '/readyz' })
    t.equal(res.statusCode, 200)
    t.same(res.json(), { status: 'ready', database: backend })
  })
}

t.test('readyz is 503 with a JSON error when the database is gone', async (t) => {
  const database = await createTestDatabase('pglite')
  const { app } = await buildTestApp(t, { database })
  await database.close()
  const res = await app.inject({ method: 'GET', url: '/readyz' })
  t.equal(res.statusCode, 503)
  t.equal(res.json().error, 'not_ready')
})

t.test('pglite: data persists in its directory, which one process locks', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'compactd-pglite-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  const first = await openDatabase({ pgliteDataDir: dir })
  await migrateToLatest(first.db)
  const { key } = await createApiKey(first.db, 'acme')
  await t.rejects(openDatabase({ pgliteDataDir: dir }), /in use by process/, 'a second opener is refused')
  await first.close()
  t.notOk(fs.existsSync(path.join(dir, '.compactd.lock')), 'lock released on close')

  const again = await openDatabase({ pgliteDataDir: dir })
  t.teardown(() => again.close())
  t.ok(await findTenantByKey(again.db, key), 'the key survived a reopen')
})

t.test('pglite: a lock left by a dead process is taken over', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'compactd-pglite-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  fs.writeFileSync(path.join(dir, '.compactd.lock'), '999999999')
  const db = await openDatabase({ pgliteDataDir: dir })
  await db.close()
  t.pass('opened despite the stale lock')
})
