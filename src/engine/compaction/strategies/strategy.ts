/**
 * What a compaction strategy is: one module (mask.ts, rules.ts, llm.ts, truncate.ts)
 * registered in index.ts. A strategy plays one or both roles of the pipeline that
 * compact() runs:
 *
 *   keep        shrinks the middle turns that stay in the conversation (mask)
 *   summarizer  writes the summary of the turns that leave it (rules, llm, truncate)
 *
 * A request names a pipeline of strategies, cheapest first; index.ts resolves it into the
 * form of the kept turns, whether the summary carries an action log, and the chain of
 * summarizers with its fallbacks. Everything outside the engine (the route's enum, the
 * configuration, the CLI's flag, GET /strategies and the dashboard's menu) reads the
 * registry, so a new strategy is its module and one line there.
 */
import type { FormatAdapter } from '../../messages/adapter.ts'
import type { CanonicalMessage } from '../../messages/canonical.ts'
import type { TokenCounter } from '../../tokens/count.ts'
import type { MaskOptions } from '../transforms/mask.ts'
import type { PlanRange, Summarizer } from '../types.ts'

/** What the caller lends the strategies: the configured model, as a summarizer. */
export interface StrategyEnv {
  /** The server's LLM summarizer, when one is configured. */
  llm?: Summarizer
  /** Without `llm`: why there is none (the fallback's reason after `unavailable: `). */
  llmUnavailable?: string
}

/** A range of middle messages to shrink, and what may not be touched. */
export interface KeepRequest {
  /** The whole conversation: tool calls are looked up there. */
  messages: readonly CanonicalMessage[]
  /** The range, [from, to) message positions. */
  from: number
  to: number
  adapter: FormatAdapter
  counter: TokenCounter
  options: MaskOptions
  /** Call ids of tool results left as they are (the most recent ones). */
  exempt: ReadonlySet<string>
}

/** How the middle turns that stay in the conversation are shrunk. */
export interface KeptForm {
  /** How the plan reports these turns. */
  action: Extract<PlanRange['action'], 'mask' | 'condense'>
  reason: string
  /** Several forms in one pipeline: the highest rank wins. */
  rank: number
  /** Whether the turns the summary replaces become lines of its action log. */
  actionLog: boolean
  shrink(req: KeepRequest): CanonicalMessage[]
}

/** A summarizer, or why it cannot run here (recorded as the strategy's fallback). */
export type SummarizerOrReason = Summarizer | { unavailable: string }

export interface Strategy {
  readonly name: string
  /** One sentence: the API's docs, the CLI's help and the dashboard's menu show it. */
  readonly description: string
  /** Runs only with a model the server has configured; without one it falls back. */
  readonly needsLlm: boolean
  /** The pipeline the dashboard offers it in (default: itself alone). */
  readonly offeredAs?: readonly string[]
  /** Shrinks the kept middle turns. */
  readonly keep?: KeptForm
  /** With another strategy's `keep` in the pipeline, this form may replace it (by rank). */
  readonly keepAlongside?: KeptForm
  /** Writes the summary. */
  summarizer?(env: StrategyEnv): SummarizerOrReason
  /**
   * Ends every summarizer chain, in registry order, whether the pipeline names it or not:
   * set on the strategies that cannot fail.
   */
  readonly fallback?: boolean
}
