/**
 * POST /estimate's domain: parse any format, count tokens by the chosen method, and
 * compare with the model's compaction threshold.
 */
import type { Config } from '../config.ts'
import { compactionThreshold, type ThresholdSettings } from '../engine/budget.ts'
import type { CanonicalMessage, MessageFormat } from '../engine/messages/canonical.ts'
import { parseConversation, serializeConversation } from '../engine/messages/index.ts'
import { resolveModel, type ModelInfo } from '../engine/models/registry.ts'
import { countConversation, heuristicCounter, tokenizerCounter, type TokenCounter } from '../engine/tokens/count.ts'
import { ApiError } from '../errors.ts'
import type { ProviderTokenCounter } from '../providers/anthropic-count.ts'

export type EstimateMethod = 'tokenizer' | 'heuristic' | 'provider'

export interface EstimateInput {
  messages: unknown[]
  format?: MessageFormat
  model?: string
  system?: unknown
  tools?: unknown[]
  method?: EstimateMethod
  contextLimit?: number
  systemReserve?: number
  outputReserve?: number
  safetyBuffer?: number
  thresholdPercent?: number
}

export interface EstimateResult {
  model: string
  modelKnown: boolean
  provider: string
  format: MessageFormat
  method: EstimateMethod
  encoding?: string
  safetyMargin: number
  totalTokens: number
  toolsTokens: number
  perMessage: { index: number; role: string; tokens: number }[]
  contextLimit: number
  maxOutputTokens: number
  threshold: number
  shouldCompact: boolean
  fallback?: { from: EstimateMethod; reason: string }
}

export function thresholdSettings(config: Config, input: Partial<ThresholdSettings>): ThresholdSettings {
  return {
    systemReserve: input.systemReserve ?? config.COMPACTION_SYSTEM_RESERVE,
    outputReserve: input.outputReserve ?? config.COMPACTION_OUTPUT_RESERVE,
    safetyBuffer: input.safetyBuffer ?? config.COMPACTION_SAFETY_BUFFER,
    thresholdPercent: input.thresholdPercent ?? config.COMPACTION_THRESHOLD_PERCENT,
  }
}

export function modelFor(config: Config, modelId: string | undefined, contextLimit?: number): ModelInfo {
  const info = resolveModel(modelId ?? config.DEFAULT_MODEL, {
    contextLimit: config.UNKNOWN_MODEL_CONTEXT_LIMIT,
    maxOutputTokens: config.UNKNOWN_MODEL_MAX_OUTPUT_TOKENS,
  })
  return contextLimit ? { ...info, contextLimit } : info
}

/** The counter a model gets by default: exact for OpenAI encodings, else heuristic with margin. */
export function defaultCounter(model: ModelInfo, method?: 'tokenizer' | 'heuristic'): TokenCounter {
  if (method === 'heuristic') return heuristicCounter(!model.encoding)
  if (method === 'tokenizer') {
    if (!model.encoding) {
      throw new ApiError(400, 'unsupported_method', `method "tokenizer" needs an OpenAI model with a known encoding; "${model.id}" has none (use "heuristic" or "provider")`, [
        { path: 'body.method', message: 'no exact tokenizer for this model' },
      ])
    }
    return tokenizerCounter(model.encoding)
  }
  return model.encoding ? tokenizerCounter(model.encoding) : heuristicCounter(true)
}

/** Messages to count: a separately given `system` counts as a leading system message. */
function withSystem(messages: CanonicalMessage[], format: MessageFormat, system: unknown, hasAnthropicSystem: boolean): CanonicalMessage[] {
  if (system === undefined || hasAnthropicSystem) return messages
  const text = typeof system === 'string' ? system : JSON.stringify(system)
  return [{ role: 'system', parts: [{ type: 'text', text }], index: -1, format, raw: system }, ...messages]
}

export async function estimate(config: Config, input: EstimateInput, providerCounter: ProviderTokenCounter): Promise<EstimateResult> {
  const conversation = parseConversation(input.messages, { format: input.format, system: input.system })
  const model = modelFor(config, input.model, input.contextLimit)
  const messages = withSystem(conversation.messages, conversation.format, input.system, conversation.anthropicSystem !== undefined)

  let method: EstimateMethod
  let counter: TokenCounter
  let fallback: EstimateResult['fallback']
  let providerTotal: number | undefined

  if (input.method === 'provider') {
    counter = heuristicCounter(!model.encoding)
    method = 'heuristic'
    if (model.provider !== 'anthropic') {
      fallback = { from: 'provider', reason: `provider counting is available for Anthropic models only; "${model.id}" is ${model.provider}` }
    } else {
      const serialized = serializeConversation(conversation.messages, 'anthropic')
      const system = serialized.system ?? (conversation.format === 'anthropic' ? undefined : input.system)
      const res = await providerCounter.count({ model: model.id, messages: serialized.messages, system, tools: input.tools })
      if (res.ok) {
        method = 'provider'
        providerTotal = res.inputTokens
      } else {
        fallback = { from: 'provider', reason: res.reason }
      }
    }
  } else {
    counter = defaultCounter(model, input.method)
    method = counter.method
  }

  const counted = countConversation(messages, counter, input.tools, model.encoding)
  const totalTokens = providerTotal ?? counted.totalTokens
  const threshold = compactionThreshold(model.contextLimit, thresholdSettings(config, input))
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
    perMessage: messages.map((m, i) => ({ index: m.index, role: m.role, tokens: counted.perMessage[i]! })),
    contextLimit: model.contextLimit,
    maxOutputTokens: model.maxOutputTokens,
    threshold,
    shouldCompact: totalTokens >= threshold,
    ...(fallback ? { fallback } : {}),
  }
}
