/**
 * POST /estimate's counting (the compute task `estimate`): parse any format, count
 * tokens by the chosen method, and compare with the model's compaction threshold. The
 * use case that decides where it runs is ./estimate.ts.
 */
import type { z } from 'zod'
import type { Config } from '../../config.ts'
import type { CanonicalMessage, MessageFormat } from '../../engine/messages/canonical.ts'
import { getAdapter, parseConversation, serializeConversation, withSeparateSystem } from '../../engine/messages/index.ts'
import { countConversation, heuristicCounter, type MessageCountCache, type TokenCounter } from '../../engine/tokens/count.ts'
import type { ProviderTokenCounter } from '../../providers/anthropic-count.ts'
import { defaultCounter, estimateThreshold, modelFor } from '../model-budget.ts'
import type { estimateBody, estimateResponse } from '../shapes/estimate.ts'

/**
 * POST /estimate's body, as the route validated it (src/use-cases/shapes/estimate.ts),
 * and `perMessage: false` (the query's) when the caller wants only the totals.
 */
export type EstimateInput = z.infer<typeof estimateBody> & { perMessage?: boolean }
export type EstimateResult = z.infer<typeof estimateResponse>
export type EstimateMethod = NonNullable<EstimateInput['method']>

/** Whether `estimate` counts by the heuristic, by the same rule it counts with (defaultCounter). */
export function countsByHeuristic(config: Config, input: EstimateInput): boolean {
  if (input.method === 'tokenizer' || input.method === 'provider') return false
  return defaultCounter(modelFor(config, input.model, input.contextLimit), input.method).method === 'heuristic'
}

export async function estimate(config: Config, input: EstimateInput, providerCounter: ProviderTokenCounter, cache?: MessageCountCache): Promise<EstimateResult> {
  const conversation = parseConversation(input.messages, { format: input.format, system: input.system })
  const model = modelFor(config, input.model, input.contextLimit)
  // Before counting: a request whose own settings leave no room is refused cheaply.
  const { threshold, note } = estimateThreshold(config, model, input)
  const messages = withSeparateSystem(conversation, input.system)

  let method: EstimateMethod
  let counter: TokenCounter
  let fallback: EstimateResult['fallback']
  let providerTotal: number | undefined

  if (input.method === 'provider') {
    counter = heuristicCounter(!model.encoding, cache)
    method = 'heuristic'
    if (model.provider !== 'anthropic') {
      fallback = { from: 'provider', reason: `provider counting is available for Anthropic models only; "${model.id}" is ${model.provider}` }
    } else {
      const serialized = serializeConversation(conversation.messages, 'anthropic')
      // A format with a top-level system prompt already parsed it into the messages.
      const system = serialized.system ?? (getAdapter(conversation.format).detection.topLevelSystem ? undefined : input.system)
      const res = await providerCounter.count({ model: model.id, messages: serialized.messages, system, tools: input.tools })
      if (res.ok) {
        method = 'provider'
        providerTotal = res.inputTokens
      } else {
        fallback = { from: 'provider', reason: res.reason }
      }
    }
  } else {
    counter = defaultCounter(model, input.method, cache)
    method = counter.method
  }

  const counted = countConversation(messages, counter, input.tools, model.encoding)
  const totalTokens = providerTotal ?? counted.totalTokens
  return {
    model: model.id,
    modelKnown: model.known,
    provider: model.provider,
    format: conversation.format,
    method,
    ...(method === 'tokenizer' && model.encoding ? { encoding: model.encoding } : {}),
    safetyMargin: method === 'provider' ? 1 : counter.margin,
    totalTokens,
    toolsTokens: counted.toolsTokens,
    // Built only when asked for: on a long conversation it is most of the answer's bytes.
    ...(input.perMessage !== false ? { perMessage: messages.map((m, i) => ({ index: m.index, role: m.role, tokens: counted.perMessage[i]! })) } : {}),
    contextLimit: model.contextLimit,
    maxOutputTokens: model.maxOutputTokens,
    threshold,
    ...(note ? { thresholdNote: note } : {}),
    shouldCompact: totalTokens >= threshold,
    ...(fallback ? { fallback } : {}),
  }
}
