/**
 * archiveMessages, the write a compaction's transaction makes: each message once per
 * session (by hash: within one write, against what the session holds, and against a
 * concurrent transaction that stores it first), the tenant's usage and the report from
 * the same statement, batches past 500 rows, the at-rest key, and `raw` stored without
 * TOAST compression (migration 0008). PostgreSQL and PGlite.
 */
import { randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import t from 'tap'
import { parseArchiveKey, decryptArchived } from '../../src/archive/cipher.ts'
import { archiveMessages, archiveUsage } from '../../src/archive/repository.ts'
import { migrateToLatest } from '../../src/db/migrate.ts'
import { archiveRecord, type ArchiveRecord } from '../../src/engine/archive/record.ts'
import { parseConversation } from '../../src/engine/messages/index.ts'
import { DEFAULT_TENANT_NAME, ensureTenant } from '../../src/tenancy/api-keys.ts'
import { BACKENDS, createTestDatabase, POSTGRES_SKIP_REASON, postgresAvailable, type Backend } from '../helpers/databases.ts'

const GITHUB_TOKEN = `ghp_${'aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5'}`

function recordsOf(texts: readonly string[]): ArchiveRecord[] {
  const messages = texts.map((content, i) => ({ role: i % 2 ? 'assistant' : 'user', content }))
  return parseConversation(messages).messages.map((m) => archiveRecord(m))
}

const pgOk = await postgresAvailable()

async function open(t: { teardown(fn: () => Promise<void>): void }, backend: Backend) {
  const database = await createTestDatabase(backend)
  t.teardown(() => database.close())
  if (backend === 'postgres') await migrateToLatest(database.db)
  const tenantId = await ensureTenant(database.db, DEFAULT_TENANT_NAME)
  const write = (sessionId: string, records: readonly ArchiveRecord[], key?: Buffer) =>
    database.db.transaction().execute((trx) => archiveMessages(trx, tenantId, sessionId, records, { checkpointNum: 1, source: 'compact', ...(key ? { key } : {}) }))
  const rows = async (sessionId: string) => Number((await sql<{ n: string }>`select count(*) n from archived_messages where session_id = ${sessionId}`.execute(database.db)).rows[0]!.n)
  return { database, tenantId, write, rows }
}

const bytesOf = (records: readonly ArchiveRecord[]) => records.reduce((n, r) => n + Buffer.byteLength(r.raw), 0)

for (const backend of BACKENDS) {
  const skip = backend === 'postgres' && !pgOk ? POSTGRES_SKIP_REASON : false

  t.test(`${backend}: each message once per session; usage and the report from the write`, { skip }, async (t) => {
    const { database, tenantId, write, rows } = await open(t, backend)
    const [a, b, c] = recordsOf(['alpha', `export GITHUB_TOKEN=${GITHUB_TOKEN}`, 'gamma'])
    const first = await write('s1', [a!, b!, a!])
    t.same(first, { archived: 2, deduplicated: 1, bytes: bytesOf([a!, b!]), redactions: 1, usedBytes: bytesOf([a!, b!]) }, 'a message twice in one write is stored once')
    const again = await write('s1', [b!, c!])
    t.same(again, { archived: 1, deduplicated: 1, bytes: bytesOf([c!]), redactions: 0, usedBytes: bytesOf([a!, b!, c!]) }, 'what the session holds is not stored again')
    t.same(await write('s1', [a!, c!]), { archived: 0, deduplicated: 2, bytes: 0, redactions: 0, usedBytes: bytesOf([a!, b!, c!]) }, 'all known: nothing stored, the usage still reported')
    t.equal(await rows('s1'), 3)
    t.same(await write('s2', [a!]), { archived: 1, deduplicated: 0, bytes: bytesOf([a!]), redactions: 0, usedBytes: bytesOf([a!, b!, c!, a!]) }, 'another session stores its own copy')
    t.same(await archiveUsage(database.db, tenantId), { bytes: bytesOf([a!, b!, c!, a!]), messages: 4 })
    const stored = await sql<{ raw: string; redactions: number; encrypted: boolean }>`select raw, redactions, encrypted from archived_messages where session_id = 's1' and hash = ${b!.hash}`.execute(database.db)
    t.equal(stored.rows[0]!.raw, b!.raw, 'the redacted bytes as made')
    t.notOk(stored.rows[0]!.raw.includes(GITHUB_TOKEN), 'no secret in clear')
    t.same(await write('s3', []), { archived: 0, deduplicated: 0, bytes: 0, redactions: 0, usedBytes: bytesOf([a!, b!, c!, a!]) }, 'an empty write')
  })

  t.test(`${backend}: more than one batch (1,100 messages), NUL in tool names, the at-rest key`, { skip }, async (t) => {
    const { database, write, rows } = await open(t, backend)
    const many = recordsOf(Array.from({ length: 1_100 }, (_, i) => `message ${i}`))
    t.same(await write('big', many), { archived: 1_100, deduplicated: 0, bytes: bytesOf(many), redactions: 0, usedBytes: bytesOf(many) })
    t.equal(await rows('big'), 1_100)
    const positions = await sql<{ position: number }>`select position from archived_messages where session_id = 'big' order by position`.execute(database.db)
    t.same(positions.rows.map((r) => r.position), many.map((r) => r.position), 'each row keeps its own columns')

    const calls = parseConversation([
      { role: 'assistant', content: null, tool_calls: [{ id: 'call\u00001', type: 'function', function: { name: 'ba\u0000sh', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'call\u00001', content: 'ok' },
    ]).messages.map((m) => archiveRecord(m))
    t.equal((await write('nul', calls)).archived, 2)
    const nul = await sql<{ tool_name: string; call_ids: unknown }>`select tool_name, call_ids from archived_messages where session_id = 'nul' order by position`.execute(database.db)
    t.equal(nul.rows[0]!.tool_name, 'ba\uFFFF0sh', 'NUL-escaped as every stored string')

    const key = parseArchiveKey(randomBytes(32).toString('base64'))
    const [secret] = recordsOf(['kept encrypted'])
    t.same(await write('enc', [secret!], key), { archived: 1, deduplicated: 0, bytes: bytesOf([secret!]), redactions: 0, usedBytes: bytesOf([...many, ...calls, secret!]) }, 'bytes are the plaintext bytes')
    const enc = await sql<{ raw: string; encrypted: boolean; bytes: number }>`select raw, encrypted, bytes from archived_messages where session_id = 'enc'`.execute(database.db)
    t.equal(enc.rows[0]!.encrypted, true)
    t.not(enc.rows[0]!.raw, secret!.raw, 'ciphertext stored')
    t.equal(decryptArchived(key, enc.rows[0]!.raw), secret!.raw)
  })

  t.test(`${backend}: raw is stored without TOAST compression`, { skip }, async (t) => {
    const { database } = await open(t, backend)
    const storage = await sql<{ attstorage: string }>`select attstorage from pg_attribute where attrelid = 'archived_messages'::regclass and attname = 'raw'`.execute(database.db)
    t.equal(storage.rows[0]!.attstorage, 'e', 'external: out of line, uncompressed')
  })
}

t.test('postgres: a message a concurrent transaction stores first is stored once, and counted as deduplicated', { skip: pgOk ? false : POSTGRES_SKIP_REASON }, async (t) => {
  const { database, tenantId, write, rows } = await open(t, 'postgres')
  const [x, y] = recordsOf(['written by both', 'written by the second only'])
  let release!: () => void
  const held = new Promise<void>((resolve) => (release = resolve))
  let firstWrote!: () => void
  const wrote = new Promise<void>((resolve) => (firstWrote = resolve))
  // The first transaction stores x and stays open; the second's lookup cannot see x yet.
  const first = database.db.transaction().execute(async (trx) => {
    const w = await archiveMessages(trx, tenantId, 'race', [x!], { checkpointNum: 1, source: 'compact' })
    firstWrote()
    await held
    return w
  })
  await wrote
  const second = write('race', [x!, y!])
  await new Promise((resolve) => setTimeout(resolve, 200))
  release()
  t.equal((await first).archived, 1)
  t.same(await second, { archived: 1, deduplicated: 1, bytes: bytesOf([y!]), redactions: 0, usedBytes: bytesOf([x!, y!]) }, 'the insert waited for the first, then skipped x')
  t.equal(await rows('race'), 2)
  t.same(await archiveUsage(database.db, tenantId), { bytes: bytesOf([x!, y!]), messages: 2 }, 'x counted once in the usage')
})
