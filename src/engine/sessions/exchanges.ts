/**
 * Exchanges: the unit the rolling summary counts and summarises.
 *
 * `groupExchanges` splits a conversation at each user turn (facts/user-turn.ts: the
 * human's own words or an earlier summary; not tool results, harness text, a bare
 * "continue", nor a text-only agent's observations). An agent loop is often one
 * user task followed by hundreds of tool calls: one endless exchange, which would never
 * reach a session's batchSize and would end up as a single summary line. So
 * `sessionExchanges` cuts a long exchange, at atomic-unit boundaries (a tool call stays
 * with its results), into pieces of at most EXCHANGE_MAX_UNITS units; each piece counts
 * and is summarised as an exchange.
 */
import { computeUnits } from '../conversation/pairing.ts'
import { isSystemLike, toolResultsOf, type CanonicalMessage } from '../messages/canonical.ts'
import { userTurnStarts } from '../facts/user-turn.ts'
import { iso } from './document.ts'

/** Atomic units (a user turn, or an assistant turn with its tool results) per exchange at most. */
export const EXCHANGE_MAX_UNITS = 4

export interface Exchange {
  messages: CanonicalMessage[]
}

/**
 * Splits a conversation at each user turn, so tool calls stay with their results and
 * harness text stays with the work it interrupts. System/developer messages belong to no
 * exchange. Messages before the first user turn form an exchange of their own.
 */
export function groupExchanges(messages: readonly CanonicalMessage[]): Exchange[] {
  const out: Exchange[] = []
  let cur: CanonicalMessage[] | undefined
  const turns = userTurnStarts(messages)
  for (const [position, m] of messages.entries()) {
    if (isSystemLike(m)) continue
    // A message that answers a call (Anthropic puts the human's next words beside the
    // results) stays with the call; its words still count in this exchange.
    if (!cur || (turns.has(position) && toolResultsOf(m).length === 0)) {
      cur = []
      out.push({ messages: cur })
    }
    cur.push(m)
  }
  return out
}

/** Time of an exchange: its latest message timestamp (when the work ended). */
export function exchangeTime(exchange: Exchange): string | undefined {
  let best = -Infinity
  for (const m of exchange.messages) {
    const ms = m.timestamp ? Date.parse(m.timestamp) : NaN
    if (Number.isFinite(ms) && ms > best) best = ms
  }
  return best > -Infinity ? iso(best) : undefined
}

/** The session's exchanges: groupExchanges, with long exchanges cut into pieces of at most EXCHANGE_MAX_UNITS units. */
export function sessionExchanges(messages: readonly CanonicalMessage[]): Exchange[] {
  const out: Exchange[] = []
  for (const exchange of groupExchanges(messages)) {
    const units = computeUnits(exchange.messages)
    if (units.length <= EXCHANGE_MAX_UNITS) {
      out.push(exchange)
      continue
    }
    for (let i = 0; i < units.length; i += EXCHANGE_MAX_UNITS) {
      const last = units[Math.min(i + EXCHANGE_MAX_UNITS, units.length) - 1]!
      out.push({ messages: exchange.messages.slice(units[i]!.start, last.end + 1) })
    }
  }
  return out
}
