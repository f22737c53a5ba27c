/** Reuse, the evidence a finding rests on (src/engine/facts/findings/reuse.ts): which words count, and when a word was reused. */
import t from 'tap'
import { forEachToken, ReuseIndex, tokensOf, tokenWeight } from '../../../../src/engine/facts/findings/reuse.ts'

t.test('identifiers, versions, hashes and names count; plain English does not', async (t) => {
  for (const w of ['adapt_datetimefield_value', '__init__', 'makeNaive', 'MediaOrderConflictWarning', 'timezone.make_naive', 'sqlite3', '2.9.1', '5c565b72', 'e43e0451']) t.equal(tokenWeight(w), 1, w)
  t.equal(tokenWeight('Orca'), 0.5, 'a capitalised name counts, less')
  t.equal(tokenWeight('GPL'), 0.6)
  t.equal(tokenWeight('1333'), 0.5, 'a bare number counts, less')
  t.equal(tokenWeight('7'), 0, 'a digit says nothing')
  for (const w of ['the', 'The', 'because', 'ERROR', 'value', 'file', 'is']) t.equal(tokenWeight(w), 0, w)
  t.equal(tokenWeight('merge'), 0.3, 'a lower-case word of code counts a little')
})

t.test('tokens: dotted names and their parts, sentence punctuation left out', async (t) => {
  const seen: string[] = []
  forEachToken('Call os.path.join. Then `Class::method` at 3.11:', (tok) => seen.push(tok))
  t.same(seen, ['Call', 'os.path.join', 'os', 'path', 'join', 'Then', 'Class::method', 'Class', 'method', 'at', '3.11'], "a version's parts are not names")
  const distinct: string[] = []
  forEachToken('the scheduler calls make_naive on Value', (tok) => distinct.push(tok), true)
  t.same(distinct, ['make_naive', 'Value'], 'distinctOnly skips plain lower-case words')
  t.same(
    tokensOf('make_naive make_naive the value 2.9.1').map((x) => x.text),
    ['make_naive', '2.9.1'],
    'each once, weightless words out',
  )
})

t.test('a word is known from its first writing; reuse is later writing, prose above arguments, later above earlier', async (t) => {
  const index = new ReuseIndex(10)
  index.record('rg -n "adapt_datetimefield_value"', 1, 'args')
  index.record('`make_naive` is called by every backend.', 4, 'prose')
  index.record('{"new_str": "make_naive(value)", "path": "src/x.py"}', 5, 'args')
  index.record('only_in_args here', 6, 'args')
  t.ok(index.knownBefore('adapt_datetimefield_value', 2), 'the grep pattern was known before its output')
  t.notOk(index.knownBefore('make_naive', 2), 'make_naive was first written after the output at 2')
  t.ok(index.reuse('make_naive', 2) > index.reuse('only_in_args', 2), 'reused in prose weighs more than only in arguments')
  t.equal(index.reuse('make_naive', 5), 0, 'nothing wrote it after 5')
  t.equal(index.reuse('never_written', 0), 0)
  const late = new ReuseIndex(10)
  late.record('late_name', 9, 'prose')
  const early = new ReuseIndex(10)
  early.record('late_name', 3, 'prose')
  t.ok(late.reuse('late_name', 1) > early.reuse('late_name', 1), 'a later reuse weighs more: it still mattered at the end')
})

t.test('a token written again and again weighs more than one written once, up to a cap', async (t) => {
  const once = new ReuseIndex(20)
  once.record('5c565b72', 10, 'prose')
  const often = new ReuseIndex(20)
  for (const at of [4, 6, 8, 10]) often.record('5c565b72', at, 'prose')
  t.ok(often.reuse('5c565b72', 1) > once.reuse('5c565b72', 1), 'four later uses weigh more than one')
  t.equal(often.reuse('5c565b72', 7), once.reuse('5c565b72', 7) * 1.2, 'only the uses after the position count: two here')
  often.record('5c565b72', 10, 'prose')
  t.equal(often.reuse('5c565b72', 7), once.reuse('5c565b72', 7) * 1.2, 'one message writing it twice is one use')
  const many = new ReuseIndex(100)
  const more = new ReuseIndex(100)
  for (let at = 2; at <= 90; at += 2) many.record('e43e0451', at, 'prose')
  for (let at = 74; at <= 90; at += 2) more.record('e43e0451', at, 'prose')
  t.equal(many.reuse('e43e0451', 1), more.reuse('e43e0451', 1), 'past the cap more uses add nothing')
})
