/**
 * Tool-call integrity, format-independent: one validator for every output, the
 * repair of broken inputs, and the atomic units selection may never split.
 *
 * A unit is a run of messages that must stay together: an assistant message with
 * tool calls plus every later message holding one of their results (and whatever
 * lies between). Reasoning blocks live inside the assistant message that precedes the
 * call, so they move with it. Parallel calls of one message share one unit.
 */
import { toolCallsOf, toolResultsOf, type CanonicalMessage } from '../messages/canonical.ts'

export interface PairingProblem {
  index: number
  callId: string
  problem: 'result-without-call' | 'call-without-result' | 'duplicate-call-id' | 'duplicate-result' | 'result-before-call'
}

/**
 * Every pairing problem in a message list (empty when valid). Pairing is sequential,
 * as providers read it: a call opens its id, the next result with that id closes it,
 * and an id may be reused once closed (some agents repeat ids across turns).
 */
export function findPairingProblems(messages: readonly CanonicalMessage[]): PairingProblem[] {
  const problems: PairingProblem[] = []
  const open = new Map<string, number>()
  const closed = new Set<string>()
  messages.forEach((m, i) => {
    for (const r of toolResultsOf(m)) {
      if (open.has(r.callId)) {
        open.delete(r.callId)
        closed.add(r.callId)
      } else problems.push({ index: i, callId: r.callId, problem: closed.has(r.callId) ? 'duplicate-result' : 'result-without-call' })
    }
    for (const c of toolCallsOf(m)) {
      if (open.has(c.id)) problems.push({ index: i, callId: c.id, problem: 'duplicate-call-id' })
      else open.set(c.id, i)
    }
  })
  for (const [id, i] of open) problems.push({ index: i, callId: id, problem: 'call-without-result' })
  return problems.sort((a, b) => a.index - b.index)
}

/** For each message index holding calls, the index of the last message answering them. */
function lastAnswerOf(messages: readonly CanonicalMessage[]): Map<number, number> {
  const open = new Map<string, number>()
  const last = new Map<number, number>()
  messages.forEach((m, i) => {
    for (const r of toolResultsOf(m)) {
      const at = open.get(r.callId)
      if (at === undefined) continue
      open.delete(r.callId)
      last.set(at, Math.max(last.get(at) ?? at, i))
    }
    for (const c of toolCallsOf(m)) if (!open.has(c.id)) open.set(c.id, i)
  })
  return last
}

export interface Unit {
  /** First and last message index (inclusive) in the list the units were computed on. */
  start: number
  end: number
}

/**
 * Split a valid message list into atomic units. Linear: each message extends the
 * current unit while calls of the unit remain unanswered.
 */
export function computeUnits(messages: readonly CanonicalMessage[]): Unit[] {
  const units: Unit[] = []
  const answeredBy = lastAnswerOf(messages)
  let i = 0
  while (i < messages.length) {
    let end = i
    for (let j = i; j <= end; j++) {
      const r = answeredBy.get(j)
      if (r !== undefined && r > end) end = r
    }
    units.push({ start: i, end })
    i = end + 1
  }
  return units
}

export interface RepairOutcome {
  messages: CanonicalMessage[]
  repairs: { index: number; action: string }[]
}

/** Text of the result inserted for a call that never got one (as the fixtures' normaliser does). */
export const MISSING_RESULT_TEXT = '[no result recorded]'

/**
 * Make a broken list valid: drop results whose call is absent or already answered,
 * and answer unanswered calls right after their message. `makeResult` builds a
 * tool-result message in the caller's format; `dropResult` removes one result part.
 */
export function repairPairing(
  messages: readonly CanonicalMessage[],
  ops: {
    dropResult(message: CanonicalMessage, callId: string): CanonicalMessage | null
    makeResults(afterMessage: CanonicalMessage, callIds: { id: string; name: string }[]): CanonicalMessage[]
  },
): RepairOutcome {
  const repairs: RepairOutcome['repairs'] = []
  const out: CanonicalMessage[] = []
  const open = new Map<string, string>() // id -> tool name, calls awaiting their result
  // Which calls get a result later (sequentially), so unanswered ones can be answered now.
  const answered = new Set<string>()
  {
    const pending = new Map<string, string>()
    messages.forEach((m, i) => {
      for (const r of toolResultsOf(m)) {
        const key = pending.get(r.callId)
        if (key !== undefined) {
          pending.delete(r.callId)
          answered.add(key)
        }
      }
      for (const c of toolCallsOf(m)) if (!pending.has(c.id)) pending.set(c.id, `${i}:${c.id}`)
    })
  }

  messages.forEach((original, i) => {
    let m: CanonicalMessage | null = original
    for (const r of toolResultsOf(original)) {
      if (open.has(r.callId)) open.delete(r.callId)
      else {
        repairs.push({ index: original.index, action: `removed tool result ${r.callId}: no open tool call before it` })
        m = m ? ops.dropResult(m, r.callId) : null
      }
    }
    if (!m) return
    out.push(m)
    const missing: { id: string; name: string }[] = []
    for (const c of toolCallsOf(m)) {
      if (open.has(c.id)) continue // a repeated id inside one open call: left to the provider
      if (answered.has(`${i}:${c.id}`)) open.set(c.id, c.name)
      else missing.push({ id: c.id, name: c.name })
    }
    if (missing.length > 0) {
      repairs.push({ index: original.index, action: `added "${MISSING_RESULT_TEXT}" for unanswered tool call${missing.length > 1 ? 's' : ''} ${missing.map((c) => c.id).join(', ')}` })
      out.push(...ops.makeResults(m, missing))
    }
  })
  return { messages: out, repairs }
}
