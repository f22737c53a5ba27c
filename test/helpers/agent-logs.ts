/**
 * Hand-written agent session logs, one per source, in each agent's own format (written
 * from the public formats, not copied from any session). Each has a compaction where
 * the agent compacts, and the line-based ones a broken and an unknown line, so the
 * import tests cover every behaviour without ../shared.
 */

const jsonl = (lines: (object | string)[]) => lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n'

export const CLAUDE_SESSION_ID = '6f1c2a9e-3b7d-4c1e-9a55-0d2e8b7c4f10'

/** The text Claude Code puts in the continued-session message after a compaction. */
export const CLAUDE_SUMMARY_BODY = `Analysis:
The user asked to fix the failing pool test; the assistant ran the tests and read the pool code.

Summary:
1. Primary Request and Intent:
   The user asked to fix the failing test in test/db.test.ts ("closes the pool").

2. Key Technical Concepts:
   - pg Pool lifecycle, afterEach hooks

3. Files and Code Sections:
   - src/db.ts: close() calls pool.end()
   - test/db.test.ts: afterEach also calls close()

4. Errors and fixes:
   - Error: Called end on pool more than once: close() ran twice.

5. Pending Tasks:
   - Make close() idempotent.

6. Current Work:
   Editing src/db.ts so that close() only ends the pool once.

7. Optional Next Step:
   Run npm test -- test/db.test.ts again.`

export const CLAUDE_SUMMARY_TEXT = `This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:
${CLAUDE_SUMMARY_BODY}
Please continue the conversation from where we left it off without asking the user any further questions. Continue with the last task that you were asked to work on.`

function cc(uuid: string, parentUuid: string | null, type: string, extra: object, minute: number): object {
  return {
    parentUuid,
    isSidechain: false,
    userType: 'external',
    cwd: '/home/dev/shop',
    sessionId: CLAUDE_SESSION_ID,
    version: '2.0.14',
    gitBranch: 'main',
    type,
    uuid,
    timestamp: `2026-11-20T09:${String(minute).padStart(2, '0')}:00.000Z`,
    ...extra,
  }
}

const usage = (input: number, output: number) => ({ input_tokens: input, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: output })
const asst = (id: string, content: object[], u = usage(100, 10)) => ({ message: { id, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content, stop_reason: null, usage: u }, requestId: `req_${id}` })

/**
 * A Claude Code session: a task, a thinking + text + tool call response written as three
 * lines (one API message), parallel tool calls with their results on separate lines, a
 * compaction (compact_boundary + the continued-session summary), work after it, a
 * sidechain line, a file-history snapshot, a broken line and an unknown line.
 *
 * Line numbers used by the tests: 11 compact_boundary, 12 summary, 17 broken, 18 unknown.
 * `tail` adds a user request (19); `work` that request and as many test runs with long
 * failing outputs after it (a transcript worth compacting).
 */
export function claudeCodeLog(opts: { withCompaction?: boolean; tail?: boolean; work?: number } = {}): string {
  const withCompaction = opts.withCompaction ?? true
  const lines: (object | string)[] = [
    { type: 'summary', summary: 'Fix the failing pool test', leafUuid: 'u-12' }, // 1
    cc('u-1', null, 'user', { message: { role: 'user', content: 'Fix the failing test in test/db.test.ts' } }, 0), // 2
    cc('a-1', 'u-1', 'assistant', asst('msg_01', [{ type: 'thinking', thinking: 'Run the test first.', signature: 'sig-abc' }]), 1), // 3
    cc('a-2', 'a-1', 'assistant', asst('msg_01', [{ type: 'text', text: 'Running the tests.' }]), 1), // 4
    cc('a-3', 'a-2', 'assistant', asst('msg_01', [{ type: 'tool_use', id: 'toolu_01', name: 'Bash', input: { command: 'npm test -- test/db.test.ts' } }], usage(2400, 60)), 1), // 5
    cc(
      'u-2',
      'a-3',
      'user',
      {
        message: { role: 'user', content: [{ tool_use_id: 'toolu_01', type: 'tool_result', content: 'FAIL test/db.test.ts > closes the pool\nError: Called end on pool more than once', is_error: true }] },
        toolUseResult: { stdout: '', stderr: 'Error: Called end on pool more than once', interrupted: false },
      },
      2,
    ), // 6
    cc(
      'a-4',
      'u-2',
      'assistant',
      asst(
        'msg_02',
        [
          { type: 'text', text: 'Reading the pool code and the test.' },
          { type: 'tool_use', id: 'toolu_02', name: 'Read', input: { file_path: '/home/dev/shop/src/db.ts' } },
          { type: 'tool_use', id: 'toolu_03', name: 'Read', input: { file_path: '/home/dev/shop/test/db.test.ts' } },
        ],
        usage(5200, 80),
      ),
      3,
    ), // 7
    cc('u-3', 'a-4', 'user', { message: { role: 'user', content: [{ tool_use_id: 'toolu_02', type: 'tool_result', content: 'export async function close() {\n  await pool.end()\n}' }] } }, 3), // 8
    cc('u-4', 'a-4', 'user', { message: { role: 'user', content: [{ tool_use_id: 'toolu_03', type: 'tool_result', content: [{ type: 'text', text: "afterEach(() => close())\ntest('closes the pool', …)" }] }] } }, 3), // 9
    { type: 'file-history-snapshot', messageId: 'u-4', snapshot: { trackedFileBackups: {}, timestamp: '2026-11-20T09:03:00.000Z' }, isSnapshotUpdate: false }, // 10
  ]
  if (withCompaction) {
    lines.push(
      cc('b-1', null, 'system', { subtype: 'compact_boundary', content: 'Conversation compacted', level: 'info', isMeta: false, logicalParentUuid: 'u-4', compactMetadata: { trigger: 'auto', preTokens: 154321 } }, 4), // 11
      cc('u-5', 'b-1', 'user', { message: { role: 'user', content: CLAUDE_SUMMARY_TEXT }, isCompactSummary: true, isVisibleInTranscriptOnly: true }, 4), // 12
    )
  } else {
    lines.push(cc('x-1', 'u-4', 'system', { subtype: 'informational', content: 'Hook ran', level: 'info' }, 4), cc('x-2', 'x-1', 'system', { subtype: 'informational', content: 'Hook ran', level: 'info' }, 4))
  }
  lines.push(
    cc('a-5', 'u-5', 'assistant', asst('msg_03', [{ type: 'text', text: 'Making close() idempotent.' }, { type: 'tool_use', id: 'toolu_04', name: 'Edit', input: { file_path: '/home/dev/shop/src/db.ts', old_string: 'await pool.end()', new_string: 'if (!closed) { closed = true; await pool.end() }' } }], usage(9800, 120)), 5), // 13
    cc('u-6', 'a-5', 'user', { message: { role: 'user', content: [{ tool_use_id: 'toolu_04', type: 'tool_result', content: 'The file /home/dev/shop/src/db.ts has been updated.' }] } }, 5), // 14
    { ...cc('s-1', 'a-5', 'assistant', asst('msg_sc', [{ type: 'text', text: 'Subagent: searching for other close() callers.' }]), 5), isSidechain: true }, // 15
    cc('a-6', 'u-6', 'assistant', asst('msg_04', [{ type: 'text', text: 'close() now ends the pool once; the test passes.' }], usage(10400, 40)), 6), // 16
    '{"parentUuid":"a-6","type":"user","message":{"role":"user","content":"and the migra', // 17: cut off mid-line
    { type: 'telemetry-blob', uuid: 't-1', payload: { ms: 12 } }, // 18
  )
  if (opts.tail || opts.work) lines.push(cc('u-7', 'a-6', 'user', { message: { role: 'user', content: 'Also add a test for a double close.' } }, 7)) // 19
  // More work after the compaction: a test file per turn, each run with a long output.
  for (let i = 0; i < (opts.work ?? 0); i++) {
    const id = `toolu_w${i}`
    const output = [`FAIL test/case${i}.test.ts > closes twice`, `Error: expected close() #${i} to resolve`, ...Array.from({ length: 40 }, (_, k) => `    at step${k} (src/db.ts:${10 + k}:5)`)].join('\n')
    lines.push(
      cc(`aw-${i}`, i === 0 ? 'u-7' : `uw-${i - 1}`, 'assistant', asst(`msg_w${i}`, [{ type: 'text', text: `Writing test/case${i}.test.ts and running it.` }, { type: 'tool_use', id, name: 'Bash', input: { command: `npm test -- test/case${i}.test.ts` } }], usage(20000 + i * 3000, 80)), 8 + (i % 50)),
      cc(`uw-${i}`, `aw-${i}`, 'user', { message: { role: 'user', content: [{ tool_use_id: id, type: 'tool_result', content: output, is_error: true }] } }, 8 + (i % 50)),
    )
  }
  return jsonl(lines)
}

/**
 * A Codex CLI rollout: session_meta with base instructions, a developer message, the
 * task, reasoning, a function call and its output, token counts, a compacted item, work
 * after it, a broken line (9) and an unknown line (10). The compacted line is 12.
 */
export function codexLog(): string {
  const t = (s: number) => `2026-11-21T10:00:${String(s).padStart(2, '0')}.000Z`
  return jsonl([
    { timestamp: t(0), type: 'session_meta', payload: { id: 'c0de-1', timestamp: t(0), cwd: '/home/dev/shop', originator: 'codex_cli_rs', cli_version: '0.114.0', base_instructions: { text: 'You are Codex, a coding agent.' } } }, // 1
    { timestamp: t(1), type: 'response_item', payload: { type: 'message', role: 'developer', content: [{ type: 'input_text', text: '<permissions instructions>Sandbox: workspace-write</permissions instructions>' }] } }, // 2
    { timestamp: t(1), type: 'turn_context', payload: { cwd: '/home/dev/shop', model: 'gpt-5.4', approval_policy: 'never' } }, // 3
    { timestamp: t(2), type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Make the CSV export include the currency column.' }] } }, // 4
    { timestamp: t(2), type: 'event_msg', payload: { type: 'user_message', message: 'Make the CSV export include the currency column.' } }, // 5
    { timestamp: t(3), type: 'response_item', payload: { type: 'reasoning', summary: [{ type: 'summary_text', text: '**Finding the exporter** The CSV code is in src/export.ts.' }], encrypted_content: 'gAAAA' } }, // 6
    { timestamp: t(3), type: 'response_item', payload: { type: 'function_call', name: 'exec_command', arguments: '{"cmd":"rg -n currency src/export.ts"}', call_id: 'call_A1' } }, // 7
    { timestamp: t(4), type: 'response_item', payload: { type: 'function_call_output', call_id: 'call_A1', output: 'src/export.ts:12: const columns = ["id", "amount"]' } }, // 8
    '{"timestamp":"2026-11-21T10:00:05.000Z","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":', // 9: cut off
    { timestamp: t(5), type: 'rollout_hint', payload: { note: 'written by a newer Codex' } }, // 10
    { timestamp: t(6), type: 'event_msg', payload: { type: 'token_count', info: { total_token_usage: { input_tokens: 250000, output_tokens: 3000, total_tokens: 253000 }, last_token_usage: { input_tokens: 240100, cached_input_tokens: 0, output_tokens: 1900, reasoning_output_tokens: 400, total_tokens: 242000 }, model_context_window: 258400 } } }, // 11
    { timestamp: t(7), type: 'compacted', payload: { message: 'The user wants the CSV export to include the currency column. src/export.ts:12 defines the columns; add "currency" there and to the row mapper, then run npm test.' } }, // 12
    { timestamp: t(7), type: 'event_msg', payload: { type: 'context_compacted' } }, // 13
    { timestamp: t(8), type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Adding the currency column.' }] } }, // 14
    { timestamp: t(8), type: 'response_item', payload: { type: 'custom_tool_call', name: 'apply_patch', input: '*** Begin Patch\n*** Update File: src/export.ts\n-const columns = ["id", "amount"]\n+const columns = ["id", "amount", "currency"]\n*** End Patch', call_id: 'call_B2' } }, // 15
    { timestamp: t(9), type: 'response_item', payload: { type: 'custom_tool_call_output', call_id: 'call_B2', output: 'Success. Updated src/export.ts' } }, // 16
    { timestamp: t(9), type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'The export now includes currency.' }] } }, // 17
  ])
}

/**
 * A pi session (v3): header, model change, the task, a response with thinking and a
 * tool call, its result, a hidden extension message, a bash execution, a compaction whose
 * first kept entry is `e6`, work after it, a broken line (12) and an unknown entry (13).
 */
export function piLog(): string {
  const t = (m: number) => `2026-11-22T08:${String(m).padStart(2, '0')}:00.000Z`
  return jsonl([
    { type: 'session', version: 3, id: 'pi-77', timestamp: t(0), cwd: '/home/dev/blog' }, // 1
    { type: 'model_change', id: 'e1', parentId: null, timestamp: t(0), provider: 'anthropic', modelId: 'claude-sonnet-4-5' }, // 2
    { type: 'message', id: 'e2', parentId: 'e1', timestamp: t(1), message: { role: 'user', content: [{ type: 'text', text: 'Add an RSS feed to the blog.' }], timestamp: 1 } }, // 3
    { type: 'message', id: 'e3', parentId: 'e2', timestamp: t(2), message: { role: 'assistant', content: [{ type: 'thinking', thinking: 'Check the routes first.' }, { type: 'text', text: 'Looking at the routes.' }, { type: 'toolCall', id: 'tc_1', name: 'bash', arguments: { command: 'ls src/routes' } }], model: 'claude-sonnet-4-5', usage: { input: 1200, output: 40, cacheRead: 0, cacheWrite: 0, totalTokens: 1240 } } }, // 4
    { type: 'message', id: 'e4', parentId: 'e3', timestamp: t(2), message: { role: 'toolResult', toolCallId: 'tc_1', toolName: 'bash', content: [{ type: 'text', text: 'index.ts\nposts.ts' }], isError: false } }, // 5
    { type: 'custom_message', customType: 'volatile-project-context', content: '<system-reminder>workspace tree …</system-reminder>', display: false, id: 'e5', parentId: 'e4', timestamp: t(3) }, // 6
    { type: 'message', id: 'e6', parentId: 'e5', timestamp: t(3), message: { role: 'bashExecution', command: 'npm test', output: '12 passing', exitCode: 0, cancelled: false, truncated: false } }, // 7
    { type: 'message', id: 'e7', parentId: 'e6', timestamp: t(4), message: { role: 'assistant', content: [{ type: 'text', text: 'Adding src/routes/rss.ts.' }, { type: 'toolCall', id: 'tc_2', name: 'write', arguments: { path: 'src/routes/rss.ts', content: 'export …' } }], usage: { input: 48000, output: 300, cacheRead: 0, cacheWrite: 0, totalTokens: 48300 } } }, // 8
    { type: 'message', id: 'e8', parentId: 'e7', timestamp: t(4), message: { role: 'toolResult', toolCallId: 'tc_2', toolName: 'write', content: [{ type: 'text', text: 'wrote 40 lines' }], isError: false } }, // 9
    { type: 'compaction', id: 'e9', parentId: 'e8', timestamp: t(5), summary: '## Goal\n- Add an RSS feed to the blog\n\n## Progress\n### Done\n- [x] Listed src/routes\n\n## Next Steps\n1. Register the route', firstKeptEntryId: 'e6', tokensBefore: 51000 }, // 10
    { type: 'message', id: 'e10', parentId: 'e9', timestamp: t(6), message: { role: 'assistant', content: [{ type: 'text', text: 'Registering the route.' }], usage: { input: 9000, output: 20, cacheRead: 0, cacheWrite: 0, totalTokens: 9020 } } }, // 11
    '{"type":"message","id":"e11","parentId":"e10","message":{"role":"user","content":[{"type":"text","text":"\\***@***.*** thanks"}]}}', // 12: a bad escape
    { type: 'hologram', id: 'e12', parentId: 'e11', timestamp: t(7) }, // 13
    { type: 'message', id: 'e13', parentId: 'e12', timestamp: t(8), message: { role: 'user', content: 'Ship it.' } }, // 14
  ])
}

/** A Gemini CLI `Content[]` session starting with its compression output, and a chat recording of the same kind. */
export function geminiContents(): unknown[] {
  return [
    { role: 'user', parts: [{ text: '<session_context>\nThis is the Gemini CLI.\n</session_context>' }] },
    { role: 'user', parts: [{ text: '<state_snapshot>\n  <overall_goal>Port the date helpers to Temporal.</overall_goal>\n  <key_knowledge>- Tests: npm test</key_knowledge>\n  <current_plan>1. [DONE] format.ts\n2. [TODO] parse.ts</current_plan>\n</state_snapshot>' }] },
    { role: 'model', parts: [{ text: 'Got it. Thanks for the additional context!' }] },
    { role: 'user', parts: [{ text: 'Continue with parse.ts' }] },
    { role: 'model', parts: [{ text: 'Reading parse.ts first.', thought: true }, { functionCall: { name: 'read_file', args: { file_path: 'src/parse.ts' }, id: 'g1' } }] },
    { role: 'user', parts: [{ functionResponse: { id: 'g1', name: 'read_file', response: { output: 'export function parse(s) { return new Date(s) }' } } }] },
    { role: 'model', parts: [{ functionCall: { name: 'replace', args: { file_path: 'src/parse.ts', old_string: 'new Date(s)', new_string: 'Temporal.Instant.from(s)' } } }] },
    { role: 'user', parts: [{ functionResponse: { name: 'replace', response: { output: 'Successfully modified file: src/parse.ts' } } }] },
    { role: 'narrator', parts: [{ text: 'not a Gemini role' }] },
    { role: 'model', parts: [{ text: 'parse.ts now uses Temporal.' }] },
  ]
}

export function geminiRecording(): object {
  return {
    sessionId: 'gem-5',
    projectHash: 'abc123',
    startTime: '2026-11-23T12:00:00.000Z',
    lastUpdated: '2026-11-23T12:05:00.000Z',
    messages: [
      { id: 'm1', timestamp: '2026-11-23T12:00:00.000Z', type: 'user', content: 'Rename getUser to fetchUser everywhere.' },
      {
        id: 'm2',
        timestamp: '2026-11-23T12:00:10.000Z',
        type: 'gemini',
        content: 'Searching for getUser.',
        thoughts: [{ subject: 'Plan', description: 'grep, then edit each file', timestamp: '2026-11-23T12:00:09.000Z' }],
        toolCalls: [{ id: 'tc-9', name: 'search_file_content', args: { pattern: 'getUser' }, result: [{ functionResponse: { id: 'tc-9', name: 'search_file_content', response: { output: 'src/api.ts:3: getUser' } } }], status: 'success', timestamp: '2026-11-23T12:00:11.000Z' }],
        tokens: { input: 180000, output: 200, cached: 0, thoughts: 50, tool: 0, total: 180250 },
        model: 'gemini-2.5-pro',
      },
      { id: 'm3', timestamp: '2026-11-23T12:01:00.000Z', type: 'info', content: 'Chat history compressed.' },
      { id: 'm4', timestamp: '2026-11-23T12:01:01.000Z', type: 'user', content: '<state_snapshot>\n<overall_goal>Rename getUser to fetchUser.</overall_goal>\n</state_snapshot>' },
      { id: 'm5', timestamp: '2026-11-23T12:01:30.000Z', type: 'gemini', content: 'Editing src/api.ts.', tokens: { input: 9000, output: 30, cached: 0, total: 9030 }, model: 'gemini-2.5-pro' },
      { id: 'm6', timestamp: '2026-11-23T12:02:00.000Z', type: 'mystery', content: '?' },
    ],
  }
}

/** A SWE-agent function-calling trajectory and a mini-swe-agent one. */
export function sweAgentTrajectory(): object {
  return {
    environment: 'swe_main',
    trajectory: [{ action: 'ls', observation: 'setup.py src', response: 'Listing files.', thought: 'Listing files.' }],
    history: [
      { role: 'system', content: 'SETTING: You are an autonomous programmer.', agent: 'main', message_type: 'system_prompt' },
      { role: 'user', content: [{ type: 'text', text: 'ISSUE: TimeDelta rounds 345 ms down to 344.' }], agent: 'main', message_type: 'observation' },
      { role: 'assistant', content: 'Listing files.', thought: 'Listing files.', action: 'ls', agent: 'main', tool_calls: [{ function: { arguments: '{"command":"ls"}', name: 'bash' }, id: 'call_s1', type: 'function' }], message_type: 'action' },
      { role: 'tool', content: 'setup.py src', agent: 'main', message_type: 'observation', tool_call_ids: ['call_s1'] },
      { role: 'assistant', content: 'Submitting.', agent: 'main', tool_calls: [{ function: { arguments: '{}', name: 'submit' }, id: 'call_s2', type: 'function' }], message_type: 'action' },
    ],
    info: { exit_status: 'submitted', swe_agent_version: '1.0.1' },
  }
}

export function miniSweAgentTrajectory(): object {
  return {
    info: { model_stats: { instance_cost: 0.01, api_calls: 2 }, config: { model: { model_name: 'deepseek/deepseek-reasoner' } }, mini_version: '2.2.7', exit_status: 'Submitted' },
    messages: [
      { role: 'system', content: 'You are a helpful assistant that can interact with a computer shell.' },
      { role: 'user', content: '<pr_description>Doubled semicolons crash the parser.</pr_description>' },
      { role: 'assistant', content: '', reasoning_content: 'Find the delimiter grammar.', tool_calls: [{ index: 0, function: { arguments: '{"command": "grep -rn Delimited src"}', name: 'bash' }, id: 'call_m1', type: 'function' }], function_call: null, extra: { actions: [] } },
      { role: 'tool', tool_call_id: 'call_m1', content: '<returncode>0</returncode>\n<output>src/grammar/delimited.py</output>', extra: { returncode: 0 } },
      { role: 'assistant', content: 'Patching.', tool_calls: [{ index: 0, function: { arguments: '{"command": "git diff"}', name: 'bash' }, id: 'call_m2', type: 'function' }] },
      { role: 'exit', content: 'Submitted', extra: { exit_status: 'Submitted' } },
    ],
    trajectory_format: 'mini-swe-agent-1.1',
    instance_id: 'sqlfluff__sqlfluff-1517',
  }
}
