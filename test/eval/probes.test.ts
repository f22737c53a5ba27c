/**
 * The continuation probes are well-formed and honest: every answer is in the compacted
 * range of its conversation and nowhere in the part the engine keeps verbatim (see
 * test/eval/probes/core.ts). No pass rates are asserted here (the engine is being
 * rebuilt); `npm run eval -- probes` reports them.
 */
import t from 'tap'
import { handoverConversations } from '../helpers/handover-conversations.ts'
import { FIXTURE_PROBES, loadProbedFixtures, PROBE_KINDS, PROBED_FIXTURES, probedFixturesSkip, scoreProbe, outputText, validateProbes } from './probes/index.ts'
import { parseConversation } from '../../src/engine/messages/index.ts'

const describe = (problems: { id: string; problem: string }[]) => problems.map((p) => `${p.id}: ${p.problem}`).join('\n')

t.test('fixture probes: at least 80 over at least 8 sessions, all four kinds, each valid under the static rule', { skip: probedFixturesSkip() }, async (t) => {
  t.ok(FIXTURE_PROBES.length >= 80, `${FIXTURE_PROBES.length} probes`)
  t.ok(PROBED_FIXTURES.length >= 8, `${PROBED_FIXTURES.length} fixtures`)
  for (const k of PROBE_KINDS) t.ok(FIXTURE_PROBES.some((p) => p.kind === k), `kind ${k} present`)
  const problems = validateProbes(FIXTURE_PROBES, loadProbedFixtures())
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
