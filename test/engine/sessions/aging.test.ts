/**
 * Aging against the session's own activity (issue 10, defect 6): items age by how much
 * older they are than the session's latest activity, never by the wall clock alone, and
 * the original task and the user's standing constraints are pinned (never aged out).
 */
import t from 'tap'
import {
  ageSummary,
  emptySummary,
  parseSummary,
  renderSummary,
  SECTION_KEYS,
  sessionActivity,
  updateSummary,
  WEEK_MAX_AGE_MS,
  type Exchange,
  type SummaryDocument,
} from '../../../src/engine/sessions/index.ts'
import { call, counter, DAY, HOUR, iso, msg, result, T0, text, where } from './helpers.ts'
import { AGING_REQUESTS as REQUESTS } from '../../helpers/session-conversations.ts'

const items = (doc: SummaryDocument) => SECTION_KEYS.flatMap((k) => doc.sections[k])
const FOUR_MONTHS = 120 * DAY


/** Seven exchanges, one request each, a tool call and its result; stamped from `start` (ms), or undated. */
function session(start?: number): Exchange[] {
  return REQUESTS.map((request, k) => {
    const at = (m: number) => (start === undefined ? undefined : iso(start + k * 10 * 60_000 + m * 60_000))
    const file = `src/step${k}.ts`
    return {
      messages: [
        msg('user', [text(request)], at(0)),
        msg('assistant', [text(`Working on it.`), call(`e${k}`, 'edit_file', { path: file, old_str: 'a', new_str: 'b' })], at(1)),
        msg('tool', [result(`e${k}`, `Edited ${file}`)], at(2)),
        msg('assistant', [text(`Done: ${file} now handles it.`)], at(3)),
      ],
    }
  })
}

const asked = (doc: SummaryDocument) => REQUESTS.filter((r) => items(doc).some((i) => i.text.includes(r.slice(0, 40))))

t.test('old timestamps do not wipe the summary: age is measured against the session, not the clock', async (t) => {
  const now = T0
  const old = updateSummary({ doc: emptySummary(), exchanges: session(now - FOUR_MONTHS), now, budgetTokens: 10_000, counter })
  const undated = updateSummary({ doc: emptySummary(), exchanges: session(), now, budgetTokens: 10_000, counter })
  t.equal(old.dropped, 0, 'nothing aged out')
  t.same(asked(old.doc), REQUESTS, 'every user request is kept')
  t.equal(items(old.doc).length, items(undated.doc).length, 'as many items as without timestamps')
  t.same(
    items(old.doc).map((i) => i.text),
    items(undated.doc).map((i) => i.text),
    'the same items',
  )
  t.equal(old.doc.sections.session.length, items(old.doc).length, 'all in "Previously in This Session": the work spans an hour of the session')
  t.equal(sessionActivity(old.doc, [], now), Date.parse(items(old.doc).at(-1)!.at), 'the activity is the newest item, four months ago')

  // The daily job, months later, with no new message: nothing changes.
  const idle = ageSummary({ doc: old.doc, now: now + 30 * DAY, budgetTokens: 10_000, counter })
  t.equal(idle.text, old.text, 'an idle session keeps its summary')
})

t.test("a line without a time (hand-written, or new in a model's answer) does not make an old session active today", async (t) => {
  const old = updateSummary({ doc: emptySummary(), exchanges: session(T0 - FOUR_MONTHS), now: T0, budgetTokens: 10_000, counter })
  const edited = old.text.replace('## Previously in This Session\n', '## Previously in This Session\n1. Decided to keep one pg.Pool per process\n') + '\n## Yesterday\n1. Checked the captions API by hand (~2k tokens)\n'
  const doc = parseSummary(edited, T0)
  const newest = items(old.doc).at(-1)!.at
  t.equal(items(doc).find((i) => i.text.includes('pg.Pool'))!.at, newest, 'dated as the newest dated item, not now')
  t.equal(items(doc).find((i) => i.text.includes('captions API'))!.at, newest)
  const res = ageSummary({ doc, now: T0, budgetTokens: 10_000, counter })
  t.equal(res.dropped, 0, 'nothing aged out')
  t.same(asked(res.doc), REQUESTS, 'every request kept')
  t.equal(where(res.doc, 'captions API'), 'yesterday', 'a hand-written Yesterday line stays in Yesterday')
})

t.test('the original task and standing constraints are pinned: never aged out', async (t) => {
  const start = T0 - FOUR_MONTHS
  const first = updateSummary({ doc: emptySummary(), exchanges: session(start), now: T0, budgetTokens: 10_000, counter })
  const pins = items(first.doc).map((i) => i.pin)
  t.same(pins, ['task', 'constraint', undefined, undefined, undefined, undefined, undefined], 'the first request is the task, the "Never …" one a constraint')

  // The session resumes today: its activity is now four months after the old work.
  const resumed: Exchange = { messages: [msg('user', [text('Also export the transcripts as JSON')], iso(T0 - HOUR)), msg('assistant', [text('Exported them to out/all.json.')], iso(T0 - HOUR))] }
  const res = updateSummary({ doc: first.doc, exchanges: [resumed], now: T0, budgetTokens: 10_000, counter })
  t.equal(res.dropped, REQUESTS.length - 2, 'the old work older than 14 days before the latest activity is dropped')
  t.equal(where(res.doc, REQUESTS[0]!.slice(0, 40)), 'week', 'the original task stays, in This Week')
  t.equal(where(res.doc, 'Never commit the API keys'), 'week', 'the standing constraint stays, in This Week')
  t.equal(where(res.doc, 'export the transcripts as JSON'), 'session', 'the new work is in This Session')
  t.equal(items(res.doc).filter((i) => i.pin === 'task').length, 1, 'one original task: a later request is not pinned as one')

  // Pins survive the stored text, and later activity still never drops them.
  const back = parseSummary(res.text, T0)
  t.same(items(back).map((i) => i.pin), items(res.doc).map((i) => i.pin), 'p=task / p=constraint round-trip')
  t.match(res.text, /<!-- at=\S+ i=h k=\w+ f=src\/step0\.ts p=task -->/)
  const later = ageSummary({ doc: back, now: T0 + 60 * DAY, activityAt: T0 + 60 * DAY, budgetTokens: 10_000, counter })
  t.same(items(later.doc).map((i) => i.pin), ['task', 'constraint'], 'two months more: only the pinned items are left')
})

t.test('the activity: the caller’s, the new exchanges’ or the items’ newest time, never after now', async (t) => {
  const doc = updateSummary({ doc: emptySummary(), exchanges: session(T0 - 20 * DAY), now: T0, budgetTokens: 10_000, counter }).doc
  const newest = Date.parse(items(doc).at(-1)!.at)
  t.equal(sessionActivity(doc, [], T0), newest)
  t.equal(sessionActivity(doc, [], T0, T0 - DAY), T0 - DAY, 'a later activity of the session (a message still in its window) counts')
  t.equal(sessionActivity(doc, [], T0, T0 + 5 * DAY), T0, 'a timestamp in the future is taken as now')
  t.equal(sessionActivity(emptySummary(), [], T0), T0, 'nothing known: now')
  t.equal(sessionActivity(emptySummary(), session(), T0 - DAY), T0 - DAY, 'undated exchanges happened now')
  // An activity 14 days and 1 ms after the newest item drops every unpinned item.
  const aged = ageSummary({ doc, now: T0, activityAt: newest + WEEK_MAX_AGE_MS + 1, budgetTokens: 10_000, counter })
  t.same(items(aged.doc).map((i) => i.pin), ['task', 'constraint'])
})

t.test('compression keeps a pinned item whole enough and never merges it', async (t) => {
  const res = updateSummary({ doc: emptySummary(), exchanges: session(T0 - 10 * DAY), now: T0, activityAt: T0, budgetTokens: 10_000, counter })
  t.equal(where(res.doc, 'Never commit the API keys'), 'week')
  const full = renderSummary(res.doc)
  const tight = Math.ceil(counter.text(full) * counter.margin * 0.5)
  const small = ageSummary({ doc: res.doc, now: T0, activityAt: T0, budgetTokens: tight, counter })
  t.ok(small.tokens <= tight)
  const task = items(small.doc).find((i) => i.pin === 'task')
  const constraint = items(small.doc).find((i) => i.pin === 'constraint')
  t.ok(task?.text.includes(REQUESTS[0]!), `the task keeps the human's words: ${task?.text}`)
  t.ok(constraint?.text.includes('Never commit the API keys in .env'), `the constraint keeps them: ${constraint?.text}`)
  t.notOk(task?.since ?? constraint?.since, 'not merged into a range')
})

t.test('an earlier compaction summary: its task is the original task, its constraints are pinned', async (t) => {
  const summary = `This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:
Summary:
1. Primary Request and Intent:
   The user asked to migrate the billing jobs from cron to the queue in src/jobs/.

2. Key Technical Concepts:
   - BullMQ

3. All user messages:
   - Migrate the billing jobs to the queue
   - Do not touch the invoices table schema.

4. Pending Tasks:
   - Move the nightly job
Please continue the conversation from where we left it off without asking the user any further questions.`
  const ex: Exchange = { messages: [msg('user', [text(summary)], iso(T0 - FOUR_MONTHS)), msg('assistant', [text('Continuing with the nightly job.')], iso(T0 - FOUR_MONTHS))] }
  const res = updateSummary({ doc: emptySummary(), exchanges: [ex], now: T0, budgetTokens: 10_000, counter })
  const task = items(res.doc).find((i) => i.pin === 'task')
  t.match(task?.text ?? '', /^Earlier task: The user asked to migrate the billing jobs/)
  const constraint = items(res.doc).find((i) => i.pin === 'constraint')
  t.match(constraint?.text ?? '', /Do not touch the invoices table schema/)
  const later = ageSummary({ doc: res.doc, now: T0, activityAt: T0, budgetTokens: 10_000, counter })
  t.same(
    items(later.doc).map((i) => i.pin),
    ['task', 'constraint'],
    'months later, the task and the constraint remain',
  )
})
