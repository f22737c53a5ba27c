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

/** Every pairing problem in a message list (empty when valid). */
export function findPairingProblems(messages: readonly CanonicalMessage[]): PairingProblem[] {
  const problems: PairingProblem[] = []
  const callAt = new Map<string, number>()
  const answered = new Set<string>()
  messages.forEach((m, i) => {
    for (const r of toolResultsOf(m)) {
      if (!callAt.has(r.callId)) problems.push({ index: i, callId: r.callId, problem: 'result-without-call' })
      else if (answered.has(r.callId)) problems.push({ index: i, callId: r.callId, problem: 'duplicate-result' })
      else answered.add(r.callId)
    }
    for (const c of toolCallsOf(m)) {
      if (callAt.has(c.id)) problems.push({ index: i, callId: c.id, problem: 'duplicate-call-id' })
      else callAt.set(c.id, i)
    }
  })
  for (const [id, i] of callAt) if (!answered.has(id)) problems.push({ index: i, callId: id, problem: 'call-without-result' })
  return problems.sort((a, b) => a.index - b.index)
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
  const resultAt = new Map<string, number>()
  messages.forEach((m, i) => {
    for (const r of toolResultsOf(m)) if (!resultAt.has(r.callId)) resultAt.set(r.callId, i)
  })
  let i = 0
  while (i < messages.length) {
    let end = i
    for (let j = i; j <= end; j++) {
      for (const c of toolCallsOf(messages[j]!)) {
        const r = resultAt.get(c.id)
        if (r !== undefined && r > end) end = r
      }
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
  const called = new Map<string, string>()
  const answered = new Set<string>()
  const resultIds = new Set<string>()
  for (const m of messages) for (const r of toolResultsOf(m)) resultIds.add(r.callId)

  for (const original of messages) {
    let m: CanonicalMessage | null = original
    for (const r of toolResultsOf(original)) {
      if (!called.has(r.callId) || answered.has(r.callId)) {
        repairs.push({ index: original.index, action: `removed tool result ${r.callId}: ${called.has(r.callId) ? 'duplicate' : 'no matching tool call before it'}` })
        m = m ? ops.dropResult(m, r.callId) : null
      } else answered.add(r.callId)
    }
    if (!m) continue
    out.push(m)
    const calls = toolCallsOf(m).filter((c) => !called.has(c.id))
    for (const c of toolCallsOf(m)) called.set(c.id, c.name)
    const missing = calls.filter((c) => !resultIds.has(c.id))
    if (missing.length > 0) {
      repairs.push({ index: original.index, action: `added "${MISSING_RESULT_TEXT}" for unanswered tool call${missing.length > 1 ? 's' : ''} ${missing.map((c) => c.id).join(', ')}` })
      out.push(...ops.makeResults(m, missing.map((c) => ({ id: c.id, name: c.name }))))
      for (const c of missing) answered.add(c.id)
    }
  }
  return { messages: out, repairs }
}
