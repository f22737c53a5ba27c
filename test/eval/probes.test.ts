/**
 * The continuation probes are well-formed and honest: every answer is in the compacted
 * range of its conversation and nowhere in the part the engine keeps verbatim (see
 * test/eval/probes/core.ts). Both splits are checked: the tuning probes (FIXTURE_PROBES)
 * and the held-out test split (TEST_PROBES, issue 22), whose sessions the tuning split
 * does not use. No pass rates are asserted here (the engine is being
 * rebuilt); `npm run eval -- probes` reports them.
 */
import t from 'tap'
import { handoverConversations } from '../helpers/handover-conversations.ts'
import { FIXTURE_PROBES, loadProbedFixtures, loadTestFixtures, PROBE_FACETS, PROBE_KINDS, PROBED_FIXTURES, probedFixturesSkip, scoreProbe, outputText, TEST_FIXTURES, TEST_PROBES, testFixturesSkip, TUNING_PROBES, validateProbes } from './probes/index.ts'
import { parseConversation } from '../../src/engine/messages/index.ts'

const describe = (problems: { id: string; problem: string }[]) => problems.map((p) => `${p.id}: ${p.problem}`).join('\n')

t.test('fixture probes: at least 80 over at least 8 sessions, all four kinds, each valid under the static rule', { skip: probedFixturesSkip() }, async (t) => {
  t.ok(FIXTURE_PROBES.length >= 80, `${FIXTURE_PROBES.length} probes`)
  t.ok(PROBED_FIXTURES.length >= 8, `${PROBED_FIXTURES.length} fixtures`)
  for (const k of PROBE_KINDS) t.ok(FIXTURE_PROBES.some((p) => p.kind === k), `kind ${k} present`)
  const problems = validateProbes(FIXTURE_PROBES, loadProbedFixtures())
  t.same(problems, [], describe(problems))
})

t.test('test split (issue 22): at least 60 held-out probes over at least 5 sessions the tuning split does not use, at least 20 of the issue-22 facets, each valid under the static rule', { skip: testFixturesSkip() }, async (t) => {
  t.equal(TUNING_PROBES, FIXTURE_PROBES, 'the tuning split is FIXTURE_PROBES')
  t.ok(TEST_PROBES.length >= 60, `${TEST_PROBES.length} probes`)
  t.ok(TEST_FIXTURES.length >= 5, `${TEST_FIXTURES.length} fixtures`)
  t.same(
    TEST_FIXTURES.filter((f) => PROBED_FIXTURES.includes(f)),
    [],
    'no session of the test split is in the tuning split',
  )
  const tuningIds = new Set(FIXTURE_PROBES.map((p) => p.id))
  t.same(
    TEST_PROBES.filter((p) => tuningIds.has(p.id)).map((p) => p.id),
    [],
    'no probe id is shared with the tuning split',
  )
  for (const k of PROBE_KINDS) t.ok(TEST_PROBES.some((p) => p.kind === k), `kind ${k} present`)
  const faceted = TEST_PROBES.filter((p) => p.facet)
  t.ok(faceted.length >= 20, `${faceted.length} probes of the issue-22 facets`)
  for (const f of PROBE_FACETS) t.ok(faceted.some((p) => p.facet === f), `facet ${f} present`)
  const problems = validateProbes(TEST_PROBES, loadTestFixtures())
  t.same(problems, [], describe(problems))
})

t.test('generated conversations: every probe is valid under the static rule', async (t) => {
  const convs = handoverConversations()
  const problems = validateProbes(
    convs.flatMap((c) => c.probes),
    new Map(convs.map((c) => [c.name, c.messages as unknown[]])),
  )
  t.same(problems, [], describe(problems))
  for (const c of convs) {
    t.ok(c.probes.length > 0, `${c.name} has probes`)
    t.ok(c.probes.every((p) => p.fixture === c.name), `${c.name}: probes name their builder`)
  }
})

t.test('generated conversations are deterministic and well-formed OpenAI chat', async (t) => {
  const a = handoverConversations()
  const b = handoverConversations()
  t.same(
    a.map((c) => c.messages),
    b.map((c) => c.messages),
  )
  for (const c of a) {
    const conv = parseConversation(c.messages, { format: 'openai' })
    t.equal(conv.messages.length, c.messages.length, `${c.name} parses`)
  }
  const noise = a.find((c) => c.name === 'harnessNoise')!
  t.ok(noise.messages.filter((m) => m.role === 'user').length >= 150, 'harnessNoise has 150+ harness user messages')
  const scaffold = a.find((c) => c.name === 'scaffoldSession')!
  t.ok(scaffold.messages.filter((m) => m.role === 'tool').length >= 150, 'scaffoldSession writes 150+ files')
})

t.test('scoring: alternatives, whitespace and case; negative patterns on display lines', async (t) => {
  const probe = { id: 'x', fixture: 'x', kind: 'recall' as const, question: '', answers: [['nope', 'Exit  Code 1'], 'b.py'], mustNotMatch: [/b\.py[^\n]*failed/i] }
  const ok = outputText(parseConversation([{ role: 'user', content: 'wrote b.py\nexit code 1 earlier; later it failed' }], { format: 'openai' }).messages)
  t.same(scoreProbe(probe, ok), { passed: true, missing: [], violations: [] })
  const bad = outputText(parseConversation([{ role: 'user', content: 'b.py → failed' }], { format: 'openai' }).messages)
  const s = scoreProbe(probe, bad)
  t.equal(s.passed, false)
  t.same(s.missing, ['nope | Exit  Code 1'])
  t.equal(s.violations.length, 1)
})

t.test('eval report: --split parsing and the per-kind, per-facet, per-fixture breakdown of fixture runs', async (t) => {
  const { parseSplit, breakdownOf } = await import('./probes.ts')
  t.same(parseSplit([]), ['tuning', 'test'])
  t.same(parseSplit(['--json', '--split', 'all']), ['tuning', 'test'])
  t.same(parseSplit(['--split', 'tuning']), ['tuning'])
  t.same(parseSplit(['--split=test', '--json']), ['test'])
  t.throws(() => parseSplit(['--split', 'held-out']), /--split must be tuning, test or all/)
  const run = (conversation: string, results: { id: string; kind: 'recall' | 'decision'; facet?: 'finding' | 'rejected'; passed: boolean }[], error?: string) => ({
    conversation,
    source: 'fixture' as const,
    budget: 10,
    targetTokens: 100,
    strategy: 'mask+rules',
    format: 'openai' as const,
    tokensBefore: 1000,
    ...(error ? { error } : {}),
    results: results.map((r) => ({ ...r, missing: [], violations: [] })),
  })
  const b = breakdownOf([
    run('a', [
      { id: 'a1', kind: 'recall', facet: 'finding', passed: true },
      { id: 'a2', kind: 'decision', facet: 'rejected', passed: false },
      { id: 'a3', kind: 'recall', passed: true },
    ]),
    run('b', [], '422 budget_unreachable'),
    { ...run('g', [{ id: 'g1', kind: 'recall', passed: false }]), source: 'generated' as const },
  ])
  const cell = b['mask+rules|10|openai']!
  t.same(cell.overall, { passed: 2, total: 3 })
  t.same(cell.byKind.recall, { passed: 2, total: 2 })
  t.same(cell.byKind.decision, { passed: 0, total: 1 })
  t.same(cell.byFacet.finding, { passed: 1, total: 1 })
  t.same(cell.byFacet.rejected, { passed: 0, total: 1 })
  t.same(cell.byFacet.research, { passed: 0, total: 0 })
  t.same(cell.byFixture, { a: { passed: 2, total: 3 }, b: 'excluded' })
  t.equal(cell.excluded, 1)
})
