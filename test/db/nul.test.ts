/**
 * Issue 10, defect 2: caller content holding U+0000 (tool output with binary bytes) is
 * stored and read back byte for byte on both backends: session messages, settings,
 * summaries (background and manual), stored idempotent responses, checkpoints. Before,
 * every background update failed on it ("invalid byte sequence for encoding UTF8: 0x00")
 * until the session gave up, and /compact with a sessionId answered 500.
 */
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import { decodeJson, decodeText, encodeJson, encodeText, sqlTextProblem } from '../../src/db/nul.ts'
import { messagesWithStatus } from '../../src/sessions/repository.ts'
import { buildTestApp } from '../helpers/build.ts'
import { BACKENDS, POSTGRES_SKIP_REASON, postgresAvailable } from '../helpers/databases.ts'

const pgOk = await postgresAvailable()

/** NUL, the escape character, a literal backslash-u0000 (six characters, not NUL), and neighbours. */
const TRICKY = 'a\u0000b \\u0000 \uFFFF0 \uFFFF\uFFFF \u0000\u0000 \\\u0000 end'
const BINARY = 'PNG\r\n\u001a\n\u0000\u0000\u0000\rIHDR\u0000\u0001\u0002\u00ff\uFFFE\uFFFF\u0000'

t.test('the NUL escape: reversible on any string, keys included; plain text stored as is', async (t) => {
  for (const s of ['', 'plain text', TRICKY, BINARY, '\u0000', '\uFFFF', '\uFFFF0', '\uFFFF\uFFFF0', '0\u0000\uFFFF', '\\u0000']) {
    const e = encodeText(s)
    t.notOk(e.includes('\u0000'), `${JSON.stringify(s)}: no NUL stored`)
    t.equal(decodeText(e), s, `${JSON.stringify(s)} round-trips`)
  }
  t.equal(encodeText('plain \\u0000 text'), 'plain \\u0000 text', 'text without NUL or U+FFFF is stored unchanged')
  const value = { [`k\u0000ey`]: [TRICKY, 1, null, true, { nested: BINARY, '\uFFFF': 'x' }], plain: 'y' }
  const stored = encodeJson(value)
  t.notOk(/(^|[^\\])(\\\\)*\\u0000/.test(stored), 'no JSON NUL escape left (only the escaped backslash of the literal)')
  t.same(decodeJson(JSON.parse(stored)), value, 'JSON values and keys round-trip')
  t.same(Object.keys(decodeJson(JSON.parse(stored)) as object), Object.keys(value), 'key order kept')
  const plain = { a: ['b', { c: 'd' }] }
  t.equal(encodeJson(plain), JSON.stringify(plain), 'JSON without NUL is stored unchanged')
  t.equal(decodeJson(plain), plain, 'and read back without copying')
})

async function post(app: FastifyInstance, url: string, payload: unknown, headers: Record<string, string> = {}) {
  const res = await app.inject({ method: 'POST', url, payload: payload as object, headers })
  if (res.statusCode !== 200) throw new Error(`POST ${url}: ${res.statusCode} ${res.body}`)
  return res
}

function turn(k: number): Record<string, unknown>[] {
  return [
    { role: 'user', content: `Read the dump ${k}: ${TRICKY}` },
    { role: 'assistant', content: null, tool_calls: [{ id: `c${k}`, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command: `xxd dump${k}.bin # ${TRICKY}` }) } }] },
    { role: 'tool', tool_call_id: `c${k}`, content: `${BINARY} (dump ${k})` },
    { role: 'assistant', content: `Dump ${k} starts with a PNG header: ${TRICKY}` },
  ]
}

for (const backend of BACKENDS) {
  const skip = backend === 'postgres' && !pgOk ? POSTGRES_SKIP_REASON : false

  t.test(`${backend}: a session holding NUL: stored, summarised, read back byte for byte`, { skip }, async (t) => {
    const { app } = await buildTestApp(t, { backend, config: { WORKERS: 0 } })
    const put = await app.inject({ method: 'PUT', url: '/sessions/n', payload: { windowMessages: 4, batchSize: 1, system: `You are an agent. ${TRICKY}` } })
    t.equal(put.statusCode, 201, 'PUT creates the session, its settings holding NUL')
    t.equal(put.json().settings.system, `You are an agent. ${TRICKY}`, 'the system prompt (settings, jsonb) round-trips')

    const sent = [turn(0), turn(1), turn(2)]
    const first = await post(app, '/sessions/n/messages', { messages: sent[0] }, { 'idempotency-key': 'k1' })
    const replay = await post(app, '/sessions/n/messages', { messages: sent[0] }, { 'idempotency-key': 'k1' })
    t.equal(replay.headers['idempotent-replayed'], 'true')
    t.same(replay.json(), first.json(), 'the stored response replays')
    await post(app, '/sessions/n/messages', { messages: sent[1] })
    await post(app, '/sessions/n/messages', { messages: sent[2] })

    const tenant = (await app.db.selectFrom('sessions').select('tenant_id').where('id', '=', 'n').executeTakeFirstOrThrow()).tenant_id
    const stored = [...(await messagesWithStatus(app.db, tenant, 'n', 'evicted')), ...(await messagesWithStatus(app.db, tenant, 'n', 'window'))].sort((a, b) => a.seq - b.seq)
    t.same(
      stored.map((m) => m.raw),
      sent.flat(),
      'every message reads back as sent',
    )
    t.equal((stored[2]!.raw as { content: string }).content, `${BINARY} (dump 0)`, 'the tool output, byte for byte')

    // The background update folds them: it used to fail here, five times, then give up.
    const ran = await app.summaryWorker.runOnce()
    t.ok(ran >= 1, `${ran} update(s) ran`)
    const queue = await sql<{ n: number }>`select count(*)::int as n from summary_update_queue`.execute(app.db)
    t.equal(queue.rows[0]!.n, 0, 'no update left failing')
    const summary = (await app.inject({ method: 'GET', url: '/sessions/n/summary' })).json()
    t.ok(summary.version >= 1, `summary version ${summary.version}`)
    t.equal(summary.stale, false, 'nothing left unsummarised')
    t.match(summary.content, /dump 0/, 'the folded exchanges are in it')

    // GET /context: the summary, then the window, as sent.
    const ctx = await app.inject({ method: 'GET', url: '/sessions/n/context?budget=100000' })
    t.equal(ctx.statusCode, 200, 'GET /context')
    const body = ctx.json()
    t.same(body.messages.slice(-sent[2]!.length), sent[2], 'the window comes back byte for byte')
    t.ok(JSON.stringify(body).includes('\\\\u0000'), 'the literal backslash-u0000 stayed six characters')
    t.equal(body.messages.at(-1).content, `Dump 2 starts with a PNG header: ${TRICKY}`)

    // A manual summary holding NUL.
    const content = `${summary.content}\n- note: ${TRICKY}\n`
    const manual = await app.inject({ method: 'PUT', url: '/sessions/n/summary', payload: { content, baseVersion: summary.version } })
    t.equal(manual.statusCode, 200, 'PUT /summary')
    const read = (await app.inject({ method: 'GET', url: '/sessions/n/summary' })).json()
    t.equal(read.content, content, 'a manual summary with NUL round-trips')

    // And the next background update builds on it.
    await post(app, '/sessions/n/messages', { messages: turn(3) })
    await app.summaryWorker.runOnce()
    const next = (await app.inject({ method: 'GET', url: '/sessions/n/summary' })).json()
    t.ok(next.version > read.version, 'updated again')
    t.equal(next.stale, false)
  })

  t.test(`${backend}: /compact with a sessionId stores and returns a checkpoint holding NUL`, { skip }, async (t) => {
    const { app } = await buildTestApp(t, { backend })
    const task = `Extract the frames from dump.bin (${TRICKY}) and list them.`
    const messages: Record<string, unknown>[] = [
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: task },
    ]
    for (let k = 0; k < 30; k++) {
      messages.push(
        { role: 'assistant', content: `Reading frame ${k}.`, tool_calls: [{ id: `f${k}`, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: `frames/${k}.bin` }) } }] },
        { role: 'tool', tool_call_id: `f${k}`, content: `${BINARY} frame ${k} `.repeat(60) },
      )
    }
    messages.push({ role: 'assistant', content: 'All frames read.' }, { role: 'user', content: `Now list them. ${TRICKY}` })

    const res = await app.inject({ method: 'POST', url: '/compact', payload: { messages, targetTokens: 3000, sessionId: 'nul-1' } })
    t.equal(res.statusCode, 200, '/compact with a sessionId')
    const out = res.json()
    t.equal(out.compacted, true)
    t.same(out.checkpoint, { sessionId: 'nul-1', checkpointNum: 1 })
    t.ok(out.summary.text.includes('\u0000'), 'the summary quotes NUL-holding content')
    t.same(out.messages.at(-1), messages.at(-1), 'the last message comes back byte for byte')

    const cp = await app.inject({ method: 'GET', url: '/sessions/nul-1/checkpoints/1' })
    t.equal(cp.statusCode, 200, 'GET the checkpoint')
    const checkpoint = cp.json()
    t.equal(checkpoint.summary, out.summary.text, 'the stored summary is the one returned, NUL included')
    t.ok(JSON.stringify(checkpoint.keyFacts).includes('\\u0000'), 'key facts (jsonb) hold NUL too')
    t.ok(JSON.stringify(checkpoint).includes('\\\\u0000'), 'the literal backslash-u0000 stayed six characters')

    // Folding (read, merge, write) keeps it: more compactions than COMPACTION_MAX_CHECKPOINTS.
    for (let i = 0; i < 5; i++) {
      const again = await app.inject({ method: 'POST', url: '/compact', payload: { messages, targetTokens: 3000, sessionId: 'nul-1' } })
      t.equal(again.statusCode, 200)
    }
    const list = (await app.inject({ method: 'GET', url: '/sessions/nul-1/checkpoints' })).json()
    const folded = list.items.find((c: { foldedFrom: number[] | null }) => c.foldedFrom !== null)
    t.ok(folded, 'rows were folded')
    t.ok(folded.summary.includes('\u0000'), 'the folded summary still holds NUL')
  })

  // Query parameters are not stored, only compared in SQL: NUL there was a 500 from
  // PostgreSQL and PGlite ("invalid byte sequence for encoding UTF8: 0x00"). Now a 400
  // naming the parameter, on every route that takes one, and in a cursor's own payload.
  t.test(`${backend}: NUL or invalid text in a query parameter is a 400 naming it, never a 500`, { skip }, async (t) => {
    const { app } = await buildTestApp(t, { backend })
    t.equal((await app.inject({ method: 'PUT', url: '/sessions/q-1', payload: {} })).statusCode, 201)
    const cursor = (c: object) => Buffer.from(JSON.stringify(c), 'utf8').toString('base64url')
    const cases: [string, string, string][] = [
      ['/sessions?q=%00', 'querystring.q', 'validation_error'],
      ['/sessions?q=a%00b', 'querystring.q', 'validation_error'],
      ['/sessions?q=a%00b&sort=id', 'querystring.q', 'validation_error'],
      ['/sessions?q=%ED%A0%80', 'querystring.q', 'validation_error'], // an encoded lone surrogate
      ['/sessions?q=%80', 'querystring.q', 'validation_error'], // not UTF-8
      ['/sessions?q=50%', 'querystring.q', 'validation_error'], // a bare %
      ['/sessions?cursor=%00', 'querystring.cursor', 'validation_error'],
      [`/sessions?sort=id&cursor=${cursor({ s: 'id', d: 'asc', v: 'a\u0000', id: 'b' })}`, 'querystring.cursor', 'invalid_cursor'],
      [`/sessions?sort=id&cursor=${cursor({ s: 'id', d: 'asc', v: 'a\ud800', id: 'b' })}`, 'querystring.cursor', 'invalid_cursor'],
      [`/sessions?cursor=${cursor({ s: 'lastActivity', d: 'desc', v: 1, id: 'b\u0000' })}`, 'querystring.cursor', 'invalid_cursor'],
      ['/sessions/q-1/summary/versions?cursor=a%00', 'querystring.cursor', 'validation_error'],
      ['/sessions/q-1/messages?cursor=a%00', 'querystring.cursor', 'validation_error'],
      ['/sessions/q-1/checkpoints?cursor=a%00', 'querystring.cursor', 'validation_error'],
      ['/sessions/q-1/context?model=a%00b', 'querystring.model', 'validation_error'],
      ['/sessions/q-1/context?budget=%00', 'querystring.budget', 'validation_error'],
      ['/sessions/q-1/messages?limit=1%00', 'querystring.limit', 'validation_error'],
    ]
    for (const [url, path, error] of cases) {
      const res = await app.inject({ method: 'GET', url })
      t.equal(res.statusCode, 400, `${url}: 400`)
      const body = res.json() as { error: string; issues?: { path: string }[] }
      t.equal(body.error, error, `${url}: ${error}`)
      t.equal(body.issues?.[0]?.path, path, `${url}: names ${path}`)
    }
    // Valid text still searches: UTF-8 beyond the BMP, an encoded %, plus signs.
    for (const q of ['%F0%9F%98%80', 'q-%31', '100%25', 'a+b']) {
      const res = await app.inject({ method: 'GET', url: `/sessions?q=${q}` })
      t.equal(res.statusCode, 200, `q=${q}: 200`)
    }
    t.equal((await app.inject({ method: 'GET', url: '/sessions?q=q-%31' })).json().total, 1, 'a percent-encoded search finds the session')
  })
}

t.test('sqlTextProblem: NUL and lone surrogates, nothing else', async (t) => {
  for (const s of ['', 'plain', '\uFFFF', '\uFFFD', '\ud83d\ude00', '%00', '\\u0000']) t.equal(sqlTextProblem(s), undefined, JSON.stringify(s))
  for (const s of ['\u0000', 'a\u0000b', '\ud800', 'a\udc00', '\ude00\ud83d']) t.ok(sqlTextProblem(s), `${JSON.stringify(s)}: refused`)
})
