/**
 * What a summarizer model is, apart from its provider's SDK: its window, how to count its
 * prompts and what a call costs, and which providers and models this server offers. Pure,
 * so a compute thread rebuilds a summarizer client's counting and pricing from the model's
 * name (src/plugins/summarizer-bridge.ts) and says why a request has no summarizer, and
 * the SDK clients (summarizer-clients.ts) use the same facts.
 */
import type { Config } from '../config.ts'
import { NO_LLM_SUMMARIZER } from '../engine/compaction/types.ts'
import { costUsd, resolveModel, type ModelInfo } from '../engine/models/registry.ts'
import { estimateTextTokens, HEURISTIC_SAFETY_MARGIN } from '../engine/tokens/heuristic.ts'
import { countTextTokens } from '../engine/tokens/tokenizer.ts'

export type SummarizerProvider = 'openai' | 'anthropic'
export const SUMMARIZER_PROVIDERS: readonly SummarizerProvider[] = ['openai', 'anthropic']

/** The models each provider offers on this server: its allowed models when its API key is set, else none. */
export function offeredSummarizerModels(config: Config): Record<SummarizerProvider, string[]> {
  return {
    openai: config.OPENAI_API_KEY ? config.SUMMARIZER_OPENAI_MODELS : [],
    anthropic: config.ANTHROPIC_API_KEY ? config.SUMMARIZER_ANTHROPIC_MODELS : [],
  }
}

/**
 * Why this server has no summarizer for a request (the llm strategy then falls back, and
 * its fallback says this): the provider it names has no API key here, or it names none and
 * no provider has one. Undefined when there is one to ask (a model the provider does not
 * allow is the caller's mistake: a 400 from SummarizerRegistry.get).
 */
export function summarizerUnavailable(config: Config, choice: { provider: string } | undefined): string | undefined {
  const models = offeredSummarizerModels(config)
  const configured = SUMMARIZER_PROVIDERS.filter((p) => models[p].length > 0)
  if (choice === undefined) return configured.length === 0 ? NO_LLM_SUMMARIZER : undefined
  if (configured.includes(choice.provider as SummarizerProvider)) return undefined
  const key = choice.provider === 'anthropic' ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY'
  return `summarizer provider "${choice.provider}" is not configured on this server (no ${key})${configured.length ? `; available: ${configured.join(', ')}` : ''}`
}

export interface ModelFacts {
  info: ModelInfo
  contextLimit: number
  countTokens(text: string): number
}

/**
 * Window: the registry's for known models (lowered by SUMMARIZER_CONTEXT_LIMIT when that
 * is smaller, e.g. a local server with a short context), else SUMMARIZER_CONTEXT_LIMIT or
 * the unknown-model default. Counting: exact for OpenAI encodings, otherwise the
 * heuristic with its safety margin, so we over-count rather than overflow.
 */
export function modelFacts(model: string, config: Config): ModelFacts {
  const info = resolveModel(model, { contextLimit: config.UNKNOWN_MODEL_CONTEXT_LIMIT, maxOutputTokens: config.UNKNOWN_MODEL_MAX_OUTPUT_TOKENS })
  const override = config.SUMMARIZER_CONTEXT_LIMIT
  const contextLimit = info.known ? Math.min(info.contextLimit, override ?? Infinity) : (override ?? info.contextLimit)
  const encoding = info.encoding
  const countTokens = encoding
    ? (text: string) => countTextTokens(text, encoding)
    : (text: string) => Math.ceil(estimateTextTokens(text) * HEURISTIC_SAFETY_MARGIN)
  return { info, contextLimit, countTokens }
}

/** Counting and pricing of a summarizer model: what a client needs besides its provider call. */
export function summarizerLocalParts(model: string, config: Config): { countTokens(text: string): number; costUsd(inputTokens: number, outputTokens: number): number } {
  const facts = modelFacts(model, config)
  return { countTokens: facts.countTokens, costUsd: (i, o) => costUsd(facts.info, i, o) }
}
