/**
 * Exchanges of a session, as the rolling summary counts and summarises them.
 *
 * `groupExchanges` (the engine) splits at each user turn. An agent loop is often one
 * user task followed by hundreds of tool calls: one endless exchange, which would never
 * reach BATCH_SIZE and would end up as a single summary line. So a long exchange is
 * cut, at atomic-unit boundaries (a tool call stays with its results), into pieces of
 * at most EXCHANGE_MAX_UNITS units; each piece counts and is summarised as an exchange.
 */
import { computeUnits } from '../engine/compaction/integrity.ts'
import type { CanonicalMessage } from '../engine/messages/canonical.ts'
import { groupExchanges, type Exchange } from '../engine/sessions/rolling-summary.ts'

/** Atomic units (a user turn, or an assistant turn with its tool results) per exchange at most. */
export const EXCHANGE_MAX_UNITS = 4

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
