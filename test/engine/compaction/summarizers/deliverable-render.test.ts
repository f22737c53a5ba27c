/**
 * The deliverable in the summary (issue 22): a review request answered with a long
 * structured review keeps that review, whole or in its structured form, in every format,
 * whether it lands in the summarized range or among the kept messages.
 */
import t from 'tap'
import { handoverItems } from '../../../../src/engine/compaction/summarizers/rules-render.ts'
import { DELIVERABLE_HEADING } from '../../../../src/engine/facts/deliverable.ts'
import { detectEarlierSummary } from '../../../../src/engine/facts/earlier-summary.ts'
import { extractHandover } from '../../../../src/engine/facts/handover.ts'
import { parseConversation } from '../../../../src/engine/messages/index.ts'
import { compactAllFormats, counter } from '../../../helpers/compact-all-formats.ts'
import { DIALECTS, reviewSession } from '../../../helpers/workflow-conversations.ts'

const section = (summary: string) => {
  const at = summary.indexOf(DELIVERABLE_HEADING)
  if (at < 0) return undefined
  const end = summary.indexOf('\n### ', at + DELIVERABLE_HEADING.length)
  return summary.slice(at, end < 0 ? undefined : end)
}

t.test('a review deep in the compacted range: its own section, with the verdict and every finding, said once', async (t) => {
  for (const dialect of DIALECTS) {
    const runs = await compactAllFormats(reviewSession(dialect, 24).messages, 0.25)
    for (const run of runs) {
      const s = section(run.summary)
      t.ok(s, `${dialect}/${run.format}: the section`)
      t.match(s, 'Asked: "Review the retry logic in src/net.', `${dialect}/${run.format}: the request it answers`)
      t.match(s, '**Verdict:** not safe to ship yet', `${dialect}/${run.format}: the verdict`)
      for (const finding of ['not idempotent', 'delay can be 0 ms', 'Retry-After header is read but ignored', '`MAX_ATTEMPTS` is 7']) t.match(s, finding, `${dialect}/${run.format}: ${finding}`)
      t.notMatch(run.summary, /agent reported: ## Review: retry and backoff/, `${dialect}/${run.format}: the log does not repeat it clipped`)
    }
    t.equal(new Set(runs.map((r) => section(r.summary))).size, 1, `${dialect}: the same section in every format`)
  }
})

t.test('a review among the kept messages keeps its structured form, not its first sentence', async (t) => {
  for (const dialect of DIALECTS) {
    const runs = await compactAllFormats(reviewSession(dialect).messages, 0.25)
    for (const run of runs) {
      for (const finding of ['not safe to ship', 'not idempotent', 'Retry-After header is read but ignored', 'full jitter with a floor']) t.match(run.output, finding, `${dialect}/${run.format}: ${finding}`)
    }
  }
})

t.test('a later round keeps the answer an earlier compactd summary held, and its repository state as knowledge', async (t) => {
  const [first] = await compactAllFormats(reviewSession('codex', 24).messages, 0.25)
  const earlier = detectEarlierSummary(first!.summary)
  t.match(earlier?.sections.answer, /^Asked: "Review the retry logic[\s\S]*> \*\*Verdict:\*\* not safe to ship yet/, 'parsed as the answer, not as sections of its own')
  t.notOk(earlier?.sections.other.some((o) => /Findings|Recommendations/.test(o.title)), "the answer's headings are not sections")
  const facts = extractHandover(parseConversation([{ role: 'user', content: first!.summary }, { role: 'assistant', content: 'Continuing.' }], { format: 'openai' }).messages, { preserveErrorDetails: true })
  const items = handoverItems(facts, 'Review the retry logic in src/net.', 1200, false, (s) => counter.text(s)).filter((i) => i.section === 'answer')
  t.equal(items.length, 1)
  t.match(items[0]!.text, /> \*\*Verdict:\*\* not safe to ship yet[\s\S]*\(kept from the earlier summary\)$/)

  const withRepo = detectEarlierSummary('## Session Summary (Compaction Round 1)\n\n### Repository State\n- commit 9c41e7d on fix/x: Fix it (1 file, +1/-1)\n- now: on branch fix/x\n')
  t.same(withRepo?.sections.knowledge, ['commit 9c41e7d on fix/x: Fix it (1 file, +1/-1)', 'now: on branch fix/x'])
})
