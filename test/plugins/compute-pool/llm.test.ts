/**
 * Issue 18: the llm strategy's CPU work runs in the compute pool. The thread gets a
 * stand-in summarizer client (src/plugins/summarizer-bridge.ts) whose completions the
 * event loop's provider client answers; counting, splitting and fact checks happen on the
 * thread. The result is the one the event loop computes, provider faults arrive as the
 * same fallbacks, and the time a provider takes is not charged to the task's deadline.
 */
import t from 'tap'
import type { Config } from '../../../src/config.ts'
import { startFakeProvider, type FakeProvider } from '../../fakes/fake-llm-provider.ts'
import { buildTestApp } from '../../helpers/build.ts'
import { prose } from '../../helpers/prose.ts'

const MODEL = 'gpt-4o-mini'

async function llmApps(t: { teardown(fn: () => unknown): void }, config: Partial<Config> = {}, fakeOptions: { latencyMs?: number } = {}) {
  const fake: FakeProvider = await startFakeProvider({ apiKey: 'sk-fake-pool-0123456789', ...fakeOptions })
  t.teardown(() => fake.close())
  const providerConfig: Partial<Config> = { OPENAI_API_KEY: fake.apiKey, OPENAI_BASE_URL: fake.openaiBaseURL, SUMMARIZER_OPENAI_MODELS: [MODEL], PROVIDER_MAX_RETRIES: 0, ...config }
  const pooled = await buildTestApp(t, { config: { ...providerConfig, COMPUTE_THREADS: 1, COMPUTE_INLINE_MAX_BYTES: 0 } })
  const inline = await buildTestApp(t, { config: { ...providerConfig, COMPUTE_THREADS: 0 } })
  return { fake, pooled: pooled.app, inline: inline.app }
}

/** A coding session with one 150,000-character tool output in the compacted range: the case. */
function conversation(): { messages: unknown[] } {
  const messages: unknown[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Find why the bundle is so large and fix it.' },
  ]
  for (let k = 0; k < 12; k++) {
    messages.push({ role: 'assistant', content: `Step ${k}.`, tool_calls: [{ id: `c${k}`, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command: `cat dist/chunk-${k}.js` }) } }] })
    messages.push({ role: 'tool', tool_call_id: `c${k}`, content: k === 3 ? 'A'.repeat(150_000) : prose(2500, k + 1) })
  }
  messages.push({ role: 'assistant', content: 'The vendor chunk is inlined twice; next I will dedupe it.' })
  return { messages }
}

/** The response without what differs between two runs of the same compaction (timings and ids). */
function comparable(body: Record<string, any>): unknown {
  const { event, ...rest } = body
  const { durationMs: _d, ...eventRest } = event ?? {}
  return { ...rest, event: eventRest }
}

t.test('an llm compaction runs on a thread and answers what the event loop answers', async (t) => {
  const { fake, pooled, inline } = await llmApps(t)
  const payload = { ...conversation(), model: 'gpt-4o', targetTokens: 6000, strategy: ['llm'], summarizer: { provider: 'openai', model: MODEL } }
  const onThread = await pooled.inject({ method: 'POST', url: '/compact', payload })
  t.equal(onThread.statusCode, 200, onThread.body)
  t.equal(onThread.json().strategy, 'llm', 'summarised by the model, through the bridge')
  t.equal(pooled.compute.stats().completed, 1, 'the compaction ran on a thread')
  t.equal(pooled.compute.stats().inline, 0)
  const calls = fake.requests.length
  t.ok(calls >= 1, 'the provider was called from the event loop')
  const onLoop = await inline.inject({ method: 'POST', url: '/compact', payload })
  t.equal(onLoop.statusCode, 200)
  t.same(comparable(onThread.json()), comparable(onLoop.json()), 'the same summary, messages and event')
  t.equal(fake.requests.length, calls * 2, 'the same provider calls')
})

t.test('a provider fault on a thread is the same fallback as on the event loop', async (t) => {
  const { fake, pooled, inline } = await llmApps(t)
  fake.setDefault({ kind: 'server-error', status: 500 })
  const payload = { ...conversation(), targetTokens: 6000, strategy: ['llm', 'rules'], summarizer: { provider: 'openai', model: MODEL } }
  const onThread = (await pooled.inject({ method: 'POST', url: '/compact', payload })).json()
  const onLoop = (await inline.inject({ method: 'POST', url: '/compact', payload })).json()
  t.equal(onThread.strategy, 'rules')
  t.match(onThread.fallbacks[0].reason, /^server_error:/)
  t.same(comparable(onThread), comparable(onLoop))
})

t.test("a provider's time is not charged to the task's deadline", async (t) => {
  const { pooled } = await llmApps(t, { COMPUTE_DEADLINE_MS: 6_000, PROVIDER_TIMEOUT_MS: 15_000 }, { latencyMs: 6_500 })
  // The thread is up first (its start is the task's time).
  const warm = await pooled.inject({ method: 'POST', url: '/compact', payload: { ...conversation(), targetTokens: 6000, strategy: 'rules' } })
  t.equal(warm.statusCode, 200)
  const started = Date.now()
  const res = await pooled.inject({ method: 'POST', url: '/compact', payload: { ...conversation(), targetTokens: 6000, strategy: ['llm'], summarizer: { provider: 'openai', model: MODEL } } })
  const took = Date.now() - started
  t.equal(res.statusCode, 200, res.body)
  t.equal(res.json().strategy, 'llm')
  t.ok(took > 6_000, `took ${took} ms, past the 6 s deadline, all but the compute in provider calls`)
  t.equal(pooled.compute.stats().deadlineExceeded, 0)
})
