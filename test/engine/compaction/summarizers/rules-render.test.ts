/**
 * The rules summary's Completed Work rows (src/engine/compaction/summarizers/rules-render.ts):
 * generated modules become one scaffold row, and the action log does not repeat the files
 * it lists (action-log.ts listedFiles). The class: scaffolding sessions, one module per
 * domain (the generated `scaffoldSession`: 30 NestJS modules × 5 files), compacted in every
 * format; then the grouping rule alone on file fates (scaffoldRows).
 */
import t from 'tap'
import { listedFiles } from '../../../../src/engine/compaction/action-log.ts'
import { scaffoldRows } from '../../../../src/engine/compaction/summarizers/rules-render.ts'
import type { FileFate } from '../../../../src/engine/facts/artifacts/tracker.ts'
import { compactAllFormats } from '../../../helpers/compact-all-formats.ts'
import { scaffoldSession } from '../../../helpers/handover-conversations.ts'

t.test('scaffoldSession: thirty generated modules are one row that spells out the first and names the rest, in every format', async (t) => {
  const texts = new Set((await compactAllFormats(scaffoldSession(), 0.25)).map((r) => r.summary))
  t.equal(texts.size, 1, 'one summary in every format')
  const text = [...texts][0]!
  const row = text.split('\n').find((l) => l.includes('(30 modules, 150 files)'))
  t.ok(row, 'one scaffold row')
  t.match(row, '| /repo/packages/api/src/modules/ (30 modules, 150 files) | created | billing/: billing.controller.ts, billing.service.ts, billing.repository.ts, billing.dto.ts, billing.spec.ts; the same files in invoices, ')
  t.match(row, /, health \|$/, 'the last module named')
  t.notMatch(text, /\| \/repo\/packages\/api\/src\/modules\/\w+\/\w+\.\w+\.ts \| created/, 'no row per file')
  t.notMatch(text, /Write \/repo\/packages\/api\/src\/modules\//, 'no log line repeats a file the row lists')
  t.match(text, 'app.module.ts', 'the file outside the template keeps its own row')
  const listed = listedFiles(row!)
  for (const path of ['/repo/packages/api/src/modules/billing/billing.controller.ts', '/repo/packages/api/src/modules/health/health.spec.ts', '/repo/packages/api/src/modules/taxes/taxes.dto.ts']) t.ok(listed(path), `listed: ${path}`)
  t.notOk(listed('/repo/packages/api/src/app.module.ts'))
})

t.test('scaffoldRows: three or more modules of one folder with the same files, and only those', async (t) => {
  const fate = (path: string, extra: Partial<FileFate> = {}): FileFate => ({ path, fate: 'created', added: 2, removed: 0, hunks: 1, symbols: [], notes: [], scratch: false, firstIndex: 0, lastIndex: 0, ...extra })
  const module = (name: string, kinds: string[]) => kinds.map((k) => fate(`src/${name}/${name}.${k}.ts`))
  const three = [...module('a', ['controller', 'service']), ...module('b', ['controller', 'service']), ...module('c', ['controller', 'service'])]
  t.same(scaffoldRows(three).map((r) => r.text), ['| src/ (3 modules, 6 files) | created | a/: a.controller.ts, a.service.ts; the same files in b, c |'])
  t.equal(scaffoldRows(three)[0]!.files.length, 6)
  t.same(scaffoldRows(three.slice(0, 4)), [], 'two modules: no row')
  t.same(scaffoldRows([...three.slice(0, 4), ...module('c', ['model', 'view'])]), [], 'a third module with other files: no row')
  t.same(scaffoldRows(three.map((f, k) => (k === 0 ? { ...f, fate: 'edited' as const } : f))), [], 'an edited file breaks its module')
  t.same(scaffoldRows([fate('src/a/a.ts'), fate('src/b/b.ts'), fate('src/c/c.ts')]), [], 'one file per module: no row')
  t.same(scaffoldRows([...module('x', ['a', 'b']), ...module('y', ['a', 'b']), fate('src/z/other.a.ts'), fate('src/z/other.b.ts')]), [], "a file not named after its folder is no module's")
})
