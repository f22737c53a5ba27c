/**
 * Issue 10, defect 7, through the HTTP API: URLs (`https://www.youtube.com/watch?v=abc`,
 * `file:///x`, one with `//` in its path) come back byte for byte in POST /compact's
 * summary and in the rolling session summary, while a path with `//` sits next to them.
 */
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildTestApp } from './helpers/build.ts'
import { alteredUrls, FILE_URL, URLS, urlConversation, YOUTUBE } from './helpers/url-conversation.ts'

async function call(app: FastifyInstance, method: 'GET' | 'PUT' | 'POST', url: string, payload?: object) {
  const res = await app.inject({ method, url, ...(payload ? { payload } : {}) })
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`)
  return res.json()
}

t.test('POST /compact: the summary keeps every URL byte for byte', async (t) => {
  const { app } = await buildTestApp(t)
  for (const strategy of [['mask', 'rules'], ['truncate']]) {
    const body = await call(app, 'POST', '/compact', { messages: urlConversation(), model: 'gpt-4o', targetTokens: 3000, keepRecent: 4, force: true, strategy })
    t.equal(body.compacted, true, `${strategy}: compacted`)
    t.same(alteredUrls(body.summary.text), [], `${strategy}: no URL altered in summary.text`)
    t.same(alteredUrls(JSON.stringify(body.messages).replace(/\\[nt"]/g, ' ')), [], `${strategy}: nor in the messages`)
    if (strategy[0] !== 'truncate') {
      t.ok(body.summary.text.includes(YOUTUBE), `${strategy}: the YouTube URL is in the summary`)
      t.same(alteredUrls(JSON.stringify(body.summary.keyFacts).replace(/\\[nt"]/g, ' ')), [], `${strategy}: nor in keyFacts`)
    }
  }
})

t.test('the rolling summary and the continuation keep every URL byte for byte', async (t) => {
  const { app } = await buildTestApp(t)
  await call(app, 'PUT', '/sessions/urls', { windowMessages: 6, batchSize: 1 })
  await call(app, 'POST', '/sessions/urls/messages', { messages: urlConversation() })
  while ((await app.summaryWorker.runOnce()) > 0);
  const summary = await call(app, 'GET', '/sessions/urls/summary')
  t.ok(summary.version >= 1, 'a summary was written')
  for (const field of ['content', 'text'] as const) {
    t.same(alteredUrls(summary[field]), [], `${field}: no URL altered`)
    t.ok(summary[field].includes(YOUTUBE), `${field}: the YouTube URL is there`)
  }
  t.ok(URLS.some((u) => u !== YOUTUBE && summary.text.includes(u)) || summary.text.includes(FILE_URL), 'another URL is there too')
  const continuation = await call(app, 'GET', '/sessions/urls/continuation')
  t.same(alteredUrls(JSON.stringify(continuation).replace(/\\[nt"]/g, ' ')), [], 'the continuation: no URL altered')
})
