/** The real entry point (dist/server.js, as `npm start` runs it) in a child process. */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { ensureBuilt, startServer, waitFor } from './helpers/service-process.ts'

t.before(() => ensureBuilt())

// Start-up on PGlite (its WebAssembly and the migrations) took over 25 s in a fresh-clone CI
// run on the busy 2-core machine: the waits below are for a state, so 120 s costs nothing
// when it comes sooner.

t.test('starts on PGlite, serves, logs JSON without secrets, and drains on SIGTERM', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'compactd-srv-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  const port = String(20000 + Math.floor(Math.random() * 20000))
  const srv = startServer({ PORT: port, HOST: '0.0.0.0', PGLITE_DATA_DIR: dir, OPENAI_API_KEY: 'sk-very-secret-value' })
  t.teardown(() => srv.child.kill('SIGKILL'))
  t.ok(await waitFor(() => /Server listening/.test(srv.output()), 120_000), 'listening')
  const listenLine = srv.output().split('\n').find((l) => l.includes('Server listening'))!
  t.match(JSON.parse(listenLine).msg, /127\.0\.0\.1/, 'open mode forces loopback even with HOST=0.0.0.0')
  t.match(srv.output(), /running open in single-tenant mode/, 'warns about open mode')

  const res = await fetch(`http://127.0.0.1:${port}/estimate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer cpd_should_not_be_logged' },
    body: JSON.stringify({ messages: [{ role: 'user', content: 'hello' }] }),
  })
  t.equal(res.status, 200)
  const docs = await fetch(`http://127.0.0.1:${port}/docs`, { redirect: 'follow' })
  t.equal(docs.status, 200, 'Swagger UI is served at /docs')

  srv.child.kill('SIGTERM')
  t.equal(await srv.exited, 0, 'clean exit on SIGTERM')
  const out = srv.output()
  for (const line of out.trim().split('\n')) t.doesNotThrow(() => JSON.parse(line), `JSON log line: ${line.slice(0, 60)}`)
  t.notMatch(out, /sk-very-secret-value/, 'provider key never logged')
  t.notMatch(out, /cpd_should_not_be_logged/, 'authorization never logged')
  t.match(out, /reqId/, 'request ids in logs')
  t.notOk(fs.existsSync(path.join(dir, '.compactd.lock')), 'database closed and unlocked')
})

t.test('a bad setting stops the service with one line naming it', async (t) => {
  const srv = startServer({ PORT: 'eighty' })
  t.equal(await srv.exited, 1)
  t.equal(srv.output().trim(), 'compactd: invalid configuration: PORT="eighty": Invalid input: expected number, received NaN')
})

t.test('SIGTERM while a long compaction runs on a thread: the request gets a 503 and the process exits within its grace', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'compactd-srv-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  const port = String(20000 + Math.floor(Math.random() * 20000))
  const grace = 3_000
  const srv = startServer({ PORT: port, PGLITE_DATA_DIR: dir, SHUTDOWN_TIMEOUT_MS: String(grace), COMPUTE_THREADS: '1', COMPUTE_DEADLINE_MS: '600000', BODY_LIMIT_BYTES: String(64 * 1024 * 1024) })
  t.teardown(() => srv.child.kill('SIGKILL'))
  t.ok(await waitFor(() => /Server listening/.test(srv.output()), 120_000), 'listening')
  const origin = `http://127.0.0.1:${port}`
  // A compaction far longer than the grace: 30 MB of distinct words in 3,000 tool outputs.
  let seed = 7
  const word = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % 1_000_000).toString(36)
  const messages: unknown[] = [{ role: 'user', content: 'Read every log and find the failure.' }]
  for (let k = 0; k < 3000; k++) {
    messages.push({ role: 'assistant', content: null, tool_calls: [{ id: `c${k}`, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command: `cat log/${k}.txt` }) } }] })
    messages.push({ role: 'tool', tool_call_id: `c${k}`, content: Array.from({ length: 1700 }, word).join(' ') })
  }
  const pending = fetch(`${origin}/compact`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ messages, targetTokens: 20_000, strategy: 'rules' }) }).then(
    async (res) => ({ status: res.status, body: await res.text() }),
    (err: Error) => ({ status: 0, body: err.message }),
  )
  const running = async () => /compactd_compute_running 1/.test(await (await fetch(`${origin}/metrics`)).text())
  let onThread = false
  for (let i = 0; i < 600 && !onThread; i++) {
    onThread = await running()
    if (!onThread) await new Promise((r) => setTimeout(r, 50))
  }
  t.ok(onThread, 'the compaction runs on a thread')
  const killed = Date.now()
  srv.child.kill('SIGTERM')
  t.equal(await srv.exited, 0, 'a clean exit, not "killed by timeout"')
  const took = Date.now() - killed
  t.ok(took < grace + 1_500, `exited ${took} ms after SIGTERM (grace ${grace} ms)`)
  const res = await pending
  t.equal(res.status, 503, `the request was answered: ${res.body.slice(0, 200)}`)
  t.match(res.body, /shutting_down/)
})
