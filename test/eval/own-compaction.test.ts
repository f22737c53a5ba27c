/**
 * The comparison against the agent's own compaction (issue 22, test/eval/own-compaction.ts)
 * works and its probes are honest: every answer of a probe is in the range the agent's
 * summary covered (so an honest summary of that range can contain it), the covered range
 * recomputed from the transcript is where the probes say it ends, and the agent's summary
 * and compactd's output (OpenAI, every size) are scored on every probe. No pass rate is
 * asserted: `npm run eval -- own` reports them. Skipped without ../shared/fixtures.
 */
import t from 'tap'
import { PROBE_KINDS } from './probes/core.ts'
import { checkOwnProbes, OWN_COMPACTIONS, OWN_PROBES } from './probes/own-compaction/index.ts'
import { loadOwnSubject, ownCompactionSkip, runOwnCompaction } from './own-compaction.ts'

t.test('own-compaction probes: 16 to 24 a subject, all four kinds, ids unique, every answer in the covered range', { skip: ownCompactionSkip() }, async (t) => {
  t.ok(OWN_COMPACTIONS.length >= 1, `${OWN_COMPACTIONS.length} subject(s)`)
  t.equal(new Set(OWN_PROBES.map((p) => p.id)).size, OWN_PROBES.length, 'probe ids are unique')
  for (const s of OWN_COMPACTIONS) {
    t.ok(s.probes.length >= 16 && s.probes.length <= 24, `${s.name}: ${s.probes.length} probes`)
    for (const k of PROBE_KINDS) t.ok(s.probes.some((p) => p.kind === k), `${s.name}: kind ${k} present`)
    t.ok(s.probes.every((p) => p.fixture === s.fixture), `${s.name}: probes name its fixture`)
    const data = loadOwnSubject(s) // throws when the covered range does not end at s.coveredEnd
    t.equal(data.coveredEnd, s.coveredEnd, `${s.name}: covered range ends at ${s.coveredEnd}`)
    t.ok(data.summaryIndex > data.coveredEnd, `${s.name}: the agent's summary message (${data.summaryIndex}) follows the kept tail`)
    t.ok(data.agentSummary.length > 0, `${s.name}: the agent's summary is read from the transcript`)
    const { problems } = checkOwnProbes(s.probes, data.input.slice(0, data.coveredEnd))
    t.same(problems, [], problems.map((p) => `${p.id}: ${p.problem}`).join('\n'))
  }
})

t.test('own-compaction scorer: the agent summary and compactd (OpenAI, every size) are scored on every probe', { skip: ownCompactionSkip() }, async (t) => {
  const reports = await runOwnCompaction({ formats: ['openai'] })
  t.equal(reports.length, OWN_COMPACTIONS.length)
  for (const rep of reports) {
    const ids = rep.probes.map((p) => p.id).sort()
    const agent = rep.runs.find((r) => r.by === 'agent')
    t.ok(agent?.summary && agent.whole, `${rep.name}: the agent's summary and whole output are scored`)
    t.ok((agent?.summaryTokens ?? 0) > 0, `${rep.name}: the agent's summary has ${agent?.summaryTokens} tokens`)
    const compactd = rep.runs.filter((r) => r.by === 'compactd')
    t.ok(compactd.length >= 5, `${rep.name}: ${compactd.length} compactd runs`)
    for (const r of [agent!, ...compactd]) {
      t.notOk(r.error, `${rep.name} ${r.by} ${r.mode ?? ''} ${r.size}×: ${r.error ?? 'ok'}`)
      t.same(Object.keys(r.summary?.passed ?? {}).sort(), ids, `${rep.name} ${r.by} ${r.mode ?? ''} ${r.size}×: every probe scored on the summary`)
      t.same(Object.keys(r.whole?.passed ?? {}).sort(), ids, `${rep.name} ${r.by} ${r.mode ?? ''} ${r.size}×: every probe scored on the whole output`)
    }
    // Same summary size means about the same size: within 2% of the agent's.
    const same = compactd.find((r) => r.mode === 'summary-size' && r.size === 1)
    t.ok(same && Math.abs(same.summaryTokens! - agent!.summaryTokens!) <= agent!.summaryTokens! * 0.02, `${rep.name}: compactd's summary ${same?.summaryTokens} tokens vs the agent's ${agent?.summaryTokens}`)
  }
})
