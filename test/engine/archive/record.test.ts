/**
 * The archive record of a message: the reference is the content hash of the redacted
 * message (so a resent message gets the same one), secrets never reach raw or text, and
 * the tool name and call ids are what read-back pairs by.
 */
import t from 'tap'
import { archivedText, archiveRecord, normalizeRef, REF_LENGTH, REF_PATTERN, refOfHash } from '../../../src/engine/archive/record.ts'
import { parseConversation } from '../../../src/engine/messages/index.ts'

const KEY = 'sk-proj-' + 'Ab12'.repeat(12)
const messages = [
  { role: 'user', content: 'Check the config.' },
  { role: 'assistant', content: 'Reading it.', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{"command":"cat .env"}' } }] },
  { role: 'tool', tool_call_id: 'c1', content: `OPENAI_API_KEY=${KEY}\nPORT=3000` },
]

t.test('references are short, stable and the same for the same content', async (t) => {
  const a = parseConversation(messages).messages
  const b = parseConversation(structuredClone(messages)).messages
  const ra = archiveRecord(a[2]!, new Map([['c1', 'bash']]))
  const rb = archiveRecord(b[2]!, new Map([['c1', 'bash']]))
  t.equal(ra.ref.length, REF_LENGTH)
  t.match(ra.ref, REF_PATTERN)
  t.equal(ra.ref, rb.ref, 'a resent message has the same reference')
  t.equal(ra.hash, rb.hash)
  t.not(archiveRecord(a[1]!).ref, ra.ref)
  t.equal(archiveRecord(a[2]!), ra, 'made once per message object')
})

t.test('the record holds redacted bytes and text, and what read-back pairs by', async (t) => {
  const [, call, result] = parseConversation(messages).messages
  const r = archiveRecord(result!, new Map([['c1', 'bash']]))
  t.notMatch(r.raw, KEY)
  t.notMatch(archivedText(r.raw, r.format), KEY, 'nor its searchable text')
  t.match(r.raw, /\[REDACTED:/)
  t.equal(r.redactions, 1)
  t.same(JSON.parse(r.raw).tool_call_id, 'c1', 'the rest of the message is the caller\'s')
  t.equal(r.toolName, 'bash', 'the result names its call\'s tool')
  t.same(r.callIds, ['c1'])
  t.equal(r.role, 'tool')
  t.equal(r.position, 2)
  const c = archiveRecord(call!)
  t.equal(c.toolName, 'bash')
  t.same(c.callIds, ['c1'])
  t.match(archivedText(c.raw, c.format), /bash\(/, 'a call is searchable as name(args)')
})

t.test('references survive being retyped', async (t) => {
  const ref = refOfHash('f'.repeat(64))
  t.equal(ref, 'zzzzzzzz')
  t.equal(normalizeRef(' 7HQ2K9XA '), '7hq2k9xa')
  t.equal(normalizeRef('o1l0'), '0110', 'confusable letters map back (Crockford)')
})
