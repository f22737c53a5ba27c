/**
 * The Findings section (src/engine/compaction/summarizers/findings-render.ts): its share of
 * the budget, its lines, its overflow into the action log, and what a handover holds of
 * the three classes of conversation it serves (test/helpers/findings-conversations.ts),
 * in every tool dialect and every wire format.
 */
import t from 'tap'
import { compact } from '../../../../src/engine/compaction/compact.ts'
import { estimateTokens, findingLines, findingLogLine, findingsShare, MIN_FINDINGS_BUDGET, renderFinding } from '../../../../src/engine/compaction/summarizers/findings-render.ts'
import { DEFAULT_COMPACT_OPTIONS } from '../../../../src/engine/compaction/types.ts'
import type { Finding } from '../../../../src/engine/facts/findings/index.ts'
import { IMPORTANCE } from '../../../../src/engine/facts/importance.ts'
import { FORMAT_NAMES, getAdapter, messageText, parseConversation, type CanonicalMessage, type MessageFormat } from '../../../../src/engine/messages/index.ts'
import { countConversation, tokenizerCounter } from '../../../../src/engine/tokens/count.ts'
import { codeInvestigation, debuggingSession, DIALECTS, researchSession, type FindingsConversation } from '../../../helpers/findings-conversations.ts'

const counter = tokenizerCounter('o200k_base')

const TABLE: Finding = {
  kind: 'values',
  position: 3,
  score: 4,
  title: 'Ranking',
  table: true,
  rows: [
    ['Rank', 'Queue', 'Score'],
    ['1', 'Celery', '8.7'],
    ['2', 'Hatchet', '7.9'],
    ['3', 'RQ', '7.4'],
  ],
}
const STATEMENT: Finding = { kind: 'statement', position: 5, score: 5, text: 'Found 3 backends that call `timezone.make_naive`: mysql, oracle and sqlite3.' }
const EVIDENCE: Finding = { kind: 'evidence', position: 2, score: 3, source: 'rg -n "make_naive" src', lines: ['src/mysql/ops.py:219: value = timezone.make_naive(value)', 'src/oracle/ops.py:497: value = timezone.make_naive(value)'] }

t.test('the share grows with the budget, and a tight budget gives none', async (t) => {
  t.equal(findingsShare(MIN_FINDINGS_BUDGET - 1), 0)
  t.equal(findingsShare(500), 0.12)
  t.ok(findingsShare(1000) > findingsShare(600))
  t.equal(findingsShare(2000), 0.24)
  t.equal(findingsShare(100_000), 0.3, 'capped')
})

t.test('a table is rendered whole, a statement as said, an output line with its source', async (t) => {
  const table = renderFinding(TABLE, false)
  for (const row of ['| 1 | Celery | 8.7 |', '| 2 | Hatchet | 7.9 |', '| 3 | RQ | 7.4 |']) t.match(table, row, 'every row')
  t.match(renderFinding(STATEMENT, false), /^- Found 3 backends/)
  t.match(renderFinding(EVIDENCE, false), /^- `rg -n "make_naive" src`: src\/mysql\/ops\.py:219: .* · src\/oracle/)
  t.notMatch(findingLogLine(TABLE), /\n/, 'one line in the log')
  t.match(findingLogLine(TABLE), /Celery, 8\.7; 2, Hatchet, 7\.9; 3, RQ, 7\.4/, 'with every row')
  t.match(findingLogLine(STATEMENT), /^- found: Found 3 backends/)
  t.match(findingLogLine(EVIDENCE), /^- rg -n "make_naive" src showed: /)
  t.ok(estimateTokens('한국어 텍스트') > estimateTokens('ascii text'), 'other scripts cost more tokens a character')
})

t.test('the best findings fill the share; the rest only fill what is left, and go to the log best first', async (t) => {
  const lines = findingLines([STATEMENT, TABLE, EVIDENCE], 600)
  t.equal(lines[0]!.priority, IMPORTANCE.keyFinding, 'the best one fits the share')
  t.ok(lines.some((l) => l.priority === IMPORTANCE.finding), 'one the share cannot hold waits for leftover room')
  t.ok(lines[0]!.logPriority > lines[1]!.logPriority && lines[1]!.logPriority > lines[2]!.logPriority, 'ranked in the log by evidence')
  t.ok(lines.every((l) => l.logPriority > IMPORTANCE.test), 'above passing tests and commands in the log')
  t.ok(findingLines([STATEMENT], MIN_FINDINGS_BUDGET - 1).every((l) => l.priority === IMPORTANCE.finding), 'no share under the minimum budget')
})

/** The conversation in each wire format, as a caller of that format sends it. */
function forms(c: FindingsConversation): { format: MessageFormat; messages: CanonicalMessage[] }[] {
  const canonical = parseConversation(c.messages, { format: 'openai' }).messages
  return [
    { format: 'openai', messages: canonical },
    ...FORMAT_NAMES.filter((f) => f !== 'openai').map((format) => {
      const s = getAdapter(format).serialize(canonical)
      return { format, messages: parseConversation(s.messages, { format, system: s.system }).messages }
    }),
  ]
}

async function handover(c: FindingsConversation, share: number, format: MessageFormat = 'openai') {
  const all = forms(c)
  const f = all.find((x) => x.format === format)!
  // One target for every format: the OpenAI form's count, as format-invariance.test.ts does.
  const target = Math.floor(countConversation(all[0]!.messages, counter).totalTokens * share)
  const r = await compact({ messages: f.messages, counter, options: { ...DEFAULT_COMPACT_OPTIONS, format, targetTokens: target, thresholdTokens: target, force: true } })
  const summary = r.summary ? messageText(r.messages[r.summary.index]!) : ''
  const findings = /### Findings\n([\s\S]*?)(?:\n\n###|$)/.exec(summary)?.[1] ?? ''
  return { summary, findings, output: r.messages.map(messageText).join('\n') }
}

t.test('code investigation: the Findings section states what was found, the log keeps the grep lines it rests on', async (t) => {
  for (const dialect of DIALECTS) {
    const c = codeInvestigation(dialect)
    const roomy = await handover(c, 0.25)
    t.match(roomy.summary, /### Original Task[\s\S]*### Findings[\s\S]*### Completed Work/, `${dialect}: after the task, before the artifact trail`)
    t.match(roomy.findings, 'Found 3 backends that call `timezone.make_naive`', `${dialect}: the agent's result, in its words`)
    t.match(roomy.summary, 'sqlite3/operations.py:248: value = timezone.make_naive', `${dialect}: the output line the result rests on`)
    for (const m of c.musings) t.notMatch(roomy.findings, m, `${dialect}: no musing`)
    const tight = await handover(c, 0.1)
    t.match(tight.summary, 'Found 3 backends', `${dialect}: at 10% it still reaches the summary`)
  }
})

t.test('research: the ranking table survives whole, with the corrections', async (t) => {
  for (const dialect of DIALECTS) {
    for (const share of [0.1, 0.25]) {
      const { summary } = await handover(researchSession(dialect), share)
      for (const row of [/Celery \| 24,800 \| BSD-3-Clause \| none \| 8\.7|Celery, 24,800, BSD-3-Clause, none, 8\.7/, /Hatchet \| 5,100 \| MIT \| \$150\/mo \| 7\.9|Hatchet, 5,100, MIT, \$150\/mo, 7\.9/, /RQ \| 9,700|RQ, 9,700/, /Dramatiq \| 4,300|Dramatiq, 4,300/]) {
        t.match(summary, row, `${dialect} at ${share * 100}%: row ${row.source.slice(0, 20)}`)
      }
      t.match(summary, '$150/mo → $180/mo', `${dialect} at ${share * 100}%: the correction`)
    }
  }
})

t.test('debugging: why one case fails and a similar one does not, and the log line that shows it', async (t) => {
  for (const dialect of DIALECTS) {
    const { summary } = await handover(debuggingSession(dialect), 0.1)
    t.match(summary, 'the difference comes from the `legacy` flag', `${dialect}: where the difference comes from`)
    t.match(summary, 'lenient_parse_date (fallback_for_legacy_rows)', `${dialect}: the log line it rests on`)
    t.notMatch(summary, 'drop the legacy path', `${dialect}: a question is left out`)
  }
})

t.test('the same handover in every wire format', async (t) => {
  for (const c of [codeInvestigation('claude-code'), researchSession('codex'), debuggingSession('openai')]) {
    for (const share of [0.1, 0.25]) {
      const texts = await Promise.all(FORMAT_NAMES.map(async (format) => (await handover(c, share, format)).summary))
      t.equal(new Set(texts).size, 1, `${c.name} at ${share * 100}%`)
    }
  }
})
