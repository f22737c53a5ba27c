/**
 * What the user asked to have done (issue 22): each user message's kind, its outcome, and
 * the request in progress, when the session opened with questions.
 */
import t from 'tap'
import { classifyMessages } from '../../../src/engine/facts/events.ts'
import { extractHandover, isStandingConstraint } from '../../../src/engine/facts/handover.ts'
import { requestKind, requestTrail } from '../../../src/engine/facts/requests.ts'
import { parseConversation } from '../../../src/engine/messages/index.ts'
import { DIALECTS, questionFirstSession } from '../../helpers/workflow-conversations.ts'
import { compactAllFormats } from '../../helpers/compact-all-formats.ts'

const kind = (s: string, acted = false) => requestKind(s, isStandingConstraint, acted)

t.test('requestKind: work, questions, approvals, constraints and context, in several languages', async (t) => {
  for (const s of ['Fix the flaky upload test.', 'Can you add a --since flag?', 'please update the README', '풀해서 데브랑 메인 최신화해줘', 'pr까지', 'テストを追加してください', '帮我修一下这个 bug 吧']) t.equal(kind(s), 'work', s)
  for (const s of ['what is the working directory?', 'Which branch is checked out', '작업중이던 브랜치는뭐임', '이동 가능함?', 'これは何ですか']) t.equal(kind(s), 'question', s)
  for (const s of ['ok', 'yes, go ahead', 'ok 開始', '응 해줘', 'LGTM', 'sounds good, do it']) t.equal(kind(s), 'approval', s)
  t.equal(kind('Never touch the migrations folder.'), 'constraint')
  t.equal(kind('raddit'), 'context', 'a bare word answering the agent')
  t.equal(kind('the folder is ~/src/raddit', true), 'work', 'a message the agent acted on (changed files, ran commands) is work')
  t.equal(kind('what does the cache do?', true), 'question', 'a question stays a question whatever the agent ran to answer it')
})

t.test('a session that opens with questions: the answers are outcomes, the later request is in progress, in every dialect', async (t) => {
  for (const dialect of DIALECTS) {
    const messages = parseConversation(questionFirstSession(dialect).messages, { format: 'openai' }).messages
    // The compacted range starts after the first user message, as in compact().
    const range = messages.slice(2)
    const facts = extractHandover(range, { preserveErrorDetails: true })
    const trail = facts.requests!
    t.match(trail.head, { outcome: 'The working directory is /home/dev/projects/ledger.', filesChanged: 0 }, `${dialect}: the first message's answer`)
    t.match(trail.requests, [
      { kind: 'question', text: 'which branch is checked out?', outcome: 'You are on release-2024-q3.' },
      { kind: 'work', text: /^Add a --since option/, filesChanged: 2 },
    ], dialect)
    t.match(trail.inProgress, { text: /^Add a --since option/ }, dialect)
    t.match(facts.currentWork, /^Add a --since option/, `${dialect}: working on the request, not the last question`)
  }
})

t.test('approvals continue the request before them, and name the proposal they accepted', async (t) => {
  const m = [
    { role: 'user', content: 'Register an issue for the chart squish when switching ranges.' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command: 'gh issue create --title "chart squish"' }) } }] },
    { role: 'tool', tool_call_id: 'c1', content: 'https://github.com/o/r/issues/49' },
    { role: 'assistant', content: 'Registered #49. I know the cause: shall I fix it now by resetting the price scale?' },
    { role: 'user', content: 'ok 開始' },
  ]
  const messages = parseConversation(m, { format: 'openai' }).messages
  const facts = extractHandover(messages, { preserveErrorDetails: true })
  const trail = requestTrail(classifyMessages(messages), facts.tools, isStandingConstraint)
  t.equal(trail.requests.at(-1)?.kind, 'approval')
  t.match(trail.inProgress, { text: /^Register an issue/ })
  t.equal(trail.approvedProposal, 'I know the cause: shall I fix it now by resetting the price scale?')
  t.match(facts.currentWork, /^I know the cause: shall I fix it now by resetting the price scale\? \(the agent's proposal, approved; asked: Register an issue/, 'not "Working on: ok 開始"')
})

t.test("a reply the harness evicted to cold storage is no outcome: the request's outcome is the agent's own last words, in every format", async (t) => {
  // The class: pi sessions whose older replies the harness replaced with its placeholder.
  const PLACEHOLDER = '[Compacted history content evicted to durable cold storage]'
  const base = questionFirstSession('claude').messages as { role: string; content?: unknown }[]
  // The answer to the second question, then the harness's placeholder in place of a later reply of that turn.
  const at = base.findIndex((m) => m.role === 'assistant' && m.content === 'You are on release-2024-q3.')
  t.ok(at > 0, 'the reply to replace is in the session')
  const messages = [...base.slice(0, at + 1), { role: 'assistant', content: PLACEHOLDER }, ...base.slice(at + 1)]
  const facts = extractHandover(parseConversation(messages, { format: 'openai' }).messages.slice(2), { preserveErrorDetails: true })
  const branch = facts.requests!.requests.find((r) => r.text === 'which branch is checked out?')!
  t.equal(branch.outcome, 'You are on release-2024-q3.', 'the outcome is what the agent said, not the placeholder')
  for (const run of await compactAllFormats(messages, 0.5)) t.notMatch(run.summary, /→ agent: \[Compacted history/, `${run.format}: no placeholder as an outcome`)
})
