/**
 * The deliverable (issue 22): the agent's answer to a review, analysis or research request,
 * found in the events or in the messages alone, and its structured form.
 */
import t from 'tap'
import { asksForAnswer, deliverableOf, fitDeliverable, isAnswerMessage, structuredForm, turnReports } from '../../../src/engine/facts/deliverable.ts'
import { classifyMessages } from '../../../src/engine/facts/events.ts'
import { extractHandover } from '../../../src/engine/facts/handover.ts'
import { parseConversation } from '../../../src/engine/messages/index.ts'
import { counter } from '../../helpers/compact-all-formats.ts'
import { DIALECTS, reviewSession } from '../../helpers/workflow-conversations.ts'

const count = (s: string) => counter.text(s)

t.test('asksForAnswer: review, analysis, research and questions, in several languages; work requests do not', async (t) => {
  for (const s of ['Review this plan', 'Can you analyse why the build is slow', 'research agent IDEs and rank them', 'what does parse() return for empty input?', '왜 뒤쳐졌는지 분석해봐', '조사해서 순위 매겨줘', 'この変更をレビューして', '比较这两个方案']) t.ok(asksForAnswer(s), s)
  for (const s of ['Fix the flaky test', 'Add a --since option to export', 'pr 올려줘', 'Implement the cache']) t.notOk(asksForAnswer(s), s)
})

t.test('the review answering the first message is the deliverable, in every dialect', async (t) => {
  for (const dialect of DIALECTS) {
    const messages = parseConversation(reviewSession(dialect).messages, { format: 'openai' }).messages
    const facts = extractHandover(messages, { preserveErrorDetails: true })
    const d = deliverableOf(facts.reports ?? [], 'Review the retry logic in src/net.')
    t.match(d, { readOnly: true, text: /^## Review: retry and backoff/ }, dialect)
    t.match(d?.request, /^Review the retry logic in src\/net\./, `${dialect}: the request it answers`)
    const index = messages.findIndex((m) => m.role === 'assistant' && m.parts.some((p) => p.type === 'text' && p.text.startsWith('## Review')))
    t.ok(isAnswerMessage(messages, index), `${dialect}: read from the messages alone too`)
    t.notOk(isAnswerMessage(messages, index - 1), `${dialect}: the call before it is not`)
  }
})

t.test('a long report after a work request that changed files is not a deliverable', async (t) => {
  const m = [
    { role: 'user', content: 'Implement the cache layer.' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'Write', arguments: JSON.stringify({ file_path: '/repo/src/cache.py', content: 'x = 1\n' }) } }] },
    { role: 'tool', tool_call_id: 'c1', content: 'File created successfully' },
    { role: 'assistant', content: `## Done\n\n${'The cache layer stores entries by key and evicts the oldest. '.repeat(15)}` },
    { role: 'user', content: 'thanks' },
  ]
  const messages = parseConversation(m, { format: 'openai' }).messages
  const reports = turnReports(classifyMessages(messages), extractHandover(messages, { preserveErrorDetails: true }).tools)
  t.equal(reports.length, 1)
  t.equal(deliverableOf(reports, ''), undefined)
  t.notOk(isAnswerMessage(messages, 3))
})

t.test('structuredForm keeps the lead, headings, labelled lines, lists and tables; fitDeliverable degrades in steps', async (t) => {
  const text = '# Ranking\n\nThree tools were compared on five criteria.\n\nLong prose about the method that nobody needs to keep in a summary.\n\n**Winner:** Orca\n\n| # | Tool | Score |\n|---|---|---|\n| 1 | Orca | 8.7 |\n| 2 | Superset | 8.1 |\n\nMore prose after the table.\n\n- Orca is the most stable\n\n```\ncode\n```'
  t.equal(structuredForm(text), '# Ranking\nThree tools were compared on five criteria.\n**Winner:** Orca\n| # | Tool | Score |\n|---|---|---|\n| 1 | Orca | 8.7 |\n| 2 | Superset | 8.1 |\n- Orca is the most stable')
  t.equal(fitDeliverable(text, 1000, count), text, 'whole when it fits')
  t.match(fitDeliverable(text, count(structuredForm(text)) + 10, count), /Superset \| 8\.1 \|[\s\S]*\(prose paragraphs left out\)$/, 'else its structured form')
  const cut = fitDeliverable(text, 30, count)
  t.match(cut, /^# Ranking\n[\s\S]*\(… \d+ more lines of the answer left out\)$/, 'else its first lines')
  t.ok(count(cut) <= 30, 'within the room')
})
