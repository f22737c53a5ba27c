/**
 * Harness text out of what a compaction keeps (issue 22, "no harness lines"). The middle
 * turns kept beside the summary and the verbatim tail are the compaction's output: a
 * `<system-reminder>`, a `<task-notification>`, Codex's `<environment_context>`, an
 * interrupt marker, a bare "continue" or a greeting there is text the harness injected
 * for the model of that moment, not something the human said, and a budget spent on it
 * is a budget taken from the work. facts/classify.ts decides what is harness
 * (/work/shared/notes/agent-markers.md lists what the agents emit).
 *
 * Serves harness-heavy sessions (Claude Code with background tasks and reminders, Codex
 * with its context blocks and aborted turns):
 *   - a user message made only of harness text goes, and so does the agent's short reply
 *     to it when that reply does nothing (no tool call: "OK.", "Continuing.");
 *   - harness blocks appended to a human request go, the request stays;
 *   - a harness block appended to a tool result (Claude Code adds reminders there) goes.
 * The head (the system prompt and the task, the caller's own framing) is never touched,
 * and neither is the conversation's last message: it is what the model answers next.
 */
import type { FormatAdapter } from '../../messages/adapter.ts'
import type { CanonicalMessage } from '../../messages/canonical.ts'
import { classifyUserText, withoutTrailingHarness } from '../../facts/classify.ts'
import { textOf } from '../../facts/text.ts'

/** A reply this short, with no tool call, only acknowledges the harness text before it. */
const ACK_MAX_CHARS = 160

/** Only text parts (no tool result, image or opaque block that would be lost with it). */
function textOnly(m: CanonicalMessage): boolean {
  return m.parts.length > 0 && m.parts.every((p) => p.type === 'text')
}

/** An acknowledgement: short prose with no tool call, no code and no path (nothing a later turn could need). */
function isAcknowledgement(m: CanonicalMessage): boolean {
  if (m.role !== 'assistant' || !m.parts.every((p) => p.type === 'text' || p.type === 'reasoning')) return false
  const text = textOf(m).trim()
  return text.length <= ACK_MAX_CHARS && !/[`/\\]|\.\w{1,5}\b|\d{2,}/.test(text)
}

/**
 * Positions of the messages a compaction leaves out as harness noise: user messages at or
 * after `from` that are harness text only, and the acknowledgement each one got. The
 * last message is never one of them.
 */
export function harnessNoisePositions(messages: readonly CanonicalMessage[], from: number): Set<number> {
  const out = new Set<number>()
  const last = messages.length - 1
  for (let i = Math.max(0, from); i < last; i++) {
    const m = messages[i]!
    if (m.role !== 'user' && m.role !== 'tool') continue
    const text = textOf(m)
    if (!text.trim() || classifyUserText(text).kind !== 'harness') continue
    // Its text goes whether or not it rides with tool results (Anthropic merges them into one
    // message, OpenAI sends two): the message itself only when text is all it has.
    if (textOnly(m)) out.add(i)
    const next = messages[i + 1]
    if (next && i + 1 < last && isAcknowledgement(next)) out.add(++i)
  }
  return out
}

/** A kept message without the harness text inside it (itself when it has none). */
export function withoutHarnessText(m: CanonicalMessage, adapter: FormatAdapter): CanonicalMessage {
  if (m.role !== 'user' && m.role !== 'tool') return m
  let out = m
  for (const p of m.parts) {
    if (p.type !== 'tool-result') continue
    const stripped = withoutTrailingHarness(p.text)
    if (stripped !== p.text && stripped.trim()) out = adapter.withToolResultText(out, p.callId, stripped)
  }
  const text = textOf(out)
  if (!text.trim()) return out
  const c = classifyUserText(text)
  if (c.kind === 'earlier-summary' || c.harness.length === 0) return out
  // A message with other parts (tool results, images) keeps them; only its harness text goes.
  if (c.kind === 'harness' && textOnly(out)) return out
  return adapter.withText(out, c.kind === 'harness' ? '' : c.human)
}

/**
 * `kept` (the form of `messages[from, from + kept.length)` the compaction keeps, one
 * message for each) without the harness noise `noise` names and the harness text inside
 * the rest.
 */
export function withoutHarness(kept: readonly CanonicalMessage[], from: number, noise: ReadonlySet<number>, adapter: FormatAdapter): CanonicalMessage[] {
  const out: CanonicalMessage[] = []
  kept.forEach((m, k) => {
    if (!noise.has(from + k)) out.push(withoutHarnessText(m, adapter))
  })
  return out
}
