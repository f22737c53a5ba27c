/**
 * The service (and its command-line tools) as child processes, run from the build as
 * `npm start` and the Docker image run them: dist/server.js, dist/cli/*.js. A test process
 * that finds the build older than the sources rebuilds it first (`npm run build:server`, and
 * `build:ui` when the dashboard changed), under a lock, so every test file sees one complete
 * build of the sources it is testing. Through tsx, each child took 3-6 s to start on a busy
 * 2-core machine; from the build, well under one.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'

export const root = path.resolve(import.meta.dirname, '../..')

/** The newest modification time of a file below `dir` whose name ends in one of `exts`. */
function newest(dir: string, exts: string[]): number {
  let latest = 0
  let entries: fs.Dirent[]
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true })
  } catch {
    return 0
  }
  for (const e of entries) {
    const p = path.join(dir, e.name)
    if (e.isDirectory()) latest = Math.max(latest, newest(p, exts))
    else if (exts.some((x) => e.name.endsWith(x))) latest = Math.max(latest, fs.statSync(p).mtimeMs)
  }
  return latest
}

function mtime(file: string): number {
  try {
    return fs.statSync(file).mtimeMs
  } catch {
    return 0
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** What a part of the build is made from, what marks it built, and the script that makes it. */
const PARTS = {
  server: { sources: [['src', ['.ts', '.cjs']], ['routes', ['.ts']], ['migrations', ['.ts']]], output: 'dist/server.js', script: 'build:server' },
  ui: { sources: [['ui/src', ['.ts', '.tsx', '.css']]], output: 'dist/ui/app.js', script: 'build:ui' },
  lib: { sources: [['src', ['.ts']]], output: 'dist/lib/index.js', script: 'build:lib' },
} as const satisfies Record<string, { sources: (readonly [string, readonly string[]])[]; output: string; script: string }>

export type BuildPart = keyof typeof PARTS

function stale(part: BuildPart): boolean {
  const { sources, output } = PARTS[part]
  return Math.max(...sources.map(([dir, exts]) => newest(path.join(root, dir), [...exts]))) > mtime(path.join(root, output))
}

const ensured = new Map<string, Promise<void>>()

/**
 * dist/ as current as the sources (the service and the dashboard by default): rebuilt here
 * when stale, while other test processes wait. After `npm install` (whose prepare step
 * builds) nothing is rebuilt.
 */
export function ensureBuilt(parts: BuildPart[] = ['server', 'ui']): Promise<void> {
  const key = parts.join(',')
  let done = ensured.get(key)
  if (!done) {
    done = buildWhenStale(parts)
    ensured.set(key, done)
  }
  return done
}

async function buildWhenStale(parts: BuildPart[]): Promise<void> {
  const lock = path.join(root, 'dist/.build-lock')
  fs.mkdirSync(path.join(root, 'dist'), { recursive: true })
  for (;;) {
    const todo = parts.filter(stale)
    if (todo.length === 0) return
    try {
      fs.mkdirSync(lock)
    } catch {
      // Another test process is building: wait for it, then look again. A lock older than
      // two minutes was left by a process that died while building.
      if (Date.now() - mtime(lock) > 120_000) fs.rmSync(lock, { recursive: true, force: true })
      await sleep(200)
      continue
    }
    try {
      for (const part of todo) {
        execFileSync('npm', ['run', '--silent', PARTS[part].script], { cwd: root, stdio: 'inherit' })
        // Marked as built now, whatever the bundler did with outputs that did not change.
        const now = new Date()
        fs.utimesSync(path.join(root, PARTS[part].output), now, now)
      }
    } finally {
      fs.rmSync(lock, { recursive: true, force: true })
    }
  }
}

export interface ServiceProcess {
  child: ChildProcess
  /** Everything it wrote so far, stdout and stderr together. */
  output: () => string
  exited: Promise<number | null>
}

/** `node dist/<entry> ...args` with only PATH and `env` in its environment (call ensureBuilt() first). */
export function startBuilt(entry: string, env: Record<string, string>, args: string[] = []): ServiceProcess {
  const child = spawn(process.execPath, [path.join(root, 'dist', entry), ...args], { cwd: root, env: { PATH: process.env.PATH!, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout!.on('data', (d) => (out += d))
  child.stderr!.on('data', (d) => (out += d))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return { child, output: () => out, exited }
}

/** The service: `node dist/server.js` (as `npm start`). */
export function startServer(env: Record<string, string>): ServiceProcess {
  return startBuilt('server.js', env)
}

/** A port nothing listens on now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo
      srv.close(() => resolve(port))
    })
  })
}

/** Polls `check` every 50 ms for up to `ms`; its last answer. */
export async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (check()) return true
    await sleep(50)
  }
  return check()
}
