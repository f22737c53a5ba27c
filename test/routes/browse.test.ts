/**
 * The paged listings the dashboard reads (routes/browse.ts): GET /sessions (sessions and
 * compaction series, search, sort, keyset pages), GET /sessions/:id/summary/versions and
 * …/versions/:version (who wrote each), GET /sessions/:id/messages; the checkpoint
 * fields added for it (target, model, duration, summary tokens); tenant isolation; and
 * the dashboard's public GET /ui/config.json and page under their own CSP.
 */
import { sql } from 'kysely'
import t from 'tap'
import { createApiKey } from '../../src/tenancy/api-keys.ts'
import { UI_CSP } from '../../src/plugins/ui.ts'
import { buildTestApp } from '../helpers/build.ts'
import { exchange, toolConversation } from '../helpers/session-conversations.ts'


t.test('GET /sessions lists sessions and compaction series with their counters; search, sort and pages', async (t) => {
  const { app } = await buildTestApp(t, { config: { COMPACTION_MAX_CHECKPOINTS: 1000 } })
  // A session with a rolling summary (window of 6 messages, batch 1).
  let res = await app.inject({ method: 'PUT', url: '/sessions/alpha-session', payload: { windowMessages: 6, batchSize: 1 } })
  t.equal(res.statusCode, 201)
  for (let i = 0; i < 4; i++) {
    res = await app.inject({ method: 'POST', url: '/sessions/alpha-session/messages', payload: { messages: exchange(i) } })
    t.equal(res.statusCode, 200)
  }
  await app.summaryWorker.runOnce()
  // A compaction series: two compactions stored under one sessionId.
  for (let k = 0; k < 2; k++) {
    res = await app.inject({ method: 'POST', url: '/compact', payload: { messages: toolConversation(12, k), targetTokens: 3000, keepRecent: 2, sessionId: 'beta-series' } })
    t.equal(res.statusCode, 200)
    t.equal(res.json().compacted, true)
  }
  // Many small sessions, for paging.
  for (let i = 0; i < 23; i++) await app.inject({ method: 'PUT', url: `/sessions/gamma-${String(i).padStart(2, '0')}`, payload: {} })

  res = await app.inject({ method: 'GET', url: '/sessions?q=ALPHA' })
  t.equal(res.statusCode, 200)
  const list = res.json()
  t.equal(list.total, 1)
  const alpha = list.items[0]
  t.equal(alpha.id, 'alpha-session')
  t.equal(alpha.kind, 'session')
  t.equal(alpha.messageCount, 24, 'four exchanges of six messages')
  t.equal(alpha.windowMessages, 6)
  t.ok(alpha.windowTokens > 0)
  t.same(alpha.windowLimit, { messages: 6, tokens: 16000 })
  t.ok(alpha.summaryVersion >= 1, 'the worker wrote a summary')
  t.ok(alpha.summaryTokens > 0)
  t.equal(alpha.checkpoints, 0)
  t.equal(alpha.updateFailures, 0)
  t.ok(Date.parse(alpha.lastActivity) > Date.now() - 60_000)

  const beta = (await app.inject({ method: 'GET', url: '/sessions?q=beta' })).json().items[0]
  t.equal(beta.kind, 'series')
  t.equal(beta.checkpoints, 2)
  t.ok(beta.tokensSaved > 0)
  t.equal(beta.messageCount, 0)
  t.equal(beta.windowLimit, null)

  // Sorted by checkpoints, descending: the series first.
  res = await app.inject({ method: 'GET', url: '/sessions?sort=checkpoints&limit=1' })
  t.equal(res.json().items[0].id, 'beta-series')
  // By id ascending, in pages of 10: every row once, in order, same total on each page.
  const seen: string[] = []
  let cursor: string | null = null
  let pages = 0
  do {
    res = await app.inject({ method: 'GET', url: `/sessions?sort=id&limit=10${cursor ? `&cursor=${cursor}` : ''}` })
    t.equal(res.statusCode, 200)
    const page = res.json()
    t.equal(page.total, 25)
    seen.push(...page.items.map((i: { id: string }) => i.id))
    cursor = page.nextCursor
    pages++
  } while (cursor)
  t.equal(pages, 3)
  t.same(seen, [...seen].sort(), 'ascending ids')
  t.equal(new Set(seen).size, 25)
  // By last activity, descending, paged: the same 25, newest first.
  const byActivity: { id: string; lastActivity: string }[] = []
  cursor = null
  do {
    const page: { items: { id: string; lastActivity: string }[]; nextCursor: string | null } = (await app.inject({ method: 'GET', url: `/sessions?limit=7${cursor ? `&cursor=${cursor}` : ''}` })).json()
    byActivity.push(...page.items)
    cursor = page.nextCursor
  } while (cursor)
  t.equal(new Set(byActivity.map((i) => i.id)).size, 25)
  for (let i = 1; i < byActivity.length; i++) t.ok(byActivity[i - 1]!.lastActivity >= byActivity[i]!.lastActivity, 'newest first')
  t.equal(byActivity.at(-1)!.id !== 'gamma-22', true)

  // A cursor of another sort, or garbage, is a 400.
  const idCursor = (await app.inject({ method: 'GET', url: '/sessions?sort=id&limit=1' })).json().nextCursor
  t.equal((await app.inject({ method: 'GET', url: `/sessions?sort=checkpoints&cursor=${idCursor}` })).statusCode, 400)
  t.equal((await app.inject({ method: 'GET', url: '/sessions?cursor=nonsense' })).json().error, 'invalid_cursor')
  t.equal((await app.inject({ method: 'GET', url: '/sessions?sort=bogus' })).statusCode, 400)

  // Checkpoints carry the compaction's budget, model, duration and summary size.
  const cps = (await app.inject({ method: 'GET', url: '/sessions/beta-series/checkpoints' })).json()
  t.equal(cps.items[0].targetTokens, 3000)
  t.equal(cps.items[0].model, 'gpt-4o')
  t.type(cps.items[0].durationMs, 'number')
  t.ok(cps.items[0].summaryTokens > 0)
})

t.test('another tenant sees none of it', async (t) => {
  const { app } = await buildTestApp(t)
  const a = await createApiKey(app.db, 'tenant-a')
  const b = await createApiKey(app.db, 'tenant-b')
  const as = (key: string) => ({ authorization: `Bearer ${key}` })
  await app.authOpenMode({ refresh: true })
  t.equal((await app.inject({ method: 'PUT', url: '/sessions/mine', headers: as(a.key), payload: {} })).statusCode, 201)
  await app.inject({ method: 'PUT', url: '/sessions/mine/summary', headers: as(a.key), payload: { content: '## Previously in This Session\n1. one\n' } })
  t.equal((await app.inject({ method: 'GET', url: '/sessions', headers: as(a.key) })).json().total, 1)
  t.same((await app.inject({ method: 'GET', url: '/sessions', headers: as(b.key) })).json(), { items: [], nextCursor: null, total: 0 })
  for (const url of ['/sessions/mine/summary/versions', '/sessions/mine/summary/versions/1', '/sessions/mine/messages']) {
    t.equal((await app.inject({ method: 'GET', url, headers: as(a.key) })).statusCode, 200, `${url}: the owner`)
    t.equal((await app.inject({ method: 'GET', url, headers: as(b.key) })).statusCode, 404, `${url}: another tenant`)
  }
  t.equal((await app.inject({ method: 'GET', url: '/sessions' })).statusCode, 401, 'keys exist: the list needs one')
  t.same((await app.inject({ method: 'GET', url: '/ui/config.json' })).json(), { keysRequired: true })
})

t.test('summary versions: newest first, paged, each with who wrote it; one version with its text', async (t) => {
  const { app } = await buildTestApp(t)
  await app.inject({ method: 'PUT', url: '/sessions/s1', payload: { windowMessages: 6, batchSize: 1 } })
  for (let i = 0; i < 3; i++) {
    await app.inject({ method: 'POST', url: '/sessions/s1/messages', payload: { messages: exchange(i) } })
    await app.summaryWorker.runOnce()
  }
  const current = (await app.inject({ method: 'GET', url: '/sessions/s1/summary' })).json()
  t.ok(current.version >= 1)
  let res = await app.inject({ method: 'PUT', url: '/sessions/s1/summary', payload: { baseVersion: current.version, content: `${current.content}\n- Decided by hand: keep one pool per process.\n` } })
  t.equal(res.statusCode, 200)
  const manual = res.json().version
  // The daily aging's update folds nothing: recorded as such in its run row.
  const tenantId = (await sql<{ id: string }>`select id from tenants where name = 'default'`.execute(app.db)).rows[0]!.id
  await sql`insert into session_summaries (tenant_id, session_id, version, content, tokens, source) values (${tenantId}, 's1', ${manual + 1}, 'aged text', 3, 'background')`.execute(app.db)
  await sql`insert into summary_update_runs (tenant_id, session_id, worker, finished_at, mode, from_version, to_version, folded_messages)
    values (${tenantId}, 's1', 'w', now(), 'rules', ${manual}, ${manual + 1}, 0)`.execute(app.db)

  const all: { version: number; writtenBy: string; mode: string | null; foldedMessages: number | null }[] = []
  let cursor: string | null = null
  do {
    res = await app.inject({ method: 'GET', url: `/sessions/s1/summary/versions?limit=2${cursor ? `&cursor=${cursor}` : ''}` })
    t.equal(res.statusCode, 200)
    all.push(...res.json().items)
    cursor = res.json().nextCursor
  } while (cursor)
  t.same(
    all.map((v) => v.version),
    Array.from({ length: manual + 1 }, (_, i) => manual + 1 - i),
    'every version, newest first',
  )
  t.equal(all[0]!.writtenBy, 'aging')
  t.equal(all[0]!.foldedMessages, 0)
  t.equal(all[1]!.writtenBy, 'manual')
  t.equal(all[1]!.mode, null)
  const background = all.at(-1)!
  t.equal(background.writtenBy, 'background')
  t.equal(background.mode, 'rules')
  t.ok(background.foldedMessages! > 0)

  res = await app.inject({ method: 'GET', url: `/sessions/s1/summary/versions/${manual}` })
  t.equal(res.statusCode, 200)
  t.match(res.json().content, /Decided by hand/)
  t.notMatch(res.json().text, /<!--/)
  t.equal((await app.inject({ method: 'GET', url: '/sessions/s1/summary/versions/999' })).statusCode, 404)
  t.equal((await app.inject({ method: 'GET', url: '/sessions/nope/summary/versions' })).statusCode, 404)
})

t.test('GET /sessions/:id/messages: the window with roles and tokens, paged oldest first', async (t) => {
  const { app } = await buildTestApp(t)
  await app.inject({ method: 'PUT', url: '/sessions/w', payload: { windowMessages: 6 } })
  await app.inject({ method: 'POST', url: '/sessions/w/messages', payload: { messages: [...exchange(0), ...exchange(1)] } })
  let res = await app.inject({ method: 'GET', url: '/sessions/w/messages?status=window' })
  t.equal(res.statusCode, 200)
  const page = res.json()
  t.equal(page.format, 'openai')
  t.equal(page.items.length, 6)
  t.same(
    page.items.map((m: { seq: number }) => m.seq),
    [7, 8, 9, 10, 11, 12],
  )
  t.ok(page.items.every((m: { tokens: number; status: string }) => m.tokens > 0 && m.status === 'window'))
  t.same(page.items[0].message, exchange(1)[0])
  const seqs: number[] = []
  let cursor: string | null = null
  do {
    res = await app.inject({ method: 'GET', url: `/sessions/w/messages?limit=5${cursor ? `&cursor=${cursor}` : ''}` })
    seqs.push(...res.json().items.map((m: { seq: number }) => m.seq))
    cursor = res.json().nextCursor
  } while (cursor)
  t.same(
    seqs,
    Array.from({ length: 12 }, (_, i) => i + 1),
  )
})

t.test('/ui: config.json says only whether keys are required; the page is public, under its own CSP, and has no inline script', async (t) => {
  const { app } = await buildTestApp(t)
  let res = await app.inject({ method: 'GET', url: '/ui/config.json' })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { keysRequired: false })
  t.equal(res.headers['content-security-policy'], UI_CSP)
  res = await app.inject({ method: 'GET', url: '/ui' })
  t.equal(res.statusCode, 302)
  t.equal(res.headers.location, '/ui/')
  res = await app.inject({ method: 'GET', url: '/ui/' })
  t.ok([200, 503].includes(res.statusCode))
  t.equal(res.headers['content-security-policy'], UI_CSP)
  if (res.statusCode === 200) {
    t.notMatch(res.body, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script')
    t.notMatch(res.body, /<style|style=/, 'no inline style')
  }
  t.notMatch(JSON.stringify(app.swagger()), /\/ui/, 'not in the API document')
})
