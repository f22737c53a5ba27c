/**
 * Fitting the summary (src/engine/sessions/fit.ts, through updateSummary/ageSummary):
 * aging at exact boundaries, compression order, the hard budget.
 */
import fc from 'fast-check'
import t from 'tap'
import { parseConversation } from '../../../src/engine/messages/index.ts'
import {
  ageSummary,
  emptySummary,
  exchangeTime,
  groupExchanges,
  parseSummary,
  renderSummary,
  SECTION_KEYS,
  sectionForAge,
  SESSION_MAX_AGE_MS,
  updateSummary,
  WEEK_MAX_AGE_MS,
  YESTERDAY_MAX_AGE_MS,
  type Exchange,
  type SectionKey,
  type SummaryItem,
} from '../../../src/engine/sessions/index.ts'
import { openaiConversationArb } from '../../helpers/conversation-arbitraries.ts'
import { call, counter, countText, DAY, docWith, fixExchange, HOUR, iso, item, msg, result, T0, text, where } from './helpers.ts'

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
    // The session's latest activity `age` ms after the item (aging is against it, not the clock).
    // Straight from the session, and step by step through every earlier age: same answer.
    const direct = ageSummary({ doc: start, now: at + age, activityAt: at + age, budgetTokens: 10_000, counter })
    t.equal(where(direct.doc, 'JWT'), expected, `age ${age} ms → ${expected ?? 'dropped'}`)
    t.equal(direct.dropped, expected ? 0 : 1)
    let doc = start
    for (const step of [0.5, 1, 3, 8, 12].map((d) => d * DAY).filter((s) => s < age)) doc = ageSummary({ doc, now: at + step, activityAt: at + step, budgetTokens: 10_000, counter }).doc
    t.equal(where(ageSummary({ doc, now: at + age, activityAt: at + age, budgetTokens: 10_000, counter }).doc, 'JWT'), expected, `age ${age} ms via daily runs`)
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
  t.equal(where(ageSummary({ doc, now: T0 + YESTERDAY_MAX_AGE_MS + 1, activityAt: T0 + YESTERDAY_MAX_AGE_MS + 1, budgetTokens: 10_000, counter }).doc, 'cache layer'), 'week')
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

