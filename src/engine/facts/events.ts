/**
 * Step "classify": the one reading of a conversation that /compact, the rolling session
 * summary and /continuation share. Every message becomes events of five kinds:
 *   instruction      the human's own words (harness blocks split off)
 *   harness          text an agent harness injected: notifications, reminders,
 *                    environment context, interrupts, a bare "continue", a greeting
 *   earlier-summary  a compaction summary already in the conversation (any agent's)
 *   tool-call / tool-output   what the agent did and what came back
 *   assistant        the agent's prose (reasoning parts flagged)
 * Events are read from canonical parts, never from a format's message layout, so an
 * Anthropic user message holding tool results and words yields the same events as
 * OpenAI's separate `tool` and `user` messages.
 */
import { isSystemLike, type CanonicalMessage, type ToolCallPart, type ToolResultPart } from '../messages/canonical.ts'
import { classifyUserText, isOnlyHarness, type HarnessLabel } from './classify.ts'
import { detectEarlierSummary, type EarlierSummary } from './earlier-summary.ts'
import { conclusionsOf } from './reasoning.ts'
import { IMPORTANCE } from './importance.ts'

export type ConversationEvent =
  | { kind: 'instruction'; position: number; text: string }
  | { kind: 'harness'; position: number; text: string; labels: HarnessLabel[] }
  | { kind: 'earlier-summary'; position: number; summary: EarlierSummary }
  | { kind: 'assistant'; position: number; text: string; reasoning: boolean; acted: boolean }
  | { kind: 'tool-call'; position: number; call: ToolCallPart }
  | { kind: 'tool-output'; position: number; result: ToolResultPart; callName?: string }
  /** A text-only agent's command (in a code block) and the observation that answered it. */
  | { kind: 'text-command'; position: number; command: string; output: string }

function ownText(m: CanonicalMessage): string {
  let out = ''
  for (const p of m.parts) if (p.type === 'text') out = out ? `${out}\n${p.text}` : p.text
  return out
}

/** Shell commands an agent without tool calling writes in code blocks (SWE-agent's early format). */
export function commandsInText(text: string): string[] {
  const out: string[] = []
  for (const m of text.matchAll(/```(?:bash|sh|shell|console|zsh)?[ \t]*\n([\s\S]*?)```/g)) {
    const cmd = m[1]!.trim()
    if (cmd && cmd.length < 2000) out.push(cmd)
  }
  return out
}

/**
 * What a run of messages cut from a conversation (a segment) needs to know of the rest:
 * whether the agent writes its commands in code blocks, and the commands an observation at
 * the run's start answers (the agent wrote them at the end of the run before). Without it a
 * text-only agent's observation, alone in its segment, reads as the human's instruction.
 */
export interface RunContext {
  textOnlyAgent: boolean
  pendingTextCommands: readonly string[]
}

/** The context of each run of a conversation, by the position it starts at, from the whole conversation's events (read once). */
export function runContexts(events: readonly ConversationEvent[]): (start: number) => RunContext {
  const commandsAt = new Map<number, string[]>()
  let textOnlyAgent = true
  for (const e of events) {
    if (e.kind === 'tool-call') textOnlyAgent = false
    else if (e.kind === 'text-command') commandsAt.set(e.position, [...(commandsAt.get(e.position) ?? []), e.command])
  }
  return (start) => ({ textOnlyAgent, pendingTextCommands: commandsAt.get(start) ?? [] })
}

export function classifyMessages(messages: readonly CanonicalMessage[], context?: RunContext): ConversationEvent[] {
  const events: ConversationEvent[] = []
  const callNames = new Map<string, string>()
  const textOnlyAgent = context?.textOnlyAgent ?? !messages.some((m) => m.parts.some((p) => p.type === 'tool-call'))
  let pendingTextCommands: string[] = context ? [...context.pendingTextCommands] : []
  messages.forEach((m, position) => {
    if (isSystemLike(m)) return
    const text = ownText(m)
    if (m.role === 'assistant') {
      const summary = text ? detectEarlierSummary(text) : undefined
      if (summary) {
        events.push({ kind: 'earlier-summary', position, summary })
        return
      }
      const acted = m.parts.some((p) => p.type === 'tool-call')
      for (const p of m.parts) {
        if (p.type === 'reasoning' && !p.redacted && p.text.trim()) events.push({ kind: 'assistant', position, text: p.text, reasoning: true, acted })
      }
      // A reply the harness replaced with its placeholder says nothing the agent wrote.
      if (text.trim() && !isOnlyHarness(text)) events.push({ kind: 'assistant', position, text, reasoning: false, acted })
      for (const p of m.parts) {
        if (p.type !== 'tool-call') continue
        callNames.set(p.id, p.name)
        events.push({ kind: 'tool-call', position, call: p })
      }
      pendingTextCommands = textOnlyAgent ? commandsInText(text) : []
      return
    }
    // User side: tool results first (Anthropic puts them first; OpenAI sends them before the next user turn).
    for (const p of m.parts) {
      if (p.type === 'tool-result') events.push({ kind: 'tool-output', position, result: p, callName: callNames.get(p.callId) ?? p.name })
    }
    if (!text.trim()) return
    if (pendingTextCommands.length > 0) {
      // The observation answering the command(s) the agent just wrote.
      for (const command of pendingTextCommands) events.push({ kind: 'text-command', position, command, output: text })
      pendingTextCommands = []
      return
    }
    const c = classifyUserText(text)
    if (c.kind === 'earlier-summary' && c.summary) events.push({ kind: 'earlier-summary', position, summary: c.summary })
    else if (c.human.trim()) events.push({ kind: 'instruction', position, text: c.human })
    if (c.kind !== 'earlier-summary' && c.harness.length > 0) events.push({ kind: 'harness', position, text, labels: c.harness })
  })
  return events
}

export type LogEvent =
  | { kind: 'instruction'; text: string }
  /** The agent's report to the user at the end of a turn (a reply with no tool call): its own handover. */
  | { kind: 'report'; text: string }
  | { kind: 'conclusion'; text: string; priority: number }
  | { kind: 'calls'; message: CanonicalMessage }
  | { kind: 'text-command'; command: string; output: string }

const CONCLUSION_PRIORITY = { 'root-cause': IMPORTANCE.loggedRootCause, decision: IMPORTANCE.loggedDecision, abandoned: IMPORTANCE.loggedDecision, next: IMPORTANCE.conclusion, finding: IMPORTANCE.finding }

/** A reply this long (with no tool call) is a report worth keeping whole-ish, not a one-liner. */
const REPORT_MIN_CHARS = 160

/**
 * Whether the assistant event at `k` ends the agent's turn: no tool call follows it before
 * the user side speaks (a report, a deliverable). Read from events, not messages, so merged
 * and split layouts agree.
 */
export function endsTurn(events: readonly ConversationEvent[], k: number): boolean {
  for (let j = k + 1; j < events.length; j++) {
    const next = events[j]!
    if (next.kind === 'tool-call' || next.kind === 'text-command') return false
    if (next.kind !== 'assistant') return true
  }
  return true
}

/**
 * Whether an assistant event's message acts: it makes a tool call, or, from a text-only
 * agent, writes a command (its observation may sit in the next run).
 */
export function assistantActs(e: Extract<ConversationEvent, { kind: 'assistant' }>, textOnlyAgent: boolean): boolean {
  return e.acted || (textOnlyAgent && commandsInText(e.text).length > 0)
}

/** Whether a run of events is a text-only agent's: no tool call in it. */
export const isTextOnlyAgent = (events: readonly ConversationEvent[]): boolean => !events.some((e) => e.kind === 'tool-call')

/** What the action log shows of a run of messages: instructions, conclusions, and the calls of each message. */
export function classifyForLog(messages: readonly CanonicalMessage[], context?: RunContext): LogEvent[] {
  const out: LogEvent[] = []
  let lastCallsAt = -1
  const events = classifyMessages(messages, context)
  const textOnlyAgent = context?.textOnlyAgent ?? isTextOnlyAgent(events)
  for (const [k, e] of events.entries()) {
    if (e.kind === 'instruction') out.push({ kind: 'instruction', text: e.text })
    else if (e.kind === 'assistant' && !e.reasoning) {
      const acted = assistantActs(e, textOnlyAgent)
      if (!acted && e.text.trim().length >= REPORT_MIN_CHARS && endsTurn(events, k)) out.push({ kind: 'report', text: e.text })
      else for (const c of conclusionsOf(e.text, acted)) if (c.kind !== 'next') out.push({ kind: 'conclusion', text: c.text, priority: CONCLUSION_PRIORITY[c.kind] })
    } else if (e.kind === 'tool-call' && e.position !== lastCallsAt) {
      lastCallsAt = e.position
      out.push({ kind: 'calls', message: messages[e.position]! })
    } else if (e.kind === 'text-command') out.push({ kind: 'text-command', command: e.command, output: e.output })
  }
  return out
}
