/**
 * Issue 9 ("handover-grade compaction") for the rolling session summary: harness text is
 * never a request, earlier compaction summaries are folded in, outcomes come from
 * evidence, files carry their fate, the continuation holds conclusions and plans (no
 * narration, no empty fields), and the document uses its budget.
 */
import t from 'tap'
import { continuationOf, emptySummary, renderContinuationPrompt, SECTION_KEYS, updateSummary, type Exchange, type SummaryDocument } from '../../../src/engine/sessions/index.ts'
import { call, counter, countText, HOUR, iso, msg, result, T0, text } from './helpers.ts'

const items = (doc: SummaryDocument) => SECTION_KEYS.flatMap((k) => doc.sections[k])
const run = (exchanges: Exchange[], budgetTokens = 10_000) => updateSummary({ doc: emptySummary(), exchanges, now: T0 + HOUR, budgetTokens, counter })
const user = (s: string, k: number) => msg('user', [text(s)], iso(T0 + k * 60_000))
const said = (s: string, k: number) => msg('assistant', [text(s)], iso(T0 + k * 60_000))

t.test('harness text is never a request nor the current task; a real instruction keeps its words', async (t) => {
  const real: Exchange = {
    messages: [
      user('Add rate limiting to the login route in src/server.ts\n\n<system-reminder>\nThe TodoWrite tool has not been used recently. Consider using it.\n</system-reminder>', 0),
      msg('assistant', [call('e1', 'edit_file', { path: 'src/server.ts', old_str: 'app.post("/login", login)', new_str: 'app.post("/login", rateLimit(5), login)' })], iso(T0 + 60_000)),
      msg('tool', [result('e1', 'Edited src/server.ts')], iso(T0 + 60_000)),
    ],
  }
  const harness = [
    '<task-notification>\n<task-id>b7f</task-id>\n<status>completed</status>\n<summary>Background command "npm run dev" completed</summary>\n</task-notification>',
    '<system-reminder>\nWhenever you read a file, consider whether it is malware.\n</system-reminder>',
    '[Request interrupted by user]',
    '<turn_aborted>',
    'continue',
    '하이',
  ].map((s, k): Exchange => ({ messages: [user(s, 10 + k)] }))
  const res = run([real, ...harness])
  const all = items(res.doc)
  t.equal(all.length, 1, 'exchanges of harness text add no item')
  t.match(all[0]!.text, /^Asked "Add rate limiting to the login route in src\/server\.ts"; edited src\/server\.ts/)
  t.equal(continuationOf(res.doc).currentTask, 'Add rate limiting to the login route in src/server.ts')
  for (const h of ['TodoWrite', 'task-notification', 'system-reminder', 'Request interrupted', 'turn_aborted', '"continue"', '하이']) t.notOk(res.text.includes(h), `no trace of ${h}`)
})

const CLAUDE_SUMMARY = `This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:
Analysis:
Let me chronologically analyze the conversation.

Summary:
1. Primary Request and Intent:
   The user asked to fix the crash in src/cache.ts when the cache is cold, without changing the public API.

2. Files and Code Sections:
   - src/cache.ts
      - Changes: guard against an undefined entry in get()
   - test/cache.test.ts
      - Added a cold-cache regression test

3. Errors and fixes:
    - TypeError: Cannot read properties of undefined (reading 'value'): fixed by returning early when the entry is missing.

4. Pending Tasks:
   - Run the full test suite
   - Update the CHANGELOG

5. Current Work:
   Writing the regression test in test/cache.test.ts.
Please continue the conversation from where we left it off without asking the user any further questions.`

t.test('an earlier compaction summary is folded in, section by section', async (t) => {
  const ex: Exchange = {
    messages: [
      user(CLAUDE_SUMMARY, 0),
      msg('assistant', [call('r1', 'read_file', { path: 'test/cache.test.ts' })], iso(T0 + 60_000)),
      msg('tool', [result('r1', "import { get } from '../src/cache'")], iso(T0 + 60_000)),
    ],
  }
  const res = run([ex])
  const text = res.text
  t.ok(items(res.doc).length >= 4, `several items (${items(res.doc).length}), not one line`)
  t.match(text, /Earlier task: The user asked to fix the crash in src\/cache\.ts when the cache is cold/)
  t.match(text, /Earlier files: src\/cache\.ts \(Changes: guard against an undefined entry in get\(\)\)/)
  t.match(text, /TypeError: Cannot read properties of undefined \(reading 'value'\)/)
  t.match(text, /Earlier pending: Run the full test suite, Update the CHANGELOG|Earlier pending: Run the full test suite; Update the CHANGELOG/)
  t.notMatch(text, /This session is being continued|Asked "/, 'not taken for a request')
  t.notMatch(text, /chronologically analyze/, "the model's analysis is not a fact")
  const c = continuationOf(res.doc)
  t.match(c.currentTask, /^The user asked to fix the crash in src\/cache\.ts/)
  t.same(c.pendingSteps, ['Run the full test suite', 'Update the CHANGELOG'])
  t.ok(c.relevantFiles.includes('src/cache.ts') && c.relevantFiles.includes('test/cache.test.ts'))
})

t.test("an earlier plan's done steps are not pending work in the rolling summary", async (t) => {
  const snapshot = '<state_snapshot>\n<overall_goal>Ship the CSV export.</overall_goal>\n<task_state>\n<step status="DONE">Stream the rows.</step>\n<step status="IN PROGRESS">Add the header row.</step>\n<step status="TODO">Document the endpoint.</step>\n</task_state>\n</state_snapshot>'
  const res = run([{ messages: [user(snapshot, 0), said('Continuing with the header row.', 1)] }])
  t.match(res.text, /Earlier pending: Add the header row\. \(in progress\)[,;] Document the endpoint\./)
  t.match(res.text, /Earlier done: Stream the rows\./)
  t.notMatch(res.text, /\[(DONE|TODO|IN PROGRESS)\]/, 'no raw status markers')
  const c = continuationOf(res.doc)
  t.same(c.pendingSteps, ['Add the header row. (in progress)', 'Document the endpoint.'], 'the open steps are pending')
  t.same(c.completedSteps, ['Stream the rows.'], 'the done step is completed')
})

t.test('outcomes come from evidence: success worded like failure is no error; a real failure keeps its error and test', async (t) => {
  const ok: Exchange = {
    messages: [
      user('Create the config loader and start the log monitor', 0),
      msg('assistant', [call('w1', 'Write', { file_path: '/repo/src/config.ts', content: 'export const load = () => ({})\n' }), call('m1', 'Monitor', { command: 'tail -f /tmp/app.log' })], iso(T0 + 60_000)),
      msg('tool', [result('w1', 'File created successfully at: /repo/src/config.ts'), result('m1', 'Monitor started')], iso(T0 + 60_000)),
      msg('assistant', [call('b1', 'bash', { command: 'npm test' })], iso(T0 + 2 * 60_000)),
      msg('tool', [result('b1', 'Tests: 0 failed, 12 passed, 12 total\nNo errors found.\nProcess exited with code 0')], iso(T0 + 2 * 60_000)),
    ],
  }
  const bad: Exchange = {
    messages: [
      user('Now make the parser accept empty input', 3),
      msg('assistant', [call('p1', 'bash', { command: 'python -m pytest tests/test_parser.py' })], iso(T0 + 4 * 60_000)),
      msg('tool', [result('p1', 'FAILED tests/test_parser.py::test_parse_empty - AssertionError: assert None == []\n========= 1 failed, 3 passed in 0.12s =========\nProcess exited with code 1')], iso(T0 + 4 * 60_000)),
    ],
  }
  const res = run([ok, bad])
  const [first, second] = res.doc.sections.session
  t.notMatch(first!.text, /failed|error/i, `no error item: ${first!.text}`)
  t.match(first!.text, /created \/repo\/src\/config\.ts/)
  t.match(first!.text, /`npm test` passed/)
  t.match(second!.text, /`python -m pytest tests\/test_parser\.py` failed \(exit 1\): .*AssertionError: assert None == \[\]/)
  t.match(second!.text, /test_parse_empty/, 'the failing test is named')
  t.equal(second!.importance, 'high')
})

t.test('files carry their fate; a script the session wrote and ran edits; paths and URLs are never cut', async (t) => {
  const long = '/Users/me/work/projects/some-very-long-project-name/src/main/java/com/example/service/AuthenticationServiceImplementation.java'
  const url = 'https://www.youtube.com/watch?v=8mY9wx_iMSU'
  const write: Exchange = {
    messages: [
      user(`Summarise ${url} and fix the imports in app/models.py`, 0),
      msg('assistant', [call('f1', 'web_fetch', { url }), call('s1', 'write_file', { path: 'fix_imports.py', content: "src = open('app/models.py').read()\nopen('app/models.py', 'w').write(src.replace('import os\\n', ''))\n" })], iso(T0 + 60_000)),
      msg('tool', [result('f1', 'Video title: transcripts'), result('s1', 'ok')], iso(T0 + 60_000)),
    ],
  }
  const runIt: Exchange = {
    messages: [
      user('Run it, then tidy the service class', 2),
      msg('assistant', [call('b1', 'bash', { command: 'python fix_imports.py' })], iso(T0 + 3 * 60_000)),
      msg('tool', [result('b1', 'Process exited with code 0')], iso(T0 + 3 * 60_000)),
      msg('assistant', [call('e1', 'edit_file', { path: long, old_str: 'public void login(', new_str: 'public void signIn(' })], iso(T0 + 4 * 60_000)),
      msg('tool', [result('e1', 'ok')], iso(T0 + 4 * 60_000)),
    ],
  }
  const res = run([write, runIt])
  const [a, b] = res.doc.sections.session
  t.match(a!.text, /created fix_imports\.py/)
  t.match(b!.text, /edited app\/models\.py/, `the script's run edits what it writes: ${b!.text}`)
  t.match(b!.text, /edited …\/[\w/]*AuthenticationServiceImplementation\.java \(\+1\/-1/, 'a long path loses leading folders, never its name')
  t.ok(res.text.includes(url), 'the URL is whole')
  t.notMatch(res.text, /https:\/[^/]/, 'never mangled')
  // Every path-like token in the items ends in a whole file name that was really touched.
  for (const it of items(res.doc)) for (const m of it.text.matchAll(/[\w.…-]*\/[\w./-]*\.\w+/g)) t.ok(['fix_imports.py', 'app/models.py', 'AuthenticationServiceImplementation.java', url, 'www.youtube.com'].some((n) => m[0].endsWith(n) || url.includes(m[0])), `whole: ${m[0]}`)
  t.same(continuationOf(res.doc).relevantFiles.slice(0, 2), [long, 'app/models.py'])
})

t.test('decisions are conclusions; pending is the latest plan, else the last open intent; no narration, no empty fields', async (t) => {
  const musing: Exchange = {
    messages: [
      user('The token cache leaks memory, fix it in src/cache.ts', 0),
      said('Let me check the cache first. What if we cache the token per request? I think we need a different approach.', 1),
      msg('assistant', [text("I'll use `lru-cache` instead of the hand-written Map in src/cache.ts."), call('e1', 'edit_file', { path: 'src/cache.ts', old_str: 'new Map()', new_str: 'new LRUCache({ max: 500 })' })], iso(T0 + 2 * 60_000)),
      msg('tool', [result('e1', 'ok')], iso(T0 + 2 * 60_000)),
      said('Let me check the tests now. Next, I will update the docs in `docs/cache.md`.', 3),
    ],
  }
  const noPlan = run([musing])
  const c = continuationOf(noPlan.doc)
  t.same(c.keyDecisions, ["I'll use `lru-cache` instead of the hand-written Map in src/cache.ts."])
  t.same(c.pendingSteps, ['Next, I will update the docs in `docs/cache.md`.'], 'the last open intent')

  const planned: Exchange = {
    messages: [
      user('Also add eviction metrics', 4),
      msg('assistant', [call('t1', 'TodoWrite', { todos: [
        { content: 'Add an eviction counter to src/cache.ts', status: 'completed', activeForm: 'Adding' },
        { content: 'Expose it on /metrics', status: 'in_progress', activeForm: 'Exposing' },
        { content: 'Document the metric', status: 'pending', activeForm: 'Documenting' },
      ] })], iso(T0 + 5 * 60_000)),
      msg('tool', [result('t1', 'Todos have been modified successfully')], iso(T0 + 5 * 60_000)),
      said('Let me look at the metrics plugin. Next, I will check `src/plugins/metrics.ts`.', 6),
    ],
  }
  const withPlan = updateSummary({ doc: noPlan.doc, exchanges: [planned], now: T0 + HOUR, budgetTokens: 10_000, counter })
  const p = continuationOf(withPlan.doc)
  t.same(p.pendingSteps, ['Expose it on /metrics (in progress)', 'Document the metric'], 'the todo plan, not the stated intent')
  t.ok(p.completedSteps.includes('Add an eviction counter to src/cache.ts'))
  t.equal(p.currentTask, 'Also add eviction metrics')
  for (const doc of [noPlan.doc, withPlan.doc]) {
    const cc = continuationOf(doc)
    const fields = [cc.currentTask, ...cc.completedSteps, ...cc.pendingSteps, ...cc.keyDecisions, ...cc.relevantFiles]
    for (const f of fields) t.notMatch(f, /\blet me\b|what if|i think|\?$/i, `no narration: ${f}`)
    t.notMatch(renderContinuationPrompt(cc), /:[ \t]*$/m, 'no empty field in the prompt')
  }
  t.notMatch(withPlan.text, /^(?:Current task|Relevant files):[ \t]*$|^(?:Completed|Pending|Key decisions):\n(?!- \S)/m, 'no empty field in the document')
  t.equal(renderContinuationPrompt(continuationOf(emptySummary())), '[Previous Session Context]\nCurrent task: none', 'nothing known: one line says so, no empty fields')
})

/** A distinct, meaningful exchange: a request, a failing test, the cause, the fix, the test passing. */
function workExchange(k: number): Exchange {
  const at = (m: number) => iso(T0 + k * 10 * 60_000 + m * 60_000)
  const file = `src/feature${k}/handler${k}.ts`
  return {
    messages: [
      msg('user', [text(`Feature ${k}: make handler${k} reject payloads over ${k + 10} KB and keep the error format`)], at(0)),
      msg('assistant', [call(`t${k}`, 'bash', { command: `npx vitest run test/handler${k}.test.ts` })], at(1)),
      msg('tool', [result(`t${k}`, `FAIL test/handler${k}.test.ts > rejects large payloads ${k}\nAssertionError: expected 200 to be 413\nProcess exited with code 1`)], at(1)),
      msg('assistant', [text(`The root cause is that handler${k} in ${file} never checks \`content-length\`.`), call(`e${k}`, 'edit_file', { path: file, old_str: 'return next()', new_str: `if (size > ${k + 10}_000) return reply.code(413).send(err)\n  return next()` })], at(2)),
      msg('tool', [result(`e${k}`, 'ok')], at(2)),
      msg('assistant', [call(`p${k}`, 'bash', { command: `npx vitest run test/handler${k}.test.ts` })], at(3)),
      msg('tool', [result(`p${k}`, `PASS test/handler${k}.test.ts\nProcess exited with code 0`)], at(3)),
    ],
  }
}

t.test('the summary uses its budget when there is more to say, and never exceeds it', async (t) => {
  const exchanges = Array.from({ length: 60 }, (_, k) => workExchange(k))
  for (const budget of [2_000, 4_000]) {
    let doc = emptySummary()
    let res = updateSummary({ doc, exchanges: [], now: T0, budgetTokens: budget, counter })
    for (let i = 0; i < exchanges.length; i += 4) {
      res = updateSummary({ doc, exchanges: exchanges.slice(i, i + 4), now: T0 + (i + 4) * 10 * 60_000, budgetTokens: budget, counter })
      t.ok(res.tokens <= budget && countText(res.text) <= budget, `within ${budget}: ${res.tokens}`)
      doc = res.doc
    }
    t.ok(res.tokens >= 0.8 * budget, `near its budget: ${res.tokens} of ${budget}`)
    t.ok(doc.sections.session.length >= budget / 200, `${doc.sections.session.length} items, not a handful`)
    t.match(res.text, /handler59/, 'the latest work is there')
  }
  // With room to spare, nothing is condensed away.
  const roomy = run(exchanges.slice(0, 5), 10_000)
  t.equal(roomy.doc.sections.session.length, 5)
  for (const it of roomy.doc.sections.session) t.match(it.text, /cause: The root cause is that handler\d+/, 'each item whole')
})
