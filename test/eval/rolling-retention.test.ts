/**
 * The rolling summary's retention measure (issue 22, test/eval/rolling-retention.ts) runs
 * on the fixtures: every fixture is either measured or reported as never overflowing the
 * window, each measured one has evicted messages, facts, a retention in [0, 1] and a
 * summary within its budget. No retention level is asserted: the script reports it.
 * Skipped without ../shared/fixtures.
 */
import t from 'tap'
import { conversationsSkip, fixtureFiles } from '../helpers/fixtures.ts'
import { FACT_KINDS, measureAll } from './rolling-retention.ts'

t.test('rolling retention: measured per fixture, a rate in [0, 1], within the budget', { skip: conversationsSkip() }, async (t) => {
  const report = measureAll()
  t.equal(report.rows.length + report.neverEvicted.length, fixtureFiles().length, 'every fixture measured or left out')
  t.ok(report.rows.length > 0, `${report.rows.length} fixture(s) measured`)
  for (const r of report.rows) {
    t.ok(r.evicted > 0 && r.updates > 0, `${r.fixture}: ${r.evicted} evicted, ${r.updates} update(s)`)
    const rate = r.facts === 0 ? 1 : r.kept / r.facts
    t.ok(rate >= 0 && rate <= 1, `${r.fixture}: retention ${rate.toFixed(2)} in [0, 1]`)
    t.equal(FACT_KINDS.reduce((n, k) => n + r.byKind[k][1], 0), r.facts, `${r.fixture}: kinds add up`)
    t.ok(r.maxTokens <= r.budget, `${r.fixture}: summary ${r.maxTokens} ≤ budget ${r.budget}`)
  }
})
