/**
 * Anthropic's count_tokens endpoint, through @anthropic-ai/sdk. Key and base URL come
 * only from server configuration. Errors are reduced to a short reason that never
 * contains the key.
 */
import Anthropic from '@anthropic-ai/sdk'
import type { Config } from '../config.ts'
import { boundedRetryFetch } from './retry-after.ts'

export interface AnthropicCountRequest {
  model: string
  messages: unknown[]
  system?: unknown
  tools?: unknown[]
}

export type CountResult = { ok: true; inputTokens: number } | { ok: false; reason: string }

export interface ProviderTokenCounter {
  readonly configured: boolean
  count(req: AnthropicCountRequest): Promise<CountResult>
}

export function describeProviderError(err: unknown): string {
  if (err instanceof Anthropic.APIConnectionTimeoutError) return 'timed out'
  if (err instanceof Anthropic.APIConnectionError) return 'unreachable'
  if (err instanceof Anthropic.APIError) return `HTTP ${err.status ?? '?'} ${err.constructor.name}`
  return err instanceof Error ? err.name : 'unknown error'
}

export function anthropicTokenCounter(config: Config): ProviderTokenCounter {
  const apiKey = config.ANTHROPIC_API_KEY
  if (!apiKey) {
    return { configured: false, count: async () => ({ ok: false, reason: 'no ANTHROPIC_API_KEY is configured' }) }
  }
  const client = new Anthropic({
    apiKey,
    baseURL: config.ANTHROPIC_BASE_URL,
    timeout: config.PROVIDER_TIMEOUT_MS,
    maxRetries: config.PROVIDER_MAX_RETRIES,
    // A Retry-After over PROVIDER_TIMEOUT_MS is not waited for (retry-after.ts).
    fetch: boundedRetryFetch(config.PROVIDER_TIMEOUT_MS),
  })
  return {
    configured: true,
    async count(req) {
      try {
        const res = await client.messages.countTokens({
          model: req.model,
          messages: req.messages as Anthropic.MessageParam[],
          ...(req.system !== undefined ? { system: req.system as string } : {}),
          ...(req.tools && req.tools.length > 0 ? { tools: req.tools as Anthropic.Tool[] } : {}),
        })
        if (typeof res.input_tokens !== 'number') return { ok: false, reason: 'malformed count_tokens response' }
        return { ok: true, inputTokens: res.input_tokens }
      } catch (err) {
        return { ok: false, reason: `anthropic count_tokens ${describeProviderError(err)}` }
      }
    },
  }
}
