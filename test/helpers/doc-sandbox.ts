/**
 * Where the documentation's examples run: a temporary directory that looks like a clone
 * (the repository's top-level entries linked into it), so that `docs/examples/…`,
 * `npx compactd` and `npm run …` work as the pages say, while the files the examples
 * write (imported.json, compacted.json, …) land in the temporary directory. `compactd` is
 * on the PATH, as `npm link` puts it. TypeScript and Python examples run from their own
 * directory, an ESM package (`"type": "module"`), with the package names mapped to this
 * repository's sources.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { ROOT } from './doc-blocks.ts'

/**
 * Package names as the pages import them → the file that stands for each here. `compactd`
 * (the in-process library) is its entry point once it exists.
 */
export const PACKAGE_IMPORTS: Record<string, string> = {
  '@compactd/client': path.join(ROOT, 'clients/typescript/src/index.ts'),
  '@compactd/client/ai-sdk': path.join(ROOT, 'clients/typescript/src/ai-sdk.ts'),
  compactd: path.join(ROOT, 'src/index.ts'),
}

/** The port the pages' examples talk to, rewritten to the test's own (here, and only here). */
export function toPort(text: string, port: number): string {
  return text.replace(/\b(?:localhost|127\.0\.0\.1):3000\b/g, `127.0.0.1:${port}`)
}

/** Settings a developer's shell may hold that would change what the examples print. */
const FOREIGN_ENV = /^(COMPACTD_|OPENAI_|ANTHROPIC_|SUMMARIZER_|COMPACTION_|DEFAULT_MODEL$|DATABASE_URL$|PGLITE_|PORT$|HOST$|NODE_OPTIONS$|UNKNOWN_MODEL_)/

export interface Sandbox {
  /** The clone-like working directory of shell examples. */
  dir: string
  /** The ESM package directory of TypeScript and Python examples. */
  scripts: string
  env: Record<string, string>
  port: number
}

export interface RunResult {
  status: number | null
  /** stdout and stderr, interleaved as written. */
  output: string
  stdout: string
  stderr: string
}

export function createSandbox(t: { teardown(fn: () => void): void }, port: number, env: Record<string, string> = {}): Sandbox {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'compactd-docs-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  const clone = path.join(dir, 'clone')
  fs.mkdirSync(clone)
  for (const entry of fs.readdirSync(ROOT)) {
    if (entry === '.git' || entry === 'data') continue
    fs.symlinkSync(path.join(ROOT, entry), path.join(clone, entry))
  }
  const bin = path.join(dir, 'bin')
  fs.mkdirSync(bin)
  fs.symlinkSync(path.join(ROOT, 'bin/compactd.mjs'), path.join(bin, 'compactd'))
  const scripts = path.join(dir, 'scripts')
  fs.mkdirSync(scripts)
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(scripts, 'node_modules'))
  fs.writeFileSync(path.join(scripts, 'package.json'), JSON.stringify({ private: true, type: 'module' }))
  const base = Object.fromEntries(Object.entries(process.env).filter(([k, v]) => v !== undefined && !FOREIGN_ENV.test(k))) as Record<string, string>
  return {
    dir: clone,
    scripts,
    port,
    env: {
      ...base,
      PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`,
      PYTHONPATH: path.join(ROOT, 'clients/python'),
      PYTHONDONTWRITEBYTECODE: '1',
      // `npx compactd` finds the clone's own bin; without this npm also asks the registry
      // about a package named compactd, which took 10-20 s here (and needs a network).
      npm_config_offline: 'true',
      ...env,
    },
  }
}

export function run(cmd: string, args: string[], opts: { cwd: string; env: Record<string, string>; stdin?: string }): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ['pipe', 'pipe', 'pipe'] })
    let output = ''
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => ((stdout += d), (output += d)))
    child.stderr.on('data', (d: Buffer) => ((stderr += d), (output += d)))
    child.on('error', reject)
    child.on('close', (status) => resolve({ status, output, stdout, stderr }))
    child.stdin.end(opts.stdin ?? '')
  })
}

/** A shell example through a real shell, in the clone-like directory. */
export function runShell(sb: Sandbox, script: string): Promise<RunResult> {
  // One stream for both, so that stderr lines stay where they were written.
  return run('bash', ['-c', `exec 2>&1\n${toPort(script, sb.port)}`], { cwd: sb.dir, env: sb.env })
}

/**
 * A `console` block: each `$ ` line a command, the lines after it what it printed. Runs each
 * command and returns the transcript as the page would show it.
 */
export async function runConsole(sb: Sandbox, transcript: string): Promise<RunResult> {
  const commands = transcript
    .split('\n')
    .filter((l) => l.startsWith('$ '))
    .map((l) => l.slice(2))
  let output = ''
  let status: number | null = 0
  for (const command of commands) {
    const res = await runShell(sb, command)
    output += `$ ${command}\n${res.output}`
    if (res.status !== 0) status = res.status
  }
  return { status, output, stdout: output, stderr: '' }
}

/** A TypeScript or Python example as its own file, with the package imports mapped. */
export function scriptFile(sb: Sandbox, name: string, lang: 'ts' | 'python', code: string): string {
  const file = path.join(sb.scripts, `${name}.${lang === 'ts' ? 'ts' : 'py'}`)
  const mapped = lang === 'ts' ? code.replace(/from '([^']+)'/g, (whole, pkg: string) => (PACKAGE_IMPORTS[pkg] ? `from '${PACKAGE_IMPORTS[pkg]}'` : whole)) : code
  fs.writeFileSync(file, mapped)
  return file
}

/** Runs from the clone-like directory, as the pages' commands do (`docs/examples/…` resolves). */
export function runScript(sb: Sandbox, name: string, lang: 'ts' | 'python', code: string): Promise<RunResult> {
  const file = scriptFile(sb, name, lang, code)
  const [cmd, args] = lang === 'ts' ? [process.execPath, ['--import', 'tsx', file]] : ['python3', [file]]
  return run(cmd, args, { cwd: sb.dir, env: sb.env })
}

/** Programs an example needs that are not installed (a shell example's curl, jq; python3). */
export function missingPrograms(lang: string, code: string): string[] {
  const needs = lang === 'python' ? ['python3'] : lang === 'sh' || lang === 'console' ? ['curl', 'jq'].filter((p) => new RegExp(`(^|[|;&(\\s])${p}\\s`, 'm').test(code)) : []
  return needs.filter((p) => !onPath(p))
}

const found = new Map<string, boolean>()
function onPath(program: string): boolean {
  if (!found.has(program)) {
    found.set(
      program,
      (process.env.PATH ?? '').split(path.delimiter).some((d) => {
        try {
          fs.accessSync(path.join(d, program), fs.constants.X_OK)
          return true
        } catch {
          return false
        }
      }),
    )
  }
  return found.get(program)!
}

/** At most `n` at once: the examples are processes, and this machine has few cores. */
export function limiter(n: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let active = 0
  const waiting: (() => void)[] = []
  return async (fn) => {
    if (active >= n) await new Promise<void>((resolve) => waiting.push(resolve))
    active++
    try {
      return await fn()
    } finally {
      active--
      waiting.shift()?.()
    }
  }
}
