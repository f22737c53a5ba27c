/** GET /metrics: Prometheus format, no API key, a registry per app, compactions and HTTP latency by route. */
import t from 'tap'
import { createApiKey } from '../../src/tenancy/api-keys.ts'
import { buildTestApp } from '../helpers/build.ts'

function toolSession(): Record<string, unknown>[] {
  const messages: Record<string, unknown>[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Read the files.' },
  ]
  for (let i = 0; i < 30; i++) {
    messages.push(
      { role: 'assistant', content: null, tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: `src/f${i}.ts` }) } }] },
      { role: 'tool', tool_call_id: `c${i}`, content: 'const x = 1\n'.repeat(150) },
    )
  }
  return messages
}

t.test('metrics: public, Prometheus text, per app, compactions and HTTP latency by route', async (t) => {
  const { app } = await buildTestApp(t, { backend: 'pglite' })
  const { app: other } = await buildTestApp(t, { backend: 'pglite' })
  const { key } = await createApiKey(app.db, 'm')
  await app.authOpenMode({ refresh: true })
  const auth = { authorization: `Bearer ${key}` }

  const compacted = await app.inject({ method: 'POST', url: '/compact', headers: auth, payload: { messages: toolSession(), targetTokens: 3000 } })
  t.equal(compacted.statusCode, 200)
  const ev = compacted.json().event
  await app.inject({ method: 'POST', url: '/compact', headers: auth, payload: { messages: toolSession(), targetTokens: 3000, dryRun: true } })
  await app.inject({ method: 'GET', url: '/sessions/none', headers: auth })

  const res = await app.inject({ method: 'GET', url: '/metrics' })
  t.equal(res.statusCode, 200, 'no API key needed')
  t.match(res.headers['content-type'], /^text\/plain; version=0\.0\.4/)
  const body = res.body
  t.match(body, /compactd_compactions_total\{strategy="\w+"\} 1\n/, 'one compaction (dry runs are not counted)')
  t.match(body, new RegExp(`compactd_compaction_tokens_saved_total ${ev.tokensBefore - ev.tokensAfter}\\n`))
  t.match(body, /compactd_http_request_duration_seconds_count\{method="POST",route="\/compact",status_code="200"\} 2/)
  t.match(body, /compactd_http_request_duration_seconds_count\{method="GET",route="\/sessions\/:id",status_code="404"\} 1/)
  t.match(body, /compactd_summary_queue_depth 0/)
  t.match(body, /compactd_process_cpu_seconds_total/)

  const mine = (await other.inject({ method: 'GET', url: '/metrics' })).body
  t.notMatch(mine, /compactd_compactions_total\{/, "another app's registry has not seen them")
})
