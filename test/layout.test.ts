/**
 * The test tree mirrors the source tree (issue 20): a source file's test sits at the
 * mirrored path, so a reader finds it without grepping.
 *
 * - test/<path>.test.ts tests <root>/<path>.ts (or the module folder <root>/<path>/),
 *   where test/ mirrors src/, test/routes/ routes/, test/ui/ ui/src/,
 *   test/clients/typescript/ clients/typescript/src/ and test/clients/ clients/:
 *   src/engine/messages/ → test/engine/messages.test.ts,
 *   routes/compact.ts → test/routes/compact.test.ts.
 * - A module with several test files gets a folder named after it, one file per aspect:
 *   test/plugins/compute-pool/deadlines.test.ts (src/plugins/compute-pool.ts),
 *   test/engine/sessions/aging.test.ts (src/engine/sessions/).
 * - Tests of the test tooling (helpers/, fakes/, eval/, bench/) sit beside the file they test.
 * - Tests of the service as a whole stay at the top, listed in CROSS_CUTTING with why.
 */
import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'

const ROOT = path.resolve(import.meta.dirname, '..')
const TEST_DIR = path.join(ROOT, 'test')

/** test/<test>… mirrors <source>…, most specific first. */
const MIRRORS: readonly { test: string; source: string }[] = [
  { test: 'clients/typescript/', source: 'clients/typescript/src/' },
  { test: 'clients/', source: 'clients/' },
  { test: 'routes/', source: 'routes/' },
  { test: 'ui/', source: 'ui/src/' },
  { test: '', source: 'src/' },
]

/** Folders of test tooling: a test there tests the file beside it. */
const TOOLING = ['helpers', 'fakes', 'eval', 'bench']

/** Tests of the service as a whole, at the top of test/: no one source file is theirs. */
const CROSS_CUTTING: Readonly<Record<string, string>> = {
  'api-docs-agreement.test.ts': 'docs/api.md, the routes, the CLI and the clients say the same thing',
  'docs-examples.test.ts': 'every example of README.md, docs/api.md and docs/integrations.md runs as written',
  'faults.test.ts': 'the database and the summarizer provider failing under every route',
  'fuzz.test.ts': 'every route under generated and mutated requests (npm run fuzz)',
  'layout.test.ts': 'this file: the test tree itself',
  'sdk-loops.test.ts': "docs/integrations.md's client and SDK loops against a running service",
  'security.test.ts': 'the OWASP API Top 10 over every route of the route table',
  'ui.test.ts': 'the dashboard in a browser, from the API to the page',
  'url-passthrough.test.ts': 'URLs byte for byte through /compact and the rolling session summary',
  'architecture.test.ts': 'the layers and import rules of the whole tree (.dependency-cruiser.cjs)',
}

const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.mjs', '.js', '.py']

function isSource(relative: string): boolean {
  const full = path.join(ROOT, relative)
  if (SOURCE_EXTENSIONS.some((ext) => fs.existsSync(full + ext))) return true
  return fs.existsSync(full) && fs.statSync(full).isDirectory()
}

/** The source files or folders a test path without its `.test.ts` (`routes/sessions/aging`) could mirror. */
function mirrored(stem: string): string[] {
  return MIRRORS.filter((m) => stem.startsWith(m.test)).map((m) => m.source + stem.slice(m.test.length))
}

/** Why a test file (relative to test/) is out of place, or undefined when it mirrors its source. */
function misplaced(relative: string): string | undefined {
  const file = relative.split(path.sep).join('/')
  if (!file.includes('/')) {
    if (file in CROSS_CUTTING) return undefined
  }
  const stem = file.slice(0, -'.test.ts'.length)
  const [top] = file.split('/')
  if (TOOLING.includes(top!) && file.includes('/')) {
    return SOURCE_EXTENSIONS.some((ext) => fs.existsSync(path.join(TEST_DIR, stem + ext))) ? undefined : `tests test tooling, but test/${stem}.ts is not beside it`
  }
  if (mirrored(stem).some(isSource)) return undefined
  const folder = path.posix.dirname(stem)
  if (folder !== '.' && mirrored(folder).some(isSource)) return undefined
  const candidates = [...mirrored(stem), ...(folder !== '.' ? mirrored(folder) : [])]
  return `mirrors no source: none of ${candidates.map((c) => `${c}(.ts|/)`).join(', ')} exists`
}

function testFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) return []
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return testFiles(full)
    return entry.name.endsWith('.test.ts') ? [path.relative(TEST_DIR, full)] : []
  })
}

t.test('every test file sits at the path of the source it tests, or is listed as cross-cutting', async (t) => {
  const files = testFiles(TEST_DIR)
  t.ok(files.length > 0, 'test files found')
  const offenders = files.flatMap((file) => {
    const why = misplaced(file)
    return why ? [`test/${file}: ${why}`] : []
  })
  t.same(offenders, [], 'move each to test/<source path>.test.ts (the module comment says how), or, when it tests the service as a whole, list it in CROSS_CUTTING')
})

t.test('the cross-cutting list names only files that exist', async (t) => {
  const missing = Object.keys(CROSS_CUTTING).filter((file) => !fs.existsSync(path.join(TEST_DIR, file)))
  t.same(missing, [], 'remove entries for files that were moved or deleted')
})

t.test('the rule: mirrors, aspect folders, tooling and the top', async (t) => {
  t.equal(misplaced('engine/messages.test.ts'), undefined, 'a module folder: src/engine/messages/')
  t.equal(misplaced('routes/compact.test.ts'), undefined, 'a route: routes/compact.ts')
  t.equal(misplaced('routes/sessions/aging.test.ts'), undefined, 'an aspect of routes/sessions.ts')
  t.equal(misplaced('config.test.ts'), undefined, 'src/config.ts')
  t.equal(misplaced('helpers/fixtures.test.ts'), undefined, 'tooling beside its file')
  t.match(misplaced('compute-pool.test.ts'), /mirrors no source/, 'flat at the top while its source is in src/plugins/')
  t.match(misplaced('engine/nowhere/x.test.ts'), /mirrors no source/, 'a folder that mirrors nothing')
  t.match(misplaced('helpers/nothing.test.ts'), /not beside it/)
})
