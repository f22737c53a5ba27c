/**
 * artifacts.ts: what each tool call did to which file, the session's memory of the
 * scripts it wrote, and each file's final fate.
 */
import t from 'tap'
import {
  analyzeShell,
  ArtifactTracker,
  changesOfCall,
  foldFileFates,
  isBackupOf,
  isScratchPath,
  normalizePath,
  parseApplyPatch,
  parseShell,
  parseUnifiedDiff,
  scriptFileOps,
  type FileChange,
} from '../../../src/engine/facts/artifacts.ts'

const pick = (cs: FileChange[]) => cs.map((c) => `${c.op} ${c.from ? `${c.from} → ` : ''}${c.path}`)

t.test('apply_patch: Update (go.mod, Dockerfile, main.js), Add, Delete, Move to — in both call forms', async (t) => {
  const gomod = changesOfCall({ tool: 'apply_patch', args: { input: '*** Begin Patch\n*** Update File: go.mod\n@@\n-go 1.21\n+go 1.22\n@@ require (\n \tgithub.com/go-chi/chi/v5 v5.0.12\n+\tgithub.com/rs/zerolog v1.33.0\n )\n*** End Patch' } }).changes
  t.same(pick(gomod), ['edit go.mod'])
  t.equal(gomod[0]!.added, 2)
  t.equal(gomod[0]!.removed, 1)
  t.equal(gomod[0]!.hunks, 2)
  t.match(gomod[0]!.note, /replaced `go 1\.21` with `go 1\.22`/)
  t.ok(gomod[0]!.symbols?.includes('require'))

  // Codex's shell form: {"command": ["apply_patch", "*** Begin Patch…"]}.
  const docker = changesOfCall({ tool: 'shell', args: { command: ['apply_patch', '*** Begin Patch\n*** Update File: backend/Dockerfile\n@@\n-FROM golang:1.21-alpine AS build\n+FROM golang:1.22-alpine AS build\n WORKDIR /src\n*** End Patch'] } }).changes
  t.same(pick(docker), ['edit backend/Dockerfile'])
  t.equal(docker[0]!.note, 'replaced `FROM golang:1.21-alpine AS build` with `FROM golang:1.22-alpine AS build`')

  const main = changesOfCall({ tool: 'apply_patch', args: JSON.stringify({ input: "*** Begin Patch\n*** Update File: frontend/src/main.js\n@@\n import { createApp } from 'vue'\n+import 'vue-sonner/style.css'\n import App from './App.vue'\n*** End Patch" }) }).changes
  t.same(pick(main), ['edit frontend/src/main.js'], 'the file, not the imported module')
  t.equal(main[0]!.note, "added import 'vue-sonner/style.css'")

  const multi = parseApplyPatch('*** Begin Patch\n*** Add File: backend/internal/health/handler.go\n+package health\n+\n+func Handler(w http.ResponseWriter, _ *http.Request) {\n+}\n*** Delete File: backend/cmd/legacy-ping/main.go\n*** Update File: src/old_name.py\n*** Move to: src/new_name.py\n@@ def run():\n-    return 1\n+    return 2\n*** End Patch')
  t.same(pick(multi), ['create backend/internal/health/handler.go', 'delete backend/cmd/legacy-ping/main.go', 'rename src/old_name.py → src/new_name.py'])
  t.equal(multi[0]!.added, 4)
  t.same(multi[0]!.symbols, ['Handler'])
  t.same(multi[2]!.symbols, ['run'])
})

t.test('unified diffs: git diff output, patch inputs, adds, deletes, renames', async (t) => {
  const diff = [
    'diff --git a/src/marshmallow/fields.py b/src/marshmallow/fields.py',
    'index ad388c7..168a845 100644',
    '--- a/src/marshmallow/fields.py',
    '+++ b/src/marshmallow/fields.py',
    '@@ -1472,7 +1472,8 @@ class TimeDelta(Field):',
    '         if value is None:',
    '             return None',
    '-        return int(value.total_seconds() / base_unit.total_seconds())',
    '+        # round to nearest int',
    '+        return int(round(value.total_seconds() / base_unit.total_seconds()))',
    ' ',
    'diff --git a/new.txt b/new.txt',
    'new file mode 100644',
    '--- /dev/null',
    '+++ b/new.txt',
    '@@ -0,0 +1,2 @@',
    '+hello',
    '+--- not a header',
    'diff --git a/gone.py b/gone.py',
    'deleted file mode 100644',
    '--- a/gone.py',
    '+++ /dev/null',
    '@@ -1 +0,0 @@',
    '-x = 1',
    'diff --git a/a/old.ts b/a/new.ts',
    'similarity index 100%',
    'rename from a/old.ts',
    'rename to a/new.ts',
  ].join('\n')
  const cs = parseUnifiedDiff(diff)
  t.same(pick(cs), ['edit src/marshmallow/fields.py', 'create new.txt', 'delete gone.py', 'rename a/old.ts → a/new.ts'])
  t.equal(cs[0]!.added, 2)
  t.equal(cs[0]!.removed, 1)
  t.same(cs[0]!.symbols, ['TimeDelta'])
  t.equal(cs[1]!.added, 2, '"+--- …" inside a hunk is content')
  // A plain `--- a/` `+++ b/` patch (no diff --git line), as a tool input.
  const p = changesOfCall({ tool: 'patch', args: { patch: '--- a/lib/x.js\n+++ b/lib/x.js\n@@ -1,2 +1,2 @@ function load() {\n-const a = 1\n+const a = 2\n' } }).changes
  t.same(pick(p), ['edit lib/x.js'])
  t.ok(p[0]!.symbols?.includes('load'))
  t.ok(p[0]!.symbols?.includes('a'))
})

t.test('str_replace_editor: view, create, str_replace, insert, undo_edit', async (t) => {
  const call = (args: Record<string, unknown>) => changesOfCall({ tool: 'str_replace_editor', args }).changes
  t.same(pick(call({ command: 'view', path: '/testbed/a.py' })), ['read /testbed/a.py'])
  const created = call({ command: 'create', path: '/testbed/b.py', file_text: 'def f():\n    return 1\n' })
  t.same(pick(created), ['create /testbed/b.py'])
  t.equal(created[0]!.note, '2 lines')
  t.same(created[0]!.symbols, ['f'])
  const rep = call({ command: 'str_replace', path: '/testbed/a.py', old_str: 'def g(x):\n    return x', new_str: 'def g(x):\n    return x + 1' })
  t.same(pick(rep), ['edit /testbed/a.py'])
  t.equal(rep[0]!.note, 'replaced `return x` with `return x + 1`')
  t.same(rep[0]!.symbols, ['g'])
  const ins = call({ command: 'insert', path: '/testbed/a.py', insert_line: 3, new_str: 'import os' })
  t.equal(ins[0]!.note, "added import 'os' at line 3")
  t.same(pick(call({ command: 'undo_edit', path: '/testbed/a.py' })), ['edit /testbed/a.py'])
})

t.test('Claude Code Edit/Write/MultiEdit/NotebookEdit, Gemini write_file/replace, generic tools', async (t) => {
  const c = (tool: string, args: Record<string, unknown>, output = '') => changesOfCall({ tool, args, output }).changes
  const w = c('Write', { file_path: '/repo/src/Foo.java', content: 'public class Foo {\n}\n' }, 'File created successfully at: /repo/src/Foo.java')
  t.same(pick(w), ['create /repo/src/Foo.java'])
  t.equal(w[0]!.note, '2 lines')
  t.same(pick(c('Write', { file_path: '/repo/a.md', content: 'x' }, 'The file /repo/a.md has been updated.')), ['edit /repo/a.md'], 'overwrite is an edit')
  const e = c('Edit', { file_path: '/repo/src/main.js', old_string: "import { createApp } from 'vue'", new_string: "import { createApp } from 'vue'\nimport 'vue-sonner/style.css'" })
  t.equal(e[0]!.note, "added import 'vue-sonner/style.css'")
  const me = c('MultiEdit', { file_path: '/repo/x.py', edits: [{ old_string: 'a = 1', new_string: 'a = 2' }, { old_string: 'b = 1', new_string: 'b = 2' }] })
  t.same(pick(me), ['edit /repo/x.py'])
  t.equal(me[0]!.hunks, 2)
  t.match(me[0]!.note, /2 edits/)
  t.equal(c('NotebookEdit', { notebook_path: '/repo/n.ipynb', cell_id: 'c3', new_source: 'print(1)', edit_mode: 'replace' })[0]!.note, 'replaced cell c3')
  t.same(pick(c('write_file', { file_path: 'packages/cli/x.ts', content: 'export const x = 1\n' })), ['create packages/cli/x.ts'])
  t.same(pick(c('replace', { file_path: 'packages/cli/y.ts', old_string: 'a', new_string: 'b', instruction: 'swap' })), ['edit packages/cli/y.ts'])
  t.same(pick(c('edit_file', { filePath: 'src/z.rs', oldText: 'fn a() {}', newText: 'fn a() { b() }' })), ['edit src/z.rs'])
  t.same(pick(c('edit', { absolute_path: '/w/k.go', old_str: 'x', new_str: 'y' })), ['edit /w/k.go'])
  // SWE-agent's edit names its file only in the output.
  t.same(pick(c('edit', { search: 'a', replace: 'b' }, 'Text replaced.\r\n[File: /testbed/src/m/fields.py (1998 lines total)]\r\n')), ['edit /testbed/src/m/fields.py'])
  // Reads.
  t.same(pick(c('Read', { file_path: '/repo/README.md' })), ['read /repo/README.md'])
  t.same(pick(c('read_many_files', { paths: ['a.ts', 'b.ts'] })), ['read a.ts', 'read b.ts'])
})

t.test('shell: sed -i, perl -i, heredocs, tee, redirects, mv, rm, cp, touch, mkdir', async (t) => {
  const sh = (cmd: string) => pick(analyzeShell(cmd).changes)
  t.same(sh("sed -i 's/foo/bar/g' src/a.py src/b.py"), ['edit src/a.py', 'edit src/b.py'])
  t.equal(analyzeShell("sed -i.bak -e 's/old_name/new_name/' lib/x.js").changes[0]!.note, 'replaced `old_name` with `new_name`')
  t.same(sh("perl -pi -e 's/a/b/' conf/app.ini"), ['edit conf/app.ini'])
  const here = analyzeShell("cat > reproduce.py <<'EOF'\nimport sys\nprint(1 > 0)\nsys.exit(1)\nEOF\npython reproduce.py")
  t.same(pick(here.changes), ['create reproduce.py'])
  t.equal(here.changes[0]!.note, '3 lines')
  t.equal(here.written.get('reproduce.py'), 'import sys\nprint(1 > 0)\nsys.exit(1)')
  t.same(sh("cat <<'EOF' > src/conf.yml\nkey: 1\nEOF"), ['create src/conf.yml'])
  t.same(sh('tee -a notes.md <<EOF\nmore\nEOF'), ['edit notes.md'])
  t.same(sh('echo "x" | tee out/a.txt'), ['create out/a.txt'])
  t.same(sh('echo "export PATH=1" >> ~/.bashrc'), ['edit ~/.bashrc'])
  t.same(sh('python build.py > build.log 2>&1'), ['create build.log'])
  t.same(sh('npm test 2>&1 | tail -5'), [], '2>&1 is not a file')
  t.same(sh('make 2> /dev/null'), [])
  t.same(sh('node -e "const f = (a) => a; console.log(f(1))"'), [], '=> is not a redirect')
  t.same(sh('mv src/old.py src/new.py'), ['rename src/old.py → src/new.py'])
  t.same(sh('git mv a.ts b/'), ['rename a.ts → b/a.ts'])
  t.same(sh('rm -f build/out.js tmp.txt'), ['delete build/out.js', 'delete tmp.txt'])
  t.same(sh('git rm --cached secrets.env'), [], 'untracking is not deleting')
  t.same(sh('git rm docs/old.md'), ['delete docs/old.md'])
  t.same(sh('cp config.example.json config.json'), ['create config.json'])
  t.same(sh('touch src/__init__.py && mkdir -p src/pkg'), ['create src/__init__.py'])
  t.same(sh('cat src/a.py | head -5'), ['read src/a.py'])
  t.equal(analyzeShell('grep -rn "def load" src/').search, 'def load')
  // cd: relative paths resolve against an absolute working directory.
  t.same(sh('cd /tmp/repro && touch src/__init__.py && rm -rf ../old'), ['create /tmp/repro/src/__init__.py', 'delete /tmp/old'])
  t.same(pick(changesOfCall({ tool: 'exec_command', args: { cmd: 'rm notes.txt', workdir: '/Users/u/app' }, kind: 'shell' }).changes), ['delete /Users/u/app/notes.txt'])
})

t.test('shell parsing keeps heredoc bodies out of the commands', async (t) => {
  const st = parseShell("cat > run.sh <<'EOF'\nrm -rf /\necho hi > never.txt\nEOF\nbash run.sh && echo done")
  t.equal(st.length, 3)
  t.same(st[0]!.words, ['cat'])
  t.equal(st[0]!.heredoc, 'rm -rf /\necho hi > never.txt')
  t.same(st[1]!.words, ['bash', 'run.sh'])
})

t.test('scripts that write files', async (t) => {
  t.same(pick(analyzeShell("python - <<'EOF'\nimport re\nsrc = open('pkg/core.py').read()\nopen('pkg/core.py', 'w').write(src.replace('a', 'b'))\nEOF").changes), ['edit pkg/core.py'])
  t.same(pick(analyzeShell(`python3 -c "from pathlib import Path; p = Path('setup.cfg'); p.write_text(p.read_text().replace('x', 'y'))"`).changes), ['edit setup.cfg'])
  t.same(pick(analyzeShell(`node -e "require('fs').writeFileSync('dist/version.json', JSON.stringify({v: 1}))"`).changes), ['edit dist/version.json'])
  t.same(
    scriptFileOps("target = 'django/forms/widgets.py'\nwith open(target) as f:\n    s = f.read()\nwith open(target, 'w') as f:\n    f.write(s)\nos.remove('old.txt')\nshutil.move('a.py', 'b.py')\n", 'python').map((o) => `${o.op} ${o.path}`),
    ['edit django/forms/widgets.py', 'delete old.txt', 'rename b.py'],
  )
})

t.test('a script the session wrote, run later, edits what it opens for writing (fix_merge.py)', async (t) => {
  const tr = new ArtifactTracker()
  tr.add({ tool: 'str_replace_editor', args: { command: 'create', path: '/testbed/fix_merge.py', file_text: "import re\nwith open('django/forms/widgets.py') as f:\n    content = f.read()\ncontent = content.replace('a', 'b')\nwith open('django/forms/widgets.py', 'w') as f:\n    f.write(content)\n" }, index: 1 })
  const run = tr.add({ tool: 'bash', args: { command: 'cd /testbed && python fix_merge.py' }, output: '<returncode>0</returncode>\n<output>\n</output>', index: 2 })
  t.same(pick(run), ['edit /testbed/django/forms/widgets.py'])
  t.match(run[0]!.note, /fix_merge\.py/)
  const fates = tr.fates()
  const widgets = fates.find((f) => f.path.endsWith('django/forms/widgets.py'))!
  t.equal(widgets.fate, 'edited', 'edited, not "mentioned"')
  // The same via a heredoc-written script and a relative run; a shell script too.
  const tr2 = new ArtifactTracker()
  tr2.add({ tool: 'bash', args: { command: "cat > fix.sh <<'EOF'\nsed -i 's/x/y/' lib/a.c\nEOF" }, kind: 'shell' })
  t.same(pick(tr2.add({ tool: 'bash', args: { command: 'bash fix.sh' }, kind: 'shell' })), ['edit lib/a.c'])
  // A script that could not start wrote nothing.
  const tr3 = new ArtifactTracker()
  tr3.add({ tool: 'Write', args: { file_path: '/tmp/gen.py', content: "open('/tmp/out.json', 'w').write('{}')\n" } })
  t.same(tr3.add({ tool: 'bash', args: { command: 'python3 gen.py' }, kind: 'shell', output: "python3: can't open file '/home/u/gen.py': [Errno 2] No such file or directory\n\nCommand exited with code 2", failed: true }), [])
})

t.test('foldFileFates: created stays created, edits merge, deletes and renames, order and last index', async (t) => {
  const fates = foldFileFates([
    { path: 'src/a.py', op: 'read', index: 1 },
    { path: 'src/new.py', op: 'create', added: 10, note: '10 lines', index: 2 },
    { path: 'src/a.py', op: 'edit', added: 1, removed: 1, hunks: 1, symbols: ['f'], note: 'replaced `x` with `y`', index: 3 },
    { path: '/repo/src/new.py', op: 'edit', added: 2, hunks: 1, symbols: ['g'], note: 'added 2 lines', index: 4 },
    { path: 'src/a.py', op: 'edit', added: 3, removed: 0, hunks: 2, symbols: ['f', 'h'], note: 'replaced `x` with `y`', index: 5 },
    { path: 'tmp_debug.txt', op: 'create', index: 6 },
    { path: 'tmp_debug.txt', op: 'delete', index: 7 },
    { path: 'lib/old.ts', op: 'edit', added: 1, index: 8 },
    { path: 'lib/new.ts', op: 'rename', from: 'lib/old.ts', index: 9 },
    { path: 'README.md', op: 'read', index: 10 },
  ])
  t.same(
    fates.map((f) => [f.path, f.fate]),
    [
      ['src/a.py', 'edited'],
      ['src/new.py', 'created'],
      ['tmp_debug.txt', 'deleted'],
      ['lib/new.ts', 'renamed'],
      ['README.md', 'read'],
    ],
  )
  const a = fates[0]!
  t.equal(a.added, 4)
  t.equal(a.removed, 1)
  t.equal(a.hunks, 3)
  t.same(a.symbols, ['f', 'h'])
  t.same(a.notes, ['replaced `x` with `y`'], 'notes deduplicated')
  t.equal(a.firstIndex, 1)
  t.equal(a.lastIndex, 5)
  const n = fates[1]!
  t.equal(n.added, 12, 'absolute and relative spellings are one file')
  t.same(n.notes, ['10 lines', 'added 2 lines'])
  t.equal(fates[3]!.from, 'lib/old.ts')
  // A file created and then renamed is a created file at its new path.
  t.same(
    foldFileFates([
      { path: 'a.txt', op: 'create' },
      { path: 'b.txt', op: 'rename', from: 'a.txt' },
    ]).map((f) => [f.path, f.fate, f.from]),
    [['b.txt', 'created', 'a.txt']],
  )
})

t.test('every created file is available (150 files stay 150 rows), cheaply', async (t) => {
  const changes: FileChange[] = Array.from({ length: 150 }, (_, k) => ({ path: `/repo/packages/api/src/m${k}/m${k}.service.ts`, op: 'create' as const, added: 2 }))
  const started = performance.now()
  const fates = foldFileFates(changes)
  t.equal(fates.length, 150)
  t.ok(fates.every((f) => f.fate === 'created'))
  t.ok(performance.now() - started < 200)
  const big = foldFileFates(Array.from({ length: 20000 }, (_, k) => ({ path: `src/f${k % 5000}.ts`, op: k < 5000 ? ('create' as const) : ('edit' as const), added: 1 })))
  t.equal(big.length, 5000)
})

t.test('isScratchPath: /tmp and one-off scripts at the root rank below project files', async (t) => {
  for (const p of ['/tmp/x.py', '/var/tmp/a/b.txt', 'reproduce.py', 'reproduce_issue.py', 'repro.sh', 'debug_parse.py', 'scratch.ts', 'test_fix.py', 'test_fix_works2.py', '/testbed/reproduce.py']) t.ok(isScratchPath(p), p)
  for (const p of ['src/app.py', 'tests/test_fix_parser.py', 'src/debug_utils/x.py', 'django/forms/widgets.py', '~/tmp/awesome/README.md', 'https://example.com/tmp/x']) t.notOk(isScratchPath(p), p)
})

t.test('URLs are never mangled', async (t) => {
  t.equal(normalizePath('https://www.youtube.com/watch?v=NmYNwx_iMSU'), 'https://www.youtube.com/watch?v=NmYNwx_iMSU')
  t.equal(normalizePath('./a//b.py'), 'a//b.py', 'only a leading ./ goes')
  const cs = analyzeShell('curl -sL https://www.youtube.com/watch?v=abc -o page.html && wget -O out/feed.xml https://example.com//feed').changes
  t.same(pick(cs), ['create page.html', 'create out/feed.xml'])
  t.same(changesOfCall({ tool: 'read', args: { path: 'https://www.youtube.com/watch?v=x' } }).changes, [])
})

t.test('foldFileFates: an edit undone by the reverse replacement is no net change; a different follow-up is', async (t) => {
  const edit = (path: string, from: string, to: string, index: number) => ({ ...changesOfCall({ tool: 'Edit', args: { file_path: path, old_string: from, new_string: to } }).changes[0]!, index })
  const fates = foldFileFates([
    edit('/repo/src/cache.ts', 'const TTL = 60', 'const TTL = 5', 1),
    edit('/repo/src/cache.ts', 'const TTL = 5', 'const TTL = 60', 2),
    edit('/repo/src/app.ts', 'port = 80', 'port = 8080', 3),
    edit('/repo/src/app.ts', 'port = 8080', 'port = 9090', 4),
  ])
  const cache = fates.find((f) => f.path === '/repo/src/cache.ts')!
  t.equal(cache.reverted, true, 'A→B then B→A: undone')
  t.same([cache.added, cache.removed], [0, 0])
  t.match(cache.notes.join(' '), /then undone \(no net change\)/)
  const app = fates.find((f) => f.path === '/repo/src/app.ts')!
  t.notOk(app.reverted, 'A→B then B→C is a real change')
  t.equal(app.fate, 'edited')

  // Undone, then changed again in another way: the file did change.
  const again = foldFileFates([edit('/r/x.py', 'a = 1', 'a = 2', 1), edit('/r/x.py', 'a = 2', 'a = 1', 2), edit('/r/x.py', 'b = 1', 'b = 3', 3)])
  t.notOk(again[0]!.reverted)
})

t.test('foldFileFates: a `git checkout`/`git restore` of the file, or a copy back from its backup, undoes the edits before it', async (t) => {
  const edit = (path: string, from: string, to: string, index: number) => ({ ...changesOfCall({ tool: 'Edit', args: { file_path: path, old_string: from, new_string: to } }).changes[0]!, index })
  const shell = (command: string, index: number) => changesOfCall({ tool: 'bash', args: { command } }).changes.map((c) => ({ ...c, index }))
  const checkedOut = foldFileFates([edit('src/a.py', 'x = 1', 'x = 2', 1), ...shell('git checkout -- src/a.py', 2)])[0]!
  t.match(checkedOut, { reverted: true, added: 0, removed: 0, notes: ['replaced `x = 1` with `x = 2`, then undone by `git checkout` (no net change)'] })
  t.match(foldFileFates([edit('src/a.py', 'x = 1', 'x = 2', 1), ...shell('git restore src/a.py', 2)])[0], { reverted: true })
  t.match(foldFileFates([edit('src/a.py', 'x = 1', 'x = 2', 1), ...shell('git checkout src/a.py', 2)])[0], { reverted: true }, 'without `--`, a file name is a file')
  t.same(shell('git checkout main', 1), [], 'a branch is not a file')

  // Undone, then fixed another way: the row says only what stands.
  const redone = foldFileFates([edit('src/a.py', 'x = 1', 'x = 2', 1), ...shell('git checkout -- src/a.py', 2), edit('src/a.py', 'y = 1', 'y = 3', 3)])[0]!
  t.notOk(redone.reverted)
  t.same(redone.notes, ['replaced `y = 1` with `y = 3`'], "the undone edit's note is gone")

  // A backup made before the first edit: copying it back undoes the edits.
  const restored = foldFileFates([...shell('cp src/b.py src/b.py.orig', 1), edit('src/b.py', 'a', 'b', 2), ...shell('cp src/b.py.orig src/b.py', 3)]).find((f) => f.path === 'src/b.py')!
  t.match(restored, { reverted: true, notes: [/then undone by a copy of b\.py\.orig \(no net change\)/] })
  // A backup made after an edit keeps that edit.
  const partial = foldFileFates([edit('src/c.py', 'a', 'b', 1), ...shell('cp src/c.py src/c.py.bak', 2), edit('src/c.py', 'c', 'd', 3), ...shell('cp src/c.py.bak src/c.py', 4)]).find((f) => f.path === 'src/c.py')!
  t.notOk(partial.reverted, 'the first edit stands')
  t.ok(isBackupOf('x/a.py.bak', 'a.py') && isBackupOf('a.py~', 'a.py') && !isBackupOf('a.pyc', 'a.py') && !isBackupOf('b.py.bak', 'a.py'))
})
