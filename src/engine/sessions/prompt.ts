/**
 * llm mode: seed 000's background-agent prompt for this document format, and the
 * exchanges as the agent reads them. The caller runs the model and parses its answer
 * with parseSummary.
 */
import { formatMessagesForSummary } from '../compaction/prompts.ts'
import { heuristicCounter, messageTokens, type TokenCounter } from '../tokens/count.ts'
import { CONTINUATION_TITLE, formatTokens, minute, roundTokens, SECTION_TITLES } from './document.ts'
import { exchangeTime, type Exchange } from './exchanges.ts'
import { DEFAULT_SUMMARY_BUDGET_TOKENS } from './fit.ts'

/** Exchanges as the background agent reads them: time, size, then the messages. */
export function formatExchangesForPrompt(exchanges: readonly Exchange[], counter: TokenCounter = heuristicCounter(false), perMessageCharLimit = 2_000): string {
  return exchanges
    .map((e, i) => {
      const tokens = roundTokens(e.messages.reduce((n, m) => n + messageTokens(m, counter), 0))
      const at = exchangeTime(e)
      return `### Exchange ${i + 1} (${at ? `${minute(at)}, ` : ''}~${formatTokens(tokens)} tokens)\n${formatMessagesForSummary(e.messages, perMessageCharLimit)}`
    })
    .join('\n\n')
}

/** Seed 000's background-agent prompt, for this document format (the caller runs the model and parses its answer with parseSummary). */
export function BACKGROUND_AGENT_PROMPT(currentSummary: string, newExchangesText: string, budgetTokens = DEFAULT_SUMMARY_BUDGET_TOKENS): string {
  return `Update the session summary.

Current summary:
${currentSummary.trim() || '(empty)'}

Newly evicted exchanges to add:
${newExchangesText.trim() || '(none)'}

Tasks:
1. Add a one-line summary of each new exchange to '${SECTION_TITLES.session}' (what was asked, files changed and how, failing commands with their error, root cause or decision)
2. Merge related items where appropriate (combined token count, date range)
3. Age sections by each item's time, measured back from the newest exchange (the session's latest activity, not today's date): older than 24h → '${SECTION_TITLES.yesterday}', older than 7 days → '${SECTION_TITLES.week}', older than 14 days → drop, except items whose comment says p=task or p=constraint (the original task, the user's standing constraints): never drop those
4. Compress if over the ${budgetTokens}-token budget: detailed for this session, compressed for yesterday, very compressed for this week
5. Keep most recent and most important items (decisions, API and architecture choices first; bug fixes, refactors, tests next; debugging, dead ends and trivial changes are dropped first)
6. Keep each existing item's trailing <!-- ... --> comment unchanged; write none for new items
7. Update the '${CONTINUATION_TITLE}' section: current task, completed and pending steps, key decisions, relevant files

Format (answer with the document only):
## ${SECTION_TITLES.session}
1. Item (YYYY-MM-DD HH:MMZ, ~tokens)

## ${SECTION_TITLES.yesterday}
1. Item (~tokens)

## ${SECTION_TITLES.week}
1. Item (day, ~tokens)

## ${CONTINUATION_TITLE}
Current task: ...
Completed:
- ...
Pending:
- ...
Key decisions:
- ...
Relevant files: path, path
`
}
