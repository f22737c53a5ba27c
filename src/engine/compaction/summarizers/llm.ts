/**
 * The `llm` summarizer: seed 004's structured summary written by a model, with seed
 * 002's recursive overflow protection.
 *
 * No request ever exceeds the summarizer's window: every prompt is counted with the
 * client's (conservative) counter before it is sent, as
 *   countTokens(system + prompt) + FRAMING_TOKENS + maxOutputTokens <= contextLimit.
 * When the conversation does not fit one request it is map-reduced (llm-map-reduce.ts);
 * the calls, their window checks and their pool are in llm-calls.ts.
 */
import { MESSAGE_SEPARATOR, renderMessagesForSummary } from '../prompts.ts'
import { completeFromFacts, factsForPrompt } from './facts-check.ts'
import { keyFactsFromSummary, parseSummarySections, SECTION_TITLES, SUMMARY_HEADER_RE, summaryHeader } from '../summary-format.ts'
import { SummarizerError, type Summarizer, type SummarizerClient, type SummaryRequest, type SummaryResult } from '../types.ts'
import { call, fitText, fits, FRAMING_TOKENS, prompt, type Ctx } from './llm-calls.ts'
import { mapReduce } from './llm-map-reduce.ts'

export { FRAMING_TOKENS }

/** Per-message character limit is a fraction of the window, within these bounds. */
const MIN_MESSAGE_CHARS = 2_000
const MAX_MESSAGE_CHARS = 16_000

export function llmSummarizer(client: SummarizerClient): Summarizer {
  return {
    name: 'llm',
    summarize: (req) => summarize(client, req),
  }
}

async function summarize(client: SummarizerClient, req: SummaryRequest): Promise<SummaryResult> {
  const budget = req.budgetTokens
  const window = client.contextLimit - FRAMING_TOKENS
  if (budget < 1 || budget >= window) {
    throw new SummarizerError('context_overflow', `a ${budget}-token summary does not fit the summarizer's ${client.contextLimit}-token window`)
  }
  // A huge first message must not crowd out everything else: cap it at 1/8 of the room.
  const originalTask = fitText(client, req.originalTask, Math.floor((window - budget) / 8))
  const ctx: Ctx = {
    req,
    client,
    signal: req.signal,
    originalTask,
    usage: { inputTokens: 0, outputTokens: 0, calls: 0 },
    partialCap: budget,
    extractedFacts: fitText(client, factsForPrompt(req.facts, req.originalTask, budget, (s) => client.countTokens(s)), Math.floor((window - budget) / 4)),
  }

  const charLimit = Math.min(MAX_MESSAGE_CHARS, Math.max(MIN_MESSAGE_CHARS, Math.floor(client.contextLimit * 0.4)))
  const rendered = renderMessagesForSummary(req.messages, charLimit)
  const previous = req.previousSummary?.text.trim() || undefined

  // Fast path: everything in one request.
  const single = prompt(ctx, { kind: 'single' }, rendered.join(MESSAGE_SEPARATOR), previous, budget)
  let text: string
  let truncated: boolean
  if (fits(client, single, budget)) {
    ;({ text, truncated } = await call(ctx, single, budget))
  } else {
    ;({ text, truncated } = await mapReduce(ctx, rendered, previous, budget))
  }
  return finish(ctx, text, truncated)
}

function finish(ctx: Ctx, raw: string, truncated: boolean): SummaryResult {
  const { req, client } = ctx
  const answer = normaliseSummary(raw, req.round)
  if (answer === undefined) throw new SummarizerError('empty', 'the summarizer returned an empty summary')
  if (truncated) throw new SummarizerError('over_budget', `the summary was cut at its ${req.budgetTokens}-token cap`)
  const count = (s: string) => Math.ceil(req.counter.text(s) * req.counter.margin)
  if (count(answer) > req.budgetTokens) {
    throw new SummarizerError('over_budget', `the summary has ${count(answer)} tokens, over its ${req.budgetTokens}-token budget`)
  }
  // Whatever the model dropped of the extracted facts is appended; its own prose gives way if needed.
  const text = completeFromFacts(answer, req.facts, req.originalTask, req.budgetTokens, count).text
  const tokens = count(text)
  if (tokens > req.budgetTokens) {
    throw new SummarizerError('over_budget', `the summary has ${tokens} tokens, over its ${req.budgetTokens}-token budget`)
  }
  const { sections } = parseSummarySections(text)
  const others = [...sections.keys()].filter((t) => t !== 'original task')
  const expected = req.instructionsMode === 'replace' && req.instructions?.trim() ? others : others.filter((t) => (SECTION_TITLES as readonly string[]).includes(t))
  if (!sections.has('original task') || expected.length === 0) {
    throw new SummarizerError('malformed', 'the summary lacks the expected sections (Original Task and at least one other)')
  }

  const keyFacts = keyFactsFromSummary(text, req.originalTask)
  keyFacts.userRequests = [...new Set([...req.facts.instructions.map((i) => i.text), ...keyFacts.userRequests])]
  return { text, keyFacts, usage: { ...ctx.usage }, model: client.model, costUsd: client.costUsd(ctx.usage.inputTokens, ctx.usage.outputTokens) }
}

/**
 * Trimmed text starting with the header of `round`: a model's preamble or code fence
 * is dropped, a missing header added, a wrong round number corrected.
 */
export function normaliseSummary(raw: string, round: number): string | undefined {
  let text = raw.trim()
  const fenced = /^```[\w-]*\n([\s\S]*?)\n```$/.exec(text)
  if (fenced) text = fenced[1].trim()
  if (text === '') return undefined
  const header = summaryHeader(round)
  const at = text.search(/^[ \t]*#{1,6}[ \t]*\**Session Summary[ \t]*\(/im)
  if (at > 0 && at < 400) text = text.slice(at) // short preamble ("Here is the summary:")
  if (SUMMARY_HEADER_RE.test(text)) return text.replace(SUMMARY_HEADER_RE, `${header}\n`).trim()
  return `${header}\n\n${text}`
}
