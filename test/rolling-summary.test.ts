/**
 * Rolling session summary (seed 000's background agent, pure part): aging at exact
 * boundaries, compression order, the hard budget, render/parse round trips,
 * hand-written summaries, exchange lines, and a real pi session fed in batches.
 */
import fc from 'fast-check'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { parseConversation } from '../src/engine/messages/index.ts'
import type { CanonicalMessage, CanonicalPart } from '../src/engine/messages/canonical.ts'
import { heuristicCounter } from '../src/engine/tokens/count.ts'
import { extractFacts } from '../src/engine/compaction/extract/facts.ts'
import {
  BACKGROUND_AGENT_PROMPT,
  SECTION_KEYS,
  SECTION_TITLES,
  SESSION_MAX_AGE_MS,
  WEEK_MAX_AGE_MS,
  YESTERDAY_MAX_AGE_MS,
  ageSummary,
  continuationOf,
  emptySummary,
  exchangeTime,
  formatExchangesForPrompt,
  groupExchanges,
  parseSummary,
  renderContinuationPrompt,
  renderSummary,
  sectionForAge,
  summarizeExchange,
  updateSummary,
  type Exchange,
  type SectionKey,
  type SummaryDocument,
  type SummaryItem,
} from '../src/engine/sessions/rolling-summary.ts'
import { openaiConversationArb } from './helpers/conversation-arbitraries.ts'

const counter = heuristicCounter(false)
const countText = (s: string) => Math.ceil(counter.text(s) * counter.margin)
const HOUR = 3_600_000
const DAY = 24 * HOUR
const T0 = Date.parse('2026-06-12T12:00:00.000Z') // a Friday
const iso = (ms: number) => new Date(ms).toISOString()

// ---------------------------------------------------------------------------
// Helpers

let idx = 0
function msg(role: CanonicalMessage['role'], parts: CanonicalPart[], timestamp?: string): CanonicalMessage {
  const m: CanonicalMessage = { role, parts, index: idx++, format: 'openai', raw: {} }
  if (timestamp) m.timestamp = timestamp
  return m
}
const text = (s: string): CanonicalPart => ({ type: 'text', text: s })
const call = (id: string, name: string, args: unknown): CanonicalPart => ({ type: 'tool-call', id, name, argsText: JSON.stringify(args) })
const result = (callId: string, s: string, isError = false): CanonicalPart => ({ type: 'tool-result', callId, text: s, isError })

function item(text: string, at: number, extra: Partial<SummaryItem> = {}): SummaryItem {
  return { text, at: iso(at), tokens: 1200, importance: 'medium', ...extra }
}

function docWith(sections: Partial<Record<SectionKey, SummaryItem[]>>): SummaryDocument {
  const doc = emptySummary()
  for (const key of SECTION_KEYS) doc.sections[key] = sections[key] ?? []
  return doc
}

function where(doc: SummaryDocument, needle: string): SectionKey | undefined {
  return SECTION_KEYS.find((k) => doc.sections[k].some((i) => i.text.includes(needle)))
}

/** A realistic exchange: failing test run, the cause stated, an edit, the test passing. */
function fixExchange(start: number, n = 0): Exchange {
  const ts = (k: number) => iso(start + k * 60_000)
  return {
    messages: [
      msg('user', [text(`The expired-token test fails again (${n}), please fix it without changing the public API`)], ts(0)),
      msg('assistant', [text('Let me run the auth tests first.'), call(`c1_${n}`, 'bash', { command: 'npm test -- test/auth.test.ts' })], ts(1)),
      msg(
        'tool',
        [result(`c1_${n}`, 'FAIL test/auth.test.ts\n  ✕ rejects expired tokens (12 ms)\nTypeError: Cannot read properties of undefined (reading \'exp\')\n    at verifyToken (src/auth/jwt.ts:42:18)\nProcess exited with code 1')],
        ts(2),
      ),
      msg(
        'assistant',
        [
          text('The root cause is that verifyToken in src/auth/jwt.ts returns undefined for expired tokens instead of throwing TokenExpiredError.'),
          call(`c2_${n}`, 'str_replace_based_edit_tool', { command: 'str_replace', path: 'src/auth/jwt.ts', old_str: 'if (expired) return undefined', new_str: 'if (expired) throw new TokenExpiredError(payload.exp)' }),
        ],
        ts(3),
      ),
      msg('tool', [result(`c2_${n}`, 'The file src/auth/jwt.ts has been edited.')], ts(4)),
      msg('assistant', [call(`c3_${n}`, 'bash', { command: 'npm test -- test/auth.test.ts' })], ts(5)),
      msg('tool', [result(`c3_${n}`, 'PASS test/auth.test.ts\n  ✓ rejects expired tokens\nProcess exited with code 0')], ts(6)),
      msg('assistant', [text('Fixed: expired tokens now throw TokenExpiredError, and the auth tests pass.')], ts(7)),
    ],
  }
}

// ---------------------------------------------------------------------------
// Aging

t.test('aging boundaries: inclusive on the younger side, exact to the millisecond', async (t) => {
  t.equal(sectionForAge(-5 * DAY), 'session', 'future items (clock skew) stay in the session')
  t.equal(sectionForAge(0), 'session')
  t.equal(sectionForAge(SESSION_MAX_AGE_MS), 'session')
  t.equal(sectionForAge(SESSION_MAX_AGE_MS + 1), 'yesterday')
  t.equal(sectionForAge(YESTERDAY_MAX_AGE_MS), 'yesterday')
  t.equal(sectionForAge(YESTERDAY_MAX_AGE_MS + 1), 'week')
  t.equal(sectionForAge(WEEK_MAX_AGE_MS), 'week')
  t.equal(sectionForAge(WEEK_MAX_AGE_MS + 1), undefined)
  t.equal(SESSION_MAX_AGE_MS, DAY)
  t.equal(YESTERDAY_MAX_AGE_MS, 7 * DAY)
  t.equal(WEEK_MAX_AGE_MS, 14 * DAY)

  const at = T0
  const start = docWith({ session: [item('Added JWT authentication in src/auth/jwt.ts', at, { importance: 'high', kind: 'feature' })] })
  const cases: [number, SectionKey | undefined][] = [
    [SESSION_MAX_AGE_MS - 1, 'session'],
    [SESSION_MAX_AGE_MS, 'session'],
    [SESSION_MAX_AGE_MS + 1, 'yesterday'],
    [YESTERDAY_MAX_AGE_MS - 1, 'yesterday'],
    [YESTERDAY_MAX_AGE_MS, 'yesterday'],
    [YESTERDAY_MAX_AGE_MS + 1, 'week'],
    [WEEK_MAX_AGE_MS - 1, 'week'],
    [WEEK_MAX_AGE_MS, 'week'],
    [WEEK_MAX_AGE_MS + 1, undefined],
  ]
  for (const [age, expected] of cases) {
    // Straight from the session, and step by step through every earlier age: same answer.
    const direct = ageSummary({ doc: start, now: at + age, budgetTokens: 10_000, counter })
    t.equal(where(direct.doc, 'JWT'), expected, `age ${age} ms → ${expected ?? 'dropped'}`)
    t.equal(direct.dropped, expected ? 0 : 1)
    let doc = start
    for (const step of [0.5, 1, 3, 8, 12].map((d) => d * DAY).filter((s) => s < age)) doc = ageSummary({ doc, now: at + step, budgetTokens: 10_000, counter }).doc
    t.equal(where(ageSummary({ doc, now: at + age, budgetTokens: 10_000, counter }).doc, 'JWT'), expected, `age ${age} ms via daily runs`)
  }
  t.same(start.sections.session.length, 1, 'input document untouched')
})

t.test('new exchanges are placed by their own timestamps, not by the append time', async (t) => {
  const old = fixExchange(T0 - 3 * DAY, 1)
  const fresh = fixExchange(T0 - HOUR, 2)
  const noTime: Exchange = { messages: [msg('user', [text('Please also keep the changelog in CHANGELOG.md up to date from now on')])] }
  const res = updateSummary({ doc: emptySummary(), exchanges: [old, fresh, noTime], now: T0, budgetTokens: 10_000, counter })
  t.equal(res.doc.sections.yesterday.length, 1, 'three days old → Yesterday')
  t.match(res.doc.sections.yesterday[0]!.text, /\(1\)/)
  t.equal(res.doc.sections.session.length, 2)
  t.equal(res.doc.sections.session[0]!.at, iso(T0 - HOUR + 7 * 60_000), 'at = latest message of the exchange')
  t.equal(res.doc.sections.session[1]!.at, iso(T0), 'no timestamps → the append time')
  t.equal(exchangeTime(noTime), undefined)
})

t.test('items never move back to a younger section', async (t) => {
  const doc = parseSummary('## Yesterday\n1. Hand-written note about the cache layer\n', T0)
  t.equal(doc.sections.yesterday[0]!.at, iso(T0), 'unknown time → now')
  const res = ageSummary({ doc, now: T0, budgetTokens: 10_000, counter })
  t.equal(where(res.doc, 'cache layer'), 'yesterday')
  t.equal(where(ageSummary({ doc, now: T0 + YESTERDAY_MAX_AGE_MS + 1, budgetTokens: 10_000, counter }).doc, 'cache layer'), 'week')
})

// ---------------------------------------------------------------------------
// Compression

t.test('compression drops low before medium before high, oldest first, and keeps high items', async (t) => {
  const items: SummaryItem[] = []
  for (let i = 0; i < 30; i++) {
    const importance = i % 3 === 0 ? 'high' : i % 3 === 1 ? 'medium' : 'low'
    const kind = importance === 'high' ? 'decision' : importance === 'medium' ? 'fix' : 'debug'
    items.push(item(`Item ${i} ${importance}: ${'details about the work done here '.repeat(4)}`, T0 - (30 - i) * 10 * 60_000, { importance, kind, files: [`src/f${i}.ts`] }))
  }
  const doc = docWith({ session: items })
  const full = countText(renderSummary(doc))
  // A budget that needs low items gone but not medium ones.
  const budget = Math.floor(full * 0.72)
  const res = ageSummary({ doc, now: T0, budgetTokens: budget, counter })
  t.ok(res.tokens <= budget, `${res.tokens} <= ${budget}`)
  t.equal(res.tokens, countText(res.text))
  t.notOk(res.emergencyTruncated)
  const kept = res.doc.sections.session
  for (const h of items.filter((i) => i.importance === 'high')) t.ok(kept.some((k) => k.text.includes(h.text.slice(0, 12))), `high item kept: ${h.text.slice(0, 12)}`)
  const keptLow = items.filter((i) => i.importance === 'low' && kept.some((k) => k.text.includes(i.text.slice(0, 10))))
  const droppedLow = items.filter((i) => i.importance === 'low' && !keptLow.includes(i))
  t.ok(droppedLow.length > 0, 'some low items dropped')
  // Oldest first: every dropped low item is older than every kept one.
  if (keptLow.length) t.ok(Math.max(...droppedLow.map((i) => Date.parse(i.at))) < Math.min(...keptLow.map((i) => Date.parse(i.at))), 'low items dropped oldest first')
  t.ok(res.dropped >= droppedLow.length)

  // Tighter: medium items go too, high ones still all there.
  const tight = Math.floor(full * 0.4)
  const res2 = ageSummary({ doc, now: T0, budgetTokens: tight, counter })
  t.ok(res2.tokens <= tight)
  t.notOk(res2.emergencyTruncated)
  t.equal(res2.doc.sections.session.filter((i) => i.importance === 'low').length, 0, 'no low item survives while a medium one is dropped')
  t.ok(res2.doc.sections.session.filter((i) => i.importance === 'high').length >= 10, 'high items kept (possibly merged)')
})

t.test('related items merge with a combined token count and a date range', async (t) => {
  const mon = Date.parse('2026-06-01T10:00:00.000Z') // Monday, 11 days before T0
  const tue = Date.parse('2026-06-02T15:00:00.000Z')
  const files = ['src/auth/jwt.ts']
  const doc = docWith({
    week: [
      item('Added JWT authentication', mon, { tokens: 8000, importance: 'high', kind: 'feature', files }),
      item('Fixed JWT token expiration bug', mon + 2 * HOUR, { tokens: 3000, importance: 'medium', kind: 'fix', files }),
      item('Added JWT refresh token support', tue, { tokens: 6000, importance: 'high', kind: 'feature', files: [...files, 'src/auth/refresh.ts'] }),
      item('Tuned the Postgres pool size', tue + HOUR, { tokens: 900, importance: 'low', kind: 'debug', files: ['src/db.ts'] }),
    ],
  })
  const before = renderSummary(doc, { meta: false })
  t.match(before, /1\. Added JWT authentication \(Mon, ~8k tokens\)/)
  const budget = countText(renderSummary(doc)) - 1
  const res = ageSummary({ doc, now: T0, budgetTokens: budget, counter })
  const week = res.doc.sections.week
  t.equal(week.length, 2, 'three JWT items → one, the pool item apart')
  t.equal(week[0]!.tokens, 17_000)
  t.equal(week[0]!.importance, 'high')
  t.equal(week[0]!.since, iso(mon))
  t.equal(week[0]!.at, iso(tue))
  t.same(week[0]!.files, ['src/auth/jwt.ts', 'src/auth/refresh.ts'])
  t.match(res.text, /\(Mon-Tue, ~17k tokens\)/)
  t.match(week[0]!.text, /JWT authentication.*expiration.*refresh/)
  t.ok(week.some((i) => i.text.includes('Postgres')), 'merging came before dropping')
  t.equal(res.dropped, 0)
})

t.test('condensing: older sections get shorter text', async (t) => {
  const long = 'Implemented comprehensive error handling using the Result<T> pattern; added OK() and ERR() macros for all failure cases; migrated src/io.ts and src/net.ts; documented it in docs/errors.md'
  const doc = docWith({
    session: [item(`S ${long}`, T0 - HOUR, { importance: 'high' })],
    yesterday: [item(`Y ${long}`, T0 - 2 * DAY, { importance: 'high' })],
    week: [item(`W ${long}`, T0 - 9 * DAY, { importance: 'high', kind: 'feature' })],
  })
  const budget = countText(renderSummary(doc)) - 40
  const res = ageSummary({ doc, now: T0, budgetTokens: budget, counter })
  const [s, y, w] = SECTION_KEYS.map((k) => res.doc.sections[k][0]!.text)
  t.ok(w!.length <= 60 && y!.length <= 120, `week ${w!.length}, yesterday ${y!.length}`)
  t.ok(w!.length < y!.length && y!.length <= s!.length)
  t.match(w!, /^W Implemented comprehensive error handling/, 'condensing keeps the leading segment')
  t.notOk(res.emergencyTruncated)
})

t.test('hard budget: emergency truncation keeps the most recent items', async (t) => {
  const items = Array.from({ length: 40 }, (_, i) =>
    item(`Decision ${i}: use ${'a very specific architecture choice '.repeat(3)}`, T0 - (40 - i) * HOUR / 2, { importance: 'high', kind: 'decision', files: [`src/m${i}.ts`] }),
  )
  const doc = docWith({ session: items })
  const budget = 400
  const res = ageSummary({ doc, now: T0, budgetTokens: budget, counter })
  t.ok(res.tokens <= budget, `${res.tokens} <= ${budget}`)
  t.ok(res.emergencyTruncated)
  t.ok(res.dropped > 0)
  const kept = res.doc.sections.session
  t.ok(kept.length > 0, 'some items kept')
  const newest = kept[kept.length - 1]!
  t.equal(newest.at, items[items.length - 1]!.at, 'the most recent item survives')
  t.equal(renderSummary(res.doc), res.text, 'text is the document')

  // Within budget: no flag.
  const ok = ageSummary({ doc, now: T0, budgetTokens: 100_000, counter })
  t.notOk(ok.emergencyTruncated)
  t.equal(ok.dropped, 0)
})

t.test('absurd inputs never exceed the budget', async (t) => {
  const huge = 'x'.repeat(300_000)
  const ex: Exchange = {
    messages: [
      msg('user', [text(`${huge} please`)]),
      msg('assistant', [call('h1', 'bash', { command: `echo ${huge}` })]),
      msg('tool', [result('h1', `Error: ${huge}\n`.repeat(3))]),
    ],
  }
  for (const budget of [200, 201, 257, 1000]) {
    const res = updateSummary({ doc: emptySummary(), exchanges: [ex, ex, ex], now: T0, budgetTokens: budget, counter })
    t.ok(res.tokens <= budget && countText(res.text) <= budget, `budget ${budget}: ${res.tokens}`)
  }
  for (const budget of [0, 5, 30]) {
    const res = updateSummary({ doc: emptySummary(), exchanges: [ex], now: T0, budgetTokens: budget, counter })
    t.ok(countText(res.text) <= budget, `tiny budget ${budget}: clipped to ${countText(res.text)}`)
    t.ok(res.emergencyTruncated)
  }
})

t.test('property: output tokens never exceed the budget', async (t) => {
  const batchArb = fc.record({
    conversation: openaiConversationArb({ maxTurns: 5 }),
    offsetMs: fc.integer({ min: -DAY, max: 20 * DAY }),
  })
  await fc.assert(
    fc.property(fc.array(batchArb, { minLength: 1, maxLength: 4 }), fc.integer({ min: 200, max: 6000 }), (batches, budget) => {
      let doc = emptySummary()
      let now = 1.6e12
      for (const b of batches) {
        const messages = parseConversation(b.conversation, { format: 'openai' }).messages
        const exchanges = groupExchanges(messages)
        const stamps = messages.map((m) => (m.timestamp ? Date.parse(m.timestamp) : 0))
        now = Math.max(now, ...stamps) + Math.max(0, b.offsetMs)
        const res = updateSummary({ doc, exchanges, now, budgetTokens: budget, counter })
        if (res.tokens > budget || countText(res.text) !== res.tokens) throw new Error(`over budget: ${res.tokens} > ${budget}`)
        if (res.text === renderSummary(res.doc) && renderSummary(parseSummary(res.text, now)) !== res.text) throw new Error('round trip failed')
        if (!res.emergencyTruncated && res.text !== renderSummary(res.doc)) throw new Error('text differs from document without truncation')
        doc = res.doc
      }
    }),
    { numRuns: 120, seed: 4242 },
  )
  t.pass('120 random histories within budget')
})

// ---------------------------------------------------------------------------
// Text form

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
  t.equal(wrapped.at, iso(T0))
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

// ---------------------------------------------------------------------------
// Exchanges

t.test('groupExchanges keeps tool calls with their results', async (t) => {
  const messages = [
    msg('system', [text('You are an agent')]),
    msg('assistant', [text('Hello, what shall we do?')]),
    msg('user', [text('fix it')]),
    msg('assistant', [call('a', 'bash', { command: 'ls' })]),
    msg('tool', [result('a', 'x.ts')]),
    msg('user', [result('b', 'anthropic-style result in a user message')]),
    msg('assistant', [text('done')]),
    msg('user', [text('thanks, now the docs')]),
  ]
  const ex = groupExchanges(messages)
  t.same(ex.map((e) => e.messages.map((m) => m.index - messages[0]!.index)), [[1], [2, 3, 4, 5, 6], [7]])
})

t.test('summarizeExchange: failing command, its error, the edited file, the cause', async (t) => {
  const ex = fixExchange(T0)
  const it = summarizeExchange(ex, T0 + DAY, counter)
  t.match(it.text, /src\/auth\/jwt\.ts/, 'names the file')
  t.match(it.text, /`npm test -- test\/auth\.test\.ts` failed \(exit 1\)/, 'names the failing command')
  t.match(it.text, /TypeError: Cannot read properties of undefined \(reading 'exp'\)/, 'with its error')
  t.match(it.text, /later passed/)
  t.match(it.text, /cause: The root cause is that verifyToken/)
  t.match(it.text, /^Asked "The expired-token test fails/)
  t.notMatch(it.text, /\n/)
  t.equal(it.kind, 'fix')
  t.equal(it.importance, 'medium')
  t.equal(it.at, iso(T0 + 7 * 60_000))
  t.ok(it.tokens > 50)
  t.same(it.files, ['src/auth/jwt.ts'])

  const decision = summarizeExchange(
    {
      messages: [
        msg('user', [text('Which library should we use for the storage layer?')]),
        msg('assistant', [text('I decided to go with Kysely over Prisma for the database layer, since it keeps one SQL code path for PGlite and Postgres.')]),
      ],
    },
    T0,
    counter,
  )
  t.equal(decision.importance, 'high')
  t.equal(decision.kind, 'decision')
  t.match(decision.text, /decided: I decided to go with Kysely/)

  const trivial = summarizeExchange({ messages: [msg('user', [text('ok')]), msg('assistant', [text('Sure.')])] }, T0, counter)
  t.equal(trivial.importance, 'low')
  t.equal(trivial.kind, 'trivial')
  t.equal(trivial.at, iso(T0))

  const debug = summarizeExchange(
    {
      messages: [
        msg('user', [text('Why does the server crash on start?')]),
        msg('assistant', [call('d1', 'read_file', { path: 'src/server.ts' })]),
        msg('tool', [result('d1', 'import x from "y"')]),
        msg('assistant', [call('d2', 'bash', { command: 'node dist/server.js' })]),
        msg('tool', [result('d2', "Error: Cannot find module 'y'\nexit code 1")]),
      ],
    },
    T0,
    counter,
  )
  t.equal(debug.importance, 'low')
  t.equal(debug.kind, 'debug')
  t.match(debug.text, /`node dist\/server\.js` failed \(exit 1\): Error: Cannot find module 'y'/)
})

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
  t.same(c.keyDecisions, ['I will keep refresh tokens in HttpOnly cookies instead of localStorage.'], 'a stated choice, not the plan sentences')
  const prompt = renderContinuationPrompt(c)
  t.match(prompt, /^\[Previous Session Context\]\nCurrent task: Now add refresh tokens/)
  t.match(prompt, /\nRelevant files: src\/auth\/refresh\.ts, /)

  const bg = BACKGROUND_AGENT_PROMPT(res.text, formatExchangesForPrompt([ex2], counter))
  t.match(bg, /Current summary:\n## Previously in This Session/)
  t.match(bg, /Newly evicted exchanges to add:\n### Exchange 1 \(2026-06-12 13:00Z, ~\d+ tokens\)/)
  for (const title of Object.values(SECTION_TITLES)) t.match(bg, `## ${title}\n1. Item`)
  t.match(bg, /10000-token budget/)
})

// ---------------------------------------------------------------------------
// A real pi session, fed in batches

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const fixturesDir = path.resolve(repoRoot, '../shared/fixtures/conversations')

/** A pi session: OpenAI-shaped messages that all carry an ISO timestamp, with tool calls. */
function findPiSession(): { file: string; messages: unknown[] } | undefined {
  if (!fs.existsSync(fixturesDir)) return undefined
  const found: { file: string; messages: unknown[] }[] = []
  for (const file of fs.readdirSync(fixturesDir).filter((f) => f.endsWith('.json')).sort()) {
    const data = JSON.parse(fs.readFileSync(path.join(fixturesDir, file), 'utf8')) as { messages?: Record<string, unknown>[] }
    const ms = data.messages
    if (!Array.isArray(ms) || ms.length < 20) continue
    const hasIso = (m: Record<string, unknown>) => typeof m.timestamp === 'string' && /^\d{4}-\d\d-\d\dT/.test(m.timestamp)
    // Every user and assistant turn stamped (a stray tool result may lack one).
    const stamped = ms.every((m) => (m.role !== 'user' && m.role !== 'assistant') || hasIso(m))
    if (stamped && ms.some((m) => Array.isArray(m.tool_calls))) found.push({ file, messages: ms })
  }
  // pi sessions first (pinion05's agent-complex-task set), the one with most turns; else any stamped session.
  const turns = (f: { messages: unknown[] }) => f.messages.filter((m) => (m as { role?: string }).role === 'user').length
  const pis = found.filter((f) => f.file.startsWith('pinion')).sort((a, b) => turns(b) - turns(a))
  return pis[0] ?? found[0]
}

const pi = findPiSession()

t.test('a real pi session in batches of 4', { skip: pi ? false : `no pi session with ISO timestamps under ${fixturesDir}` }, async (t) => {
  const { file, messages } = pi!
  const conv = parseConversation(messages, { format: 'openai' })
  const exchanges = groupExchanges(conv.messages)
  t.ok(exchanges.length >= 8, `${file}: ${exchanges.length} exchanges`)
  const fed = exchanges.slice(0, Math.min(exchanges.length, 24))
  for (const budget of [10_000, 1_500]) {
    let doc = emptySummary()
    let last: ReturnType<typeof updateSummary> | undefined
    let now = 0
    for (let i = 0; i < fed.length; i += 4) {
      const batch = fed.slice(i, i + 4)
      now = Date.parse(exchangeTime(batch[batch.length - 1]!) ?? iso(now))
      last = updateSummary({ doc, exchanges: batch, now, budgetTokens: budget, counter })
      t.ok(last.tokens <= budget, `${file} @${budget}, batch ${i / 4}: ${last.tokens} tokens`)
      doc = last.doc
    }
    const res = last!
    t.notOk(res.emergencyTruncated, `budget ${budget} reached by compression alone`)
    t.equal(res.text, renderSummary(res.doc))
    t.equal(renderSummary(parseSummary(res.text, now)), res.text, 'well formed: parses back to itself')
    for (const title of Object.values(SECTION_TITLES)) t.match(res.text, `## ${title}`)
    const items = SECTION_KEYS.flatMap((k) => res.doc.sections[k])
    t.ok(items.length > 0)
    for (const it of items) {
      t.ok(it.text.length > 0 && !it.text.includes('\n'), 'one-line item')
      t.ok(Number.isFinite(Date.parse(it.at)) && Date.parse(it.at) <= now, 'timestamped, not in the future')
    }
    t.ok(res.doc.continuation.currentTask.length > 0, 'continuation has a task')

    // Files and errors of the fed part are named.
    const facts = extractFacts(fed.flatMap((e) => e.messages), { preserveErrorDetails: false })
    const changed = [...facts.files.values()].filter((f) => f.actions.has('modified') || f.actions.has('created')).map((f) => f.path.split('/').pop()!)
    t.ok(changed.some((name) => res.text.includes(name)), `names a changed file (${changed.slice(0, 5).join(', ')})`)
    if (budget === 10_000) {
      const errors = facts.commands.filter((c) => c.failed && c.errorLine).map((c) => c.errorLine!.slice(0, 30))
      t.ok(errors.length === 0 || errors.some((e) => res.text.includes(e)), `names an error of the fed part (${errors.length} failures)`)
      t.ok(facts.commands.some((c) => c.failed) && res.text.includes('failed'), 'a failing command is named')
    }

    // Daily re-aging of the result: every item lands where its own age says, and all are gone after 14 days.
    const lastAt = Math.max(...items.map((i) => Date.parse(i.at)))
    let aged = res.doc
    let droppedByAge = 0
    for (const later of [SESSION_MAX_AGE_MS + 1, YESTERDAY_MAX_AGE_MS + 1, WEEK_MAX_AGE_MS + 1]) {
      const day = lastAt + later
      const r = ageSummary({ doc: aged, now: day, budgetTokens: budget, counter })
      t.ok(r.tokens <= budget)
      for (const k of SECTION_KEYS) for (const it of r.doc.sections[k]) t.equal(sectionForAge(day - Date.parse(it.at)), k, `aged to ${k}`)
      t.equal(r.doc.sections.session.length, 0, `nothing left in the session ${later} ms after the last exchange`)
      droppedByAge += r.dropped
      aged = r.doc
    }
    t.equal(SECTION_KEYS.reduce((n, k) => n + aged.sections[k].length, 0), 0, 'all dropped after 14 days')
    t.equal(droppedByAge, items.length, 'each drop counted once')
  }
})
