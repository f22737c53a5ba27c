/** The summary document's text form (src/engine/sessions/document.ts): render/parse round trips, hand-written summaries. */
import t from 'tap'
import { continuationOf, parseSummary, renderContinuationPrompt, renderSummary, SECTION_KEYS, updateSummary } from '../../../src/engine/sessions/index.ts'
import { counter, countText, DAY, docWith, fixExchange, HOUR, iso, item, T0 } from './helpers.ts'

t.test('render/parse round trip', async (t) => {
  const doc = docWith({
    session: [
      item('Asked "add rate limiting"; edited src/app.ts (replaced `a` with `b`)', T0 - HOUR, { tokens: 3400, importance: 'high', kind: 'feature', files: ['src/app.ts', 'docs/my notes, v2.md'] }),
      item('Debugged the flaky (sometimes) test', T0 - 2 * HOUR, { tokens: 812, importance: 'low', kind: 'debug', since: iso(T0 - 3 * HOUR) }),
    ],
    yesterday: [item('Fixed the login redirect', T0 - 2 * DAY, { tokens: 12_000, importance: 'medium', kind: 'fix' })],
    week: [item('Chose Kysely over Prisma', T0 - 10 * DAY, { tokens: 0, importance: 'high', kind: 'decision', since: iso(T0 - 11 * DAY) })],
  })
  for (const k of SECTION_KEYS) doc.sections[k].sort((a, b) => Date.parse(a.at) - Date.parse(b.at))
  doc.continuation = {
    currentTask: 'Add rate limiting to the API',
    completedSteps: ['wired the plugin', 'wrote tests, all green'],
    pendingSteps: ['document the limits'],
    keyDecisions: ['limits per API key; IP in open mode'],
    relevantFiles: ['src/app.ts', 'src/plugins/rate-limit.ts'],
  }
  const text = renderSummary(doc)
  t.match(text, /^## Previously in This Session\n1\. /)
  t.match(text, /Debugged the flaky \(sometimes\) test \(2026-06-12 09:00-10:00Z, ~812 tokens\)/)
  t.match(text, /## Yesterday\n1\. Fixed the login redirect \(~12k tokens\)/)
  t.match(text, /## This Week\n1\. Chose Kysely over Prisma \(Mon-Tue\) /)
  t.match(text, /## Continuation\nCurrent task: Add rate limiting/)
  const back = parseSummary(text, T0 + 5 * DAY)
  t.same(back, doc, 'parse(render(doc)) equals doc')
  t.equal(renderSummary(back), text)
  t.same(continuationOf(back), doc.continuation)
  t.notMatch(renderSummary(doc, { meta: false }), /<!--/, 'display form has no comments')
  t.ok(countText(renderSummary(doc, { meta: false })) < countText(text))
})

t.test('a hand-written summary parses and the next update builds on it', async (t) => {
  const hand = `# My notes

## Previously in This Session
- Set up the Express server in src/server.ts
- **Decided** to use PostgreSQL through Kysely (2026-06-12 08:00Z, ~4k tokens)
1) Implemented comprehensive error handling using Result<T> pattern
   with OK() and ERR() macros for all failure cases (~12k tokens)

## Yesterday
* Fixed the flaky login test

A loose line without any marker.

## Continuation
Current task: add rate limiting
Pending: write tests; update docs
Relevant files: src/server.ts, src/db.ts
`
  const doc = parseSummary(hand, T0)
  const s = doc.sections.session
  t.equal(s.length, 3, 'two bullets and the wrapped item (the title is a heading)')
  t.ok(s.every((i) => i.importance === 'medium'))
  const pg = s.find((i) => i.text.includes('PostgreSQL'))!
  t.equal(pg.at, '2026-06-12T08:00:00.000Z', 'visible timestamp is read')
  t.equal(pg.tokens, 4000)
  const wrapped = s.find((i) => i.text.includes('Result<T>'))!
  t.match(wrapped.text, /Result<T> pattern with OK\(\) and ERR\(\) macros for all failure cases$/)
  t.equal(wrapped.tokens, 12_000)
  // Undated lines take the newest dated item's time (now only when none is dated): a
  // hand-written line never makes the session look active later than it was.
  t.equal(wrapped.at, '2026-06-12T08:00:00.000Z', 'an undated item: the newest dated time')
  t.ok([...s, ...doc.sections.yesterday].every((i) => i.at === '2026-06-12T08:00:00.000Z'))
  t.equal(parseSummary('## Yesterday\n1. Hand-written note\n', T0).sections.yesterday[0]!.at, iso(T0), 'nothing dated: now')
  t.same(s.find((i) => i.text.includes('Express'))!.files, ['src/server.ts'])
  t.same(doc.sections.yesterday.map((i) => i.text), ['Fixed the flaky login test', 'A loose line without any marker.'])
  t.equal(doc.continuation.currentTask, 'add rate limiting')
  t.same(doc.continuation.pendingSteps, ['write tests', 'update docs'])
  t.same(doc.continuation.relevantFiles, ['src/server.ts', 'src/db.ts'])

  const res = updateSummary({ doc, exchanges: [fixExchange(T0 + HOUR)], now: T0 + 2 * HOUR, budgetTokens: 10_000, counter })
  for (const old of ['Express server', 'PostgreSQL', 'Result<T>', 'flaky login', 'loose line']) t.match(res.text, old, `kept: ${old}`)
  t.equal(res.doc.sections.session.length, 4)
  t.match(res.doc.sections.session[3]!.text, /src\/auth\/jwt\.ts/)
  t.match(res.doc.continuation.currentTask, /expired-token test fails/)
  t.equal(res.doc.continuation.relevantFiles[0], 'src/auth/jwt.ts', 'new files first')
  t.ok(res.doc.continuation.relevantFiles.includes('src/db.ts'), 'old files kept')
  t.same(res.doc.sections.yesterday.length, 2)
  t.equal(renderSummary(parseSummary(res.text, T0)), res.text, 'the rebuilt summary is in the canonical form')

  const seed003 = parseSummary('[Previous Session Context]\nCurrent task: ship it\nCompleted: a, b\nPending: c\nKey decisions: x; y\nRelevant files: f.ts, g.ts\n', T0)
  t.same(continuationOf(seed003), { currentTask: 'ship it', completedSteps: ['a', 'b'], pendingSteps: ['c'], keyDecisions: ['x', 'y'], relevantFiles: ['f.ts', 'g.ts'] })
  t.equal(renderContinuationPrompt(continuationOf(seed003)), '[Previous Session Context]\nCurrent task: ship it\nCompleted: a, b\nPending: c\nKey decisions: x; y\nRelevant files: f.ts, g.ts')
})
