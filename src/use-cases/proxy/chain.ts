/**
 * A chained round (the proxy, issue 23): when a session whose request extends its stored
 * prefix crosses the threshold again, compact only what follows the prefix's head (the
 * system prompt, the task and the summaries so far) and keep that head byte for byte. The
 * provider's prompt cache then still serves the head on the compacting request, which
 * otherwise shares only the system prompt and the first message with the turn before.
 *
 * The agent reads the earlier summary, then the new one (its header says the round), then
 * the recent messages. A chain is bounded: at PROXY_SUMMARY_CHAIN summaries, or when the
 * head would take more than MAX_HEAD_SHARE of the target, the caller compacts the whole
 * history into one summary again (undefined here).
 */
import type { StoredPrefix } from '../../checkpoints/prefixes.ts'
import { frozenHead } from '../../engine/compaction/reusable-prefix.ts'
import { SUMMARY_HEADER_RE } from '../../engine/facts/summary-header.ts'
import { messageText } from '../../engine/messages/canonical.ts'
import { parseConversation, type MessageFormat } from '../../engine/messages/index.ts'
import type { CompactRequest, CompactResponse } from '../compact/compute.ts'
import type { Caller } from '../deps.ts'
import type { EstimateInput, EstimateResult } from '../estimate/count.ts'

/**
 * The share of the target the kept head may take. A first round's summary fills much of
 * its budget with the action log (55-60% of the target on the bench's loop and the tests'),
 * and a second summary brings the head to ~80%: at two thirds only the second round of
 * three chained on the bench's loop (89.8% of its input a cached prefix), at 0.8 both
 * (90.9%). The rest (a new summary and the recent turns) gets at least a fifth.
 */
export const MAX_HEAD_SHARE = 0.8

export interface ChainDeps {
  estimate: (caller: Caller, input: EstimateInput) => Promise<EstimateResult>
  compact: (caller: Caller, input: CompactRequest, how?: { automatic?: boolean }) => Promise<CompactResponse>
  maxSummaries: number
}

export interface ChainRequest {
  format: MessageFormat
  model: string
  /** The caller's top-level system prompt, if its format has one (unchanged by a chained round). */
  system?: unknown
  /** The stored prefix replayed with the request's new messages after it. */
  replayed: unknown[]
  stored: StoredPrefix
  /** The compacted request's budget (PROXY_COMPACT_TO of the threshold, less the tools). */
  targetTokens: number
  sessionId: string
  focus?: string
}

/** Whether a message compactd created is one of its summaries (its header), in any format. */
export function isSummaryMessage(message: unknown, format: MessageFormat): boolean {
  try {
    const [m] = parseConversation([message], { format, allowDuplicateCallIds: true }).messages
    return m !== undefined && SUMMARY_HEADER_RE.test(messageText(m))
  } catch {
    return false
  }
}

/**
 * The chained round's output (head, then the compacted rest) with its compaction, or
 * undefined when the prefix has no head to keep, the chain is full, the head is too large,
 * or the rest cannot be compacted into what the head leaves (the whole history then is).
 */
export async function compactAfterHead(deps: ChainDeps, caller: Caller, req: ChainRequest): Promise<{ messages: unknown[]; compacted: CompactResponse; headTokens: number } | undefined> {
  // A summary folded into Anthropic's `system` changes the very start: nothing to keep.
  if (req.stored.system !== undefined || deps.maxSummaries <= 1) return undefined
  const head = frozenHead(req.stored.parts, (m) => isSummaryMessage(m, req.format))
  if (head.summaries === 0 || head.summaries >= deps.maxSummaries) return undefined
  const headMessages = req.replayed.slice(0, head.length)
  const rest = req.replayed.slice(head.length)
  if (rest.length === 0) return undefined
  const headTokens = (await deps.estimate(caller, { messages: headMessages, format: req.format, model: req.model, ...(req.system !== undefined ? { system: req.system } : {}), perMessage: false } as EstimateInput)).totalTokens
  const budget = req.targetTokens - headTokens
  if (budget < req.targetTokens * (1 - MAX_HEAD_SHARE)) return undefined
  let compacted: CompactResponse
  try {
    compacted = await deps.compact(
      caller,
      // The rest alone: its summary covers only what the head's summaries do not. A user
      // message, so that it never folds into a system prompt the head's bytes depend on.
      { messages: rest, format: req.format, model: req.model, targetTokens: budget, sessionId: req.sessionId, summaryRole: 'user', ...(req.focus ? { focus: req.focus } : {}) } as CompactRequest,
      { automatic: true },
    )
  } catch (err) {
    if ((err as { code?: unknown }).code === 'budget_unreachable') return undefined
    throw err
  }
  if (!compacted.compacted || compacted.system !== undefined) return undefined
  return { messages: [...headMessages, ...compacted.messages], compacted, headTokens }
}
