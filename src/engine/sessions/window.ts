/**
 * The session window's eviction rule, pure: while the window is over windowMessages or
 * windowTokens, its oldest whole atomic unit leaves it (a tool call never leaves
 * without its results). The newest unit always stays, however large: the caller's
 * latest turn is never evicted on arrival.
 */
import { computeUnits } from '../conversation/pairing.ts'
import type { CanonicalMessage } from '../messages/canonical.ts'

export interface WindowLimits {
  /** Most messages the window holds. */
  windowMessages: number
  /** Most tokens the window holds. */
  windowTokens: number
}

export interface WindowEviction {
  /** How many of the window's oldest messages leave it: always whole units. */
  evicted: number
  /** Messages left in the window. */
  messages: number
  /** Tokens left in the window. */
  tokens: number
}

/**
 * Which of the window's messages to evict. `messages` is the window oldest first,
 * without system messages (they stay); `tokens[i]` is the token count of `messages[i]`.
 */
export function planWindowEviction(messages: readonly CanonicalMessage[], tokens: readonly number[], limits: WindowLimits): WindowEviction {
  const units = computeUnits(messages)
  let count = messages.length
  let total = tokens.reduce((n, t) => n + t, 0)
  let evicted = 0
  for (let u = 0; u < units.length - 1 && (count > limits.windowMessages || total > limits.windowTokens); u++) {
    for (let i = units[u]!.start; i <= units[u]!.end; i++) {
      evicted++
      count--
      total -= tokens[i]!
    }
  }
  return { evicted, messages: count, tokens: total }
}
