/**
 * The recall eval (test/eval/recall.ts) on one fixture, one strategy, one format, through
 * the real service on PGlite: the report has its shape, and searching the archive never
 * loses what the output had (recoverable ≥ in output). No target is asserted here;
 * `npm run eval -- recall` reports the rates (docs/quality.md).
 */
import t from 'tap'
import { conversationsSkip } from '../helpers/fixtures.ts'
import { FIXTURE_PROBES } from './probes/index.ts'
import { grepTop, grepWords, messagesText, renderMarkdown, runRecall, RECALL_TOP_K } from './recall.ts'

const FIXTURE = 'deepseek_chat_test_1-100__django__django-11019'

t.test('grep baseline: the rarest question words, documents by words matched then occurrences', async (t) => {
  t.same(grepWords('Which module was missing when `test_media.py` first ran?'), ['module', 'missing', 'test_media.py', 'first', 'ran'])
  const docs = [
    { ref: 'a', position: 0, text: 'module missing: the first run' },
    { ref: 'b', position: 1, text: 'ran test_media.py, module test_media.py' },
    { ref: 'c', position: 2, text: 'ran test_media.py' },
    { ref: 'd', position: 3, text: 'nothing here' },
  ]
  // Document frequencies: module 2, missing 1, test_media.py 2, first 1, ran 2; ties keep the question's order.
  const g = grepTop('Which module was missing when test_media.py first ran?', docs)
  t.same(g.words, ['missing', 'first'])
  t.same(g.refs, ['a'])
  t.same(grepTop('no such words', docs), { words: [], refs: [] })
  t.equal(grepTop('test_media.py module', docs, 2).refs.length, 2)
  t.same(grepTop('test_media.py module', docs, 2).refs, ['b', 'a'])
})

t.test('originals are scored as the probes score output text', async (t) => {
  const text = messagesText([{ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{"command":"python run_test.py"}' } }] }], 'openai')
  t.match(text, /python run_test\.py/)
})

t.test('recall eval on one fixture, mask+rules, OpenAI, PGlite', { skip: conversationsSkip([`${FIXTURE}.json`]), timeout: 120_000 }, async (t) => {
  const rep = await runRecall({ backend: 'pglite', only: [FIXTURE], strategies: [['mask', 'rules']], formats: ['openai'] })
  t.equal(rep.runs.length, 1)
  const run = rep.runs[0]!
  t.notOk(run.error, `compacted (${run.error ?? 'ok'})`)
  const probes = FIXTURE_PROBES.filter((p) => p.fixture === FIXTURE)
  t.same(
    run.results.map((r) => r.id),
    probes.map((p) => p.id),
    'one result per probe of the fixture',
  )
  t.ok((run.archived ?? 0) > 0, `${run.archived} messages archived`)
  t.ok(run.tokensAfter! <= run.targetTokens, `${run.tokensAfter} ≤ ${run.targetTokens} tokens`)
  for (const r of run.results) {
    t.ok(r.hits.length <= RECALL_TOP_K && r.grepRefs.length <= RECALL_TOP_K, `${r.id}: at most ${RECALL_TOP_K} hits read`)
    t.ok(r.terms.length > 0, `${r.id}: the search kept a term`)
    t.equal(r.recoverable, r.inOutput || r.bySearch, `${r.id}: recoverable = output or search`)
  }
  const cell = rep.matrix['mask+rules|openai']!
  t.equal(cell.output.total, probes.length)
  t.ok(cell.recoverable.passed >= cell.output.passed, `recoverable ${cell.recoverable.passed} ≥ in output ${cell.output.passed}`)
  t.ok(cell.search.passed > 0, `search alone finds ${cell.search.passed}/${cell.search.total}`)
  t.ok(rep.byFixture[`${FIXTURE}|mask+rules|openai`], 'per-fixture cell')
  const md = renderMarkdown(rep)
  t.match(md, /\| mask\+rules \| openai \|/)
  t.match(md, /Per fixture/)
})
