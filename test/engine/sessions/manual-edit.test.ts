/**
 * A hand-written summary version (PUT /summary) keeps the continuation fields its text
 * does not state, written into its continuation block; a line that is only "…" says nothing.
 */
import t from 'tap'
import { parseSummary, withCarriedOverContinuation } from '../../../src/engine/sessions/index.ts'

const NOW = '2026-11-23T18:00:00.000Z'
const PREVIOUS = [
  '## Previously in This Session',
  '1. Asked "Fix the failing test for src/module1.ts (task 1)" (2026-11-23 17:38Z, ~129 tokens) <!-- at=2026-11-23T17:38:24.017Z i=m k=fix f=src/module1.ts -->',
  '',
  '## Continuation',
  'Current task: Fix the failing test for src/module1.ts (task 1)',
  'Completed:',
  '- Fix the failing test for src/module1.ts (task 1)',
  'Relevant files: src/module1.ts',
  '',
].join('\n')

t.test('no previous version, or every field stated: the text is stored as given', async (t) => {
  const text = '## Previously in This Session\n1. Decided to keep one pg.Pool per process\n'
  t.same(withCarriedOverContinuation(text, undefined, NOW), { content: text, carriedOver: [] })
  t.same(withCarriedOverContinuation(PREVIOUS, PREVIOUS, NOW), { content: PREVIOUS, carriedOver: [] })
})

t.test('fields the text does not state come from the previous version, into its continuation block', async (t) => {
  const text = '## Continuation\nPending:\n- make close() idempotent\n\n## This Week\n1. Set up CI\n'
  const out = withCarriedOverContinuation(text, PREVIOUS, NOW)
  t.same(out.carriedOver, ['currentTask', 'completedSteps', 'relevantFiles'])
  t.equal(
    out.content,
    '## Continuation\nPending:\n- make close() idempotent\nCurrent task: Fix the failing test for src/module1.ts (task 1)\nCompleted:\n- Fix the failing test for src/module1.ts (task 1)\nRelevant files: src/module1.ts\n\n## This Week\n1. Set up CI\n',
    'inserted before the next section, which keeps its blank line',
  )
  const c = parseSummary(out.content, NOW).continuation
  t.equal(c.currentTask, 'Fix the failing test for src/module1.ts (task 1)')
  t.same(c.pendingSteps, ['make close() idempotent'])
  t.same(c.relevantFiles, ['src/module1.ts'])
})

t.test('a text without a continuation block gets one at its end; "none" states a field empty', async (t) => {
  const added = withCarriedOverContinuation('## Previously in This Session\n1. Decided to keep one pg.Pool per process', PREVIOUS, NOW)
  t.match(added.content, /^## Previously in This Session\n1\. Decided to keep one pg\.Pool per process\n\n## Continuation\nCurrent task: Fix the failing test/)
  const cleared = withCarriedOverContinuation('## Continuation\nCurrent task: none\nCompleted: none\nRelevant files: none\n', PREVIOUS, NOW)
  t.same(cleared.carriedOver, [])
  t.equal(parseSummary(cleared.content, NOW).continuation.currentTask, '')
})

t.test('a line that is only an ellipsis is no item and no continuation entry', async (t) => {
  const doc = parseSummary('## Previously in This Session\n1. Fixed the pool\n…\n- ...\n\n## Continuation\n…\nCurrent task: Ship it\n', NOW)
  t.same(
    doc.sections.session.map((i) => i.text),
    ['Fixed the pool'],
  )
  t.equal(doc.continuation.currentTask, 'Ship it')
})
