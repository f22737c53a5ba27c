/**
 * Issue 19: docs/api.md's `PUT /sessions/:id/summary` example, sent as written (its `…`
 * standing for the Continuation block) and then refreshed, lost the summary's
 * continuation: /continuation said "Current task: none". A hand-written version now keeps
 * the continuation fields its text does not state, and says which.
 */
import type { FastifyInstance } from 'fastify'
import t from 'tap'
import { buildTestApp } from '../../helpers/build.ts'
import { exchange, type Message } from '../../helpers/session-conversations.ts'

const post = (app: FastifyInstance, url: string, payload: object) => app.inject({ method: 'POST', url, payload })

/** docs/api.md's `PUT /sessions/:id/summary` example, as written there (its `…` included). */
const DOCUMENTED_PUT =
  '{"baseVersion":1,"content":"## Previously in This Session\\n1. Asked \\"Fix the failing test for src/module1.ts (task 1)\\"; … <!-- at=2026-11-23T17:38:24.017Z i=m k=fix f=src/module1.ts -->\\n2. Decided to keep one pg.Pool per process\\n\\n## Continuation\\n…"}'

/** An exchange whose user message is a bare "continue": harness text, not a new task. */
function continued(i: number, at: number): Message[] {
  const [first, ...rest] = exchange(i, { at, file: 'src/module1.ts' })
  return [{ ...first, content: 'continue' }, ...rest]
}

t.test("the documented PUT /summary example, refreshed after more messages, keeps the summary's continuation", async (t) => {
  const { app } = await buildTestApp(t)
  const at = Date.parse('2026-11-23T17:38:24.017Z')
  await app.inject({ method: 'PUT', url: '/sessions/agent-run-42', payload: { windowMessages: 6, batchSize: 1 } })
  await post(app, '/sessions/agent-run-42/messages', { messages: exchange(1, { at }) })
  await post(app, '/sessions/agent-run-42/messages', { messages: continued(2, at + 60_000) })
  await app.summaryWorker.runOnce()
  const v1 = (await app.inject({ method: 'GET', url: '/sessions/agent-run-42/continuation' })).json()
  t.equal(v1.version, 1)
  t.equal(v1.currentTask, 'Fix the failing test for src/module1.ts (task 1)')

  const put = await app.inject({ method: 'PUT', url: '/sessions/agent-run-42/summary', headers: { 'content-type': 'application/json' }, payload: DOCUMENTED_PUT })
  t.equal(put.statusCode, 200)
  t.equal(put.json().version, 2)
  t.same(put.json().continuationCarriedOver, ['currentTask', 'completedSteps', 'relevantFiles'], 'the answer says what the text did not state')
  t.match(put.json().text, /## Continuation\n…\nCurrent task: Fix the failing test for src\/module1\.ts \(task 1\)\n/, 'and the stored text states it')
  t.equal((await app.inject({ method: 'GET', url: '/sessions/agent-run-42/continuation' })).json().currentTask, v1.currentTask)

  // More messages (no new task), then a refresh: the update builds on the manual version.
  await post(app, '/sessions/agent-run-42/messages', { messages: continued(3, at + 120_000) })
  t.equal((await post(app, '/sessions/agent-run-42/summary/refresh', {})).statusCode, 202)
  await app.summaryWorker.runOnce()
  const after = (await app.inject({ method: 'GET', url: '/sessions/agent-run-42/continuation' })).json()
  t.equal(after.version, 3)
  t.equal(after.currentTask, 'Fix the failing test for src/module1.ts (task 1)', 'the task survived the refresh')
  t.match(after.prompt, /^\[Previous Session Context\]\nCurrent task: Fix the failing test for src\/module1\.ts \(task 1\)\n/)
  t.ok(after.relevantFiles.includes('src/module1.ts'))
  const summary = (await app.inject({ method: 'GET', url: '/sessions/agent-run-42/summary' })).json()
  t.match(summary.text, /Decided to keep one pg\.Pool per process/, "the hand-written item is kept")
  t.notMatch(summary.text, /^\d+\. …( |$)/m, 'the example\'s "…" did not become an item')

  // Stating a field replaces it; "none" clears it.
  const cleared = await app.inject({ method: 'PUT', url: '/sessions/agent-run-42/summary', payload: { content: `${summary.content.replace(/## Continuation[\s\S]*$/, '')}## Continuation\nCurrent task: none\nPending:\n- make close() idempotent\n` } })
  t.equal(cleared.statusCode, 200)
  t.notOk(cleared.json().continuationCarriedOver.includes('currentTask'))
  const now = (await app.inject({ method: 'GET', url: '/sessions/agent-run-42/continuation' })).json()
  t.equal(now.currentTask, '')
  t.same(now.pendingSteps, ['make close() idempotent'])
})
