/** The continuation block (src/engine/sessions/continuation.ts) and the llm mode's prompt (prompt.ts). */
import t from 'tap'
import { BACKGROUND_AGENT_PROMPT, continuationOf, emptySummary, formatExchangesForPrompt, renderContinuationPrompt, SECTION_TITLES, updateSummary, type Exchange } from '../../../src/engine/sessions/index.ts'
import { call, counter, fixExchange, HOUR, iso, msg, result, T0, text } from './helpers.ts'

t.test('update fills the continuation block (seed 003)', async (t) => {
  const ex2: Exchange = {
    messages: [
      msg('user', [text('Now add refresh tokens to the auth module')], iso(T0 + HOUR)),
      msg('assistant', [text('I will keep refresh tokens in HttpOnly cookies instead of localStorage. Next, I will write the tests for the refresh flow in test/refresh.test.ts.'), call('w1', 'write_file', { path: 'src/auth/refresh.ts', content: 'export const x = 1\n' })], iso(T0 + HOUR)),
      msg('tool', [result('w1', 'ok')], iso(T0 + HOUR)),
    ],
  }
  const res = updateSummary({ doc: emptySummary(), exchanges: [fixExchange(T0), ex2], now: T0 + 2 * HOUR, budgetTokens: 10_000, counter })
  const c = continuationOf(res.doc)
  t.equal(c.currentTask, 'Now add refresh tokens to the auth module')
  t.match(c.pendingSteps.join('\n'), /write the tests for the refresh flow/)
  t.equal(c.relevantFiles[0], 'src/auth/refresh.ts')
  t.ok(c.relevantFiles.includes('src/auth/jwt.ts'))
  t.equal(c.completedSteps.length, 2)
  t.same(
    c.keyDecisions,
    ['The root cause is that verifyToken in src/auth/jwt.ts returns undefined for expired tokens instead of throwing TokenExpiredError.', 'I will keep refresh tokens in HttpOnly cookies instead of localStorage.'],
    'the root cause and a stated choice, not the plan sentences',
  )
  const prompt = renderContinuationPrompt(c)
  t.match(prompt, /^\[Previous Session Context\]\nCurrent task: Now add refresh tokens/)
  t.match(prompt, /\nRelevant files: src\/auth\/refresh\.ts, /)

  const bg = BACKGROUND_AGENT_PROMPT(res.text, formatExchangesForPrompt([ex2], counter))
  t.match(bg, /Current summary:\n## Previously in This Session/)
  t.match(bg, /Newly evicted exchanges to add:\n### Exchange 1 \(2026-06-12 13:00Z, ~\d+ tokens\)/)
  for (const title of Object.values(SECTION_TITLES)) t.match(bg, `## ${title}\n1. Item`)
  t.match(bg, /10000-token budget/)
})
