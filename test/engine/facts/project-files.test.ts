/** The one rule for a project file (src/engine/facts/project-files.ts). */
import t from 'tap'
import type { FileFate } from '../../../src/engine/facts/artifacts.ts'
import { isProjectFile, isProjectPath, isVendoredPath } from '../../../src/engine/facts/project-files.ts'
import { isScratchPath } from '../../../src/engine/facts/artifacts.ts'
import { importanceOfDigest, IMPORTANCE } from '../../../src/engine/facts/importance.ts'
import { digestToolCall } from '../../../src/engine/facts/tools.ts'
import { foldFileFates } from '../../../src/engine/facts/artifacts.ts'
import { compact } from '../../../src/engine/compaction/compact.ts'
import { DEFAULT_COMPACT_OPTIONS } from '../../../src/engine/compaction/types.ts'
import { FORMAT_NAMES, getAdapter, parseConversation } from '../../../src/engine/messages/index.ts'
import { countConversation, tokenizerCounter } from '../../../src/engine/tokens/count.ts'
import { PROJECT_FILES, SCRATCH_FILES, scratchSession } from '../../helpers/noise-conversations.ts'

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

t.test('logs, backup copies and files created then deleted are scratch (issue 22)', async (t) => {
  for (const p of ['server.log', '/repo/logs/dev.log', 'app.log.1', 'src/x.ts.backup', 'src/x.ts.orig', 'src/.x.ts.swp']) t.notOk(isProjectPath(p), p)
  t.ok(isProjectPath('src/logging.ts'), 'a source file about logs is the project')
  const [throwaway, kept, preexisting] = foldFileFates([
    { path: 'scripts/check.py', op: 'create', index: 1 },
    { path: 'src/a.ts', op: 'create', index: 2 },
    { path: 'src/old.ts', op: 'edit', index: 3 },
    { path: 'scripts/check.py', op: 'delete', index: 4 },
    { path: 'src/old.ts', op: 'delete', index: 5 },
  ])
  t.equal(throwaway!.transient, true, 'created here and deleted again')
  t.notOk(isProjectFile(throwaway!))
  t.ok(isProjectFile(kept!))
  t.notOk(preexisting!.transient, 'a file that existed before and was deleted is a change of the project')
  t.ok(isProjectFile(preexisting!))
})

t.test('scratchSession: in Completed Work project files come first, and a scratch row never displaces one', async (t) => {
  const counter = tokenizerCounter('o200k_base')
  const openai = parseConversation(scratchSession(), { format: 'openai' }).messages
  const size = countConversation(openai, counter).totalTokens
  const isScratchRow = (row: string) => SCRATCH_FILES.some((p) => row.startsWith(`| ${p} `) || row.startsWith(`| /repo/${p} `)) || /^\| \/tmp\//.test(row)
  const isProjectRow = (row: string) => PROJECT_FILES.some((p) => row.startsWith(`| ${p} `) || row.startsWith(`| /repo/${p} `))
  for (const share of [0.25, 0.5]) {
    const texts = new Set<string>()
    for (const format of FORMAT_NAMES) {
      const wire = getAdapter(format).serialize(openai)
      const messages = format === 'openai' ? openai : parseConversation(wire.messages, { format, ...(wire.system !== undefined ? { system: wire.system } : {}) }).messages
      const res = await compact({ messages, counter, options: { ...DEFAULT_COMPACT_OPTIONS, format, targetTokens: Math.floor(size * share), thresholdTokens: 0 } })
      texts.add(res.summary?.text ?? '')
    }
    t.equal(texts.size, 1, `${share * 100}%: one summary text in every format`)
    const rows = (/### Completed Work\n[^\n]*\n[^\n]*\n([\s\S]*?)(?:\n\n|$)/.exec([...texts][0]!)?.[1] ?? '').split('\n').filter(Boolean)
    const firstScratch = rows.findIndex(isScratchRow)
    const lastProject = rows.findLastIndex(isProjectRow)
    t.ok(lastProject >= 0, `${share * 100}%: project rows are listed`)
    if (firstScratch >= 0) {
      t.ok(firstScratch > lastProject, `${share * 100}%: every scratch row comes after the project rows`)
      // A project file's row that did not fit waits in the action log as "- path: fate — …".
      const log = [...texts][0]!.split('### Earlier Actions')[1] ?? ''
      for (const p of PROJECT_FILES) t.notOk(log.includes(`- ${p}: `) || log.includes(`- /repo/${p}: `), `${share * 100}%: ${p} is not left out of the table while scratch rows are in`)
    }
  }
})
