/**
 * Archive benchmark (issue 21): `npm run bench -- archive`.
 *
 * 1. What archiving costs /compact. The largest fixture conversation (engine.ts
 *    largestConversation) compacted by the default pipeline (mask + rules) to 10% of its
 *    o200k tokens, through app.inject, one request at a time, by two apps over the same
 *    database: archive on (ARCHIVE_ENABLED, the default) and off. Both send a sessionId
 *    (so both store a checkpoint), fresh per request: a resent history is archived once
 *    (dedupe by hash), so a reused session would measure the dedupe, not the insert.
 *    Requests alternate off, on, off, on, …; medians and their ratio. PostgreSQL and PGlite.
 * 2. Search latency over one session's archive of ≥ 10,000 messages. The archive is the
 *    fixture conversations' messages, copied until there are 10,000 (each copy with its
 *    own `copy` field, hash and reference), stored by archiveMessages (the repository function
 *    /compact uses) in transactions of 500 records. Then ≥ 200 queries, the probe
 *    questions verbatim and identifiers drawn from the archive (seeded), each through GET
 *    /sessions/{id}/search (limit 5, app.inject) once after a warm-up pass; p50, p99 and
 *    the share of queries with at least one hit, on PostgreSQL and on PGlite. Twice: as
 *    built through the service's indexer (every 10th query), and after an explicit
 *    ANALYZE. The indexer runs ANALYZE itself after 500 indexed messages (at most once a
 *    minute), so "as built" has planner statistics unless the archive is younger than
 *    that; PostgreSQL's autovacuum would also run it, PGlite has none.
 *
 * Env: BENCH_ROUNDS (default 3; part 1 runs 5 × rounds pairs), BENCH_ARCHIVE_MESSAGES
 * (default 10,000), BENCH_ARCHIVE_QUERIES (default 300).
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import { build } from '../../src/app.ts'
import { archiveMessages } from '../../src/archive/repository.ts'
import { testConfig, type Config } from '../../src/config.ts'
import { archivedText, archiveRecord, refOfHash, type ArchiveRecord } from '../../src/engine/archive/record.ts'
import { chunkText, expandForIndex } from '../../src/engine/archive/search-text.ts'
import { parseConversation } from '../../src/engine/messages/index.ts'
import { countConversation, tokenizerCounter } from '../../src/engine/tokens/count.ts'
import { DEFAULT_TENANT_NAME, ensureTenant } from '../../src/tenancy/api-keys.ts'
import { createTestDatabase, postgresAvailable, type Backend, type TestDatabase } from '../helpers/databases.ts'
import { CONVERSATIONS, fixtureFiles } from '../helpers/fixtures.ts'
import { FIXTURE_PROBES } from '../eval/probes/index.ts'
import { syntheticConversation } from './conversation.ts'
import { largestConversation } from './engine.ts'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const PAIRS = Math.max(3, ROUNDS * 5)
const ARCHIVE_MESSAGES = Number(process.env.BENCH_ARCHIVE_MESSAGES ?? 10_000)
const QUERIES = Number(process.env.BENCH_ARCHIVE_QUERIES ?? 300)
/** Without planner statistics a query reads every chunk of the session (seconds at 10,000): that pass runs every 10th query only. */
const COLD_EVERY = 10

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}
const quantile = (xs: readonly number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!
}

async function app(database: TestDatabase, config: Partial<Config> = {}): Promise<FastifyInstance> {
  const a = await build({ config: testConfig({ LOG_LEVEL: 'warn', WORKERS: 0, RATE_LIMIT_MAX: 1_000_000_000, BODY_LIMIT_BYTES: 50 * 1024 * 1024, ...config }), database, logger: false })
  await a.ready()
  return a
}

export interface ArchiveCost {
  backend: Backend
  pairs: number
  offMs: number
  onMs: number
  ratio: number
  archived: number
  archivedBytes: number
  /** Each side's p10 and p90. */
  offRange: [number, number]
  onRange: [number, number]
  /** Where the archive's time goes, for the same messages (medians of 5): their records (hash, redaction), the identifier expansion of their text, and archiveMessages in a transaction (the messages only). */
  parts: { recordsMs: number; expandMs: number; insertMs: number }
  /** The deferred index after each compaction (not part of its response time): median ms until the background indexing drained. */
  indexMs: number
}

/** Part 1: /compact with the archive on ÷ off, same database, alternating requests. */
export async function benchArchiveCost(backend: Backend, pairs = PAIRS): Promise<ArchiveCost> {
  const database = await createTestDatabase(backend)
  const on = await app(database)
  const off = await app(database, { ARCHIVE_ENABLED: false })
  try {
    const { messages } = largestConversation()
    const tokens = countConversation(parseConversation(messages, { format: 'openai' }).messages, tokenizerCounter('o200k_base')).totalTokens
    const base = { messages, model: 'gpt-4o', strategy: ['mask', 'rules'], targetTokens: Math.floor(tokens / 10) }
    let n = 0
    let archived = 0
    let archivedBytes = 0
    let lastOnSession = ''
    const indexMs: number[] = []
    const once = async (a: FastifyInstance) => {
      const t = performance.now()
      const res = await a.inject({ method: 'POST', url: '/compact', payload: { ...base, sessionId: `bench-archive-${process.pid}-${++n}` } })
      const ms = performance.now() - t
      if (res.statusCode !== 200) throw new Error(`POST /compact: ${res.statusCode} ${res.body.slice(0, 300)}`)
      if (a === on) {
        // The index is made after the response, in the background: wait for it (timed apart),
        // so it does not run during the next request of either side.
        lastOnSession = `bench-archive-${process.pid}-${n}`
        const started = performance.now()
        await on.useCases.archiveIndexer.drain()
        indexMs.push(performance.now() - started)
      }
      const report = (res.json() as { archive?: { status: string; archived: number; bytes: number } }).archive
      if (a === on) {
        if (report?.status !== 'archived') throw new Error(`archive on, but the compaction reports ${JSON.stringify(report)}`)
        archived = report.archived
        archivedBytes = report.bytes
      } else if (report && report.status !== 'disabled') throw new Error(`archive off, but the compaction reports ${JSON.stringify(report)}`)
      return ms
    }
    for (let i = 0; i < 2; i++) await once(off), await once(on) // warm-up
    const offMs: number[] = []
    const onMs: number[] = []
    for (let i = 0; i < pairs; i++) {
      // Alternate which goes first, so a slow moment does not always land on one side.
      if (i % 2 === 0) offMs.push(await once(off)), onMs.push(await once(on))
      else onMs.push(await once(on)), offMs.push(await once(off))
    }
    const parts = await archiveParts(database, messages, lastOnSession)
    const offMedian = median(offMs)
    const onMedian = median(onMs)
    return {
      backend,
      pairs,
      offMs: offMedian,
      onMs: onMedian,
      ratio: onMedian / offMedian,
      archived,
      archivedBytes,
      offRange: [quantile(offMs, 0.1), quantile(offMs, 0.9)],
      onRange: [quantile(onMs, 0.1), quantile(onMs, 0.9)],
      parts,
      indexMs: median(indexMs),
    }
  } finally {
    await on.close()
    await off.close()
    await database.close()
  }
}

/** The archive's steps timed alone, over the messages `sessionId`'s compaction archived. */
async function archiveParts(database: TestDatabase, messages: unknown[], sessionId: string): Promise<ArchiveCost['parts']> {
  const positions = new Set((await sql<{ position: number }>`select position from archived_messages where session_id = ${sessionId}`.execute(database.db)).rows.map((r) => r.position))
  const tenantId = await ensureTenant(database.db, DEFAULT_TENANT_NAME)
  const samples = { recordsMs: [] as number[], expandMs: [] as number[], insertMs: [] as number[] }
  for (let i = 0; i < 5; i++) {
    // A fresh parse each time: records are cached per message object.
    const dropped = parseConversation(structuredClone(messages), { format: 'openai' }).messages.filter((m) => positions.has(m.index))
    let t = performance.now()
    const records = dropped.map((m) => archiveRecord(m))
    samples.recordsMs.push(performance.now() - t)
    t = performance.now()
    for (const r of records) for (const c of chunkText(archivedText(r.raw, r.format))) expandForIndex(c)
    samples.expandMs.push(performance.now() - t)
    t = performance.now()
    await database.db.transaction().execute((trx) => archiveMessages(trx, tenantId, `${sessionId}-parts-${i}`, records, { checkpointNum: 1, source: 'compact' }))
    samples.insertMs.push(performance.now() - t)
  }
  return { recordsMs: median(samples.recordsMs), expandMs: median(samples.expandMs), insertMs: median(samples.insertMs) }
}

/** Messages of every fixture conversation (a synthetic conversation when they are absent). */
function corpus(): { name: string; messages: unknown[] }[] {
  const files = fixtureFiles()
  if (files.length === 0) return [{ name: 'synthetic', messages: syntheticConversation(1200) }]
  return files.map((f) => ({ name: f.replace(/\.json$/, ''), messages: (JSON.parse(fs.readFileSync(path.join(CONVERSATIONS, f), 'utf8')) as { messages: unknown[] }).messages }))
}

/** `count` archive records with distinct hashes: the corpus's messages, copy after copy, each copy with its own `copy` field, hash and reference (a message repeated within a conversation is taken once). */
export function archiveCorpus(count: number): ArchiveRecord[] {
  const base = new Map<string, ArchiveRecord>()
  for (const c of corpus()) {
    const conv = parseConversation(c.messages, { format: 'openai' })
    for (const m of conv.messages) {
      const r = archiveRecord(m)
      if (!base.has(r.hash)) base.set(r.hash, r)
    }
  }
  const out: ArchiveRecord[] = []
  for (let copy = 0; out.length < count; copy++) {
    for (const r of base.values()) {
      if (out.length >= count) break
      const hash = copy === 0 ? r.hash : createHash('sha256').update(`${r.hash}:${copy}`).digest('hex')
      out.push({ ...r, hash, ref: refOfHash(hash), position: out.length, raw: copy === 0 ? r.raw : JSON.stringify({ ...(JSON.parse(r.raw) as object), copy }) })
    }
  }
  return out
}

/** A small seeded PRNG (mulberry32): the same queries every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** The probe questions verbatim, then identifiers (paths, dotted or snake/camel names, error types) drawn from the archive's text. */
export function archiveQueries(records: readonly ArchiveRecord[], count: number): { q: string; kind: 'question' | 'identifier' }[] {
  const out: { q: string; kind: 'question' | 'identifier' }[] = FIXTURE_PROBES.slice(0, count).map((p) => ({ q: p.question, kind: 'question' as const }))
  const identifiers = new Set<string>()
  const ID = /\b(?:[\w-]+\/)*[\w-]+\.(?:py|ts|js|json|md|yml|yaml|toml|txt|sh|html|css|sql)\b|\b[a-z]+(?:_[a-z0-9]+){1,4}\b|\b[a-z]+(?:[A-Z][a-z0-9]+){1,4}\b|\b[A-Z]\w*(?:Error|Exception)\b/g
  for (const r of records) for (const m of archivedText(r.raw, r.format).slice(0, 4_000).matchAll(ID)) if (m[0].length >= 6 && m[0].length <= 60) identifiers.add(m[0])
  const pool = [...identifiers].sort()
  const rand = prng(21)
  const picked = new Set<string>()
  while (out.length + picked.size < count && picked.size < pool.length) picked.add(pool[Math.floor(rand() * pool.length)]!)
  for (const q of picked) out.push({ q, kind: 'identifier' })
  return out
}

export interface SearchBench {
  backend: Backend
  messages: number
  chunks: number
  rawMB: number
  buildS: number
  /** As built (no planner statistics), then after ANALYZE. */
  passes: SearchPass[]
}

export interface SearchPass {
  stats: 'none' | 'analyzed'
  queries: number
  p50Ms: number
  p90Ms: number
  p99Ms: number
  maxMs: number
  withHit: number
  /** Same, per kind of query. */
  byKind: Record<'question' | 'identifier', { n: number; p50Ms: number; p99Ms: number; withHit: number }>
}

/** Part 2: search latency over one session's archive of ≥ ARCHIVE_MESSAGES messages. */
export async function benchArchiveSearch(backend: Backend, records: readonly ArchiveRecord[], queries: readonly { q: string; kind: 'question' | 'identifier' }[]): Promise<SearchBench> {
  const database = await createTestDatabase(backend)
  const a = await app(database)
  try {
    const tenantId = await ensureTenant(database.db, DEFAULT_TENANT_NAME)
    const sessionId = 'bench-archive-search'
    // No autovacuum on this throwaway database until the first pass is measured without statistics.
    if (backend === 'postgres') for (const t of ['archived_messages', 'archive_chunks']) await sql`alter table ${sql.table(t)} set (autovacuum_enabled = false)`.execute(database.db)
    const t0 = performance.now()
    for (let i = 0; i < records.length; i += 500) {
      await database.db.transaction().execute((trx) => archiveMessages(trx, tenantId, sessionId, records.slice(i, i + 500), { checkpointNum: 1 + Math.floor(i / 500), source: 'compact' }))
    }
    // The deferred index, as the service makes it after a compaction (the indexer's batches).
    a.useCases.archiveIndexer.schedule(tenantId, sessionId)
    await a.useCases.archiveIndexer.drain()
    const buildS = (performance.now() - t0) / 1000
    const counts = await sql<{ messages: string | number; chunks: string | number; bytes: string | number }>`
      select (select count(*) from archived_messages where session_id = ${sessionId}) as messages,
             (select count(*) from archive_chunks where session_id = ${sessionId}) as chunks,
             (select coalesce(sum(bytes), 0) from archived_messages where session_id = ${sessionId}) as bytes`.execute(database.db)
    const row = counts.rows[0]!
    const search = async (q: string) => {
      const t = performance.now()
      const res = await a.inject({ method: 'GET', url: `/sessions/${sessionId}/search?q=${encodeURIComponent(q)}&limit=5` })
      const ms = performance.now() - t
      if (res.statusCode !== 200) throw new Error(`search ${JSON.stringify(q)}: ${res.statusCode} ${res.body.slice(0, 300)}`)
      return { ms, hits: (res.json() as { hits: unknown[] }).hits.length }
    }
    const measure = async (stats: SearchPass['stats'], queries: readonly { q: string; kind: 'question' | 'identifier' }[], warmup: number): Promise<SearchPass> => {
      // Warm-up: the first queries once (connections, plans, the page cache).
      for (const { q } of queries.slice(0, warmup)) await search(q)
      const results: { ms: number; hits: number; kind: 'question' | 'identifier' }[] = []
      for (const { q, kind } of queries) results.push({ ...(await search(q)), kind })
      const summary = (rs: typeof results) => ({ n: rs.length, p50Ms: median(rs.map((r) => r.ms)), p99Ms: quantile(rs.map((r) => r.ms), 0.99), withHit: rs.filter((r) => r.hits > 0).length / rs.length })
      const ms = results.map((r) => r.ms)
      return {
        stats,
        queries: results.length,
        p50Ms: median(ms),
        p90Ms: quantile(ms, 0.9),
        p99Ms: quantile(ms, 0.99),
        maxMs: Math.max(...ms),
        withHit: results.filter((r) => r.hits > 0).length / results.length,
        byKind: { question: summary(results.filter((r) => r.kind === 'question')), identifier: summary(results.filter((r) => r.kind === 'identifier')) },
      }
    }
    // As built: with the statistics the indexer's own ANALYZE left (after 500 indexed
    // messages, at most once a minute; PGlite has no autovacuum). Then after ANALYZE.
    const fresh = await measure('none', queries.filter((_, i) => i % COLD_EVERY === 0), 3)
    if (backend === 'postgres') for (const t of ['archived_messages', 'archive_chunks']) await sql`alter table ${sql.table(t)} reset (autovacuum_enabled)`.execute(database.db)
    await sql`analyze archived_messages`.execute(database.db)
    await sql`analyze archive_chunks`.execute(database.db)
    const analyzed = await measure('analyzed', queries, 20)
    return { backend, messages: Number(row.messages), chunks: Number(row.chunks), rawMB: Number(row.bytes) / 1e6, buildS, passes: [fresh, analyzed] }
  } finally {
    await a.close()
    await database.close()
  }
}

export async function benchArchive(): Promise<void> {
  const backends: Backend[] = (await postgresAvailable()) ? ['postgres', 'pglite'] : ['pglite']
  if (!backends.includes('postgres')) console.log('\n(PostgreSQL not reachable: PGlite only)')
  const { name, messages } = largestConversation()
  console.log(`\n## Archive (issue 21): what archiving costs /compact\n`)
  console.log(`${name}: ${messages.length} messages, ${JSON.stringify(messages).length} bytes, mask + rules to 10%, one request at a time (app.inject), ${PAIRS} pairs alternating archive off/on, fresh sessionId each; medians\n`)
  console.log('| backend | archive off, ms | archive on, ms | on ÷ off | off p10–p90 | on p10–p90 | archived per request | records ms | expansion ms | archiveMessages ms | index after, ms (background) |')
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
  for (const b of backends) {
    const r = await benchArchiveCost(b)
    console.log(
      `| ${b} | ${r.offMs.toFixed(0)} | ${r.onMs.toFixed(0)} | ${r.ratio.toFixed(2)}× (goal ≤ 1.25×) | ${r.offRange.map((x) => x.toFixed(0)).join('–')} | ${r.onRange.map((x) => x.toFixed(0)).join('–')} | ${r.archived} messages, ${(r.archivedBytes / 1e6).toFixed(2)} MB | ${r.parts.recordsMs.toFixed(0)} | ${r.parts.expandMs.toFixed(0)} | ${r.parts.insertMs.toFixed(0)} | ${r.indexMs.toFixed(0)} |`,
    )
  }
  const records = archiveCorpus(ARCHIVE_MESSAGES)
  const queries = archiveQueries(records, QUERIES)
  console.log(`\n## Archive (issue 21): search latency over one session's archive\n`)
  console.log(`${records.length} archived messages (the fixture conversations' messages, copied, each copy its own hash), ${queries.length} queries (${queries.filter((q) => q.kind === 'question').length} probe questions verbatim, the rest identifiers from the archive), GET /sessions/{id}/search?limit=5 through app.inject, one at a time; as built (no planner statistics yet: every ${COLD_EVERY}th query, after 3 warm-up queries) and after ANALYZE (every query, after a 20-query warm-up)\n`)
  console.log('| backend | planner statistics | messages | chunks | MB | build s | p50 ms | p90 ms | p99 ms | max ms | queries with a hit | questions p50 / p99 | identifiers p50 / p99 |')
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
  for (const b of backends) {
    const r = await benchArchiveSearch(b, records, queries)
    for (const p of r.passes) {
      const k = p.byKind
      console.log(
        `| ${b} | ${p.stats === 'none' ? 'none (as built)' : 'after ANALYZE'} | ${r.messages} | ${r.chunks} | ${r.rawMB.toFixed(1)} | ${r.buildS.toFixed(1)} | ${p.p50Ms.toFixed(1)} | ${p.p90Ms.toFixed(1)} | ${p.p99Ms.toFixed(1)}${b === 'postgres' ? ' (goal ≤ 50)' : ''} | ${p.maxMs.toFixed(1)} | ${(p.withHit * 100).toFixed(0)}% | ${k.question.p50Ms.toFixed(1)} / ${k.question.p99Ms.toFixed(1)} | ${k.identifier.p50Ms.toFixed(1)} / ${k.identifier.p99Ms.toFixed(1)} |`,
      )
    }
  }
}
