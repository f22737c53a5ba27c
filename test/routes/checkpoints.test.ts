/**
 * Session checkpoints on both backends: storage through POST /compact, round chaining,
 * gap-free numbering under concurrency, folding beyond COMPACTION_MAX_CHECKPOINTS,
 * pagination, statistics and tenant isolation. Plus the repository's fold on its own.
 */
import t from 'tap'
import { foldCheckpoints, insertCheckpoint, listCheckpoints, sessionStats, type Checkpoint, type CheckpointData } from '../../src/checkpoints/repository.ts'
import { ensureTenant, createApiKey } from '../../src/tenancy/api-keys.ts'
import { startFakeProvider } from '../fakes/fake-llm-provider.ts'
import { buildTestApp } from '../helpers/build.ts'
import { BACKENDS, createTestDatabase, POSTGRES_SKIP_REASON, postgresAvailable } from '../helpers/databases.ts'
import { migrateToLatest } from '../../src/db/migrate.ts'
import { prose } from '../helpers/prose.ts'

const pgOk = await postgresAvailable()

// ---------------------------------------------------------------------------
// A generated agent session (OpenAI format)


type Message = Record<string, unknown>

function toolPair(id: string, path: string, output: string): Message[] {
  return [
    { role: 'assistant', content: `Reading ${path}.`, tool_calls: [{ id, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path }) } }] },
    { role: 'tool', tool_call_id: id, content: output },
  ]
}

/** System, task, one early read of a file nothing else mentions, then `pairs` tool turns. */
function session(pairs = 20, outputChars = 3000, seed = 0): Message[] {
  const messages: Message[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Add a --due flag to the flashcard CLI in src/cli.ts and make npm test pass.' },
    ...toolPair('early', 'src/legacy/early.ts', `Error: legacy parser failed\n${prose(outputChars, 1)}`),
  ]
  const files = ['src/cli.ts', 'src/db/schema.ts', 'src/sm2.ts', 'src/review.ts']
  for (let k = 0; k < pairs; k++) messages.push(...toolPair(`call_${seed}_${k}`, files[k % files.length]!, prose(outputChars, seed * 1000 + k + 2)))
  messages.push({ role: 'assistant', content: 'The --due flag works.' }, { role: 'user', content: 'Now add a --limit option.' })
  return messages
}

interface CompactBody {
  compacted: boolean
  messages: Message[]
  event: { round: number; tokensBefore: number; tokensAfter: number; costUsd: number; compressionRatio: number }
  summary?: { text: string; index: number }
  checkpoint?: { sessionId: string; checkpointNum: number; folded?: { into: number; from: number[] } }
}

// ---------------------------------------------------------------------------

for (const backend of BACKENDS) {
  const skip = backend === 'postgres' && !pgOk ? POSTGRES_SKIP_REASON : false

  t.test(`${backend}: sessionId stores checkpoints; rounds chain across compactions`, { skip }, async (t) => {
    const { app } = await buildTestApp(t, { backend })
    const compactOnce = async (messages: Message[]) => {
      const res = await app.inject({ method: 'POST', url: '/compact', payload: { messages, targetTokens: 6000, sessionId: 'run-1' } })
      t.equal(res.statusCode, 200)
      return res.json() as CompactBody
    }

    const first = await compactOnce(session())
    t.equal(first.compacted, true)
    t.same(first.checkpoint, { sessionId: 'run-1', checkpointNum: 1 })
    t.equal(first.event.round, 1)
    t.ok(first.summary!.text.startsWith('## Session Summary (Compaction Round 1)'))

    const one = await app.inject({ method: 'GET', url: '/sessions/run-1/checkpoints/1' })
    t.equal(one.statusCode, 200)
    const cp = one.json()
    t.equal(cp.checkpointNum, 1)
    t.equal(cp.round, 1)
    t.equal(cp.strategy, 'rules')
    t.equal(cp.summary, first.summary!.text, 'the summary is stored')
    t.equal(cp.originalTokens, first.event.tokensBefore)
    t.equal(cp.compressedTokens, first.event.tokensAfter)
    t.equal(cp.compressionRatio, first.event.compressionRatio)
    t.equal(cp.summaryCostUsd, 0)
    t.equal(cp.fromMessageIndex, 2, 'compaction starts after the system prompt and task')
    t.ok(cp.toMessageIndex > cp.fromMessageIndex)
    t.ok(cp.messagesCompressed > 0)
    t.ok(Array.isArray(cp.keyFacts.relevantFiles) && cp.keyFacts.relevantFiles.includes('src/legacy/early.ts'), 'key facts are stored')
    t.equal(cp.foldedFrom, null)
    t.ok(!Number.isNaN(Date.parse(cp.createdAt)))

    // The agent carries on from the compacted conversation, then compacts again.
    const continued = [...first.messages]
    for (let k = 0; k < 16; k++) continued.push(...toolPair(`next_${k}`, `src/new/m${k}.ts`, prose(3000, 500 + k)))
    continued.push({ role: 'user', content: 'Keep going.' })
    const second = await compactOnce(continued)
    t.equal(second.event.round, 2, 'round 2')
    t.same(second.checkpoint, { sessionId: 'run-1', checkpointNum: 2 })
    t.ok(second.summary!.text.startsWith('## Session Summary (Compaction Round 2)'))
    t.match(second.summary!.text, /src\/legacy\/early\.ts/, 'the round-1 summary is integrated: its facts survive')
    const headers = second.messages.filter((m) => typeof m.content === 'string' && /Session Summary \(Compaction Round/.test(m.content as string))
    t.equal(headers.length, 1, 'one summary in the output: the old one was replaced')

    // A compaction of the same session without the summary in the input still numbers from the session.
    const third = await compactOnce(session(20, 3000, 7))
    t.equal(third.event.round, 3, "previousRound comes from the session's latest checkpoint")
    t.equal(third.checkpoint!.checkpointNum, 3)

    // Nothing is stored without a session, for a dry run, or when nothing was compacted.
    await app.inject({ method: 'POST', url: '/compact', payload: { messages: session(), targetTokens: 6000, sessionId: 'run-1', dryRun: true } })
    await app.inject({ method: 'POST', url: '/compact', payload: { messages: session(2, 200), sessionId: 'run-1' } })
    const list = await app.inject({ method: 'GET', url: '/sessions/run-1/checkpoints' })
    t.same(
      list.json().items.map((i: { checkpointNum: number }) => i.checkpointNum),
      [3, 2, 1],
      'newest first, nothing added by the dry run or the untouched call',
    )
  })

  t.test(`${backend}: 20 concurrent compactions of one session get numbers 1..20`, { skip }, async (t) => {
    // Room in the compute pool's queue for all 20 (the default, 16 waiting, sheds the rest
    // with a 503 overloaded: test/plugins/compute-pool.test.ts); this test is about the numbering.
    const { app } = await buildTestApp(t, { backend, config: { COMPACTION_MAX_CHECKPOINTS: 50, COMPUTE_QUEUE_MAX: 32 } })
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, k) => app.inject({ method: 'POST', url: '/compact', payload: { messages: session(12, 2000, k), targetTokens: 4000, sessionId: 'busy' } })),
    )
    t.same(
      responses.map((r) => r.statusCode),
      Array(20).fill(200),
      'no 500',
    )
    const nums = responses.map((r) => (r.json() as CompactBody).checkpoint!.checkpointNum).sort((a, b) => a - b)
    t.same(
      nums,
      Array.from({ length: 20 }, (_, k) => k + 1),
      'distinct and gap-free',
    )
    const stats = await app.inject({ method: 'GET', url: '/sessions/busy/stats' })
    t.equal(stats.json().checkpoints, 20)
  })

  t.test(`${backend}: concurrent inserts with folding keep numbers monotonic and every checkpoint accounted for`, { skip }, async (t) => {
    const database = await createTestDatabase(backend)
    t.teardown(() => database.close())
    await migrateToLatest(database.db)
    const tenantId = await ensureTenant(database.db, 'acme')
    const data = (k: number): CheckpointData => ({
      fromMessageIndex: k,
      toMessageIndex: k + 10,
      messagesCompressed: 10,
      summaryContent: `## Session Summary (Compaction Round ${k})\n\n### Errors & Resolutions\n- error ${k}`,
      keyFacts: { errors: [`error ${k}`], currentTask: 'x' },
      originalTokens: 1000 + k,
      compressedTokens: 100,
      compressionRatio: 10,
      summaryCostUsd: 0.001,
      strategy: 'rules',
      round: k,
    })
    const results = await Promise.all(Array.from({ length: 30 }, (_, k) => insertCheckpoint(database.db, tenantId, 'hot', data(k + 1), { maxCheckpoints: 5 })))
    t.same(
      results.map((r) => r.checkpoint.checkpointNum).sort((a, b) => a - b),
      Array.from({ length: 30 }, (_, k) => k + 1),
      'every insert got its own number',
    )
    const page = await listCheckpoints(database.db, tenantId, 'hot', { limit: 100 })
    t.equal(page.items.length, 5, 'five kept')
    t.same(
      page.items.map((c) => c.checkpointNum),
      [30, 29, 28, 27, 26],
      'the newest numbers survive',
    )
    const covered = page.items.flatMap((c) => c.foldedFrom ?? [c.checkpointNum]).sort((a, b) => a - b)
    t.same(
      covered,
      Array.from({ length: 30 }, (_, k) => k + 1),
      'each original checkpoint is in exactly one row',
    )
    const stats = await sessionStats(database.db, tenantId, 'hot')
    t.equal(stats.tokensSaved, Array.from({ length: 30 }, (_, k) => 1000 + k + 1 - 100).reduce((a, b) => a + b, 0), 'folding keeps the totals')
    t.ok(Math.abs(stats.totalSummaryCostUsd - 0.03) < 1e-9)
  })

  t.test(`${backend}: beyond COMPACTION_MAX_CHECKPOINTS the oldest are folded into a summary of summaries`, { skip }, async (t) => {
    const { app } = await buildTestApp(t, { backend, config: { COMPACTION_MAX_CHECKPOINTS: 3 } })
    const events: CompactBody[] = []
    for (let k = 0; k < 5; k++) {
      const res = await app.inject({ method: 'POST', url: '/compact', payload: { messages: session(14, 2500, k), targetTokens: 5000, sessionId: 'long' } })
      t.equal(res.statusCode, 200)
      events.push(res.json())
    }
    t.same(
      events.map((e) => e.checkpoint!.checkpointNum),
      [1, 2, 3, 4, 5],
    )
    t.same(
      events.map((e) => e.checkpoint!.folded ?? null),
      [null, null, null, { into: 2, from: [1, 2] }, { into: 3, from: [1, 2, 3] }],
      'the response says when a fold happened',
    )
    const list = (await app.inject({ method: 'GET', url: '/sessions/long/checkpoints' })).json()
    t.same(
      list.items.map((i: { checkpointNum: number }) => i.checkpointNum),
      [5, 4, 3],
      'three kept, numbers unchanged',
    )
    const folded = list.items[2]
    t.same(folded.foldedFrom, [1, 2, 3], 'the folded checkpoint lists what it stands for')
    t.equal(list.items[0].foldedFrom, null)
    t.ok(folded.summary.startsWith('## Session Summary (Compaction Round 3)'))
    t.match(folded.summary, /Folded from checkpoints 1, 2, 3/)
    t.equal(folded.originalTokens, events.slice(0, 3).reduce((a, e) => a + e.event.tokensBefore, 0), 'token totals summed')
    t.equal(folded.compressedTokens, events.slice(0, 3).reduce((a, e) => a + e.event.tokensAfter, 0))
    t.equal(folded.fromMessageIndex, 2, 'the lowest from index')
    t.ok(folded.keyFacts.relevantFiles.includes('src/legacy/early.ts'), 'key facts merged')

    const gone = await app.inject({ method: 'GET', url: '/sessions/long/checkpoints/1' })
    t.equal(gone.statusCode, 404)
    t.equal(gone.json().foldedInto, 3, 'a folded number says where it went')

    const stats = (await app.inject({ method: 'GET', url: '/sessions/long/stats' })).json()
    t.equal(stats.checkpoints, 3)
    t.equal(
      stats.tokensSaved,
      events.reduce((a, e) => a + e.event.tokensBefore - e.event.tokensAfter, 0),
      'tokens saved over all five compactions',
    )
  })

  t.test(`${backend}: pagination with an opaque cursor`, { skip }, async (t) => {
    const { app, database } = await buildTestApp(t, { backend, config: { COMPACTION_MAX_CHECKPOINTS: 50 } })
    const tenantId = (await database.db.selectFrom('tenants').select('id').where('name', '=', 'default').executeTakeFirstOrThrow()).id
    for (let k = 1; k <= 7; k++) {
      await insertCheckpoint(
        database.db,
        tenantId,
        'paged',
        { fromMessageIndex: 0, toMessageIndex: 1, messagesCompressed: 2, summaryContent: `s${k}`, keyFacts: null, originalTokens: 10, compressedTokens: 5, compressionRatio: 2, summaryCostUsd: 0, strategy: 'rules', round: k },
        { maxCheckpoints: 50 },
      )
    }
    const pages: number[][] = []
    let cursor: string | null = null
    do {
      const url: string = `/sessions/paged/checkpoints?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`
      const res = await app.inject({ method: 'GET', url })
      t.equal(res.statusCode, 200)
      pages.push(res.json().items.map((i: { checkpointNum: number }) => i.checkpointNum))
      cursor = res.json().nextCursor
      t.ok(cursor === null || !/\d+$/.test(cursor) || cursor !== String(pages.at(-1)!.at(-1)), 'the cursor is not a bare number')
    } while (cursor !== null && pages.length < 10)
    t.same(pages, [[7, 6, 5], [4, 3, 2], [1]])

    const bad = await app.inject({ method: 'GET', url: '/sessions/paged/checkpoints?cursor=not-a-cursor' })
    t.equal(bad.statusCode, 400)
    t.equal(bad.json().error, 'invalid_cursor')
    for (const limit of ['0', '101', 'x']) {
      const res = await app.inject({ method: 'GET', url: `/sessions/paged/checkpoints?limit=${limit}` })
      t.equal(res.statusCode, 400, `limit=${limit}`)
      t.equal(res.json().issues[0].path, 'querystring.limit')
    }
    const dflt = await app.inject({ method: 'GET', url: '/sessions/paged/checkpoints' })
    t.equal(dflt.json().items.length, 7)
    t.equal(dflt.json().nextCursor, null)

    t.equal((await app.inject({ method: 'GET', url: '/sessions/nobody/checkpoints' })).statusCode, 404)
    t.equal((await app.inject({ method: 'GET', url: '/sessions/paged/checkpoints/99' })).statusCode, 404)
    t.equal((await app.inject({ method: 'GET', url: '/sessions/paged/checkpoints/0' })).statusCode, 400)
    t.equal((await app.inject({ method: 'GET', url: '/sessions/bad%20id/stats' })).statusCode, 400)
  })

  t.test(`${backend}: stats are the sums of the checkpoints`, { skip }, async (t) => {
    const fake = await startFakeProvider({ apiKey: 'sk-fake-stats-0123456789' })
    t.teardown(() => fake.close())
    const { app } = await buildTestApp(t, {
      backend,
      config: { OPENAI_API_KEY: fake.apiKey, OPENAI_BASE_URL: fake.openaiBaseURL, SUMMARIZER_OPENAI_MODELS: ['gpt-4o-mini'], PROVIDER_MAX_RETRIES: 0, PROVIDER_TIMEOUT_MS: 2000 },
    })
    const events: CompactBody[] = []
    for (const strategy of [['llm'], ['mask', 'rules'], ['llm']]) {
      const res = await app.inject({ method: 'POST', url: '/compact', payload: { messages: session(16, 2500, events.length), targetTokens: 5000, strategy, sessionId: 'costly' } })
      t.equal(res.statusCode, 200)
      events.push(res.json())
    }
    t.ok(events[0]!.event.costUsd > 0, 'llm compactions cost something')
    const stats = (await app.inject({ method: 'GET', url: '/sessions/costly/stats' })).json()
    const before = events.reduce((a, e) => a + e.event.tokensBefore, 0)
    const after = events.reduce((a, e) => a + e.event.tokensAfter, 0)
    t.equal(stats.sessionId, 'costly')
    t.equal(stats.checkpoints, 3)
    t.equal(stats.tokensSaved, before - after)
    t.ok(Math.abs(stats.totalSummaryCostUsd - events.reduce((a, e) => a + e.event.costUsd, 0)) < 1e-12, `cost ${stats.totalSummaryCostUsd}`)
    t.equal(stats.averageCompressionRatio, Math.round((before / after) * 100) / 100)
    t.equal(stats.totalOriginalTokens, before)
    t.equal(stats.totalCompressedTokens, after)
  })

  t.test(`${backend}: another tenant's session is a 404`, { skip }, async (t) => {
    const { app } = await buildTestApp(t, { backend })
    const a = await createApiKey(app.db, 'tenant-a')
    const b = await createApiKey(app.db, 'tenant-b')
    await app.authOpenMode({ refresh: true })
    const as = (key: string) => ({ authorization: `Bearer ${key}` })

    const anonymous = await app.inject({ method: 'POST', url: '/compact', payload: { messages: session(), targetTokens: 6000, sessionId: 'shared' } })
    t.equal(anonymous.statusCode, 401, 'keys exist: open mode is over')

    const mine = await app.inject({ method: 'POST', url: '/compact', headers: as(a.key), payload: { messages: session(), targetTokens: 6000, sessionId: 'shared' } })
    t.equal(mine.statusCode, 200)
    t.equal(mine.json().checkpoint.checkpointNum, 1)

    for (const url of ['/sessions/shared/checkpoints', '/sessions/shared/checkpoints/1', '/sessions/shared/stats']) {
      const theirs = await app.inject({ method: 'GET', url, headers: as(b.key) })
      t.equal(theirs.statusCode, 404, `tenant b: ${url} is a 404`)
      t.equal(theirs.json().error, 'not_found')
      const own = await app.inject({ method: 'GET', url, headers: as(a.key) })
      t.equal(own.statusCode, 200, `tenant a: ${url}`)
    }

    // The same session id under tenant b is b's own session, numbered from 1.
    const other = await app.inject({ method: 'POST', url: '/compact', headers: as(b.key), payload: { messages: session(20, 3000, 3), targetTokens: 6000, sessionId: 'shared' } })
    t.equal(other.json().checkpoint.checkpointNum, 1)
    t.equal(other.json().event.round, 1, "b's rounds do not continue a's")
    const aList = (await app.inject({ method: 'GET', url: '/sessions/shared/checkpoints', headers: as(a.key) })).json()
    t.equal(aList.items.length, 1, "a sees only its own checkpoint")
    t.equal(aList.items[0].summary, mine.json().summary.text)
  })
}

// ---------------------------------------------------------------------------
// The fold itself (pure)

function checkpoint(num: number, summary: string, extra: Partial<Checkpoint> = {}): Checkpoint {
  return {
    id: `id-${num}`,
    sessionId: 's',
    checkpointNum: num,
    createdAt: new Date(0),
    foldedFrom: null,
    fromMessageIndex: 10 - num,
    toMessageIndex: 20 + num,
    messagesCompressed: 5,
    summaryContent: summary,
    keyFacts: { currentTask: `task ${num}`, relevantFiles: [`src/f${num}.ts`, 'src/common.ts'], errors: [] },
    originalTokens: 1000,
    compressedTokens: 200,
    compressionRatio: 5,
    summaryCostUsd: 0.25,
    strategy: 'rules',
    round: num,
    ...extra,
  }
}

const summary = (round: number, file: string, decision: string, error: string) =>
  [
    `## Session Summary (Compaction Round ${round})`,
    '',
    '### Original Task',
    'Build the CLI.',
    '',
    '### Completed Work',
    '| File | Action | Description |',
    '|---|---|---|',
    `| ${file} | modified | |`,
    '',
    '### Key Technical Decisions',
    `- ${decision}`,
    '',
    '### Current State',
    `- Working on: round ${round}`,
    '',
    '### Errors & Resolutions',
    `- ${error}`,
  ].join('\n')

t.test('foldCheckpoints: newest summary as the base, older rows and bullets appended, totals summed', async (t) => {
  const rows = [
    checkpoint(1, summary(1, 'src/a.ts', 'Use SQLite.', 'npm test: TypeError in src/a.ts')),
    checkpoint(2, summary(2, 'src/b.ts', 'Use SQLite.', 'tsc: TS2345 in src/b.ts'), { foldedFrom: null }),
    checkpoint(3, summary(3, 'src/c.ts', 'Keep the CLI output short.', 'None.'.replace('None.', 'lint failed in src/c.ts'))),
  ]
  const { data, foldedFrom } = foldCheckpoints(rows)
  t.same(foldedFrom, [1, 2, 3])
  t.ok(data.summaryContent.startsWith('## Session Summary (Compaction Round 3)\n_Folded from checkpoints 1, 2, 3._'))
  t.match(data.summaryContent, /Working on: round 3/, "the newest summary's state")
  t.notMatch(data.summaryContent, /Working on: round 1/)
  for (const file of ['src/a.ts', 'src/b.ts', 'src/c.ts']) t.match(data.summaryContent, new RegExp(`\\| ${file} \\| modified`), `${file} row`)
  t.equal(data.summaryContent.match(/Use SQLite\./g)!.length, 1, 'duplicate decisions once')
  t.match(data.summaryContent, /TypeError in src\/a\.ts/)
  t.match(data.summaryContent, /TS2345 in src\/b\.ts/)
  t.equal(data.originalTokens, 3000)
  t.equal(data.compressedTokens, 600)
  t.equal(data.compressionRatio, 5)
  t.equal(data.summaryCostUsd, 0.75)
  t.equal(data.messagesCompressed, 15)
  t.equal(data.fromMessageIndex, 7, 'lowest from index')
  t.equal(data.toMessageIndex, 23, "the newest one's to index")
  t.equal(data.round, 3)
  t.same(data.keyFacts, { currentTask: 'task 3', relevantFiles: ['src/f1.ts', 'src/common.ts', 'src/f2.ts', 'src/f3.ts'], errors: [] })

  // Folding a fold flattens foldedFrom and does not repeat the note.
  const again = foldCheckpoints([{ ...checkpoint(3, data.summaryContent), foldedFrom: [1, 2, 3] }, checkpoint(4, summary(4, 'src/d.ts', 'x', 'y'))])
  t.same(again.foldedFrom, [1, 2, 3, 4])
  t.equal(again.data.summaryContent.match(/_Folded from/g)!.length, 1)
  t.match(again.data.summaryContent, /src\/a\.ts/)

  // A base whose Completed Work is bullets (a model's summary) gets the older rows as a table after them.
  const llmBase = '## Session Summary (Compaction Round 2)\n\n### Original Task\nBuild the CLI.\n\n### Completed Work\n- Worked on `src/b.ts`\n\n### Current State\n- testing'
  const mixed = foldCheckpoints([checkpoint(1, summary(1, 'src/a.ts', 'Use SQLite.', 'e1')), checkpoint(2, llmBase)]).data.summaryContent
  t.match(mixed, /### Completed Work\n- Worked on `src\/b\.ts`\n\n\| File \| Action \| Description \|\n\|---\|---\|---\|\n\| src\/a\.ts \| modified \| \|\n\n### Current State/)
  t.match(mixed, /### Key Technical Decisions\n- Use SQLite\.\n\n### Errors & Resolutions\n- e1$/, 'sections the base lacks are added at the end')

  // Empty (mask-only) summaries are skipped; all empty stays empty.
  t.equal(foldCheckpoints([checkpoint(1, ''), checkpoint(2, '')]).data.summaryContent, '')
  t.ok(foldCheckpoints([checkpoint(1, summary(1, 'src/a.ts', 'd', 'e')), checkpoint(2, '')]).data.summaryContent.startsWith('## Session Summary (Compaction Round 1)'))
})
