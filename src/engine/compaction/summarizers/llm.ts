/**
 * The `llm` summarizer: seed 004's structured summary written by a model, with seed
 * 002's recursive overflow protection.
 *
 * No request ever exceeds the summarizer's window: every prompt is counted with the
 * client's (conservative) counter before it is sent, as
 *   countTokens(system + prompt) + FRAMING_TOKENS + maxOutputTokens <= contextLimit.
 * When the conversation does not fit one request it is map-reduced:
 *   map     messages are grouped into units that never separate a tool call from its
 *           results, packed into chunks, and each chunk is summarised into a partial
 *           summary whose budget is its share of the final budget;
 *   reduce  the previous summary and the partials are merged in one final call, or, if
 *           they do not fit, merged group by group into fewer, shorter summaries first
 *           (each level at least halves their number, so it terminates).
 */
import { computeUnits } from '../../conversation/pairing.ts'
import { buildSummaryPrompt, MESSAGE_SEPARATOR, renderMessagesForSummary, truncateMiddle, type SummaryPrompt, type SummaryStage } from '../prompts.ts'
import { completeFromFacts, factsForPrompt } from './facts-check.ts'
import { keyFactsFromSummary, parseSummarySections, SECTION_TITLES, SUMMARY_HEADER_RE, summaryHeader } from '../summary-format.ts'
import {
  SummarizerError,
  type CompletionResult,
  type Summarizer,
  type SummarizerClient,
  type SummaryRequest,
  type SummaryResult,
} from '../types.ts'

/** Chat framing the counter does not see (roles, message wrappers, reply priming). */
export const FRAMING_TOKENS = 32
/** The prompt asks for this share of the hard cap: model tokens and our count differ. */
const PROMPT_TARGET_RATIO = 0.8
/** Smallest useful partial summary. */
const MIN_PARTIAL_TOKENS = 150
/** Below this a reduce level cannot make progress: the window is too small. */
const MIN_CAP_TOKENS = 48
/** Concurrent map calls (keeps latency down without tripping rate limits). */
const MAP_CONCURRENCY = 4
/** Safety stop for the reduce loop (each level halves the count, so ~log2(parts) levels). */
const MAX_REDUCE_LEVELS = 16
/** Per-message character limit is a fraction of the window, within these bounds. */
const MIN_MESSAGE_CHARS = 2_000
const MAX_MESSAGE_CHARS = 16_000

/** A piece of text on its way to the final summary. */
interface Item {
  text: string
  tokens: number
  /** Fraction of the whole input this item stands for (shares sum to 1). */
  share: number
  /** The previous round's summary (rendered in its own prompt section). */
  previous?: boolean
}

interface Ctx {
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

export function llmSummarizer(client: SummarizerClient): Summarizer {
  return {
    name: 'llm',
    summarize: (req) => summarize(client, req),
  }
}

async function summarize(client: SummarizerClient, req: SummaryRequest): Promise<SummaryResult> {
  const budget = req.budgetTokens
  const window = client.contextLimit - FRAMING_TOKENS
  if (budget < 1 || budget >= window) {
    throw new SummarizerError('context_overflow', `a ${budget}-token summary does not fit the summarizer's ${client.contextLimit}-token window`)
  }
  // A huge first message must not crowd out everything else: cap it at 1/8 of the room.
  const originalTask = fitText(client, req.originalTask, Math.floor((window - budget) / 8))
  const ctx: Ctx = {
    req,
    client,
    signal: req.signal,
    originalTask,
    usage: { inputTokens: 0, outputTokens: 0, calls: 0 },
    partialCap: budget,
    extractedFacts: fitText(client, factsForPrompt(req.facts, req.originalTask, budget, (s) => client.countTokens(s)), Math.floor((window - budget) / 4)),
  }

  const charLimit = Math.min(MAX_MESSAGE_CHARS, Math.max(MIN_MESSAGE_CHARS, Math.floor(client.contextLimit * 0.4)))
  const rendered = renderMessagesForSummary(req.messages, charLimit)
  const previous = req.previousSummary?.text.trim() || undefined

  // Fast path: everything in one request.
  const single = prompt(ctx, { kind: 'single' }, rendered.join(MESSAGE_SEPARATOR), previous, budget)
  let text: string
  let truncated: boolean
  if (fits(client, single, budget)) {
    ;({ text, truncated } = await call(ctx, single, budget))
  } else {
    ;({ text, truncated } = await mapReduce(ctx, rendered, previous, budget))
  }
  return finish(ctx, text, truncated)
}

// ---------------------------------------------------------------------------
// Map-reduce
// ---------------------------------------------------------------------------

async function mapReduce(ctx: Ctx, rendered: string[], previous: string | undefined, budget: number): Promise<CompletionResult> {
  const { client } = ctx
  const window = client.contextLimit - FRAMING_TOKENS
  // Template overhead of the largest prompt (a combine call with a previous summary).
  const overhead = Math.max(
    countPrompt(client, prompt(ctx, { kind: 'combine' }, '', previous === undefined ? undefined : '-', budget)),
    countPrompt(client, prompt(ctx, { kind: 'partial', part: 999, parts: 999 }, '', undefined, budget)),
  )
  // Any two summaries of <= cap (even if our count of them runs 20% over) plus an
  // output of `budget` fit one call: that is what makes every reduce level progress.
  const cap = Math.floor((window - overhead - budget) / 3)
  if (cap < MIN_CAP_TOKENS) {
    throw new SummarizerError('context_overflow', `the summarizer's ${client.contextLimit}-token window is too small to summarise this conversation into ${budget} tokens`)
  }
  ctx.partialCap = Math.min(budget, cap)

  // Units: never split a tool call from its results. A unit too large for any chunk is shortened.
  const unitRoom = window - overhead - ctx.partialCap
  const units = computeUnits(ctx.req.messages).map((u) => {
    const indices = Array.from({ length: u.end - u.start + 1 }, (_, k) => u.start + k)
    const text = fitText(client, indices.map((i) => rendered[i]).join(MESSAGE_SEPARATOR), unitRoom)
    return { text, tokens: client.countTokens(text) + 2 }
  })
  const prevItem = previous === undefined ? undefined : fitText(client, previous, window - overhead - budget)
  const prevTokens = prevItem === undefined ? 0 : client.countTokens(prevItem)
  const total = units.reduce((n, u) => n + u.tokens, 0) + prevTokens

  // Map: pack units into chunks of at most unitRoom tokens.
  const chunks: Item[][] = []
  let current: Item[] = []
  let size = 0
  for (const u of units) {
    if (current.length > 0 && size + u.tokens > unitRoom) {
      chunks.push(current)
      current = []
      size = 0
    }
    current.push({ text: u.text, tokens: u.tokens, share: u.tokens / total })
    size += u.tokens
  }
  if (current.length > 0) chunks.push(current)

  const partials = (
    await pool(chunks, MAP_CONCURRENCY, ctx, (c, chunk, i) => summarizeGroup(c, chunk, { kind: 'partial', part: i + 1, parts: chunks.length }))
  ).flat()

  // Reduce.
  let items: Item[] = prevItem === undefined ? partials : [{ text: prevItem, tokens: prevTokens, share: prevTokens / total, previous: true }, ...partials]
  for (let level = 0; level < MAX_REDUCE_LEVELS; level++) {
    const final = combinePrompt(ctx, items, budget)
    if (fits(client, final, budget)) return call(ctx, final, budget)
    const groups = packGroups(ctx, items)
    if (groups.every((g) => g.length === 1 && budgetFor(ctx, g[0].share) >= g[0].tokens)) break // no progress possible
    items = (
      await pool(groups, MAP_CONCURRENCY, ctx, (c, group) =>
        group.length === 1 && budgetFor(c, group[0].share) >= group[0].tokens ? Promise.resolve(group) : summarizeGroup(c, group, { kind: 'combine' }),
      )
    ).flat()
  }
  throw new SummarizerError('context_overflow', `the partial summaries do not fit the summarizer's ${client.contextLimit}-token window`)
}

/** Groups of consecutive items that fit one combine call with the largest partial output. */
function packGroups(ctx: Ctx, items: Item[]): Item[][] {
  const groups: Item[][] = []
  let current: Item[] = []
  for (const item of items) {
    const candidate = [...current, item]
    if (current.length > 0 && !fits(ctx.client, combinePrompt(ctx, candidate, ctx.partialCap), ctx.partialCap)) {
      groups.push(current)
      current = [item]
    } else current = candidate
  }
  if (current.length > 0) groups.push(current)
  return groups
}

/**
 * One partial or intermediate summary of `items`. If the prompt does not fit after
 * all (counts are not exactly additive), split the group or shorten its only item.
 */
async function summarizeGroup(ctx: Ctx, items: Item[], stage: SummaryStage): Promise<Item[]> {
  const share = items.reduce((n, i) => n + i.share, 0)
  const budget = budgetFor(ctx, share)
  const p = stage.kind === 'partial' ? prompt(ctx, stage, items.map((i) => i.text).join(MESSAGE_SEPARATOR), undefined, budget) : combinePrompt(ctx, items, budget)
  if (!fits(ctx.client, p, budget)) {
    if (items.length > 1) {
      const half = Math.ceil(items.length / 2)
      const [a, b] = await Promise.all([summarizeGroup(ctx, items.slice(0, half), stage), summarizeGroup(ctx, items.slice(half), stage)])
      return [...a, ...b]
    }
    const only = items[0]
    if (only.text.length < 64) throw new SummarizerError('context_overflow', `a summary request does not fit the summarizer's ${ctx.client.contextLimit}-token window`)
    const shorter = truncateMiddle(only.text, Math.floor(only.text.length * 0.8))
    return summarizeGroup(ctx, [{ ...only, text: shorter, tokens: ctx.client.countTokens(shorter) }], stage)
  }
  const result = await call(ctx, p, budget)
  // A partial cut at its cap is still useful input for the merge; only the final one is checked.
  const text = result.text.replace(SUMMARY_HEADER_RE, '').trim()
  if (text === '') throw new SummarizerError('empty', 'the summarizer returned an empty partial summary')
  return [{ text, tokens: ctx.client.countTokens(text), share }]
}

function budgetFor(ctx: Ctx, share: number): number {
  const min = Math.min(MIN_PARTIAL_TOKENS, ctx.partialCap)
  return Math.max(min, Math.min(ctx.partialCap, Math.floor(ctx.req.budgetTokens * share)))
}

function combinePrompt(ctx: Ctx, items: Item[], budget: number): SummaryPrompt {
  const previous = items[0]?.previous ? items[0].text : undefined
  const parts = previous === undefined ? items : items.slice(1)
  const body = parts.map((item, i) => `[Part ${i + 1} of ${parts.length}]\n${item.text}`).join(MESSAGE_SEPARATOR)
  return prompt(ctx, { kind: 'combine' }, body, previous, budget)
}

// ---------------------------------------------------------------------------
// Calls
// ---------------------------------------------------------------------------

function prompt(ctx: Ctx, stage: SummaryStage, formattedMessages: string, previousSummary: string | undefined, budget: number): SummaryPrompt {
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

function countPrompt(client: SummarizerClient, p: SummaryPrompt): number {
  return client.countTokens(`${p.system}\n\n${p.prompt}`)
}

function fits(client: SummarizerClient, p: SummaryPrompt, maxOutputTokens: number): boolean {
  return countPrompt(client, p) + FRAMING_TOKENS + maxOutputTokens <= client.contextLimit
}

/** The only place a request leaves: re-checks the window, then sums usage. */
async function call(ctx: Ctx, p: SummaryPrompt, maxOutputTokens: number): Promise<CompletionResult> {
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
async function pool<T, R>(items: T[], limit: number, ctx: Ctx, fn: (ctx: Ctx, item: T, index: number) => Promise<R>): Promise<R[]> {
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

// ---------------------------------------------------------------------------
// Result
// ---------------------------------------------------------------------------

function finish(ctx: Ctx, raw: string, truncated: boolean): SummaryResult {
  const { req, client } = ctx
  const answer = normaliseSummary(raw, req.round)
  if (answer === undefined) throw new SummarizerError('empty', 'the summarizer returned an empty summary')
  if (truncated) throw new SummarizerError('over_budget', `the summary was cut at its ${req.budgetTokens}-token cap`)
  const count = (s: string) => Math.ceil(req.counter.text(s) * req.counter.margin)
  if (count(answer) > req.budgetTokens) {
    throw new SummarizerError('over_budget', `the summary has ${count(answer)} tokens, over its ${req.budgetTokens}-token budget`)
  }
  // Whatever the model dropped of the extracted facts is appended; its own prose gives way if needed.
  const text = completeFromFacts(answer, req.facts, req.originalTask, req.budgetTokens, count).text
  const tokens = count(text)
  if (tokens > req.budgetTokens) {
    throw new SummarizerError('over_budget', `the summary has ${tokens} tokens, over its ${req.budgetTokens}-token budget`)
  }
  const { sections } = parseSummarySections(text)
  const others = [...sections.keys()].filter((t) => t !== 'original task')
  const expected = req.instructionsMode === 'replace' && req.instructions?.trim() ? others : others.filter((t) => (SECTION_TITLES as readonly string[]).includes(t))
  if (!sections.has('original task') || expected.length === 0) {
    throw new SummarizerError('malformed', 'the summary lacks the expected sections (Original Task and at least one other)')
  }

  const keyFacts = keyFactsFromSummary(text, req.originalTask)
  keyFacts.userRequests = [...new Set([...req.facts.instructions.map((i) => i.text), ...keyFacts.userRequests])]
  return { text, keyFacts, usage: { ...ctx.usage }, model: client.model, costUsd: client.costUsd(ctx.usage.inputTokens, ctx.usage.outputTokens) }
}

/**
 * Trimmed text starting with the header of `round`: a model's preamble or code fence
 * is dropped, a missing header added, a wrong round number corrected.
 */
export function normaliseSummary(raw: string, round: number): string | undefined {
  let text = raw.trim()
  const fenced = /^```[\w-]*\n([\s\S]*?)\n```$/.exec(text)
  if (fenced) text = fenced[1].trim()
  if (text === '') return undefined
  const header = summaryHeader(round)
  const at = text.search(/^[ \t]*#{1,6}[ \t]*\**Session Summary[ \t]*\(/im)
  if (at > 0 && at < 400) text = text.slice(at) // short preamble ("Here is the summary:")
  if (SUMMARY_HEADER_RE.test(text)) return text.replace(SUMMARY_HEADER_RE, `${header}\n`).trim()
  return `${header}\n\n${text}`
}

/** `text` shortened (head + tail) until it counts at most `maxTokens`. */
function fitText(client: SummarizerClient, text: string, maxTokens: number): string {
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
