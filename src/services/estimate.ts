/**
 * POST /estimate's domain: parse any format, count tokens by the chosen method, and
 * compare with the model's compaction threshold.
 */
import type { Config } from '../config.ts'
import { availableTokens, compactionThreshold, type ThresholdSettings } from '../engine/budget.ts'
import type { CanonicalMessage, MessageFormat } from '../engine/messages/canonical.ts'
import { parseConversation, serializeConversation } from '../engine/messages/index.ts'
import { resolveModel, type ModelInfo } from '../engine/models/registry.ts'
import { countConversation, heuristicCounter, tokenizerCounter, type MessageCountCache, type TokenCounter } from '../engine/tokens/count.ts'
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

const THRESHOLD_FIELDS = ['contextLimit', 'systemReserve', 'outputReserve', 'safetyBuffer', 'thresholdPercent'] as const

/** The threshold settings a request gives (as opposed to the server's defaults). */
export function givenThresholdFields(input: Partial<Record<(typeof THRESHOLD_FIELDS)[number], unknown>>): (typeof THRESHOLD_FIELDS)[number][] {
  return THRESHOLD_FIELDS.filter((f) => input[f] !== undefined)
}

/**
 * The compaction threshold, or a 400 when it leaves no room (0 tokens): the reserves fill
 * the window, or thresholdPercent rounds what is left down to nothing. The issues name the
 * fields the request gave (they contradict each other), or `body.model` when it gave none
 * (the model's window is smaller than the server's default reserves, e.g. gpt-4's 8,192).
 */
export function thresholdOrRefuse(config: Config, model: ModelInfo, input: Partial<ThresholdSettings> & { contextLimit?: number }): number {
  const settings = thresholdSettings(config, input)
  const threshold = compactionThreshold(model.contextLimit, settings)
  if (threshold >= 1) return threshold
  const given = givenThresholdFields(input)
  const room = availableTokens(model.contextLimit, settings)
  const sum = `contextLimit ${model.contextLimit} − systemReserve ${settings.systemReserve} − outputReserve ${settings.outputReserve} − safetyBuffer ${settings.safetyBuffer}`
  const why = room === 0 ? `${sum} leaves no room for the conversation` : `${sum} leaves ${room} tokens, and thresholdPercent ${settings.thresholdPercent} of that is less than 1 token`
  const fix = given.length > 0 ? 'raise contextLimit or lower the reserves' : `the model "${model.id}" has a ${model.contextLimit}-token window, smaller than the default reserves: give contextLimit, systemReserve, outputReserve or safetyBuffer`
  const message = `the threshold settings leave no room: ${why}; ${fix}`
  const paths = given.length > 0 ? given.map((f) => `body.${f}`) : ['body.model']
  throw new ApiError(400, 'validation_error', message, paths.map((path) => ({ path, message: 'leaves no room for the conversation (threshold 0 tokens)' })))
}

/**
 * The counter a model gets by default: exact for OpenAI encodings, else heuristic with
 * margin. With `cache`, per-message counts are remembered across requests.
 */
export function defaultCounter(model: ModelInfo, method?: 'tokenizer' | 'heuristic', cache?: MessageCountCache): TokenCounter {
  if (method === 'heuristic') return heuristicCounter(!model.encoding, cache)
  if (method === 'tokenizer') {
    if (!model.encoding) {
      throw new ApiError(400, 'unsupported_method', `method "tokenizer" needs an OpenAI model with a known encoding; "${model.id}" has none (use "heuristic" or "provider")`, [
        { path: 'body.method', message: 'no exact tokenizer for this model' },
      ])
    }
    return tokenizerCounter(model.encoding, cache)
  }
  return model.encoding ? tokenizerCounter(model.encoding, cache) : heuristicCounter(true, cache)
}

/** Messages to count: a separately given `system` counts as a leading system message. */
function withSystem(messages: CanonicalMessage[], format: MessageFormat, system: unknown, hasAnthropicSystem: boolean): CanonicalMessage[] {
  if (system === undefined || hasAnthropicSystem) return messages
  const text = typeof system === 'string' ? system : JSON.stringify(system)
  return [{ role: 'system', parts: [{ type: 'text', text }], index: -1, format, raw: system }, ...messages]
}

export async function estimate(config: Config, input: EstimateInput, providerCounter: ProviderTokenCounter, cache?: MessageCountCache): Promise<EstimateResult> {
  const conversation = parseConversation(input.messages, { format: input.format, system: input.system })
  const model = modelFor(config, input.model, input.contextLimit)
  // Before counting: a request whose settings leave no room is refused cheaply.
  const threshold = thresholdOrRefuse(config, model, input)
  const messages = withSystem(conversation.messages, conversation.format, input.system, conversation.anthropicSystem !== undefined)

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
    perMessage: messages.map((m, i) => ({ index: m.index, role: m.role, tokens: counted.perMessage[i]! })),
    contextLimit: model.contextLimit,
    maxOutputTokens: model.maxOutputTokens,
    threshold,
    shouldCompact: totalTokens >= threshold,
    ...(fallback ? { fallback } : {}),
  }
}
