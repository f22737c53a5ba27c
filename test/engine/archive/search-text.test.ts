/**
 * What the archive indexes and how a query is read: identifiers expanded into their parts
 * (so they match whole and in part), chunks that respect PostgreSQL's position limit,
 * stopwords, and tsquery literals that no input can break out of.
 */
import t from 'tap'
import { chunkText, expandForIndex, identifierParts, isQueryStopword, lexemeQuery } from '../../../src/engine/archive/search-text.ts'

t.test('identifiers are indexed whole and by their parts', async (t) => {
  t.same(identifierParts('src/db/pool.ts'), ['pool.ts', 'src', 'db', 'pool', 'ts'], "a path's file name too")
  t.same(identifierParts('django.forms.widgets'), ['django', 'forms', 'widgets'])
  t.same(identifierParts('MediaOrderConflictWarning'), ['MediaOrderConflictWarning', 'Media', 'Order', 'Conflict', 'Warning'])
  t.same(identifierParts('getHTTPResponse'), ['getHTTPResponse', 'get', 'HTTP', 'Response'])
  t.same(identifierParts('plain'), [], 'a plain word has no parts')
  const text = 'edited src/db/pool.ts and called pool.close(); see MediaOrderConflictWarning'
  const out = expandForIndex(text)
  t.ok(out.startsWith(text), 'the original text first')
  t.match(out, /\npool\.ts src db pool ts/)
  t.match(out, /Media Order Conflict Warning/)
  t.equal(expandForIndex('nothing to expand here'), 'nothing to expand here')
  t.equal(expandForIndex('a.b a.b a.b').split('\n').length, 2, 'each distinct identifier once')
})

t.test('expansion is bounded on a huge output of paths', async (t) => {
  const paths = Array.from({ length: 50_000 }, (_, i) => `src/module_${i}/file_${i}.ts`).join('\n')
  const started = performance.now()
  const out = expandForIndex(paths)
  t.ok(out.length < paths.length * 2, 'at most MAX_EXPANSIONS identifiers are expanded')
  t.ok(performance.now() - started < 2_000, `${Math.round(performance.now() - started)} ms`)
})

t.test('chunks stay under the size and cut at line breaks', async (t) => {
  t.same(chunkText('short'), ['short'])
  const lines = Array.from({ length: 5000 }, (_, i) => `line ${i}: ${'x'.repeat(20)}`).join('\n')
  const chunks = chunkText(lines, 16_384)
  t.equal(chunks.join(''), lines, 'nothing lost or duplicated')
  t.ok(chunks.every((c) => c.length <= 16_384))
  t.ok(chunks.slice(0, -1).every((c) => c.endsWith('\n')), 'cut after a line')
  const noBreaks = 'y'.repeat(40_000)
  t.same(chunkText(noBreaks, 16_384).map((c) => c.length), [16_384, 16_384, 7_232], 'a text without breaks is cut at the size')
})

t.test('query words: stopwords dropped, literals quoted, non-Latin words by prefix', async (t) => {
  for (const w of ['how', 'does', 'the', 'what', 'a', '7']) t.ok(isQueryStopword(w), w)
  for (const w of ['chroma', 'batch', 'pool.ts', '데이터베이스', '42']) t.notOk(isQueryStopword(w), w)
  t.equal(lexemeQuery('chroma'), "'chroma'")
  t.equal(lexemeQuery("it's"), "'it''s'")
  t.equal(lexemeQuery('a\\b'), "'a\\\\b'")
  t.equal(lexemeQuery('데이터베이스'), "'데이터베이스':*", 'Korean matches with its particles attached')
  t.equal(lexemeQuery("x' | 'y"), "'x'' | ''y'", 'an operator inside a word stays inside the literal')
})
