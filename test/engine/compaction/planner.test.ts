/**
 * Use the room you are given (src/engine/compaction/planner.ts withRoom, issue 22): when the
 * head, the tail and the kept turns leave part of the target unused, the summary's budget
 * grows into it, up to maxSummaryTokens, and the event reports the room against the
 * summary's size. Measured with a summarizer that records its budget, on a generated
 * exploring session (readsSession) whose budget the rules cannot fill.
 */
import t from 'tap'
import { compact } from '../../../src/engine/compaction/compact.ts'
import { rulesSummarizer } from '../../../src/engine/compaction/summarizers/rules.ts'
import { DEFAULT_COMPACT_OPTIONS, type Summarizer } from '../../../src/engine/compaction/types.ts'
import { parseConversation } from '../../../src/engine/messages/index.ts'
import { countConversation, tokenizerCounter } from '../../../src/engine/tokens/count.ts'
import { cleanupSession, readsSession } from '../../helpers/noise-conversations.ts'
import { compactAllFormats, explicitWindow } from '../../helpers/compact-all-formats.ts'
import { earlierSummaryGemini } from '../../helpers/handover-conversations.ts'

const counter = tokenizerCounter('o200k_base')
const messages = parseConversation(readsSession(), { format: 'openai' }).messages
const size = countConversation(messages, counter).totalTokens

/** The rules summarizer under the llm's name, recording the budget each call was given. */
function recording(budgets: number[]): Summarizer {
  return { name: 'llm', summarize: async (req) => (budgets.push(req.budgetTokens), rulesSummarizer.summarize(req)) }
}

async function run(targetTokens: number, maxSummaryTokens = DEFAULT_COMPACT_OPTIONS.maxSummaryTokens) {
  const budgets: number[] = []
  const res = await compact({ messages, counter, llm: recording(budgets), options: { ...DEFAULT_COMPACT_OPTIONS, format: 'openai', strategy: ['mask', 'llm', 'rules'], targetTokens, thresholdTokens: 0, maxSummaryTokens } })
  return { res, budget: budgets[0]! }
}

t.test('room left unused: the summary budget grows into it, up to maxSummaryTokens', async (t) => {
  const target = Math.floor(size * 0.6)
  const { res, budget } = await run(target)
  t.equal(res.strategy, 'llm')
  t.ok(budget > Math.floor(target * 0.15), `the budget (${budget}) is more than the 15% share (${Math.floor(target * 0.15)})`)
  t.ok(budget <= DEFAULT_COMPACT_OPTIONS.maxSummaryTokens, 'never over maxSummaryTokens')
  const { budget: capped } = await run(target, 300)
  t.ok(capped <= 300, `a smaller maxSummaryTokens caps it (${capped})`)
  t.ok(res.event.tokensAfter <= target, 'the output still fits')
})

t.test('no room left (the action log had to drop lines): the budget is the usual share', async (t) => {
  const tight = parseConversation(cleanupSession(), { format: 'openai' }).messages
  const target = Math.floor(countConversation(tight, counter).totalTokens * 0.1)
  const budgets: number[] = []
  // The recent window as a caller sets it: the default one would give way and leave the log room.
  const res = await compact({ messages: tight, counter, llm: recording(budgets), options: { ...explicitWindow(DEFAULT_COMPACT_OPTIONS), format: 'openai', strategy: ['mask', 'llm', 'rules'], targetTokens: target, thresholdTokens: 0 } })
  t.match(res.summary?.text, /less important entries omitted/, 'the log was full')
  t.ok(budgets[0]! <= Math.floor(target * 0.15), `${budgets[0]} ≤ 15% of ${target}`)
})

t.test('the event reports the summary against its room', async (t) => {
  for (const share of [0.1, 0.25, 0.6]) {
    const target = Math.floor(size * share)
    const { res } = await run(target)
    const e = res.event
    t.equal(e.summaryRoomTokens, target - (e.tokensAfter - e.summaryTokens), `${share * 100}%: the target less the rest of the output`)
    t.ok(e.summaryTokens <= e.summaryRoomTokens, `${share * 100}%: the summary (${e.summaryTokens}) within its room (${e.summaryRoomTokens})`)
  }
  const untouched = await compact({ messages, counter, options: { ...DEFAULT_COMPACT_OPTIONS, format: 'openai', targetTokens: size + 100, thresholdTokens: 0 } })
  t.equal(untouched.event.summaryRoomTokens, 0, 'no summary, no room')
})

t.test('focus: log lines mentioning its words rank above their peers when not all fit; the llm prompt gets it whatever the mode', async (t) => {
  const { buildSummaryPrompt } = await import('../../../src/engine/compaction/prompts.ts')
  const { focusTermsOf } = await import('../../../src/engine/compaction/planner.ts')
  t.same(focusTermsOf('the Billing module, src/billing.ts'), ['billing', 'module', 'src/billing.ts'])
  // Forty reads of distinct files, a budget that holds the log of only some of them.
  const reads: Record<string, unknown>[] = [{ role: 'system', content: 'You are a coding agent.' }, { role: 'user', content: 'Survey the repository.' }]
  for (let i = 0; i < 40; i++) {
    reads.push(
      { role: 'assistant', content: null, tool_calls: [{ id: `r${i}`, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: `src/area${i}/index.ts` }) } }] },
      { role: 'tool', tool_call_id: `r${i}`, content: `export const area${i} = ${i}\n`.repeat(30) },
    )
  }
  reads.push({ role: 'user', content: 'Now summarise.' })
  const parsed = parseConversation(reads, { format: 'openai' }).messages
  const before = countConversation(parsed, counter).totalTokens
  const options = { ...DEFAULT_COMPACT_OPTIONS, format: 'openai' as const, targetTokens: Math.floor(before * 0.06), thresholdTokens: Math.floor(before * 0.06) }
  const plain = await compact({ messages: parsed, counter, options })
  const focused = await compact({ messages: parsed, counter, options: { ...options, focus: 'area3' } })
  const text = (r: typeof plain) => r.messages.map((m) => JSON.stringify(m.raw ?? m.parts)).join('\n')
  t.notMatch(text(plain), /src\/area3\/index\.ts/, 'without focus, an old read does not fit the log')
  t.match(text(focused), /src\/area3\/index\.ts/, 'with focus on it, its line does')
  const prompt = (mode: 'append' | 'replace') => buildSummaryPrompt({ formattedMessages: 'x', originalTask: 't', round: 1, maxTokens: 500, instructions: 'Only bullets.', instructionsMode: mode, focus: 'the billing module' })
  for (const mode of ['append', 'replace'] as const) t.match(JSON.stringify(prompt(mode)), /## Focus\\nGive the most room to what concerns: the billing module/, `${mode}: the focus section`)
})

/**
 * A harness whose head takes most of the budget (SWE-agent and its kin: a system prompt
 * that documents every command, then the task): once the verbatim tail has to shrink, it
 * may take at most SHRUNK_TAIL_SHARE of what the head leaves, not of the whole target, so
 * the summary is not squeezed to a few lines beside three pages of recent output.
 */
t.test('a long head: a shrunk tail takes at most its share of what the head leaves', async (t) => {
  const docs = Array.from({ length: 60 }, (_, k) => `cmd_${k}:\n  docstring: runs helper number ${k} over the given path and prints what it found\n  signature: cmd_${k} <path> [<line>]`).join('\n')
  const wire: Record<string, unknown>[] = [
    { role: 'system', content: `You are an autonomous agent in a shell.\nCOMMANDS:\n${docs}` },
    { role: 'user', content: 'Solve the challenge on web.example.test port 8000 and submit the flag. You may run one command at a time.' },
  ]
  for (let k = 0; k < 14; k++) {
    wire.push({ role: 'assistant', content: `Step ${k}: I will fetch page_${k}.html to see what the server lists.\n\`\`\`\ncurl http://web.example.test:8000/page_${k}.html\n\`\`\`` })
    wire.push({ role: 'user', content: `<html><head><title>Page ${k}</title></head><body>\n${Array.from({ length: 8 }, (_, j) => `<li><a href="item_${k}_${j}.pl">item ${k}.${j}</a></li>`).join('\n')}\n</body></html>` })
  }
  const convo = parseConversation(wire, { format: 'openai' }).messages
  const head = countConversation(convo.slice(0, 2), counter).totalTokens
  const target = head + 1200
  const res = await compact({ messages: convo, counter, options: { ...DEFAULT_COMPACT_OPTIONS, format: 'openai', targetTokens: target, thresholdTokens: 0 } })
  t.ok(res.event.tokensAfter <= target, 'the output fits')
  const at = res.messages.findIndex((m) => m.parts.some((p) => p.type === 'text' && p.text.includes('Session Summary')))
  t.ok(at > 0, 'a summary was written')
  const tail = res.messages.slice(at + 1)
  const tailTokens = countConversation(tail, counter).totalTokens
  t.ok(tail.length >= 1, `the last message stays verbatim (${tail.length})`)
  t.ok(tailTokens <= (target - head) * 0.4 + 20, `the tail (${tailTokens}) takes at most 40% of what the head leaves (${target - head})`)
  t.ok(res.event.summaryTokens > tailTokens, `the summary (${res.event.summaryTokens}) has more room than the verbatim tail (${tailTokens})`)
})

t.test("another agent's earlier summary: the actions it listed are lines of the action log, in every format", async (t) => {
  // The class: sessions continued after an agent's own compaction (Gemini CLI's state
  // snapshot lists `recent_actions`, which no section renders).
  const runs = await compactAllFormats(earlierSummaryGemini(), 0.25)
  const texts = new Set(runs.map((r) => r.summary))
  t.equal(texts.size, 1, 'one summary in every format')
  const log = [...texts][0]!.split('### Earlier Actions (oldest first, condensed)')[1] ?? ''
  t.match(log, '- Removed the @docusaurus/plugin-ideal-image plugin because it pinned sharp 0.30, which does not build on Node 20. (earlier)')
  t.match(log, '- Escaped the braces in docs/api/filters.mdx. (earlier)')
})
