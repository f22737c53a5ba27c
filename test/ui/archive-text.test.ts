/**
 * The archive's text helpers (ui/src/archive-text.ts), in node: the `[ref …]` marks a
 * page turns into buttons, and the parts of a search snippet it highlights. Both only cut
 * text: joined, the parts give the text back, so nothing is added that could be markup.
 */
import t from 'tap'
import { highlightParts, queryWords, splitRefs } from '../../ui/src/archive-text.ts'

t.test('splitRefs: the marks compactd prints, and nothing that only looks like one', async (t) => {
  const text = '- bash npm test [ref xvm3mttm]\n[output masked by compactd] [✓ bash ls | exit 0 | 34 lines] [ref 3answbqe]'
  const parts = splitRefs(text)
  t.same(parts.filter((p) => p.ref).map((p) => p.ref), ['xvm3mttm', '3answbqe'])
  t.equal(parts.map((p) => p.text).join(''), text, 'the parts give the text back')
  t.same(splitRefs('no mark here'), [{ text: 'no mark here' }])
  t.same(splitRefs(''), [{ text: '' }])
  // i, l, o and u are not in the alphabet; upper case, 7 or 9 characters, and the note's "[ref …]" are not references.
  for (const s of ['[ref abcdefgi]', '[ref ABCDEFGH]', '[ref abcdefg]', '[ref abcdefghj]', '[ref …]', '[ref abcd efg]', '[ref <b>abcdefgh]'])
    t.same(splitRefs(s), [{ text: s }], `${s}: text`)
})

t.test('highlightParts: the searched words marked, case-insensitively, longest first; the text otherwise untouched', async (t) => {
  const snippet = 'Error: the Zanzibar mirror serves a stale lockfile <script>alert(1)</script> (zanzibar-mirrors)'
  const parts = highlightParts(snippet, ['zanzibar', 'mirror', 'mirrors'])
  t.equal(parts.map((p) => p.text).join(''), snippet, 'the parts give the text back')
  t.same(parts.filter((p) => p.mark).map((p) => p.text), ['Zanzibar', 'mirror', 'zanzibar', 'mirrors'])
  t.ok(parts.some((p) => !p.mark && p.text.includes('<script>')), 'markup in a snippet stays text, for the page to render as text')
  t.same(highlightParts('a.b (c) [d]', ['.', '(c)']), [{ text: 'a.b ', mark: false }, { text: '(c)', mark: true }, { text: ' [d]', mark: false }], 'regex characters are literal; one-character words ignored')
  t.same(highlightParts('nothing', []), [{ text: 'nothing', mark: false }])
  t.same(queryWords('why does the "zanzibar" mirror fail?'), ['why', 'does', 'the', 'zanzibar', 'mirror', 'fail'])
})
