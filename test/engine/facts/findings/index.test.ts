/**
 * Findings of a range (src/engine/facts/findings/index.ts) on generated conversations of
 * the three classes it serves (test/helpers/findings-conversations.ts), in each tool
 * dialect: a code investigation, a research session, a debugging session.
 */
import t from 'tap'
import { classifyMessages } from '../../../../src/engine/facts/events.ts'
import { findingsOf, type Finding } from '../../../../src/engine/facts/findings/index.ts'
import { FORMAT_NAMES, getAdapter, parseConversation } from '../../../../src/engine/messages/index.ts'
import { codeInvestigation, debuggingSession, DIALECTS, historyInvestigation, linkFollowingSession, researchSession } from '../../../helpers/findings-conversations.ts'

/** The conversation as each wire format carries it (as test/engine/compaction/format-invariance.test.ts does). */
function inAllFormats(messages: unknown[]) {
  const canonical = parseConversation(messages, { format: 'openai' }).messages
  return [
    { format: 'openai', messages: canonical },
    ...FORMAT_NAMES.filter((f) => f !== 'openai').map((format) => {
      const s = getAdapter(format).serialize(canonical)
      return { format, messages: parseConversation(s.messages, { format, system: s.system }).messages }
    }),
  ]
}

const findingsIn = (messages: unknown[]): Finding[] => findingsOf(classifyMessages(parseConversation(messages, { format: 'openai' }).messages))
const says = (f: Finding): string => (f.kind === 'statement' ? f.text : f.kind === 'evidence' ? `${f.source}: ${f.lines.join(' · ')}` : f.rows.map((r) => r.join(' | ')).join('\n'))

t.test('code investigation: what the agent found, and the grep lines it rests on', async (t) => {
  for (const dialect of DIALECTS) {
    const all = findingsIn(codeInvestigation(dialect).messages)
    const statement = all.find((f) => f.kind === 'statement' && f.text.startsWith('Found 3 backends'))
    t.ok(statement, `${dialect}: the statement of what was found`)
    const grep = all.find((f) => f.kind === 'evidence' && f.lines.some((l) => l.includes('sqlite3/operations.py:248')))
    t.ok(grep, `${dialect}: the rg line whose names the agent reused`)
    t.ok(grep && /adapt_datetimefield_value/.test(grep.kind === 'evidence' ? grep.source : ''), `${dialect}: with its source`)
    t.notOk(all.some((f) => says(f).includes('Maybe the conversion')), `${dialect}: a musing is no finding`)
    t.ok(all.indexOf(statement!) < 3, `${dialect}: the stated result ranks near the top`)
  }
})

t.test('research: the ranking table whole, the corrections list, the page lines with the values', async (t) => {
  for (const dialect of DIALECTS) {
    const all = findingsIn(researchSession(dialect).messages)
    const table = all.find((f) => f.kind === 'values' && f.table)
    t.ok(table && table.kind === 'values', `${dialect}: the ranking table`)
    if (table?.kind === 'values') t.same(table.rows.map((r) => r[1]), ['Queue', 'Celery', 'Hatchet', 'RQ', 'Dramatiq'], `${dialect}: every row`)
    const fixes = all.find((f) => f.kind === 'values' && !f.table)
    t.ok(fixes && says(fixes).includes('$150/mo → $180/mo'), `${dialect}: the old → new corrections`)
    t.ok(
      all.some((f) => f.kind === 'evidence' && f.lines.some((l) => l.includes('24,800'))),
      `${dialect}: the page line with the stars the table reused`,
    )
  }
})

t.test('debugging: the log line that shows the difference, and why one case fails and the other does not', async (t) => {
  for (const dialect of DIALECTS) {
    const all = findingsIn(debuggingSession(dialect).messages)
    t.ok(
      all.some((f) => f.kind === 'evidence' && f.lines.some((l) => l.includes('lenient_parse_date (fallback_for_legacy_rows)'))),
      `${dialect}: the log line the explanation rests on`,
    )
    t.ok(
      all.some((f) => f.kind === 'statement' && f.text.includes('the difference comes from the `legacy` flag')),
      `${dialect}: where the difference comes from`,
    )
    t.notOk(all.some((f) => says(f).includes('drop the legacy path')), `${dialect}: a question is no finding`)
  }
})

t.test('a statement said again is one finding, the latest wording', async (t) => {
  const m = [
    { role: 'user', content: 'Why does the cache miss?' },
    { role: 'assistant', content: 'This means `cache_key` ignores the `tenant_id` argument.' },
    { role: 'assistant', content: 'So `cache_key` ignores the `tenant_id` argument, which means the keys collide.' },
  ]
  const all = findingsIn(m).filter((f) => f.kind === 'statement')
  t.equal(all.length, 1)
  t.match(says(all[0]!), /keys collide/)
})

t.test('the same findings in every wire format', async (t) => {
  for (const c of [codeInvestigation('codex'), researchSession('claude-code'), debuggingSession('openai')]) {
    const forms = inAllFormats(c.messages)
    const shown = forms.map((f) => JSON.stringify(findingsOf(classifyMessages(f.messages)).map((x) => ({ ...x, position: 0 }))))
    t.equal(new Set(shown).size, 1, `${c.name}: one list across ${forms.map((f) => f.format).join(', ')}`)
  }
})

t.test('history investigation: the commit the agent kept coming back to outweighs one it named once, later', async (t) => {
  for (const dialect of DIALECTS) {
    for (const { format, messages } of inAllFormats(historyInvestigation(dialect).messages)) {
      const all = findingsOf(classifyMessages(messages))
      const line = (text: string) => all.find((f) => f.kind === 'evidence' && f.lines.some((l) => l.includes(text)))
      const often = line('5c565b72 Fix finding packages')
      const once = line('e43e0451 Cache')
      t.ok(often, `${dialect}/${format}: the log line of the commit reused again and again`)
      t.ok(once, `${dialect}/${format}: the log line of the commit named once`)
      // Its rank may be lower: the statements that name the commit already say it (findings' diversity).
      t.ok(often && once && often.score > once.score, `${dialect}/${format}: repeated reuse scores higher, though the other was reused later`)
    }
  }
})

t.test('a page read for its links: the link\'s text and target are the evidence, not its tags', async (t) => {
  for (const dialect of DIALECTS) {
    for (const { format, messages } of inAllFormats(linkFollowingSession(dialect).messages)) {
      const all = findingsOf(classifyMessages(messages))
      const lines = all.flatMap((f) => (f.kind === 'evidence' ? f.lines : []))
      t.ok(lines.includes('File Upload (/cgi-bin/upload.pl)'), `${dialect}/${format}: the link the agent followed, as text and target`)
      t.notOk(lines.some((l) => /<\/?(?:li|a)\b/.test(l)), `${dialect}/${format}: no tags in an evidence line`)
    }
  }
})
