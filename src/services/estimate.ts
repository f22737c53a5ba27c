/**
 * POST /estimate's domain: parse any format, count tokens by the chosen method, and
 * compare with the model's compaction threshold.
 */
import type { Config } from '../config.ts'
import { availableTokens, compactionThreshold, type ThresholdSettings } from '../engine/budget.ts'
import type { MessageFormat } from '../engine/messages/canonical.ts'
import { parseConversation, serializeConversation, withSeparateSystem } from '../engine/messages/index.ts'
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
  /** Present when threshold is 0 because the server's default reserves fill the model's window: why, and what to give. */
  thresholdNote?: string
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
function givenThresholdFields(input: Partial<Record<(typeof THRESHOLD_FIELDS)[number], unknown>>): (typeof THRESHOLD_FIELDS)[number][] {
  return THRESHOLD_FIELDS.filter((f) => input[f] !== undefined)
}

/** The threshold a request's settings (or the server's defaults) give, and the window left before thresholdPercent. */
function readThreshold(config: Config, model: ModelInfo, input: Partial<ThresholdSettings>): { threshold: number; settings: ThresholdSettings; room: number } {
  const settings = thresholdSettings(config, input)
  return { threshold: compactionThreshold(model.contextLimit, settings), settings, room: availableTokens(model.contextLimit, settings) }
}

/** Why a threshold is 0, in numbers: the reserves fill the window, or thresholdPercent rounds what is left down to nothing. */
function noRoomWhy(model: ModelInfo, r: { settings: ThresholdSettings; room: number }): string {
  const s = r.settings
  const sum = `contextLimit ${model.contextLimit} − systemReserve ${s.systemReserve} − outputReserve ${s.outputReserve} − safetyBuffer ${s.safetyBuffer}`
  return r.room === 0 ? `${sum} leaves no room for the conversation` : `${sum} leaves ${r.room} tokens, and thresholdPercent ${s.thresholdPercent} of that is less than 1 token`
}

/** What a caller without any threshold setting is told to give when the model's window has no default threshold. */
export interface NoDefaultThreshold {
  /** The fields to name in the 400 (e.g. body.model and body.targetTokens). */
  issues: { path: string; message: string }[]
  /** The fix, ending the message: "give targetTokens, or …". */
  fix: string
}

/** POST /compact without targetTokens: the model's threshold is the default target, so it must leave room. */
export const COMPACT_NEEDS_TARGET: NoDefaultThreshold = {
  issues: [
    { path: 'body.model', message: "its window is smaller than the server's default reserves (threshold 0 tokens)" },
    { path: 'body.targetTokens', message: 'needed for this model: it has no default threshold' },
  ],
  fix: 'give targetTokens, or smaller systemReserve, outputReserve or safetyBuffer',
}

/**
 * A 400 when the threshold settings the request gave leave no room (0 tokens): they
 * contradict each other. The issues name them. Reserves left at the server's defaults
 * that fill a small model's window (gpt-4's 8,192 < 11,000) are no contradiction of the
 * request's: a thresholdPercent given with them is not at fault.
 */
export function refuseSettingsWithoutRoom(config: Config, model: ModelInfo, input: Partial<ThresholdSettings> & { contextLimit?: number }): void {
  const r = readThreshold(config, model, input)
  if (r.threshold >= 1) return
  const given = givenThresholdFields(input)
  const atFault = r.room === 0 ? given.filter((f) => f !== 'thresholdPercent') : given
  if (atFault.length === 0) return
  const message = `the threshold settings leave no room: ${noRoomWhy(model, r)}; raise contextLimit or lower the reserves`
  throw new ApiError(400, 'validation_error', message, atFault.map((f) => ({ path: `body.${f}`, message: 'leaves no room for the conversation (threshold 0 tokens)' })))
}

/**
 * The compaction threshold, or a 400 when it leaves no room (0 tokens): naming the
 * settings the request gave that leave none (refuseSettingsWithoutRoom), else, when the
 * model's window is smaller than the server's default reserves, the fields of
 * `noDefault`: those that would have given a target.
 */
export function thresholdOrRefuse(
  config: Config,
  model: ModelInfo,
  input: Partial<ThresholdSettings> & { contextLimit?: number },
  noDefault: NoDefaultThreshold = COMPACT_NEEDS_TARGET,
): number {
  refuseSettingsWithoutRoom(config, model, input)
  const r = readThreshold(config, model, input)
  if (r.threshold >= 1) return r.threshold
  const message = `the model "${model.id}" has a window of ${model.contextLimit} tokens, smaller than the server's default reserves (${noRoomWhy(model, r)}), so it has no default threshold: ${noDefault.fix}`
  throw new ApiError(400, 'validation_error', message, noDefault.issues)
}

/**
 * /estimate's threshold. Counting needs no window: when the server's default reserves fill
 * the model's window (gpt-4's 8,192 < 11,000), the threshold is 0 (every conversation is
 * over it) and `note` says why and what to give. Settings the request gave that leave no
 * room contradict each other: still the 400 naming them.
 */
export function estimateThreshold(config: Config, model: ModelInfo, input: Partial<ThresholdSettings> & { contextLimit?: number }): { threshold: number; note?: string } {
  refuseSettingsWithoutRoom(config, model, input)
  const r = readThreshold(config, model, input)
  if (r.threshold >= 1) return { threshold: r.threshold }
  return {
    threshold: 0,
    note: `the model "${model.id}" has a window of ${model.contextLimit} tokens, smaller than the server's default reserves (${noRoomWhy(model, r)}): the threshold is 0, so any conversation is over it; give systemReserve, outputReserve or safetyBuffer for a usable threshold, or targetTokens to /compact`,
  }
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
    ...(note ? { thresholdNote: note } : {}),
    shouldCompact: totalTokens >= threshold,
    ...(fallback ? { fallback } : {}),
  }
}
