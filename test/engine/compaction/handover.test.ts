/**
 * Issue 9's observations, each as a test: what a handover must keep (and must not
 * invent) when the default offline pipeline (mask + rules) compacts a session.
 */
import t from 'tap'
import { compact } from '../../../src/engine/compaction/compact.ts'
import { DEFAULT_COMPACT_OPTIONS, type CompactOptions, type CompactResult } from '../../../src/engine/compaction/types.ts'
import { messageText, type MessageFormat } from '../../../src/engine/messages/canonical.ts'
import { commandIdentity } from '../../../src/engine/facts/text.ts'
import { messageTokens, tokenizerCounter } from '../../../src/engine/tokens/count.ts'
import { inAllFormats } from './format-invariance.test.ts'

const counter = tokenizerCounter('o200k_base')
type Msg = Record<string, unknown>

let seq = 0
function call(name: string, args: Record<string, unknown>, result: string, content = ''): Msg[] {
  const id = `call_${++seq}`
  return [
    { role: 'assistant', content, tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] },
    { role: 'tool', tool_call_id: id, content: result },
  ]
}
const user = (content: string): Msg => ({ role: 'user', content })
const assistant = (content: string): Msg => ({ role: 'assistant', content })
const filler = (n: number) => Array.from({ length: n }, (_, k) => call('Read', { file_path: `/repo/src/noise${k}.py` }, `x = ${k}\n`.repeat(40))).flat()

async function run(messages: Msg[], targetTokens: number, format: MessageFormat = 'openai', extra: Partial<CompactOptions> = {}): Promise<CompactResult> {
  const forms = inAllFormats(messages)
  const f = forms.find((x) => x.format === format)!
  return compact({ messages: f.messages, counter, options: { ...DEFAULT_COMPACT_OPTIONS, format, targetTokens, thresholdTokens: targetTokens, force: true, ...extra } })
}
const summaryText = (r: CompactResult) => (r.summary ? r.messages[r.summary.index]!.parts.map((p) => (p.type === 'text' ? p.text : '')).join('') : '')
const outputText = (r: CompactResult) => r.messages.map(messageText).join('\n')

function harnessSession(): Msg[] {
  const m: Msg[] = [{ role: 'system', content: 'You are a coding agent.' }, user('Build the report generator in /repo: parse data/input.csv and write reports.')]
  m.push(...call('Write', { file_path: '/repo/src/report.py', content: 'import yaml\n'.repeat(30) }, 'File created successfully at: /repo/src/report.py'))
  m.push(...call('Write', { file_path: '/repo/src/loader.py', content: 'def load():\n    pass\n'.repeat(20) }, 'File created successfully at: /repo/src/loader.py'))
  m.push(...call('Write', { file_path: '/repo/tests/test_report.py', content: 'def test_x():\n    assert True\n'.repeat(20) }, 'File created successfully at: /repo/tests/test_report.py'))
  m.push(
    ...call(
      'Bash',
      { command: 'python -m pytest tests/test_report.py' },
      'Traceback (most recent call last):\n  File "/repo/src/report.py", line 1, in <module>\n    import yaml\nModuleNotFoundError: No module named \'yaml\'\nExit code 1',
    ),
  )
  m.push(user('Never touch the migrations folder, and keep Python 3.8 compatibility.'), assistant('Understood: migrations stay untouched, and the code stays 3.8-compatible.'))
  const noise = ['<task-notification><task-id>b1</task-id><status>completed</status><summary>Background command finished</summary></task-notification>', '[Request interrupted by user]', 'continue', '하이', '<system-reminder>The TodoWrite tool has not been used recently.</system-reminder>', '<turn_aborted>']
  for (let k = 0; k < 150; k++) m.push(user(noise[k % noise.length]!), assistant(`Acknowledged ${k}.`))
  m.push(user('FIX THIS IMMEDIATELY: the report must include totals per region, follow everything based on the doc.'), assistant('Working on totals per region now.'))
  m.push(...filler(6))
  return m
}

t.test('1-2. harness noise does not crowd out files, errors and instructions, in any format', async (t) => {
  for (const format of ['openai', 'anthropic', 'ai-sdk'] as const) {
    const r = await run(harnessSession(), 2000, format)
    const s = summaryText(r)
    for (const file of ['/repo/src/report.py', '/repo/src/loader.py', '/repo/tests/test_report.py']) t.match(s, file, `${format}: ${file} survives`)
    t.match(s, "ModuleNotFoundError: No module named 'yaml'", `${format}: the error survives`)
    t.match(s, 'Never touch the migrations folder, and keep Python 3.8 compatibility.', `${format}: the mid-session constraint survives verbatim`)
    t.match(s, 'FIX THIS IMMEDIATELY: the report must include totals per region, follow everything based on the doc.', `${format}: the real instruction survives whole`)
    t.notMatch(s, /task-notification|Request interrupted|turn_aborted|system-reminder|하이|"continue"/, `${format}: no harness text is taken for the user`)
    t.ok(r.event.tokensAfter <= 2000, `${format}: fits`)
  }
})

t.test('3. an earlier Claude Code summary is folded in section by section, not cut', async (t) => {
  const earlier = [
    'This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:',
    'Analysis: the user wants the cache fixed.',
    'Summary:',
    '1. Primary Request and Intent:',
    '   The user asked to make the LRU cache in src/cache/lru.ts thread-safe without adding dependencies.',
    '2. Key Technical Concepts:',
    '   - Atomics.wait based locking',
    '3. Files and Code Sections:',
    '   - src/cache/lru.ts',
    '     - Added a mutex around evict(); the get() path is lock-free.',
    '4. Errors and fixes:',
    '   - Deadlock in evict() when called from set(): fixed by releasing the lock before the callback.',
    '5. Problem Solving:',
    '   Root cause of the flaky test: the eviction callback re-entered set().',
    '6. All user messages:',
    '   - "Do not add dependencies."',
    '7. Pending Tasks:',
    '   - Add a stress test for concurrent set() calls.',
    '8. Current Work:',
    '   Writing tests/lru.stress.test.ts.',
    '9. Optional Next Step:',
    '   Run the stress test under --repeat 50.',
  ].join('\n')
  const m: Msg[] = [{ role: 'system', content: 'You are a coding agent.' }, user(earlier), ...filler(30), user('Also benchmark it.'), ...filler(8)]
  const r = await run(m, 3000)
  const s = summaryText(r)
  for (const fact of ['src/cache/lru.ts', 'Deadlock in evict()', 'Do not add dependencies.', 'Add a stress test for concurrent set() calls.', 'thread-safe without adding dependencies']) t.match(s, fact, `kept from the earlier summary: ${fact}`)
  t.equal(r.event.round, 2, 'the earlier summary counts as round 1')
})

t.test('4. successes are never reported as failures; real failures are, with their evidence', async (t) => {
  const m: Msg[] = [{ role: 'system', content: 'sys' }, user('Ship the dashboard.')]
  m.push(...call('Write', { file_path: '/repo/app.py', content: 'print(1)\n' }, 'File created successfully at /repo/app.py'))
  m.push(...call('Monitor', { command: 'tail -f log' }, 'Monitor started'))
  m.push(...call('TaskStop', { task_id: 'b7' }, 'Successfully stopped task'))
  m.push(...call('Bash', { command: 'streamlit --help' }, 'Usage: streamlit [OPTIONS]\n  --log-level  error|warning|info: show messages at this level or above\n  --failfast   stop after the first failed check\nExit code 0'))
  m.push(...call('Bash', { command: 'curl -s localhost:8080/health' }, 'status: ok\ntimeout: 5s\nretries: 3'))
  m.push(...call('Bash', { command: 'cat > run.sh <<EOF\nif [ "$FAIL_COUNT" -gt 0 ]; then\n  echo "Failed: ${FAIL_COUNT}"\n  exit 1\nfi\nEOF\nbash run.sh' }, ''))
  m.push(...call('Bash', { command: 'pytest tests/test_api.py' }, 'FAILED tests/test_api.py::test_login - AssertionError: expected 200, got 500\n1 failed, 3 passed\nExit code 1'))
  m.push(...call('Edit', { file_path: '/repo/api.py', old_string: 'return 500', new_string: 'return 200' }, 'The file /repo/api.py has been updated.'))
  m.push(...call('Bash', { command: 'pytest tests/test_api.py' }, '4 passed\nExit code 0'))
  m.push(...filler(10))
  const r = await run(m, 2500)
  const s = summaryText(r)
  t.match(s, 'FAILED tests/test_api.py::test_login - AssertionError: expected 200, got 500', 'the real failure with its test name and error')
  t.match(s, /test_login[^\n]*resolved/, 'reported as resolved by the later run')
  for (const phrase of ['File created successfully', 'Monitor started', 'Successfully stopped task', 'timeout: 5s', 'Failed: ${FAIL_COUNT}']) {
    t.notMatch(s, new RegExp(`(error|exit [1-9]|failed)[^\\n]*${phrase.replace(/[$.*+?^{}()|[\]\\]/g, '\\$&')}`, 'i'), `not a failure: ${phrase}`)
  }
  t.notMatch(s, /streamlit --help[^\n]*(→ error|→ exit [1-9])/, 'streamlit --help is not a failure')
  t.notMatch(s, /run\.sh[^\n]*exit 1/, 'an exit inside a script body is not the run\'s exit code')
})

t.test('5. the artifact trail names every file with its fate, never cut inside a path', async (t) => {
  const patch = (file: string, body: string) => ({ input: `*** Begin Patch\n*** Update File: ${file}\n@@\n${body}\n*** End Patch` })
  const m: Msg[] = [{ role: 'system', content: 'sys' }, user('Add toasts to the frontend and bump Go.')]
  m.push(...call('apply_patch', patch('go.mod', '-go 1.21\n+go 1.22'), 'Success. Updated the following files:\nM go.mod'))
  m.push(...call('apply_patch', patch('backend/Dockerfile', '-FROM golang:1.21\n+FROM golang:1.22'), 'Success.'))
  m.push(...call('apply_patch', patch('frontend/src/main.js', " import App from './App.vue'\n+import 'vue-sonner/style.css'"), 'Success.'))
  const deep = '/Users/dev/work/project/backend/src/main/java/com/example/service/UserAccountService.java'
  m.push(...call('Write', { file_path: deep, content: 'class A {}\n'.repeat(63) }, `File created successfully at ${deep}`))
  m.push(...call('Write', { file_path: 'fix_merge.py', content: "import re\nsrc = open('django/forms/widgets.py').read()\nopen('django/forms/widgets.py', 'w').write(src.replace('a', 'b'))\n" }, 'File created successfully at fix_merge.py'))
  m.push(...call('Bash', { command: 'python fix_merge.py' }, ''))
  m.push(...filler(12))
  const r = await run(m, 2500)
  const s = summaryText(r)
  for (const file of ['go.mod', 'backend/Dockerfile', 'frontend/src/main.js', deep]) t.match(s, file, `${file} is named whole`)
  t.match(s, /frontend\/src\/main\.js[^\n]*vue-sonner\/style\.css/, 'main.js row says what was added')
  t.notMatch(s, /\|\s*`?vue-sonner\/style\.css`?\s*\|/, 'an imported module is not a file row')
  t.notMatch(s, /apply_patch \(patch \+\d+\/-\d+ lines\)/, 'no patch line without its file')
  t.match(s, /django\/forms\/widgets\.py[^\n]*edited/, 'a file written by a script the session ran is edited, not mentioned')
})

t.test('6. decisions are conclusions, the next step is the last open intent, the state is current', async (t) => {
  const m: Msg[] = [{ role: 'system', content: 'sys' }, user('Fix the stale-cache bug.')]
  m.push(assistant('What if instead of moving the element, we do something else? I think we need a different approach.'))
  m.push(...call('Read', { file_path: 'src/cache.ts' }, 'export const cache = new Map()\n'.repeat(20), 'Let me check the updated test:'))
  m.push(...call('Edit', { file_path: 'src/cache.ts', old_string: 'new Map()', new_string: 'new WeakMap()' }, 'The file src/cache.ts has been updated.', 'The root cause is that `cache` is read before `init()` sets it. I will use a `WeakMap` instead of the global map because entries must die with their owners.'))
  m.push(...call('TodoWrite', { todos: [{ content: 'Reproduce the bug', status: 'completed', activeForm: 'x' }, { content: 'Fix the cache', status: 'in_progress', activeForm: 'x' }] }, 'ok'))
  m.push(...call('TodoWrite', { todos: [{ content: 'Reproduce the bug', status: 'completed', activeForm: 'x' }, { content: 'Fix the cache', status: 'completed', activeForm: 'x' }, { content: 'Add the regression test for the empty-list case', status: 'in_progress', activeForm: 'x' }] }, 'ok'))
  m.push(assistant('Next I will add the regression test for the empty-list case in `tests/cache.empty.test.ts`.'))
  m.push(...filler(12))
  const r = await run(m, 2500)
  const s = summaryText(r)
  t.match(s, /Root cause: The root cause is that `cache` is read before `init\(\)` sets it/, 'root cause kept')
  t.match(s, /WeakMap/, 'the decision kept')
  t.notMatch(s, /What if instead/, 'a question is not a decision')
  t.notMatch(s, /different approach/, 'a vague musing is not an abandoned attempt')
  t.notMatch(s, /Let me check the updated test/, 'narration is not pending work')
  t.match(s, /### Pending Work[\s\S]*Add the regression test for the empty-list case/, 'the latest plan is the pending work')
  t.match(s, /Working on: Add the regression test for the empty-list case/, 'the current state is the last sub-task')
})

t.test('7. summaryTokens counts the whole summary message as sent', async (t) => {
  const m: Msg[] = [{ role: 'system', content: 'sys' }, user('Refactor the parser.')]
  for (let k = 0; k < 250; k++) m.push(...call('Bash', { command: `grep -n "token${k}" src/parser.ts` }, `${k}: const token${k} = 1\n`.repeat(15)))
  const r = await run(m, 20_000)
  const s = r.messages[r.summary!.index]!
  t.equal(r.event.summaryTokens, messageTokens(s, counter), 'the reported size is the summary message')
})

t.test('8. reads and repeats give way to failures and their error detail', async (t) => {
  const m: Msg[] = [{ role: 'system', content: 'sys' }, user('Make the template tests pass.')]
  for (let k = 0; k < 100; k++) m.push(...call('Bash', { command: `sed -n '1,260p' django/template/file${k}.py` }, `line\n`.repeat(120)))
  m.push(...call('Bash', { command: 'npm run build' }, "TypeError: Cannot read properties of undefined (reading 'map')\n    at render (src/view.js:12:5)\nExit code 1"))
  m.push(...call('Bash', { command: './runtests.py forms_tests' }, 'ERROR: test_render (forms_tests.tests.test_renderers.Jinja2Tests)\ndjango.core.exceptions.ImproperlyConfigured: No DjangoTemplates backend is configured.\nFAILED (errors=1)\nExit code 1'))
  m.push(...filler(10))
  const r = await run(m, 3000)
  const out = outputText(r)
  t.match(out, "TypeError: Cannot read properties of undefined (reading 'map')", 'the npm TypeError survives')
  t.match(out, 'ImproperlyConfigured: No DjangoTemplates backend is configured', 'the failing test error line survives')
  t.match(out, 'test_render', 'the failing test is named')
})

t.test('a failure is said once: not in Errors, again as overflow, and again as its log line', async (t) => {
  const m: Msg[] = [{ role: 'system', content: 'sys' }, user('Make the parser tests pass.')]
  // More failures than the Errors section has room for at this budget: the rest overflow.
  for (let k = 0; k < 40; k++) m.push(...call('Bash', { command: `cd /testbed && python check_case_${k}.py 2>&1` }, `Traceback (most recent call last):\nValueError: case ${k} rejected by the tokenizer\nExit code 1`))
  m.push(...filler(10))
  const r = await run(m, 4000)
  // Current State names the last command on purpose; count the other sections.
  const s = summaryText(r).replace(/### Current State[\s\S]*?(?=\n### )/, '')
  for (let k = 0; k < 40; k++) {
    const n = s.split(`python check_case_${k}.py`).length - 1
    t.ok(n <= 1, `check_case_${k} appears ${n} times`)
  }
  t.ok((s.match(/check_case_\d+\.py/g) ?? []).length >= 20, 'the room saved holds more distinct failures')

  // Without a log (rules alone), what the sections cannot hold is listed once after them.
  const rulesOnly = await run(m, 4000, 'openai', { strategy: ['rules'] })
  const r1 = summaryText(rulesOnly).replace(/### Current State[\s\S]*?(?=\n### )/, '')
  const shown = new Set((r1.match(/check_case_\d+\.py/g) ?? []))
  t.ok(shown.size >= 20, `rules alone still lists the failures the sections had no room for (${shown.size})`)
  t.equal((r1.match(/check_case_\d+\.py/g) ?? []).length, shown.size, 'each once')
})

t.test('a command keeps its first 60 characters as written: the working directory is not shortened', async (t) => {
  const m: Msg[] = [{ role: 'system', content: 'sys' }, user('Sync the branches.')]
  m.push(...call('Bash', { command: 'cd /home/user/projects/raddit && git fetch origin 2>&1 && echo "=== DEV vs MAIN ===" && git log --oneline origin/dev..origin/main | head -20' }, 'fatal: could not read from remote repository\nExit code 128'))
  m.push(...filler(30))
  const r = await run(m, 3000)
  t.match(summaryText(r), 'cd /home/user/projects/raddit && git fetch origin', 'the command head survives as written')
})

t.test('an instruction the sections quote is not repeated in the log: the room goes to the ones they could not hold', async (t) => {
  const m: Msg[] = [{ role: 'system', content: 'sys' }, user('Keep the dashboard working.')]
  // 40 short requests (as "pr까지" or "raddit"), each with a report and a command: more than the sections hold at this budget.
  const requests = Array.from({ length: 40 }, (_, k) => `go ${k}`)
  for (const [k, r] of requests.entries()) {
    m.push(user(r), assistant(`Report ${k}: ${'done and verified the output carefully; '.repeat(3)}`))
    m.push(...call('Bash', { command: `npm run step -- ${k}` }, `step ${k} done`))
  }
  m.push(...filler(10))
  const r = await run(m, 1500)
  const s = summaryText(r)
  const shown = requests.filter((q) => s.includes(`"${q}"`))
  for (const q of shown) t.equal(s.split(`"${q}"`).length - 1, 1, `"${q}" is quoted once`)
  // Before, the log repeated the 10 newest (already in the sections) and 17 older ones were in neither.
  t.ok(shown.length >= 33, `${shown.length} of the 40 requests are in the summary`)
})

t.test('an edit the agent undid is reported as undone, never as the last change', async (t) => {
  const m: Msg[] = [{ role: 'system', content: 'You are a coding agent.' }, user('Make the cache in /repo/src/cache.ts expire faster.')]
  m.push(...call('Edit', { file_path: '/repo/src/cache.ts', old_string: 'const TTL_SECONDS = 60', new_string: 'const TTL_SECONDS = 5' }, 'The file /repo/src/cache.ts has been updated.'))
  m.push(...call('Bash', { command: 'npm test' }, 'FAIL test/cache.test.ts\n  ● expires entries\n    Error: flaky under load\nExit code 1'))
  m.push(...call('Edit', { file_path: '/repo/src/cache.ts', old_string: 'const TTL_SECONDS = 5', new_string: 'const TTL_SECONDS = 60' }, 'The file /repo/src/cache.ts has been updated.'))
  m.push(...call('Edit', { file_path: '/repo/src/evict.ts', old_string: 'interval: 1000', new_string: 'interval: 100' }, 'The file /repo/src/evict.ts has been updated.'))
  m.push(assistant('Lowering the TTL made the test flaky, so I reverted it and shortened the eviction interval instead.'))
  m.push(...filler(6))
  for (const format of ['openai', 'anthropic', 'ai-sdk'] as const) {
    const s = summaryText(await run(m, 1500, format))
    // As a Completed Work row, or as the rejected attempt that says why (issue 22).
    t.match(s, /\| \/repo\/src\/cache\.ts \| edited, then undone \||- Rejected: \/repo\/src\/cache\.ts — .*; undone; reason given: Lowering the TTL made the test flaky/, `${format}: the undone edit is marked`)
    t.match(s, /Last change: \/repo\/src\/evict\.ts/, `${format}: the last change is the one that stayed`)
  }
})

t.test('the action log does not repeat file creations the Completed Work table lists; failed writes stay', async (t) => {
  const m: Msg[] = [{ role: 'system', content: 'You are a coding agent.' }, user('Add the billing module under /repo/src/billing.')]
  const names = ['billing.controller.ts', 'billing.service.ts', 'billing.module.ts', 'billing.dto.ts', 'billing.entity.ts']
  for (const n of names) m.push(...call('Write', { file_path: `/repo/src/billing/${n}`, content: '// generated\n'.repeat(10) }, `File created successfully at: /repo/src/billing/${n}`))
  m.push(...call('Write', { file_path: '/repo/src/billing/index.ts', content: 'export * from "./billing.module"\n' }, 'Error: EACCES: permission denied, open \'/repo/src/billing/index.ts\''))
  m.push(...filler(8))
  for (const format of ['openai', 'anthropic', 'ai-sdk'] as const) {
    const r = await run(m, 1200, format)
    const s = summaryText(r)
    const log = s.slice(s.indexOf('### Earlier Actions'))
    t.match(s, /\| \/repo\/src\/billing\/ \(5 files\) \| created \| billing\.controller\.ts, /, `${format}: the table lists the created files`)
    for (const n of names) t.notMatch(log, `Write /repo/src/billing/${n}`, `${format}: no log line repeats the creation of ${n}`)
    t.match(s, /EACCES: permission denied/, `${format}: the failed write stays`)
  }
})

t.test("an earlier Gemini CLI snapshot's task_state: open steps are pending work, done steps one line", async (t) => {
  const snapshot = [
    '<state_snapshot>',
    '  <overall_goal>Ship the CSV export for invoices.</overall_goal>',
    '  <task_state>',
    '    <step status="DONE">Stream the rows instead of buffering them.</step>',
    '    <step status="IN PROGRESS">Add the header row with localized column names. <-- CURRENT FOCUS</step>',
    '    <step status="TODO">Document the export endpoint in docs/export.md.</step>',
    '  </task_state>',
    '</state_snapshot>',
  ].join('\n')
  const m: Msg[] = [{ role: 'system', content: 'You are a coding agent.' }, user('Ship the CSV export for invoices.'), user(snapshot), assistant('Continuing with the header row.')]
  m.push(...call('Edit', { file_path: '/repo/src/export/csv.ts', old_string: 'const header = []', new_string: 'const header = columns.map(localize)' }, 'The file /repo/src/export/csv.ts has been updated.'))
  m.push(...filler(8))
  for (const format of ['openai', 'anthropic', 'ai-sdk'] as const) {
    const s = summaryText(await run(m, 1600, format))
    t.match(s, '- [ ] Document the export endpoint in docs/export.md. (earlier)', `${format}: the open step is pending`)
    t.match(s, /- \[ \] Add the header row with localized column names\..*\(in progress\) \(earlier\)/, `${format}: the step in progress says so`)
    t.match(s, '- Done earlier: Stream the rows instead of buffering them.', `${format}: the done step, on one line`)
    t.notMatch(s, /\[(TODO|DONE|IN PROGRESS)\]/, `${format}: no raw status markers`)
  }
})

t.test('Commands Run lists what ran, not reads that worked (those are log lines already)', async (t) => {
  const m: Msg[] = [{ role: 'system', content: 'You are a coding agent.' }, user('Fix the date parsing bug in /repo/src/dates.py.')]
  m.push(...call('Bash', { command: "sed -n '1,120p' src/dates.py" }, 'def parse(s):\n    return s\n'.repeat(30)))
  m.push(...call('Bash', { command: 'cat src/missing.py' }, 'cat: src/missing.py: No such file or directory\nExit code 1'))
  m.push(...call('Bash', { command: 'python -m pytest tests/test_dates.py' }, 'FAILED tests/test_dates.py::test_iso - ValueError: bad date\nExit code 1'))
  m.push(...call('Bash', { command: 'python -m pytest tests/test_dates.py' }, '3 passed\nExit code 0'))
  m.push(...call('Bash', { command: 'python setup.py build' }, 'running build\nExit code 0'))
  m.push(...filler(8))
  for (const format of ['openai', 'anthropic', 'ai-sdk'] as const) {
    const r = await run(m, 2000, format)
    const s = summaryText(r)
    const commands = s.slice(s.indexOf('### Commands Run'))
    t.match(commands, '`python setup.py build`', `${format}: a build is listed`)
    t.match(commands, '`python -m pytest tests/test_dates.py` (×2, last exit 0, failed earlier)', `${format}: the test runs are listed`)
    t.match(commands, '`cat src/missing.py`', `${format}: a read that failed is listed`)
    t.notMatch(commands, "sed -n '1,120p'", `${format}: a read that worked is not`)
    t.ok(JSON.stringify(r.messages).includes("sed -n '1,120p' src/dates.py"), `${format}: the read is still in the output (its call, or its log line)`)
  }
})

t.test('the same command through a different output window is one command: its runs merge, a later success resolves it', async (t) => {
  t.equal(commandIdentity('cd /testbed && python run_test.py 2>&1 | tail -300'), 'cd /testbed && python run_test.py')
  t.equal(commandIdentity('pytest -x | head -n 50 | tail -5'), 'pytest -x')
  t.equal(commandIdentity('grep -n foo src/a.py | head'), 'grep -n foo src/a.py')
  t.equal(commandIdentity('python a.py | tail -5 && echo done'), 'python a.py | tail -5 && echo done', 'only a trailing filter')
  const m: Msg[] = [{ role: 'system', content: 'You are a coding agent.' }, user('Make the media tests pass.')]
  m.push(...call('Bash', { command: 'cd /testbed && python run_test.py 2>&1 | tail -300' }, '<returncode>0</returncode>\n<output>\nFAILED tests/test_media.py::test_form_media - ImproperlyConfigured: No DjangoTemplates backend is configured.\n</output>'))
  m.push(...call('Bash', { command: 'cd /testbed && python run_test.py 2>&1 | tail -100' }, '<returncode>0</returncode>\n<output>\nFAILED tests/test_media.py::test_form_media - ImproperlyConfigured: No DjangoTemplates backend is configured.\n</output>'))
  m.push(...call('Bash', { command: 'cd /testbed && python run_test.py 2>&1 | tail -20' }, '<returncode>0</returncode>\n<output>\n12 passed\n</output>'))
  m.push(...filler(8))
  for (const format of ['openai', 'anthropic', 'ai-sdk'] as const) {
    const s = summaryText(await run(m, 1500, format))
    t.match(s, '- `cd /testbed && python run_test.py` (×2) → exit 0: FAILED tests/test_media.py::test_form_media - ImproperlyConfigured: No DjangoTemplates backend is configured. — resolved', `${format}: one failure, seen twice, resolved`)
    t.notMatch(s, /`cd \/testbed && python run_test\.py 2>&1 \| tail -100`.*→/, `${format}: not a second failure`)
  }
})
