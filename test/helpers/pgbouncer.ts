/**
 * PgBouncer in transaction mode in front of the test PostgreSQL (issue 25): Debian's
 * package, started per test file on a free port, with a wildcard database entry, so a URL
 * through it reaches any database the tests create. `.ci/run` installs the package the
 * way it installs chromium; without it the tests that need it skip and say so.
 */
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import { TEST_DATABASE_URL } from './databases.ts'
import { freePort } from './service-process.ts'

const BINARIES = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer']

export function pgbouncerBinary(): string | undefined {
  return BINARIES.find((b) => fs.existsSync(b)) ?? (spawnSync('which', ['pgbouncer']).stdout?.toString().trim() || undefined)
}

export const PGBOUNCER_SKIP_REASON = 'pgbouncer is not installed (apt-get install pgbouncer; .ci/run does)'

export interface Bouncer {
  /** `url` with PgBouncer's host and port instead of the server's. */
  through(url: string): string
  stop(): Promise<void>
}

export async function startPgbouncer(opts: { poolSize?: number } = {}): Promise<Bouncer> {
  const binary = pgbouncerBinary()
  if (!binary) throw new Error(PGBOUNCER_SKIP_REASON)
  const server = new URL(TEST_DATABASE_URL)
  const port = await freePort()
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'compactd-pgbouncer-'))
  const user = decodeURIComponent(server.username || 'postgres')
  fs.writeFileSync(path.join(dir, 'users.txt'), `"${user}" ""\n`)
  fs.writeFileSync(
    path.join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${opts.poolSize ?? 10}`,
      'max_client_conn = 500',
      'ignore_startup_parameters = extra_float_digits,options',
      `logfile = ${path.join(dir, 'pgbouncer.log')}`,
      '',
    ].join('\n'),
  )
  fs.chmodSync(dir, 0o777)
  for (const f of fs.readdirSync(dir)) fs.chmodSync(path.join(dir, f), 0o666)
  // PgBouncer refuses to run as root: as the database's own user then.
  const asRoot = process.getuid?.() === 0
  const child = spawn(binary, [...(asRoot ? ['-u', 'postgres'] : []), path.join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (d) => (output += d))
  child.stderr.on('data', (d) => (output += d))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const through = (url: string) => {
    const u = new URL(url)
    u.hostname = '127.0.0.1'
    u.port = String(port)
    return u.toString()
  }
  for (let i = 0; ; i++) {
    const client = new pg.Client({ connectionString: through(TEST_DATABASE_URL), connectionTimeoutMillis: 1000 })
    const ok = await client.connect().then(() => client.query('select 1').then(() => true), () => false)
    await client.end().catch(() => {})
    if (ok) break
    if (i > 50 || child.exitCode !== null) {
      child.kill()
      const log = fs.existsSync(path.join(dir, 'pgbouncer.log')) ? fs.readFileSync(path.join(dir, 'pgbouncer.log'), 'utf8') : ''
      throw new Error(`pgbouncer did not start: ${output}${log}`.slice(-2000))
    }
    await sleep(100)
  }
  return {
    through,
    stop: async () => {
      child.kill('SIGINT')
      await exited
      fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}
