/** The agent's own statements of a result (src/engine/facts/findings/statements.ts): results in, musings and plans out. */
import t from 'tap'
import { ReuseIndex } from '../../../../src/engine/facts/findings/reuse.ts'
import { statementsOf, withoutLeadIn } from '../../../../src/engine/facts/findings/statements.ts'

const texts = (s: ReturnType<typeof statementsOf>) => s.map((x) => x.text)

t.test('results and explanations are statements', async (t) => {
  const index = new ReuseIndex(10)
  const found = texts(
    statementsOf(
      [
        'Found 3 backends that call `timezone.make_naive`: mysql, oracle and sqlite3.',
        'The value comes from `settings.USE_TZ_PASSTHROUGH`, which is read at import time.',
        '`parse_row_date` warns for 2024-02-30 whereas `lenient_parse_date` clamps the day with `min(d, 28)`.',
        'The correct price of the Team tier is $180/mo, not $150/mo.',
      ].join('\n'),
      2,
      false,
      index,
      new Map(),
    ),
  )
  t.equal(found.length, 4, 'each is a result')
})

t.test('musings, plans, questions, hedges and restatements are not', async (t) => {
  const index = new ReuseIndex(10)
  index.record('`cursor_wrapper` `make_naive` `settings.USE_TZ`', 8, 'prose')
  const found = statementsOf(
    [
      'Let me check whether `cursor_wrapper` converts too.',
      'Maybe the conversion also happens in `cursor_wrapper`?',
      'I will now edit `make_naive` in the mysql backend.',
      'It is possible that `settings.USE_TZ` is read twice.',
      'The issue says that `make_naive` drops the timezone.',
      'Reading conftest.py next.',
    ].join('\n'),
    2,
    true,
    index,
    new Map(),
  )
  t.same(texts(found), [])
})

t.test('root causes and decisions keep their own lines; a lead-in is not part of the finding', async (t) => {
  const index = new ReuseIndex(10)
  const found = texts(statementsOf('The root cause is that `make_naive` drops tzinfo.\nI decided to use `zoneinfo` instead of pytz.\nGreat! I can see that `adapt_value` returns None for empty strings.', 2, false, index, new Map()))
  t.same(found, ['`adapt_value` returns None for empty strings.'])
  t.equal(withoutLeadIn("I've confirmed that the plan touches more than `PgVector`."), 'The plan touches more than `PgVector`.')
  t.equal(withoutLeadIn('Perfect! Now I see that `get_source_file` raises on a directory.'), '`get_source_file` raises on a directory.')
})

t.test('a statement ranks by its reuse, its result words and how late it came', async (t) => {
  const index = new ReuseIndex(20)
  index.record('edit `make_naive` and `adapt_datetimefield_value`', 15, 'args')
  const [reused] = statementsOf('The mysql backend calls `make_naive` in `adapt_datetimefield_value`.', 3, false, index, new Map())
  const [unused] = statementsOf('The mysql backend calls `other_helper` in `other_adapter`.', 3, false, index, new Map())
  t.ok(reused, 'a statement the agent acted on later')
  t.equal(unused, undefined, 'no result word and nothing reused: not a finding')
  const [early] = statementsOf('This means `make_naive` is called twice.', 2, false, new ReuseIndex(20), new Map())
  const [late] = statementsOf('This means `make_naive` is called twice.', 18, false, new ReuseIndex(20), new Map())
  t.ok(late!.score > early!.score, 'the later understanding ranks higher')
})
