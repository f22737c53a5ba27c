import t from 'tap'
import { coveredHash, messageTexts, prefixRecipe, replayPrefix } from '../../../src/engine/compaction/reusable-prefix.ts'

const history = [
  { role: 'system', content: 'rules' },
  { role: 'user', content: 'task' },
  { role: 'assistant', content: 'reading' },
  { role: 'tool', tool_call_id: 'a', content: 'big output' },
  { role: 'assistant', content: 'found it' },
  { role: 'user', content: 'fix it' },
]
const summary = { role: 'user', content: '## Session Summary (Compaction Round 1)' }
const masked = { role: 'tool', tool_call_id: 'a', content: '[masked]' }
const output = [history[0], history[1], summary, masked, history[4], history[5]]

t.test('kept messages are named by index, created ones kept whole, in output order', async (t) => {
  const recipe = prefixRecipe(messageTexts(history), output, undefined)
  t.same(recipe.parts, [{ kept: 0 }, { kept: 1 }, { created: summary }, { created: masked }, { kept: 4 }, { kept: 5 }])
  t.equal(recipe.coveredCount, history.length)
})

t.test('a request extending the history replays the same prefix, then its new messages', async (t) => {
  const recipe = prefixRecipe(messageTexts(history), output, undefined)
  const next = [...history, { role: 'assistant', content: 'done' }, { role: 'user', content: 'commit' }]
  const replayed = replayPrefix(recipe, next, messageTexts(next), undefined)!
  t.equal(JSON.stringify(replayed.slice(0, output.length)), JSON.stringify(output), 'byte-identical prefix')
  t.same(replayed.slice(output.length), next.slice(history.length), 'the new messages after it')
})

t.test('an edited, shortened or other history, or another system prompt, does not replay', async (t) => {
  const recipe = prefixRecipe(messageTexts(history), output, 'sys')
  const edited = history.map((m, i) => (i === 2 ? { ...m, content: 'reading!' } : m))
  t.equal(replayPrefix(recipe, edited, messageTexts(edited), 'sys'), undefined, 'an edited message')
  t.equal(replayPrefix(recipe, history.slice(0, 4), messageTexts(history.slice(0, 4)), 'sys'), undefined, 'a shorter history')
  t.equal(replayPrefix(recipe, history, messageTexts(history), 'other'), undefined, 'another system prompt')
  t.ok(replayPrefix(recipe, history, messageTexts(history), 'sys'), 'the same one does')
})

t.test('duplicate messages match in order, never backwards', async (t) => {
  const same = { role: 'user', content: 'again' }
  const input = [same, { role: 'assistant', content: 'x' }, same]
  const recipe = prefixRecipe(messageTexts(input), [summary, same], undefined)
  t.same(recipe.parts, [{ created: summary }, { kept: 0 }])
  const later = prefixRecipe(messageTexts(input), [input[1], same], undefined)
  t.same(later.parts, [{ kept: 1 }, { kept: 2 }], 'the copy after the last match')
})

t.test('the covered hash is over the count given and the system prompt', async (t) => {
  const texts = messageTexts(history)
  t.equal(coveredHash(texts, 3, undefined), coveredHash(messageTexts(history.slice(0, 3)), 3, null))
  t.not(coveredHash(texts, 3, undefined), coveredHash(texts, 4, undefined))
})
