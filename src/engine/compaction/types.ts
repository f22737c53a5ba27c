/**
 * Contracts of the compaction engine. The engine is pure: messages in, a result out.
 * The only outside call, an LLM summary, goes through the injected SummarizerClient.
 */
import type { CacheEconomics, CacheSettings } from './cache-economics.ts'
import type { CanonicalMessage, MessageFormat } from '../messages/canonical.ts'
import type { TokenCounter } from '../tokens/count.ts'
import type { HandoverFacts } from '../facts/handover.ts'

/** A registered strategy's name (strategies/index.ts lists them; the route's enum checks a request's). */
export type StrategyName = string

/** Seed 003's continuation fields, filled by every summarizer. */
export interface KeyFacts {
  currentTask: string
  completedSteps: string[]
  pendingSteps: string[]
  keyDecisions: string[]
  relevantFiles: string[]
  /** Failing commands/tests with their error, and errors seen. */
  errors: string[]
  /** Every user request after the first, verbatim (constraints stated along the way). */
  userRequests: string[]
}

/** The summary of an earlier round found in the input. */
export interface PreviousSummary {
  round: number
  text: string
  /** Index of the summary message in the input. */
  index: number
}

/** What a summarizer strategy receives. */
export interface SummaryRequest {
  /** The messages to summarise, originals (not masked), in order; earlier summaries excluded (see facts.earlier). */
  messages: readonly CanonicalMessage[]
  /** The handover facts of those messages, extracted once by the orchestrator. */
  facts: HandoverFacts
  previousSummary?: PreviousSummary
  /** Text of the first user message (the original task). */
  originalTask: string
  /** Round number of the summary to produce. */
  round: number
  /** Hard cap on the summary's tokens (counted with `counter`, header included). */
  budgetTokens: number
  counter: TokenCounter
  preserveErrorDetails: boolean
  instructions?: string
  instructionsMode: 'replace' | 'append'
  /** Aborts an LLM call when the request is abandoned. */
  signal?: AbortSignal
}

export interface SummaryResult {
  /** Full summary text, starting with `## Session Summary (Compaction Round N)`. */
  text: string
  keyFacts: KeyFacts
  /** Tokens the summarizer model consumed and produced (0 for offline strategies). */
  usage: { inputTokens: number; outputTokens: number; calls: number }
  /** Model that wrote it, for cost; absent for offline strategies. */
  model?: string
  /** USD cost of the summarizer calls (registry prices × usage); 0 or absent offline. */
  costUsd?: number
  /**
   * Facts that did not fit the summary's budget, most important first, as action-log lines
   * with their importance. `unlogged`: no log line says it (a finding, what was learned
   * from an output: the log only names the call), so it is never dropped as a repeat.
   */
  overflow?: { text: string; priority: number; unlogged?: boolean }[]
}

/** Why there is no llm summarizer, when the caller does not say (a fallback's reason after `unavailable: `). */
export const NO_LLM_SUMMARIZER = 'no LLM summarizer is configured on this server'

/** A summarizer failure that moves the chain to the next strategy. */
export class SummarizerError extends Error {
  override readonly name = 'SummarizerError'
  constructor(
    /** Short machine-readable cause: timeout, rate_limited, server_error, malformed, empty, over_budget, context_overflow, unavailable... */
    readonly kind: string,
    message: string,
  ) {
    super(message)
  }
}

export interface Summarizer {
  /** Its strategy's name: the fallbacks and the result name it. */
  name: StrategyName
  summarize(req: SummaryRequest): Promise<SummaryResult>
}

/** One LLM completion, provider-neutral. Implemented in src/providers (I/O lives there). */
export interface CompletionRequest {
  system: string
  prompt: string
  maxOutputTokens: number
  signal?: AbortSignal
}

export interface CompletionResult {
  text: string
  inputTokens: number
  outputTokens: number
  /** True when the model stopped because of maxOutputTokens. */
  truncated: boolean
}

export interface SummarizerClient {
  provider: string
  model: string
  /** The summarizer model's context window, in tokens: no request may exceed it. */
  contextLimit: number
  /** Counts tokens of a prompt the way this client's model would (estimate). */
  countTokens(text: string): number
  /** Throws SummarizerError on any provider failure. */
  complete(req: CompletionRequest): Promise<CompletionResult>
  /** USD cost of a call with these tokens, from the model registry. */
  costUsd(inputTokens: number, outputTokens: number): number
}

export interface CompactOptions {
  format: MessageFormat
  /** Budget the output must fit, in tokens (counter's units). */
  targetTokens: number
  /** Conversation size at which compaction triggers; under it the input is returned untouched. */
  thresholdTokens: number
  /** Leading user turns kept verbatim (the original task). */
  keepFirst: number
  /** Most recent messages kept verbatim (aligned to tool-call boundaries). */
  keepRecent: number
  /** Alternative to keepRecent: most recent messages kept up to this many tokens. */
  keepRecentTokens?: number
  /**
   * Largest share of what the head leaves of the target that the recent window may take
   * when that leaves the summary under a thousand tokens; past it the tail shrinks (the
   * last message always stays). For a default window: a short session compacted to a
   * small budget would otherwise keep ten messages of passing tests verbatim and leave the
   * summary no room for the files it changed. Unset: the window is kept whenever it fits
   * (a caller's explicit keepRecent).
   */
  recentWindowShare?: number
  /** Pipeline, cheapest first. Summarizers after the first are its fallbacks. */
  strategy: StrategyName[]
  keepToolResults: number
  excludeTools: string[]
  /** Also shorten tool-call arguments longer than this many tokens (0: never). */
  clearToolInputsOver: number
  preserveErrorDetails: boolean
  maxSummaryTokens: number
  summaryRole?: 'system' | 'developer' | 'user' | 'assistant'
  instructions?: string
  instructionsMode: 'replace' | 'append'
  force: boolean
  /**
   * What the summary should give room to (issue 24), added to the default guidance, never
   * replacing it: the llm prompt gets it as a section of its own (also with
   * instructionsMode `replace`); the rules summary ranks the action-log lines that mention
   * its words above the others of their importance.
   */
  focus?: string
  /**
   * Indices into the input messages kept verbatim, byte for byte, wherever they sit, with
   * the tool calls or results they pair with (issue 24). The caller checks the contract
   * (use-cases/compact/contract.ts): the engine keeps them when the budget can.
   */
  pin?: number[]
  /**
   * A compaction saving fewer tokens than this is not made: the input comes back untouched
   * with the reason (issue 24: a cache break costs more than a small saving). It wins over
   * targetTokens. Checked on the plan's estimate before any summarizer is called, and on the
   * result. 0: any saving will do.
   */
  minGainTokens?: number
  /**
   * The thinking policy (transforms/thinking.ts): the reasoning of the last `keep` assistant
   * turns stays, the rest is dropped first, before any strategy; the turn in progress
   * keeps its reasoning always. Unset or 'all': reasoning is left as it is.
   */
  thinking?: { keep: number | 'all' }
  /**
   * The prompt cache's prices and state (cache-economics.ts): the result's event reports
   * what the compaction costs in cache writes against what it saves; with policy
   * `when-profitable` a compaction that does not pay over the horizon is not made.
   */
  cache?: CacheSettings
  dryRun: boolean
  /** What to do when the input itself pairs tool calls wrongly. */
  onBrokenInput: 'repair' | 'reject'
  /** Round of the previous checkpoint when the caller knows it (sessions); else from the input. */
  previousRound?: number
  /**
   * Set when what this compaction drops is archived (a stored compaction, issue 21):
   * placeholders and action-log lines then name the reference of the message they stand
   * for, and the summary says once how to search the archive.
   */
  references?: ArchiveReferences
}

/** How a compaction points at the archived originals of what it dropped. */
export interface ArchiveReferences {
  /** The reference of a message this compaction masks or summarises (engine/archive/record.ts). */
  refOf(message: CanonicalMessage): string
  /** The one line the summary carries about the archive and how to search it. */
  note: string
}

export const DEFAULT_COMPACT_OPTIONS = {
  keepFirst: 1,
  keepRecent: 10,
  recentWindowShare: 0.5,
  strategy: ['mask', 'rules'] as StrategyName[],
  keepToolResults: 3,
  excludeTools: [] as string[],
  clearToolInputsOver: 0,
  preserveErrorDetails: true,
  maxSummaryTokens: 2000,
  instructionsMode: 'append' as const,
  force: false,
  dryRun: false,
  onBrokenInput: 'repair' as const,
}

export interface FallbackRecord {
  strategy: StrategyName
  reason: string
}

export interface RepairRecord {
  index: number
  action: string
}

/** A contiguous range of input messages and what the engine does with it. */
export interface PlanRange {
  from: number
  to: number
  action: 'keep' | 'mask' | 'condense' | 'summarize'
  reason: string
}

export interface CompactionEvent {
  round: number
  tokensBefore: number
  tokensAfter: number
  compressionRatio: number
  messagesCompacted: number
  strategy: StrategyName | 'none'
  summaryTokens: number
  /**
   * The room the summary message had: targetTokens less what the rest of the output (the
   * head, the kept turns, the tail) takes. summaryTokens against it shows how much of the
   * budget the summary left unused (issue 22). 0 when no summary was written.
   */
  summaryRoomTokens: number
  costUsd: number
  durationMs: number
  /** With the `cache` option: the compaction's cache economics. */
  cache?: CacheEconomics
}

export interface CompactResult {
  compacted: boolean
  /** Why nothing was done, when compacted is false. */
  reason?: string
  messages: CanonicalMessage[]
  /** Which strategy produced the result. */
  strategy: StrategyName | 'none'
  fallbacks: FallbackRecord[]
  repairs: RepairRecord[]
  plan: PlanRange[]
  event: CompactionEvent
  summary?: { text: string; keyFacts: KeyFacts; role: string; index: number }
  /** Input index range that was summarised or masked. */
  compactedRange?: { from: number; to: number }
  /** What the thinking policy did, when one was given. */
  thinking?: ThinkingReport
}

export interface ThinkingReport {
  keep: number | 'all'
  /** Reasoning blocks (parts, Responses items) removed. */
  blocksDropped: number
  /** Messages whose reasoning was removed (a message of reasoning alone is removed whole). */
  messagesChanged: number
  /** Reasoning the policy would drop that the provider requires kept (Responses items tied to server ids). */
  keptForProvider: number
  /** Tokens the dropped reasoning took. */
  tokensFreed: number
}
