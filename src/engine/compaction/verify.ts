/**
 * Step "verify input": tool-call pairing of what the caller sent. A broken input is
 * repaired (and each repair reported) or, on request, refused with the caller's indexes;
 * two calls sharing an id in one message are always refused (nothing can repair them).
 * The output is verified in assemble.ts with the same validator.
 */
import type { FormatAdapter } from '../messages/adapter.ts'
import type { CanonicalMessage } from '../messages/canonical.ts'
import { duplicateCallIdIn, findPairingProblems, MISSING_RESULT_TEXT, repairPairing } from '../conversation/pairing.ts'
import type { CompactOptions, RepairRecord } from './types.ts'

export class CompactionError extends Error {
  override readonly name = 'CompactionError'
  constructor(
    readonly code: 'budget_unreachable' | 'broken_tool_pairing',
    message: string,
    readonly details: Record<string, unknown>,
  ) {
    super(message)
  }
}

export function checkInput(messages: CanonicalMessage[], adapter: FormatAdapter, onBrokenInput: CompactOptions['onBrokenInput']): { messages: CanonicalMessage[]; repairs: RepairRecord[] } {
  // Two calls with one id in one message: no result can be told to answer one of them, so
  // no repair can make the list valid. parseConversation refuses these with the field's
  // path; this covers canonical input from elsewhere (the engine as a library, messages
  // stored before that check), as a 400, never the output check's internal error.
  const twin = duplicateCallIdIn(messages)
  if (twin) {
    const index = messages[twin.index]!.index
    throw new CompactionError(
      'broken_tool_pairing',
      `messages[${index}]: two tool calls with the id ${JSON.stringify(twin.callId)} in one message (their results cannot be told apart); give each call its own id`,
      { problems: [{ index, callId: twin.callId, problem: 'duplicate-call-id' }] },
    )
  }
  const problems = findPairingProblems(messages)
  if (problems.length === 0) return { messages, repairs: [] }
  if (onBrokenInput === 'reject') {
    // Problems come as positions; the caller knows its own indexes.
    const located = problems.map((p) => ({ ...p, index: messages[p.index]!.index }))
    const first = located[0]!
    throw new CompactionError('broken_tool_pairing', `messages[${first.index}]: ${first.problem} (tool call id ${first.callId}); send onBrokenInput "repair" to fix it automatically`, { problems: located })
  }
  return repairPairing(messages, {
    dropResult: (message, callId) => adapter.withoutToolResult(message, callId),
    makeResults: (after, calls) => adapter.createToolResults(after, calls, MISSING_RESULT_TEXT),
  })
}
