/** Tables and lists of values the agent wrote (src/engine/facts/findings/values.ts): kept whole, plans and traces left out. */
import t from 'tap'
import { blockKey, valueBlocksOf } from '../../../../src/engine/facts/findings/values.ts'

const RANKING = ['### Ranking', '', '| Rank | Queue | Score |', '|:---:|---|---:|', '| 1 | **Celery** | 8.7 |', '| 2 | Hatchet | 7.9 |', '| 3 | RQ | 7.4 |', '| 4 | Dramatiq | 6.1 |'].join('\n')

t.test('a table: every row, its heading as title, emphasis and separators dropped', async (t) => {
  const [b] = valueBlocksOf(`Scores below.\n\n${RANKING}\n\nDone.`, 7)
  t.ok(b?.table)
  t.equal(b!.title, 'Ranking')
  t.same(b!.rows, [['Rank', 'Queue', 'Score'], ['1', 'Celery', '8.7'], ['2', 'Hatchet', '7.9'], ['3', 'RQ', '7.4'], ['4', 'Dramatiq', '6.1']])
  t.equal(b!.position, 7)
  t.ok(b!.numeric > 0.5)
  t.same(valueBlocksOf('| a | b |\n|---|---|\n| 1 | 2 |', 0), [], 'a header and one row is not a table of results')
})

t.test('a list of values: corrections, prices, versions; a plan is not one', async (t) => {
  const [fix] = valueBlocksOf('Fact-check corrections:\n- Hatchet Team tier: $150/mo → $180/mo\n- Dramatiq stars: 4,300 → 4,450\n- RQ license: BSD-2-Clause (confirmed)', 3)
  t.equal(fix?.title, 'Fact-check corrections')
  t.equal(fix!.rows.length, 3, 'every item')
  t.same(valueBlocksOf('Plan:\n1. Read the file\n2. Fix the bug\n3. Run the tests', 3), [], 'steps carry no value')
  t.same(valueBlocksOf('Let me trace through it:\n- Process `1`: found at index 0, `last = 2`\n- Process `2`: found at index 1, `last = 0`', 3), [], 'a trace under a musing is not a result')
  t.same(valueBlocksOf('```\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n```', 0), [], 'code blocks are not tables the agent wrote')
})

t.test('a table rewritten with the same header is the same block', async (t) => {
  const [a] = valueBlocksOf(RANKING, 1)
  const [b] = valueBlocksOf(RANKING.replace('8.7', '8.9'), 9)
  t.equal(blockKey(a!), blockKey(b!))
})
