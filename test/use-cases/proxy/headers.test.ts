import t from 'tap'
import { derivedSession, forwardedHeaders, givenSession, givenThreshold } from '../../../src/use-cases/proxy/headers.ts'
import { thrown } from '../../helpers/thrown.ts'

t.test("the caller's headers pass on, but not hop-by-hop ones or compactd's own", async (t) => {
  const out = forwardedHeaders({ authorization: 'Bearer sk', 'x-api-key': 'k', 'anthropic-beta': 'b', connection: 'keep-alive', host: 'h', 'content-length': '9', 'x-compactd-key': 'cpd', 'x-compactd-session': 's', 'x-other': ['a', 'b'] })
  t.same(out, { authorization: 'Bearer sk', 'x-api-key': 'k', 'anthropic-beta': 'b', 'x-other': 'a, b' })
})

t.test('x-compactd-session and x-compactd-threshold are checked, naming the header', async (t) => {
  t.equal(givenSession({ 'x-compactd-session': 'run-1' }), 'run-1')
  t.equal(givenSession({}), undefined)
  t.match(thrown(() => givenSession({ 'x-compactd-session': 'a b' })), { statusCode: 400, issues: [{ path: 'headers.x-compactd-session' }] })
  t.equal(givenThreshold({ 'x-compactd-threshold': '3000' }), 3000)
  for (const bad of ['0', '-5', '1e4', 'lots', '12.5', '']) t.match(thrown(() => givenThreshold({ 'x-compactd-threshold': bad })), { statusCode: 400, issues: [{ path: 'headers.x-compactd-threshold' }] }, bad)
})

t.test('a derived session is one per conversation and per tenant', async (t) => {
  const a = [{ role: 'user', content: 'task' }, { role: 'assistant', content: 'ok' }]
  const same = derivedSession('t1', 'sys', a)
  t.match(same, /^proxy-[0-9a-f]{24}$/)
  t.equal(derivedSession('t1', 'sys', [...a, { role: 'user', content: 'more' }]), same, 'later turns of the conversation')
  t.not(derivedSession('t2', 'sys', a), same, 'another tenant')
  t.not(derivedSession('t1', 'other', a), same, 'another system prompt')
  t.not(derivedSession('t1', 'sys', [{ role: 'user', content: 'other task' }]), same, 'another first request')
})

t.test('x-compactd-focus is trimmed, optional and bounded', async (t) => {
  const { givenFocus } = await import('../../../src/use-cases/proxy/headers.ts')
  t.equal(givenFocus({ 'x-compactd-focus': '  the billing module ' }), 'the billing module')
  t.equal(givenFocus({}), undefined)
  t.match(thrown(() => givenFocus({ 'x-compactd-focus': 'x'.repeat(2001) })), { statusCode: 400, issues: [{ path: 'headers.x-compactd-focus' }] })
})
