/**
 * The default pipeline follows whether a summarizer is configured (issue 22), against the
 * fake provider with the real SDK (src/use-cases/compact/compute.ts, src/config.ts
 * defaultPipeline): with a provider key a request that names no strategy runs mask → llm →
 * rules, the model gets the handover's sections to write and the extracted facts, its
 * summary keeps the facts-check appendix, and a provider failure falls back to rules;
 * without a key it stays offline and no provider is asked.
 */
import t from 'tap'
import { defaultPipeline, LLM_DEFAULT_PIPELINE, testConfig } from '../../../src/config.ts'
import { HANDOVER_SECTIONS } from '../../../src/engine/compaction/prompts.ts'
import { llmSummarizer } from '../../../src/engine/compaction/summarizers/llm.ts'
import { createSummarizerClients } from '../../../src/providers/summarizer-clients.ts'
import { checkedSummarizer, computeCompaction, type CompactRequest } from '../../../src/use-cases/compact/compute.ts'
import { startFakeProvider } from '../../fakes/fake-llm-provider.ts'
import { applyPatchSession, mixedDecisions } from '../../helpers/handover-conversations.ts'

const fake = await startFakeProvider()
t.teardown(() => fake.close())
const withKey = testConfig({ OPENAI_API_KEY: fake.apiKey, OPENAI_BASE_URL: fake.openaiBaseURL, SUMMARIZER_OPENAI_MODELS: ['gpt-4o-mini'], PROVIDER_MAX_RETRIES: 0, PROVIDER_TIMEOUT_MS: 5_000 })
const request: CompactRequest = { messages: mixedDecisions() as CompactRequest['messages'], targetTokens: 3_000 }

const generations = () => fake.requests.filter((r) => r.route === 'chat.completions')
const promptOf = (body: { messages: { role: string; content: string }[] }) => body.messages.filter((m) => m.role === 'user').at(-1)!.content

async function run(config = withKey) {
  const client = checkedSummarizer(config, createSummarizerClients(config), request)
  return computeCompaction(config, { request }, client ? { llm: llmSummarizer(client) } : {})
}

t.test('the default pipeline: mask → llm → rules with a provider key, offline without one, as set when set', async (t) => {
  t.same(withKey.COMPACTION_DEFAULT_STRATEGY, LLM_DEFAULT_PIPELINE)
  t.same(testConfig().COMPACTION_DEFAULT_STRATEGY, ['mask', 'rules'])
  t.same(testConfig({ ANTHROPIC_API_KEY: 'k' }).COMPACTION_DEFAULT_STRATEGY, LLM_DEFAULT_PIPELINE, 'an Anthropic key too')
  t.same(testConfig({ OPENAI_API_KEY: 'k', COMPACTION_DEFAULT_STRATEGY: ['mask', 'rules'] }).COMPACTION_DEFAULT_STRATEGY, ['mask', 'rules'], 'an explicit setting wins')
  t.same(defaultPipeline({ OPENAI_API_KEY: undefined, ANTHROPIC_API_KEY: undefined }), ['mask', 'rules'])
})

t.test('with a key and no strategy: the model writes the handover, asked for every section, with the facts', async (t) => {
  fake.reset()
  const { response } = await run()
  t.equal(response.strategy, 'llm')
  t.same(response.fallbacks, [])
  t.equal(generations().length, 1, 'one call to the provider')
  const prompt = promptOf(generations()[0]!.body as never)
  for (const section of HANDOVER_SECTIONS) t.match(prompt, `### ${section}\n`, `the prompt asks for ${section}`)
  t.match(prompt, /every user message that set a constraint/i)
  t.match(prompt, /what was learned/i, 'findings')
  t.match(prompt, /with its reason/i, 'decisions with their reasons')
  t.match(prompt, /## Extracted Facts\n/, 'the extracted facts are sent')
  // The fake model's summary does not carry the session's files: the facts-check appends them.
  t.match(response.summary!.text, /\(completed from the extracted facts\)/, 'the facts-check appendix')
})

t.test('a provider failure falls back to rules, and says why', async (t) => {
  fake.reset()
  fake.setDefault({ kind: 'server-error', status: 500 })
  t.teardown(() => fake.setDefault({ kind: 'ok' }))
  const { response } = await run()
  t.equal(response.strategy, 'rules')
  t.equal(response.fallbacks.length, 1)
  t.match(response.fallbacks[0], { strategy: 'llm', reason: /^server_error/ })
  t.match(response.summary!.text, /^## Session Summary \(Compaction Round 1\)/)
})

t.test('without a key: offline, no provider asked', async (t) => {
  fake.reset()
  const { response } = await run(testConfig())
  t.equal(response.strategy, 'rules')
  t.same(response.fallbacks, [])
  t.equal(generations().length, 0)
})

t.test("the default recent window has a share of the target; a caller's keepRecent or keepRecentTokens is kept whenever it fits", async (t) => {
  const offline = testConfig()
  const messages = applyPatchSession() as CompactRequest['messages']
  const tailOf = (response: { messages: unknown[] }) => {
    const at = response.messages.findIndex((m) => JSON.stringify(m).includes('Session Summary'))
    return response.messages.slice(at + 1)
  }
  const compactWith = async (extra: Partial<CompactRequest>) => (await computeCompaction(offline, { request: { messages, targetTokens: 480, strategy: ['mask', 'rules'], ...extra } })).response
  const byDefault = await compactWith({})
  const explicit = await compactWith({ keepRecent: 10 })
  const byTokens = await compactWith({ keepRecentTokens: 300 })
  t.ok(tailOf(byDefault).length < 11, `the default window shrank to leave the summary room (${tailOf(byDefault).length} messages)`)
  t.match(byDefault.summary?.text, 'go.mod')
  t.same(tailOf(explicit), messages.slice(-11), 'keepRecent: 10 given: the ten messages (and the call they answer) verbatim')
  t.same(tailOf(byTokens), tailOf(explicit), 'keepRecentTokens given: the same')
})
