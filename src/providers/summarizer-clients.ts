/**
 * SummarizerClients for the llm strategy, built from server configuration only: keys and
 * base URLs never come from a request, a request may only pick a provider and one of the
 * models the operator allowed (SUMMARIZER_OPENAI_MODELS / SUMMARIZER_ANTHROPIC_MODELS).
 *
 * Every SDK failure becomes a SummarizerError with a short kind and a message that never
 * contains the API key (provider messages are redacted before they are quoted).
 */
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import type { Config } from '../config.ts'
import { SummarizerError, type CompletionRequest, type CompletionResult, type SummarizerClient } from '../engine/compaction/types.ts'
import { costUsd, type ModelInfo } from '../engine/models/registry.ts'
import { modelFacts, offeredSummarizerModels, SUMMARIZER_PROVIDERS, type SummarizerProvider } from './summarizer-model.ts'
import { boundedRetryFetch, refusedRetryMs } from './retry-after.ts'

export { SUMMARIZER_PROVIDERS, summarizerUnavailable, type SummarizerProvider } from './summarizer-model.ts'

/** Seed 004: a low temperature for a factual summary (OpenAI non-reasoning models only). */
export const SUMMARY_TEMPERATURE = 0.3

/** A request chose a provider or model the server does not offer (a 400 for the caller). */
export class SummarizerSelectionError extends Error {
  constructor(
    /** The request field at fault. */
    readonly field: 'provider' | 'model',
    message: string,
  ) {
    super(message)
    this.name = 'SummarizerSelectionError'
  }
}

export interface SummarizerRegistry {
  /** Provider used when a request names none (undefined when none is configured). */
  readonly defaultProvider: SummarizerProvider | undefined
  /** Throws SummarizerSelectionError for an unconfigured provider or a model not allowed. */
  get(provider?: string, model?: string): SummarizerClient
  /** Configured providers and their allowed models (first = default). */
  available(): { provider: SummarizerProvider; models: string[] }[]
}

export function createSummarizerClients(config: Config): SummarizerRegistry {
  const models = offeredSummarizerModels(config)
  const configured = SUMMARIZER_PROVIDERS.filter((p) => models[p].length > 0)
  // An explicit default without a key falls back to the first configured provider.
  const wanted = config.SUMMARIZER_DEFAULT_PROVIDER
  const defaultProvider = wanted && configured.includes(wanted) ? wanted : configured[0]

  // One SDK instance per provider (connection reuse), one client object per model.
  let openai: OpenAI | undefined
  let anthropic: Anthropic | undefined
  const cache = new Map<string, SummarizerClient>()

  function get(provider?: string, model?: string): SummarizerClient {
    const p = provider ?? defaultProvider
    if (p === undefined) {
      throw new SummarizerSelectionError('provider', 'no summarizer provider is configured on this server (OPENAI_API_KEY or ANTHROPIC_API_KEY)')
    }
    if (!(SUMMARIZER_PROVIDERS as readonly string[]).includes(p)) {
      throw new SummarizerSelectionError('provider', `unknown summarizer provider ${JSON.stringify(p)}; expected "openai" or "anthropic"`)
    }
    const allowed = models[p as SummarizerProvider]
    if (allowed.length === 0) {
      throw new SummarizerSelectionError('provider', `summarizer provider "${p}" is not configured on this server${configured.length ? `; available: ${configured.join(', ')}` : ''}`)
    }
    const m = model ?? allowed[0]
    if (!allowed.includes(m)) {
      throw new SummarizerSelectionError('model', `summarizer model ${JSON.stringify(m)} is not allowed for "${p}"; allowed: ${allowed.join(', ')}`)
    }
    const key = `${p}\u0000${m}`
    let client = cache.get(key)
    if (!client) {
      if (p === 'openai') {
        openai ??= new OpenAI({
          apiKey: config.OPENAI_API_KEY,
          baseURL: config.OPENAI_BASE_URL,
          timeout: config.PROVIDER_TIMEOUT_MS,
          maxRetries: config.PROVIDER_MAX_RETRIES,
          // A Retry-After over PROVIDER_TIMEOUT_MS is not waited for (retry-after.ts).
          fetch: boundedRetryFetch(config.PROVIDER_TIMEOUT_MS),
        })
        client = openaiClient(openai, m, config)
      } else {
        anthropic ??= new Anthropic({
          apiKey: config.ANTHROPIC_API_KEY,
          baseURL: config.ANTHROPIC_BASE_URL,
          timeout: config.PROVIDER_TIMEOUT_MS,
          maxRetries: config.PROVIDER_MAX_RETRIES,
          fetch: boundedRetryFetch(config.PROVIDER_TIMEOUT_MS),
        })
        client = anthropicClient(anthropic, m, config)
      }
      cache.set(key, client)
    }
    return client
  }

  return {
    defaultProvider,
    get,
    available: () => configured.map((provider) => ({ provider, models: [...models[provider]] })),
  }
}

// ---------------------------------------------------------------------------
// Shared model facts (the pure ones are in summarizer-model.ts)
// ---------------------------------------------------------------------------

/** Never ask for more output than a known model can produce (the API would reject it). */
function outputCap(info: ModelInfo, requested: number): number {
  return info.known ? Math.min(requested, info.maxOutputTokens) : requested
}

// ---------------------------------------------------------------------------
// OpenAI (and OpenAI-compatible servers)
// ---------------------------------------------------------------------------

/** Reasoning models take max_completion_tokens and only the default temperature. */
function isReasoningModel(model: string): boolean {
  const bare = model.toLowerCase().slice(model.lastIndexOf('/') + 1)
  return /^(o\d|gpt-5)/.test(bare)
}

function openaiClient(sdk: OpenAI, model: string, config: Config): SummarizerClient {
  const facts = modelFacts(model, config)
  const reasoning = isReasoningModel(model)
  const secret = config.OPENAI_API_KEY
  return {
    provider: 'openai',
    model,
    contextLimit: facts.contextLimit,
    countTokens: facts.countTokens,
    costUsd: (i, o) => costUsd(facts.info, i, o),
    async complete(req: CompletionRequest): Promise<CompletionResult> {
      const maxTokens = outputCap(facts.info, req.maxOutputTokens)
      let res: OpenAI.Chat.Completions.ChatCompletion
      try {
        res = await sdk.chat.completions.create(
          {
            model,
            messages: [
              { role: 'system', content: req.system },
              { role: 'user', content: req.prompt },
            ],
            ...(reasoning ? { max_completion_tokens: maxTokens } : { max_tokens: maxTokens, temperature: SUMMARY_TEMPERATURE }),
          },
          { signal: req.signal },
        )
      } catch (err) {
        throw toSummarizerError(err, 'openai', model, secret, config.PROVIDER_MAX_RETRIES)
      }
      const choice = Array.isArray(res?.choices) ? res.choices[0] : undefined
      if (!choice || typeof choice !== 'object' || !choice.message) {
        throw new SummarizerError('malformed', `openai ${model}: the response has no choices`)
      }
      const text = typeof choice.message.content === 'string' ? choice.message.content : ''
      if (text.trim() === '') throw new SummarizerError('empty', `openai ${model}: the model returned no text (finish_reason ${choice.finish_reason ?? 'none'})`)
      return {
        text,
        inputTokens: numberOr(res.usage?.prompt_tokens, facts.countTokens(req.system) + facts.countTokens(req.prompt)),
        outputTokens: numberOr(res.usage?.completion_tokens, facts.countTokens(text)),
        truncated: choice.finish_reason === 'length',
      }
    },
  }
}

// ---------------------------------------------------------------------------
// Anthropic
// ---------------------------------------------------------------------------

function anthropicClient(sdk: Anthropic, model: string, config: Config): SummarizerClient {
  const facts = modelFacts(model, config)
  const secret = config.ANTHROPIC_API_KEY
  return {
    provider: 'anthropic',
    model,
    contextLimit: facts.contextLimit,
    countTokens: facts.countTokens,
    costUsd: (i, o) => costUsd(facts.info, i, o),
    async complete(req: CompletionRequest): Promise<CompletionResult> {
      let res: Anthropic.Message
      try {
        res = await sdk.messages.create(
          {
            model,
            max_tokens: outputCap(facts.info, req.maxOutputTokens),
            system: req.system,
            messages: [{ role: 'user', content: req.prompt }],
            // No temperature: @anthropic-ai/sdk 1.x no longer has the parameter (deprecated by the API).
          },
          // Explicit timeout: the SDK refuses large non-streaming max_tokens without one.
          { signal: req.signal, timeout: config.PROVIDER_TIMEOUT_MS },
        )
      } catch (err) {
        throw toSummarizerError(err, 'anthropic', model, secret, config.PROVIDER_MAX_RETRIES)
      }
      if (!res || typeof res !== 'object' || !Array.isArray(res.content)) {
        throw new SummarizerError('malformed', `anthropic ${model}: the response has no content array`)
      }
      const text = res.content
        .filter((b): b is Anthropic.TextBlock => b?.type === 'text' && typeof b.text === 'string')
        .map((b) => b.text)
        .join('')
      if (text.trim() === '') throw new SummarizerError('empty', `anthropic ${model}: the model returned no text (stop_reason ${res.stop_reason ?? 'none'})`)
      return {
        text,
        inputTokens: numberOr(res.usage?.input_tokens, facts.countTokens(req.system) + facts.countTokens(req.prompt)),
        outputTokens: numberOr(res.usage?.output_tokens, facts.countTokens(text)),
        truncated: res.stop_reason === 'max_tokens',
      }
    },
  }
}

function numberOr(v: unknown, fallback: number): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback
}

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

type SdkError = InstanceType<typeof OpenAI.APIError> | InstanceType<typeof Anthropic.APIError>

function isSdkError(err: unknown): err is SdkError {
  return err instanceof OpenAI.APIError || err instanceof Anthropic.APIError
}

const CONTEXT_OVERFLOW_RE = /prompt is too long|context[_ ]length|maximum context|context window|exceed context limit|too many tokens/i

/** Maps any failure of an SDK call to a SummarizerError (kinds listed in types.ts). */
export function toSummarizerError(err: unknown, provider: SummarizerProvider, model: string, secret: string | undefined, maxRetries: number): SummarizerError {
  const where = `${provider} ${model}`
  const retried = maxRetries > 0 ? ` after ${maxRetries} retr${maxRetries === 1 ? 'y' : 'ies'}` : ''
  if (err instanceof SummarizerError) return err
  if (err instanceof OpenAI.APIUserAbortError || err instanceof Anthropic.APIUserAbortError || (err instanceof Error && err.name === 'AbortError')) {
    return new SummarizerError('aborted', `${where}: the request was aborted`)
  }
  if (err instanceof OpenAI.APIConnectionTimeoutError || err instanceof Anthropic.APIConnectionTimeoutError) {
    return new SummarizerError('timeout', `${where}: timed out${retried}`)
  }
  if (err instanceof OpenAI.APIConnectionError || err instanceof Anthropic.APIConnectionError) {
    return new SummarizerError('unreachable', `${where}: connection failed${retried}`)
  }
  // A 200 whose body is not JSON (the SDKs do not retry it).
  if (err instanceof SyntaxError) return new SummarizerError('malformed', `${where}: the response is not valid JSON`)
  // The connection died while the body was read (fetch's TypeError "terminated"): after
  // the SDK's retry loop, so not retried, and not an APIConnectionError either.
  if (err instanceof TypeError && err.message === 'terminated') {
    return new SummarizerError('unreachable', `${where}: the connection closed in the middle of the response`)
  }
  if (isSdkError(err) && typeof err.status === 'number') {
    const status = err.status
    const detail = providerMessage(err, secret)
    const quoted = detail ? `: ${detail}` : ''
    const refused = refusedRetryMs((err as { headers?: unknown }).headers)
    if (refused !== undefined) {
      // boundedRetryFetch stopped the retries: the provider asked for a longer wait than the timeout.
      const kind = status === 429 ? 'rate_limited' : status >= 500 ? 'server_error' : 'bad_request'
      return new SummarizerError(kind, `${where}: HTTP ${status}, retry after ${Math.ceil(refused / 1000)} s, longer than PROVIDER_TIMEOUT_MS: not retried`)
    }
    if (status === 429) return new SummarizerError('rate_limited', `${where}: rate limited (HTTP 429)${retried}`)
    if (status === 401 || status === 403) return new SummarizerError('auth', `${where}: the provider rejected the server's credentials (HTTP ${status})`)
    if (status === 408) return new SummarizerError('timeout', `${where}: the provider timed out (HTTP 408)${retried}`)
    if (status >= 500) return new SummarizerError('server_error', `${where}: provider error (HTTP ${status})${retried}`)
    const code = (err as { code?: unknown }).code
    if (status === 413 || code === 'context_length_exceeded' || CONTEXT_OVERFLOW_RE.test(detail)) {
      return new SummarizerError('context_overflow', `${where}: the request exceeds the model's context (HTTP ${status})${quoted}`)
    }
    return new SummarizerError('bad_request', `${where}: the provider rejected the request (HTTP ${status})${quoted}`)
  }
  if (err instanceof OpenAI.OpenAIError || err instanceof Anthropic.AnthropicError) {
    return new SummarizerError('bad_request', `${where}: ${redact(err.message, secret)}`)
  }
  return new SummarizerError('unavailable', `${where}: ${err instanceof Error ? err.name : 'unknown error'}`)
}

/** The provider's own explanation, redacted and shortened, or ''. */
function providerMessage(err: SdkError, secret: string | undefined): string {
  const e = err as { apiMessage?: unknown; error?: unknown }
  const body = e.error as { message?: unknown; error?: { message?: unknown } } | undefined
  const raw = [e.apiMessage, body?.message, body?.error?.message].find((m): m is string => typeof m === 'string' && m !== '')
  return raw === undefined ? '' : redact(raw, secret).slice(0, 300)
}

/** Removes the configured key and anything that looks like a credential. */
export function redact(text: string, secret: string | undefined): string {
  let out = text
  if (secret && secret.length >= 4) out = out.split(secret).join('[redacted]')
  return out
    .replace(/Bearer\s+\S+/gi, 'Bearer [redacted]')
    .replace(/\b(sk|pk|rk)-[A-Za-z0-9_*-]{6,}/g, '[redacted]')
    .replace(/\/\/[^@/\s]*@/g, '//[redacted]@')
}
