/** The compaction engine, as a library: no HTTP, no database. */
import fs from 'node:fs'
import path from 'node:path'
import fc from 'fast-check'
import t from 'tap'
import { explicitWindow } from '../../helpers/compact-all-formats.ts'
import { compact, CompactionError, type CompactInput } from '../../../src/engine/compaction/compact.ts'
import { findPairingProblems } from '../../../src/engine/conversation/pairing.ts'
import { DEFAULT_COMPACT_OPTIONS, SummarizerError, type CompactOptions, type StrategyName, type Summarizer } from '../../../src/engine/compaction/types.ts'
import { isSystemLike, messageText, type CanonicalMessage, type MessageFormat } from '../../../src/engine/messages/canonical.ts'
import { getAdapter, parseConversation, serializeConversation } from '../../../src/engine/messages/index.ts'
import { harnessNoisePositions, withoutHarnessText } from '../../../src/engine/compaction/transforms/harness.ts'
import { countConversation, heuristicCounter, tokenizerCounter } from '../../../src/engine/tokens/count.ts'
import { conversationInFormatArb } from '../../helpers/conversation-arbitraries.ts'
import { CONVERSATIONS, conversationsSkip, fixtureFiles } from '../../helpers/fixtures.ts'
import { applyPatchSession } from '../../helpers/handover-conversations.ts'

const counter = tokenizerCounter('o200k_base')
const tokens = (ms: readonly CanonicalMessage[]) => countConversation(ms, counter).totalTokens
const options = (format: MessageFormat, targetTokens: number, extra: Partial<CompactOptions> = {}): CompactOptions => ({
  ...DEFAULT_COMPACT_OPTIONS,
  format,
  targetTokens,
  thresholdTokens: targetTokens,
  ...extra,
})
const run = (messages: CanonicalMessage[], opts: CompactOptions, more: Partial<CompactInput> = {}) => compact({ messages, options: opts, counter, ...more })

/** A coding session in OpenAI format: a task, reads, an edit, failing then passing tests. */
function session(turns = 30): unknown[] {
  const out: unknown[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Fix the crash in src/cache.ts when the cache is cold. Do not change the public API.' },
  ]
  for (let i = 0; i < turns; i++) {
    const id = `c${i}`
    if (i === 5) out.push({ role: 'user', content: 'Constraint: keep Node 20 support, no new dependencies.' })
    if (i % 5 === 3) {
      out.push({ role: 'assistant', content: 'Running the tests.', tool_calls: [{ id, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command: 'npm test -- test/cache.test.ts' }) } }] })
      out.push({ role: 'tool', tool_call_id: id, content: `FAIL test/cache.test.ts\nTypeError: Cannot read properties of undefined (reading 'ttl')\n    at get (src/cache.ts:${40 + i}:12)\n${'  log line\n'.repeat(60)}exit code: 1` })
    } else if (i % 5 === 4) {
      out.push({ role: 'assistant', content: 'The root cause is that get() reads entry.ttl before checking the entry exists. I will guard it.', tool_calls: [{ id, type: 'function', function: { name: 'edit_file', arguments: JSON.stringify({ path: 'src/cache.ts', old_str: 'entry.ttl', new_str: 'entry?.ttl' }) } }] })
      out.push({ role: 'tool', tool_call_id: id, content: 'edited src/cache.ts' })
    } else {
      out.push({ role: 'assistant', content: `Reading src/module${i}.ts.`, tool_calls: [{ id, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: `src/module${i}.ts` }) } }] })
      out.push({ role: 'tool', tool_call_id: id, content: `export function f${i}() {\n${'  return compute(input) // body\n'.repeat(80)}}` })
    }
  }
  out.push({ role: 'assistant', content: 'Next I will run the full suite and then update the docs.' })
  return out
}

t.test('a long session compacts under budget, valid, with system, task and recent messages verbatim', async (t) => {
  const conv = parseConversation(session(), { format: 'openai' })
  const before = tokens(conv.messages)
  const target = Math.floor(before * 0.2)
  // keepRecent as a caller sets it (no share of the target): kept whenever it fits.
  const explicit = explicitWindow(options('openai', target))
  const res = await run(conv.messages, explicit)
  t.equal(res.compacted, true)
  t.ok(res.event.tokensAfter <= target, `${res.event.tokensAfter} <= ${target}`)
  t.equal(res.event.tokensAfter, tokens(res.messages), 'event tokens are the real count')
  t.ok(res.event.tokensAfter < res.event.tokensBefore)
  t.same(findPairingProblems(res.messages), [])
  t.equal(res.messages[0]!.raw, conv.messages[0]!.raw, 'system prompt is the same object')
  t.equal(res.messages[1]!.raw, conv.messages[1]!.raw, 'original task is the same object')
  const last = conv.messages.slice(-10)
  t.same(res.messages.slice(-10).map((m) => m.raw), last.map((m) => m.raw), 'last 10 messages verbatim')
  t.ok(res.messages.slice(-10).every((m, i) => m.raw === last[i]!.raw), 'byte-for-byte: the same objects')
  const summary = messageText(res.messages[2]!)
  t.match(summary, /^## Session Summary \(Compaction Round 1\)/)
  for (const section of ['### Original Task', '### Completed Work', '### Errors & Resolutions']) t.match(summary, section)
  t.match(summary, 'src/cache.ts', 'changed file named')
  t.match(summary, "TypeError: Cannot read properties of undefined (reading 'ttl')", 'error kept')
  t.match(summary, 'Constraint: keep Node 20 support, no new dependencies.', 'user constraint verbatim')
  t.match(res.summary?.keyFacts.relevantFiles, ['src/cache.ts'])
  t.ok(res.summary!.keyFacts.errors.length > 0)
  t.equal(res.event.strategy, 'rules')
  t.equal(res.event.messagesCompacted > 0, true)
})

t.test('the default recent window takes at most half of what the head leaves; a window the caller set is kept whenever it fits', async (t) => {
  // The class: short sessions compacted to a small budget, whose last ten messages (passing
  // tests, builds) would fit but leave the summary no room for the files the agent changed.
  const conv = parseConversation(applyPatchSession(), { format: 'openai' })
  const target = Math.floor(tokens(conv.messages) * 0.1)
  const head = tokens(conv.messages.slice(0, 2))
  const tailOf = (res: { messages: CanonicalMessage[] }) => res.messages.slice(res.messages.findIndex((m) => m.index === -1) + 1)
  const shared = await run(conv.messages, options('openai', target))
  t.ok(shared.event.tokensAfter <= target, 'fits')
  const tail = tailOf(shared)
  t.ok(tail.length >= 1 && tail.at(-1)!.raw === conv.messages.at(-1)!.raw, 'the last message stays verbatim')
  t.ok(tokens(tail) <= (target - head) * 0.5, `the tail (${tokens(tail)}) takes at most half of what the head leaves (${target - head})`)
  for (const fact of ['go.mod', 'go 1.22', 'github.com/rs/zerolog', 'backend/Dockerfile', 'golang:1.22-alpine', 'frontend/src/main.js', 'vue-sonner/style.css']) t.match(shared.summary?.text, fact, `the summary has room for the change: ${fact}`)

  const explicit = explicitWindow(options('openai', target))
  const kept = await run(conv.messages, explicit)
  t.ok(kept.event.tokensAfter <= target, 'fits with the whole window too')
  t.same(tailOf(kept).map((m) => m.raw), conv.messages.slice(-11).map((m) => m.raw), 'an explicit keepRecent: its messages verbatim, as they fit')
})

t.test('under the target the conversation comes back untouched (idempotent), unless forced', async (t) => {
  const conv = parseConversation(session(4), { format: 'openai' })
  const before = tokens(conv.messages)
  const res = await run(conv.messages, options('openai', before + 10))
  t.equal(res.compacted, false)
  t.match(res.reason, /already fit/)
  t.ok(res.messages.every((m, i) => m === conv.messages[i]), 'same messages')
  const again = await run(res.messages, options('openai', before + 10))
  t.equal(again.compacted, false)
  const forced = await run(conv.messages, options('openai', before + 10, { force: true, keepRecent: 2 }))
  t.equal(forced.compacted, true, 'force compacts anyway')
  t.ok(forced.event.tokensAfter < before)
})

t.test('rounds chain: round 2 integrates round 1 instead of summarising it blindly', async (t) => {
  const conv = parseConversation(session(40), { format: 'openai' })
  const first = await run(conv.messages, options('openai', Math.floor(tokens(conv.messages) * 0.3)))
  t.equal(first.event.round, 1)
  // The agent keeps working; the compacted conversation grows and is compacted again.
  const grown = parseConversation([...serializeConversation(first.messages, 'openai').messages, ...session(20).slice(2).map((m, i) => rename(m, i))], { format: 'openai' })
  const second = await run(grown.messages, options('openai', Math.floor(tokens(grown.messages) * 0.3)))
  t.equal(second.event.round, 2)
  const summaries = second.messages.filter((m) => /^## Session Summary/.test(messageText(m)))
  t.equal(summaries.length, 1, 'one summary, not a summary of a summary beside it')
  t.match(messageText(summaries[0]!), /^## Session Summary \(Compaction Round 2\)/)
  t.match(messageText(summaries[0]!), 'Constraint: keep Node 20 support', 'a round-1 fact survives round 2')
  t.match(messageText(summaries[0]!), /integrates 1 earlier compaction round/)
})

function rename(m: unknown, i: number): unknown {
  // Fresh tool call ids for the appended turns.
  const json = JSON.stringify(m).replace(/"c(\d+)"/g, (_s, n) => `"r${i}_${n}"`)
  return JSON.parse(json)
}

t.test('broken input is repaired (and reported), or refused on request', async (t) => {
  const broken = [
    { role: 'user', content: 'task' },
    { role: 'tool', tool_call_id: 'ghost', content: 'orphan result' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }] },
    { role: 'user', content: 'why did you stop?' },
    ...Array.from({ length: 12 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `message ${i} ${'x'.repeat(400)}` })),
  ]
  const conv = parseConversation(broken, { format: 'openai' })
  t.ok(findPairingProblems(conv.messages).length >= 2)
  const res = await run(conv.messages, options('openai', 600, { keepRecent: 4 }))
  t.same(findPairingProblems(res.messages), [], 'output is valid')
  t.same(res.repairs.map((r) => r.index), [1, 2])
  t.match(res.repairs[0]!.action, /removed tool result ghost/)
  t.match(res.repairs[1]!.action, /added "\[no result recorded\]"/)
  await t.rejects(run(conv.messages, options('openai', 600, { onBrokenInput: 'reject' })), CompactionError)
  try {
    await run(conv.messages, options('openai', 600, { onBrokenInput: 'reject' }))
  } catch (err) {
    t.equal((err as CompactionError).code, 'broken_tool_pairing')
    t.match((err as Error).message, /messages\[1\]/)
  }
})

t.test('an impossible budget is refused with the numbers, never overflowed', async (t) => {
  const conv = parseConversation(session(10), { format: 'openai' })
  try {
    await run(conv.messages, options('openai', 50))
    t.fail('should throw')
  } catch (err) {
    t.ok(err instanceof CompactionError)
    const e = err as CompactionError
    t.equal(e.code, 'budget_unreachable')
    t.equal(e.details.targetTokens, 50)
    t.ok((e.details.minimumTokens as number) > 50)
  }
})

t.test('when only the last turn is too big, it is masked rather than refused', async (t) => {
  const huge = [
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'task' },
    { role: 'assistant', content: 'Reading the log.', tool_calls: [{ id: 'x', type: 'function', function: { name: 'bash', arguments: '{"command":"cat build.log"}' } }] },
    { role: 'tool', tool_call_id: 'x', content: `${'noise line\n'.repeat(3000)}Error: linker failed\nexit code: 2` },
  ]
  const conv = parseConversation(huge, { format: 'openai' })
  const res = await run(conv.messages, options('openai', 1200))
  t.equal(res.compacted, true)
  t.ok(res.event.tokensAfter <= 1200)
  t.match(messageText(res.messages.at(-1)!), /masked.*exit 2.*Error: linker failed/s, 'digest keeps the command outcome and error')
  t.equal(res.plan.at(-1)!.action, 'condense')
})

t.test('dryRun returns the plan and calls no model', async (t) => {
  const conv = parseConversation(session(), { format: 'openai' })
  const llm: Summarizer = { name: 'llm', summarize: async () => t.fail('no model call in a dry run') as never }
  const res = await run(conv.messages, options('openai', Math.floor(tokens(conv.messages) * 0.2), { dryRun: true, strategy: ['llm'] }), { llm })
  t.equal(res.compacted, false)
  t.ok(res.messages.every((m, i) => m === conv.messages[i]), 'nothing changed')
  t.ok(res.plan.some((r) => r.action === 'summarize'))
  t.ok(res.plan.some((r) => r.action === 'keep' && r.reason === 'recent messages'))
  t.ok(res.event.tokensAfter <= Math.floor(tokens(conv.messages) * 0.2), 'estimated tokens after fit')
})

t.test('fallback chain: llm -> rules -> truncate, with the reasons', async (t) => {
  const conv = parseConversation(session(), { format: 'openai' })
  const target = Math.floor(tokens(conv.messages) * 0.2)
  const failing = (err: Error): Summarizer => ({ name: 'llm', summarize: async () => Promise.reject(err) })
  const rate = await run(conv.messages, options('openai', target, { strategy: ['llm'] }), { llm: failing(new SummarizerError('rate_limited', 'HTTP 429')) })
  t.equal(rate.strategy, 'rules')
  t.same(rate.fallbacks, [{ strategy: 'llm', reason: 'rate_limited: HTTP 429' }])
  t.notMatch(rate.summary!.text, /429/, 'the error never becomes the summary')

  const wordy: Summarizer = { name: 'llm', summarize: async (req) => ({ text: `## Session Summary (Compaction Round ${req.round})\n${'words '.repeat(5000)}`, keyFacts: rate.summary!.keyFacts, usage: { inputTokens: 1, outputTokens: 1, calls: 1 } }) }
  const over = await run(conv.messages, options('openai', target, { strategy: ['llm'] }), { llm: wordy })
  t.match(over.fallbacks[0]!.reason, /^over_budget/)
  t.equal(over.strategy, 'rules')

  const noHeader: Summarizer = { name: 'llm', summarize: async () => ({ text: 'Sure! Here is a summary.', keyFacts: rate.summary!.keyFacts, usage: { inputTokens: 1, outputTokens: 1, calls: 1 } }) }
  const malformed = await run(conv.messages, options('openai', target, { strategy: ['llm'] }), { llm: noHeader })
  t.match(malformed.fallbacks[0]!.reason, /^malformed/)

  const good: Summarizer = { name: 'llm', summarize: async (req) => ({ text: `## Session Summary (Compaction Round ${req.round})\n### Original Task\n${req.originalTask}`, keyFacts: rate.summary!.keyFacts, usage: { inputTokens: 900, outputTokens: 100, calls: 1 }, costUsd: 0.0012 }) }
  const ok = await run(conv.messages, options('openai', target, { strategy: ['llm'] }), { llm: good })
  t.equal(ok.strategy, 'llm')
  t.same(ok.fallbacks, [])
  t.equal(ok.event.costUsd, 0.0012)

  const none = await run(conv.messages, options('openai', target, { strategy: ['llm'] }))
  t.match(none.fallbacks[0]!.reason, /no LLM summarizer is configured/)
  t.equal(none.strategy, 'rules')

  const trunc = await run(conv.messages, options('openai', target, { strategy: ['truncate'] }))
  t.equal(trunc.strategy, 'truncate')
  t.match(trunc.summary!.text, /\[\.\.\. truncated \.\.\.\]/)
})

t.test('masking: excludeTools never masked, the last keepToolResults kept, clearToolInputs shortens inputs', async (t) => {
  const msgs: unknown[] = [{ role: 'system', content: 's' }, { role: 'user', content: 'task' }]
  for (let i = 0; i < 8; i++) {
    const name = i === 1 ? 'memory' : 'bash'
    msgs.push({ role: 'assistant', content: null, tool_calls: [{ id: `m${i}`, type: 'function', function: { name, arguments: JSON.stringify({ command: `echo ${i}`, script: 'y'.repeat(i === 2 ? 3000 : 1) }) } }] })
    msgs.push({ role: 'tool', tool_call_id: `m${i}`, content: `output ${i}\n${'data '.repeat(300)}` })
  }
  const conv = parseConversation(msgs, { format: 'openai' })
  const res = await run(conv.messages, options('openai', Math.floor(tokens(conv.messages) * 0.6), { strategy: ['mask'], keepRecent: 2, keepToolResults: 3, excludeTools: ['memory'], clearToolInputsOver: 200 }))
  t.equal(res.strategy, 'mask')
  const text = (id: string) => messageText(res.messages.find((m) => m.parts.some((p) => p.type === 'tool-result' && p.callId === id))!)
  t.match(text('m1'), /^output 1/, 'excluded tool kept')
  t.match(text('m0'), /^\[output masked by compactd\]/, 'old result masked')
  for (const id of ['m5', 'm6', 'm7']) t.match(text(id), new RegExp(`^output ${id.slice(1)}`), `${id}: one of the last 3 results kept`)
  const call2 = res.messages.find((m) => m.parts.some((p) => p.type === 'tool-call' && p.id === 'm2'))!
  t.ok(messageText(call2).length < 1000, 'large input cleared')
  t.same(findPairingProblems(res.messages), [])
})

t.test('keepRecentTokens keeps the recent messages that fit that many tokens', async (t) => {
  const conv = parseConversation(session(), { format: 'openai' })
  const res = await run(conv.messages, options('openai', Math.floor(tokens(conv.messages) * 0.3), { keepRecentTokens: 600 }))
  const recent = res.plan.find((r) => r.reason === 'recent messages')!
  const kept = conv.messages.slice(recent.from)
  t.ok(tokens(kept) - 3 <= 600, 'the verbatim tail is within keepRecentTokens')
})

t.test('anthropic output: summary role defaults to user; system role goes to the top-level system', async (t) => {
  const openai = parseConversation(session(), { format: 'openai' })
  const asAnthropic = serializeConversation(openai.messages, 'anthropic')
  const conv = parseConversation(asAnthropic.messages, { format: 'anthropic', system: asAnthropic.system })
  const target = Math.floor(tokens(conv.messages) * 0.25)
  const res = await run(conv.messages, options('anthropic', target))
  const out = serializeConversation(res.messages, 'anthropic')
  t.equal((out.messages[0] as { role: string }).role, 'user', 'first message is the user')
  t.equal(out.system, asAnthropic.system, 'system kept')
  const bySystem = await run(conv.messages, options('anthropic', target, { summaryRole: 'system' }))
  const out2 = serializeConversation(bySystem.messages, 'anthropic')
  t.match(JSON.stringify(out2.system), /Session Summary/, 'summary moved into the top-level system')
  t.notMatch(JSON.stringify(out2.messages), /Session Summary \(Compaction/)
})

const strategies: StrategyName[][] = [['mask', 'rules'], ['rules'], ['truncate'], ['mask']]

t.test('property: any conversation, any format: fits, pairs, keeps system and tail verbatim (harness text aside), stays valid', async (t) => {
  let compacted = 0
  let refused = 0
  await fc.assert(
    fc.asyncProperty(conversationInFormatArb({ maxTurns: 14 }), fc.constantFrom(...strategies), fc.double({ min: 0.15, max: 0.7, noNaN: true }), async (conv, strategy, share) => {
      const parsed = parseConversation(conv.messages, { format: conv.format, system: conv.system })
      const before = tokens(parsed.messages)
      const target = Math.max(1, Math.floor(before * share))
      let res
      try {
        res = await run(parsed.messages, options(conv.format, target, { strategy, force: true, keepRecent: 4 }))
      } catch (err) {
        if (err instanceof CompactionError && err.code === 'budget_unreachable') {
          refused++
          return
        }
        throw err
      }
      if (findPairingProblems(res.messages).length) throw new Error('pairing broken')
      if (res.compacted) {
        compacted++
        if (res.event.tokensAfter > target) throw new Error(`over budget: ${res.event.tokensAfter} > ${target}`)
        if (res.event.tokensAfter >= before) throw new Error('did not shrink')
      }
      for (const m of parsed.messages.filter(isSystemLike)) if (!res.messages.includes(m)) throw new Error('system message lost or changed')
      const tail = res.plan.at(-1)!
      if (tail.action === 'keep') {
        // Verbatim but for harness text (transforms/harness.ts): a harness-only message and its acknowledgement go.
        const noise = harnessNoisePositions(parsed.messages, 0)
        const adapter = getAdapter(conv.format)
        const kept = parsed.messages.filter((m, k) => m.index >= tail.from && m.index <= tail.to && !noise.has(k)).map((m) => withoutHarnessText(m, adapter))
        const outTail = res.messages.slice(-kept.length)
        if (!kept.every((m, i) => outTail[i] === m || JSON.stringify(outTail[i]!.raw) === JSON.stringify(m.raw))) throw new Error('tail not verbatim')
      }
      // Valid for the provider: it serializes and parses back in its own format.
      const out = serializeConversation(res.messages, conv.format)
      const back = parseConversation(out.messages, { format: conv.format, system: out.system })
      if (findPairingProblems(back.messages).length) throw new Error('pairing broken after serialization')
      if (conv.format === 'anthropic' && out.messages.length && (out.messages[0] as { role: string }).role !== 'user') throw new Error('anthropic must start with user')
    }),
    { numRuns: 150, seed: 42 },
  )
  t.ok(compacted > 50, `${compacted} compacted, ${refused} refused as unreachable`)
})

t.test('property: under the target nothing changes (idempotent)', async (t) => {
  await fc.assert(
    fc.asyncProperty(conversationInFormatArb({ maxTurns: 8 }), async (conv) => {
      const parsed = parseConversation(conv.messages, { format: conv.format, system: conv.system })
      const res = await run(parsed.messages, options(conv.format, tokens(parsed.messages) + 1))
      if (res.compacted || !res.messages.every((m, i) => m === parsed.messages[i])) throw new Error('changed under threshold')
    }),
    { numRuns: 60, seed: 7 },
  )
  t.pass('60 conversations unchanged')
})

const fixtures = fixtureFiles()

t.test('real sessions, in all three formats, through every strategy', { skip: conversationsSkip() }, async (t) => {
  const fast = heuristicCounter(false)
  for (const file of fixtures) {
    const { messages } = JSON.parse(fs.readFileSync(path.join(CONVERSATIONS, file), 'utf8'))
    const openai = parseConversation(messages, { format: 'openai' })
    for (const format of ['openai', 'anthropic', 'ai-sdk'] as const) {
      const ser = serializeConversation(openai.messages, format)
      const conv = parseConversation(ser.messages, { format, system: ser.system })
      const before = countConversation(conv.messages, fast).totalTokens
      for (const strategy of strategies) {
        const target = Math.floor(before * 0.25)
        try {
          const res = await compact({ messages: conv.messages, counter: fast, options: options(format, target, { strategy }) })
          t.same(findPairingProblems(res.messages), [], `${file} ${format} ${strategy}: pairing`)
          t.ok(res.event.tokensAfter <= target, `${file} ${format} ${strategy}: ${res.event.tokensAfter} <= ${target}`)
          serializeConversation(res.messages, format)
        } catch (err) {
          t.ok(err instanceof CompactionError && err.code === 'budget_unreachable', `${file} ${format} ${strategy}: only an unreachable budget may refuse (${(err as Error).message})`)
        }
      }
    }
  }
})

t.test('minGainTokens: a compaction saving less is not made, in any format; it wins over targetTokens', async (t) => {
  const calls: string[] = []
  const llm: Summarizer = {
    async summarize() {
      calls.push('llm')
      return { text: '## Session Summary (Compaction Round 1)\n\n### Original Task\nx', costUsd: 0 }
    },
  } as unknown as Summarizer
  await fc.assert(
    fc.asyncProperty(conversationInFormatArb({ maxTurns: 10 }), fc.double({ min: 0.2, max: 0.9, noNaN: true }), fc.integer({ min: 1, max: 4000 }), async (conv, share, minGain) => {
      const parsed = parseConversation(conv.messages, { format: conv.format, system: conv.system })
      const before = tokens(parsed.messages)
      const target = Math.max(1, Math.floor(before * share))
      let res
      try {
        res = await run(parsed.messages, options(conv.format, target, { minGainTokens: minGain }))
      } catch (err) {
        if (err instanceof CompactionError && err.code === 'budget_unreachable') return
        throw err
      }
      if (res.compacted && before - res.event.tokensAfter < minGain) throw new Error(`saved ${before - res.event.tokensAfter} < ${minGain}`)
      if (!res.compacted && !res.messages.every((m, i) => m === parsed.messages[i])) throw new Error('untouched but changed')
    }),
    { numRuns: 60, seed: 11 },
  )
  // A saving too small is refused before a summarizer is paid for.
  const conv = parseConversation(session(), { format: 'openai' })
  const before = tokens(conv.messages)
  const small = await run(conv.messages, options('openai', Math.floor(before * 0.5), { strategy: ['llm'], minGainTokens: before }), { llm })
  t.equal(small.compacted, false)
  t.match(small.reason, /^minGainTokens: the compaction would save \d+ tokens, fewer than \d+; returned unchanged/)
  t.same(calls, [], 'no summarizer call')
  const enough = await run(conv.messages, options('openai', Math.floor(before * 0.5), { minGainTokens: 10 }))
  t.equal(enough.compacted, true, 'a saving above it is made')
})
