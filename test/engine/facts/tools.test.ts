/**
 * tools.ts: the digest of one tool call (kind, target, outcome, file changes, value), its
 * one-line form. The issue 9 trial's
 * defects are cases here; the fixtures check the rules over real sessions.
 */
import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { parseConversation, toolCallsOf, toolResultsOf } from '../../../src/engine/messages/index.ts'
import { ArtifactTracker, digestToolCall, extractPaths, formatDigest, shellEffects, stripHeredocBodies, VALUE_RANK } from '../../../src/engine/facts/tools.ts'
import { clipKeepingPaths, COMMAND_HEAD, shortenPath } from '../../../src/engine/facts/text.ts'
import { CONVERSATIONS, conversationsSkip, fixtureFiles } from '../../helpers/fixtures.ts'

const digest = (tool: string, args: Record<string, unknown>, output = '', isError = false, tracker?: ArtifactTracker) => digestToolCall(tool, JSON.stringify(args), output, isError, true, tracker)

t.test('successes are not reported as failures, in the digest line either', async (t) => {
  const ok: [string, Record<string, unknown>, string][] = [
    ['Write', { file_path: '/repo/src/app.py', content: 'import streamlit as st\n' }, 'File created successfully at /repo/src/app.py'],
    ['Monitor', { command: 'streamlit run src/app.py', description: 'Dashboard dev server' }, 'Monitor started (task mon-1, pid 48122)'],
    ['TaskStop', { task_id: 'mon-1' }, 'Successfully stopped task mon-1'],
    ['Bash', { command: 'streamlit --help' }, 'Options:\n  --logger.level TEXT  Level of logging: error, warning\n  --client.showErrorDetails BOOLEAN  Whether to send error details when a script failed.'],
    ['Bash', { command: 'python scripts/healthcheck.py http://localhost:8501' }, 'healthcheck: ok (status 200, latency 12ms, timeout: 5s)'],
    ['Bash', { command: 'bash scripts/run_checks.sh' }, 'if [ "$FAIL_COUNT" -gt 0 ]; then\n  echo "Failed: ${FAIL_COUNT}"\n  exit 1\nfi\nAll checks passed'],
    // Error words inside the success message: a path, a description, a task id.
    ['Write', { file_path: '/repo/src/error/handler.py', content: 'x = 1\n' }, 'File created successfully at: /repo/src/error/handler.py'],
    ['Monitor', { command: 'tail -f app.log', description: 'watch for errors' }, 'Monitor started: watching app.log for errors (timeout 30s)'],
    ['TaskStop', { task_id: 'failed-jobs-watcher' }, 'Successfully stopped task failed-jobs-watcher'],
    ['Edit', { file_path: '/repo/src/exceptions/invalid.py', old_string: 'a', new_string: 'b' }, 'The file /repo/src/exceptions/invalid.py has been updated.'],
  ]
  for (const [tool, args, output] of ok) {
    const d = digest(tool, args, output)
    const line = formatDigest(d)
    t.equal(d.status, 'ok', line)
    t.notMatch(line, /✗|\| failed \||\| exit [1-9]|\| error:/, line)
    t.equal(d.exitCode, undefined)
  }
})

t.test('a real failure keeps its evidence, test name and error', async (t) => {
  const d = digest('Bash', { command: 'python -m pytest tests/test_api.py -q' }, 'Exit code 1\n.....F..\n=================================== FAILURES ===================================\n__________________________________ test_login __________________________________\nE       AssertionError: expected 200, got 500\n=========================== short test summary info ============================\nFAILED tests/test_api.py::test_login - AssertionError: expected 200, got 500\n1 failed, 7 passed in 0.84s')
  t.equal(d.status, 'error')
  t.equal(d.exitCode, 1)
  t.equal(d.value, 'failure')
  t.equal(d.outcome.evidence, 'exit-code')
  t.equal(d.errorLine, 'FAILED tests/test_api.py::test_login - AssertionError: expected 200, got 500')
  t.same(d.outcome.failingTests, [{ name: 'tests/test_api.py::test_login', error: 'AssertionError: expected 200, got 500' }])
  t.match(formatDigest(d), /^\[✗ Bash python -m pytest tests\/test_api\.py -q \| exit 1 \| error: FAILED tests\/test_api\.py::test_login/)
  // A failed Edit changed nothing.
  const e = digest('Edit', { file_path: '/repo/a.py', old_string: 'x', new_string: 'y' }, '<tool_use_error>String to replace not found in file.</tool_use_error>', true)
  t.equal(e.status, 'error')
  t.same(e.changes, [])
  t.equal(e.value, 'failure')
})

t.test('three apply_patch calls name go.mod, backend/Dockerfile and main.js (not vue-sonner/style.css)', async (t) => {
  const tracker = new ArtifactTracker()
  const ds = [
    digest('apply_patch', { input: '*** Begin Patch\n*** Update File: go.mod\n@@\n-go 1.21\n+go 1.22\n*** End Patch' }, 'Success. Updated the following files:\nM go.mod', false, tracker),
    digest('shell', { command: ['apply_patch', '*** Begin Patch\n*** Update File: backend/Dockerfile\n@@\n-FROM golang:1.21-alpine AS build\n+FROM golang:1.22-alpine AS build\n*** End Patch'] }, 'Success. Updated the following files:\nM backend/Dockerfile', false, tracker),
    digest('apply_patch', { input: "*** Begin Patch\n*** Update File: frontend/src/main.js\n@@\n import { createApp } from 'vue'\n+import 'vue-sonner/style.css'\n*** End Patch" }, 'Success. Updated the following files:\nM frontend/src/main.js', false, tracker),
  ]
  t.same(ds.map((d) => d.files), [['go.mod'], ['backend/Dockerfile'], ['frontend/src/main.js']])
  t.same(ds.map((d) => d.kind), ['edit', 'edit', 'edit'])
  t.same(ds.map((d) => d.value), ['change', 'change', 'change'])
  t.same(ds.map((d) => d.target), ['go.mod', 'backend/Dockerfile', 'frontend/src/main.js'])
  t.equal(ds[2]!.change, "added import 'vue-sonner/style.css'")
  for (const d of ds) t.notMatch(formatDigest(d), /apply_patch \(patch \+\d+\/-\d+ lines\)/)
  t.notOk(tracker.fates().some((f) => f.path.includes('vue-sonner')), 'the imported module is no file row')
  t.same(tracker.fates().map((f) => `${f.path} ${f.fate}`), ['go.mod edited', 'backend/Dockerfile edited', 'frontend/src/main.js edited'])
})

t.test('a multi-file patch names every file', async (t) => {
  const d = digest('apply_patch', { input: '*** Begin Patch\n*** Add File: a/new.go\n+package a\n*** Update File: b/old.go\n@@\n-x\n+y\n*** Delete File: c/gone.go\n*** End Patch' }, 'Success.')
  t.same(d.files, ['a/new.go', 'b/old.go', 'c/gone.go'])
  t.equal(d.change, 'created a/new.go (1 lines); edited b/old.go (replaced `x` with `y`); deleted c/gone.go')
})

t.test('paths are never cut inside their name', async (t) => {
  const long = '/Users/ada/work/shop/backend/src/main/java/com/example/shop/orders/OrderService.java'
  const d = digest('Write', { file_path: long, content: 'class OrderService {}\n'.repeat(63) }, `File created successfully at: ${long}`)
  const line = formatDigest(d)
  t.match(line, /OrderService\.java/)
  t.notMatch(line, /\/co…/)
  const clipped = clipKeepingPaths(`Write ${long} (63 lines)`, 60)
  t.ok(clipped.length <= 60, clipped)
  t.match(clipped, /^Write …\/.*\/OrderService\.java \(63 lines\)$/)
  t.equal(shortenPath(long, 40), '…/example/shop/orders/OrderService.java')
  t.equal(shortenPath('/a/VeryLongFileNameThatDoesNotFitAnywhere.java', 10), '…/VeryLongFileNameThatDoesNotFitAnywhere.java', 'a name is never cut')
})

t.test('URLs are never mangled', async (t) => {
  const url = 'https://www.youtube.com/watch?v=NmYNwx_iMSU'
  t.notOk(extractPaths(`opened ${url} and src/app.py`).some((p) => p.includes('youtube') || p.startsWith('/')), 'no path taken from a URL')
  t.same(extractPaths(`opened ${url} and src/app.py`), ['src/app.py'])
  const d = digest('bash', { command: `yt-dlp --skip-download -o /tmp/sub "${url}"` }, 'Command exited with code 1\nERROR: [youtube] NmYNwx_iMSU: Sign in to confirm')
  t.match(formatDigest(d), url)
  t.notMatch(formatDigest(d), /https:\/[^/]/)
  const clipped = clipKeepingPaths(`browser open ${url} then wait for the network to go idle`, 50)
  t.ok(clipped.includes(url) || !clipped.includes('youtube'), clipped)
  t.notMatch(clipped, /https:\/[^/]/)
  // A cut inside the URL's host or path drops it whole, not after its scheme ("https:…").
  for (const max of [25, 30, 40, 50]) {
    const cut = clipKeepingPaths(`cd /repo && curl -sL ${url} -o out//page.html`, max)
    t.notMatch(cut, /https?:…|https?:\/?…/, `cut at ${max}: ${cut}`)
    t.ok(cut.includes(url) || !cut.includes('http'), `cut at ${max}: whole or absent`)
  }
  // A command's head (COMMAND_HEAD) stays as written: a path starting within it is cut at
  // the limit, not shortened or dropped; a URL is still whole or absent.
  const pytest = 'cd /testbed && python -m pytest tests/forms_tests/tests/test_media.py::FormsMediaTestCase::test_merge -x'
  const head = clipKeepingPaths(pytest, 70, COMMAND_HEAD)
  t.ok(head.startsWith(pytest.slice(0, 60)) && head.length <= 70, `a path in the head is neither shortened nor dropped: ${head}`)
  const curl = clipKeepingPaths(`curl -X POST -d "name=test;id&age=123" ${url}`, 60, COMMAND_HEAD)
  t.ok(curl.includes(url) || !curl.includes('http'), `a URL in the head is whole or absent: ${curl}`)
  // A browser call's target is its action and the URL, whole (facts/tool-target.ts).
  const web = digest('browser', { action: 'open', url })
  t.equal(web.target, `open ${url}`)
})

t.test('value: failure or change above test above command above read/search', async (t) => {
  t.equal(digest('Bash', { command: 'npm test' }, 'Exit code 0\n5 passing').value, 'test')
  t.equal(digest('Bash', { command: 'git status' }, 'On branch main').value, 'command')
  t.equal(digest('Bash', { command: 'cat src/a.py' }, 'x = 1').value, 'read')
  t.equal(digest('Bash', { command: 'grep -rn "foo" src' }, 'src/a.py:1:foo').value, 'search')
  t.equal(digest('Read', { file_path: 'src/a.py' }, 'x = 1').value, 'read')
  t.equal(digest('Grep', { pattern: 'foo' }, 'src/a.py:1:foo').value, 'search')
  t.equal(digest('Bash', { command: "sed -i 's/a/b/' src/a.py" }, '').value, 'change')
  t.ok(VALUE_RANK.failure > VALUE_RANK.test && VALUE_RANK.change > VALUE_RANK.test && VALUE_RANK.test > VALUE_RANK.command && VALUE_RANK.command > VALUE_RANK.read && VALUE_RANK.command > VALUE_RANK.search)
})

t.test('old helpers keep working', async (t) => {
  const fx = shellEffects("cat > a.py <<'EOF'\nx = 1\nEOF\nsed -i 's/x/y/' b.py && cat c.py && grep -n 'def' d.py")
  t.same(fx.writes, ['a.py'])
  t.same(fx.edits, ['b.py'])
  t.same(fx.reads, ['c.py'])
  t.equal(fx.search, 'def')
  t.equal(stripHeredocBodies("cat <<'EOF' > x.py\nimport os\nEOF\npython x.py"), "cat <<'EOF' > x.py\npython x.py")
  t.equal(stripHeredocBodies('cat <<< "$VAR" | wc -l\necho done'), 'cat <<< "$VAR" | wc -l\necho done', 'a here-string is no heredoc')
})

// ───────────────────────────── fixtures ─────────────────────────────

const fixtures = fixtureFiles()
const SUCCESS_RE = /^\s*(?:File created successfully|Successfully|The file \S.* has been updated|Monitor started)/
const EDIT_TOOL_RE = /^(?:apply_patch|write|edit|write_file|replace|multi_?edit|str_replace_editor|create_file|edit_file)$/i

t.test('real sessions: success messages are never failures; every patch/write/edit names a real file of its arguments', { skip: conversationsSkip() }, async (t) => {
  let successes = 0
  let edits = 0
  for (const f of fixtures) {
    const raw = JSON.parse(fs.readFileSync(path.join(CONVERSATIONS, f), 'utf8')) as { messages: unknown[] }
    const messages = parseConversation(raw.messages, { format: 'openai' }).messages
    const results = new Map<string, { text: string; isError: boolean }>()
    for (const m of messages) for (const r of toolResultsOf(m)) results.set(r.callId, { text: r.text, isError: r.isError === true })
    const tracker = new ArtifactTracker()
    for (const m of messages) {
      for (const c of toolCallsOf(m)) {
        const r = results.get(c.id) ?? { text: '', isError: false }
        const d = digestToolCall(c.name, c.argsText, r.text, r.isError, true, tracker)
        if (SUCCESS_RE.test(r.text) && !r.isError) {
          successes++
          if (d.status === 'error') t.fail(`${f}: ${c.name} "${r.text.slice(0, 60)}" classified as an error`)
        }
        const name = c.name.split(/[.:/]/).pop()!
        if (EDIT_TOOL_RE.test(name) && d.status !== 'error') {
          let args: Record<string, unknown> = {}
          try {
            args = JSON.parse(c.argsText) as Record<string, unknown>
          } catch {
            /* raw text */
          }
          const strings = JSON.stringify(args)
          const named = ['path', 'file_path', 'filePath', 'absolute_path', 'filename', 'notebook_path'].some((k) => typeof args[k] === 'string') || /\*\*\* (?:Add|Update|Delete) File: /.test(strings)
          if (!named) continue // the file is only in the output (SWE-agent's edit/insert)
          if (typeof args.command === 'string' && args.command === 'view') continue
          edits++
          const ok = d.changes.some((ch) => ch.op !== 'read' && ch.path.length > 0 && (strings.includes(ch.path) || strings.includes(ch.path.replace(/^\.\//, ''))))
          if (!ok) t.fail(`${f}: ${c.name} ${c.argsText.slice(0, 120)} yields no change of a file in its arguments (${JSON.stringify(d.changes)})`)
        }
      }
    }
  }
  t.ok(successes > 20, `success messages seen: ${successes}`)
  t.ok(edits > 20, `patch/write/edit calls seen: ${edits}`)
})
