/**
 * The Python client's types (clients/python/compactd_client/_schema.py) are generated from
 * openapi.yaml: the committed file is what the generator gives now, and it imports with
 * every type resolvable. The client itself is tested by clients/python/tests (unittest,
 * run by .ci/run) against a compactd it starts.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { generatePython, PY_SCHEMA_PATH } from '../../clients/generate.ts'

t.test('clients/python/compactd_client/_schema.py is what openapi.yaml gives now (run `npx tsx clients/generate.ts` or `npm run openapi`)', async (t) => {
  t.equal(fs.readFileSync(PY_SCHEMA_PATH, 'utf8'), generatePython())
})

t.test('the generated module imports, and every type hint in it resolves', { skip: spawnSync('python3', ['--version']).status === 0 ? false : 'python3 is not installed' }, async (t) => {
  const script = [
    'import typing',
    'import compactd_client._schema as s',
    'names = [n for n, o in vars(s).items() if isinstance(o, type) and hasattr(o, "__total__")]',
    'for n in names: typing.get_type_hints(getattr(s, n))',
    'print(len(names), len(s.OPERATIONS))',
  ].join('\n')
  const run = spawnSync('python3', ['-c', script], { cwd: path.join(import.meta.dirname, '../../clients/python'), encoding: 'utf8' })
  t.equal(run.status, 0, run.stderr)
  const [types, operations] = run.stdout.trim().split(' ').map(Number)
  t.ok(types! > 20, `${types} TypedDicts`)
  t.ok(operations! >= 17, `${operations} routes`)
})
