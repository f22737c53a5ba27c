/**
 * The llm summarizer's map-reduce (llm.ts), for a conversation that does not fit one request:
 *   map     messages are grouped into units that never separate a tool call from its
 *           results, packed into chunks, and each chunk is summarised into a partial
 *           summary whose budget is its share of the final budget;
 *   reduce  the previous summary and the partials are merged in one final call, or, if
 *           they do not fit, merged group by group into fewer, shorter summaries first
 *           (each level at least halves their number, so it terminates).
 */
import { computeUnits } from '../../conversation/pairing.ts'
import { MESSAGE_SEPARATOR, truncateMiddle, type SummaryPrompt, type SummaryStage } from '../prompts.ts'
import { SUMMARY_HEADER_RE } from '../summary-format.ts'
import { SummarizerError, type CompletionResult } from '../types.ts'
import { call, countPrompt, fitText, fits, FRAMING_TOKENS, pool, prompt, type Ctx } from './llm-calls.ts'

/** Smallest useful partial summary. */
const MIN_PARTIAL_TOKENS = 150
/** Below this a reduce level cannot make progress: the window is too small. */
const MIN_CAP_TOKENS = 48
/** Concurrent map calls (keeps latency down without tripping rate limits). */
const MAP_CONCURRENCY = 4
/** Safety stop for the reduce loop (each level halves the count, so ~log2(parts) levels). */
const MAX_REDUCE_LEVELS = 16

/** A piece of text on its way to the final summary. */
interface Item {
  text: string
  tokens: number
  /** Fraction of the whole input this item stands for (shares sum to 1). */
  share: number
  /** The previous round's summary (rendered in its own prompt section). */
  previous?: boolean
}

export async function mapReduce(ctx: Ctx, rendered: string[], previous: string | undefined, budget: number): Promise<CompletionResult> {
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
