/**
 * "No pending task" is not a task (src/engine/facts/no-task.ts): the predicate, then a
 * generated pi session continued after its own compaction (noPendingTask), compacted in
 * every format: no open checkbox says there is nothing to do, the real follow-up stays.
 */
import t from 'tap'
import { compact } from '../../../src/engine/compaction/compact.ts'
import { DEFAULT_COMPACT_OPTIONS } from '../../../src/engine/compaction/types.ts'
import { saysNoTask } from '../../../src/engine/facts/no-task.ts'
import { FORMAT_NAMES, getAdapter, parseConversation } from '../../../src/engine/messages/index.ts'
import { countConversation, tokenizerCounter } from '../../../src/engine/tokens/count.ts'
import { noPendingTask } from '../../helpers/noise-conversations.ts'

t.test('what says there is no task', async (t) => {
  for (const s of [
    'No pending task — last user report (autoscale squish) was fixed and merged in PR #52. Awaiting next instruction.',
    '- [ ] No pending tasks.',
    'None.',
    'None explicitly requested beyond the current work.',
    'Nothing left to do',
    '**Nothing else pending**',
    'All tasks are done.',
    'There are no remaining steps.',
    '남은 작업 없음',
  ])
    t.ok(saysNoTask(s), s)
  for (const s of ['Nothing left but the docs update', 'None of the tests pass yet — fix them', 'No new tests for the parser yet: add them', 'Add a --since flag', 'Follow-up: add a legend (issue #48)'])
    t.notOk(saysNoTask(s), s)
})

t.test('noPendingTask: no open checkbox says there is nothing to do; the follow-up is pending; the state keeps the news', async (t) => {
  const counter = tokenizerCounter('o200k_base')
  const openai = parseConversation(noPendingTask(), { format: 'openai' }).messages
  const size = countConversation(openai, counter).totalTokens
  for (const share of [0.25, 0.5]) {
    const texts = new Set<string>()
    for (const format of FORMAT_NAMES) {
      const wire = getAdapter(format).serialize(openai)
      const messages = format === 'openai' ? openai : parseConversation(wire.messages, { format, ...(wire.system !== undefined ? { system: wire.system } : {}) }).messages
      const res = await compact({ messages, counter, options: { ...DEFAULT_COMPACT_OPTIONS, format, targetTokens: Math.floor(size * share), thresholdTokens: 0 } })
      texts.add(res.summary?.text ?? '')
    }
    t.equal(texts.size, 1, `${share * 100}%: one summary text in every format`)
    const text = [...texts][0]!
    t.notMatch(text, /\[ \] (?:No pending|None|Nothing left)/i, `${share * 100}%: no "nothing to do" checkbox`)
    if (/chart0\.ts \| edited/.test(text)) {
      // The summary covers the todo that completed it and the edit: it is done, not pending.
      t.match(text, /Done in the plan: Add the MA legend/, `${share * 100}%: the follow-up, done later, says so`)
      t.notMatch(text, /\[ \] Follow-up: add a legend/, `${share * 100}%: and is no open checkbox`)
    } else t.match(text, /\[ \] Follow-up: add a legend for the moving averages/, `${share * 100}%: the real follow-up is pending`)
    t.match(text, /merged in PR #52/, `${share * 100}%: what the line said of the state is kept`)
  }
})
