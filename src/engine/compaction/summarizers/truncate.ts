/**
 * `truncate`: the last resort (seed 001). The compacted part, as text, cut to its head
 * and tail (2,000 characters each by default; a cut never splits a URL), shrunk further
 * until it fits the summary budget. It cannot fail, so the fallback chain always ends here.
 */
import { messageText } from '../../messages/canonical.ts'
import { codePointCut, urlSafeCut } from '../../facts/text.ts'
import { summaryHeader } from '../summary-format.ts'
import type { Summarizer, SummaryRequest, SummaryResult } from '../types.ts'

export const TRUNCATE_HEAD_CHARS = 2_000
export const TRUNCATE_TAIL_CHARS = 2_000
export const TRUNCATION_MARKER = '\n[... truncated ...]\n'

export function truncateSummarize(req: SummaryRequest): SummaryResult {
  const body = req.messages.map((m) => `[${m.role}] ${messageText(m)}`).join('\n')
  const header = `${summaryHeader(req.round)}\n\n### Truncated Context\n`
  const count = (s: string) => Math.ceil(req.counter.text(s) * req.counter.margin)
  const build = (head: number, tail: number) =>
    header +
    (body.length <= head + tail
      ? body
      : body.slice(0, urlSafeCut(body, codePointCut(body, head))) + TRUNCATION_MARKER + body.slice(urlSafeCut(body, codePointCut(body, body.length - tail, true), true)))
  let head = TRUNCATE_HEAD_CHARS
  let tail = TRUNCATE_TAIL_CHARS
  let text = build(head, tail)
  while (count(text) > req.budgetTokens && head + tail > 0) {
    head = Math.floor(head * 0.8)
    tail = Math.floor(tail * 0.8)
    text = build(head, tail)
  }
  if (count(text) > req.budgetTokens) text = summaryHeader(req.round)
  return {
    text,
    keyFacts: { currentTask: req.originalTask.slice(0, 600), completedSteps: [], pendingSteps: [], keyDecisions: [], relevantFiles: [], errors: [], userRequests: [] },
    usage: { inputTokens: 0, outputTokens: 0, calls: 0 },
  }
}

export const truncateSummarizer: Summarizer = { name: 'truncate', summarize: async (req) => truncateSummarize(req) }
