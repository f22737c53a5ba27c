/** The one rule for a project file (src/engine/facts/project-files.ts). */
import t from 'tap'
import type { FileFate } from '../../../src/engine/facts/artifacts.ts'
import { isProjectFile, isProjectPath, isVendoredPath } from '../../../src/engine/facts/project-files.ts'
import { isScratchPath } from '../../../src/engine/facts/artifacts.ts'
import { importanceOfDigest, IMPORTANCE } from '../../../src/engine/facts/importance.ts'
import { digestToolCall } from '../../../src/engine/facts/tools.ts'

const fate = (path: string, f: FileFate['fate'] = 'edited'): FileFate =>
  ({ path, fate: f, added: 1, removed: 0, hunks: 1, symbols: [], notes: [], scratch: isScratchPath(path), firstIndex: 0, lastIndex: 0 }) as FileFate

t.test('project paths: not a URL, not scratch, not vendored', async (t) => {
  for (const p of ['src/app.py', '/testbed/django/forms/widgets.py', 'tests/test_fix_parser.py', 'README.md', '~/tmp/awesome/README.md']) t.ok(isProjectPath(p), p)
  for (const p of ['https://example.com/a.py', '/tmp/x.py', 'reproduce.py', 'debug_parse.py']) t.notOk(isProjectPath(p), p)
  for (const p of ['node_modules/react/index.js', '/usr/lib/python3/site-packages/numpy/core.py', '/usr/lib/python3/dist-packages/x.py', '.venv/lib/a.py', 'venv/bin/activate', '.git/config', '/home/u/.cargo/registry/src/x.rs']) {
    t.ok(isVendoredPath(p), p)
    t.notOk(isProjectPath(p), p)
  }
  t.notOk(isVendoredPath('src/venvironment.ts'))
})

t.test('project files: also not a backup copy nor a one-off script created at the workspace root', async (t) => {
  t.ok(isProjectFile(fate('src/app.py')))
  t.ok(isProjectFile(fate('src/test_utils.py', 'created')), 'a test helper inside the tree')
  t.ok(isProjectFile(fate('test_parser.py', 'edited')), 'an existing root file that is edited')
  for (const p of ['src/app.py.bak', 'src/app.py.orig', 'x.rej', 'settings.py.backup']) t.notOk(isProjectFile(fate(p)), p)
  for (const p of ['test_issue.py', 'fix_widget.py', '/testbed/check-output.py', '/workspace/verify_fix.sh']) t.notOk(isProjectFile(fate(p, 'created')), p)
  t.notOk(isProjectFile(fate('node_modules/lodash/index.js')), 'vendored')
  t.notOk(isProjectFile(fate('/tmp/notes.md', 'created')), 'scratch')
  t.notOk(isProjectFile(fate('https://example.com/doc', 'read')), 'a URL')
})

t.test('a digest that changed only non-project files ranks with scratch changes', async (t) => {
  const edit = (path: string) => digestToolCall('write_file', JSON.stringify({ file_path: path, content: 'x = 1\n' }), 'File created successfully')
  t.equal(importanceOfDigest(edit('src/app.py')), IMPORTANCE.change)
  t.equal(importanceOfDigest(edit('/tmp/app.py')), IMPORTANCE.scratchChange)
  t.equal(importanceOfDigest(edit('node_modules/pkg/index.js')), IMPORTANCE.scratchChange, 'an edit of an installed dependency')
})
