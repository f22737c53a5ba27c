/**
 * The archive end to end over HTTP, on PostgreSQL and PGlite (one code path): what a
 * stored compaction drops is archived once, searchable and read back by the reference the
 * output prints; tenants are isolated; a dry run, a failed checkpoint and a full quota
 * archive nothing (the last one says so); retention hides and sweeps old rows; DELETE
 * /sessions/:id deletes the archive; huge outputs read by lines and grep; secrets never
 * reach the archive or its index; at-rest encryption round-trips.
 */
import { sql } from 'kysely'
import t from 'tap'
import { archiveUsage, sweepExpired } from '../../src/archive/repository.ts'
import { createApiKey } from '../../src/tenancy/api-keys.ts'
import { buildTestApp } from '../helpers/build.ts'
import { BACKENDS, POSTGRES_SKIP_REASON, postgresAvailable } from '../helpers/databases.ts'
import { prose } from '../helpers/prose.ts'

const pgOk = await postgresAvailable()

type Message = Record<string, unknown>

/** A secret of a shape every rule set knows (an OpenAI project key). */
const SECRET = 'sk-proj-' + 'Zq7v'.repeat(12)
/** A fact only one early tool output holds. */
const FACT = 'The Chroma batch path retries RateLimitError with exponential backoff capped at 32 seconds'

function toolPair(id: string, name: string, args: Record<string, unknown>, output: string): Message[] {
  return [
    { role: 'assistant', content: `Running ${name}.`, tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] },
    { role: 'tool', tool_call_id: id, content: output },
  ]
}

/** A session whose early outputs hold FACT, a secret, and a 3,000-line log. */
function session(pairs = 16, seed = 0): Message[] {
  const hugeLog = Array.from({ length: 3000 }, (_, i) => `line ${i + 1}: ${i === 2041 ? 'ERROR shard 7 lost quorum (term 19)' : `ok request ${seed}-${i}`}`).join('\n')
  const messages: Message[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Make the vector store ingestion robust, then add a --limit option.' },
    ...toolPair(`read_${seed}`, 'read_file', { path: 'src/vectorstores/chroma_store.py' }, `def _add_batch(self, batch):\n    # ${FACT}.\n${prose(2500, seed + 1)}`),
    ...toolPair(`env_${seed}`, 'bash', { command: 'cat .env' }, `DATABASE_URL=postgres://app@db/app\nOPENAI_API_KEY=${SECRET}\n${prose(1500, seed + 2)}`),
    ...toolPair(`log_${seed}`, 'bash', { command: 'cat logs/cluster.log' }, hugeLog),
  ]
  for (let k = 0; k < pairs; k++) messages.push(...toolPair(`call_${seed}_${k}`, 'read_file', { path: `src/module_${k % 5}.py` }, prose(3000, seed * 100 + k + 3)))
  messages.push({ role: 'assistant', content: 'Ingestion is robust now.' }, { role: 'user', content: 'Now add a --limit option.' })
  return messages
}

// Every compaction here gives keepRecent, so the plan summarises all but the last ten
// messages (the default window would give way at this target and keep the middle's calls
// condensed, out of the archive): what is dropped is what these tests search and read.
for (const backend of BACKENDS) {
  const skip = backend === 'postgres' && !pgOk ? POSTGRES_SKIP_REASON : false

  t.test(`${backend}: what a stored compaction drops is archived once, found, and read back`, { skip }, async (t) => {
    const { app } = await buildTestApp(t, { backend })
    const messages = session()
    const first = await app.inject({ method: 'POST', url: '/compact', payload: { messages, targetTokens: 3000, keepRecent: 10, sessionId: 'run-1' } })
    t.equal(first.statusCode, 200)
    const body = first.json()
    t.equal(body.archive.status, 'archived')
    t.ok(body.archive.archived > 20, `archived ${body.archive.archived}`)
    t.equal(body.archive.deduplicated, 0)
    t.ok(body.archive.redactions >= 1, 'the .env key was redacted')
    t.match(body.summary.text.split('\n')[1], /Originals archived: search_context/, 'the summary says once how to search')
    t.equal(body.summary.text.split('search_context(query)').length, 2, 'once')

    // Dedupe: the same history again archives nothing new.
    const again = await app.inject({ method: 'POST', url: '/compact', payload: { messages, targetTokens: 3000, keepRecent: 10, sessionId: 'run-1' } })
    t.equal(again.json().archive.archived, 0, 'a resent history is archived once')
    t.equal(again.json().archive.deduplicated, body.archive.archived)
    t.equal(again.json().archive.usedBytes, body.archive.usedBytes, 'usage did not grow')

    // Search in the agent's words: no match needed on every word.
    const found = await app.inject({ method: 'GET', url: `/sessions/run-1/search?q=${encodeURIComponent('how does the Chroma batch path handle rate limits')}` })
    t.equal(found.statusCode, 200)
    const hits = found.json().hits
    t.ok(hits.length >= 1 && hits.length <= 5, 'default limit 5')
    t.match(hits[0].snippet, /exponential backoff/, 'the best hit is the output that says it')
    t.equal(hits[0].toolName, 'read_file')
    t.equal(hits[0].checkpointNum, 1)
    t.ok(hits[0].snippet.length >= 300 && hits[0].snippet.length <= 800, `snippet ${hits[0].snippet.length} chars`)

    // Identifiers match whole and by their parts, in any case.
    for (const q of ['chroma_store.py', 'CHROMA', 'vectorstores', 'src/vectorstores/chroma_store.py', 'ratelimiterror']) {
      const r = (await app.inject({ method: 'GET', url: `/sessions/run-1/search?q=${encodeURIComponent(q)}` })).json()
      t.ok(r.hits.some((h: { snippet: string; role: string }) => /chroma/i.test(h.snippet)), `${q} finds the chroma output`)
    }

    // Read back: the caller's bytes (secrets aside), in its format or another.
    const read = (await app.inject({ method: 'GET', url: `/sessions/run-1/archive/${hits[0].ref}` })).json()
    t.same(read.messages, [messages[3]], 'the original tool message, as sent')
    const asAnthropic = (await app.inject({ method: 'GET', url: `/sessions/run-1/archive/${hits[0].ref}?format=anthropic` })).json()
    t.equal(asAnthropic.format, 'anthropic')
    t.match(JSON.stringify(asAnthropic.messages), /tool_result/)

    // An assistant message with tool calls comes with its results.
    const call = (await app.inject({ method: 'GET', url: `/sessions/run-1/search?q=${encodeURIComponent('cat logs/cluster.log')}&limit=10` })).json()
    const assistantHit = call.hits.find((h: { role: string }) => h.role === 'assistant')
    t.ok(assistantHit, 'the call is archived too')
    const pair = (await app.inject({ method: 'GET', url: `/sessions/run-1/archive/${assistantHit.ref}` })).json()
    t.equal(pair.messages.length, 2, 'call and result')
    t.equal(pair.messages[1].role, 'tool')

    // The placeholders and log lines name references that resolve.
    const refs = [...JSON.stringify(body.messages).matchAll(/\[ref ([0-9a-z]{8})\]/g)].map((m) => m[1]!)
    t.ok(refs.length >= 3, `${refs.length} references in the output`)
    for (const ref of new Set(refs)) {
      const r = await app.inject({ method: 'GET', url: `/sessions/run-1/archive/${ref}` })
      t.equal(r.statusCode, 200, `ref ${ref} resolves`)
    }

    // A huge output in pieces: lines and grep.
    const log = (await app.inject({ method: 'GET', url: `/sessions/run-1/search?q=${encodeURIComponent('quorum shard')}` })).json().hits[0]
    t.match(log.snippet, /lost quorum/)
    const range = (await app.inject({ method: 'GET', url: `/sessions/run-1/archive/${log.ref}?lines=2040-2043` })).json()
    t.equal(range.totalLines, 3000)
    t.equal(range.text, ['2040\tline 2040: ok request 0-2039', '2041\tline 2041: ok request 0-2040', '2042\tline 2042: ERROR shard 7 lost quorum (term 19)', '2043\tline 2043: ok request 0-2042'].join('\n'))
    t.notOk(range.messages, 'lines= returns only the lines')
    const grep = (await app.inject({ method: 'GET', url: `/sessions/run-1/archive/${log.ref}?grep=QUORUM&context=1` })).json()
    t.equal(grep.matchedLines, 1)
    t.equal(grep.text.split('\n').length, 3, 'the match and one line either side')
    const whole = (await app.inject({ method: 'GET', url: `/sessions/run-1/archive/${log.ref}?lines=1-3000` })).json()
    t.equal(whole.truncated, true, 'the whole 3,000 lines are over 64 KB: cut, and said so')
    t.ok(Buffer.byteLength(whole.text) <= 64 * 1024 && whole.text.startsWith('1\tline 1:'), 'from the first line, within 64 KB')
    const bad = await app.inject({ method: 'GET', url: `/sessions/run-1/archive/${log.ref}?lines=5000-5001` })
    t.equal(bad.statusCode, 400)
    t.equal(bad.json().issues[0].path, 'querystring.lines')
    const badRef = await app.inject({ method: 'GET', url: '/sessions/run-1/archive/not-a-ref!' })
    t.equal(badRef.statusCode, 400)
    t.equal(badRef.json().issues[0].path, 'params.ref')
    const noQ = await app.inject({ method: 'GET', url: '/sessions/run-1/search?q=' })
    t.equal(noQ.statusCode, 400)
    t.match(JSON.stringify(noQ.json()), /q/)
    const tooMany = await app.inject({ method: 'GET', url: '/sessions/run-1/search?q=chroma&limit=51' })
    t.equal(tooMany.statusCode, 400)
    t.equal((await app.inject({ method: 'GET', url: '/sessions/run-1/archive/7hq2k9xa' })).statusCode, 404, 'an unknown reference')
    t.equal((await app.inject({ method: 'GET', url: '/sessions/nobody/search?q=chroma' })).statusCode, 404, 'an unknown session')
  })

  t.test(`${backend}: secrets reach neither the archive nor its index`, { skip }, async (t) => {
    const { app } = await buildTestApp(t, { backend })
    await app.inject({ method: 'POST', url: '/compact', payload: { messages: session(), targetTokens: 3000, keepRecent: 10, sessionId: 'secrets' } })
    // The search indexes whatever is not indexed yet, then reads.
    const r = (await app.inject({ method: 'GET', url: `/sessions/secrets/search?q=${encodeURIComponent('OPENAI_API_KEY env')}` })).json()
    t.ok(r.hits.length >= 1)
    t.notOk(r.pending, 'everything archived is searchable')
    const unindexed = await sql<{ n: number }>`select count(*)::int as n from archived_messages where not indexed`.execute(app.db)
    t.equal(unindexed.rows[0]!.n, 0)
    const raw = await sql<{ n: number }>`select count(*)::int as n from archived_messages where raw like ${'%' + SECRET.slice(0, 20) + '%'}`.execute(app.db)
    t.equal(raw.rows[0]!.n, 0, 'not in the stored bytes')
    const chunks = await sql<{ n: number }>`select count(*)::int as n from archive_chunks`.execute(app.db)
    t.ok(chunks.rows[0]!.n > 20, 'the index is there')
    const body = await sql<{ n: number }>`select count(*)::int as n from archive_chunks where body like ${'%' + SECRET.slice(0, 20) + '%'} or tsv::text like ${'%' + SECRET.slice(3, 20).toLowerCase() + '%'}`.execute(app.db)
    t.equal(body.rows[0]!.n, 0, 'not in the index')
    const redacted = await sql<{ n: number }>`select count(*)::int as n from archived_messages where raw like '%[REDACTED:%'`.execute(app.db)
    t.ok(redacted.rows[0]!.n >= 1, 'the redaction marker is stored in its place')
    t.notMatch(JSON.stringify(r), SECRET.slice(0, 20), 'search never returns it')
  })

  t.test(`${backend}: a dry run and a failed checkpoint archive nothing`, { skip }, async (t) => {
    const { app } = await buildTestApp(t, { backend })
    const dry = await app.inject({ method: 'POST', url: '/compact', payload: { messages: session(), targetTokens: 3000, keepRecent: 10, sessionId: 'dry', dryRun: true } })
    t.equal(dry.statusCode, 200)
    t.notOk(dry.json().archive, 'no archive report on a dry run')
    t.notMatch(JSON.stringify(dry.json().messages), /\[ref /, 'no references')
    const count = async () => Number((await sql<{ n: string }>`select count(*) as n from archived_messages`.execute(app.db)).rows[0]!.n)
    t.equal(await count(), 0)

    // The checkpoint insert fails after the archive rows are written: both roll back.
    await sql`create function fail_checkpoint() returns trigger language plpgsql as $$ begin raise exception 'checkpoint refused'; end $$`.execute(app.db)
    await sql`create trigger fail_checkpoint after insert on archive_usage for each row execute function fail_checkpoint()`.execute(app.db)
    const failed = await app.inject({ method: 'POST', url: '/compact', payload: { messages: session(), targetTokens: 3000, keepRecent: 10, sessionId: 'tx' } })
    t.equal(failed.statusCode, 500)
    t.equal(await count(), 0, 'no archive rows')
    t.equal(Number((await sql<{ n: string }>`select count(*) as n from checkpoint_summaries`.execute(app.db)).rows[0]!.n), 0, 'no checkpoint')
    t.equal(Number((await sql<{ n: string }>`select count(*) as n from archive_chunks`.execute(app.db)).rows[0]!.n), 0, 'no index rows')
  })

  t.test(`${backend}: the quota is reported, never silent; retention hides and sweeps; DELETE removes the archive`, { skip }, async (t) => {
    const { app } = await buildTestApp(t, { backend, config: { ARCHIVE_QUOTA_BYTES: 50_000 } })
    const first = (await app.inject({ method: 'POST', url: '/compact', payload: { messages: session(), targetTokens: 3000, keepRecent: 10, sessionId: 'q1' } })).json()
    t.equal(first.archive.status, 'archived', 'under the quota when it started')
    t.ok(first.archive.usedBytes > 50_000)
    const second = (await app.inject({ method: 'POST', url: '/compact', payload: { messages: session(16, 1), targetTokens: 3000, keepRecent: 10, sessionId: 'q2' } })).json()
    t.equal(second.archive.status, 'over_quota')
    t.equal(second.archive.archived, 0)
    t.match(second.archive.reason, /ARCHIVE_QUOTA_BYTES/)
    t.notMatch(JSON.stringify(second.messages), /\[ref /, 'no references to what was not archived')
    t.ok(second.checkpoint, 'the compaction itself is stored')

    // Retention: rows past it are not found, then swept (usage released).
    await sql`update archived_messages set created_at = now() - interval '40 days' where session_id = 'q1'`.execute(app.db)
    const old = (await app.inject({ method: 'GET', url: `/sessions/q1/search?q=${encodeURIComponent('Chroma batch')}` })).json()
    t.equal(old.hits.length, 0, 'expired rows are not found')
    const tenant = (await sql<{ tenant_id: string }>`select tenant_id from archive_usage limit 1`.execute(app.db)).rows[0]!.tenant_id
    t.ok(await sweepExpired(app.db, tenant, 30) > 20, 'swept')
    t.equal((await archiveUsage(app.db, tenant)).bytes, 0, 'usage released')

    // DELETE /sessions/:id deletes the archive (a /compact session has no sessions row).
    const q3 = (await app.inject({ method: 'POST', url: '/compact', payload: { messages: session(16, 2), targetTokens: 3000, keepRecent: 10, sessionId: 'q3' } })).json()
    t.equal(q3.archive.status, 'archived')
    t.equal((await app.inject({ method: 'DELETE', url: '/sessions/q3' })).statusCode, 204)
    t.equal((await app.inject({ method: 'GET', url: '/sessions/q3/search?q=chroma' })).statusCode, 404)
    t.equal((await archiveUsage(app.db, tenant)).bytes, 0)
  })

  t.test(`${backend}: another tenant's archive is a 404`, { skip }, async (t) => {
    const { app } = await buildTestApp(t, { backend })
    const a = await createApiKey(app.db, 'tenant-a')
    const b = await createApiKey(app.db, 'tenant-b')
    await app.authOpenMode({ refresh: true })
    const as = (key: string) => ({ authorization: `Bearer ${key}` })
    const mine = (await app.inject({ method: 'POST', url: '/compact', headers: as(a.key), payload: { messages: session(), targetTokens: 3000, keepRecent: 10, sessionId: 'shared' } })).json()
    const ref = /\[ref ([0-9a-z]{8})\]/.exec(JSON.stringify(mine.messages))![1]
    t.equal((await app.inject({ method: 'GET', url: '/sessions/shared/search?q=chroma', headers: as(b.key) })).statusCode, 404)
    t.equal((await app.inject({ method: 'GET', url: `/sessions/shared/archive/${ref}`, headers: as(b.key) })).statusCode, 404)
    t.equal((await app.inject({ method: 'GET', url: `/sessions/shared/archive/${ref}`, headers: as(a.key) })).statusCode, 200)
    // b's own session of the same id holds only b's messages.
    await app.inject({ method: 'POST', url: '/compact', headers: as(b.key), payload: { messages: session(16, 5), targetTokens: 3000, keepRecent: 10, sessionId: 'shared' } })
    const theirs = (await app.inject({ method: 'GET', url: '/sessions/shared/search?q=chroma&limit=50', headers: as(b.key) })).json()
    t.notOk(theirs.hits.some((h: { ref: string }) => h.ref === ref), "a's message is not in b's results")
  })
}

t.test("a second round over the first one's output archives its new messages, never the placeholders the first one wrote", async (t) => {
  const { app, database } = await buildTestApp(t)
  const first = (await app.inject({ method: 'POST', url: '/compact', payload: { messages: session(), targetTokens: 3000, keepRecent: 10, sessionId: 'rounds' } })).json()
  t.equal(first.archive.status, 'archived')
  const masked = (first.messages as Message[]).filter((m) => typeof m.content === 'string' && m.content.startsWith('[output masked by compactd]'))
  t.ok(masked.length >= 1, `the first round's output holds placeholders (${masked.length})`)
  // The agent goes on from the compacted history, and it is compacted again.
  const next = [...(first.messages as Message[]), ...session(12, 1).slice(2)]
  const second = (await app.inject({ method: 'POST', url: '/compact', payload: { messages: next, targetTokens: 3000, keepRecent: 10, sessionId: 'rounds' } })).json()
  t.equal(second.archive.status, 'archived')
  t.ok(second.archive.archived >= 1, `the new messages are archived (${second.archive.archived})`)
  const placeholders = await sql<{ n: number }>`select count(*)::integer as n from archived_messages where session_id = 'rounds' and raw like ${'%[output masked by compactd]%'} and role = 'tool'`.execute(database.db)
  t.equal(placeholders.rows[0]!.n, 0, 'no placeholder is archived as if it were an original')
  // Every reference the second round prints resolves: none names a placeholder left out.
  for (const ref of new Set([...JSON.stringify(second.messages).matchAll(/\[ref ([0-9a-z]{8})\]/g)].map((m) => m[1]!))) {
    t.equal((await app.inject({ method: 'GET', url: `/sessions/rounds/archive/${ref}` })).statusCode, 200, `ref ${ref} resolves`)
  }
  const hits = (await app.inject({ method: 'GET', url: `/sessions/rounds/search?q=${encodeURIComponent('how does the Chroma batch path handle rate limits')}` })).json().hits
  t.match(hits[0].snippet, /exponential backoff/, "the original output is still the best hit")
  t.equal(hits[0].checkpointNum, 1)
})

t.test('at-rest encryption: the stored bytes are ciphertext, search and read still work', async (t) => {
  const { app } = await buildTestApp(t, { config: { ARCHIVE_ENCRYPTION_KEY: 'a'.repeat(64) } })
  await app.inject({ method: 'POST', url: '/compact', payload: { messages: session(), targetTokens: 3000, keepRecent: 10, sessionId: 'enc' } })
  const rows = await sql<{ raw: string; encrypted: boolean }>`select raw, encrypted from archived_messages`.execute(app.db)
  t.ok(rows.rows.length > 0 && rows.rows.every((r) => r.encrypted && r.raw.startsWith('v1:') && !r.raw.includes('Chroma')), 'ciphertext only')
  const bodies = await sql<{ n: number }>`select count(*)::int as n from archive_chunks where body is not null`.execute(app.db)
  t.equal(bodies.rows[0]!.n, 0, 'the index keeps lexemes, no text')
  const hit = (await app.inject({ method: 'GET', url: `/sessions/enc/search?q=${encodeURIComponent('Chroma batch rate limits')}` })).json().hits[0]
  t.match(hit.snippet, /exponential backoff/, 'the snippet is cut from the decrypted message')
  const read = (await app.inject({ method: 'GET', url: `/sessions/enc/archive/${hit.ref}` })).json()
  t.match(read.messages[0].content, /capped at 32 seconds/)
})

t.test('NUL in a tool name or a call id is stored and read back, not a 500', async (t) => {
  const { app } = await buildTestApp(t)
  const messages = session(16, 7).map((m) =>
    m.role === 'assistant' && Array.isArray(m.tool_calls)
      ? { ...m, tool_calls: (m.tool_calls as { id: string; function: { name: string; arguments: string } }[]).map((c) => ({ ...c, id: `${c.id}\u0000x`, function: { ...c.function, name: `${c.function.name}\u0000` } })) }
      : m.role === 'tool'
        ? { ...m, tool_call_id: `${m.tool_call_id as string}\u0000x` }
        : m,
  )
  const res = await app.inject({ method: 'POST', url: '/compact', payload: { messages, targetTokens: 3000, keepRecent: 10, sessionId: 'nul' } })
  t.equal(res.statusCode, 200, res.body.slice(0, 300))
  t.equal(res.json().archive.status, 'archived')
  const hit = (await app.inject({ method: 'GET', url: `/sessions/nul/search?q=${encodeURIComponent('cat logs/cluster.log')}&limit=10` })).json().hits.find((h: { role: string }) => h.role === 'assistant')
  t.equal(hit.toolName, 'bash\u0000', 'the name as sent')
  const pair = (await app.inject({ method: 'GET', url: `/sessions/nul/archive/${hit.ref}` })).json()
  t.equal(pair.messages.length, 2, 'paired by the call id, NUL and all')
  t.equal(pair.messages[1].tool_call_id, `log_7\u0000x`)
})
