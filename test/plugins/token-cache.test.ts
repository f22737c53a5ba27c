/**
 * The token-count cache (issue 11): counts with a warm cache are exactly the cold counts,
 * in every format and with every counter; /estimate, /compact and the sessions code share
 * it; hits and misses are in /metrics; the size bound evicts; it holds no content; keys
 * are per tenant; TOKEN_CACHE_ENTRIES=0 turns it off.
 */
import fc from 'fast-check'
import t from 'tap'
import { neutralCounter } from '../../src/engine/conversation/segments.ts'
import type { CanonicalMessage, CanonicalPart } from '../../src/engine/messages/canonical.ts'
import { parseConversation } from '../../src/engine/messages/index.ts'
import {
  CACHE_MIN_CHARS,
  countConversation,
  heuristicCounter,
  messageCacheKey,
  messageTokens,
  tokenizerCounter,
  type MessageCountCache,
  type TokenCounter,
} from '../../src/engine/tokens/count.ts'
import { TokenCache } from '../../src/plugins/token-cache.ts'
import { createApiKey } from '../../src/tenancy/api-keys.ts'
import { conversationInFormatArb } from '../helpers/conversation-arbitraries.ts'
import { buildTestApp } from '../helpers/build.ts'

const COUNTERS: [string, (cache?: MessageCountCache) => TokenCounter][] = [
  ['tokenizer o200k', (c) => tokenizerCounter('o200k_base', c)],
  ['tokenizer cl100k', (c) => tokenizerCounter('cl100k_base', c)],
  ['heuristic', (c) => heuristicCounter(false, c)],
  ['heuristic with margin', (c) => heuristicCounter(true, c)],
]

/** Every count the engine takes of a message list: /estimate's and the planner's (neutral and real). */
function allCounts(messages: CanonicalMessage[], counter: TokenCounter) {
  const nc = neutralCounter(counter)
  return {
    conversation: countConversation(messages, counter),
    neutral: messages.map((m) => nc.content(m)),
    actual: messages.map((m) => nc.actual(m)),
    run: nc.tokens(messages),
  }
}

t.test('warm counts equal cold counts exactly: every format, every counter, estimate then plan and plan then estimate', async (t) => {
  let cached = 0
  fc.assert(
    fc.property(conversationInFormatArb({ maxTurns: 4 }), fc.boolean(), ({ format, messages: raw, system }, estimateFirst) => {
      const messages = parseConversation(raw, { format, system }).messages
      for (const [name, make] of COUNTERS) {
        const cold = allCounts(messages, make())
        const store = new TokenCache(10_000)
        const cache = store.for('tenant-a')
        // A counter with a cache, used the way /estimate (messageTokens) and /compact (the neutral counter) use it, in either order.
        const first = estimateFirst ? countConversation(messages, make(cache)) : allCounts(messages, make(cache)).conversation
        t.same(first, cold.conversation, `${name}, ${format}: counted while filling the cache`)
        const missesAfterFill = store.misses
        const warm = allCounts(messages, make(cache))
        t.same(warm, cold, `${name}, ${format}: counted from a warm cache`)
        const cacheable = messages.filter((m) => messageCacheKey(m, make(cache)) !== undefined).length
        // Once warm, every cacheable message is read from the cache; an /estimate-only entry gains its neutral count once.
        t.ok(store.hits >= cacheable, `${name}: ${store.hits} hits for ${cacheable} cacheable messages`)
        t.ok(store.misses - missesAfterFill <= (estimateFirst ? cacheable : 0), `${name}: no misses once warm (beyond neutral counts /estimate left out)`)
        cached += cacheable
      }
    }),
    { numRuns: 40, seed: 11 },
  )
  t.ok(cached > 0, 'the generated conversations had cacheable messages')
})

/** Strings of any UTF-16 code units: lone surrogates, U+FFFD, NUL, astral pairs. */
const unitsArb = fc.array(fc.oneof(fc.integer({ min: 0, max: 0xffff }), fc.constantFrom(0xd800, 0xdbff, 0xdc00, 0xdfff, 0xfffd, 0, 0x3a, 0x30)), { maxLength: 300 }).map((cs) => String.fromCharCode(...cs))
const partArb: fc.Arbitrary<CanonicalPart> = fc.oneof(
  unitsArb.map((text) => ({ type: 'text' as const, text })),
  unitsArb.map((text) => ({ type: 'reasoning' as const, text })),
  unitsArb.map((text) => ({ type: 'opaque' as const, text })),
  fc.tuple(unitsArb, unitsArb).map(([name, argsText]) => ({ type: 'tool-call' as const, id: 'c', name, argsText })),
  unitsArb.map((text) => ({ type: 'tool-result' as const, callId: 'c', text })),
  fc.constant({ type: 'image' as const }),
)
const messageArb: fc.Arbitrary<CanonicalMessage> = fc
  .record({ role: fc.constantFrom('system', 'user', 'assistant', 'tool', 'developer'), name: fc.option(unitsArb, { nil: undefined }), parts: fc.array(partArb, { maxLength: 4 }) })
  .map(({ role, name, parts }) => ({ role, parts, index: 0, format: 'openai' as const, raw: null, ...(name !== undefined ? { name } : {}) }))

t.test('any text (lone surrogates, U+FFFD, look-alike field splits): one cache, every message counted as cold', async (t) => {
  fc.assert(
    fc.property(fc.array(messageArb, { minLength: 1, maxLength: 12 }), (messages) => {
      for (const [name, make] of COUNTERS) {
        // One cache across all the messages: a key shared by two different messages would show here.
        const cache = new TokenCache(10_000).for('t')
        const cold = allCounts(messages, make())
        allCounts(messages, make(cache))
        t.same(allCounts(messages, make(cache)), cold, name)
      }
    }),
    { numRuns: 150, seed: 7 },
  )
})

t.test('keys: differ wherever a count may differ, never carry the text', async (t) => {
  const store = new TokenCache(100)
  const counter = tokenizerCounter('o200k_base', store.for('t1'))
  const msg = (text: string, extra: Partial<CanonicalMessage> = {}): CanonicalMessage => ({ role: 'user', parts: [{ type: 'text', text }], index: 0, format: 'openai', raw: null, ...extra })
  const key = (m: CanonicalMessage, c: TokenCounter = counter) => messageCacheKey(m, c)!
  // UTF-8 turns every lone surrogate into U+FFFD: the keys must not.
  const lone = [key(msg('a\ud800')), key(msg('a\ud801')), key(msg('a\udc00')), key(msg('a\ufffd'))]
  t.equal(new Set(lone).size, 4, 'lone surrogates and U+FFFD have distinct keys')
  // Field boundaries: the same characters split differently.
  const split = [
    key(msg('ab')),
    key({ ...msg(''), parts: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }),
    key({ ...msg('b'), name: 'a' }),
    key({ ...msg(''), parts: [{ type: 'tool-call', id: 'x', name: 'a', argsText: 'b' }] }),
    key({ ...msg(''), parts: [{ type: 'tool-call', id: 'x', name: 'ab', argsText: '' }] }),
    key({ ...msg(''), parts: [{ type: 'reasoning', text: 'ab' }] }),
    key({ ...msg('ab'), role: 'assistant' }),
  ]
  t.equal(new Set(split).size, split.length, 'no two field layouts share a key')
  t.not(key(msg('hello')), key(msg('hello'), tokenizerCounter('cl100k_base', store.for('t1'))), 'per encoding')
  t.not(key(msg('hello')), key(msg('hello'), tokenizerCounter('o200k_base', store.for('t2'))), 'per tenant')
  t.equal(key(msg('hello'), heuristicCounter(false, store.for('t1'))), undefined, `heuristic: messages under ${CACHE_MIN_CHARS.heuristic} characters are counted, not cached`)
  t.equal(key(msg('x'.repeat(CACHE_MIN_CHARS.heuristic)), heuristicCounter(false, store.for('t1'))), key(msg('x'.repeat(CACHE_MIN_CHARS.heuristic)), heuristicCounter(true, store.for('t1'))), 'the margin is applied after the cache')
  t.equal(messageCacheKey(msg('hello'), tokenizerCounter('o200k_base')), undefined, 'no cache, no key')
  t.match(key(msg('the secret plan')), /^[A-Za-z0-9+/]{43}=$/, 'a SHA-256 digest')
})

t.test('the LRU: bounded, evicts the least recently used', async (t) => {
  const store = new TokenCache(3)
  const cache = store.for('t')
  const counter = tokenizerCounter('o200k_base', cache)
  const ms = ['one', 'two', 'three', 'four'].map((text): CanonicalMessage => ({ role: 'user', parts: [{ type: 'text', text }], index: 0, format: 'openai', raw: null }))
  for (const m of ms.slice(0, 3)) messageTokens(m, counter)
  messageTokens(ms[0]!, counter) // most recently used now
  messageTokens(ms[3]!, counter) // evicts "two"
  t.equal(store.size, 3)
  const before = store.misses
  messageTokens(ms[0]!, counter)
  t.equal(store.misses, before, '"one" was kept')
  messageTokens(ms[1]!, counter)
  t.equal(store.misses, before + 1, '"two" was evicted and is counted again')
})

// ---------------------------------------------------------------------------
// Through the app

interface Sample {
  [name: string]: number
}

function metric(text: string, name: string): number | undefined {
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text)
  return m ? Number(m[1]) : undefined
}

async function cacheMetrics(app: Awaited<ReturnType<typeof buildTestApp>>['app']): Promise<Sample> {
  const text = (await app.inject({ method: 'GET', url: '/metrics' })).body
  return { hits: metric(text, 'compactd_token_cache_hits_total') ?? NaN, misses: metric(text, 'compactd_token_cache_misses_total') ?? NaN, entries: metric(text, 'compactd_token_cache_entries') ?? NaN }
}

const SECRET = 'zebra-passphrase-7731'
function history(n: number): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [
    { role: 'system', content: 'You are a coding agent. Use the tools; keep changes minimal.' },
    { role: 'user', content: `Fix the failing test. The deploy key is ${SECRET}; never print it.` },
  ]
  for (let i = 0; out.length < n; i++) {
    out.push({ role: 'assistant', content: `Reading file ${i}.`, tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: `src/f${i}.ts` }) } }] })
    out.push({ role: 'tool', tool_call_id: `c${i}`, content: `export const v${i} = ${i} // ${SECRET} ${'x'.repeat(200)}\n`.repeat(3) })
  }
  return out.slice(0, n)
}

t.test('/estimate: a resent history is read from the cache, same response; hits and misses in /metrics', async (t) => {
  // Compaction on the event loop here (no compute threads), where it shares the app's cache.
  const { app } = await buildTestApp(t, { backend: 'pglite', config: { COMPUTE_THREADS: 0 } })
  const messages = history(20)
  const first = await app.inject({ method: 'POST', url: '/estimate', payload: { model: 'gpt-4o', method: 'tokenizer', messages } })
  t.equal(first.statusCode, 200)
  const m1 = await cacheMetrics(app)
  t.same(m1, { hits: 0, misses: 20, entries: 20 }, 'every message counted and stored once')
  const again = await app.inject({ method: 'POST', url: '/estimate', payload: { model: 'gpt-4o', method: 'tokenizer', messages: [...messages, { role: 'user', content: 'Go on.' }] } })
  const m2 = await cacheMetrics(app)
  t.same(m2, { hits: 20, misses: 21, entries: 21 }, 'the resent 20 are hits, the new one a miss')
  t.same(again.json().perMessage.slice(0, 20), first.json().perMessage, 'the same counts')

  // Heuristic: only messages of CACHE_MIN_CHARS or more are looked up.
  const long = messages.filter((m) => JSON.stringify(m).length > 400).length
  await app.inject({ method: 'POST', url: '/estimate', payload: { model: 'gpt-4o', method: 'heuristic', messages } })
  const m3 = await cacheMetrics(app)
  t.ok(m3.misses - m2.misses >= long && m3.misses - m2.misses < 20, `heuristic: ${m3.misses - m2.misses} stored (short messages are counted, not cached)`)

  // /compact and the sessions code share it: the same messages, model and tenant.
  const compacted = await app.inject({ method: 'POST', url: '/compact', payload: { model: 'gpt-4o', messages, targetTokens: 1_000_000 } })
  t.equal(compacted.statusCode, 200)
  t.equal(compacted.json().compacted, false)
  const m4 = await cacheMetrics(app)
  t.equal(m4.hits - m3.hits, 20, '/compact reads the 20 counts /estimate stored')
  t.equal(compacted.json().event.tokensBefore, again.json().totalTokens - again.json().perMessage[20].tokens, 'and counts the same total')

  const appended = await app.inject({ method: 'POST', url: '/sessions/s1/messages', payload: { messages } })
  t.equal(appended.statusCode, 200)
  const m5 = await cacheMetrics(app)
  t.equal(m5.hits - m4.hits, 20, 'a session append reads them too')
  const context = await app.inject({ method: 'GET', url: '/sessions/s1/context?budget=1000000' })
  t.equal(context.statusCode, 200)
  const m6 = await cacheMetrics(app)
  t.ok(m6.hits - m5.hits >= 20, 'GET /context counts from the cache')
  t.equal(m6.misses, m5.misses, 'with no miss')
})

t.test('/compact on a compute thread: the thread keeps its own cache, its hits and misses reach /metrics', async (t) => {
  const { app } = await buildTestApp(t, { backend: 'pglite', config: { COMPUTE_THREADS: 1, COMPUTE_INLINE_MAX_BYTES: 0 } })
  const payload = { model: 'gpt-4o', messages: history(20), targetTokens: 1_000_000 }
  const first = await app.inject({ method: 'POST', url: '/compact', payload })
  t.equal(first.statusCode, 200)
  t.equal(app.compute.stats().completed, 1, 'it ran on the thread')
  t.same(await cacheMetrics(app), { hits: 0, misses: 20, entries: 20 }, 'the thread counted and stored every message')
  t.equal(app.tokenCache!.size, 0, "the event loop's cache is untouched")
  const second = await app.inject({ method: 'POST', url: '/compact', payload })
  t.same(await cacheMetrics(app), { hits: 20, misses: 20, entries: 20 }, 'the second call reads them on the thread')
  t.same(second.json().event.tokensBefore, first.json().event.tokensBefore)
  const { app: inline } = await buildTestApp(t, { backend: 'pglite', config: { COMPUTE_THREADS: 0, TOKEN_CACHE_ENTRIES: 0 } })
  t.same((await inline.inject({ method: 'POST', url: '/compact', payload })).json().messages, second.json().messages, 'the same result as without a cache')
})

t.test('the cache holds no content: keys are digests, values numbers', async (t) => {
  const { app } = await buildTestApp(t, { backend: 'pglite' })
  const messages = history(12)
  await app.inject({ method: 'POST', url: '/estimate', payload: { model: 'gpt-4o', method: 'tokenizer', messages } })
  await app.inject({ method: 'POST', url: '/compact', payload: { model: 'claude-sonnet-4-5', messages, targetTokens: 1_000_000 } })
  const entries = app.tokenCache!.entries()
  // 12 exact counts (o200k) and the heuristic's for the messages long enough to cache (the Claude model).
  t.ok(entries.length > 12, `${entries.length} entries`)
  for (const [key, value] of entries) {
    t.match(key, /^[A-Za-z0-9+/]{43}=$/, 'key: a SHA-256 digest')
    t.same(Object.keys(value).sort(), Object.keys(value).includes('neutral') ? ['actual', 'neutral'] : ['actual'])
    t.ok(Object.values(value).every((v) => Number.isInteger(v)), 'value: integers only')
  }
  t.notOk(JSON.stringify(entries).includes(SECRET.slice(0, 8)), 'no message text anywhere')
})

t.test('TOKEN_CACHE_ENTRIES bounds the cache; 0 turns it off', async (t) => {
  // One cache: on the event loop (a pool thread keeps its own, and two would hold 5 each).
  const { app: small } = await buildTestApp(t, { backend: 'pglite', config: { TOKEN_CACHE_ENTRIES: 5, COMPUTE_THREADS: 0 } })
  const messages = history(20)
  const payload = { model: 'gpt-4o', method: 'tokenizer', messages }
  const a = await small.inject({ method: 'POST', url: '/estimate', payload })
  await small.inject({ method: 'POST', url: '/estimate', payload })
  const m = await cacheMetrics(small)
  t.equal(m.entries, 5, 'at most 5 entries')
  t.equal(m.misses, 40, 'in order, 20 messages through 5 entries: every one evicted before it came back')

  const { app: off } = await buildTestApp(t, { backend: 'pglite', config: { TOKEN_CACHE_ENTRIES: 0 } })
  t.equal(off.tokenCache, undefined)
  const b = await off.inject({ method: 'POST', url: '/estimate', payload })
  t.same(b.json(), a.json(), 'the same answer without a cache')
  const text = (await off.inject({ method: 'GET', url: '/metrics' })).body
  t.notOk(text.includes('compactd_token_cache_'), 'no cache metrics when off')
})

t.test('tenants do not share entries', async (t) => {
  const { app } = await buildTestApp(t, { backend: 'pglite' })
  const a = await createApiKey(app.db, 'tenant-a')
  const b = await createApiKey(app.db, 'tenant-b')
  await app.authOpenMode({ refresh: true })
  const payload = { model: 'gpt-4o', method: 'tokenizer', messages: history(10) }
  const asA = await app.inject({ method: 'POST', url: '/estimate', payload, headers: { authorization: `Bearer ${a.key}` } })
  const asB = await app.inject({ method: 'POST', url: '/estimate', payload, headers: { authorization: `Bearer ${b.key}` } })
  t.same(asB.json(), asA.json())
  t.same(await cacheMetrics(app), { hits: 0, misses: 20, entries: 20 }, 'tenant b counted its own copy: no timing tells it what tenant a sent')
  await app.inject({ method: 'POST', url: '/estimate', payload, headers: { authorization: `Bearer ${a.key}` } })
  t.equal((await cacheMetrics(app)).hits, 10, 'tenant a hits its own entries')
})
