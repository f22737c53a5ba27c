/**
 * "Working on" is the current step, not a finished one (src/engine/facts/current-step.ts):
 * the rule on event lists, then on generated sessions (a finished loop in Codex form, an
 * approved proposal in Claude Code form, harnessNoise's lone constraint), compacted.
 */
import t from 'tap'
import { explicitWindow } from '../../helpers/compact-all-formats.ts'
import { compact } from '../../../src/engine/compaction/compact.ts'
import { DEFAULT_COMPACT_OPTIONS } from '../../../src/engine/compaction/types.ts'
import { isGoAhead, isStandingConstraint, reportsCompletion } from '../../../src/engine/facts/current-step.ts'
import { extractHandover } from '../../../src/engine/facts/handover.ts'
import { FORMAT_NAMES, getAdapter, parseConversation } from '../../../src/engine/messages/index.ts'
import { countConversation, tokenizerCounter } from '../../../src/engine/tokens/count.ts'
import { harnessNoise, type OpenAIMessage } from '../../helpers/handover-conversations.ts'
import { approvedProposal, finishedLoop } from '../../helpers/noise-conversations.ts'

const facts = (messages: unknown[]) => extractHandover(parseConversation(messages, { format: 'openai' }).messages, { preserveErrorDetails: true })

t.test('what a step is', async (t) => {
  t.ok(isStandingConstraint('Important: never touch the migrations folder.'), 'a labelled constraint')
  t.ok(isStandingConstraint('Do not change the public API.'))
  t.notOk(isStandingConstraint('Fix the parser.'))
  for (const s of ['ok 開始', 'OK, go ahead', 'yes, do it', 'lgtm', '좋아 시작해']) t.ok(isGoAhead(s), `"${s}" approves`)
  for (const s of ['ok, but use Redis', 'start with the parser', 'yes']) t.equal(isGoAhead(s), s === 'yes', `"${s}"`)
  t.ok(reportsCompletion('## 완료 — 리뷰 루프 → 수정 → dev 머지\n…'))
  t.ok(reportsCompletion('All five PRs are merged: #101 to #105.'))
  t.ok(reportsCompletion('Done. The fix is in src/a.ts and all tests pass.'))
  t.notOk(reportsCompletion('The build is not fixed yet: two tests still fail.'))
  t.notOk(reportsCompletion('Should I also update the docs?'))
})

t.test('a range with no request ending on a finding: the finding is no step; a stated next step is', async (t) => {
  // The class: reviews and investigations whose task is in the head, cut mid-read.
  const read = (id: string, path: string, text: string, output: string) => [
    { role: 'assistant', content: text, tool_calls: [{ id, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path }) } }] },
    { role: 'tool', tool_call_id: id, content: output },
  ]
  const opening = read('r1', 'agno/embedder/google.py', 'Reading the Gemini embedder.', 'def _supports_multimodal(self) -> bool:\n    return self.id in MULTIMODAL_MODELS')
  const onFinding = facts([...opening, ...read('r2', 'agno/embedder/base.py', 'The Gemini embedder only embeds images when `_supports_multimodal` returns True.', 'class Embedder: ...')])
  t.equal(onFinding.currentWork, undefined, 'no "Working on" made of a finding')
  const onStep = facts([...opening, ...read('r2', 'agno/vectordb/pgvector.py', 'Next, I will check `pgvector.py` for the batch path.', 'def insert(self, documents): ...')])
  t.equal(onStep.currentWork, 'Next, I will check `pgvector.py` for the batch path.', 'a stated next step is the current one')
})

t.test('a request the agent reported done, ending its turn, is finished, not current', async (t) => {
  const f = facts([
    { role: 'user', content: 'Run the review loop on PR #53.' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{"command":"gh pr merge 53 --merge"}' } }] },
    { role: 'tool', tool_call_id: 'c1', content: '✓ Merged pull request #53' },
    { role: 'assistant', content: '## Done — review loop → fixes → merged into dev\n\nBoth P2 items fixed.' },
  ])
  t.equal(f.currentWork, undefined)
  t.same(f.finished, { request: 'Run the review loop on PR #53.', report: 'Done — review loop → fixes → merged into dev' })
})

t.test('mid-turn, the request is current; an in-progress plan item is current unless a completion report came after it', async (t) => {
  const calls = (n: string, args: unknown) => ({ role: 'assistant', content: null, tool_calls: [{ id: n, type: 'function', function: { name: n.startsWith('p') ? 'update_plan' : 'bash', arguments: JSON.stringify(args) } }] })
  const mid = facts([{ role: 'user', content: 'Fix the parser.' }, calls('b1', { command: 'pytest' }), { role: 'tool', tool_call_id: 'b1', content: 'ok' }])
  t.equal(mid.currentWork, 'Fix the parser.')
  const plan = facts([
    { role: 'user', content: 'Fix the parser.' },
    calls('p1', { plan: [{ step: 'Write the failing test', status: 'completed' }, { step: 'Patch tokenize()', status: 'in_progress' }] }),
    { role: 'tool', tool_call_id: 'p1', content: 'Plan updated' },
  ])
  t.equal(plan.currentWork, 'Patch tokenize()')
})

/** The recent window as a caller sets it: kept whenever it fits (the default one may give way to the summary). */
const EXPLICIT_WINDOW = explicitWindow(DEFAULT_COMPACT_OPTIONS)

function compactAt(messages: OpenAIMessage[], share: number, window: 'default' | 'explicit' = 'default') {
  const counter = tokenizerCounter('o200k_base')
  const openai = parseConversation(messages, { format: 'openai' }).messages
  const targetTokens = Math.floor(countConversation(openai, counter).totalTokens * share)
  return Promise.all(
    FORMAT_NAMES.map(async (format) => {
      const wire = getAdapter(format).serialize(openai)
      const parsed = format === 'openai' ? openai : parseConversation(wire.messages, { format, ...(wire.system !== undefined ? { system: wire.system } : {}) }).messages
      const res = await compact({ messages: parsed, counter, options: { ...(window === 'default' ? DEFAULT_COMPACT_OPTIONS : EXPLICIT_WINDOW), format, targetTokens, thresholdTokens: 0 } })
      return res.summary?.text ?? ''
    }),
  )
}

const stateOf = (summary: string) => /### Current State\n([\s\S]*?)(?:\n### |$)/.exec(summary)?.[1] ?? ''

t.test('finishedLoop: the merged loop is reported done, never "working on", in every format', async (t) => {
  // The range ends after the loop: the window the test sets is kept (the default one gives
  // way at 10% and brings the next request into the range: asserted below).
  for (const share of [0.1, 0.25]) {
    const texts = await compactAt(finishedLoop(), share, 'explicit')
    t.equal(new Set(texts).size, 1, `${share * 100}%: one summary text in every format`)
    // At 10% the state line may have to wait in the action log: the whole summary is read.
    t.notMatch(texts[0]!, /Working on/, `${share * 100}%: nothing is in progress`)
    t.match(texts[0]!, /Done, nothing in progress: Merge the five dependency-bump PRs/, `${share * 100}%: the loop is done`)
    t.notMatch(texts[0]!, /- \[ \] Merge PR/, `${share * 100}%: no merged PR is pending`)
  }
  const [later] = await compactAt(finishedLoop(), 0.1)
  t.match(later, /In progress \(asked later in the session\): "Thanks\. Next, bump the Node version in \.nvmrc to 20\."/, 'a range that takes in the next request: that request is in progress')
  t.notMatch(later, /Working on: Merge|Done, nothing in progress/, 'and the loop is not what is in progress')
})

t.test('approvedProposal: the current step is the approved design, not "ok 開始"', async (t) => {
  for (const share of [0.1, 0.25]) {
    const texts = await compactAt(approvedProposal(), share)
    t.equal(new Set(texts).size, 1, `${share * 100}%: one summary text in every format`)
    t.match(stateOf(texts[0]!), /Working on: Proposal: BM25 with a recency boost/, `${share * 100}%: the approved proposal`)
    t.notMatch(stateOf(texts[0]!), /Working on: ok 開始/)
  }
})

t.test('harnessNoise: a constraint is not the work in progress', async (t) => {
  const texts = await compactAt(harnessNoise(), 0.25)
  t.notMatch(stateOf(texts[0]!), /Working on: Important: never touch/)
})
