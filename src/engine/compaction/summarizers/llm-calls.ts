/**
 * The llm summarizer's calls (llm.ts): its context, its prompts counted against the
 * summarizer's window, the one function a request leaves through, and the bounded pool
 * the map-reduce runs its calls in.
 */
import { buildSummaryPrompt, truncateMiddle, type SummaryPrompt, type SummaryStage } from '../prompts.ts'
import { SummarizerError, type CompletionResult, type SummarizerClient, type SummaryRequest } from '../types.ts'

/** Chat framing the counter does not see (roles, message wrappers, reply priming). */
export const FRAMING_TOKENS = 32
/** The prompt asks for this share of the hard cap: model tokens and our count differ. */
const PROMPT_TARGET_RATIO = 0.8

export interface Ctx {
  req: SummaryRequest
  client: SummarizerClient
  signal?: AbortSignal
  originalTask: string
  usage: { inputTokens: number; outputTokens: number; calls: number }
  /** Budget of partial and intermediate summaries: never more than this. */
  partialCap: number
  /** The handover facts as prompt text (facts-check.ts), sent with the final call. */
  extractedFacts: string
}

export function prompt(ctx: Ctx, stage: SummaryStage, formattedMessages: string, previousSummary: string | undefined, budget: number): SummaryPrompt {
  const { req } = ctx
  return buildSummaryPrompt({
    extractedFacts: ctx.extractedFacts,
    formattedMessages,
    previousSummary,
    originalTask: ctx.originalTask,
    round: req.round,
    maxTokens: Math.max(1, Math.floor(budget * PROMPT_TARGET_RATIO)),
    instructions: req.instructions,
    instructionsMode: req.instructionsMode,
    preserveErrorDetails: req.preserveErrorDetails,
    stage,
  })
}

export function countPrompt(client: SummarizerClient, p: SummaryPrompt): number {
  return client.countTokens(`${p.system}\n\n${p.prompt}`)
}

export function fits(client: SummarizerClient, p: SummaryPrompt, maxOutputTokens: number): boolean {
  return countPrompt(client, p) + FRAMING_TOKENS + maxOutputTokens <= client.contextLimit
}

/** The only place a request leaves: re-checks the window, then sums usage. */
export async function call(ctx: Ctx, p: SummaryPrompt, maxOutputTokens: number): Promise<CompletionResult> {
  if (!fits(ctx.client, p, maxOutputTokens)) {
    throw new SummarizerError('context_overflow', 'internal: a summary request would exceed the summarizer window')
  }
  // A fresh signal per call: the SDKs add an abort listener to the signal they get and
  // never remove it, which would pile up on a signal shared by dozens of map calls.
  const link = linkedSignal(ctx.signal)
  let result: CompletionResult
  try {
    result = await ctx.client.complete({ system: p.system, prompt: p.prompt, maxOutputTokens, signal: link.signal })
  } finally {
    link.dispose()
  }
  ctx.usage.inputTokens += result.inputTokens
  ctx.usage.outputTokens += result.outputTokens
  ctx.usage.calls++
  return result
}

function linkedSignal(parent: AbortSignal | undefined): { signal: AbortSignal | undefined; dispose: () => void } {
  if (!parent) return { signal: undefined, dispose: () => {} }
  const controller = new AbortController()
  const onAbort = (): void => controller.abort(parent.reason)
  if (parent.aborted) onAbort()
  else parent.addEventListener('abort', onAbort, { once: true })
  return { signal: controller.signal, dispose: () => parent.removeEventListener('abort', onAbort) }
}

/**
 * Runs `fn` over `items` with bounded concurrency, keeping order. `fn` gets a ctx whose
 * signal also fires when a sibling fails, so the first failure stops the others.
 */
export async function pool<T, R>(items: T[], limit: number, ctx: Ctx, fn: (ctx: Ctx, item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length)
  const controller = new AbortController()
  const outer = ctx.signal
  const onAbort = (): void => controller.abort(outer?.reason)
  if (outer?.aborted) onAbort()
  else outer?.addEventListener('abort', onAbort, { once: true })
  // Same usage object: calls made in the pool are summed with the others.
  const inner: Ctx = { ...ctx, signal: controller.signal }
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < items.length && !controller.signal.aborted) {
      const i = next++
      try {
        results[i] = await fn(inner, items[i], i)
      } catch (err) {
        controller.abort()
        throw err
      }
    }
  }
  try {
    const workers = Array.from({ length: Math.min(limit, items.length) }, () => worker())
    // allSettled first: no worker is left running (and no rejection unhandled) when we throw.
    const settled = await Promise.allSettled(workers)
    const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected')
    if (failed) throw firstCause(settled, failed.reason)
  } finally {
    outer?.removeEventListener('abort', onAbort)
  }
  return results
}

/** The error that caused the abort, not an 'aborted' error of a sibling it cancelled. */
function firstCause(settled: PromiseSettledResult<void>[], fallback: unknown): unknown {
  for (const r of settled) {
    if (r.status === 'rejected' && !(r.reason instanceof SummarizerError && r.reason.kind === 'aborted')) return r.reason
  }
  return fallback
}

/** `text` shortened (head + tail) until it counts at most `maxTokens`. */
export function fitText(client: SummarizerClient, text: string, maxTokens: number): string {
  if (maxTokens <= 0) return ''
  let tokens = client.countTokens(text)
  let limit = text.length
  let out = text
  while (tokens > maxTokens) {
    limit = Math.floor(limit * Math.min(0.9, maxTokens / tokens))
    // Too short for a head, a marker and a tail: keep the head only.
    if (limit < 120) return text.slice(0, Math.min(limit, maxTokens))
    out = truncateMiddle(text, limit)
    tokens = client.countTokens(out)
  }
  return out
}
