/**
 * Compact one OpenAI conversation in every wire format at a share of its tokens, with the
 * default pipeline (mask + rules), as the service would: the tests of the issue-22 rules
 * check that what they add survives in each format, and says the same in each.
 */
import { compact } from '../../src/engine/compaction/compact.ts'
import { DEFAULT_COMPACT_OPTIONS, type CompactOptions, type CompactResult } from '../../src/engine/compaction/types.ts'
import { messageText, type MessageFormat } from '../../src/engine/messages/canonical.ts'
import { FORMAT_NAMES, getAdapter, parseConversation } from '../../src/engine/messages/index.ts'
import { countConversation, tokenizerCounter } from '../../src/engine/tokens/count.ts'

export const counter = tokenizerCounter('o200k_base')

export interface FormatRun {
  format: MessageFormat
  result: CompactResult
  /** The summary message's text ('' without one). */
  summary: string
  /** Every output message's text, joined. */
  output: string
}

export async function compactAllFormats(openaiMessages: readonly unknown[], share: number, extra: Partial<CompactOptions> = {}): Promise<FormatRun[]> {
  const canonical = parseConversation(openaiMessages as unknown[], { format: 'openai' }).messages
  const target = Math.floor(countConversation(canonical, counter).totalTokens * share)
  const runs: FormatRun[] = []
  for (const format of FORMAT_NAMES) {
    let messages = canonical
    if (format !== 'openai') {
      const wire = getAdapter(format).serialize(canonical)
      messages = parseConversation(wire.messages, { format, ...(wire.system !== undefined ? { system: wire.system } : {}) }).messages
    }
    const result = await compact({ messages, counter, options: { ...DEFAULT_COMPACT_OPTIONS, format, targetTokens: target, thresholdTokens: 0, ...extra } })
    const summary = result.summary ? messageText(result.messages[result.summary.index]!) : ''
    runs.push({ format, result, summary, output: result.messages.map(messageText).join('\n') })
  }
  return runs
}

/**
 * Options without the recent window's share: the window as a caller who sets keepRecent
 * gets it, kept whenever it fits. For tests whose premise is where the range ends.
 */
export function explicitWindow<T extends { recentWindowShare?: number }>(options: T): Omit<T, 'recentWindowShare'> {
  const { recentWindowShare: _share, ...rest } = options
  return rest
}
