/**
 * `llm`: a summary written by the server's configured model (summarizers/llm.ts). The
 * caller lends the summarizer (the engine does no I/O); without one the step is recorded
 * as unavailable and the chain falls back.
 */
import { NO_LLM_SUMMARIZER } from '../types.ts'
import type { Strategy } from './strategy.ts'

export const llmStrategy = {
  name: 'llm',
  description: 'summary written by the configured model',
  needsLlm: true,
  offeredAs: ['mask', 'llm'],
  summarizer: (env) => env.llm ?? { unavailable: env.llmUnavailable ?? NO_LLM_SUMMARIZER },
} as const satisfies Strategy
