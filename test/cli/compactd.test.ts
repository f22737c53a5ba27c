/**
 * The compactd CLI (issue 12): estimate and compact in-process and against a server this
 * test starts, import of files, directories and stdin, progress on a terminal and as
 * plain lines, and bad input: one line on stderr, a non-zero exit, never a stack trace.
 * Most cases run main() in-process with captured streams; the bin (bin/compactd.mjs,
 * `npx compactd`) and stdin run as child processes.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { PassThrough, Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import type * as Tap from 'tap'
import { main } from '../../src/cli/compactd/main.ts'
import { LARGE_FILE_BYTES, type Io } from '../../src/cli/compactd/io.ts'
import { importLog, type ImportResult } from '../../src/engine/import/index.ts'
import { createApiKey } from '../../src/tenancy/api-keys.ts'
import { buildTestApp } from '../helpers/build.ts'
import { claudeCodeLog, codexLog, geminiContents, geminiRecording, miniSweAgentTrajectory, piLog, sweAgentTrajectory } from '../helpers/agent-logs.ts'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'compactd-cli-'))
t.teardown(() => fs.rmSync(tmp, { recursive: true, force: true }))
delete process.env.COMPACTD_URL
delete process.env.COMPACTD_API_KEY

function sink(tty: boolean): { stream: NodeJS.WritableStream & { isTTY?: boolean; columns?: number }; text: () => string } {
  const stream = new PassThrough() as PassThrough & { isTTY?: boolean; columns?: number }
  if (tty) {
    stream.isTTY = true
    stream.columns = 120
  }
  const chunks: Buffer[] = []
  stream.on('data', (c: Buffer) => chunks.push(c))
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') }
}

/** main() in-process: stdin text (undefined: a terminal), stderr a terminal or not. */
async function run(args: string[], opts: { stdin?: string; tty?: boolean } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = sink(false)
  const stderr = sink(opts.tty ?? false)
  const stdin = opts.stdin === undefined ? Object.assign(new PassThrough(), { isTTY: true }) : Readable.from([opts.stdin])
  const io: Io = { stdin, stdout: stdout.stream, stderr: stderr.stream }
  const code = await main(args, io)
  await new Promise((r) => setImmediate(r))
  return { code, stdout: stdout.text(), stderr: stderr.text() }
}

/** The real command in a child process (bin/compactd.mjs, sources through tsx). */
function spawnCli(args: string[], opts: { stdin?: string; env?: Record<string, string>; command?: string[] } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const [cmd, ...pre] = opts.command ?? [process.execPath, path.join(root, 'bin/compactd.mjs')]
    const child = spawn(cmd!, [...pre, ...args], { cwd: root, env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? tmp, ...opts.env }, stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c) => (stdout += c))
    child.stderr.on('data', (c) => (stderr += c))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
    child.stdin.end(opts.stdin ?? '')
  })
}

function write(name: string, content: string | object): string {
  const file = path.join(tmp, name)
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2))
  return file
}

/** stderr of a failure: exactly one line, prefixed, no stack frame. */
function oneLine(t: Tap.Test, stderr: string, re: RegExp): void {
  const lines = stderr.split('\n').filter((l) => l.trim() !== '' && !/^npm warn/.test(l))
  t.equal(lines.length, 1, `one line: ${JSON.stringify(stderr)}`)
  t.match(lines[0] ?? '', /^compactd: /)
  t.match(lines[0] ?? '', re)
  t.notMatch(stderr, /\n\s+at [\w.<]+ \(|node:internal/, 'no stack trace')
}

const messagesFile = write('messages.json', [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: 'Fix the failing test in src/db.ts' },
])
const claudeFile = write('claude.jsonl', claudeCodeLog({ work: 30 }))

// A server this test starts (the same app the service runs), on a free port.
const { app } = await buildTestApp(t, { config: { BODY_LIMIT_BYTES: 1_000_000 } })
await app.listen({ port: 0, host: '127.0.0.1' })
const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
/** A port nothing listens on. */
const closed = await new Promise<string>((resolve) => {
  const probe = net.createServer().listen(0, '127.0.0.1', () => {
    const { port } = probe.address() as net.AddressInfo
    probe.close(() => resolve(`http://127.0.0.1:${port}`))
  })
})

t.test('estimate: in-process and against the server', async (t) => {
  const local = await run(['estimate', messagesFile])
  t.equal(local.code, 0)
  t.match(local.stdout, /^25 tokens in 2 messages \(gpt-4o; tokenizer o200k_base\)\ncontext 128,000, compaction threshold 93,600: 93,575 tokens to go\n$/)
  const json = await run(['estimate', messagesFile, '--json', '--model', 'claude-sonnet-4-5'])
  const body = JSON.parse(json.stdout) as { totalTokens: number; method: string; model: string }
  t.equal(body.model, 'claude-sonnet-4-5')
  t.equal(body.method, 'heuristic')
  const remote = await run(['estimate', messagesFile, '--json', '--model', 'claude-sonnet-4-5', '--url', url])
  t.equal(remote.code, 0)
  t.same(JSON.parse(remote.stdout), body, 'the server answers what the engine computes in-process')

  const log = await run(['estimate', claudeFile, '--json'])
  t.equal(log.code, 0)
  t.match(log.stderr, /claude\.jsonl: claude-code log, \d+ messages \(openai\), 1 compaction, 2 broken or unknown lines skipped\n  line 17: broken: not valid JSON/, 'an agent log is imported first, and says so')
  t.equal((JSON.parse(log.stdout) as { model: string }).model, 'claude-sonnet-4-5-20250929', "the log's model")
})

t.test('compact: in-process, against the server with a session, in another format', async (t) => {
  const out = path.join(tmp, 'compacted.json')
  const local = await run(['compact', claudeFile, '--target', '4000', '--format', 'anthropic', '--out', out])
  t.equal(local.code, 0, local.stderr)
  t.equal(local.stdout, '', 'the result went to --out')
  const result = JSON.parse(fs.readFileSync(out, 'utf8')) as { compacted: boolean; format: string; messages: unknown[]; summary: { text: string }; event: { round: number; tokensAfter: number } }
  t.equal(result.compacted, true)
  t.equal(result.format, 'anthropic')
  t.equal(result.event.round, 2, "Claude Code's own compaction was round 1")
  t.ok(result.event.tokensAfter <= 4000)
  t.match(local.stderr, /compacted: \d+ → \d+ messages, [\d,]+ → [\d,]+ tokens \(target 4,000, rules, round 2\)/)

  const remote = await run(['compact', claudeFile, '--target', '4000', '--url', url, '--session', 'cli-run-1', '--messages'])
  t.equal(remote.code, 0, remote.stderr)
  t.ok(Array.isArray(JSON.parse(remote.stdout)), '--messages prints the message array')
  t.match(remote.stderr, /; checkpoint 1 of session cli-run-1\n$/)
  const stored = await app.inject({ method: 'GET', url: '/sessions/cli-run-1/checkpoints' })
  t.equal(stored.json().items.length, 1, 'the server stored the checkpoint')

  // A compacted result is itself an input: {messages, format, …}.
  const again = await run(['compact', out, '--target', '3000', '--dry-run'])
  t.equal(again.code, 0, again.stderr)
  t.equal(JSON.parse(again.stdout).format, 'anthropic')

  const noServer = await run(['compact', claudeFile, '--session', 'x'])
  t.equal(noServer.code, 2)
  oneLine(t, noServer.stderr, /--session stores a checkpoint, which needs a server/)
  const tooSmall = await run(['compact', messagesFile, '--target', '5', '--force'])
  t.equal(tooSmall.code, 1)
  oneLine(t, tooSmall.stderr, /budget_unreachable: cannot fit 5 tokens/)
})

t.test('import: a file, --messages, --scope, against the server', async (t) => {
  const res = await run(['import', claudeFile, '--format', 'ai-sdk'])
  t.equal(res.code, 0)
  const r = JSON.parse(res.stdout) as ImportResult
  t.same(r, JSON.parse(JSON.stringify(importLog(fs.readFileSync(claudeFile, 'utf8'), { format: 'ai-sdk' }))))
  t.match(res.stderr, /claude\.jsonl: claude-code log, \d+ messages \(ai-sdk\), 1 compaction, 2 broken or unknown lines skipped\n/)
  t.match(res.stderr, /\n  line 17: broken: not valid JSON[^\n]*\n  line 18: unknown: unknown line type "telemetry-blob"\n$/)

  const current = await run(['import', claudeFile, '--scope', 'current', '--messages'])
  const messages = JSON.parse(current.stdout) as { content: string }[]
  t.match(messages[0]!.content, /^This session is being continued/, 'scope current starts at the summary')

  const remote = await run(['import', claudeFile, '--format', 'ai-sdk', '--url', url])
  t.equal(remote.code, 0, remote.stderr)
  t.same(JSON.parse(remote.stdout), r, 'POST /import answers the same')
  const big = write('big.jsonl', claudeCodeLog({ work: 500 }))
  const refused = await run(['import', big, '--url', url])
  t.equal(refused.code, 1)
  oneLine(t, refused.stderr, /server: POST \/import: 413 payload_too_large: .* \(run in-process: drop --url/)
})

t.test('import: a directory, with --out and as JSON lines; progress as plain lines and as a bar', async (t) => {
  const dir = path.join(tmp, 'logs')
  write('logs/claude/session.jsonl', claudeCodeLog())
  write('logs/codex/rollout.jsonl', codexLog())
  write('logs/pi.jsonl', piLog())
  write('logs/gemini.json', geminiContents())
  write('logs/recording.json', geminiRecording())
  write('logs/swe/run.traj', sweAgentTrajectory())
  write('logs/swe/mini.traj.json', miniSweAgentTrajectory())
  write('logs/notes.md', '# not a log, not read')
  write('logs/broken.json', '{"half": ')

  const out = path.join(tmp, 'imported')
  const res = await run(['import', dir, '--out', out])
  t.equal(res.code, 1, 'a file that is no log fails the run, after the others')
  t.equal(res.stdout, '')
  const written = fs.readdirSync(out, { recursive: true }).map(String).filter((f) => f.endsWith('.json')).sort()
  t.same(written, ['claude/session.json', 'codex/rollout.json', 'gemini.json', 'pi.json', 'recording.json', 'swe/mini.traj.json', 'swe/run.json'])
  t.equal((JSON.parse(fs.readFileSync(path.join(out, 'codex/rollout.json'), 'utf8')) as ImportResult).source, 'codex')
  t.match(res.stderr, /^importing .*logs \[1\/8\] broken\.json: not imported\n/, 'plain progress lines off a terminal')
  t.match(res.stderr, /\[8\/8\] swe\/run\.traj: swe-agent, 6 messages, 0 compactions, 0 skipped lines\n/)
  t.match(res.stderr, /not imported: broken\.json: log: /)
  t.match(res.stderr, /imported 7 of 8 files into /)

  fs.rmSync(path.join(dir, 'broken.json'))
  const lines = await run(['import', dir, '--messages'])
  t.equal(lines.code, 0, lines.stderr)
  const records = lines.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { file: string; messages: unknown[] })
  t.same(records.map((r) => r.file), ['claude/session.jsonl', 'codex/rollout.jsonl', 'gemini.json', 'pi.jsonl', 'recording.json', 'swe/mini.traj.json', 'swe/run.traj'])
  t.ok(records.every((r) => Array.isArray(r.messages) && r.messages.length > 0))

  const tty = await run(['import', dir, '--out', out], { tty: true })
  t.equal(tty.code, 0)
  t.match(tty.stderr, /\u001b\[/, 'a terminal gets a redrawn bar')
  t.match(tty.stderr, /█+\] 100% \| 7\/7 files/)

  // One large file: progress over its lines.
  let n = 600
  let text = claudeCodeLog({ work: n })
  while (Buffer.byteLength(text) < LARGE_FILE_BYTES) text = claudeCodeLog({ work: (n *= 2) })
  const large = write('large.jsonl', text)
  const plain = await run(['import', large, '--messages'])
  t.equal(plain.code, 0)
  t.match(plain.stderr, /importing .*large\.jsonl: 0% \(0\/\d+ lines\)\n.*: 25% .*\n.*: 50% .*\n.*: 75% .*\n.*: 100% \(\d+\/\d+ lines\)\n/)
  const bar = await run(['import', large, '--messages'], { tty: true })
  t.match(bar.stderr, /importing .*large\.jsonl \[█+\] 100% \| \d+\/\d+ lines/)
  const small = await run(['import', claudeFile, '--messages'], { tty: true })
  t.notMatch(small.stderr, /\u001b\[/, 'no bar for a small file')
})

t.test('bad input: one line, a non-zero exit', async (t) => {
  const cases: [string[], number, RegExp][] = [
    [['estimate', path.join(tmp, 'nope.json')], 1, /cannot read .*nope\.json: no such file or directory/],
    [['estimate', tmp], 1, /is a directory; give a file/],
    [['estimate', write('text.txt', 'just words\n')], 1, /log: no line is valid JSON/],
    [['estimate', write('bad-messages.json', [{ role: 'user', content: 'a' }, { role: 'tool', content: 'x' }])], 1, /invalid messages: messages\[1\]/],
    [['import', claudeFile, '--source', 'codex'], 1, /source: the log is not a codex log; it looks like claude-code/],
    [['import', claudeFile, '--source', 'aider'], 2, /--source: expected claude-code, codex, gemini-cli, pi, swe-agent, got "aider"/],
    [['import', claudeFile, '--format', 'xml'], 2, /--format: expected openai, anthropic, ai-sdk/],
    [['compact', claudeFile, '--target', 'lots'], 2, /--target: expected a whole number/],
    [['compact', claudeFile, '--strategy', 'magic'], 2, /--strategy: expected a comma-separated list/],
    [['compact'], 2, /compact needs a FILE/],
    [['import', claudeFile, codexLog()], 2, /import takes one FILE, got 2/],
    [['frobnicate'], 2, /unknown command "frobnicate"/],
    [['estimate', claudeFile, '--verbose'], 2, /unknown option --verbose/],
    [['estimate', claudeFile, '--url', 'ftp://x'], 1, /--url: expected an http\(s\) URL/],
    [['estimate', claudeFile, '--url', closed], 1, /cannot reach http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\); start the service/],
    [['import', '-'], 1, /stdin is a terminal/],
    [['import', path.join(tmp, 'empty-dir-that-is-missing'), '--out', tmp], 1, /no such file or directory/],
  ]
  for (const [args, code, re] of cases) {
    const res = await run(args)
    t.equal(res.code, code, `${args.join(' ').slice(0, 80)} → exit ${code}`)
    oneLine(t, res.stderr, re)
    t.equal(res.stdout, '', 'nothing on stdout')
  }
  const empty = path.join(tmp, 'empty-dir')
  fs.mkdirSync(empty)
  const res = await run(['import', empty])
  t.equal(res.code, 1)
  oneLine(t, res.stderr, /no \.jsonl, \.json or \.traj files in it/)
})

t.test('the command as a child process: the bin, stdin, exit codes', async (t) => {
  const help = await spawnCli(['--help'])
  t.equal(help.code, 0, help.stderr)
  t.match(help.stdout, /^compactd: keep LLM agents inside their context window\n\nUsage:\n  compactd estimate FILE/)
  const piped = await spawnCli(['import', '-', '--format', 'anthropic', '--messages'], { stdin: claudeCodeLog() })
  t.equal(piped.code, 0, piped.stderr)
  const messages = JSON.parse(piped.stdout) as { role: string }[]
  t.equal(messages[0]!.role, 'user')
  t.match(piped.stderr, /^stdin: claude-code log/)
  const bad = await spawnCli(['compact', '-', '--target', '1000'], { stdin: '{"messages": [' })
  t.equal(bad.code, 1)
  oneLine(t, bad.stderr, /log: /)
  const usage = await spawnCli(['compact', '--target'])
  t.equal(usage.code, 2)
  oneLine(t, usage.stderr, /--target needs a value \(compactd --help\)/)
  const viaEnv = await spawnCli(['estimate', messagesFile], { env: { COMPACTD_URL: closed } })
  t.equal(viaEnv.code, 1, 'COMPACTD_URL selects the server')
  oneLine(t, viaEnv.stderr, /cannot reach http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/)
  const local = await spawnCli(['estimate', messagesFile, '--local'], { env: { COMPACTD_URL: closed } })
  t.equal(local.code, 0, '--local runs in-process anyway')
})

// Last: once a key exists the server requires one.
t.test('COMPACTD_API_KEY is sent as a bearer token', async (t) => {
  const { key } = await createApiKey(app.db, 'cli-tenant')
  process.env.COMPACTD_API_KEY = key
  t.teardown(() => {
    delete process.env.COMPACTD_API_KEY
  })
  const ok = await run(['estimate', messagesFile, '--json', '--url', url])
  t.equal(ok.code, 0, ok.stderr)
  process.env.COMPACTD_API_KEY = 'cpd_wrong'
  const refused = await run(['estimate', messagesFile, '--url', url])
  t.equal(refused.code, 1)
  oneLine(t, refused.stderr, /server: POST \/estimate: 401 unauthorized: .* \(set COMPACTD_API_KEY\)/)
})

t.test('npx compactd from the clone', async (t) => {
  // npm's own cache, fresh: npx keeps a directory per package there, and one left half-made
  // by an npx that was killed (a stopped test run) made every later `npx compactd` fail with
  // ENOENT on its package.json, whatever the clone held.
  const cache = fs.mkdtempSync(path.join(tmp, 'npm-cache-'))
  const res = await spawnCli(['--version'], { command: ['npx', '--no-install', 'compactd'], env: { npm_config_cache: cache } })
  t.equal(res.code, 0, res.stderr)
  t.equal(res.stdout, `${(JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version}\n`)
})

t.test('a reader that stops early (compactd compact … | true) gets no stack trace', async (t) => {
  // Output far larger than a pipe's buffer, to a reader that exits at once: EPIPE.
  const file = write('large.json', [{ role: 'user', content: 'task' }, ...Array.from({ length: 60 }, () => ({ role: 'assistant', content: 'word '.repeat(2000) }))])
  const res = await spawnCli(['-c', `"${process.execPath}" "${path.join(root, 'bin/compactd.mjs')}" compact "${file}" --target 100000 | true`], { command: ['bash'] })
  t.equal(res.code, 0)
  t.notMatch(res.stderr, /Unhandled 'error' event|EPIPE|\n\s+at /, `no stack trace: ${res.stderr.slice(0, 300)}`)
})
