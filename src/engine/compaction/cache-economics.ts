/**
 * Cache economics (issue 24): does this compaction pay for the prompt-cache break it
 * causes? Every provider with a prompt cache bills a cached prefix at a fraction of the
 * input price, and a new prefix at the input price or more (Anthropic's cache writes cost
 * 1.25×). Compacting rewrites the conversation after its kept head, so the next request
 * writes it anew; from then on each request reads fewer tokens.
 *
 * Over the next `horizonTurns` requests, each resending the conversation (the growth of
 * each turn is the same either way, so it cancels out):
 *
 *   without = C·r + (B − C)·w + (H − 1)·B·r
 *   with    = K·r + (A − K)·w + (H − 1)·A·r + S
 *
 * B tokens before, A after, C of B in the provider's cache now, K the prefix the
 * compaction keeps byte for byte (still cached; at most C), r / w the cache read / write
 * price, S the summarizer's cost, H the horizon. saving = without − with; the break-even
 * is the least H where saving ≥ 0. Prices are USD per million tokens. docs/api.md has a
 * worked example.
 */
import type { CanonicalMessage } from '../messages/canonical.ts'

export interface CachePrices {
  /** USD per million uncached input tokens. */
  inputPrice: number
  /** USD per million tokens read from the cache. */
  cacheReadPrice: number
  /** USD per million tokens written to the cache (the input price where writing costs nothing extra). */
  cacheWritePrice: number
}

export interface CacheSettings extends CachePrices {
  /** Tokens of the conversation the provider has cached now; unset: all of it (the case where compacting costs most). */
  cachedPrefixTokens?: number
  /** Requests over which the saving is counted, this one included. */
  horizonTurns: number
  /** `when-profitable`: compact only when the saving over the horizon is positive. */
  policy: 'always' | 'when-profitable'
}

export interface CacheEconomics extends CachePrices {
  tokensBefore: number
  tokensAfter: number
  cachedPrefixTokens: number
  /** The output's leading tokens that are the input's, unchanged: still cached after the compaction. */
  keptPrefixTokens: number
  horizonTurns: number
  /** What the next request costs in cache writes because of the compaction: (A − K)·w, less the (B − C)·w it would write anyway. */
  writeCostUsd: number
  /** The summarizer's cost, included in costWithUsd. */
  summarizerCostUsd: number
  costWithoutUsd: number
  costWithUsd: number
  /** costWithoutUsd − costWithUsd: positive when the compaction pays over the horizon. */
  savingUsd: number
  /** Requests after which the compaction has paid for itself; null when it never does. */
  breakEvenTurns: number | null
  profitable: boolean
  /** Whether the figures are the plan's estimate (checked before a summarizer is paid) or the result's. */
  estimated: boolean
}

const PER_TOKEN = 1 / 1_000_000

/** Rounded to a millionth of a dollar, so reports read as prices. */
function usd(x: number): number {
  return Math.round(x * 1e6) / 1e6
}

export function cacheEconomics(
  s: CacheSettings,
  figures: { tokensBefore: number; tokensAfter: number; keptPrefixTokens: number; summarizerCostUsd: number; estimated: boolean },
): CacheEconomics {
  const B = figures.tokensBefore
  const A = figures.tokensAfter
  const C = Math.min(s.cachedPrefixTokens ?? B, B)
  const K = Math.min(figures.keptPrefixTokens, C, A)
  const r = s.cacheReadPrice * PER_TOKEN
  const w = s.cacheWritePrice * PER_TOKEN
  const H = s.horizonTurns
  const S = figures.summarizerCostUsd
  const firstWithout = C * r + (B - C) * w
  const firstWith = K * r + (A - K) * w + S
  const perTurn = (B - A) * r
  const without = firstWithout + (H - 1) * B * r
  const withC = firstWith + (H - 1) * A * r
  const deficit = firstWith - firstWithout
  const breakEvenTurns = deficit <= 0 ? 1 : perTurn > 0 ? 1 + Math.ceil(deficit / perTurn - 1e-9) : null
  const saving = without - withC
  return {
    inputPrice: s.inputPrice,
    cacheReadPrice: s.cacheReadPrice,
    cacheWritePrice: s.cacheWritePrice,
    tokensBefore: B,
    tokensAfter: A,
    cachedPrefixTokens: C,
    keptPrefixTokens: K,
    horizonTurns: H,
    writeCostUsd: usd(Math.max(0, (A - K) * w - (B - C) * w)),
    summarizerCostUsd: usd(S),
    costWithoutUsd: usd(without),
    costWithUsd: usd(withC),
    savingUsd: usd(saving),
    breakEvenTurns,
    profitable: saving > 0,
    estimated: figures.estimated,
  }
}

/** Tokens of the output's leading messages that are the input's own, in order (same raw object). */
export function keptPrefixTokens(input: readonly CanonicalMessage[], output: readonly CanonicalMessage[], tokensOf: (m: CanonicalMessage) => number): number {
  let tokens = 0
  for (let i = 0; i < output.length && i < input.length; i++) {
    if (output[i]!.raw !== input[i]!.raw) break
    tokens += tokensOf(output[i]!)
  }
  return tokens
}

/** Why a compaction that does not pay for its cache break was not made. */
export function unprofitable(e: CacheEconomics): string {
  const when = e.breakEvenTurns === null ? 'never pays back' : `pays back only after ${e.breakEvenTurns} requests`
  return `cachePolicy when-profitable: over ${e.horizonTurns} requests the compaction would cost $${e.costWithUsd} against $${e.costWithoutUsd} without it (it ${when}); returned unchanged`
}
