/** The one rule for a user turn (src/engine/facts/user-turn.ts), shared by /compact's events and the sessions' exchanges. */
import t from 'tap'
import type { CanonicalMessage, CanonicalPart } from '../../../src/engine/messages/canonical.ts'
import { classifyMessages } from '../../../src/engine/facts/events.ts'
import { opensUserTurn, userTurnStarts } from '../../../src/engine/facts/user-turn.ts'
import { groupExchanges } from '../../../src/engine/sessions/index.ts'

let idx = 0
const msg = (role: CanonicalMessage['role'], parts: CanonicalPart[]): CanonicalMessage => ({ role, parts, index: idx++, format: 'openai', raw: {} })
const text = (s: string): CanonicalPart => ({ type: 'text', text: s })
const call = (id: string, command: string): CanonicalPart => ({ type: 'tool-call', id, name: 'bash', argsText: JSON.stringify({ command }) })
const result = (callId: string, s: string): CanonicalPart => ({ type: 'tool-result', callId, text: s, isError: false })

t.test('the human opens a turn; tool results, harness text and a bare "continue" do not', async (t) => {
  const messages = [
    msg('system', [text('You are an agent')]),
    msg('user', [text('Fix the failing test in src/parse.ts')]), // 1: a turn
    msg('assistant', [call('a', 'npm test')]),
    msg('tool', [result('a', 'ok')]),
    msg('user', [text('<system-reminder>\nThe TodoWrite tool has not been used recently.\n</system-reminder>')]), // 4: harness
    msg('assistant', [text('Tests pass.')]),
    msg('user', [text('continue')]), // 6: a bare resume
    msg('user', [text('[Request interrupted by user]')]), // 7: an interrupt
    msg('user', [text('계속진행')]), // 8: a resume in Korean
    msg('user', [text('thanks, now update the docs\n<system-reminder>\nreminder\n</system-reminder>')]), // 9: words with a reminder appended
  ]
  t.same([...userTurnStarts(messages)], [1, 9])
  t.same(
    groupExchanges(messages).map((e) => e.messages.map((m) => m.index - messages[0]!.index)),
    [[1, 2, 3, 4, 5, 6, 7, 8], [9]],
    'harness messages stay with the work they interrupt',
  )
})

t.test('an earlier summary opens a turn: it stands for the turns it replaced', async (t) => {
  const messages = [
    msg('user', [text('This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\n1. Primary Request and Intent:\n   The user asked to add a cache.\n')]),
    msg('assistant', [call('a', 'ls')]),
    msg('tool', [result('a', 'src')]),
  ]
  const events = classifyMessages(messages)
  t.ok(events.some((e) => e.kind === 'earlier-summary' && opensUserTurn(e)))
  t.same([...userTurnStarts(messages, events)], [0])
})

t.test("a text-only agent's observations are not turns (SWE-agent sends them as user messages)", async (t) => {
  const messages = [
    msg('user', [text('<pr_description>\nFix the overflow in numpy_handler\n</pr_description>')]),
    msg('assistant', [text('Let me look.\n```\nfind_file "numpy_handler.py"\n```')]),
    msg('user', [text('Found 1 matches for "numpy_handler.py" in /repo:\n/repo/pydicom/numpy_handler.py')]),
    msg('assistant', [text('```\nopen pydicom/numpy_handler.py\n```')]),
    msg('user', [text('[File: /repo/pydicom/numpy_handler.py (372 lines total)]\n1:import numpy')]),
  ]
  t.same([...userTurnStarts(messages)], [0])
  t.equal(groupExchanges(messages).length, 1, 'each command stays with its observation')
})

t.test('a message that answers a call and adds words stays with the call', async (t) => {
  // Anthropic puts the human's next words beside the tool results in one user message.
  const messages = [
    msg('user', [text('Run the tests')]),
    msg('assistant', [call('a', 'npm test')]),
    msg('user', [result('a', 'ok'), text('good, now commit')]),
  ]
  t.same([...userTurnStarts(messages)], [0, 2], 'its words are a turn')
  t.equal(groupExchanges(messages).length, 1, 'but the exchange does not split a call from its result')
})
