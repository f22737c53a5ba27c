/**
 * Tool-call integrity, format-independent: one validator for every output, the
 * repair of broken inputs, and the atomic units selection may never split.
 *
 * A unit is a run of messages that must stay together: an assistant message with
 * tool calls plus every later message holding one of their results (and whatever
 * lies between). Reasoning blocks live inside the assistant message that precedes the
 * call, so they move with it. Parallel calls of one message share one unit.
 */
import { toolCallsOf, toolResultsOf, type CanonicalMessage, type ToolCallPart, type ToolResultPart } from '../messages/canonical.ts'

export interface PairingProblem {
  index: number
  callId: string
  problem: 'result-without-call' | 'call-without-result' | 'duplicate-call-id' | 'duplicate-result' | 'result-before-call'
}

/**
 * Every pairing problem in a message list (empty when valid). Pairing is sequential,
 * as providers read it: a call opens its id, the next result with that id closes it,
 * and an id may be reused once closed (some agents repeat ids across turns).
 *
 * Ids are unique among the calls awaiting a result, so a result never matches two calls:
 * - two calls with one id in ONE message cannot be told apart ('duplicate-call-id', at
 *   the message; no repair: parseConversation refuses such input, see `duplicateCallIdIn`);
 * - a call reusing the id of a call of an EARLIER message that is still unanswered
 *   supersedes it: providers answer a turn's calls right after it, so the results that
 *   follow belong to the newer call, and the earlier one has none
 *   ('call-without-result', at the earlier message; the repair answers it).
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
      const earlier = open.get(c.id)
      if (earlier === i) {
        problems.push({ index: i, callId: c.id, problem: 'duplicate-call-id' })
        continue
      }
      if (earlier !== undefined) problems.push({ index: earlier, callId: c.id, problem: 'call-without-result' })
      open.set(c.id, i)
    }
  })
  for (const [id, i] of open) problems.push({ index: i, callId: id, problem: 'call-without-result' })
  return problems.sort((a, b) => a.index - b.index)
}

/** The first id two tool calls of one message share, with the message's position; undefined when none. */
export function duplicateCallIdIn(messages: readonly CanonicalMessage[]): { index: number; callId: string } | undefined {
  for (let i = 0; i < messages.length; i++) {
    const calls = toolCallsOf(messages[i]!)
    if (calls.length < 2) continue
    const seen = new Set<string>()
    for (const c of calls) {
      if (seen.has(c.id)) return { index: i, callId: c.id }
      seen.add(c.id)
    }
  }
  return undefined
}

/**
 * Which call each result answers, by the sequential rule of `findPairingProblems` (a
 * reused id belongs to its latest call): result part → call part, for the results that
 * have a call. Keyed by the parts themselves, so a reused id maps each result to its own
 * call (an id-keyed map would give every result of the id the last call).
 */
export function callsOfResults(messages: readonly CanonicalMessage[]): Map<ToolResultPart, ToolCallPart> {
  const open = new Map<string, ToolCallPart>()
  const out = new Map<ToolResultPart, ToolCallPart>()
  for (const m of messages) {
    for (const r of toolResultsOf(m)) {
      const call = open.get(r.callId)
      if (call === undefined) continue
      open.delete(r.callId)
      out.set(r, call)
    }
    for (const c of toolCallsOf(m)) open.set(c.id, c)
  }
  return out
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
    // A reused id supersedes an unanswered earlier call (findPairingProblems).
    for (const c of toolCallsOf(m)) open.set(c.id, i)
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
 * and answer unanswered calls right after their message (a call whose id a later
 * message reuses before any result is unanswered: findPairingProblems). `makeResult`
 * builds a tool-result message in the caller's format; `dropResult` removes one result
 * part. Two calls with one id in one message cannot be repaired: callers refuse those
 * first (`duplicateCallIdIn`).
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
      // A reused id supersedes an unanswered earlier call, which then gets no result.
      for (const c of toolCallsOf(m)) pending.set(c.id, `${i}:${c.id}`)
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
      if (open.has(c.id)) continue // two calls with one id in one message: refused before repair (duplicateCallIdIn)
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

/** Whether the last assistant message has tool calls some of which have no result after it. */
export function midTurn(messages: readonly CanonicalMessage[]): boolean {
  let last = -1
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.role === 'assistant') {
      last = i
      break
    }
  }
  if (last === -1) return false
  const calls = new Set(toolCallsOf(messages[last]!).map((c) => c.id))
  for (const m of messages.slice(last + 1)) for (const r of toolResultsOf(m)) calls.delete(r.callId)
  return calls.size > 0
}
