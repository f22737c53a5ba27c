/**
 * Format invariance (issue 9): the same conversation sent as OpenAI, Anthropic or AI SDK
 * messages compacts to the same summary text, keeps the same facts, and fits the budget
 * in each. Anthropic merges consecutive same-role turns and moves the system prompt out;
 * the AI SDK groups tool results: none of that may change what survives.
 */
import fs from 'node:fs'
import path from 'node:path'
import fc from 'fast-check'
import t from 'tap'
import { compact, CompactionError } from '../../../src/engine/compaction/compact.ts'
import { DEFAULT_COMPACT_OPTIONS, type CompactOptions, type CompactResult } from '../../../src/engine/compaction/types.ts'
import type { CanonicalMessage, MessageFormat } from '../../../src/engine/messages/canonical.ts'
import { getAdapter, parseConversation } from '../../../src/engine/messages/index.ts'
import { countConversation, tokenizerCounter } from '../../../src/engine/tokens/count.ts'
import { openaiConversationArb } from '../../helpers/conversation-arbitraries.ts'

const counter = tokenizerCounter('o200k_base')
const FIXTURES = path.resolve(import.meta.dirname, '../../../../shared/fixtures/conversations')
const fixtures = fs.existsSync(FIXTURES) ? fs.readdirSync(FIXTURES).filter((f) => f.endsWith('.json')) : []

/** The conversation in all three formats, converted by compactd's own adapters. */
export function inAllFormats(openaiMessages: unknown[]): { format: MessageFormat; messages: CanonicalMessage[] }[] {
  const canonical = parseConversation(openaiMessages, { format: 'openai' }).messages
  const out: { format: MessageFormat; messages: CanonicalMessage[] }[] = [{ format: 'openai', messages: canonical }]
  for (const format of ['anthropic', 'ai-sdk'] as const) {
    const s = getAdapter(format).serialize(canonical)
    out.push({ format, messages: parseConversation(s.messages, { format, system: s.system }).messages })
  }
  return out
}

async function compactAll(openaiMessages: unknown[], share: number, extra: Partial<CompactOptions> = {}): Promise<(CompactResult | 'unreachable')[]> {
  const forms = inAllFormats(openaiMessages)
  const before = countConversation(forms[0]!.messages, counter).totalTokens
  const target = Math.max(1, Math.floor(before * share))
  const out: (CompactResult | 'unreachable')[] = []
  for (const f of forms) {
    try {
      out.push(await compact({ messages: f.messages, counter, options: { ...DEFAULT_COMPACT_OPTIONS, format: f.format, targetTokens: target, thresholdTokens: target, force: true, ...extra } }))
    } catch (err) {
      if (err instanceof CompactionError && err.code === 'budget_unreachable') out.push('unreachable')
      else throw err
    }
  }
  return out
}

const summaryOf = (r: CompactResult | 'unreachable') => (r === 'unreachable' ? 'unreachable' : (r.summary?.text ?? '(no summary)'))

t.test('property: generated conversations give the same summary text in every format', async (t) => {
  let compared = 0
  await fc.assert(
    fc.asyncProperty(openaiConversationArb({ maxTurns: 14 }), fc.double({ min: 0.15, max: 0.6, noNaN: true }), async (messages, share) => {
      const results = await compactAll(messages, share, { keepRecent: 4 })
      const texts = results.map(summaryOf)
      if (new Set(texts).size !== 1) throw new Error(`summaries differ across formats:\n${texts.join('\n=====\n')}`)
      for (const r of results) {
        if (r !== 'unreachable' && r.compacted && r.event.tokensAfter > Math.floor(countConversation(r.messages, counter).totalTokens)) throw new Error('count mismatch')
      }
      if (results[0] !== 'unreachable' && results[0]!.summary) compared++
    }),
    { numRuns: 120, seed: 9 },
  )
  t.ok(compared > 30, `${compared} runs compared a summary`)
})

t.test('every fixture gives the same summary text in every format, at 10% and 25%', { skip: fixtures.length ? false : `fixtures not found at ${FIXTURES}` }, async (t) => {
  for (const file of fixtures) {
    const { messages } = JSON.parse(fs.readFileSync(path.join(FIXTURES, file), 'utf8')) as { messages: unknown[] }
    for (const share of [0.1, 0.25]) {
      const results = await compactAll(messages, share)
      const texts = results.map(summaryOf)
      t.equal(new Set(texts).size, 1, `${file} at ${share * 100}%: one summary text across openai, anthropic, ai-sdk`)
    }
  }
})
