/**
 * Archive references in a compaction's output (issue 21), on a generated coding session
 * (the class every stored compaction serves): masked outputs name their reference, the
 * summary carries the archive note once, log lines show refs within their share of the
 * summary, and without `references` nothing changes.
 */
import t from 'tap'
import { compact, REFERENCE_SHARE } from '../../../src/engine/compaction/compact.ts'
import { DEFAULT_COMPACT_OPTIONS, type CompactOptions } from '../../../src/engine/compaction/types.ts'
import { archiveRecord } from '../../../src/engine/archive/record.ts'
import { parseConversation } from '../../../src/engine/messages/index.ts'
import { tokenizerCounter } from '../../../src/engine/tokens/count.ts'
import { prose } from '../../helpers/prose.ts'

const NOTE = '_Originals archived: search_context(query) finds them, read_context(ref) reads one._'
const counter = tokenizerCounter('o200k_base')

function session(pairs = 40): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Find why the importer drops rows, fix it, and keep the tests green.' },
  ]
  for (let k = 0; k < pairs; k++) {
    const fails = k % 5 === 2
    const name = k % 2 ? 'bash' : 'read_file'
    const args = k % 2 ? { command: `pytest tests/test_import_${k}.py` } : { path: `src/importer/part_${k}.py` }
    out.push(
      { role: 'assistant', content: `Step ${k}.`, tool_calls: [{ id: `c${k}`, type: 'function', function: { name, arguments: JSON.stringify(args) } }] },
      { role: 'tool', tool_call_id: `c${k}`, content: (fails ? `FAILED tests/test_import_${k}.py::test_rows - AssertionError: 41 != 42\nexit code 1\n` : '') + prose(1800, k + 1) },
    )
  }
  out.push({ role: 'assistant', content: 'Rows are no longer dropped.' }, { role: 'user', content: 'Now document it.' })
  return out
}

async function run(options: Partial<CompactOptions>, strategy: CompactOptions['strategy'], target = 6000) {
  const conversation = parseConversation(session(120))
  const refs = new Map<string, string>()
  const references = { refOf: (m: Parameters<typeof archiveRecord>[0]) => { const r = archiveRecord(m).ref; refs.set(r, JSON.stringify(m.raw)); return r }, note: NOTE }
  const result = await compact({
    messages: conversation.messages,
    counter,
    options: { ...DEFAULT_COMPACT_OPTIONS, format: 'openai', targetTokens: target, thresholdTokens: target, strategy, ...options, ...('references' in options ? {} : { references }) },
  })
  return { result, refs }
}

t.test('masked outputs name the reference of the message they replace', async (t) => {
  const { result, refs } = await run({ keepRecent: 60 }, ['mask'])
  const masked = result.messages.filter((m) => JSON.stringify(m.raw).includes('[output masked by compactd]'))
  t.ok(masked.length >= 10, `${masked.length} masked`)
  for (const m of masked) {
    const ref = /\[ref ([0-9a-z]{8})\]/.exec(JSON.stringify(m.raw))?.[1]
    t.ok(ref && refs.get(ref)?.includes((m.raw as { tool_call_id: string }).tool_call_id), 'its ref is the original of the same call')
  }
})

t.test('the summary says once how to search; log refs stay within their share', async (t) => {
  const { result, refs } = await run({}, ['mask', 'rules'], 5000)
  const text = result.summary!.text
  t.equal(text.split('\n')[1], NOTE, 'the note is the line under the round header')
  t.equal(text.split(NOTE).length, 2, 'once')
  const marks = [...text.matchAll(/ \[ref ([0-9a-z]{8})\]/g)]
  t.ok(marks.length >= 1, `${marks.length} log lines carry a ref`)
  for (const m of marks) t.ok(refs.has(m[1]!), 'each names an archived original')
  const cost = marks.reduce((n, m) => n + counter.text(m[0]), 0) + counter.text(NOTE)
  t.ok(cost <= counter.text(text) * REFERENCE_SHARE + 2, `references take ${cost} of ${counter.text(text)} tokens`)
  t.ok(result.event.tokensAfter <= 5000, 'the target holds')
})

t.test('without references the output has none', async (t) => {
  const { result } = await run({ references: undefined }, ['mask', 'rules'], 2500)
  t.notMatch(JSON.stringify(result.messages.map((m) => m.raw)), /\[ref |Originals archived/)
})
