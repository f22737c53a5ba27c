/**
 * The Claude Code hook pair (issue 12), run as Claude Code runs them: the command as a
 * child process, the hook's documented JSON on stdin, a running service (started here).
 * pre-compact stores a checkpoint of the transcript under the session; session-start
 * (source compact) prints it for the new context; docs/integrations.md's settings
 * snippet runs exactly these commands.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import type * as Tap from 'tap'
import { continuationText } from '../../../src/cli/compactd/hooks.ts'
import { buildTestApp } from '../../helpers/build.ts'
import { ensureBuilt } from '../../helpers/service-process.ts'
import { CLAUDE_SESSION_ID, claudeCodeLog } from '../../helpers/agent-logs.ts'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..')
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'compactd-hooks-'))
t.teardown(() => fs.rmSync(tmp, { recursive: true, force: true }))

// The hooks run from the build, as installed (bin/compactd.mjs picks it when it is current).
await ensureBuilt()
const { app } = await buildTestApp(t)
await app.listen({ port: 0, host: '127.0.0.1' })
const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`

function hook(event: string, input: unknown, env: Record<string, string> = { COMPACTD_URL: url }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // As settings.json runs it: the command, in the project's directory, JSON on stdin.
    const child = spawn(process.execPath, [path.join(root, 'bin/compactd.mjs'), 'hook', event], { cwd: tmp, env: { PATH: process.env.PATH!, HOME: tmp, ...env }, stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c) => (stdout += c))
    child.stderr.on('data', (c) => (stderr += c))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
    child.stdin.end(typeof input === 'string' ? input : JSON.stringify(input))
  })
}

function oneLine(t: Tap.Test, stderr: string, re: RegExp): void {
  const lines = stderr.split('\n').filter((l) => l.trim() !== '')
  t.equal(lines.length, 1, `one line: ${JSON.stringify(stderr)}`)
  t.match(lines[0] ?? '', re)
  t.notMatch(stderr, /\n\s+at [\w.<]+ \(|node:internal/, 'no stack trace')
}

const transcript = path.join(tmp, `${CLAUDE_SESSION_ID}.jsonl`)
fs.writeFileSync(transcript, claudeCodeLog({ work: 30 }))

/** What Claude Code sends (code.claude.com/docs/en/hooks: PreCompact and SessionStart input). */
const preCompactInput = (trigger: 'auto' | 'manual', sessionId = CLAUDE_SESSION_ID, transcriptPath = transcript) => ({
  session_id: sessionId,
  transcript_path: transcriptPath,
  cwd: '/home/dev/shop',
  hook_event_name: 'PreCompact',
  trigger,
  custom_instructions: '',
})
const sessionStartInput = (source: string, sessionId = CLAUDE_SESSION_ID) => ({ session_id: sessionId, transcript_path: transcript, cwd: '/home/dev/shop', hook_event_name: 'SessionStart', source })

interface Checkpoint {
  checkpointNum: number
  round: number
  summary: string
  originalTokens: number
  createdAt: string
}

t.test('pre-compact stores a checkpoint; session-start (compact) prints it', async (t) => {
  const pre = await hook('pre-compact', preCompactInput('auto'))
  t.equal(pre.code, 0, pre.stderr)
  t.equal(pre.stdout, '')
  oneLine(t, pre.stderr, new RegExp(`^compactd: checkpoint 1 of session ${CLAUDE_SESSION_ID} stored \\(auto; [\\d,]+ → [\\d,]+ tokens, rules, round 2\\)$`))

  const list = await app.inject({ method: 'GET', url: `/sessions/${CLAUDE_SESSION_ID}/checkpoints` })
  t.equal(list.statusCode, 200)
  const items = list.json().items as Checkpoint[]
  t.equal(items.length, 1)
  const c = items[0]!
  t.equal(c.round, 2, "Claude Code's earlier compaction is round 1")
  t.match(c.summary, /^## Session Summary \(Compaction Round 2\)/)
  t.match(c.summary, /"Also add a test for a double close\."/, 'the request made after the earlier compaction, quoted')
  t.match(c.summary, /Make close\(\) idempotent\./, "what Claude Code's summary still had pending")
  t.match(c.summary, /test\/case29\.test\.ts|case2\d\.test\.ts/, 'the latest work')
  t.notMatch(c.summary, /Reading the pool code and the test\./, 'scope current: nothing from before the earlier compaction except through its summary')

  const start = await hook('session-start', sessionStartInput('compact'))
  t.equal(start.code, 0, start.stderr)
  t.equal(start.stderr, '')
  t.equal(start.stdout, continuationText(c), 'the checkpoint, introduced in one line')
  t.match(start.stdout, /^\[compactd checkpoint 1 of this session, written just before the compaction, from [\d,]+ tokens of context: /)

  // The next compaction (a manual /compact, later in the session) is checkpoint 2.
  const later = [
    { type: 'user', uuid: 'u-late', parentUuid: 'uw-29', sessionId: CLAUDE_SESSION_ID, timestamp: '2026-11-20T10:00:00.000Z', message: { role: 'user', content: 'Now document close() in the README.' } },
    { type: 'assistant', uuid: 'a-late', parentUuid: 'u-late', sessionId: CLAUDE_SESSION_ID, timestamp: '2026-11-20T10:00:05.000Z', message: { id: 'msg_late', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [{ type: 'text', text: 'Documenting close() in README.md.' }, { type: 'tool_use', id: 'toolu_late', name: 'Edit', input: { file_path: '/home/dev/shop/README.md', old_string: '## API', new_string: '## API\n\nclose() may be called twice.' } }] } },
    { type: 'user', uuid: 'u-late2', parentUuid: 'a-late', sessionId: CLAUDE_SESSION_ID, timestamp: '2026-11-20T10:00:06.000Z', message: { role: 'user', content: [{ tool_use_id: 'toolu_late', type: 'tool_result', content: 'The file /home/dev/shop/README.md has been updated.' }] } },
  ]
  fs.appendFileSync(transcript, later.map((l) => `${JSON.stringify(l)}\n`).join(''))
  const again = await hook('pre-compact', preCompactInput('manual'))
  t.equal(again.code, 0, again.stderr)
  oneLine(t, again.stderr, /checkpoint 2 of session .* stored \(manual; /)
  const next = await hook('session-start', sessionStartInput('compact'))
  t.match(next.stdout, /^\[compactd checkpoint 2 of this session/)
  t.match(next.stdout, /^## Session Summary \(Compaction Round 3\)/m, 'the rounds go on')
  t.match(next.stdout, /"Now document close\(\) in the README\."/, 'the new request, quoted')
})

t.test('session-start: other sources, and sessions with nothing stored', async (t) => {
  for (const source of ['startup', 'resume', 'clear']) {
    const res = await hook('session-start', sessionStartInput(source))
    t.equal(res.code, 0)
    t.equal(res.stdout, '', `${source}: nothing added`)
  }
  const none = await hook('session-start', sessionStartInput('compact', 'never-seen'))
  t.equal(none.code, 0, 'nothing to restore is no failure')
  t.equal(none.stdout, '')
  oneLine(t, none.stderr, /nothing to restore: session never-seen has no checkpoint and no rolling summary/)

  // A session kept through /sessions (no checkpoint): its continuation block.
  await app.inject({ method: 'PUT', url: '/sessions/rolling-1', payload: {} })
  const put = await app.inject({ method: 'PUT', url: '/sessions/rolling-1/summary', payload: { content: '## Previously in This Session\n1. Fixed the pool test in src/db.ts\n\n## Continuation\nCurrent task: Add a double-close test\nRelevant files: src/db.ts\n' } })
  t.equal(put.statusCode, 200, put.body)
  const cont = (await app.inject({ method: 'GET', url: '/sessions/rolling-1/continuation' })).json() as { prompt: string }
  const res = await hook('session-start', sessionStartInput('compact', 'rolling-1'))
  t.equal(res.code, 0, res.stderr)
  t.equal(res.stdout, `${cont.prompt}\n`)
  t.match(res.stdout, /^\[Previous Session Context\]\nCurrent task: Add a double-close test/)
})

t.test('pre-compact: a transcript with nothing to keep stores nothing', async (t) => {
  const small = path.join(tmp, 'small.jsonl')
  fs.writeFileSync(small, claudeCodeLog({ withCompaction: false }).split('\n').slice(0, 4).join('\n'))
  const res = await hook('pre-compact', preCompactInput('manual', 'small-1', small))
  t.equal(res.code, 0, res.stderr)
  oneLine(t, res.stderr, /^compactd: no checkpoint for session small-1: compaction would not make the conversation smaller/)
  t.equal((await app.inject({ method: 'GET', url: '/sessions/small-1/checkpoints' })).statusCode, 404)
})

t.test('bad input and an unreachable service: one line, exit 1', async (t) => {
  const closed = await new Promise<string>((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo
      probe.close(() => resolve(`http://127.0.0.1:${port}`))
    })
  })
  const cases: [string, unknown, RegExp, Record<string, string>?][] = [
    ['pre-compact', 'not json', /^compactd: stdin: not valid JSON/],
    ['pre-compact', { transcript_path: transcript }, /^compactd: stdin: session_id: expected a non-empty string$/],
    ['pre-compact', { session_id: 'a b/c', transcript_path: transcript }, /session_id: "a b\/c" is not a usable session id/],
    ['pre-compact', { session_id: 's1' }, /stdin: transcript_path: expected the path of the session transcript/],
    ['pre-compact', preCompactInput('auto', 's2', path.join(tmp, 'gone.jsonl')), /^compactd: transcript_path .*gone\.jsonl: no such file or directory$/],
    ['pre-compact', preCompactInput('auto'), /^compactd: cannot reach http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/, { COMPACTD_URL: closed }],
    // A hook cannot run in-process: it says what to start, and exit 1 lets Claude Code carry on.
    ['session-start', sessionStartInput('compact'), /^compactd: cannot reach .*; the hook needs the compactd service there: start it \(`npm start` in the compactd directory, .*\), or set COMPACTD_URL to where it runs; Claude Code carries on without compactd$/, { COMPACTD_URL: closed }],
    ['session-start', '[]', /^compactd: stdin: expected a JSON object with session_id$/],
  ]
  for (const [event, input, re, env] of cases) {
    const res = await hook(event, input, env)
    t.equal(res.code, 1, `${event} ${JSON.stringify(input).slice(0, 60)} → exit 1`)
    t.equal(res.stdout, '')
    oneLine(t, res.stderr, re)
  }
  const unknown = await hook('post-compact', {})
  t.equal(unknown.code, 2)
  oneLine(t, unknown.stderr, /unknown hook "post-compact"; expected pre-compact or session-start/)
})

t.test("docs/integrations.md's settings snippet runs these hooks", async (t) => {
  const doc = fs.readFileSync(path.join(root, 'docs/integrations.md'), 'utf8')
  const block = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => b.includes('"PreCompact"'))
  t.ok(block, 'a settings.json snippet')
  const settings = JSON.parse(block!) as { hooks: Record<string, { matcher?: string; hooks: { type: string; command: string }[] }[]> }
  const pre = settings.hooks.PreCompact!
  t.ok(pre.length > 0)
  for (const entry of pre) t.match(entry.hooks[0]!.command, /compactd hook pre-compact$/)
  const start = settings.hooks.SessionStart!
  t.equal(start.length, 1)
  t.equal(start[0]!.matcher, 'compact', 'session-start runs after a compaction only')
  t.match(start[0]!.hooks[0]!.command, /compactd hook session-start$/)
})
