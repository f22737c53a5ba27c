/**
 * GET /context's share of issue 24's controls, from the session's settings: pinned
 * messages brought back even once folded into the summary, the preservation contract
 * checked on the context sent, and when the context may be compacted at all (the trigger,
 * notMidTurn, the circuit breaker).
 */
import type { BreakerStatus } from '../../engine/compaction/breaker.ts'
import { toolCallsOf, toolResultsOf, type CanonicalMessage, type MessageFormat } from '../../engine/messages/canonical.ts'
import { withoutTimestamps } from '../../engine/messages/index.ts'
import { midTurn } from '../../engine/conversation/pairing.ts'
import { messagesInSeqRange, toCanonical, type SessionSettings, type StoredMessage } from '../../sessions/repository.ts'
import type { Db } from '../../sessions/repository/rows.ts'
import { asJson } from '../compact/contract.ts'

/** How far from a pinned message its tool call or results are looked for. */
const PAIR_REACH = 16

/**
 * The pinned messages not among `live` (folded into the summary), with the tool calls and
 * results they pair with: read from the rows around each, in seq order.
 */
export async function foldedPins(db: Db, tenantId: string, sessionId: string, settings: SessionSettings, live: readonly StoredMessage[]): Promise<StoredMessage[]> {
  const have = new Set(live.map((r) => r.seq))
  const missing = (settings.pin ?? []).filter((seq) => !have.has(seq))
  if (missing.length === 0 || settings.format === undefined) return []
  const found = new Map<number, StoredMessage>()
  for (const seq of missing) {
    const around = (await messagesInSeqRange(db, tenantId, sessionId, seq - PAIR_REACH, seq + PAIR_REACH)).filter((r) => !have.has(r.seq))
    const parsed = toCanonical(around, settings.format)
    const at = around.findIndex((r) => r.seq === seq)
    if (at === -1) continue
    // The pinned message and, until nothing changes, every neighbour that answers or is answered by one taken.
    const taken = new Set([at])
    const ids = (m: CanonicalMessage) => [...toolCallsOf(m).map((c) => c.id), ...toolResultsOf(m).map((r) => r.callId)]
    for (let grew = true; grew; ) {
      grew = false
      const wanted = new Set([...taken].flatMap((k) => ids(parsed[k]!)))
      parsed.forEach((m, k) => {
        if (!taken.has(k) && ids(m).some((id) => wanted.has(id))) {
          taken.add(k)
          grew = true
        }
      })
    }
    for (const k of taken) found.set(around[k]!.seq, around[k]!)
  }
  return [...found.values()]
}

/** When the context must not be compacted now, and why. */
export function holdOf(trigger: SessionSettings['trigger'], messages: readonly CanonicalMessage[], contextLimit: number, breaker: BreakerStatus | undefined): { compactAbove?: number; holdReason?: string } {
  if (breaker) return { compactAbove: Number.POSITIVE_INFINITY, holdReason: `the compaction breaker is open: ${breaker.reason}` }
  if (trigger && trigger.mode !== 'auto') return { compactAbove: Number.POSITIVE_INFINITY, holdReason: `trigger mode ${trigger.mode}: GET /context does not compact this session` }
  if (trigger?.notMidTurn && midTurn(messages)) return { compactAbove: Number.POSITIVE_INFINITY, holdReason: 'notMidTurn: the last assistant message has tool calls without results' }
  if (trigger?.threshold !== undefined) {
    const above = trigger.threshold >= 1 ? Math.floor(trigger.threshold) : Math.floor(trigger.threshold * contextLimit)
    return { compactAbove: above, holdReason: `the trigger threshold (${above} tokens) is not reached` }
  }
  return {}
}

export interface SessionContractReport {
  pinned: number[]
  preserved: string[]
  absent: string[]
}

/**
 * The session's pins and preserved strings against one context: what the report says,
 * what an output failed to keep, and which messages to pin for a string a summary lost.
 * Pins are checked byte for byte when the context is written in the session's format
 * (`format`); in another format their messages are converted, so only strings are checked.
 */
export function sessionContract(settings: SessionSettings, rows: readonly StoredMessage[], messages: readonly CanonicalMessage[], summaryText: string, format: MessageFormat | undefined) {
  const inputTexts = [...rows.map((r) => JSON.stringify(r.raw) ?? ''), JSON.stringify(settings.system ?? null), asJson(summaryText)]
  const preserve = settings.preserve ?? []
  const present = preserve.filter((p) => inputTexts.some((t) => t.includes(asJson(p))))
  const pinnedRows = rows.filter((r) => settings.pin?.includes(r.seq))
  const report: SessionContractReport | undefined =
    settings.pin?.length || preserve.length ? { pinned: pinnedRows.map((r) => r.seq), preserved: present, absent: preserve.filter((p) => !present.includes(p)) } : undefined
  return {
    report,
    unkept(result: { messages: readonly unknown[]; system?: unknown }): { pin: number[]; preserve: string[] } {
      const out = [...result.messages.map((m) => JSON.stringify(format ? withoutTimestamps(m, format) : m) ?? ''), JSON.stringify(result.system ?? null)]
      const outSet = new Set(out)
      const pin = format ? pinnedRows.filter((r) => !outSet.has(JSON.stringify(withoutTimestamps(r.raw, format)) ?? '')).map((r) => r.seq) : []
      return { pin, preserve: present.filter((p) => !out.some((t) => t.includes(asJson(p)))) }
    },
    /** For each string, the latest message holding it, as the engine's pin (its index). */
    pinsFor(strings: readonly string[]): number[] {
      const out: number[] = []
      for (const text of strings) {
        const found = [...messages].reverse().find((m) => m.index >= 0 && (JSON.stringify(m.raw) ?? '').includes(asJson(text)))
        if (found) out.push(found.index)
      }
      return out
    },
  }
}
