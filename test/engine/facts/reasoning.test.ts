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

/** An OpenAI tool call with its result, ids counted per session. */
function callMaker() {
  let id = 0
  return (text: string, name: string, args: Record<string, unknown>, output: string) => {
    const callId = `call_${++id}`
    return [
      { role: 'assistant', content: text, tool_calls: [{ id: callId, type: 'function', function: { name, arguments: JSON.stringify(args) } }] },
      { role: 'tool', tool_call_id: callId, content: output },
    ]
  }
}

/** A session whose agent announces each call, and makes one real choice with its reason. */
function announcingSession(): Record<string, unknown>[] {
  const call = callMaker()
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

/** An agent that reports in Korean: a hypothesis first, then the cause it established. */
function koreanRootCauseSession(): Record<string, unknown>[] {
  const call = callMaker()
  const source = (file: string, n: number) => Array.from({ length: n }, (_, k) => `${k + 1}\tconst v${k} = series[${k}].value // ${file}`).join('\n')
  return [
    { role: 'system', content: 'You are a coding agent. Answer the user in Korean.' },
    { role: 'user', content: '차트 봉 단위를 바꾸면 차트가 위아래로 찌그러짐. 원인 찾아서 고쳐줘' },
    { role: 'assistant', content: '- **원인 가설**: `drawChart()`가 `fitContent()`만 호출하고 가격 스케일을 리셋하지 않음. 재현으로 확인한다.' },
    ...['Dashboard.tsx', 'chart.ts', 'series.ts', 'overlay.ts', 'scale.ts', 'theme.ts'].flatMap((f) => call(`\`src/components/${f}\` 확인.`, 'read', { path: `src/components/${f}` }, source(f, 60))),
    { role: 'assistant', content: '원인: 가격축을 수동으로 조정하면 `autoScale`이 꺼지고, 봉 단위를 바꿔도 `setData`가 스케일을 다시 맞추지 않음.\n처음 가설(`fitContent`)은 재현에서 반증됨.' },
    ...['legend.ts', 'tooltip.ts', 'volume.ts', 'range.ts', 'format.ts', 'store.ts'].flatMap((f) => call(`\`src/lib/${f}\` 확인.`, 'read', { path: `src/lib/${f}` }, source(f, 60))),
    ...call('수정 적용.', 'edit', { path: 'src/components/Dashboard.tsx', old_string: 'series.setData(rows)', new_string: 'series.setData(rows)\nseries.priceScale().applyOptions({ autoScale: true })' }, 'Edited src/components/Dashboard.tsx'),
    ...call('빌드 확인.', 'bash', { command: 'npm run build' }, 'built in 4.1s'),
    { role: 'assistant', content: '완료. 봉 단위 변경 시 `autoScale`을 다시 켜도록 수정했어.' },
  ]
}

t.test('a root cause stated in Korean is a root cause; a hypothesis is not, in every format', async (t) => {
  t.same(conclusionsOf('원인: 가격축을 수동으로 조정하면 `autoScale`이 꺼짐.', false).map((c) => c.kind), ['root-cause'])
  t.same(conclusionsOf('가격축 수동조정이 `autoScale`을 끄는 게 원인.', false).map((c) => c.kind), ['root-cause'])
  t.same(conclusionsOf('原因は `autoScale` が無効になることです。', false).map((c) => c.kind), ['root-cause'])
  t.same(conclusionsOf('- **원인 가설**: `drawChart()`가 `fitContent()`만 호출함.', false).map((c) => c.kind), [], 'a hypothesis')
  t.same(conclusionsOf('먼저 재현 테스트로 원인을 확정한 뒤 `Dashboard.tsx`를 고친다.', false).map((c) => c.kind).filter((k) => k === 'root-cause'), [], 'a cause still to be found')
  for (const run of await compactAllFormats(koreanRootCauseSession(), 0.2, { keepRecent: 2 })) {
    t.match(run.summary, /Root cause: 원인: 가격축을 수동으로 조정하면 `autoScale`이 꺼지고/, `${run.format}: the established cause`)
    t.notMatch(run.summary, /Root cause:[^\n]*원인 가설/, `${run.format}: not the hypothesis`)
  }
})
