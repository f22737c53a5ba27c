/**
 * Rejected attempts (issue 22): a change given up after a failing run or undone, with the
 * failing run as evidence and the agent's reason, read in every tool dialect.
 */
import t from 'tap'
import { attemptLines, rejectedAttempts } from '../../../src/engine/facts/attempts.ts'
import { classifyMessages } from '../../../src/engine/facts/events.ts'
import { extractHandover } from '../../../src/engine/facts/handover.ts'
import { parseConversation } from '../../../src/engine/messages/index.ts'
import { compactAllFormats } from '../../helpers/compact-all-formats.ts'
import { brokenFixSession, DIALECTS } from '../../helpers/workflow-conversations.ts'

type Msg = Record<string, unknown>
let seq = 0
function call(name: string, args: Record<string, unknown>, result: string, content = ''): Msg[] {
  const id = `call_${++seq}`
  return [
    { role: 'assistant', content, tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] },
    { role: 'tool', tool_call_id: id, content: result },
  ]
}
const facts = (messages: Msg[]) => extractHandover(parseConversation(messages, { format: 'openai' }).messages, { preserveErrorDetails: true })

t.test('a fix that breaks another test and is reverted: what, the failing test, how, why — in every dialect', async (t) => {
  for (const dialect of DIALECTS) {
    const f = facts(brokenFixSession(dialect).messages as Msg[])
    t.equal(f.attempts?.length, 1, `${dialect}: one rejected attempt`)
    const a = f.attempts![0]!
    t.equal(a.path, 'src/billing/invoice.py', dialect)
    t.match(a.change, /ROUND_DOWN/, `${dialect}: what the attempt changed`)
    t.match(a.evidence, { command: 'python -m pytest tests -q', stillFailing: false }, `${dialect}: the run that rejected it`)
    t.match(a.evidence?.errorLine, /test_tax_inclusive_total|21\.99/, `${dialect}: its error line`)
    t.equal(a.outcome, 'undone by `git checkout`', dialect)
    t.match(a.reason, /because tax-inclusive totals must round half-up/, `${dialect}: the agent's own reason`)
    // The file's fate is the second fix: changed, not undone.
    t.match(f.files.find((x) => x.path === 'src/billing/invoice.py'), { fate: 'edited' }, dialect)
    t.notOk(f.files.find((x) => x.path === 'src/billing/invoice.py')?.reverted, `${dialect}: the second fix stands`)
  }
})

t.test('the summary says the attempt, its evidence and its reason, in every format', async (t) => {
  const runs = await compactAllFormats(brokenFixSession('claude').messages, 0.25)
  for (const run of runs) {
    t.match(run.summary, /- Rejected: src\/billing\/invoice\.py — .*ROUND_DOWN.*; then `python -m pytest tests -q` failed: .*; undone by `git checkout`; reason given: Rounding the total down fixed the invoice test but broke test_tax_inclusive_total/, run.format)
    t.notMatch(run.summary, /Tried and abandoned: Rounding the total down/, `${run.format}: the reason is not said twice`)
  }
})

t.test('superseded: an edit, a failing run, then another edit of the same file', async (t) => {
  const m: Msg[] = [
    { role: 'user', content: 'Make parse() accept empty input.' },
    ...call('Edit', { file_path: '/repo/src/parse.py', old_string: 'if not s: raise ValueError', new_string: 'if not s: return None' }, 'ok'),
    ...call('Bash', { command: 'pytest tests/test_parse.py' }, "E   TypeError: 'NoneType' object is not iterable\n1 failed\nExit code 1"),
    { role: 'assistant', content: 'Returning None breaks the callers that iterate, so I will return an empty list instead.' },
    ...call('Edit', { file_path: '/repo/src/parse.py', old_string: 'if not s: return None', new_string: 'if not s: return []' }, 'ok'),
    ...call('Bash', { command: 'pytest tests/test_parse.py' }, '3 passed'),
  ]
  const f = facts(m)
  t.match(f.attempts, [{ path: '/repo/src/parse.py', outcome: 'changed again', evidence: { command: 'pytest tests/test_parse.py', errorLine: /TypeError/ }, reason: /so I will return an empty list instead/ }])
  t.match(attemptLines(f.attempts!)[0], /^- Rejected: \/repo\/src\/parse\.py — `if not s: raise ValueError` → `if not s: return None`; then `pytest tests\/test_parse\.py` failed: .*TypeError.*; changed again; reason given: Returning None breaks the callers/)
})

t.test('no attempt: a change a passing run followed, a new file rewritten, a read-only session', async (t) => {
  const m: Msg[] = [
    { role: 'user', content: 'Add the helper and its test.' },
    ...call('Write', { file_path: '/repo/tests/test_helper.py', content: 'def test_x(): assert helper() == 1\n' }, 'File created successfully'),
    ...call('Bash', { command: 'pytest tests/test_helper.py' }, "E   NameError: name 'helper' is not defined\nExit code 1"),
    ...call('Write', { file_path: '/repo/tests/test_helper.py', content: 'from app import helper\ndef test_x(): assert helper() == 1\n' }, 'File created successfully'),
    ...call('Edit', { file_path: '/repo/src/app.py', old_string: '# end', new_string: 'def helper(): return 1\n# end' }, 'ok'),
    ...call('Bash', { command: 'pytest tests/test_helper.py' }, '1 passed'),
    ...call('Edit', { file_path: '/repo/src/app.py', old_string: 'def helper(): return 1', new_string: 'def helper() -> int: return 1' }, 'ok'),
  ]
  t.same(facts(m).attempts, [], 'a created test rewritten after its first failure is being written, not fixed; the edit a pass followed stands')
})

t.test('a restore from a backup copy undoes the attempt, and the file shows as undone', async (t) => {
  const m: Msg[] = [
    { role: 'user', content: 'Fix the crash in modutils.' },
    ...call('bash', { command: 'cp astroid/modutils.py astroid/modutils.py.bak' }, ''),
    ...call('str_replace_editor', { command: 'str_replace', path: '/testbed/astroid/modutils.py', old_str: 'return spec', new_str: 'return spec or None' }, 'The file has been edited.'),
    ...call('bash', { command: 'python reproduce.py' }, 'Traceback (most recent call last):\nAttributeError: NoneType has no attribute origin\nexit code 1'),
    ...call('bash', { command: 'cp astroid/modutils.py.bak astroid/modutils.py' }, ''),
  ]
  const f = facts(m)
  t.match(f.attempts, [{ path: /astroid\/modutils\.py$/, outcome: 'undone by a copy of modutils.py.bak', evidence: { errorLine: /AttributeError/ } }])
  t.match(f.files.find((x) => x.path.endsWith('astroid/modutils.py')), { reverted: true, notes: [/then undone by a copy of modutils\.py\.bak \(no net change\)/] })
})

t.test('rejectedAttempts keeps the latest ones and reads positions, not message layout', async (t) => {
  const m: Msg[] = [{ role: 'user', content: 'Fix it.' }]
  for (let k = 0; k < 12; k++) {
    m.push(...call('Edit', { file_path: '/repo/src/x.py', old_string: `v = ${k}`, new_string: `v = ${k + 1}` }, 'ok'))
    m.push(...call('Bash', { command: 'pytest' }, `E   AssertionError: ${k}\nExit code 1`))
  }
  const messages = parseConversation(m, { format: 'openai' }).messages
  const f = extractHandover(messages, { preserveErrorDetails: true })
  const attempts = rejectedAttempts(f.tools, classifyMessages(messages), f.files)
  t.equal(attempts.length, 8, 'at most 8')
  t.match(attempts.at(-1), { change: /v = 10.*v = 11/ })
  t.equal(attemptLines(attempts).length, 1, 'one line per file')
  t.match(attemptLines(attempts)[0], /— 8 attempts, the last /)
})

t.test('"X did not help: <why>" is the reason an undone attempt was dropped, not a later decision\'s "because"', async (t) => {
  // The class: agents that say an attempt made no difference, with why, in the message that
  // undoes it ("did not help", "had no effect", "made no difference"), then move on to a
  // new approach whose own reason ("because …") came later in the window.
  const m: Msg[] = [
    { role: 'user', content: 'The toolbar dates show the wrong locale after switching language. Fix it.' },
    ...call('Edit', { file_path: '/repo/src/report/ReportPage.tsx', old_string: '<Toolbar />\n<LocaleProvider>', new_string: '<LocaleProvider>\n<Toolbar />' }, 'ok', 'Moving the Toolbar inside the LocaleProvider.'),
    ...call('Bash', { command: 'npm test -- toolbar' }, 'FAIL src/report/Toolbar.test.tsx\n  Expected: "lundi"\n  Received: "Monday"\nExit code 1'),
    ...call(
      'Edit',
      { file_path: '/repo/src/report/ReportPage.tsx', old_string: '<LocaleProvider>\n<Toolbar />', new_string: '<Toolbar />\n<LocaleProvider>' },
      'ok',
      'Moving the Toolbar into the LocaleProvider did not help: the date formatter is created at import time, before any provider renders. Reverting that edit.',
    ),
    ...call('Edit', { file_path: '/repo/src/i18n/format.ts', old_string: 'new Map<string, Intl.DateTimeFormat>()', new_string: 'new WeakMap<I18n, Map<string, Intl.DateTimeFormat>>()' }, 'ok', "I'll use a WeakMap keyed by the i18n instance because setLocale() creates a new instance."),
    ...call('Bash', { command: 'npm test -- toolbar' }, 'PASS src/report/Toolbar.test.tsx\nTests: 4 passed'),
  ]
  const f = facts(m)
  const attempt = f.attempts?.find((a) => a.path === '/repo/src/report/ReportPage.tsx')
  t.match(attempt?.reason, /did not help: the date formatter is created at import time/, 'the reason the undoing message gives')
  t.notMatch(attempt?.reason ?? '', /WeakMap/, "not the next approach's reason")
  for (const phrase of ['had no effect', 'made no difference', "didn't help"]) {
    const other = facts(m.map((x) => (typeof x.content === 'string' ? { ...x, content: x.content.replace('did not help', phrase) } : x)))
    t.match(other.attempts?.find((a) => a.path === '/repo/src/report/ReportPage.tsx')?.reason, /import time/, phrase)
  }
})
