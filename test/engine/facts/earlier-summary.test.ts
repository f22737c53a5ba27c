/** Earlier compaction summaries: each agent's marker, its sections mapped onto one shape, nothing lost. */
import fs from 'node:fs'
import t, { type Test } from 'tap'
import { detectEarlierSummary, planStep, type EarlierSections, type EarlierSummary } from '../../../src/engine/facts/earlier-summary.ts'
import { conversationsSkip, fixtureFiles, fixtureMessages, TRANSCRIPTS, transcriptsSkip } from '../../helpers/fixtures.ts'
import { CLAUDE, CODEX, CODEX_BRIDGE, COMPACTD, CONTINUATION_PROMPT, COPILOT, GEMINI_OLD, PI, ROLLING } from './summary-samples.ts'

// ---------------------------------------------------------------------------
// The lossless check: every non-blank content line of the body lands in a field.

const tokens = (s: string): string[] => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []

function items(s: EarlierSections): { field: string; text: string }[] {
  const out: { field: string; text: string }[] = []
  if (s.task !== undefined) out.push({ field: 'task', text: s.task })
  for (const f of s.files) out.push({ field: 'files', text: `${f.path} ${f.note}` })
  for (const k of ['requests', 'errors', 'decisions', 'knowledge', 'state', 'pending', 'actions'] as const) for (const x of s[k]) out.push({ field: k, text: x })
  for (const o of s.other) out.push({ field: `other:${o.title}`, text: `${o.title}\n${o.body}` })
  return out
}

const TABLE_RULE = /^\|?[\s:|-]+\|?$/
/** Headings, table header rows and rules: structure, not content. */
function structural(line: string, next: string | undefined): boolean {
  const l = line.trim()
  return (
    /^#{1,6}\s/.test(l) ||
    /^(\*\*|__)[^*_]+(\*\*|__):?$/.test(l) ||
    /^(\d+[.)]\s+)?[A-Z][^:]{1,70}:$/.test(l) ||
    (TABLE_RULE.test(l) && l.includes('-')) ||
    (l.startsWith('|') && next !== undefined && TABLE_RULE.test(next.trim()) && next.includes('-')) ||
    l === '[Previous Session Context]'
  )
}

/** Lines of the body whose words are in no single item (nor, for "Label: a, b" lines, in a single field). */
function lostLines(summary: EarlierSummary): string[] {
  const all = items(summary.sections).map((i) => ({ field: i.field, set: new Set(tokens(i.text)) }))
  const byField = new Map<string, Set<string>>()
  for (const i of all) {
    const set = byField.get(i.field) ?? new Set<string>()
    for (const w of i.set) set.add(w)
    byField.set(i.field, set)
  }
  // pi writes its file lists with literal "\n" separators.
  const lines = summary.text.replace(/\\n/g, '\n').split('\n')
  const lost: string[] = []
  lines.forEach((line, i) => {
    const next = lines.slice(i + 1).find((l) => l.trim())
    if (!line.trim() || structural(line, next)) return
    // Tags and list markers are markup.
    let content = line.replace(/<\/?[A-Za-z_][\w-]*(?:\s[^>]*)?>/g, ' ').replace(/^\s*(?:[-*+•]|\d+[.)])\s+/, '')
    // The rolling summary's trailing comment is machine metadata (checked separately).
    if (summary.source === 'compactd-session') content = content.replace(/<!--.*?-->\s*$/, '')
    let words = tokens(content)
    // compactd's own provenance mark, dropped on purpose (the next round adds it again).
    if (summary.source === 'compactd') words = words.filter((w) => w !== 'earlier')
    if (words.length === 0) return
    if (all.some((it) => words.every((w) => it.set.has(w)))) return
    const value = tokens(content.replace(/^\s*(?:[-*]\s+)?[A-Za-z][A-Za-z ]*:/, ''))
    if ([...byField.values()].some((set) => value.every((w) => set.has(w)))) return
    lost.push(line)
  })
  return lost
}

function fieldTokens(s: EarlierSections): number {
  return items(s).reduce((n, i) => n + tokens(i.text).length, 0)
}

function checkLossless(t: Test, summary: EarlierSummary): void {
  t.same(lostLines(summary), [], `${summary.source}: every content line lands in a field`)
  // Nothing is mapped twice: the fields hold no more words than the body (notes like "read" aside).
  t.ok(fieldTokens(summary.sections) <= tokens(summary.text).length * 1.1 + 10, `${summary.source}: no line duplicated across fields`)
}

t.test('Claude Code: preamble, numbered sections, the continue instruction left out', async (t) => {
  const s = detectEarlierSummary(CLAUDE)!
  t.equal(s.source, 'claude-code')
  t.equal(s.round, 1)
  t.match(s.sections.task, /fix the crash in src\/cache\.ts/)
  t.match(s.sections.task, /regression test/)
  t.same(s.sections.knowledge, ['LRU eviction with a TTL', 'Vitest with fake timers'])
  t.same(s.sections.files.map((f) => f.path), ['src/cache.ts', 'test/cache.test.ts'])
  t.match(s.sections.files[0]!.note, /if \(!entry\) return undefined/, 'the code block stays with its file')
  t.equal(s.sections.errors.length, 1)
  t.match(s.sections.errors[0], /TypeError[\s\S]*returning early/)
  t.match(s.sections.decisions.join('\n'), /early return over a try\/catch/)
  t.same(s.sections.requests.length, 2, 'All user messages are the requests')
  t.match(s.sections.pending.join('\n'), /Run the full test suite[\s\S]*CHANGELOG[\s\S]*Run npm test/)
  t.match(s.sections.state.join('\n'), /Writing the regression test/)
  t.ok(s.sections.other.some((o) => o.title === 'Analysis'))
  t.ok(s.sections.other.some((o) => /full transcript at: \/home\/u/.test(o.body)))
  t.notMatch(s.text, /Please continue the conversation/)
  checkLossless(t, s)
})

t.test('Claude Code with <analysis>/<summary> tags', async (t) => {
  const tagged = CLAUDE.replace('Analysis:\n', '<analysis>\n').replace('\nSummary:\n', '</analysis>\n<summary>\n').replace('\nIf you need', '</summary>\nIf you need')
  const s = detectEarlierSummary(tagged)!
  t.equal(s.source, 'claude-code')
  t.same(s.sections.knowledge, ['LRU eviction with a TTL', 'Vitest with fake timers'])
  checkLossless(t, s)
})

t.test('Claude Code: a numbered title with its text on the same line', async (t) => {
  const s = detectEarlierSummary(
    'This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\nSummary:\n1. Primary Request and Intent: The user asked to migrate the CI to GitHub Actions.\n2. Pending Tasks: Delete .travis.yml\n3. Current Work: Porting the deploy job.\n',
  )!
  t.equal(s.sections.task, 'The user asked to migrate the CI to GitHub Actions.')
  t.same(s.sections.pending, ['Delete .travis.yml'])
  t.same(s.sections.state, ['Porting the deploy job.'])
  checkLossless(t, s)
})

t.test('Codex: the handoff prefix, and the history bridge before it', async (t) => {
  const s = detectEarlierSummary(CODEX)!
  t.equal(s.source, 'codex')
  t.notMatch(s.text, /Another language model/)
  t.equal(s.sections.task, 'Add image embeddings to Knowledge.insert()')
  t.same(s.sections.state, ['The user wants multimodal support in the Knowledge class.'])
  t.equal(s.sections.decisions.length, 2)
  t.same(s.sections.pending, ['Add PgVector support', 'Write tests in libs/agno/tests/unit/test_knowledge.py'])
  checkLossless(t, s)

  const b = detectEarlierSummary(CODEX_BRIDGE)!
  t.equal(b.source, 'codex')
  t.same(b.sections.requests, ['Review this plan for multimodal Knowledge support.', 'Also check the vector DBs.'])
  t.equal(b.sections.task, s.sections.task)
})

t.test('Codex: labelled items without headings go to their field', async (t) => {
  const s = detectEarlierSummary(
    'Another language model started to solve this problem and produced a summary of its thinking process. Here is the summary produced by the other language model, use the information in this summary to assist with your own analysis:\n- **Goal:** ship the CSV export\n- **Key decisions:** stream rows instead of buffering\n- **Next steps:** add a test for empty tables\n- The export lives in src/export.ts',
  )!
  t.equal(s.source, 'codex')
  t.equal(s.sections.task, '**Goal:** ship the CSV export')
  t.same(s.sections.decisions, ['**Key decisions:** stream rows instead of buffering'])
  t.same(s.sections.pending, ['**Next steps:** add a test for empty tables'])
  t.same(s.sections.state, ['The export lives in src/export.ts'])
  checkLossless(t, s)
})

t.test('Gemini CLI: the older <state_snapshot> with plain lists', async (t) => {
  const s = detectEarlierSummary(GEMINI_OLD)!
  t.equal(s.source, 'gemini-cli')
  t.equal(s.sections.task, "Refactor the authentication service to use the 'jose' library.")
  t.equal(s.sections.knowledge.length, 2)
  t.same(s.sections.files.map((f) => f.path), ['/home/user/project/src', 'package.json', 'services/auth.ts', 'tests/new-feature.test.ts'])
  t.equal(s.sections.files[2]!.note, "MODIFIED: Replaced 'jsonwebtoken' with 'jose'.")
  t.equal(s.sections.actions.length, 2)
  t.same(s.sections.pending.map((p) => p.slice(0, 13)), ['[DONE] Identi', '[IN PROGRESS]', '[TODO] Refact'], 'plan markers kept')
  checkLossless(t, s)
})

t.test('pi: a compaction entry summary, bare or labelled', async (t) => {
  for (const text of [PI, `[earlier compaction summary]\n${PI}`]) {
    const s = detectEarlierSummary(text)!
    t.equal(s.source, 'pi')
    t.equal(s.sections.task, 'Add a dark mode toggle to the settings page')
    t.same(s.sections.requests, ['Keep the existing CSS variables'])
    t.same(s.sections.actions, ['[x] Added `theme` to the settings store'])
    t.same(s.sections.state, ['Wiring the toggle into Settings.tsx', 'None'])
    t.same(s.sections.pending, ['Persist the choice in localStorage'])
    t.same(s.sections.files, [
      { path: '/repo/src/store/settings.ts', note: 'read' },
      { path: '/repo/src/pages/Settings.tsx', note: 'read (lines 1-80)' },
      { path: '/repo/src/store/settings.ts', note: 'modified' },
    ])
    checkLossless(t, s)
  }
  const wrapped = detectEarlierSummary(`The conversation history before this point was compacted into the following summary:\n\n<summary>\n${PI}\n</summary>`)!
  t.equal(wrapped.source, 'pi', "pi's own context wrapper")
  t.equal(wrapped.sections.task, 'Add a dark mode toggle to the settings page')
  t.notMatch(wrapped.text, /<\/?summary>/)
  const branch = detectEarlierSummary('The following is a summary of a branch that this conversation came back from:\n\n<summary>\n## Goal\n- try a Redis cache\n\n## Next Steps\n- abandoned: too slow\n</summary>')!
  t.equal(branch.source, 'pi', 'a branch summary')
  t.same(branch.sections.pending, ['abandoned: too slow'])
})

t.test("compactd's own summary: round, tables, renamed sections, action log", async (t) => {
  const s = detectEarlierSummary(COMPACTD)!
  t.equal(s.source, 'compactd')
  t.equal(s.round, 3)
  t.equal(s.sections.task, 'Fix the crash in src/cache.ts when the cache is cold. Do not change the public API.')
  t.same(s.sections.requests, ['"add a regression test too"', '"use vitest, not jest"', 'user: "check the TTL path too"'])
  t.same(s.sections.files, [
    { path: 'src/cache.ts', note: 'modified — guard in get()' },
    { path: 'test/cache.test.ts', note: 'created — cold-cache test' },
    { path: 'src/lru.ts', note: 'eviction order fixed' },
  ])
  t.same(s.sections.pending, ['Update the CHANGELOG', 'Run the full suite'])
  t.match(s.sections.errors[0], /TypeError[\s\S]*src\/cache\.ts:42:17/, 'the indented detail stays with its error')
  t.same(s.sections.knowledge, ['The TTL clock is mocked globally in test/setup.ts'], 'a renamed section still maps by its words')
  t.ok(s.sections.actions.includes('Reproduced the crash with a cold cache'))
  t.same(detectEarlierSummary('## Session Summary (Round 2)\n### Weather Report\n- sunny')!.sections.other, [{ title: 'Weather Report', body: 'sunny' }], 'a section named by no known word is kept under its title')
  t.ok(s.sections.actions.includes('read src/cache.ts'))
  t.ok(s.sections.other.some((o) => /integrates 2 earlier compaction rounds/.test(o.body)))
  checkLossless(t, s)

  t.equal(detectEarlierSummary('# **Session Summary (Round 7)**\n#### Original Task\nx')?.round, 7, 'any heading level')
})

t.test("compactd's rolling session summary and its continuation prompt", async (t) => {
  const s = detectEarlierSummary(ROLLING)!
  t.equal(s.source, 'compactd-session')
  t.equal(s.round, 1)
  t.equal(s.sections.task, 'Add a regression test for the cold cache')
  t.equal(s.sections.actions.length, 5)
  t.match(s.sections.actions[0], /^Fixed the cold-cache crash in src\/cache\.ts \(2026-06-12 10:00-11:30, ~12k tokens\)$/)
  t.same(s.sections.pending, ['Update the CHANGELOG'])
  t.same(s.sections.decisions, ['Early return instead of try/catch'])
  t.same(
    s.sections.files.map((f) => f.path),
    ['src/cache.ts', 'test/cache.test.ts', 'src/cache.ts', 'test/cache.test.ts'],
    'files from the item comments and from the continuation',
  )
  checkLossless(t, s)

  const p = detectEarlierSummary(CONTINUATION_PROMPT)!
  t.equal(p.source, 'compactd-session')
  t.equal(p.sections.task, 'Add a regression test for the cold cache')
  t.same(p.sections.actions, ['Guard in get()', 'Reproduced the crash'])
  t.same(p.sections.decisions, ['Early return', 'vitest over jest'])
  checkLossless(t, p)
})

t.test('other handoff wrappers are recognised as unknown', async (t) => {
  const s = detectEarlierSummary(COPILOT)!
  t.equal(s.source, 'unknown')
  t.same(s.sections.requests, ['Fix the login bug'])
  t.same(s.sections.state, ['The login form now validates the email'])
  t.same(s.sections.pending, ['Add a test'])
  const l = detectEarlierSummary('Here is a summary of the conversation to date:\n\n## Next Steps\n- ship it')!
  t.equal(l.source, 'unknown')
  t.same(l.sections.pending, ['ship it'])
})

t.test('the lossless check itself catches a dropped line', async (t) => {
  const s = detectEarlierSummary(PI)!
  t.same(lostLines(s), [])
  const dropped = { ...s, sections: { ...s.sections, decisions: [] } }
  t.same(lostLines(dropped), ['- **CSS variables over a theme provider**: fewer re-renders'])
  const moved = { ...s, sections: { ...s.sections, pending: [], state: [...s.sections.state, 'Persist the choice'] } }
  t.same(lostLines(moved), ['1. Persist the choice in localStorage'], 'a line cut short is a loss')
})

t.test('ordinary text is never an earlier summary', async (t) => {
  const prose = [
    '',
    'Fix the crash in src/cache.ts when the cache is cold.',
    "Here's a summary of what I did:\n- Fixed the cache\n- Added a test",
    '## Goal\nMake the build faster.\n\n## Notes\n- use esbuild',
    'I read the notes: "This session is being continued from a previous conversation that ran out of context." is what Claude Code writes.',
    '## Summary\nAll tests pass now. The fix is in src/cache.ts.',
    'Session Summary (Compaction Round 2) is the header compactd writes.',
    'The <state_snapshot> tag is what Gemini CLI writes.',
    '## Yesterday\n1. Went shopping',
  ]
  for (const p of prose) t.equal(detectEarlierSummary(p), undefined, JSON.stringify(p.slice(0, 50)))
})

// ---------------------------------------------------------------------------
// Real summaries from the fixtures and raw transcripts

t.test('Gemini CLI fixture: the state_snapshot it starts with', { skip: conversationsSkip(['google-gemini__gemini-cli__trajectory.json']) }, async (t) => {
  const messages = fixtureMessages('google-gemini__gemini-cli__trajectory.json')
  const s = detectEarlierSummary(messages[1]!.text)!
  t.equal(s.source, 'gemini-cli')
  t.match(s.sections.task, /^Implement a comprehensive "Agent Teams" feature/)
  t.equal(s.sections.requests.length, 7, 'active_constraints')
  t.equal(s.sections.knowledge.length, 6)
  t.ok(s.sections.files.some((f) => f.path === 'packages/core/src/config/config.ts'), 'artifact_trail')
  t.ok(s.sections.files.some((f) => f.path === 'packages/core/src/utils/events.ts' && /^modified:/.test(f.note)), 'file_system_state')
  t.equal(s.sections.actions.length, 8, 'recent_actions and the trail comments')
  t.equal(s.sections.pending.length, 7, 'task_state: the plan, as current_plan was')
  t.match(s.sections.pending[5], /^\[IN PROGRESS\] Commit finalized UI/)
  t.same(
    s.sections.pending.map(planStep).filter((p) => !p.done).map((p) => p.text.slice(0, 22)),
    ['Commit finalized UI an', 'Finalize documentation'],
    'its open steps',
  )
  checkLossless(t, s)
  for (const m of messages.slice(2)) t.equal(detectEarlierSummary(m.text), undefined, `${m.role} ${m.index} is not a summary`)
})

t.test('pi fixture: the compaction carried as "[earlier compaction summary]"', { skip: conversationsSkip(['pinion05__agent-complex-task__03-raddit-dashboard-pr.json']) }, async (t) => {
  const messages = fixtureMessages('pinion05__agent-complex-task__03-raddit-dashboard-pr.json')
  const found = messages.filter((m) => detectEarlierSummary(m.text))
  t.same(found.map((m) => m.index), [526], 'exactly one summary, the compaction')
  const s = detectEarlierSummary(found[0]!.text)!
  t.equal(s.source, 'pi')
  t.match(s.sections.task, /^Migrate raddit's hand-rolled Canvas 2D candlestick chart/)
  t.ok(s.sections.requests.some((r) => /NEVER push directly to `main`/.test(r)), 'constraints')
  t.ok(s.sections.requests.some((r) => /^Add the bid\/ask order ratio/.test(r)), "the split turn's original request")
  t.equal(s.sections.decisions.length, 5)
  t.ok(s.sections.actions.some((a) => /PR #52/.test(a)))
  t.ok(s.sections.state.some((x) => /Remaining work/.test(x)), 'Context for Suffix is state')
  t.equal(s.sections.files.filter((f) => f.note === 'modified').length, 13)
  checkLossless(t, s)
})

t.test('raw transcripts: the pi compaction entry and the Gemini snapshot', { skip: transcriptsSkip(['pi-agent/pinion05__agent-complex-task__03-raddit-dashboard-pr.jsonl', 'gemini-cli/google-gemini__gemini-cli__trajectory.json']) }, async (t) => {
  const lines = fs.readFileSync(`${TRANSCRIPTS}/pi-agent/pinion05__agent-complex-task__03-raddit-dashboard-pr.jsonl`, 'utf8').split('\n')
  const entry = lines.filter((l) => l.includes('"type":"compaction"')).map((l) => JSON.parse(l) as { summary: string })[0]!
  const s = detectEarlierSummary(entry.summary)!
  t.equal(s.source, 'pi', 'a bare pi summary, no label')
  checkLossless(t, s)

  const traj = JSON.parse(fs.readFileSync(`${TRANSCRIPTS}/gemini-cli/google-gemini__gemini-cli__trajectory.json`, 'utf8')) as unknown
  const texts = JSON.stringify(traj).match(/<state_snapshot>[\s\S]*?<\/state_snapshot>/g) ?? []
  t.ok(texts.length >= 1)
  const g = detectEarlierSummary(JSON.parse(`"${texts[0]!}"`) as string)!
  t.equal(g.source, 'gemini-cli')
  checkLossless(t, g)
})

t.test('no assistant or tool message of any fixture is taken for a summary', { skip: conversationsSkip() }, async (t) => {
  for (const file of fixtureFiles()) {
    const wrong = fixtureMessages(file).filter((m) => m.role !== 'user' && detectEarlierSummary(m.text))
    t.same(wrong.map((m) => m.index), [], file)
  }
})

t.test('planStep: status markers of earlier plans', async (t) => {
  t.same(planStep('[DONE] Implement core team discovery'), { text: 'Implement core team discovery', done: true, inProgress: false })
  t.same(planStep('[IN PROGRESS] Commit the UI changes. <-- CURRENT FOCUS'), { text: 'Commit the UI changes. <-- CURRENT FOCUS', done: false, inProgress: true })
  t.same(planStep('[TODO] Finalize documentation'), { text: 'Finalize documentation', done: false, inProgress: false })
  t.same(planStep('- [x] write the tests'), { text: 'write the tests', done: true, inProgress: false })
  t.same(planStep('[ ] open the PR'), { text: 'open the PR', done: false, inProgress: false })
  t.same(planStep('[in_progress] migrate'), { text: 'migrate', done: false, inProgress: true })
  t.same(planStep('[docs] update the README'), { text: '[docs] update the README', done: false, inProgress: false }, 'a tag, not a status')
  t.same(planStep('Add PgVector support'), { text: 'Add PgVector support', done: false, inProgress: false })
})
