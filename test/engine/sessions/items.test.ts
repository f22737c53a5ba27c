/** An exchange → one summary item (src/engine/sessions/items.ts): what happened, and how important it is. */
import t from 'tap'
import { summarizeExchange } from '../../../src/engine/sessions/index.ts'
import { call, counter, DAY, fixExchange, iso, msg, result, T0, text } from './helpers.ts'

t.test('summarizeExchange: failing command, its error, the edited file, the cause', async (t) => {
  const ex = fixExchange(T0)
  const it = summarizeExchange(ex, T0 + DAY, counter)
  t.match(it.text, /src\/auth\/jwt\.ts/, 'names the file')
  t.match(it.text, /`npm test -- test\/auth\.test\.ts` failed \(exit 1\)/, 'names the failing command')
  t.match(it.text, /TypeError: Cannot read properties of undefined \(reading 'exp'\)/, 'with its error')
  t.match(it.text, /later passed/)
  t.match(it.text, /cause: The root cause is that verifyToken/)
  t.match(it.text, /^Asked "The expired-token test fails/)
  t.notMatch(it.text, /\n/)
  t.equal(it.kind, 'fix')
  t.equal(it.importance, 'high', "the user's instruction and a project change rank at the top of the shared scale")
  t.match(it.text, /\[failing: rejects expired tokens\]/, 'with the failing test')
  t.match(it.text, /edited src\/auth\/jwt\.ts \(\+1\/-1/, 'the file with what changed')
  t.equal(it.at, iso(T0 + 7 * 60_000))
  t.ok(it.tokens > 50)
  t.same(it.files, ['src/auth/jwt.ts'])

  const decision = summarizeExchange(
    {
      messages: [
        msg('user', [text('Which library should we use for the storage layer?')]),
        // A decision names something concrete (facts/reasoning.ts): here the `kysely` package.
        msg('assistant', [text('I decided to go with `kysely` over Prisma for the database layer, since it keeps one SQL code path for PGlite and Postgres.')]),
      ],
    },
    T0,
    counter,
  )
  t.equal(decision.importance, 'high')
  t.equal(decision.kind, 'decision')
  t.match(decision.text, /decided: I decided to go with `kysely`/)

  const trivial = summarizeExchange({ messages: [msg('user', [text('ok')]), msg('assistant', [text('Sure.')])] }, T0, counter)
  t.equal(trivial.importance, 'low')
  t.equal(trivial.kind, 'trivial')
  t.equal(trivial.at, iso(T0))

  const debug = summarizeExchange(
    {
      messages: [
        msg('user', [text('Why does the server crash on start?')]),
        msg('assistant', [call('d1', 'read_file', { path: 'src/server.ts' })]),
        msg('tool', [result('d1', 'import x from "y"')]),
        msg('assistant', [call('d2', 'bash', { command: 'node dist/server.js' })]),
        msg('tool', [result('d2', "Error: Cannot find module 'y'\nexit code 1")]),
      ],
    },
    T0,
    counter,
  )
  t.equal(debug.importance, 'high', 'a question left with an unresolved failure')
  t.equal(debug.kind, 'debug')
  t.match(debug.text, /`node dist\/server\.js` failed \(exit 1\): Error: Cannot find module 'y'/)
})

t.test("an investigation says what was learned: the agent's result in its words (facts/findings/)", async (t) => {
  const it = summarizeExchange(
    {
      messages: [
        msg('user', [text('Which backends drop the timezone of datetimes?')]),
        msg('assistant', [call('f1', 'bash', { command: 'rg -n "make_naive" src/orm/backends' })]),
        msg('tool', [result('f1', 'src/orm/backends/mysql/operations.py:219: value = timezone.make_naive(value)\nsrc/orm/backends/sqlite3/operations.py:248: value = timezone.make_naive(value)')]),
        msg('assistant', [text('Found 2 backends that call `timezone.make_naive`: mysql and sqlite3; oracle keeps tzinfo.')]),
        msg('assistant', [text('Maybe the cursor wrapper converts too?')]),
      ],
    },
    T0,
    counter,
  )
  t.match(it.text, /learned: Found 2 backends that call `timezone\.make_naive`: mysql and sqlite3/)
  t.notMatch(it.text, /cursor wrapper/, 'a musing is not learned')
})
