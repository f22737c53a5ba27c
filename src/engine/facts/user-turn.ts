/**
 * The one rule for "a user turn", shared by /compact and the sessions code. A turn opens
 * where the human speaks: a user-side message whose own words remain once harness text
 * is split off (events.ts: an `instruction` event). Not a turn: tool results, harness
 * injections (reminders, notifications, interrupts, environment context), a bare
 * "continue" or greeting, and the observations a text-only agent (SWE-agent) receives as
 * user messages. An earlier compaction summary also opens a turn: it stands for the
 * human's turns it replaced (its requests rank as instructions).
 *
 * /compact reads the same events (the handover's instructions, the layout's head); the
 * rolling session summary cuts its exchanges here (sessions/exchanges.ts).
 */
import type { CanonicalMessage } from '../messages/canonical.ts'
import { classifyMessages, type ConversationEvent } from './events.ts'

export function opensUserTurn(e: ConversationEvent): boolean {
  return e.kind === 'instruction' || e.kind === 'earlier-summary'
}

/** Positions (indices into `messages`) of the messages that open a user turn. */
export function userTurnStarts(messages: readonly CanonicalMessage[], events: readonly ConversationEvent[] = classifyMessages(messages)): Set<number> {
  const out = new Set<number>()
  for (const e of events) if (opensUserTurn(e)) out.add(e.position)
  return out
}
