/**
 * Issue 10, defect 7: URLs pass through summaries untouched. Paths are normalised for
 * the file trail (a leading `./` dropped, a relative path resolved against a known
 * working directory), but a URL (any `scheme://`) is never a path: no `//` collapsed,
 * no leading directories dropped, never cut in the middle. Checked on /compact's
 * summaries (the default pipeline, rules alone, and the truncate fallback) and on the
 * rolling session summary.
 */
import t from 'tap'
import { compact } from '../../src/engine/compaction/compact.ts'
import { TRUNCATE_HEAD_CHARS, TRUNCATE_TAIL_CHARS, TRUNCATION_MARKER, truncateSummarize } from '../../src/engine/compaction/summarizers/truncate.ts'
import { DEFAULT_COMPACT_OPTIONS, type CompactResult, type StrategyName, type SummaryRequest } from '../../src/engine/compaction/types.ts'
import { messageText } from '../../src/engine/messages/canonical.ts'
import { parseConversation } from '../../src/engine/messages/index.ts'
import { emptySummary, parseSummary, renderSummary, sessionExchanges, updateSummary } from '../../src/engine/sessions/index.ts'
import { urlSafeCut } from '../../src/engine/facts/text.ts'
import { heuristicCounter } from '../../src/engine/tokens/count.ts'
import { alteredUrls, FILE_URL, urlConversation, YOUTUBE } from '../helpers/url-conversation.ts'

const counter = heuristicCounter(false)

const summaryOf = (r: CompactResult) => (r.summary ? messageText(r.messages[r.summary.index]!) : '')

t.test('/compact summaries keep every URL byte for byte', async (t) => {
  const messages = parseConversation(urlConversation(), { format: 'openai' }).messages
  const pipelines: StrategyName[][] = [['mask', 'rules'], ['rules'], ['truncate']]
  for (const strategy of pipelines) {
    for (const targetTokens of [1_500, 3_000, 6_000]) {
      const res = await compact({ messages, counter, options: { ...DEFAULT_COMPACT_OPTIONS, format: 'openai', targetTokens, thresholdTokens: targetTokens, keepRecent: 4, force: true, strategy } })
      const label = `${strategy.join('+')} @${targetTokens}`
      t.ok(res.compacted, `${label}: compacted`)
      const summary = summaryOf(res)
      t.ok(summary.length > 0, `${label}: has a summary`)
      t.same(alteredUrls(summary), [], `${label}: no URL altered in the summary`)
      t.same(alteredUrls(res.messages.map(messageText).join('\n')), [], `${label}: nor anywhere in the output`)
      if (strategy[0] !== 'truncate') t.ok(summary.includes(YOUTUBE), `${label}: the task's URL is in the summary`)
    }
  }
})

t.test('the rolling summary keeps every URL byte for byte', async (t) => {
  const exchanges = sessionExchanges(parseConversation(urlConversation(), { format: 'openai' }).messages)
  for (const budget of [600, 1_500, 10_000]) {
    let doc = emptySummary()
    let text = ''
    // In batches, as the worker folds them, and through the stored text each time.
    for (let i = 0; i < exchanges.length; i += 4) {
      const res = updateSummary({ doc, exchanges: exchanges.slice(i, i + 4), now: Date.parse('2026-06-12T12:00:00Z'), budgetTokens: budget, counter })
      text = res.text
      t.same(alteredUrls(text), [], `budget ${budget}, batch ${i / 4}: no URL altered`)
      doc = parseSummary(text, Date.parse('2026-06-12T12:00:00Z'))
      t.equal(renderSummary(doc), text, 'the stored text reads back to itself')
    }
    t.ok(text.includes(YOUTUBE), `budget ${budget}: the URL is there`)
  }
})

t.test('the truncate fallback cuts around a URL, never through it', async (t) => {
  const words = (n: number) => 'lorem ipsum '.repeat(Math.ceil(n / 12)).slice(0, n)
  // "[user] " + filler puts the URL across the head's cut (2,000 characters), and another
  // across the tail's (the last 2,000).
  const text = `${words(TRUNCATE_HEAD_CHARS - 7 - 20)} ${YOUTUBE} ${words(1_000)} ${FILE_URL}/notes/a/long/enough/path.md ${words(TRUNCATE_TAIL_CHARS - 20)}`
  const messages = parseConversation([{ role: 'user', content: text }], { format: 'openai' }).messages
  const req = { messages, originalTask: text, round: 1, budgetTokens: 100_000, counter } as unknown as SummaryRequest
  const out = truncateSummarize(req).text
  t.ok(out.includes(TRUNCATION_MARKER), 'cut in the middle')
  const [head, tail] = out.split(TRUNCATION_MARKER) as [string, string]
  const second = `${FILE_URL}/notes/a/long/enough/path.md`
  // A cut URL leaves a prefix at the head's end or a suffix at the tail's start.
  const cutPrefix = [...YOUTUBE].map((_, k) => YOUTUBE.slice(0, k)).filter((p) => p.length >= 3).find((p) => head.endsWith(p))
  const cutSuffix = [...second].map((_, k) => second.slice(k)).filter((x, k) => k > 0 && x.length >= 3).find((x) => tail.startsWith(x))
  t.notOk(cutPrefix, `the head does not end in a cut URL: …${head.slice(-40)}`)
  t.notOk(cutSuffix, `the tail does not start with a cut URL: ${tail.slice(0, 40)}…`)
  t.ok(head.endsWith(YOUTUBE) || !head.includes('https:'), 'the head has the URL whole, or not at all')
  t.ok(tail.startsWith(second) || !tail.includes('file:'), 'the tail has the URL whole, or not at all')
  const body = head.slice(head.indexOf('[user]'))
  t.ok(body.length <= TRUNCATE_HEAD_CHARS && tail.length <= TRUNCATE_TAIL_CHARS, `the cuts stay within their sizes (${body.length}, ${tail.length})`)
})

t.test('urlSafeCut: a cut moves off a URL, and only off a URL', async (t) => {
  const s = `see ${YOUTUBE} and src//lib//util.ts then (${FILE_URL}) end`
  const inUrl = s.indexOf('youtube')
  t.equal(urlSafeCut(s, inUrl), s.indexOf('https:'), 'a head ends before the URL')
  t.equal(urlSafeCut(s, inUrl, true), s.indexOf(' and'), 'a tail starts after it')
  t.equal(urlSafeCut(s, s.indexOf('tps:')), s.indexOf('https:'), 'a cut inside the scheme too')
  t.equal(urlSafeCut(s, s.indexOf('lib//')), s.indexOf('lib//'), 'a path is cut where it is')
  t.equal(urlSafeCut(s, s.indexOf('///x') + 2), s.indexOf('file:'), 'after a bracket: the URL itself')
  t.equal(urlSafeCut(s, s.indexOf(' and')), s.indexOf(' and'), 'at a space: unchanged')
  const long = `${'x'.repeat(600)}https://example.com/${'a'.repeat(2000)}`
  t.equal(urlSafeCut(long, 1500, true), 1500, 'an unbroken token longer than the window is cut where it is')
})
