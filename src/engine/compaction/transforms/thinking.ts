/**
 * The thinking policy (issue 24): keep the reasoning of the last N assistant turns and drop
 * the rest (Anthropic thinking and redacted_thinking blocks, AI SDK reasoning parts,
 * Responses reasoning items). Reasoning is often the largest part of an agent's history and
 * the part a model needs least once its turn is over: Anthropic's API ignores earlier
 * turns' thinking for most models, yet the caller pays to send it.
 *
 * A turn is what follows one user message (not a tool result) up to the next: in a tool
 * loop that is several assistant messages. The turn in progress (the conversation ends
 * with tool calls or tool results) always keeps its reasoning, since Anthropic refuses a
 * tool loop whose assistant messages lost their thinking, and counts toward N. Pinned
 * messages are never touched. The format's adapter decides what may go (a Responses
 * reasoning item tied to server item ids stays).
 */
import type { FormatAdapter } from '../../messages/adapter.ts'
import { toolCallsOf, type CanonicalMessage } from '../../messages/canonical.ts'

export interface ThinkingPolicy {
  /** Turns whose reasoning stays, counted from the end; 'all' keeps everything. */
  keep: number | 'all'
}

export interface ThinkingOutcome {
  messages: CanonicalMessage[]
  /** Reasoning parts removed. */
  blocksDropped: number
  /** Messages changed (their reasoning removed) or removed (nothing else in them). */
  messagesChanged: number
  /** Reasoning parts the policy would drop but the provider's rules keep. */
  keptForProvider: number
  tokensFreed: number
}

function isTurnStart(m: CanonicalMessage): boolean {
  return m.role === 'user' && m.parts.some((p) => p.type !== 'tool-result')
}

function reasoningCount(m: CanonicalMessage): number {
  let n = 0
  for (const p of m.parts) if (p.type === 'reasoning') n++
  return n
}

/** Turn number of every message (-1 before the first user message) and whether the last turn is in progress. */
export function turnsOf(messages: readonly CanonicalMessage[]): { turn: number[]; inProgress: boolean } {
  const turn: number[] = []
  let current = -1
  for (const m of messages) {
    if (isTurnStart(m)) current++
    turn.push(current)
  }
  const last = [...messages].reverse().find((m) => m.role !== 'system' && m.role !== 'developer')
  const inProgress = last !== undefined && (last.role === 'tool' || (last.role === 'user' && !isTurnStart(last)) || (last.role === 'assistant' && toolCallsOf(last).length > 0))
  return { turn, inProgress }
}

export function applyThinkingPolicy(
  messages: readonly CanonicalMessage[],
  policy: ThinkingPolicy | undefined,
  adapter: FormatAdapter,
  opts: { pinned?: ReadonlySet<number>; tokensOf(message: CanonicalMessage): number },
): ThinkingOutcome {
  const none: ThinkingOutcome = { messages: messages as CanonicalMessage[], blocksDropped: 0, messagesChanged: 0, keptForProvider: 0, tokensFreed: 0 }
  if (!policy || policy.keep === 'all') return none
  const { turn, inProgress } = turnsOf(messages)
  // Turns holding reasoning, newest first; the last `keep` of them stay (the one in progress always).
  const withReasoning = [...new Set(messages.flatMap((m, i) => (m.role === 'assistant' && reasoningCount(m) > 0 ? [turn[i]!] : [])))].sort((a, b) => b - a)
  const lastTurn = turn.at(-1) ?? -1
  const kept = new Set(withReasoning.slice(0, policy.keep))
  if (inProgress) kept.add(lastTurn)
  const out: CanonicalMessage[] = []
  let blocksDropped = 0
  let messagesChanged = 0
  let keptForProvider = 0
  let tokensFreed = 0
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!
    const count = m.role === 'assistant' ? reasoningCount(m) : 0
    if (count === 0 || kept.has(turn[i]!) || opts.pinned?.has(m.index)) {
      out.push(m)
      continue
    }
    const edited = adapter.withoutReasoning(m)
    if (edited === m) {
      keptForProvider += count
      out.push(m)
      continue
    }
    blocksDropped += count
    messagesChanged++
    tokensFreed += opts.tokensOf(m) - (edited ? opts.tokensOf(edited) : 0)
    if (edited) out.push(edited)
  }
  if (messagesChanged === 0) return { ...none, keptForProvider }
  return { messages: out, blocksDropped, messagesChanged, keptForProvider, tokensFreed: Math.max(0, tokensFreed) }
}
