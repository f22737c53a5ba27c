/**
 * The issue-22 workflow conversations: every probe is honest (answerable only from the
 * compacted range), and the default pipeline passes them at 25% in every format and dialect.
 */
import t from 'tap'
import { outputText, scoreProbe, validateProbes } from '../eval/probes/core.ts'
import { compactAllFormats } from './compact-all-formats.ts'
import { workflowConversations } from './workflow-conversations.ts'

t.test('every probe is answerable only from the compacted range', async (t) => {
  for (const c of workflowConversations()) t.same(validateProbes(c.probes, new Map([[c.name, c.messages]])), [], c.name)
})

t.test('mask+rules at 25% passes every probe, in every format', async (t) => {
  for (const c of workflowConversations()) {
    for (const run of await compactAllFormats(c.messages, 0.25)) {
      const out = outputText(run.result.messages)
      for (const p of c.probes) t.ok(scoreProbe(p, out).passed, `${c.name}/${run.format}: ${p.id} ${p.question}`)
    }
  }
})
