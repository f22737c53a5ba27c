/**
 * `npm run key:create` against a service that runs on PGlite (issue 10, defect 9): the
 * service holds the data directory, so the key is created through its admin socket;
 * a directory held by anything else is one clear line, never a stack trace. The service
 * and the CLI run from the build (dist/server.js, dist/cli/key-create.js), as the Docker
 * image runs them.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { ADMIN_SOCKET_NAME } from '../../src/tenancy/admin-socket.ts'
import { ensureBuilt, root, startServer, waitFor } from '../helpers/service-process.ts'

t.before(() => ensureBuilt())

const KEY_LINE = /^cpd_[\w-]{43}\n$/

interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

function keyCreate(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(root, 'dist/cli/key-create.js'), ...args], { cwd: root, env: { PATH: process.env.PATH!, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout!.on('data', (d) => (stdout += d))
    child.stderr!.on('data', (d) => (stderr += d))
    child.on('exit', (code) => resolve({ code, stdout, stderr }))
  })
}

function tempDir(t: { teardown(fn: () => void): void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpd-key-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

t.test('while the service runs on PGlite, key:create goes through the service', async (t) => {
  const dir = tempDir(t)
  const port = String(20000 + Math.floor(Math.random() * 20000))
  const srv = startServer({ PORT: port, HOST: '0.0.0.0', PGLITE_DATA_DIR: dir, WORKERS: '0' })
  t.teardown(() => srv.child.kill('SIGKILL'))
  t.ok(await waitFor(() => /Server listening/.test(srv.output()), 60_000), 'listening')
  const base = `http://127.0.0.1:${port}`
  const socket = path.join(dir, ADMIN_SOCKET_NAME)
  t.equal(fs.statSync(socket).mode & 0o777, 0o600, 'the admin socket is for the owner only')

  // Open mode: a session the agent stored before any key existed.
  const append = await fetch(`${base}/sessions/run-1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content: 'Fix src/db.ts' }, { role: 'assistant', content: 'Fixed.' }] }),
  })
  t.equal(append.status, 200)

  const first = await keyCreate(['--tenant', 'acme', '--adopt-open-data'], { PGLITE_DATA_DIR: dir, HOST: '0.0.0.0' })
  t.equal(first.code, 0, first.stderr)
  t.match(first.stdout, KEY_LINE, 'the key, alone, on stdout')
  const key = first.stdout.trim()
  t.match(first.stderr, new RegExp(`created an API key for tenant "acme" \\(pglite, through the running service, pid ${srv.child.pid}\\)`))
  t.match(first.stderr, /adopted the open-mode data into tenant "acme": 1 session \(2 messages\)/)
  t.match(first.stderr, /the service still listens on 127\.0\.0\.1 only; restart it to listen on HOST=0\.0\.0\.0/)

  const anonymous = await fetch(`${base}/sessions/run-1`)
  t.equal(anonymous.status, 401, 'keys are required at once, not after the open-mode recheck')
  const withKey = await fetch(`${base}/sessions/run-1`, { headers: { authorization: `Bearer ${key}` } })
  t.equal(withKey.status, 200, 'the new key works and sees the adopted session')
  t.equal(((await withKey.json()) as { messageCount: number }).messageCount, 2)

  const second = await keyCreate(['--tenant', 'globex'], { PGLITE_DATA_DIR: dir })
  t.equal(second.code, 0, second.stderr)
  t.match(second.stdout, KEY_LINE)
  t.notMatch(second.stderr, /adopted/)
  t.match(second.stderr, /restart it to listen on HOST=0\.0\.0\.0/, 'still true: the service listens where it started')
  const globex = await fetch(`${base}/sessions/run-1`, { headers: { authorization: `Bearer ${second.stdout.trim()}` } })
  t.equal(globex.status, 404, "another tenant's key does not see acme's session")

  const clash = await keyCreate(['--tenant', 'acme', '--adopt-open-data'], { PGLITE_DATA_DIR: dir })
  t.equal(clash.code, 0, 'nothing left to adopt is not an error')
  t.match(clash.stderr, /no open-mode data to adopt/)

  const usage = await keyCreate(['--tenant', 'no spaces'], { PGLITE_DATA_DIR: dir })
  t.equal(usage.code, 2)
  t.equal(usage.stdout, '')
  t.match(usage.stderr, /^compactd: usage: npm run key:create -- --tenant NAME \[--adopt-open-data\]/)

  // A request that is not the protocol gets an answer, and creates nothing.
  const garbage = await new Promise<string>((resolve, reject) => {
    let got = ''
    const c = net.createConnection(socket, () => c.write('{"op":"create-key","tenant":"x","extra":1}\n'))
    c.on('data', (d) => (got += d))
    c.on('end', () => resolve(got))
    c.on('error', reject)
  })
  t.match(JSON.parse(garbage), { ok: false, error: /invalid admin request/ })

  srv.child.kill('SIGTERM')
  t.equal(await srv.exited, 0, 'clean exit')
  const log = srv.output()
  for (const k of [key, second.stdout.trim()]) t.notOk(log.includes(k) || log.includes(k.slice(4)), 'keys never reach the log')
  t.match(log, /API key created through the admin socket/)
  t.notOk(fs.existsSync(socket), 'the socket goes with the service')
  t.notOk(fs.existsSync(path.join(dir, '.compactd.lock')), 'and the lock')

  // Stopped: the CLI opens the directory itself.
  const direct = await keyCreate(['--tenant', 'initech'], { PGLITE_DATA_DIR: dir })
  t.equal(direct.code, 0, direct.stderr)
  t.match(direct.stdout, KEY_LINE)
  t.match(direct.stderr, /created an API key for tenant "initech" \(pglite\)/)
})

t.test('a data directory held by a process that is not a service: one line saying what to do', async (t) => {
  const dir = tempDir(t)
  // A live process holding the lock, as `npm run migrate` would while it runs.
  const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' })
  t.teardown(() => holder.kill('SIGKILL'))
  fs.writeFileSync(path.join(dir, '.compactd.lock'), String(holder.pid))
  const res = await keyCreate(['--tenant', 'acme'], { PGLITE_DATA_DIR: dir })
  t.equal(res.code, 1)
  t.equal(res.stdout, '', 'no key')
  const lines = res.stderr.split('\n').filter(Boolean)
  t.equal(lines.length, 1, `one line: ${res.stderr}`)
  t.equal(
    lines[0],
    `compactd: process ${holder.pid} holds the PGlite data directory ${path.resolve(dir)}, and no running compactd service answers ` +
      'on its admin socket (ENOENT); wait for that process to finish or stop it, then run this again',
  )
  t.notMatch(res.stderr, /\bat .*\.ts:\d+/, 'no stack trace')
})

t.test('a bad setting is one line too', async (t) => {
  const res = await keyCreate(['--tenant', 'acme'], { DATABASE_URL: 'mysql://x' })
  t.equal(res.code, 1)
  t.equal(res.stderr, 'compactd: invalid configuration: DATABASE_URL="mysql://x": must start with postgres:// or postgresql://\n')
})
