/**
 * Use the room you are given (src/engine/compaction/planner.ts withRoom, issue 22): when the
 * head, the tail and the kept turns leave part of the target unused, the summary's budget
 * grows into it, up to maxSummaryTokens, and the event reports the room against the
 * summary's size. Measured with a summarizer that records its budget, on a generated
 * exploring session (readsSession) whose budget the rules cannot fill.
 */
import t from 'tap'
import { compact } from '../../../src/engine/compaction/compact.ts'
import { rulesSummarizer } from '../../../src/engine/compaction/summarizers/rules.ts'
import { DEFAULT_COMPACT_OPTIONS, type Summarizer } from '../../../src/engine/compaction/types.ts'
import { parseConversation } from '../../../src/engine/messages/index.ts'
import { countConversation, tokenizerCounter } from '../../../src/engine/tokens/count.ts'
import { cleanupSession, readsSession } from '../../helpers/noise-conversations.ts'

const counter = tokenizerCounter('o200k_base')
const messages = parseConversation(readsSession(), { format: 'openai' }).messages
const size = countConversation(messages, counter).totalTokens

/** The rules summarizer under the llm's name, recording the budget each call was given. */
function recording(budgets: number[]): Summarizer {
  return { name: 'llm', summarize: async (req) => (budgets.push(req.budgetTokens), rulesSummarizer.summarize(req)) }
}

async function run(targetTokens: number, maxSummaryTokens = DEFAULT_COMPACT_OPTIONS.maxSummaryTokens) {
  const budgets: number[] = []
  const res = await compact({ messages, counter, llm: recording(budgets), options: { ...DEFAULT_COMPACT_OPTIONS, format: 'openai', strategy: ['mask', 'llm', 'rules'], targetTokens, thresholdTokens: 0, maxSummaryTokens } })
  return { res, budget: budgets[0]! }
}

t.test('room left unused: the summary budget grows into it, up to maxSummaryTokens', async (t) => {
  const target = Math.floor(size * 0.6)
  const { res, budget } = await run(target)
  t.equal(res.strategy, 'llm')
  t.ok(budget > Math.floor(target * 0.15), `the budget (${budget}) is more than the 15% share (${Math.floor(target * 0.15)})`)
  t.ok(budget <= DEFAULT_COMPACT_OPTIONS.maxSummaryTokens, 'never over maxSummaryTokens')
  const { budget: capped } = await run(target, 300)
  t.ok(capped <= 300, `a smaller maxSummaryTokens caps it (${capped})`)
  t.ok(res.event.tokensAfter <= target, 'the output still fits')
})

t.test('no room left (the action log had to drop lines): the budget is the usual share', async (t) => {
  const tight = parseConversation(cleanupSession(), { format: 'openai' }).messages
  const target = Math.floor(countConversation(tight, counter).totalTokens * 0.1)
  const budgets: number[] = []
  const res = await compact({ messages: tight, counter, llm: recording(budgets), options: { ...DEFAULT_COMPACT_OPTIONS, format: 'openai', strategy: ['mask', 'llm', 'rules'], targetTokens: target, thresholdTokens: 0 } })
  t.match(res.summary?.text, /less important entries omitted/, 'the log was full')
  t.ok(budgets[0]! <= Math.floor(target * 0.15), `${budgets[0]} ≤ 15% of ${target}`)
})

t.test('the event reports the summary against its room', async (t) => {
  for (const share of [0.1, 0.25, 0.6]) {
    const target = Math.floor(size * share)
    const { res } = await run(target)
    const e = res.event
    t.equal(e.summaryRoomTokens, target - (e.tokensAfter - e.summaryTokens), `${share * 100}%: the target less the rest of the output`)
    t.ok(e.summaryTokens <= e.summaryRoomTokens, `${share * 100}%: the summary (${e.summaryTokens}) within its room (${e.summaryRoomTokens})`)
  }
  const untouched = await compact({ messages, counter, options: { ...DEFAULT_COMPACT_OPTIONS, format: 'openai', targetTokens: size + 100, thresholdTokens: 0 } })
  t.equal(untouched.event.summaryRoomTokens, 0, 'no summary, no room')
})
