/** The real entry point (dist/server.js, as `npm start` runs it) in a child process. */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'

const root = path.resolve(import.meta.dirname, '..')

function startServer(env: Record<string, string>): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['dist/server.js'], { cwd: root, env: { PATH: process.env.PATH!, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout!.on('data', (d) => (out += d))
  child.stderr!.on('data', (d) => (out += d))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return { child, output: () => out, exited }
}

async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (check()) return true
    await new Promise((r) => setTimeout(r, 50))
  }
  return check()
}

t.before(() => {
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' })
})

t.test('starts on PGlite, serves, logs JSON without secrets, and drains on SIGTERM', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'compactd-srv-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  const port = String(20000 + Math.floor(Math.random() * 20000))
  const srv = startServer({ PORT: port, HOST: '0.0.0.0', PGLITE_DATA_DIR: dir, OPENAI_API_KEY: 'sk-very-secret-value' })
  t.teardown(() => srv.child.kill('SIGKILL'))
  t.ok(await waitFor(() => /Server listening/.test(srv.output()), 30_000), 'listening')
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
