/**
 * Issue 10, defect 6, through the HTTP API: a session whose messages carry timestamps
 * from four months ago (imported or resumed) keeps its rolling summary. Items age
 * against the session's own latest activity, not the clock, and the original task and
 * the user's standing constraints are never aged out.
 */
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { parseSummary, SECTION_KEYS, type SummaryDocument } from '../../../src/engine/sessions/index.ts'
import { buildTestApp } from '../../helpers/build.ts'
import { AGING_REQUESTS as REQUESTS, type Message } from '../../helpers/session-conversations.ts'

const DAY = 86_400_000
const FOUR_MONTHS = 120 * DAY


/** Seven requests, each worked on with several tool calls (long exchanges are cut into pieces); stamped from `start`, or undated. */
function conversation(start?: number): Message[] {
  let minute = 0
  const stamp = () => (start === undefined ? {} : { timestamp: new Date(start + minute++ * 60_000).toISOString() })
  const out: Message[] = []
  REQUESTS.forEach((request, k) => {
    out.push({ role: 'user', content: request, ...stamp() })
    for (let j = 0; j < 6; j++) {
      const id = `c${k}_${j}`
      const file = `src/part${k}_${j}.ts`
      const call = j % 3 === 0 ? { name: 'read_file', arguments: JSON.stringify({ path: file }) } : j % 3 === 1 ? { name: 'edit_file', arguments: JSON.stringify({ path: file, old_str: 'old', new_str: 'new' }) } : { name: 'bash', arguments: JSON.stringify({ command: `npm test -- ${file}` }) }
      out.push({ role: 'assistant', content: `Step ${j} of request ${k}.`, tool_calls: [{ id, type: 'function', function: call }], ...stamp() })
      out.push({ role: 'tool', tool_call_id: id, content: j % 3 === 2 ? `PASS ${file}` : j % 3 === 1 ? `Edited ${file}` : `export const part${k}_${j} = 1`, ...stamp() })
    }
    out.push({ role: 'assistant', content: `Done with request ${k}: the change is in src/part${k}_1.ts.`, ...stamp() })
  })
  return out
}

async function call(app: FastifyInstance, method: 'GET' | 'PUT' | 'POST', url: string, payload?: object) {
  const res = await app.inject({ method, url, ...(payload ? { payload } : {}) })
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`)
  return res.json()
}

/** Appends the messages to a new session whose window keeps 4 messages, folds every evicted one, and reads the summary. */
async function summaryOf(app: FastifyInstance, id: string, messages: Message[]): Promise<{ doc: SummaryDocument; content: string }> {
  await call(app, 'PUT', `/sessions/${id}`, { windowMessages: 4, batchSize: 1 })
  await call(app, 'POST', `/sessions/${id}/messages`, { messages })
  while ((await app.summaryWorker.runOnce()) > 0);
  const content = (await call(app, 'GET', `/sessions/${id}/summary`)).content as string
  return { doc: parseSummary(content, Date.now()), content }
}

const items = (doc: SummaryDocument) => SECTION_KEYS.flatMap((k) => doc.sections[k])
const kept = (doc: SummaryDocument) => REQUESTS.filter((r) => items(doc).some((i) => i.text.includes(r)))

t.test('a session with four-month-old timestamps keeps its summary', async (t) => {
  const { app } = await buildTestApp(t)
  const old = await summaryOf(app, 'imported', conversation(Date.now() - FOUR_MONTHS))
  const undated = await summaryOf(app, 'undated', conversation())

  t.ok(items(undated.doc).length >= 2 * REQUESTS.length, `the undated session has a full summary (${items(undated.doc).length} items)`)
  t.same(kept(undated.doc), REQUESTS, 'undated: every user request is in the summary')
  t.same(kept(old.doc), REQUESTS, 'four months old: every user request is in the summary')
  t.equal(items(old.doc).length, items(undated.doc).length, `as many items as without timestamps (${items(old.doc).length})`)
  t.ok(Math.abs(old.content.length - undated.content.length) < undated.content.length * 0.1, 'about the same size')
  t.equal(old.doc.sections.session.length, items(old.doc).length, 'all in "Previously in This Session": the work spans two hours of the session')
  t.match(old.content, /p=task -->/, 'the original task is pinned')
  t.match(old.content, /Never commit the API keys[^\n]*p=constraint -->/, 'the standing constraint is pinned')

  // The daily aging job, with no new message: the summary is not rewritten.
  const before = await call(app, 'GET', '/sessions/imported/summary')
  t.ok((await app.summaryWorker.runDailyAging()) >= 1)
  while ((await app.summaryWorker.runOnce()) > 0);
  const after = await call(app, 'GET', '/sessions/imported/summary')
  t.equal(after.version, before.version, 'daily aging of an idle session writes no new version')
  t.equal(after.content, before.content)
})

t.test('a resumed session ages the old work against its new activity, keeping the task and constraints', async (t) => {
  const { app } = await buildTestApp(t)
  await summaryOf(app, 'resumed', conversation(Date.now() - FOUR_MONTHS))
  // Resumed today: new messages (undated: stamped at the append) push the old work out of the window.
  const today: Message[] = []
  for (let k = 0; k < 3; k++) today.push({ role: 'user', content: `Also export the transcripts as JSON, part ${k}` }, { role: 'assistant', content: `Exported part ${k} to out/all${k}.json.` })
  await call(app, 'POST', '/sessions/resumed/messages', { messages: today })
  while ((await app.summaryWorker.runOnce()) > 0);
  const doc = parseSummary((await call(app, 'GET', '/sessions/resumed/summary')).content, Date.now())
  t.same(
    kept(doc),
    [REQUESTS[0], REQUESTS[1]],
    'only the original task and the standing constraint of the four-month-old work remain',
  )
  t.same(doc.sections.week.map((i) => i.pin), ['task', 'constraint'], 'in This Week, pinned')
  t.ok(doc.sections.session.some((i) => i.text.includes('export the transcripts as JSON')), 'the new work is in This Session')
})

t.test('a hand-written line in a manual summary does not age an imported session out', async (t) => {
  const { app } = await buildTestApp(t)
  const start = Date.now() - FOUR_MONTHS
  const all = conversation(start)
  const half = all.findIndex((m) => m.role === 'user' && m.content === REQUESTS[4])
  await summaryOf(app, 'edited', all.slice(0, half))
  const current = await call(app, 'GET', '/sessions/edited/summary')
  // A line without a time, as a person (or a model) writes it.
  const content = (current.content as string).replace('## Previously in This Session\n', '## Previously in This Session\n1. Decided to keep one pg.Pool per process\n')
  await call(app, 'PUT', '/sessions/edited/summary', { content, baseVersion: current.version })
  // The rest of the four-month-old session arrives.
  await call(app, 'POST', '/sessions/edited/messages', { messages: all.slice(half) })
  while ((await app.summaryWorker.runOnce()) > 0);
  const doc = parseSummary((await call(app, 'GET', '/sessions/edited/summary')).content, Date.now())
  t.same(kept(doc), REQUESTS, 'every user request is kept')
  t.ok(items(doc).some((i) => i.text.includes('pg.Pool')), 'and the hand-written line')
  t.equal(doc.sections.session.length, items(doc).length, 'all in "Previously in This Session"')
})

t.test('new messages still in the window count as activity: the old work ages as soon as the session resumes', async (t) => {
  const { app } = await buildTestApp(t)
  await summaryOf(app, 'resumed-window', conversation(Date.now() - FOUR_MONTHS))
  // One new exchange today: it stays in the window (4 messages), and pushes two old messages out.
  const appended = await call(app, 'POST', '/sessions/resumed-window/messages', {
    messages: [
      { role: 'user', content: 'Also export the transcripts as JSON.' },
      { role: 'assistant', content: 'Exported them to out/all.json.' },
    ],
  })
  t.ok(appended.evicted >= 1, 'old messages were evicted')
  while ((await app.summaryWorker.runOnce()) > 0);
  const doc = parseSummary((await call(app, 'GET', '/sessions/resumed-window/summary')).content, Date.now())
  t.notOk(items(doc).some((i) => i.text.includes('export the transcripts')), 'the new exchange is not folded: it is in the window')
  t.same(kept(doc), [REQUESTS[0], REQUESTS[1]], "the four-month-old work aged against today's message; the task and the constraint remain")
})
