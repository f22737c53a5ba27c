/**
 * action-log.ts: which log lines only repeat what the summary's sections already say.
 */
import t from 'tap'
import { fileRowsOf, findingAlreadyNoted, listedFiles, overflowAlreadyLogged, repeatsDeliverable, repeatsListedCreation, repeatsNote, type LogLine } from '../../../src/engine/compaction/action-log.ts'
import { DELIVERABLE_HEADING } from '../../../src/engine/facts/deliverable.ts'

const line = (created?: string[]): LogLine => ({ text: '- bash cat > x << EOF', priority: 50, tokens: 8, key: '0:0', ...(created ? { created } : {}) })

const summary = [
  '## Session Summary (Compaction Round 1)',
  '',
  '### Completed Work',
  '| File | Fate | What changed |',
  '|---|---|---|',
  '| ./ (4 files) | created | analyze.py, trace.py, run_test.py, check_test.py |',
  '| src/app/ (5 files) | created | a.ts, b.ts, c.ts, d.ts, e.ts |',
  '| django/forms/widgets.py | edited | +3/-1; in merge |',
  '',
  '### Errors & Resolutions',
  '- `python other_script.py` → exit 1: NameError',
].join('\n')

t.test('fileRowsOf: the Completed Work section only, up to the next section', async (t) => {
  const rows = fileRowsOf(summary)
  t.match(rows, /^### Completed Work/)
  t.notMatch(rows, /Errors/)
  t.equal(fileRowsOf('### Original Task\nx'), '', 'no section, nothing listed')
})

t.test('repeatsListedCreation: a creation the table lists, by path or in a grouped row', async (t) => {
  const rows = listedFiles(fileRowsOf(summary))
  t.ok(repeatsListedCreation(line(['run_test.py']), rows), 'in the ./ group')
  t.ok(repeatsListedCreation(line(['src/app/c.ts']), rows), 'in the src/app/ group')
  t.ok(repeatsListedCreation(line(['django/forms/widgets.py']), rows), 'its own row')
  t.ok(repeatsListedCreation(line(['analyze.py', 'trace.py']), rows), 'every file of the call listed')
  t.notOk(repeatsListedCreation(line(['analyze.py', 'other_script.py']), rows), 'one file not in the table (only in an error line): kept')
  t.notOk(repeatsListedCreation(line(['lib/app/c.ts']), rows), 'the same name in another folder: kept')
  t.notOk(repeatsListedCreation(line(['widgets.py']), rows), 'a bare name matching a row only by its end: kept')
  t.notOk(repeatsListedCreation(line(), rows), 'not a creation-only line')
})

t.test('repeatsDeliverable: the clipped report line of the answer the summary holds, and only that', async (t) => {
  const withAnswer = ['### Original Task', 'Review it.', '', DELIVERABLE_HEADING, 'Asked: "Review it."', '> ## Review: retry and backoff', '> **Verdict:** not safe to ship yet: two high-severity issues.', '> | 1 | High | `withRetry` | retries POST |', '', '### Completed Work'].join('\n')
  t.ok(repeatsDeliverable('- agent reported: ## Review: retry and backoff **Verdict:** not safe to ship yet: two high-severity issues. 1 | High | `withRetry`…', withAnswer))
  t.notOk(repeatsDeliverable('- agent reported: ## Done — PR #47 opened and reviewed by the architect agent, fixes applied', withAnswer), 'another report')
  t.notOk(repeatsDeliverable('- agent reported: ## Review: retry and backoff **Verdict:** not safe to ship yet', summary), 'no answer section')
  t.notOk(repeatsDeliverable('- bash git log', withAnswer), 'not a report')
})

t.test('overflowAlreadyLogged: a rejected attempt is never "already logged" by the pieces it ties together', async (t) => {
  const logged = '- Edit src/a.py (replaced `return round(total, 2)` with `x`)\n- Bash pytest → exit 1: FAILED test_tax'
  t.notOk(overflowAlreadyLogged('- Rejected: src/a.py — `return round(total, 2)` → `x`; then `pytest` failed: FAILED test_tax; undone by `git checkout`', logged))
  t.ok(overflowAlreadyLogged('- `python -m pytest tests` → exit 1: FAILED test_tax', '- Bash python -m pytest tests → exit 1'), 'other lines as before')
})

t.test('a note the sections already state (a finding, a decision) is not repeated in the log', async (t) => {
  const sections = '### Findings\n- Found 3 backends that call `timezone.make_naive`: mysql, oracle and sqlite3.\n'
  t.ok(repeatsNote('- note: Found 3 backends that call `timezone.make_naive`: mysql, oracle and sqlite3.', sections))
  t.ok(repeatsNote('- note: Found 3 backends that call `timezone.make_naive`…', sections), 'a clipped note repeats the whole one')
  t.notOk(repeatsNote('- note: The base class returns `value.isoformat()`.', sections))
  t.notOk(repeatsNote('- bash rg -n make_naive src', sections), 'only notes')
})

t.test('findingAlreadyNoted: an overflowed finding the log notes in the same words, whole or clipped, is not said twice', async (t) => {
  const logged = '- read_file src/db.ts\n- note: The pool is closed in afterEach and again by the test itself and by afterAll.\n- note: close() only ends the pool; reading…'
  t.ok(findingAlreadyNoted('- found: The pool is closed in afterEach and again by the test itself and by afterAll.', logged))
  t.notOk(findingAlreadyNoted('- found: close() only ends the pool; the config keeps a second handle open.', logged), 'a short clipped note is no evidence')
  t.notOk(findingAlreadyNoted('- found: `git log` showed: 2c7e464 fix range', logged), 'another finding')
  t.notOk(findingAlreadyNoted('- note: The pool is closed in afterEach and again by the test itself and by afterAll.', logged), 'only findings')
})
