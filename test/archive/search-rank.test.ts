/**
 * Ranking: compactd's own earlier summaries, archived when a later round summarises
 * them, repeat the originals' words densely. They rank below the originals that say the
 * same, and are still found when nothing else matches.
 */
import t from 'tap'
import { archiveMessages } from '../../src/archive/repository.ts'
import { archiveRecord } from '../../src/engine/archive/record.ts'
import { summaryHeader } from '../../src/engine/facts/summary-header.ts'
import { parseConversation } from '../../src/engine/messages/index.ts'
import { DEFAULT_TENANT_NAME, ensureTenant } from '../../src/tenancy/api-keys.ts'
import { buildTestApp } from '../helpers/build.ts'

const filler = (n: number) => Array.from({ length: n }, (_, i) => `chroma/client.py:${100 + i}:     logger.debug("batch %d queued", n)`).join('\n')

t.test("an earlier compactd summary ranks below the original it summarised", async (t) => {
  const { app } = await buildTestApp(t)
  const tenantId = await ensureTenant(app.db, DEFAULT_TENANT_NAME)
  const original = `${filler(40)}\nchroma/batch.py:88: except RateLimitError: retry with exponential backoff, capped at 32 seconds\n${filler(40)}`
  const summary = `${summaryHeader(1)}\n\n### Findings\n- The Chroma batch path retries RateLimitError with exponential backoff capped at 32 seconds\n- The rolling window is 7 days (only the summary says so)`
  const messages = [
    { role: 'user', content: 'How does the Chroma batch path handle rate limits?' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{"command":"rg -n RateLimitError chroma/"}' } }] },
    { role: 'tool', tool_call_id: 'c1', content: original },
    { role: 'user', content: summary },
  ]
  const records = parseConversation(messages).messages.map((m) => archiveRecord(m))
  await app.db.transaction().execute((trx) => archiveMessages(trx, tenantId, 's', records, { checkpointNum: 2, source: 'compact' }))

  const hits = (await app.inject({ method: 'GET', url: `/sessions/s/search?q=${encodeURIComponent('RateLimitError backoff capped seconds')}` })).json().hits
  t.ok(hits.length >= 2, `both found (${hits.length})`)
  t.equal(hits[0].role, 'tool', 'the original tool output first')
  t.equal(hits[0].ref, records[2]!.ref)
  const summaryHit = hits.find((h: { ref: string }) => h.ref === records[3]!.ref)
  t.ok(summaryHit, 'the summary is still a hit')

  const only = (await app.inject({ method: 'GET', url: `/sessions/s/search?q=${encodeURIComponent('rolling window days')}` })).json().hits
  t.equal(only[0]?.ref, records[3]!.ref, 'what only the summary says is found in it')
})
