/**
 * Conclusions in assistant prose (src/engine/facts/reasoning.ts). Here the class the
 * announcement rule serves: agents that announce every tool call ("I'll use `grep` to …",
 * "Now, I will modify `x.ts` — …") in the message that makes it. Those sentences narrate
 * the call; a decision says why, or what it was chosen over.
 */
import t from 'tap'
import { conclusionsOf, narratesCall } from '../../../src/engine/facts/reasoning.ts'
import { compactAllFormats } from '../../helpers/compact-all-formats.ts'

t.test('narratesCall: an announcement of the call the message makes, not a choice with its reason', async (t) => {
  for (const s of [
    "Before attempting any injections, I'll use the `curl` command to submit some test data to see the response from the server.",
    'Now, I will modify `upstream.ts` — change the Quote interface, add a batch function, and remove the per-ticker method.',
    "Let's create a Perl script named `printenv.pl` with the following content.",
  ])
    t.ok(narratesCall(s, true), `narration: ${s}`)
  for (const s of [
    "I'll use a WeakMap keyed by the i18n instance instead of a global cache because setLocale() creates a new instance.",
    "I'll keep `retry_budget` at 3, since the upstream limits bursts to four calls.",
    'We decided to pin `lxml` to 4.9 in `requirements.txt`.',
  ])
    t.notOk(narratesCall(s, true), `a choice: ${s}`)
  t.notOk(narratesCall("I'll use the `curl` command to submit test data.", false), 'a message that makes no call announces nothing')
  t.same(conclusionsOf("I'll use `grep` to find where `parse_date` is called.", true), [], 'no decision from an announcement')
  t.same(conclusionsOf('If the server runs the uploaded `printenv.pl`, we should see the environment variables printed out.', true), [], 'an expected outcome ("we should see") is no decision')
  t.same(conclusionsOf('We should use `ZoneInfo` for the store timezone here.', true).map((c) => c.kind), ['decision'], '"we should use" decides')
  t.same(conclusionsOf("I'll use `grep` to find where `parse_date` is called.", false).map((c) => c.kind), ['decision'], 'without the call it stays a stated decision')
})

/** A session whose agent announces each call, and makes one real choice with its reason. */
function announcingSession(): Record<string, unknown>[] {
  let id = 0
  const call = (text: string, name: string, args: Record<string, unknown>, output: string) => {
    const callId = `call_${++id}`
    return [
      { role: 'assistant', content: text, tool_calls: [{ id: callId, type: 'function', function: { name, arguments: JSON.stringify(args) } }] },
      { role: 'tool', tool_call_id: callId, content: output },
    ]
  }
  const listing = (n: number, tag: string) => Array.from({ length: n }, (_, k) => `billing/${tag}_${k}.py:${10 + k}: parse_date(row["${tag}_${k}"])`).join('\n')
  return [
    { role: 'system', content: 'You are a coding agent with shell and editor tools.' },
    { role: 'user', content: 'Invoices from the EU store show dates a day early. Find out why and fix it in the billing package.' },
    ...call("I'll use `grep` to find every caller of `parse_date` in the billing package.", 'bash', { command: 'grep -rn parse_date billing/' }, listing(40, 'invoice')),
    ...['invoices', 'refunds', 'exports', 'reports', 'ledger', 'taxes', 'coupons', 'payouts'].flatMap((mod) =>
      call(`I'll use \`sed\` to print \`billing/${mod}.py\` around its \`parse_date\` call.`, 'bash', { command: `sed -n 1,40p billing/${mod}.py` }, listing(35, mod)),
    ),
    ...call("Now, I will open `billing/dates.py` to read `parse_date`.", 'read_file', { path: 'billing/dates.py' }, 'def parse_date(s):\n    return datetime.strptime(s, "%Y-%m-%d").replace(tzinfo=None)\n' + listing(30, 'dates')),
    ...call("I'll run the date tests with `pytest` to see the failure.", 'bash', { command: 'pytest billing/tests/test_dates.py -q' }, 'F.\nFAILED billing/tests/test_dates.py::test_eu_invoice_date - assert 2024-03-09 == 2024-03-10\n1 failed, 1 passed'),
    { role: 'assistant', content: 'The root cause is that `parse_date` drops the store timezone, so an EU timestamp after 23:00 UTC lands on the previous day.' },
    ...call("I'll use `zoneinfo.ZoneInfo(store.tz)` instead of a naive datetime because the invoices must show the store's local date.", 'edit_file', { path: 'billing/dates.py', old: 'replace(tzinfo=None)', new: 'astimezone(ZoneInfo(store.tz))' }, 'Edited billing/dates.py'),
    ...call("Then, I will run the tests again with `pytest`.", 'bash', { command: 'pytest billing/tests -q' }, '12 passed in 0.41s'),
    ...call("Next I'll use `git diff` to review the change.", 'bash', { command: 'git diff --stat' }, ' billing/dates.py | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)'),
    { role: 'user', content: 'Good. Also add a changelog entry.' },
    ...call("I'll write the entry to `CHANGELOG.md`.", 'edit_file', { path: 'CHANGELOG.md', old: '## Unreleased', new: '## Unreleased\n- EU invoice dates use the store timezone' }, 'Edited CHANGELOG.md'),
    { role: 'assistant', content: 'Done: the changelog has the entry.' },
  ]
}

t.test('an agent that announces its calls: Key Technical Decisions hold the choice, not the announcements, in every format', async (t) => {
  for (const run of await compactAllFormats(announcingSession(), 0.25, { keepRecent: 2 })) {
    t.match(run.output, /ZoneInfo\(store\.tz\)` instead of a naive datetime because/, `${run.format}: the choice and its reason`)
    // Neither a Key Technical Decision nor a log note: the calls' own log lines say what they did.
    t.notMatch(run.summary, /^- (?:note: )?(?:I'll use `(?:grep|sed|git diff)`|Now, I will open|I'll run the date tests|Then, I will run)/m, `${run.format}: no announcement of a call as a decision`)
  }
})
