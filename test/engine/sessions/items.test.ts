/** An exchange → one summary item (src/engine/sessions/items.ts): what happened, and how important it is. */
import t from 'tap'
import { summarizeExchange } from '../../../src/engine/sessions/index.ts'
import { summarizeBatch } from '../../../src/engine/sessions/items.ts'
import { messageTokens } from '../../../src/engine/tokens/count.ts'
import { call, counter, DAY, fixExchange, iso, msg, result, T0, text } from './helpers.ts'

/** One exchange's item, as one line: the user's request, then each shell command with its output. */
function ranItem(request: string, runs: readonly [command: string, output: string][]): string {
  const messages = [msg('user', [text(request)])]
  runs.forEach(([command, output], k) => {
    messages.push(msg('assistant', [call(`r${k}`, 'bash', { command })]))
    messages.push(msg('tool', [result(`r${k}`, output)]))
  })
  return summarizeExchange({ messages }, T0, counter).text.replace(/\s+/g, ' ')
}

t.test('summarizeExchange: failing command, its error, the edited file, the cause', async (t) => {
  const ex = fixExchange(T0)
  const it = summarizeExchange(ex, T0 + DAY, counter)
  t.match(it.text, /src\/auth\/jwt\.ts/, 'names the file')
  t.match(it.text, /`npm test -- test\/auth\.test\.ts` failed \(exit 1\)/, 'names the failing command')
  t.match(it.text, /TypeError: Cannot read properties of undefined \(reading 'exp'\)/, 'with its error')
  t.match(it.text, /later passed/)
  t.match(it.text, /cause: The root cause is that verifyToken/)
  t.match(it.text, /^Asked "The expired-token test fails/)
  t.notMatch(it.text, /\n/)
  t.equal(it.kind, 'fix')
  t.equal(it.importance, 'high', "the user's instruction and a project change rank at the top of the shared scale")
  t.match(it.text, /\[failing: rejects expired tokens\]/, 'with the failing test')
  t.match(it.text, /edited src\/auth\/jwt\.ts \(\+1\/-1/, 'the file with what changed')
  t.equal(it.at, iso(T0 + 7 * 60_000))
  t.ok(it.tokens > 50)
  t.same(it.files, ['src/auth/jwt.ts'])

  const decision = summarizeExchange(
    {
      messages: [
        msg('user', [text('Which library should we use for the storage layer?')]),
        // A decision names something concrete (facts/reasoning.ts): here the `kysely` package.
        msg('assistant', [text('I decided to go with `kysely` over Prisma for the database layer, since it keeps one SQL code path for PGlite and Postgres.')]),
      ],
    },
    T0,
    counter,
  )
  t.equal(decision.importance, 'high')
  t.equal(decision.kind, 'decision')
  t.match(decision.text, /decided: I decided to go with `kysely`/)

  const trivial = summarizeExchange({ messages: [msg('user', [text('ok')]), msg('assistant', [text('Sure.')])] }, T0, counter)
  t.equal(trivial.importance, 'low')
  t.equal(trivial.kind, 'trivial')
  t.equal(trivial.at, iso(T0))

  const debug = summarizeExchange(
    {
      messages: [
        msg('user', [text('Why does the server crash on start?')]),
        msg('assistant', [call('d1', 'read_file', { path: 'src/server.ts' })]),
        msg('tool', [result('d1', 'import x from "y"')]),
        msg('assistant', [call('d2', 'bash', { command: 'node dist/server.js' })]),
        msg('tool', [result('d2', "Error: Cannot find module 'y'\nexit code 1")]),
      ],
    },
    T0,
    counter,
  )
  t.equal(debug.importance, 'high', 'a question left with an unresolved failure')
  t.equal(debug.kind, 'debug')
  t.match(debug.text, /`node dist\/server\.js` failed \(exit 1\): Error: Cannot find module 'y'/)
})

t.test("an investigation says what was learned: the agent's result in its words (facts/findings/)", async (t) => {
  const it = summarizeExchange(
    {
      messages: [
        msg('user', [text('Which backends drop the timezone of datetimes?')]),
        msg('assistant', [call('f1', 'bash', { command: 'rg -n "make_naive" src/orm/backends' })]),
        msg('tool', [result('f1', 'src/orm/backends/mysql/operations.py:219: value = timezone.make_naive(value)\nsrc/orm/backends/sqlite3/operations.py:248: value = timezone.make_naive(value)')]),
        msg('assistant', [text('Found 2 backends that call `timezone.make_naive`: mysql and sqlite3; oracle keeps tzinfo.')]),
        msg('assistant', [text('Maybe the cursor wrapper converts too?')]),
      ],
    },
    T0,
    counter,
  )
  t.match(it.text, /learned: Found 2 backends that call `timezone\.make_naive`: mysql and sqlite3/)
  t.notMatch(it.text, /cursor wrapper/, 'a musing is not learned')
})

t.test('a terminal-driving exchange names the commands it ran, by their first line, once each, within the item (ranSegment)', async (t) => {
  // The class: an agent that works through a shell (mini-SWE-agent, pi's bash, Codex's shell).
  const commands = [
    'cd /testbed && grep -n "def _detect_changes" django/db/migrations/',
    'ls -d ~/raddit ~/tmp/raddit 2>/dev/null; echo "---"; ls ~',
    "cat > /tmp/repro.py << 'EOF'\nprint(1)\nEOF",
    'python -m pytest tests/migrations -q',
    'cd /testbed && grep -n "def _detect_changes" django/db/migrations/',
    'cd /testbed && python -c "import django; print(django.get_version())" && grep -rn "AlterOrderWithRespectTo" django/db',
  ]
  const messages = [msg('user', [text('Find where the autodetector orders its operations.')])]
  commands.forEach((command, k) => {
    messages.push(msg('assistant', [call(`r${k}`, 'bash', { command })]))
    messages.push(msg('tool', [result(`r${k}`, k === 3 ? '3 passed in 0.41s' : 'ok')]))
  })
  const it = summarizeExchange({ messages }, T0, counter)
  const plain = it.text.replace(/\s+/g, ' ')
  t.match(plain, '`cd /testbed && grep -n "def _detect_changes" django/db/migrations/`', 'a command whole')
  t.match(plain, '`cd /testbed && python -c "import django; print(django.get_version())" && grep -…`', 'a long one by its first 80 characters')
  t.match(plain, 'ls -d ~/raddit ~/tmp/raddit 2>/dev/null; echo "---"; ls ~', "its own '; ' kept (a no-break space, not the separator)")
  t.notMatch(it.text, /ls -d ~\/raddit ~\/tmp\/raddit 2>\/dev\/null; /, 'no plain "; " inside a command')
  t.match(plain, "`cat > /tmp/repro.py << 'EOF'`", "a heredoc's first line only")
  t.equal(plain.split('def _detect_changes').length - 1, 1, 'a command run twice is named once')
  t.equal(plain.match(/python -m pytest tests\/migrations -q/g)?.length, 1, 'the passing test run is named once, by its own segment')
  t.ok(it.text.length <= 600, 'within the item')
  t.equal(it.text.split('; ').at(-1)!.startsWith('ran '), true, 'written last: condensing drops it first')

  // Many long commands: as many as fit, in order, never a cut one.
  const many = [msg('user', [text('Look around the repository.')])]
  for (let k = 0; k < 30; k++) {
    many.push(msg('assistant', [call(`m${k}`, 'bash', { command: `cd /repo && find src/module_${k} -name "*.py" | xargs grep -n "pattern_${k}" | head -50` })]))
    many.push(msg('tool', [result(`m${k}`, 'ok')]))
  }
  const full = summarizeExchange({ messages: many }, T0, counter)
  t.ok(full.text.length <= 600, `within the item (${full.text.length})`)
  const named = [...full.text.matchAll(/pattern_(\d+)/g)].map((m) => Number(m[1]))
  t.same(named, named.map((_, k) => k), 'the first commands, in order')
  t.ok(named.length >= 3, `several fit (${named.length})`)
})

t.test('a reproduction script that exits 0 but prints the error: its ran span says what it printed; a short value does not ride along', async (t) => {
  // The class: debugging sessions whose agent runs its own reproduction scripts (SWE-agent,
  // mini-SWE-agent): the script catches the exception, prints it and exits 0.
  const plain = ranItem('Packages without __init__.py are not found; reproduce and fix it.', [
    ['python --version', '<returncode>0</returncode>\n<output>\nPython 3.11.5\n</output>'],
    ['cd /testbed && python reproduce_issue.py', '<returncode>0</returncode>\n<output>\nBuilding module src.project.file\nError: Unable to load file /tmp/tmp3lk0bp8z/src/project: [Errno 21] Is a directory\n</output>'],
  ])
  t.match(plain, /`cd \/testbed && python reproduce_issue\.py` printed `Error: Unable to load file \S*tmp3lk0bp8z\/src\/project: \[Errno 21\] Is a directory`/, 'the printed error after its command')
  t.notMatch(plain, /Python 3\.11\.5/, 'the version is for the /compact log, not for the item')
  t.notMatch(plain, /python reproduce_issue\.py` failed/, 'a run that exited 0 is no failure')
})

t.test('a long terminal exchange: the commands its item had no room for follow as low-importance `ran (cont.)` items (ranContinuations)', async (t) => {
  // The class: one task, dozens of shell commands in one exchange (mini-SWE-agent, SWE-agent).
  const many = [msg('user', [text('Find why the parser drops the WITH clause.')])]
  for (let k = 0; k < 60; k++) {
    many.push(msg('assistant', [call(`m${k}`, 'bash', { command: `cd /repo && grep -rn "pattern_${k}" src/sqlfluff/rules | head -20` })]))
    many.push(msg('tool', [result(`m${k}`, 'ok')]))
  }
  const { done } = summarizeBatch([{ messages: many }], T0, counter)
  const items = done[0]!.items
  const [main, ...rest] = items
  t.ok(rest.length >= 1 && rest.length <= 4, `continuation items, at most 4 (${rest.length})`)
  for (const it of rest) {
    t.match(it.text, /^ran \(cont\.\) `/, 'each says what it continues')
    t.equal(it.importance, 'low', 'low importance: condensed or merged first under budget pressure')
    t.ok(it.tokens > 0, "a share of the exchange's size, by the commands it names")
    t.ok(it.text.length <= 600, 'within an item')
  }
  const named = items.flatMap((it) => [...it.text.matchAll(/pattern_(\d+)"/g)].map((m) => Number(m[1])))
  t.same(named, named.map((_, k) => k), 'every command once, in order, across the items')
  t.ok(named.length > [...main!.text.matchAll(/pattern_/g)].length, 'more than the first item held')
  t.ok(named.length < 60, 'a runaway loop does not flood the summary: capped')
  const whole = summarizeBatch([{ messages: many.slice(0, 3) }], T0, counter).done[0]!.items[0]!.tokens
  t.ok(whole > 0)
  const sum = items.reduce((n, it) => n + it.tokens, 0)
  const exchangeTokens = many.reduce((n, m) => n + messageTokens(m, counter), 0)
  t.ok(Math.abs(sum - exchangeTokens) <= exchangeTokens * 0.05, `the items' sizes add up to the exchange's (${sum} ≈ ${exchangeTokens})`)

  // A search that matched nothing (grep's exit 1: no failure) is still named with its code.
  const probe = [msg('user', [text('Is the old flag still used?')]), msg('assistant', [call('g0', 'bash', { command: 'grep -rn "LEGACY_FLAG" src/' })]), msg('tool', [result('g0', '<returncode>1</returncode>\n<output></output>')])]
  const probed = summarizeBatch([{ messages: probe }], T0, counter).done[0]!.items[0]!
  t.match(probed.text, '`grep -rn "LEGACY_FLAG" src/` exit 1', 'the exit code beside the command: nothing there')

  // A short exchange gets no continuation.
  const short = [msg('user', [text('Run the tests.')]), msg('assistant', [call('s0', 'bash', { command: 'npm test' })]), msg('tool', [result('s0', 'ok')])]
  t.equal(summarizeBatch([{ messages: short }], T0, counter).done[0]!.items.length, 1)
})

t.test('a failing or passing test command keeps its first characters as written: its paths are not shortened to …/name', async (t) => {
  // The class: terminal-driven sessions that run tests by long paths (SWE-agent,
  // mini-SWE-agent: `cd /testbed && python -m pytest tests/<app>/tests/<file>.py::…`). The
  // item shortened each path to `…/tests/test_x.py`, so the command as the agent typed it,
  // and a search for its start, no longer matched.
  const failing = 'cd /testbed && python -m pytest tests/forms_tests/tests/test_media.py::FormsMediaTestCase::test_merge_js_three_way -x -q'
  const passing = 'cd /testbed && python -m django test forms_tests.tests.test_media.FormsMediaTestCase --settings=test_sqlite'
  const messages = [
    msg('user', [text('Fix the media merge order warning in forms.')]),
    msg('assistant', [call('f1', 'bash', { command: failing })]),
    msg('tool', [result('f1', '<returncode>1</returncode>\n<output>\nE   AssertionError: Lists differ\nFAILED tests/forms_tests/tests/test_media.py::FormsMediaTestCase::test_merge_js_three_way\n</output>')]),
    msg('assistant', [call('f2', 'bash', { command: passing })]),
    msg('tool', [result('f2', '<returncode>0</returncode>\n<output>\nRan 31 tests in 0.041s\n\nOK\n</output>')]),
  ]
  const item = summarizeExchange({ messages }, T0, counter).text.replace(/\s+/g, ' ')
  t.ok(item.includes(`\`${failing.slice(0, 60)}`), `the failing command's first 60 characters as written: ${item}`)
  t.ok(item.includes(`\`${passing.slice(0, 60)}`), "the passing run's first 60 characters as written")
  t.match(item, /failed \(exit 1\)/)
  t.notMatch(item, /pytest …\//, 'no shortened path at the start')
})

t.test("a check script that exits 0 but prints its own `FAILED: …` verdict: its ran span says what it printed", async (t) => {
  // The class: agents that write a small script to verify each attempt at a fix (SWE-agent,
  // mini-SWE-agent): it prints `FAILED: <why>` or `FAIL: <why>`, often indented, and exits 0.
  const plain = ranItem('The CTE indentation is off by one; fix rule L003.', [
    ['python test_edit.py 2>&1 | grep -v "One fix"', '<returncode>0</returncode>\n<output>\nmy_id: 9 spaces (expected: 8)\n  FAILED: Still broken: 9 spaces\n</output>'],
    ['python check_merge.py', '<returncode>0</returncode>\n<output>\ncase 1 ok\nFAIL: case 2 returned [2, 1]\n</output>'],
  ])
  t.match(plain, /`python test_edit\.py 2>&1 \| grep -v "One fix"` printed `FAILED: Still broken: 9 spaces`/, plain)
  t.match(plain, /`python check_merge\.py` printed `FAIL: case 2 returned \[2, 1\]`/)
  t.notMatch(plain, /failed \(exit/, 'a run that exited 0 is no failure')
})

t.test("a failing command's own `;` stays a `;`: the item's segment separator does not rewrite it", async (t) => {
  // The class: terminal-driven agents that chain commands with `;` (pi's bash, mini-SWE-agent:
  // `ls -la /tmp/pot_test* 2>&1; echo "---"`). Each segment's "; " became ", ", so the
  // failing command read `ls -la /tmp/pot_test* 2>&1, echo "---"`: another command.
  const item = ranItem('Fix the indentation error in delimited.py.', [
    ['python -m py_compile src/delimited.py 2>&1; echo "---"', 'Sorry: IndentationError: unexpected indent (delimited.py, line 96)\n---\nexit code 1'],
    ['python -c "import sqlfluff; print(sqlfluff.__version__)"', "Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\nModuleNotFoundError: No module named 'sqlfluff'\nexit code 1"],
  ])
  t.match(item, /`python -m py_compile src\/delimited\.py 2>&1; echo "---"` failed \(exit 1\)/, item)
  t.match(item, /`python -c "import sqlfluff; print\(sqlfluff\.__version__\)"` failed \(exit 1\)/)
  t.notMatch(item, /2>&1, echo|sqlfluff, print/, 'no command rewritten')
})
