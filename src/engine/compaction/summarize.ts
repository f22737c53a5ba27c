/**
 * Step "summarise": run the summarizer chain (the requested strategies, then rules and
 * truncate as fallbacks). A provider error, an empty, malformed or over-budget summary
 * moves to the next one, and each move is recorded with its reason.
 */
import { rulesSummarizer } from './summarizers/rules.ts'
import { truncateSummarizer } from './summarizers/truncate.ts'
import { detectSummaryRound } from './summary-format.ts'
import { NO_LLM_SUMMARIZER, SummarizerError, type FallbackRecord, type StrategyName, type Summarizer, type SummaryRequest, type SummaryResult } from './types.ts'

/**
 * The summarizers to try, in order: the requested ones, then rules and truncate as
 * fallbacks. Without `llm`, an `llm` step is recorded as unavailable with `llmUnavailable`.
 */
export function summarizerChain(strategy: readonly StrategyName[], llm: Summarizer | undefined, fallbacks: FallbackRecord[], llmUnavailable = NO_LLM_SUMMARIZER): Summarizer[] {
  const chain: Summarizer[] = []
  const add = (s: Summarizer) => {
    if (!chain.some((c) => c.name === s.name)) chain.push(s)
  }
  for (const name of strategy) {
    if (name === 'llm') {
      if (llm) add(llm)
      else fallbacks.push({ strategy: 'llm', reason: `unavailable: ${llmUnavailable}` })
    } else if (name === 'rules') add(rulesSummarizer)
    else if (name === 'truncate') add(truncateSummarizer)
  }
  // Always end with the one that cannot fail.
  add(rulesSummarizer)
  add(truncateSummarizer)
  return chain
}

export interface SummaryOutcome {
  summary: SummaryResult
  by: Exclude<StrategyName, 'mask'>
}

/** The first summary of the chain that is non-empty, well-formed and within its budget. */
export async function summarizeWithFallbacks(chain: readonly Summarizer[], req: SummaryRequest, fallbacks: FallbackRecord[]): Promise<SummaryOutcome | undefined> {
  for (const s of chain) {
    try {
      const res = await s.summarize(req)
      if (!res.text.trim()) throw new SummarizerError('empty', 'the summary was empty')
      if (detectSummaryRound(res.text) !== req.round) throw new SummarizerError('malformed', `the summary does not start with the round ${req.round} header`)
      const tokens = Math.ceil(req.counter.text(res.text) * req.counter.margin)
      if (tokens > req.budgetTokens) throw new SummarizerError('over_budget', `the summary has ${tokens} tokens, over its budget of ${req.budgetTokens}`)
      return { summary: res, by: s.name }
    } catch (err) {
      if (req.signal?.aborted) throw err
      const reason = err instanceof SummarizerError ? `${err.kind}: ${err.message}` : `error: ${err instanceof Error ? err.message : String(err)}`
      fallbacks.push({ strategy: s.name, reason })
    }
  }
  return undefined
}
