/**
 * Model registry: context limits, max output tokens, list prices and tokenizer of
 * current OpenAI, Anthropic, Google and DeepSeek models. Prices are USD per million
 * tokens as the providers list them (standard tier, no caching or batch discounts),
 * checked in 2026; update them here when providers change them.
 *
 * Lookup is by exact id, then by the longest registered prefix, so dated snapshots
 * (`gpt-4o-2024-08-06`, `claude-sonnet-4-5-20250929`) resolve to their family.
 */
import type { EncodingName } from '../tokens/tokenizer.ts'

export type ModelProvider = 'openai' | 'anthropic' | 'google' | 'deepseek' | 'unknown'

export interface ModelInfo {
  id: string
  provider: ModelProvider
  contextLimit: number
  maxOutputTokens: number
  /** USD per million input tokens. */
  inputPricePerMTok: number
  /** USD per million output tokens. */
  outputPricePerMTok: number
  /** Exact tokenizer, for OpenAI models only. Others are estimated. */
  encoding?: EncodingName
  /** False when the id matched no registered model and defaults were used. */
  known: boolean
}

type Entry = Omit<ModelInfo, 'id' | 'known'>

const o200k = 'o200k_base' as const
const cl100k = 'cl100k_base' as const

const MODELS: Record<string, Entry> = {
  // OpenAI
  'gpt-5': { provider: 'openai', contextLimit: 400_000, maxOutputTokens: 128_000, inputPricePerMTok: 1.25, outputPricePerMTok: 10, encoding: o200k },
  'gpt-5-mini': { provider: 'openai', contextLimit: 400_000, maxOutputTokens: 128_000, inputPricePerMTok: 0.25, outputPricePerMTok: 2, encoding: o200k },
  'gpt-5-nano': { provider: 'openai', contextLimit: 400_000, maxOutputTokens: 128_000, inputPricePerMTok: 0.05, outputPricePerMTok: 0.4, encoding: o200k },
  'gpt-5.1': { provider: 'openai', contextLimit: 400_000, maxOutputTokens: 128_000, inputPricePerMTok: 1.25, outputPricePerMTok: 10, encoding: o200k },
  'gpt-4.1': { provider: 'openai', contextLimit: 1_047_576, maxOutputTokens: 32_768, inputPricePerMTok: 2, outputPricePerMTok: 8, encoding: o200k },
  'gpt-4.1-mini': { provider: 'openai', contextLimit: 1_047_576, maxOutputTokens: 32_768, inputPricePerMTok: 0.4, outputPricePerMTok: 1.6, encoding: o200k },
  'gpt-4.1-nano': { provider: 'openai', contextLimit: 1_047_576, maxOutputTokens: 32_768, inputPricePerMTok: 0.1, outputPricePerMTok: 0.4, encoding: o200k },
  'gpt-4o': { provider: 'openai', contextLimit: 128_000, maxOutputTokens: 16_384, inputPricePerMTok: 2.5, outputPricePerMTok: 10, encoding: o200k },
  'gpt-4o-mini': { provider: 'openai', contextLimit: 128_000, maxOutputTokens: 16_384, inputPricePerMTok: 0.15, outputPricePerMTok: 0.6, encoding: o200k },
  o1: { provider: 'openai', contextLimit: 200_000, maxOutputTokens: 100_000, inputPricePerMTok: 15, outputPricePerMTok: 60, encoding: o200k },
  o3: { provider: 'openai', contextLimit: 200_000, maxOutputTokens: 100_000, inputPricePerMTok: 2, outputPricePerMTok: 8, encoding: o200k },
  'o3-mini': { provider: 'openai', contextLimit: 200_000, maxOutputTokens: 100_000, inputPricePerMTok: 1.1, outputPricePerMTok: 4.4, encoding: o200k },
  'o4-mini': { provider: 'openai', contextLimit: 200_000, maxOutputTokens: 100_000, inputPricePerMTok: 1.1, outputPricePerMTok: 4.4, encoding: o200k },
  'gpt-4-turbo': { provider: 'openai', contextLimit: 128_000, maxOutputTokens: 4_096, inputPricePerMTok: 10, outputPricePerMTok: 30, encoding: cl100k },
  'gpt-4': { provider: 'openai', contextLimit: 8_192, maxOutputTokens: 8_192, inputPricePerMTok: 30, outputPricePerMTok: 60, encoding: cl100k },
  'gpt-3.5-turbo': { provider: 'openai', contextLimit: 16_385, maxOutputTokens: 4_096, inputPricePerMTok: 0.5, outputPricePerMTok: 1.5, encoding: cl100k },
  // Anthropic
  'claude-opus-4-5': { provider: 'anthropic', contextLimit: 200_000, maxOutputTokens: 64_000, inputPricePerMTok: 5, outputPricePerMTok: 25 },
  'claude-opus-4-1': { provider: 'anthropic', contextLimit: 200_000, maxOutputTokens: 32_000, inputPricePerMTok: 15, outputPricePerMTok: 75 },
  'claude-opus-4': { provider: 'anthropic', contextLimit: 200_000, maxOutputTokens: 32_000, inputPricePerMTok: 15, outputPricePerMTok: 75 },
  'claude-sonnet-4-5': { provider: 'anthropic', contextLimit: 200_000, maxOutputTokens: 64_000, inputPricePerMTok: 3, outputPricePerMTok: 15 },
  'claude-sonnet-4': { provider: 'anthropic', contextLimit: 200_000, maxOutputTokens: 64_000, inputPricePerMTok: 3, outputPricePerMTok: 15 },
  'claude-haiku-4-5': { provider: 'anthropic', contextLimit: 200_000, maxOutputTokens: 64_000, inputPricePerMTok: 1, outputPricePerMTok: 5 },
  'claude-3-7-sonnet': { provider: 'anthropic', contextLimit: 200_000, maxOutputTokens: 64_000, inputPricePerMTok: 3, outputPricePerMTok: 15 },
  'claude-3-5-haiku': { provider: 'anthropic', contextLimit: 200_000, maxOutputTokens: 8_192, inputPricePerMTok: 0.8, outputPricePerMTok: 4 },
  'claude-3-haiku': { provider: 'anthropic', contextLimit: 200_000, maxOutputTokens: 4_096, inputPricePerMTok: 0.25, outputPricePerMTok: 1.25 },
  // Google
  'gemini-3-pro': { provider: 'google', contextLimit: 1_048_576, maxOutputTokens: 65_536, inputPricePerMTok: 2, outputPricePerMTok: 12 },
  'gemini-2.5-pro': { provider: 'google', contextLimit: 1_048_576, maxOutputTokens: 65_536, inputPricePerMTok: 1.25, outputPricePerMTok: 10 },
  'gemini-2.5-flash': { provider: 'google', contextLimit: 1_048_576, maxOutputTokens: 65_536, inputPricePerMTok: 0.3, outputPricePerMTok: 2.5 },
  'gemini-2.5-flash-lite': { provider: 'google', contextLimit: 1_048_576, maxOutputTokens: 65_536, inputPricePerMTok: 0.1, outputPricePerMTok: 0.4 },
  'gemini-2.0-flash': { provider: 'google', contextLimit: 1_048_576, maxOutputTokens: 8_192, inputPricePerMTok: 0.1, outputPricePerMTok: 0.4 },
  // DeepSeek
  'deepseek-chat': { provider: 'deepseek', contextLimit: 128_000, maxOutputTokens: 8_192, inputPricePerMTok: 0.28, outputPricePerMTok: 0.42 },
  'deepseek-reasoner': { provider: 'deepseek', contextLimit: 128_000, maxOutputTokens: 64_000, inputPricePerMTok: 0.28, outputPricePerMTok: 0.42 },
}

/** Longest ids first, so `gpt-4o-mini-…` matches `gpt-4o-mini` before `gpt-4o`. */
const PREFIXES = Object.keys(MODELS).sort((a, b) => b.length - a.length)

export interface UnknownModelDefaults {
  contextLimit: number
  maxOutputTokens: number
}

export const BUILTIN_UNKNOWN_MODEL: UnknownModelDefaults = { contextLimit: 128_000, maxOutputTokens: 4_096 }

export function listModels(): ModelInfo[] {
  return Object.entries(MODELS).map(([id, e]) => ({ id, ...e, known: true }))
}

export function resolveModel(modelId: string, defaults: UnknownModelDefaults = BUILTIN_UNKNOWN_MODEL): ModelInfo {
  const id = modelId.trim().toLowerCase()
  // Accept provider-qualified ids such as `openai/gpt-4o` or `anthropic/claude-…`.
  const bare = id.includes('/') ? id.slice(id.lastIndexOf('/') + 1) : id
  const exact = MODELS[bare]
  if (exact) return { id: modelId, ...exact, known: true }
  const prefix = PREFIXES.find((p) => bare.startsWith(`${p}-`) || bare.startsWith(`${p}@`) || bare.startsWith(`${p}.`) || bare.startsWith(`${p}:`))
  if (prefix) return { id: modelId, ...MODELS[prefix]!, known: true }
  return {
    id: modelId,
    provider: guessProvider(bare),
    contextLimit: defaults.contextLimit,
    maxOutputTokens: defaults.maxOutputTokens,
    inputPricePerMTok: 0,
    outputPricePerMTok: 0,
    known: false,
  }
}

function guessProvider(id: string): ModelProvider {
  if (id.startsWith('claude')) return 'anthropic'
  if (id.startsWith('gemini')) return 'google'
  if (id.startsWith('deepseek')) return 'deepseek'
  if (/^(gpt|o\d|chatgpt)/.test(id)) return 'openai'
  return 'unknown'
}

/** Cost in USD of a call that used these tokens. */
export function costUsd(model: ModelInfo, inputTokens: number, outputTokens: number): number {
  return (inputTokens * model.inputPricePerMTok + outputTokens * model.outputPricePerMTok) / 1_000_000
}

/**
 * A model's prompt-cache prices, USD per million tokens, as multiples of its input price
 * from the providers' price pages (2026): Anthropic reads at 0.1× and writes its 5-minute
 * cache at 1.25×; OpenAI writes at no extra cost and reads at 0.1× (gpt-5 family), 0.25×
 * (gpt-4.1, o3, o4-mini) or 0.5× (gpt-4o, o1 and older); Google reads at 0.25×, DeepSeek
 * at 0.1×. An unknown model is priced like Anthropic's, the dearest cache break.
 */
export function cachePricesOf(model: ModelInfo): { inputPrice: number; cacheReadPrice: number; cacheWritePrice: number } {
  const input = model.inputPricePerMTok
  const [read, write] = cacheMultipliers(model)
  const price = (x: number) => Math.round(input * x * 1e6) / 1e6
  return { inputPrice: input, cacheReadPrice: price(read), cacheWritePrice: price(write) }
}

function cacheMultipliers(model: ModelInfo): [read: number, write: number] {
  switch (model.provider) {
    case 'openai':
      if (model.id.startsWith('gpt-5')) return [0.1, 1]
      if (/^(gpt-4\.1|o3|o4)/.test(model.id)) return [0.25, 1]
      return [0.5, 1]
    case 'google':
      return [0.25, 1]
    case 'deepseek':
      return [0.1, 1]
    default:
      return [0.1, 1.25]
  }
}
