/**
 * `mask`: observation masking. Old tool results become a one-line placeholder with a
 * rule-based digest (tool, target, status, first error line); the calls stay, so the
 * agent still sees what it did. `excludeTools` are never masked, the most recent
 * `keepToolResults` results are kept, and `clearToolInputsOver` also shortens large
 * call arguments. No LLM. (JetBrains, "The Complexity Trap": masking matched LLM
 * summarisation in solve rate at half the cost.)
 */
import type { FormatAdapter } from '../../messages/adapter.ts'
import { toolCallsOf, toolResultsOf, type CanonicalMessage, type ToolCallPart, type ToolResultPart } from '../../messages/canonical.ts'
import { callsOfResults } from '../../conversation/pairing.ts'
import type { TokenCounter } from '../../tokens/count.ts'
import { clip, digestToolCall, formatDigest } from '../../facts/tools.ts'
import { digestOf } from '../../facts/digest-cache.ts'

export const MASK_PREFIX = '[output masked by compactd]'

export interface MaskOptions {
  keepToolResults: number
  excludeTools: readonly string[]
  clearToolInputsOver: number
  preserveErrorDetails: boolean
  /** The archive reference of a message (set when what is dropped is archived): the placeholder names it. */
  refOf?: (message: CanonicalMessage) => string
}

/** How a placeholder names the archived original: short, and the same words the summary's archive note uses. */
export function refMark(ref: string): string {
  return `[ref ${ref}]`
}

/**
 * Whether a message holds nothing but compactd's own placeholders (tool results an earlier
 * round masked): the original is archived under the reference the placeholder names, so
 * archiving the placeholder again would only put compactd's digest line above the
 * original in search.
 */
export function isMaskedPlaceholderOnly(message: CanonicalMessage): boolean {
  const results = toolResultsOf(message)
  return results.length > 0 && results.length === message.parts.length && results.every((r) => r.text.startsWith(MASK_PREFIX))
}

export interface MaskOutcome {
  messages: CanonicalMessage[]
  maskedResults: number
  clearedInputs: number
}

/** Call ids of the `keep` most recent tool results in the whole conversation. */
export function recentResultIds(messages: readonly CanonicalMessage[], keep: number): Set<string> {
  const ids = new Set<string>()
  for (let i = messages.length - 1; i >= 0 && ids.size < keep; i--) {
    const results = toolResultsOf(messages[i]!)
    for (let j = results.length - 1; j >= 0 && ids.size < keep; j--) ids.add(results[j]!.callId)
  }
  return ids
}

/** Each result's own call (a reused id pairs sequentially), per conversation: maskRange runs once per segment. */
const callsCache = new WeakMap<readonly CanonicalMessage[], Map<ToolResultPart, ToolCallPart>>()
function callsOf(all: readonly CanonicalMessage[]): Map<ToolResultPart, ToolCallPart> {
  let hit = callsCache.get(all)
  if (!hit) callsCache.set(all, (hit = callsOfResults(all)))
  return hit
}

/**
 * Mask the tool results and (optionally) large inputs of `messages[from..to)`.
 * `all` is the whole conversation: calls are looked up there, and `exempt` names
 * results to leave alone (the most recent ones).
 */
export function maskRange(
  all: readonly CanonicalMessage[],
  from: number,
  to: number,
  adapter: FormatAdapter,
  counter: TokenCounter,
  opts: MaskOptions,
  exempt: ReadonlySet<string>,
): MaskOutcome {
  const calls = callsOf(all)
  const excluded = new Set(opts.excludeTools.map((t) => t.toLowerCase()))
  const out = all.slice(from, to)
  let maskedResults = 0
  let clearedInputs = 0
  for (let k = 0; k < out.length; k++) {
    const original = out[k]!
    let m = original
    for (const r of toolResultsOf(m)) {
      const call = calls.get(r)
      const name = call?.name ?? r.name ?? 'tool'
      if (exempt.has(r.callId) || excluded.has(name.toLowerCase()) || r.text.startsWith(MASK_PREFIX)) continue
      const digest = digestOf(name, call?.argsText ?? '', r, opts.preserveErrorDetails)
      const placeholder = `${MASK_PREFIX} ${formatDigest(digest)}${opts.refOf ? ` ${refMark(opts.refOf(original))}` : ''}`
      // Masking a short result would make it longer: leave it.
      if (counter.text(placeholder) >= counter.text(r.text)) continue
      m = adapter.withToolResultText(m, r.callId, placeholder)
      maskedResults++
    }
    if (opts.clearToolInputsOver > 0) {
      for (const c of toolCallsOf(m)) {
        if (excluded.has(c.name.toLowerCase()) || counter.text(c.argsText) <= opts.clearToolInputsOver) continue
        const digest = digestToolCall(c.name, c.argsText, '', false, false)
        const short = JSON.stringify({ _compacted: `${MASK_PREFIX} input of ${clip(`${c.name} ${digest.target ?? ''}`, 160)} (${c.argsText.length} chars)` })
        m = adapter.withToolCallArgs(m, c.id, short)
        clearedInputs++
      }
    }
    out[k] = m
  }
  return { messages: out, maskedResults, clearedInputs }
}
