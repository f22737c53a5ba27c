/**
 * GET /sessions/:id/context's compaction (./context.ts builds the input): the
 * session's head, summary and window trimmed to the budget by the offline strategies and
 * written in the requested format. A function of its input alone, so the compute pool
 * (src/plugins/compute-pool.ts) runs it on a thread, or on the event loop when it is small.
 */
import type { Config } from '../../config.ts'
import { compact } from '../../engine/compaction/compact.ts'
import type { CompactionEvent, CompactOptions, StrategyName } from '../../engine/compaction/types.ts'
import { serializeConversation, type CanonicalMessage, type MessageFormat } from '../../engine/messages/index.ts'
import { countConversation, type MessageCountCache } from '../../engine/tokens/count.ts'
import { defaultCounter, modelFor } from '../model-budget.ts'

export interface ContextCompactionInput {
  /** Head (system prompt, summary, evicted messages not yet folded in) and window, in order. */
  messages: CanonicalMessage[]
  options: CompactOptions
  /** The model whose tokenizer counts (the query's, else the session's, else DEFAULT_MODEL). */
  model: string | undefined
  /** The format the messages are written in. */
  format: MessageFormat
  /**
   * Compact only past this many tokens (the session's trigger threshold); Infinity: never
   * (trigger manual or off, mid-turn with notMidTurn, an open breaker), with `holdReason`.
   */
  compactAbove?: number
  holdReason?: string
}

export interface ContextCompactionResult {
  messages: unknown[]
  system?: unknown
  compacted: boolean
  strategy: StrategyName | 'none'
  event: CompactionEvent
  /** Why the context was not compacted though it is over the budget. */
  reason?: string
}

export async function computeContextCompaction(config: Config, input: ContextCompactionInput, env: { tokenCache?: MessageCountCache } = {}): Promise<ContextCompactionResult> {
  const counter = defaultCounter(modelFor(config, input.model), undefined, env.tokenCache)
  const above = input.compactAbove
  // Never compacted (Infinity): no count of its own; the engine counts once, as always.
  const held = above !== undefined && (above === Number.POSITIVE_INFINITY || countConversation(input.messages, counter).totalTokens <= above)
  // Held: the engine still runs, with a target it already meets, so the answer is the same shape.
  const options: CompactOptions = held ? { ...withoutThinking(input.options), targetTokens: Number.MAX_SAFE_INTEGER, thresholdTokens: Number.MAX_SAFE_INTEGER, force: false } : input.options
  const result = await compact({ messages: input.messages, options, counter })
  const serialized = serializeConversation(result.messages, input.format)
  return {
    messages: serialized.messages,
    ...(serialized.system !== undefined ? { system: serialized.system } : {}),
    compacted: result.compacted,
    strategy: result.strategy,
    event: result.event,
    ...(held && result.event.tokensAfter > input.options.targetTokens ? { reason: input.holdReason ?? `the trigger threshold ${above} is not reached` } : {}),
  }
}

/** The size of the input in bytes, roughly (≈4 bytes a token): what decides inline or pool. */
export function contextCompactionBytes(tokens: number): number {
  return 4 * tokens
}

/** A held context is not compacted at all: not even its reasoning is dropped. */
function withoutThinking(options: CompactOptions): CompactOptions {
  const { thinking: _thinking, ...rest } = options
  return rest
}
