/** `truncate`: the start and end of the compacted text (summarizers/truncate.ts); the last fallback. */
import { truncateSummarizer } from '../summarizers/truncate.ts'
import type { Strategy } from './strategy.ts'

export const truncateStrategy = {
  name: 'truncate',
  description: 'keep the start and end of the text',
  needsLlm: false,
  summarizer: () => truncateSummarizer,
  fallback: true,
} as const satisfies Strategy
