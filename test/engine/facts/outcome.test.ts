/**
 * outcome.ts: a tool call's outcome from evidence only (exit code, is_error, line-anchored
 * error signatures), never from words like "failed" or "error" somewhere in the text.
 */
import t from 'tap'
import { extractErrorDetail, extractErrorLine, extractExitCode, extractFailingTests, outcomeOf } from '../../../src/engine/facts/outcome.ts'
import { digestToolCall } from '../../../src/engine/facts/tools.ts'

const STREAMLIT_HELP = `Usage: streamlit run [OPTIONS] TARGET [ARGS]...

Options:
  --server.runOnSave BOOLEAN      Automatically rerun the script when the file is modified on disk. Falls back to polling if the watcher failed to start.  [default: false]
  --server.maxUploadSize INTEGER  Max size, in megabytes, for files uploaded with the file_uploader. An error is shown when it is exceeded.  [default: 200]
  --logger.level TEXT             Level of logging: 'error', 'warning', 'info', or 'debug'.  [default: info]
  --client.showErrorDetails BOOLEAN
                                  Whether to send error details to the browser when a script failed.  [default: true]
  --help                          Show this message and exit.`

t.test('successes worded like failures are successes (issue 9 trial)', async (t) => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['Write', { file_path: '/repo/src/app.py', content: 'x = 1\n' }, 'File created successfully at: /repo/src/app.py'],
    ['Monitor', { command: 'streamlit run src/app.py --server.port 8501', description: 'Dashboard dev server' }, 'Monitor started (task mon-1, pid 48122)'],
    ['TaskStop', { task_id: 'mon-1' }, 'Successfully stopped task mon-1'],
    ['Bash', { command: 'streamlit --help' }, STREAMLIT_HELP],
    ['Bash', { command: 'python scripts/healthcheck.py http://localhost:8501' }, 'healthcheck: ok (status 200, latency 12ms)\ntimeout: 5s'],
    ['Edit', { file_path: '/repo/src/api/auth.py', old_string: 'a', new_string: 'b' }, 'The file /repo/src/api/auth.py has been updated.'],
  ]
  for (const [tool, args, output] of cases) {
    const d = digestToolCall(tool, JSON.stringify(args), output)
    t.equal(d.status, 'ok', `${tool}: ${output.slice(0, 40)}`)
    t.equal(d.errorLine, undefined, `${tool}: no error line`)
    t.notOk(d.value === 'failure', `${tool}: not a failure`)
  }
})

t.test('`timeout: 5s` in a health check is not an error line', async (t) => {
  t.equal(extractErrorLine('healthcheck: ok (status 200, latency 12ms)\ntimeout: 5s'), undefined)
  t.equal(extractErrorLine(STREAMLIT_HELP), undefined)
})

t.test('`exit 1` and `echo "Failed: …"` inside a script body are not the run’s exit code', async (t) => {
  const script = '#!/usr/bin/env bash\nFAIL_COUNT=0\nif [ "$FAIL_COUNT" -gt 0 ]; then\n  echo "Failed: ${FAIL_COUNT}"\n  exit 1\nfi\necho "All checks passed"\n'
  // The script echoed back in the output (cat, heredoc echo), the run exited 0.
  t.equal(extractExitCode(`<returncode>0</returncode>\n<output>\n${script}</output>`), 0)
  t.equal(extractExitCode(script), undefined)
  const heredoc = digestToolCall('bash', JSON.stringify({ command: `cat > run_checks.sh <<'EOF'\n${script}EOF\nbash run_checks.sh` }), '<returncode>0</returncode>\n<output>\nAll checks passed\n</output>')
  t.equal(heredoc.status, 'ok')
  t.equal(heredoc.exitCode, 0)
  const catScript = digestToolCall('Bash', JSON.stringify({ command: 'cat scripts/run_checks.sh' }), script)
  t.equal(catScript.status, 'ok')
  t.equal(catScript.exitCode, undefined)
})

t.test('exit codes from the harness report, in every shape', async (t) => {
  t.equal(extractExitCode('<returncode>2</returncode>\n<output>\nboom\n</output>'), 2)
  t.equal(extractExitCode('Exit code 1\nImportError while importing test module'), 1) // Claude Code
  t.equal(extractExitCode('Error: Exit code 127\nbash: foo: command not found'), 127)
  t.equal(extractExitCode('Exit code: 0\nWall time: 0.2 seconds\nOutput:\nok'), 0) // Codex
  t.equal(extractExitCode('Output: boom\nError: (none)\nExit Code: 1\nSignal: (none)\nProcess Group PGID: 89005'), 1) // Gemini CLI
  t.equal(extractExitCode('Chunk ID: 98d7f1\nWall time: 0.08 seconds\nProcess exited with code 2\nOutput:\nrg: x: No such file'), 2) // Codex exec
  t.equal(extractExitCode('ERROR: Unable to download\n\n\nCommand exited with code 1'), 1) // pi
  t.equal(extractExitCode('{"output":"ok\\n","metadata":{"exit_code":0,"duration_seconds":0.1}}'), 0) // Codex JSON
  t.equal(extractExitCode('{"exitCode": 3, "stdout": ""}'), 3)
  // Not harness reports: a script line, prose, a log.
  t.equal(extractExitCode('if [ $? -ne 0 ]; then exit 1; fi'), undefined)
  t.equal(extractExitCode('the process will exit with status 1 on failure'), undefined)
  t.equal(extractExitCode('echo "exit code: $?"'), undefined)
})

t.test('outcomeOf: evidence and precedence', async (t) => {
  t.same(outcomeOf({ kind: 'shell', output: 'Exit code 0\nall good' }), { status: 'ok', exitCode: 0, evidence: 'exit-code' })
  const exit1 = outcomeOf({ kind: 'shell', output: 'Exit code 1\nsomething went sideways' })
  t.equal(exit1.status, 'error')
  t.equal(exit1.evidence, 'exit-code')
  t.equal(exit1.errorLine, 'something went sideways', 'without a signature, the last line of output')
  const flagged = outcomeOf({ kind: 'edit', output: 'String to replace not found in file.', isError: true })
  t.equal(flagged.status, 'error')
  t.equal(flagged.evidence, 'is-error')
  t.equal(flagged.errorLine, 'String to replace not found in file.')
  const sig = outcomeOf({ kind: 'shell', output: 'Traceback (most recent call last):\n  File "x.py", line 1, in <module>\n    import yaml\nModuleNotFoundError: No module named \'yaml\'' })
  t.equal(sig.status, 'error')
  t.equal(sig.evidence, 'error-signature')
  t.equal(sig.errorLine, "ModuleNotFoundError: No module named 'yaml'")
  // A read returning a file that contains error words is content, not a failure.
  t.equal(outcomeOf({ kind: 'read', output: 'raise ValueError("bad")\nValueError: documented here\nFAILED tests/x.py::t - no' }).status, 'ok')
  t.equal(outcomeOf({ kind: 'search', output: 'src/a.py:3: error: fatal: panic: Segmentation fault' }).status, 'ok')
  t.equal(outcomeOf({ kind: 'shell', output: '' }).status, 'unknown')
  // Gemini CLI's functionResponse error.
  const denied = outcomeOf({ kind: 'shell', output: '{"error": "[Operation Cancelled] Reason: User denied execution."}' })
  t.equal(denied.status, 'error')
  t.match(denied.errorLine, /User denied execution/)
  // grep/rg exit 1 is "no match".
  t.equal(outcomeOf({ kind: 'shell', output: '<returncode>1</returncode>\n<output>\n</output>', command: 'grep -n "a\\|b" src/x.py' }).status, 'ok')
  // `python repro.py | tail`: exit 0 is tail's; the traceback is python's failure.
  const piped = outcomeOf({ kind: 'shell', output: '<returncode>0</returncode>\n<output>\nTraceback (most recent call last):\n  File "r.py", line 2, in <module>\n    f()\nKeyError: \'indexes\'\n</output>', command: 'python r.py 2>&1 | tail -20' })
  t.equal(piped.status, 'error')
  t.equal(piped.evidence, 'error-signature')
  t.equal(piped.errorLine, "KeyError: 'indexes'")
  // `python -m pytest … | tail`: the interpreter could not even start pytest.
  const noPytest = outcomeOf({ kind: 'shell', output: '<returncode>0</returncode>\n<output>\n/opt/miniconda3/bin/python: No module named pytest\n</output>', command: 'cd /testbed && python -m pytest tests/x.py -xvs 2>&1 | tail -50' })
  t.equal(noPytest.status, 'error')
  t.equal(noPytest.errorLine, '/opt/miniconda3/bin/python: No module named pytest')
  const noScript = outcomeOf({ kind: 'shell', output: "python3: can't open file '/testbed/repro.py': [Errno 2] No such file or directory\nExit code 2", command: 'python3 repro.py' })
  t.equal(noScript.errorLine, "python3: can't open file '/testbed/repro.py': [Errno 2] No such file or directory")
  // Without a pipe, exit 0 wins over printed text.
  t.equal(outcomeOf({ kind: 'shell', output: '<returncode>0</returncode>\nKeyError: handled and logged', command: 'python r.py' }).status, 'ok')
})

t.test('error signatures are line-anchored typed errors', async (t) => {
  const sigs: [string, string][] = [
    ['compiling\nerror[E0308]: mismatched types\n --> src/main.rs:4:5', 'error[E0308]: mismatched types'],
    ["src/a.ts(3,7): error TS2345: Argument of type 'string' is not assignable", "src/a.ts(3,7): error TS2345: Argument of type 'string' is not assignable"],
    ['npm ERR! code ENOENT\nnpm ERR! missing script: tset', 'npm ERR! missing script: tset'],
    ["fatal: not a git repository (or any of the parent directories): .git", "fatal: not a git repository (or any of the parent directories): .git"],
    ['goroutine 1\npanic: runtime error: index out of range [3] with length 3', 'panic: runtime error: index out of range [3] with length 3'],
    ['bash: line 1: 4242 Segmentation fault (core dumped) ./a.out', 'bash: line 1: 4242 Segmentation fault (core dumped) ./a.out'],
    ['bash: tree: command not found', 'bash: tree: command not found'],
    ["python3: can't open file '/x/y.py': [Errno 2] No such file or directory", "python3: can't open file '/x/y.py': [Errno 2] No such file or directory"],
    ['    assert x == 2\nAssertionError', 'AssertionError'],
    // A check script's own verdict, indented or not (it exits 0 whatever it finds).
    ['my_id: 9 spaces (expected: 8)\n  FAILED: Still broken: 9 spaces', '  FAILED: Still broken: 9 spaces'.trim()],
    ['case 1 ok\nFAIL: case 2 returned [2, 1]', 'FAIL: case 2 returned [2, 1]'],
  ]
  for (const [out, line] of sigs) t.equal(extractErrorLine(out), line, line)
  const notSigs = [
    'All checks passed; 0 errors, 0 failures',
    'Level of logging: error, warning',
    '  --fail-fast   stop at the first failed test',
    'retry on error: true',
    'the build failed last week but now works',
    'Error: (none)',
    'FAILED:',
    'tests FAILED: 0',
  ]
  for (const out of notSigs) t.equal(extractErrorLine(out), undefined, out)
})

t.test('a failing test: its name AND its error line, not only "FAILED (errors=1)"', async (t) => {
  // Django's runner (unittest, Python 3.11 naming).
  const django = [
    'Creating test database for alias \'default\'...',
    'E',
    '======================================================================',
    'ERROR: test_form_media (tests.forms_tests.tests.test_media.FormsMediaTestCase.test_form_media)',
    '----------------------------------------------------------------------',
    'Traceback (most recent call last):',
    '  File "/testbed/tests/forms_tests/tests/test_media.py", line 12, in test_form_media',
    '    self.assertEqual(str(m), expected)',
    '  File "/testbed/django/template/engine.py", line 80, in get_default',
    '    raise ImproperlyConfigured(\'No DjangoTemplates backend is configured.\')',
    'django.core.exceptions.ImproperlyConfigured: No DjangoTemplates backend is configured.',
    '',
    '----------------------------------------------------------------------',
    'Ran 1 test in 0.003s',
    '',
    'FAILED (errors=1)',
  ].join('\n')
  const o = outcomeOf({ kind: 'shell', output: `<returncode>1</returncode>\n<output>\n${django}\n</output>` })
  t.equal(o.status, 'error')
  t.same(o.failingTests, [{ name: 'tests.forms_tests.tests.test_media.FormsMediaTestCase.test_form_media', error: 'django.core.exceptions.ImproperlyConfigured: No DjangoTemplates backend is configured.' }])
  t.match(o.errorLine, /test_form_media.*ImproperlyConfigured: No DjangoTemplates backend is configured/)
  t.match(o.errorDetail, /FAILED tests\.forms_tests\.tests\.test_media\.FormsMediaTestCase\.test_form_media - django\.core\.exceptions\.ImproperlyConfigured: No DjangoTemplates backend is configured\./)
  t.notMatch(o.errorLine, /^FAILED \(errors=1\)$/)

  // A condensed unittest report: the header, then the error line, no traceback.
  const condensed = outcomeOf({ kind: 'shell', output: 'ERROR: test_render (forms_tests.tests.test_renderers.Jinja2Tests)\ndjango.core.exceptions.ImproperlyConfigured: No DjangoTemplates backend is configured.\nFAILED (errors=1)\nExit code 1' })
  t.equal(condensed.errorLine, 'FAILED forms_tests.tests.test_renderers.Jinja2Tests.test_render - django.core.exceptions.ImproperlyConfigured: No DjangoTemplates backend is configured.')

  // pytest, with and without the short summary's message.
  const pytest = 'Exit code 1\n.....F..\n=================================== FAILURES ===================================\n__________________________________ test_x __________________________________\n    def test_x():\n>       render()\nE       django.core.exceptions.ImproperlyConfigured: No DjangoTemplates backend is configured\n=========================== short test summary info ============================\nFAILED tests/test_forms.py::test_x - ImproperlyConfigured: No DjangoTemplates backend is configured\n1 failed, 7 passed in 0.84s'
  t.equal(extractErrorLine(pytest), 'FAILED tests/test_forms.py::test_x - ImproperlyConfigured: No DjangoTemplates backend is configured')
  t.equal(extractErrorDetail(pytest, extractErrorLine(pytest)), 'FAILED tests/test_forms.py::test_x - ImproperlyConfigured: No DjangoTemplates backend is configured')
  const noMsg = '=================================== FAILURES ===================================\n__________________________________ test_y __________________________________\nE       assert 1 == 2\nE       AssertionError: totals differ\n=========================== short test summary info ============================\nFAILED tests/test_t.py::test_y\n1 failed'
  t.same(extractFailingTests(noMsg), [{ name: 'tests/test_t.py::test_y', error: 'AssertionError: totals differ' }])

  // go test, jest.
  t.same(extractFailingTests('=== RUN   TestAdd\n--- FAIL: TestAdd (0.00s)\n    add_test.go:9: got 3, want 4\nFAIL\nexit status 1'), [{ name: 'TestAdd', error: 'got 3, want 4' }])
  t.same(extractFailingTests('FAIL src/report/Toolbar.test.tsx\n  ● Toolbar › shows labels in the selected locale\n\n    Expected: "lundi"\n    Received: "Monday"'), [{ name: 'Toolbar › shows labels in the selected locale', error: 'Expected: "lundi"' }])
})

t.test('a traceback keeps its last frames and the error', async (t) => {
  const tb = 'Traceback (most recent call last):\n' + Array.from({ length: 12 }, (_, k) => `  File "m${k}.py", line ${k}, in f${k}\n    g${k}()`).join('\n') + "\nKeyError: 'indexes'"
  const line = extractErrorLine(tb)
  t.equal(line, "KeyError: 'indexes'")
  const detail = extractErrorDetail(tb, line)!
  t.match(detail, /^Traceback/)
  t.match(detail, /m11\.py/)
  t.notMatch(detail, /m2\.py/)
  t.match(detail, /KeyError: 'indexes'$/)
})

t.test('extractErrorDetail: several errors of one kind are all kept, not the last one and the output after it', async (t) => {
  const rg = 'rg: libs/agno/agno/embedder: No such file or directory (os error 2)\nrg: libs/agno/agno/media: No such file or directory (os error 2)\nlibs/agno/agno/vectordb/couchbase/couchbase.py\nlibs/agno/agno/vectordb/singlestore/__init__.py\nExit code 2'
  const line = extractErrorLine(rg)
  t.equal(line, 'rg: libs/agno/agno/media: No such file or directory (os error 2)')
  t.equal(extractErrorDetail(rg, line), 'rg: libs/agno/agno/embedder: No such file or directory (os error 2)\nrg: libs/agno/agno/media: No such file or directory (os error 2)')
  const tsc = "src/a.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'.\nsrc/b.ts(9,1): error TS2304: Cannot find name 'foo'.\nFound 2 errors in 2 files."
  t.equal(extractErrorDetail(tsc, extractErrorLine(tsc)), "src/a.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'.\nsrc/b.ts(9,1): error TS2304: Cannot find name 'foo'.")
  // One error: it and the lines after it, as before.
  const one = 'npm ERR! code ERESOLVE\nnpm warn peer dep\nwhile resolving: app@1.0.0'
  t.equal(extractErrorDetail(one, extractErrorLine(one)), one)
})
