/**
 * The snippet of a hit (fitSnippet): 300–800 characters around the best match, also when
 * the word matched only inside an identifier, which ts_headline does not see.
 */
import t from 'tap'
import { fitSnippet, SNIPPET_MAX_CHARS, SNIPPET_MIN_CHARS } from '../../src/archive/search.ts'

const filler = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag} line ${i}: nothing to see`).join('\n')

t.test('a word matched inside an identifier centres the snippet on it', async (t) => {
  const body = `${filler(200, 'a')}\nexport TZ=Pacific/Chatham\n${filler(200, 'b')}`
  // ts_headline, given no match in the unexpanded text, returns the chunk's start.
  const s = fitSnippet('a line 0: nothing to see a line 1: nothing to see', body, ['chatham'])
  t.match(s, /TZ=Pacific\/Chatham/)
  t.ok(s.length >= SNIPPET_MIN_CHARS && s.length <= SNIPPET_MAX_CHARS, `${s.length} chars`)
})

t.test('a short headline is widened where it was found; a long one is clipped', async (t) => {
  const body = `${filler(100, 'a')}\nthe retry budget is 7 attempts\n${filler(100, 'b')}`
  const s = fitSnippet('the retry budget is 7 attempts', body, ['retry'])
  t.match(s, /retry budget is 7/)
  t.ok(s.length >= SNIPPET_MIN_CHARS && s.length <= SNIPPET_MAX_CHARS + 2)
  t.equal(fitSnippet('x'.repeat(2000), 'x'.repeat(2000), []).length, SNIPPET_MAX_CHARS)
  t.equal(fitSnippet('short message', 'short message', ['short']), 'short message', 'a short message is the snippet')
})
