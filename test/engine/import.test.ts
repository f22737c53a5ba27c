/**
 * Agent-log import (issue 12, seed 003): every source from hand-written logs (Claude
 * Code, Codex CLI, pi, Gemini CLI, SWE-agent, mini-swe-agent), their compactions
 * (position, line, preTokens, summary), broken and unknown lines reported with line
 * numbers, detection, the three output formats, scope current, and POST /import with
 * its 4xx errors. Then the real logs in ../shared/fixtures/transcripts, when present.
 */
import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import type * as Tap from 'tap'
import { findPairingProblems } from '../../src/engine/conversation/pairing.ts'
import { importLog, ImportError, type ImportResult } from '../../src/engine/import/index.ts'
import { FORMAT_NAMES, parseConversation, type MessageFormat } from '../../src/engine/messages/index.ts'
import { buildTestApp } from '../helpers/build.ts'
import { CONVERSATIONS, conversationsSkip, TRANSCRIPTS, transcriptsSkip } from '../helpers/fixtures.ts'
import {
  CLAUDE_SESSION_ID,
  CLAUDE_SUMMARY_TEXT,
  claudeCodeLog,
  codexLog,
  geminiContents,
  geminiRecording,
  miniSweAgentTrajectory,
  piLog,
  sweAgentTrajectory,
} from '../helpers/agent-logs.ts'

/** The output is a valid conversation in its format, with every tool call answered. */
function assertValid(t: Tap.Test, r: ImportResult, label: string): void {
  const parsed = parseConversation(r.messages, { format: r.format, ...(r.system !== undefined ? { system: r.system } : {}) })
  t.equal(parsed.format, r.format, `${label}: parses as ${r.format}`)
  t.same(findPairingProblems(parsed.messages), [], `${label}: every tool call paired`)
  t.equal(r.stats.messages, r.messages.length, `${label}: stats.messages`)
}

/** Text of a written message in any format. */
function textOf(m: unknown): string {
  const content = (m as { content?: unknown }).content
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content.map((p) => (p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join('\n')
}

// ---------------------------------------------------------------------------
// Claude Code

t.test('Claude Code: messages, the compaction, broken and unknown lines', async (t) => {
  const r = importLog(claudeCodeLog(), { format: 'anthropic' })
  t.equal(r.source, 'claude-code')
  t.equal(r.detected, true)
  t.equal(r.format, 'anthropic')
  assertValid(t, r, 'anthropic')
  const msgs = r.messages as { role: string; content: unknown }[]
  // Lines 3-5 are one API message (msg_01): thinking (signature kept), text, tool_use.
  t.same(
    (msgs[1]!.content as { type: string }[]).map((b) => b.type),
    ['thinking', 'text', 'tool_use'],
    'three assistant lines with one message id are one message',
  )
  t.equal((msgs[1]!.content as { signature?: string }[])[0]!.signature, 'sig-abc', 'thinking keeps its signature')
  // Lines 8 and 9: results of the two parallel calls, one user message.
  t.same(
    (msgs[4]!.content as { type: string; tool_use_id: string }[]).map((b) => b.tool_use_id),
    ['toolu_02', 'toolu_03'],
    'parallel results on two lines join one user message',
  )
  t.equal(msgs[0]!.content, 'Fix the failing test in test/db.test.ts', 'string content stays a string')
  t.notOk(
    msgs.some((m) => textOf(m).includes('Subagent')),
    'the sidechain line is not in the conversation',
  )
  t.equal(r.compactions.length, 1)
  const c = r.compactions[0]!
  t.equal(c.line, 11, 'the compact_boundary line')
  t.equal(c.trigger, 'auto')
  t.equal(c.preTokens, 154321, 'compactMetadata.preTokens')
  t.equal(c.timestamp, '2026-11-20T09:04:00.000Z')
  t.ok(c.summary!.startsWith('Analysis:\nThe user asked to fix the failing pool test'), 'the summary without the continued-session preamble')
  t.notMatch(c.summary!, /Please continue the conversation/, 'without the continue instruction')
  t.equal(textOf(msgs[c.position!]), CLAUDE_SUMMARY_TEXT, 'position is the continued-session message')
  t.same(
    r.issues.map((i) => [i.line, i.kind]),
    [
      [17, 'broken'],
      [18, 'unknown'],
    ],
  )
  t.match(r.issues[0]!.message, /not valid JSON/)
  t.match(r.issues[1]!.message, /telemetry-blob/)
  t.equal(r.issuesOmitted, 0)
  t.same(r.stats, { lines: 18, entries: 17, skipped: 3, messages: msgs.length }, 'summary title, snapshot and sidechain lines skipped')
  t.same(r.session, { id: CLAUDE_SESSION_ID, cwd: '/home/dev/shop', agentVersion: '2.0.14', startedAt: '2026-11-20T09:00:00.000Z', model: 'claude-sonnet-4-5-20250929' })
  t.same(r.repairs, [])
})

t.test('Claude Code: the summary position holds in every format; scope current starts there', async (t) => {
  for (const format of FORMAT_NAMES) {
    const r = importLog(claudeCodeLog({ tail: true }), { format })
    assertValid(t, r, format)
    const c = r.compactions[0]!
    t.equal(textOf(r.messages[c.position!]), CLAUDE_SUMMARY_TEXT, `${format}: messages[position] is the summary`)
    const current = importLog(claudeCodeLog({ tail: true }), { format, scope: 'current' })
    assertValid(t, current, `${format} current`)
    t.equal(current.scope, 'current')
    t.equal(current.compactions[0]!.position, 0, `${format}: the summary opens the current context`)
    t.equal(textOf(current.messages[0]), CLAUDE_SUMMARY_TEXT)
    t.equal(textOf(current.messages.at(-1)), 'Also add a test for a double close.', `${format}: up to the last message`)
    t.notOk(
      current.messages.some((m) => textOf(m).includes('Reading the pool code')),
      `${format}: nothing from before the compaction`,
    )
  }
  // openai: thinking cannot be written and is dropped; tool results are tool messages.
  const openai = importLog(claudeCodeLog(), {})
  t.equal(openai.format, 'openai', 'openai is the default')
  t.same((openai.messages[1] as { tool_calls: { id: string }[] }).tool_calls.map((c) => c.id), ['toolu_01'])
  t.same((openai.messages[2] as { role: string; tool_call_id: string }).tool_call_id, 'toolu_01')
})

t.test('Claude Code: a continued-session summary without a boundary (older versions) is a compaction', async (t) => {
  const lines = claudeCodeLog({ withCompaction: false })
    .trimEnd()
    .split('\n')
  const summaryLine = JSON.stringify({ type: 'user', uuid: 'u-old', parentUuid: null, sessionId: 'old', message: { role: 'user', content: [{ type: 'text', text: CLAUDE_SUMMARY_TEXT }] } })
  lines.splice(10, 0, summaryLine) // line 11
  const r = importLog(lines.join('\n'))
  t.equal(r.compactions.length, 1)
  const c = r.compactions[0]!
  t.equal(c.line, 11)
  t.notOk(c.trigger, 'no trigger recorded')
  t.equal(c.preTokens, 5200 + 80, 'preTokens from the last assistant usage')
  t.equal(textOf(r.messages[c.position!]), CLAUDE_SUMMARY_TEXT)
  // A boundary whose summary line is missing still counts, with no summary.
  const cut = claudeCodeLog().trimEnd().split('\n')
  cut.splice(11, 1) // drop the summary line (12)
  const r2 = importLog(cut.join('\n'))
  t.equal(r2.compactions.length, 1)
  t.equal(r2.compactions[0]!.summary, null)
  t.equal(r2.compactions[0]!.preTokens, 154321)
  t.equal(textOf(r2.messages[r2.compactions[0]!.position!]).startsWith('Making close() idempotent.'), true, 'position: the first message after the boundary')
})

// ---------------------------------------------------------------------------
// Codex CLI

t.test('Codex: rollout items, the compacted item, broken and unknown lines', async (t) => {
  const r = importLog(codexLog(), { format: 'ai-sdk' })
  t.equal(r.source, 'codex')
  assertValid(t, r, 'ai-sdk')
  const msgs = r.messages as { role: string; content: unknown }[]
  t.same(msgs.slice(0, 3).map((m) => m.role), ['system', 'system', 'user'], 'base instructions and the developer message are system messages')
  t.equal(msgs[0]!.content, 'You are Codex, a coding agent.')
  const first = msgs[3]!.content as { type: string; text?: string; toolName?: string; input?: unknown }[]
  t.same(
    first.map((p) => p.type),
    ['reasoning', 'tool-call'],
    'reasoning summary and the call are one assistant message',
  )
  t.same(first[1]!.input, { cmd: 'rg -n currency src/export.ts' })
  t.equal(r.compactions.length, 1)
  const c = r.compactions[0]!
  t.equal(c.line, 12)
  t.equal(c.preTokens, 242000, 'the last token_count before it (last_token_usage.total_tokens)')
  t.equal(c.summary, 'The user wants the CSV export to include the currency column. src/export.ts:12 defines the columns; add "currency" there and to the row mapper, then run npm test.')
  const summaryMessage = textOf(msgs[c.position!])
  t.ok(summaryMessage.startsWith('Another language model started to solve this problem'), "in the model's context the summary follows Codex's handoff prefix")
  t.ok(summaryMessage.endsWith(c.summary!))
  const patch = (msgs[c.position! + 1]!.content as { type: string; toolName?: string; input?: { input?: string } }[]).find((p) => p.type === 'tool-call')!
  t.equal(patch.toolName, 'apply_patch')
  t.match(patch.input!.input!, /\+const columns = \["id", "amount", "currency"\]/, 'a custom tool call keeps its freeform input')
  t.same(
    r.issues.map((i) => [i.line, i.kind]),
    [
      [9, 'broken'],
      [10, 'unknown'],
    ],
  )
  t.match(r.issues[1]!.message, /rollout_hint/)
  t.same(r.session, { startedAt: '2026-11-21T10:00:00.000Z', id: 'c0de-1', cwd: '/home/dev/shop', agentVersion: '0.114.0', model: 'gpt-5.4' })
})

t.test('Codex: a summary only in replacement_history, and older rollouts with bare items', async (t) => {
  const t0 = '2026-11-21T10:00:00.000Z'
  const lines = [
    { timestamp: t0, type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Task one.' }] } },
    {
      timestamp: t0,
      type: 'compacted',
      payload: {
        message: '',
        replacement_history: [
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Task one.' }] },
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Another language model started to solve this problem and produced a summary of its thinking process. Use it.\nDid step A.' }] },
        ],
      },
    },
    { timestamp: t0, type: 'compacted', payload: { message: '', replacement_history: [{ type: 'compaction', encrypted_content: 'x' }] } },
    { timestamp: t0, type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Continuing.' }] } },
  ]
  const r = importLog(lines.map((l) => JSON.stringify(l)).join('\n'))
  t.equal(r.compactions.length, 2)
  t.equal(r.compactions[0]!.summary, 'Did step A.')
  t.equal(r.compactions[0]!.preTokens, null, 'no token_count in the log')
  t.equal(r.compactions[1]!.summary, null, 'an encrypted compaction holds no readable summary')
  t.equal(textOf(r.messages[r.compactions[1]!.position!]), 'Continuing.', 'its position is where the next message starts')

  const legacy = [
    { id: 'legacy-1', timestamp: t0, instructions: null },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'List the files.' }] },
    { record_type: 'state' },
    { type: 'function_call', name: 'shell', arguments: '{"command":["ls"]}', call_id: 'c1' },
    { type: 'function_call_output', call_id: 'c1', output: { content: 'a.txt', metadata: { exit_code: 0 } } },
  ]
  const l = importLog(legacy.map((x) => JSON.stringify(x)).join('\n'))
  t.equal(l.source, 'codex', 'bare response items are detected as Codex')
  t.equal(l.session.id, 'legacy-1')
  assertValid(t, l, 'legacy')
  t.equal((l.messages[2] as { content: string }).content, 'a.txt')
})

// ---------------------------------------------------------------------------
// pi

t.test('pi: entries, the compaction before its first kept entry, broken and unknown lines', async (t) => {
  const r = importLog(piLog())
  t.equal(r.source, 'pi')
  assertValid(t, r, 'openai')
  const texts = r.messages.map(textOf)
  t.equal(r.compactions.length, 1)
  const c = r.compactions[0]!
  t.equal(c.line, 10)
  t.equal(c.preTokens, 51000, 'tokensBefore')
  t.ok(c.summary!.startsWith('## Goal\n- Add an RSS feed'))
  t.ok(texts[c.position!]!.startsWith('The conversation history before this point was compacted into the following summary:\n\n<summary>\n## Goal'), "pi's own wrapper")
  t.ok(texts[c.position! + 1]!.startsWith('Ran `npm test`'), 'the first kept entry (e6, a bash execution) follows the summary')
  t.match(texts[c.position! + 1]!, /12 passing/)
  t.notOk(
    texts.some((x) => x.includes('workspace tree')),
    'a hidden extension message is not part of the conversation',
  )
  t.same(
    r.issues.map((i) => [i.line, i.kind]),
    [
      [12, 'broken'],
      [13, 'unknown'],
    ],
  )
  t.match(r.issues[0]!.message, /Bad escaped character/)
  t.equal(texts.at(-1), 'Ship it.', 'lines after a broken one are read')
  t.equal(r.session.model, 'claude-sonnet-4-5')
  const current = importLog(piLog(), { scope: 'current' })
  t.ok(textOf(current.messages[0]).startsWith('The conversation history before this point was compacted'))
  t.equal(current.compactions[0]!.position, 0)
})

// ---------------------------------------------------------------------------
// Gemini CLI

t.test('Gemini CLI: Content[] and chat recordings, <state_snapshot> compactions', async (t) => {
  const contents = importLog(JSON.stringify(geminiContents(), null, 2), { format: 'ai-sdk' })
  t.equal(contents.source, 'gemini-cli')
  assertValid(t, contents, 'contents')
  const c = contents.compactions[0]!
  t.equal(contents.compactions.length, 1)
  t.equal(c.line, null)
  t.equal(c.path, '[1]')
  t.equal(c.preTokens, null, 'a Content[] log records no token counts')
  t.ok(c.summary!.startsWith('<state_snapshot>'))
  t.equal(textOf(contents.messages[c.position!]), c.summary)
  t.same(contents.issues, [{ line: null, path: '[8]', kind: 'unknown', message: 'a Content with role "narrator"' }])
  const calls = contents.messages.flatMap((m) => (Array.isArray((m as { content: unknown }).content) ? ((m as { content: { type: string; toolCallId?: string; toolName?: string }[] }).content.filter((p) => p.type === 'tool-call' || p.type === 'tool-result')) : []))
  t.same(
    calls.map((p) => [p.type, p.toolName]),
    [
      ['tool-call', 'read_file'],
      ['tool-result', 'read_file'],
      ['tool-call', 'replace'],
      ['tool-result', 'replace'],
    ],
  )
  t.equal(calls[2]!.toolCallId, calls[3]!.toolCallId, 'a call without an id is paired with its response by name')
  t.equal(contents.messages.filter((m) => (m as { content: { type: string }[] }).content?.some?.((p) => p.type === 'reasoning')).length, 1, 'a thought part is reasoning')

  const rec = importLog(geminiRecording())
  t.equal(rec.source, 'gemini-cli')
  assertValid(t, rec, 'recording')
  t.equal(rec.compactions.length, 1)
  t.equal(rec.compactions[0]!.path, 'messages[3]')
  t.equal(rec.compactions[0]!.preTokens, 180250, 'the last recorded tokens.total')
  t.same(rec.issues.map((i) => [i.path, i.kind]), [['messages[5]', 'unknown']])
  t.equal(rec.stats.skipped, 1, 'the info record')
  t.same(rec.session, { agent: 'gemini-cli', id: 'gem-5', startedAt: '2026-11-23T12:00:00.000Z', model: 'gemini-2.5-pro' })
  // The same records one per line.
  const recording = geminiRecording() as { messages: object[] }
  const jsonl = importLog(recording.messages.map((m) => JSON.stringify(m)).join('\n'))
  t.equal(jsonl.source, 'gemini-cli')
  t.equal(jsonl.compactions[0]!.line, 4)
  t.same(jsonl.issues.map((i) => [i.line, i.kind]), [[6, 'unknown']])
})

// ---------------------------------------------------------------------------
// SWE-agent, mini-swe-agent

t.test('SWE-agent and mini-swe-agent trajectories', async (t) => {
  const swe = importLog(JSON.stringify(sweAgentTrajectory(), null, 2))
  t.equal(swe.source, 'swe-agent')
  t.equal(swe.session.agent, 'swe-agent')
  assertValid(t, swe, 'swe-agent')
  t.same(swe.messages.slice(0, 4), [
    { role: 'system', content: 'SETTING: You are an autonomous programmer.' },
    { role: 'user', content: 'ISSUE: TimeDelta rounds 345 ms down to 344.' },
    { role: 'assistant', content: 'Listing files.', tool_calls: [{ id: 'call_s1', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }] },
    { role: 'tool', tool_call_id: 'call_s1', content: 'setup.py src' },
  ])
  t.same(swe.repairs, [{ line: null, path: 'history[4]', action: 'added "[no result recorded]" for unanswered tool call call_s2' }], 'the last call never got a result')
  t.same(swe.compactions, [], 'SWE-agent does not compact')

  const mini = importLog(miniSweAgentTrajectory(), { format: 'ai-sdk' })
  t.equal(mini.source, 'swe-agent')
  t.equal(mini.session.agent, 'mini-swe-agent')
  t.equal(mini.session.model, 'deepseek/deepseek-reasoner')
  assertValid(t, mini, 'mini')
  t.same((mini.messages[2] as { content: { type: string }[] }).content.map((p) => p.type), ['reasoning', 'tool-call'], 'reasoning_content is a reasoning part')
  t.equal(mini.stats.skipped, 1, 'the exit message')
})

// ---------------------------------------------------------------------------
// Detection, given sources, errors

t.test('detection, a given source, and input that is no log', async (t) => {
  const detected = { 'claude-code': claudeCodeLog(), codex: codexLog(), pi: piLog(), 'gemini-cli': JSON.stringify(geminiContents()), 'swe-agent': JSON.stringify(miniSweAgentTrajectory()) }
  for (const [source, log] of Object.entries(detected)) {
    const r = importLog(log)
    t.equal(r.source, source, `${source} detected`)
    t.equal(r.detected, true)
    const given = importLog(log, { source: source as never })
    t.equal(given.detected, false, `${source} given`)
    t.same(given.messages, r.messages)
  }
  const single = importLog(claudeCodeLog().split('\n')[1]!)
  t.equal(single.source, 'claude-code', 'a one-line log')
  t.equal(single.messages.length, 1)

  const err = (log: unknown, opts: object, field: string, re: RegExp) => {
    try {
      importLog(log, opts)
      t.fail(`expected an ImportError on ${field}`)
    } catch (e) {
      t.ok(e instanceof ImportError, `${field}: an ImportError`)
      t.equal((e as ImportError).field, field)
      t.match((e as Error).message, re)
      t.notMatch((e as Error).message, /\n/, 'one line')
    }
  }
  err('', {}, 'log', /empty/)
  err('   \n\n', {}, 'log', /empty/)
  err('hello\nworld\n', {}, 'log', /no line is valid JSON \(line 1: not valid JSON/)
  err('{"a":1}\n{"b":2}\n', {}, 'log', /not a log this importer knows/)
  err('{\n  "title": "notes"\n}', {}, 'log', /a JSON document this importer does not know/)
  err(42, {}, 'log', /expected the log's text/)
  err(claudeCodeLog(), { source: 'codex' }, 'source', /not a codex log; it looks like claude-code/)
  err(JSON.stringify(sweAgentTrajectory()), { source: 'pi' }, 'source', /not a pi log; it looks like swe-agent/)
  err(claudeCodeLog(), { source: 'swe-agent' }, 'source', /one JSON document/)
  err(claudeCodeLog(), { format: 'markdown' }, 'format', /expected "openai", "anthropic", "ai-sdk" or "responses"/)
  err(claudeCodeLog(), { scope: 'some' }, 'scope', /expected "all" or "current"/)
  err('[1, 2]', { source: 'codex' }, 'log', /no entry of the log could be read as codex \(line 1: expected a JSON object/)

  // A line nested deeper than the adapters walk is broken, not a crash.
  let deep: unknown = 'x'
  for (let i = 0; i < 200; i++) deep = { d: deep }
  const withDeep = claudeCodeLog().trimEnd().split('\n')
  withDeep.splice(2, 0, JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'text', text: 'x', deep }] } }))
  const r = importLog(withDeep.join('\n'))
  t.same(r.issues[0], { line: 3, kind: 'broken', message: 'nested deeper than 64 levels' })
})

// A JSON string nested 20,000 deep inside a log line (a tool call's arguments, a tool
// result, a tool input's field): the parsers parse arguments, and the adapters walk and
// stringify the result recursively, so this overflowed the stack (a 500 from /import).
// Each line, and each JSON string in it, is held to the body's limit (MAX_JSON_DEPTH).
const DEEP_OBJECT_TEXT = '{"a":'.repeat(20_000) + '1' + '}'.repeat(20_000)
const DEEP_ARRAY_TEXT = '['.repeat(20_000) + ']'.repeat(20_000)
/** Stands for a value 20,000 deep itself: JSON.stringify would overflow on the real one, so the line's text is spliced. */
const DEEP_VALUE = '\u0000deep'

/** Each source's log with one extra line holding deep JSON, and where that line names it. */
function deepLogs(): { label: string; log: string; line: number; path: RegExp }[] {
  const withLine = (log: string, line: object) => {
    const lines = log.trimEnd().split('\n')
    lines.push(JSON.stringify(line).replace(JSON.stringify(DEEP_VALUE), DEEP_OBJECT_TEXT))
    return { log: lines.join('\n') + '\n', line: lines.length }
  }
  const codexCall = (args: string) => ({ timestamp: '2026-11-21T10:00:59.000Z', type: 'response_item', payload: { type: 'function_call', name: 'exec_command', arguments: args, call_id: 'call_deep' } })
  const cc = (content: unknown[]) => ({ parentUuid: 'u-1', isSidechain: false, type: 'assistant', uuid: 'a-deep', sessionId: CLAUDE_SESSION_ID, timestamp: '2026-11-20T10:00:00.000Z', message: { id: 'msg_deep', role: 'assistant', content } })
  const ccUser = (content: unknown[]) => ({ parentUuid: 'a-deep', isSidechain: false, type: 'user', uuid: 'u-deep', sessionId: CLAUDE_SESSION_ID, timestamp: '2026-11-20T10:00:01.000Z', message: { role: 'user', content } })
  const pi = (args: unknown) => ({ type: 'message', id: 'e-deep', parentId: 'e2', timestamp: '2026-11-22T09:00:00.000Z', message: { role: 'assistant', content: [{ type: 'toolCall', id: 'tc_deep', name: 'bash', arguments: args }] } })
  return [
    { label: 'codex: arguments, an object 20,000 deep', ...withLine(codexLog(), codexCall(DEEP_OBJECT_TEXT)), path: /^payload\.arguments: JSON text nested deeper than 64 levels$/ },
    { label: 'codex: arguments, an array 20,000 deep', ...withLine(codexLog(), codexCall(DEEP_ARRAY_TEXT)), path: /^payload\.arguments: JSON text nested deeper than 64 levels$/ },
    { label: 'claude-code: a tool input field', ...withLine(claudeCodeLog(), cc([{ type: 'tool_use', id: 'toolu_deep', name: 'Bash', input: { command: DEEP_OBJECT_TEXT } }])), path: /^message\.content\[0\]\.input\.command: JSON text nested deeper than 64 levels$/ },
    { label: 'claude-code: a tool result', ...withLine(claudeCodeLog(), ccUser([{ type: 'tool_result', tool_use_id: 'toolu_01', content: DEEP_OBJECT_TEXT }])), path: /^message\.content\[0\]\.content: JSON text nested deeper than 64 levels$/ },
    { label: 'claude-code: a tool input 20,000 deep itself', ...withLine(claudeCodeLog(), cc([{ type: 'tool_use', id: 'toolu_deep', name: 'Bash', input: DEEP_VALUE }])), path: /^nested deeper than 64 levels$/ },
    { label: 'pi: arguments as a string', ...withLine(piLog(), pi(DEEP_OBJECT_TEXT)), path: /^message\.content\[0\]\.arguments: JSON text nested deeper than 64 levels$/ },
    { label: 'pi: arguments 20,000 deep itself', ...withLine(piLog(), pi(DEEP_VALUE)), path: /^nested deeper than 64 levels$/ },
  ]
}

t.test('a log line holding JSON nested 20,000 deep (arguments, a tool result, an input field) is a broken line, not a stack overflow', async (t) => {
  for (const { label, log, line, path } of deepLogs()) {
    for (const format of FORMAT_NAMES) {
      let r: ImportResult
      try {
        r = importLog(log, { format })
      } catch (err) {
        t.fail(`${label} (${format}): threw ${(err as Error).name}: ${(err as Error).message.slice(0, 80)}`)
        continue
      }
      const issue = r.issues.find((i) => i.line === line)
      t.equal(issue?.kind, 'broken', `${label} (${format}): line ${line} is broken`)
      t.match(issue?.message ?? '', path, `${label} (${format}): names where: ${issue?.message}`)
      assertValid(t, r, `${label} (${format})`)
    }
  }
  // JSON text exactly at the limit is still read (and parsed, as arguments are).
  const at = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n)
  const lines = codexLog().trimEnd().split('\n')
  lines.push(JSON.stringify({ timestamp: '2026-11-21T10:00:59.000Z', type: 'response_item', payload: { type: 'function_call', name: 'exec_command', arguments: at(64), call_id: 'call_64' } }))
  t.notOk(importLog(lines.join('\n')).issues.some((i) => i.line === lines.length), '64 levels of arguments are read')
  lines[lines.length - 1] = lines[lines.length - 1]!.replace(JSON.stringify(at(64)), JSON.stringify(at(65)))
  t.ok(importLog(lines.join('\n')).issues.some((i) => i.line === lines.length && i.kind === 'broken'), '65 are not')

  // The same as one JSON document: an array of entries, a one-line log, a trajectory.
  const entries = codexLog().trimEnd().split('\n').filter((l) => !l.includes('"last_token_usage":,') && l.endsWith('}')).map((l) => JSON.parse(l) as unknown)
  const arr = importLog(JSON.stringify([...entries, { timestamp: 'x', type: 'response_item', payload: { type: 'function_call', name: 'f', arguments: DEEP_OBJECT_TEXT, call_id: 'c' } }]))
  t.match(arr.issues.find((i) => i.line === entries.length + 1)?.message, /^payload\.arguments: JSON text nested deeper than 64 levels/, 'an array of entries: that entry is broken')
  t.throws(() => importLog(JSON.stringify({ timestamp: 'x', type: 'response_item', payload: { type: 'function_call', name: 'f', arguments: DEEP_OBJECT_TEXT, call_id: 'c' } })), { name: 'ImportError', field: 'log', message: /line 1: payload\.arguments: JSON text nested deeper than 64 levels/ }, 'a one-line log of that entry is no log')
  const trajectory = sweAgentTrajectory() as { history: { role: string; content: unknown }[] }
  trajectory.history.push({ role: 'assistant', content: 'x', tool_calls: [{ id: 'c9', type: 'function', function: { name: 'bash', arguments: DEEP_OBJECT_TEXT } }] } as never)
  t.throws(() => importLog(JSON.stringify(trajectory)), { name: 'ImportError', field: 'log', message: /^log: history\[\d+\]\.tool_calls\[0\]\.function\.arguments: JSON text nested deeper than 64 levels$/ }, 'a trajectory')
})

t.test('more issues than are listed are counted', async (t) => {
  const lines = [claudeCodeLog().split('\n')[1]!, ...Array.from({ length: 250 }, (_, i) => `{"broken": ${i}`)]
  const r = importLog(lines.join('\n'))
  t.equal(r.issues.length, 200)
  t.equal(r.issuesOmitted, 50)
  t.equal(r.issues[0]!.line, 2)
  t.equal(r.messages.length, 1)
})

// ---------------------------------------------------------------------------
// POST /import

t.test('POST /import', async (t) => {
  const { app } = await buildTestApp(t, { config: { BODY_LIMIT_BYTES: 200_000 } })
  const post = (payload: object) => app.inject({ method: 'POST', url: '/import', payload })

  const ok = await post({ log: claudeCodeLog(), format: 'anthropic' })
  t.equal(ok.statusCode, 200)
  const body = ok.json() as ImportResult
  t.same(body, JSON.parse(JSON.stringify(importLog(claudeCodeLog(), { format: 'anthropic' }))), 'the engine result, as JSON')
  t.equal(body.compactions[0]!.preTokens, 154321)

  const doc = await post({ log: sweAgentTrajectory(), scope: 'current' })
  t.equal(doc.statusCode, 200, 'a JSON document as a value')
  t.equal((doc.json() as ImportResult).source, 'swe-agent')

  const cases: [object, number, string, string][] = [
    [{ log: 'hello' }, 400, 'invalid_log', 'body.log'],
    [{ log: claudeCodeLog(), source: 'codex' }, 400, 'invalid_log', 'body.source'],
    [{ log: claudeCodeLog(), source: 'aider' }, 400, 'validation_error', 'body.source'],
    [{ log: claudeCodeLog(), format: 'xml' }, 400, 'validation_error', 'body.format'],
    [{ log: claudeCodeLog(), scope: 'later' }, 400, 'validation_error', 'body.scope'],
    [{ log: '' }, 400, 'invalid_log', 'body.log'],
    [{ log: 42 }, 400, 'validation_error', 'body.log'],
    [{}, 400, 'validation_error', 'body.log'],
    [{ log: claudeCodeLog(), messages: [] }, 400, 'validation_error', 'body.messages'],
  ]
  for (const [payload, status, error, path] of cases) {
    const res = await post(payload)
    t.equal(res.statusCode, status, `${JSON.stringify(payload).slice(0, 60)} → ${status}`)
    const e = res.json() as { error: string; message: string; issues?: { path: string }[]; requestId?: string }
    t.equal(e.error, error)
    t.ok(e.issues?.some((i) => i.path === path), `names ${path}: ${e.message}`)
    t.ok(e.requestId)
  }
  // Over BODY_LIMIT_BYTES, over a real connection (logs are large: the limit is the service's).
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  const big = await fetch(`http://127.0.0.1:${port}/import`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ log: claudeCodeLog({ work: 100 }) }) })
  t.equal(big.status, 413, 'over BODY_LIMIT_BYTES')
  t.equal(((await big.json()) as { error: string }).error, 'payload_too_large')

  // The imported conversation goes straight to /compact, which folds Claude Code's summary in.
  const imported = (await post({ log: claudeCodeLog({ work: 12 }), format: 'anthropic' })).json() as ImportResult
  t.ok(JSON.stringify(imported).length < 200_000)
  const compact = await app.inject({ method: 'POST', url: '/compact', payload: { messages: imported.messages, format: 'anthropic', model: 'claude-sonnet-4-5', targetTokens: 3000, keepRecent: 2 } })
  t.equal(compact.statusCode, 200)
  const out = compact.json() as { compacted: boolean; summary: { text: string }; event: { round: number } }
  t.equal(out.compacted, true)
  t.equal(out.event.round, 2, "Claude Code's compaction counts as round 1")
  t.match(out.summary.text, /Make close\(\) idempotent/, 'what Claude Code’s summary knew survives')
})

t.test('POST /import: a line holding JSON nested 20,000 deep is a broken line (was a 500)', async (t) => {
  const { app } = await buildTestApp(t)
  const post = (payload: object) => app.inject({ method: 'POST', url: '/import', payload })
  // That line is a broken issue naming it (as any unreadable line); a log of nothing else is a 400.
  for (const { label, log, line, path } of deepLogs()) {
    const res = await post({ log })
    t.equal(res.statusCode, 200, `${label}: 200, the line skipped`)
    const issue = (res.json() as ImportResult).issues.find((i) => i.line === line)
    t.match(issue?.message ?? '', path, `${label}: line ${line} named`)
    const only = log.trimEnd().split('\n').at(-1)!
    const alone = await post({ log: `${only}\n${only}\n` })
    t.equal(alone.statusCode, 400, `${label} alone: 400`)
    const e = alone.json() as { error: string; message: string; issues: { path: string }[] }
    t.equal(e.error, 'invalid_log')
    t.equal(e.issues[0]!.path, 'body.log')
    t.match(e.message, /line 1: .*nested deeper than 64 levels/, `${label} alone: ${e.message.slice(0, 120)}`)
  }
})

t.test('POST /import: a large log is read on a thread, with the answer the event loop gives', async (t) => {
  const inline = await buildTestApp(t, { config: { COMPUTE_THREADS: 0 } })
  const pooled = await buildTestApp(t, { config: { COMPUTE_THREADS: 1, COMPUTE_INLINE_MAX_BYTES: 0 } })
  const cases: [string, object][] = [
    ['claude-code, anthropic', { log: claudeCodeLog({ work: 40 }), format: 'anthropic' }],
    ['pi, scope current', { log: piLog(), scope: 'current' }],
    ['a trajectory as a value', { log: miniSweAgentTrajectory(), format: 'ai-sdk' }],
    ['400 invalid_log: no log', { log: 'hello\nworld' }],
    ['400 invalid_log: the wrong source', { log: codexLog(), source: 'gemini-cli' }],
  ]
  for (const [label, payload] of cases) {
    const a = await inline.app.inject({ method: 'POST', url: '/import', payload })
    const b = await pooled.app.inject({ method: 'POST', url: '/import', payload })
    t.equal(b.statusCode, a.statusCode, `${label}: status ${a.statusCode}`)
    const { requestId: _a, ...bodyA } = a.json()
    const { requestId: _b, ...bodyB } = b.json()
    t.same(bodyB, bodyA, `${label}: same body`)
  }
  t.equal(pooled.app.compute.stats().completed, cases.length, 'every import ran on a thread')
  t.equal(inline.app.compute.stats().completed, 0)
})

// ---------------------------------------------------------------------------
// The real logs (../shared/fixtures/transcripts)

/** Each agent's folder in transcripts/ and the source its logs import as. */
const SOURCES: Record<string, string> = { 'codex-cli': 'codex', 'gemini-cli': 'gemini-cli', 'pi-agent': 'pi', 'swe-agent': 'swe-agent', 'mini-swe-agent': 'swe-agent' }

t.test('real logs: every source imports, in every format', { skip: transcriptsSkip([...Object.keys(SOURCES), 'aider'].map((dir) => `${dir}/`)) }, async (t) => {
  for (const [dir, source] of Object.entries(SOURCES)) {
    for (const file of fs.readdirSync(path.join(TRANSCRIPTS, dir))) {
      const text = fs.readFileSync(path.join(TRANSCRIPTS, dir, file), 'utf8')
      for (const format of FORMAT_NAMES) {
        const r = importLog(text, { format })
        t.equal(r.source, source, `${file}: ${source}`)
        assertValid(t, r, `${file} ${format}`)
        t.ok(r.messages.length > 20, `${file} ${format}: ${r.messages.length} messages`)
        for (const c of r.compactions) t.ok(c.position !== null && c.summary !== null && textOf(r.messages[c.position]).includes(c.summary.slice(0, 200)), `${file} ${format}: the summary is at position ${c.position}`)
      }
    }
  }
  t.throws(() => importLog(fs.readFileSync(path.join(TRANSCRIPTS, 'aider', fs.readdirSync(path.join(TRANSCRIPTS, 'aider'))[0]!), 'utf8')), ImportError, 'an aider markdown log is no log this importer knows')
})

const PI_LOGS = ['01-youtube-transcript-extraction', '03-raddit-dashboard-pr', '04-awesome-agent-ide'].map((name) => `pi-agent/pinion05__agent-complex-task__${name}.jsonl`)
const compactionLogs = [...PI_LOGS, 'gemini-cli/google-gemini__gemini-cli__trajectory.json', 'codex-cli/uzaxirr__raze__codex-session.jsonl']

t.test('real logs: compactions and broken lines', { skip: transcriptsSkip(compactionLogs) }, async (t) => {
  const piText = (name: string) => fs.readFileSync(path.join(TRANSCRIPTS, 'pi-agent', `pinion05__agent-complex-task__${name}.jsonl`), 'utf8')
  const pi = (name: string) => importLog(piText(name))
  // The broken lines: an email redaction left an invalid escape in one tool result each.
  for (const [name, line] of [
    ['01-youtube-transcript-extraction', 60],
    ['03-raddit-dashboard-pr', 31],
    ['04-awesome-agent-ide', 44],
  ] as const) {
    const r = pi(name)
    t.same(
      r.issues.map((i) => [i.line, i.kind]),
      [[line, 'broken']],
      `${name}: line ${line}`,
    )
    t.match(r.issues[0]!.message, /Bad escaped character/)
    const callId = /"toolCallId":"([^"]+)"/.exec(piText(name).split('\n')[line - 1]!)![1]!
    t.ok(r.repairs.some((x) => x.line! < line && x.action.includes(callId) && /no result recorded/.test(x.action)), `${name}: the call whose result was on that line (${callId}) is answered`)
  }
  const r = pi('03-raddit-dashboard-pr')
  t.equal(r.compactions.length, 1)
  const c = r.compactions[0]!
  t.equal(c.line, 574)
  t.equal(c.preTokens, 372054)
  t.equal(c.timestamp, '2026-07-14T06:45:10.068Z')
  t.ok(c.summary!.startsWith("## Goal\n- Migrate raddit's hand-rolled Canvas 2D candlestick chart"))
  t.match(textOf(r.messages[c.position! + 1]), /Dashboard\.tsx|^$/, 'the first kept entry follows')

  const gemini = importLog(fs.readFileSync(path.join(TRANSCRIPTS, 'gemini-cli', 'google-gemini__gemini-cli__trajectory.json'), 'utf8'))
  t.equal(gemini.compactions.length, 1)
  t.equal(gemini.compactions[0]!.path, '[1]')
  t.ok(gemini.compactions[0]!.summary!.startsWith('<state_snapshot>'))
  t.same(gemini.issues, [])

  const codex = importLog(fs.readFileSync(path.join(TRANSCRIPTS, 'codex-cli', 'uzaxirr__raze__codex-session.jsonl'), 'utf8'))
  t.same(codex.issues, [])
  t.same(codex.compactions, [], 'this rollout never compacted')
  t.equal(codex.session.model, 'gpt-5.4')
})

/** The mini-swe-agent logs, and each one's normalised session in conversations/. */
const miniSweSkip = (): string | false =>
  transcriptsSkip(['mini-swe-agent/']) || conversationsSkip(fs.readdirSync(path.join(TRANSCRIPTS, 'mini-swe-agent')).map((file) => file.replace(/\.traj\.json$/, '.json')))

t.test('real logs: mini-swe-agent imports match the normalised fixtures', { skip: miniSweSkip() }, async (t) => {
  for (const file of fs.readdirSync(path.join(TRANSCRIPTS, 'mini-swe-agent'))) {
    const normalised = JSON.parse(fs.readFileSync(path.join(CONVERSATIONS, file.replace(/\.traj\.json$/, '.json')), 'utf8')) as { messages: { role: string; tool_call_id?: string; tool_calls?: { id: string }[] }[] }
    const r = importLog(fs.readFileSync(path.join(TRANSCRIPTS, 'mini-swe-agent', file), 'utf8'))
    const shape = (m: { role: string; tool_call_id?: string; tool_calls?: { id: string }[] }) => [m.role, m.tool_call_id ?? null, (m.tool_calls ?? []).map((c) => c.id)]
    t.same(r.messages.map((m) => shape(m as never)), normalised.messages.map(shape), `${file}: the same roles and tool-call ids, in order`)
  }
})
