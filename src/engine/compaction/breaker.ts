/**
 * The compaction circuit breaker (issue 24): a session whose context refills right after
 * every compaction would otherwise be compacted again and again, each time re-billing
 * the cache and freeing little (gemini-cli #6563, OpenHands #8282). Pure: the state is a
 * value the caller stores (src/checkpoints/breakers.ts).
 *
 * Automatic compactions (the proxy's, GET /context's) are recorded. The circuit opens
 * when the last `failures` of them each freed less than `minFreedShare` of the window,
 * or when `maxCompactions` of them came within `withinMessages` messages. While open,
 * automatic compactions are refused, for `cooldownSeconds` (the hint a refusal gives);
 * after that one more is allowed, and the history it joins decides again. A successful
 * manual compaction (POST /compact with the sessionId) or a reset closes it and clears the
 * history.
 */

export interface BreakerSettings {
  /** Automatic compactions in a row that each free too little. */
  failures: number
  /** "Too little": less than this share of the window. */
  minFreedShare: number
  /** Automatic compactions that, within `withinMessages` messages, open the circuit. */
  maxCompactions: number
  withinMessages: number
  cooldownSeconds: number
}

export interface BreakerRecord {
  /** ISO time. */
  at: string
  /** The conversation's length in messages when it was compacted. */
  messages: number
  freedTokens: number
  windowTokens: number
}

export interface BreakerState {
  /** The latest automatic compactions since the last reset, oldest first (at most what the rules read). */
  recent: BreakerRecord[]
  open?: { since: string; until: string; reason: string }
}

export interface BreakerStatus {
  state: 'closed' | 'open'
  reason?: string
  /** Seconds until an automatic compaction is allowed again. */
  retryAfterSeconds?: number
  openedAt?: string
  recent: BreakerRecord[]
}

export const CLOSED: BreakerState = { recent: [] }

export function breakerStatus(state: BreakerState, now: Date): BreakerStatus {
  const open = state.open
  if (open && Date.parse(open.until) > now.getTime()) {
    return { state: 'open', reason: open.reason, retryAfterSeconds: Math.max(1, Math.ceil((Date.parse(open.until) - now.getTime()) / 1000)), openedAt: open.since, recent: state.recent }
  }
  return { state: 'closed', recent: state.recent }
}

/** The state after one automatic compaction: the record added, and the circuit opened when a rule says so. */
export function recordAutomatic(state: BreakerState, record: BreakerRecord, settings: BreakerSettings): BreakerState {
  const keep = Math.max(settings.failures, settings.maxCompactions)
  const recent = [...state.recent, record].slice(-keep)
  const reason = tripReason(recent, settings)
  if (!reason) return { recent }
  const until = new Date(Date.parse(record.at) + settings.cooldownSeconds * 1000).toISOString()
  return { recent, open: { since: record.at, until, reason } }
}

function tripReason(recent: readonly BreakerRecord[], s: BreakerSettings): string | undefined {
  const lastK = recent.slice(-s.failures)
  if (lastK.length === s.failures && lastK.every((r) => r.freedTokens < s.minFreedShare * r.windowTokens)) {
    const freed = lastK.map((r) => `${r.freedTokens} of ${r.windowTokens}`).join(', ')
    return `${s.failures} automatic compactions in a row each freed less than ${Math.round(s.minFreedShare * 100)}% of the window (freed ${freed} tokens)`
  }
  const lastM = recent.slice(-s.maxCompactions)
  if (lastM.length === s.maxCompactions && lastM.at(-1)!.messages - lastM[0]!.messages < s.withinMessages) {
    return `${s.maxCompactions} automatic compactions within ${s.withinMessages} messages (at messages ${lastM.map((r) => r.messages).join(', ')}): the context refills as fast as it is compacted`
  }
  return undefined
}
