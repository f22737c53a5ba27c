/**
 * GET /formats and POST /display: what a client (the dashboard) needs to show messages of
 * any format without a list or a parser of its own. /display of Responses items is
 * tested with that format (test/engine/messages/responses/responses-api.test.ts).
 */
import t from 'tap'
import { FORMAT_NAMES } from '../../src/engine/messages/index.ts'
import { buildTestApp } from '../helpers/build.ts'

t.test('GET /formats lists the registry: every format the routes accept, with a label', async (t) => {
  const { app } = await buildTestApp(t)
  const res = await app.inject({ method: 'GET', url: '/formats' })
  t.equal(res.statusCode, 200)
  const body = res.json() as { formats: { name: string; label: string }[]; default: string }
  t.same(body.formats.map((f) => f.name), [...FORMAT_NAMES])
  t.ok(body.formats.every((f) => f.label.length > 0), 'each has a label')
  t.equal(body.default, 'openai')
  // Each listed name is accepted as `format`, and a name not listed is a 400 naming the field.
  for (const f of body.formats) {
    // A user message with string content is the same object in every format.
    const shown = await app.inject({ method: 'POST', url: '/display', payload: { format: f.name, messages: [{ role: 'user', content: 'hello' }] } })
    t.equal(shown.statusCode, 200, f.name)
    t.same(shown.json().messages, [{ role: 'user', text: 'hello', calls: [], results: [] }], `${f.name} reads it`)
  }
  const unknown = await app.inject({ method: 'POST', url: '/display', payload: { format: 'gemini', messages: [] } })
  t.equal(unknown.statusCode, 400)
  t.match(unknown.body, /body\.format|format/)
})

t.test('POST /display: one display message per element, detected format, bad input a 400', async (t) => {
  const { app } = await buildTestApp(t)
  const messages = [
    { role: 'user', content: 'Fix the test.' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{"command":"npm test"}' } }] },
    { role: 'tool', tool_call_id: 'c1', content: 'FAIL src/db.test.ts' },
  ]
  const res = await app.inject({ method: 'POST', url: '/display', payload: { messages } })
  t.equal(res.statusCode, 200)
  t.same(res.json(), {
    format: 'openai',
    messages: [
      { role: 'user', text: 'Fix the test.', calls: [], results: [] },
      { role: 'assistant', text: '', calls: [{ id: 'c1', name: 'bash', args: '{"command":"npm test"}' }], results: [] },
      { role: 'tool', text: '', calls: [], results: [{ id: 'c1', text: 'FAIL src/db.test.ts' }] },
    ],
  })
  const notArray = await app.inject({ method: 'POST', url: '/display', payload: { messages: 'hello' } })
  t.equal(notArray.statusCode, 400)
  t.match(notArray.json().message, /messages/)
})
