/** The tool-output lines a finding rests on (src/engine/facts/findings/evidence.ts). */
import t from 'tap'
import { cleanLine, evidenceOf, isAcknowledgement, isMarkup, sourceOf } from '../../../../src/engine/facts/findings/evidence.ts'
import { ReuseIndex } from '../../../../src/engine/facts/findings/reuse.ts'

const GREP = [
  'src/orm/backends/base/operations.py:501:    def adapt_datetimefield_value(self, value):',
  'src/orm/backends/mysql/operations.py:219:        value = timezone.make_naive(value, self.connection.timezone)',
  'src/orm/backends/oracle/operations.py:497:        value = timezone.make_naive(value, self.connection.timezone)',
  'src/orm/backends/sqlite3/operations.py:248:        value = timezone.make_naive(value, self.connection.timezone)',
  'src/orm/backends/sqlite3/operations.py:250:        return str(value)',
].join('\n')

t.test('lines whose identifiers the agent reused are evidence; the grep pattern alone is not', async (t) => {
  const index = new ReuseIndex(10)
  index.record('rg -n "def adapt_datetimefield_value" src/orm/backends', 0, 'args')
  index.record('Three backends call `timezone.make_naive`: mysql, oracle and sqlite3.', 3, 'prose')
  const ev = evidenceOf(GREP, 1, index, new Set(), new Map())
  t.ok(ev, 'the output is evidence')
  t.equal(ev!.lines.length, 3, 'at most three lines')
  t.ok(ev!.lines.every((l) => l.text.includes('make_naive')), 'the lines with the reused call')
  t.notOk(ev!.lines.some((l) => l.text.includes('def adapt_datetimefield_value')), 'the line only matching the pattern the agent searched for taught nothing')
  t.equal(evidenceOf(GREP, 5, index, new Set(), new Map()), undefined, 'an output after the last reuse is no evidence')
})

t.test('a line credited once: the same line read again is not evidence twice', async (t) => {
  const index = new ReuseIndex(10)
  index.record('`timezone.make_naive` drops tzinfo', 6, 'prose')
  const seen = new Set<string>()
  t.ok(evidenceOf(GREP, 1, index, seen, new Map()))
  t.equal(evidenceOf(GREP, 2, index, seen, new Map()), undefined)
})

t.test('a line of markup (badges, tags, links) is scaffolding, not evidence', async (t) => {
  t.ok(isMarkup('<img src="https://img.shields.io/badge/macOS-Windows-blue" alt="Platforms"> <a href="README.ja.md">日本語</a>'))
  t.notOk(isMarkup('Stars: 24,800 · Forks: 4,600 · License: BSD-3-Clause'))
  t.equal(cleanLine('   12\t    return value.isoformat()'), 'return value.isoformat()', "a reader's line number is dropped")
  t.equal(cleanLine('  501→    def f(self):'), 'def f(self):')
})

t.test('the source in every dialect: the command, the file read, the search, the page', async (t) => {
  t.equal(sourceOf({ name: 'bash', argsText: JSON.stringify({ command: 'rg -n "make_naive" src' }) }), 'rg -n "make_naive" src')
  t.equal(sourceOf({ name: 'shell', argsText: JSON.stringify({ command: ['bash', '-lc', "sed -n '1,80p' src/a.py"] }) }), "sed -n '1,80p' src/a.py")
  t.equal(sourceOf({ name: 'Read', argsText: JSON.stringify({ file_path: '/repo/src/a.py' }) }), 'read /repo/src/a.py')
  t.equal(sourceOf({ name: 'Grep', argsText: JSON.stringify({ pattern: 'make_naive', path: 'src' }) }), 'Grep "make_naive" in src')
  t.equal(sourceOf({ name: 'web_fetch', argsText: JSON.stringify({ url: 'https://hatchet.run/pricing' }) }), 'web_fetch https://hatchet.run/pricing')
  t.equal(sourceOf(undefined, 'python run.py --verbose\necho done'), 'python run.py --verbose', "a text-only agent's command, first line")
  t.ok(isAcknowledgement({ name: 'Edit', argsText: '{}' }))
  t.ok(isAcknowledgement({ name: 'apply_patch', argsText: JSON.stringify({ input: '*** Begin Patch' }) }))
  t.notOk(isAcknowledgement({ name: 'bash', argsText: JSON.stringify({ command: 'ls' }) }))
})
