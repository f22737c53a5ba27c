/**
 * `llm` summaries keep the artifact trail (issue 9): the model gets the extracted facts in
 * its prompt, and when it answers with a deliberately lossy summary, compactd appends
 * what it dropped — files, failures, instructions, open plan items — in the rules
 * summary's layout, and the budget still holds. Real SDKs against the fake provider.
 */
import t from 'tap'
import { testConfig } from '../../../src/config.ts'
import { compact } from '../../../src/engine/compaction/compact.ts'
import { llmSummarizer } from '../../../src/engine/compaction/summarizers/llm.ts'
import { DEFAULT_COMPACT_OPTIONS } from '../../../src/engine/compaction/types.ts'
import { messageText } from '../../../src/engine/messages/canonical.ts'
import { parseConversation } from '../../../src/engine/messages/index.ts'
import { countConversation, tokenizerCounter } from '../../../src/engine/tokens/count.ts'
import { createSummarizerClients, type SummarizerProvider } from '../../../src/providers/summarizer-clients.ts'
import { startFakeProvider, type FakeProvider } from '../../fakes/fake-llm-provider.ts'

const KEY = 'sk-test-llm-facts-0123456789abcdef'
const counter = tokenizerCounter('o200k_base')

let seq = 0
function call(name: string, args: Record<string, unknown>, result: string): Record<string, unknown>[] {
  const id = `c${++seq}`
  return [
    { role: 'assistant', content: '', tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] },
    { role: 'tool', tool_call_id: id, content: result },
  ]
}

function session(): Record<string, unknown>[] {
  const m: Record<string, unknown>[] = [{ role: 'system', content: 'You are a coding agent.' }, { role: 'user', content: 'Add CSV export to the billing service.' }]
  m.push(...call('Write', { file_path: 'billing/export.py', content: 'import csv\n'.repeat(40) }, 'File created successfully at billing/export.py'))
  m.push(...call('Edit', { file_path: 'billing/api.py', old_string: 'def routes():', new_string: 'def routes():\n    add("/export", export_csv)' }, 'The file billing/api.py has been updated.'))
  m.push(...call('Bash', { command: 'pytest tests/test_export.py' }, 'FAILED tests/test_export.py::test_euro - UnicodeEncodeError: \'ascii\' codec can\'t encode character \'\\u20ac\'\n1 failed\nExit code 1'))
  m.push({ role: 'user', content: 'Keep the export streaming: never load all invoices in memory.' })
  m.push(...call('TodoWrite', { todos: [{ content: 'Write the export', status: 'completed', activeForm: 'x' }, { content: 'Document the --since flag', status: 'pending', activeForm: 'x' }] }, 'ok'))
  for (let k = 0; k < 30; k++) m.push(...call('Read', { file_path: `billing/models/m${k}.py` }, 'class Model:\n    pass\n'.repeat(60)))
  return m
}

const PROVIDERS: SummarizerProvider[] = ['openai', 'anthropic']
let fake: FakeProvider
t.before(async () => {
  fake = await startFakeProvider({ apiKey: KEY })
})
t.teardown(() => fake.close())

for (const provider of PROVIDERS) {
  t.test(`${provider}: a lossy model summary is completed from the extracted facts, within budget`, async (t) => {
    const config = testConfig({ OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.openaiBaseURL, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: fake.anthropicBaseURL, PROVIDER_MAX_RETRIES: 0 })
    const client = createSummarizerClients(config).get(provider)
    // The model forgets everything but a vague sentence.
    fake.enqueue({ kind: 'ok', content: '## Session Summary (Compaction Round 1)\n### Original Task\nAdd CSV export.\n### Current State\n- Worked on the billing service.' })
    const messages = parseConversation(session(), { format: 'openai' }).messages
    const before = countConversation(messages, counter).totalTokens
    const target = Math.floor(before * 0.3)
    const res = await compact({ messages, counter, llm: llmSummarizer(client), options: { ...DEFAULT_COMPACT_OPTIONS, format: 'openai', targetTokens: target, thresholdTokens: target, strategy: ['llm'] } })
    t.equal(res.strategy, 'llm', 'the model summary was used')
    const text = messageText(res.messages[res.summary!.index]!)
    t.match(text, 'Worked on the billing service.', "the model's own words are kept")
    for (const fact of ['billing/export.py', 'billing/api.py', "UnicodeEncodeError: 'ascii' codec can't encode character", 'test_euro', 'Keep the export streaming: never load all invoices in memory.', 'Document the --since flag']) {
      t.match(text, fact, `kept although the model dropped it: ${fact}`)
    }
    t.match(text, /### Completed Work \(completed from the extracted facts\)/, 'appended in the rules layout')
    t.ok(res.event.tokensAfter <= target, `${res.event.tokensAfter} <= ${target}`)
    const prompt = JSON.stringify(fake.requests.at(-1)!.body)
    t.match(prompt, /Extracted Facts/, 'the model received the extracted facts')
    t.match(prompt, /billing\/export\.py/)
  })
}
