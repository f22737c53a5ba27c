/**
 * The strategy registry (src/engine/compaction/strategies/index.ts): every strategy is one
 * module with a name, a description and its roles; a requested pipeline resolves to the
 * kept form, the action log and the summarizer chain it had before the registry; and every
 * list outside the engine (the route's enum, GET /strategies, the configuration, the CLI's
 * flag, docs/api.md) is the registry's.
 */
import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { loadConfig, testConfig } from '../../../../src/config.ts'
import { LLM_STRATEGY_NAMES, offeredPipelines, offlinePipeline, OFFLINE_STRATEGY_NAMES, pipelineNeedsLlm, resolvePipeline, STRATEGIES, STRATEGY_NAMES, summarizerChain } from '../../../../src/engine/compaction/strategies/index.ts'
import { DEFAULT_COMPACT_OPTIONS, NO_LLM_SUMMARIZER, type FallbackRecord, type Summarizer } from '../../../../src/engine/compaction/types.ts'
import { buildTestApp } from '../../../helpers/build.ts'

const root = path.join(import.meta.dirname, '../../../..')

t.test('each strategy: a unique name, a description, and at least one role', async (t) => {
  // (Checked by inclusion: a new strategy is one more module and one line of the registry.)
  for (const name of ['mask', 'rules', 'llm', 'truncate']) t.ok(STRATEGY_NAMES.includes(name as never), `${name} is registered`)
  t.equal(new Set(STRATEGY_NAMES).size, STRATEGY_NAMES.length, 'no name twice')
  for (const s of STRATEGIES) {
    t.ok(s.description.length > 10, `${s.name} says what it does`)
    t.ok('keep' in s || 'summarizer' in s, `${s.name} keeps turns or summarises them`)
  }
  for (const name of DEFAULT_COMPACT_OPTIONS.strategy) t.ok(STRATEGY_NAMES.includes(name as never), `the default pipeline's ${name} is registered`)
})

t.test('a pipeline resolves to the kept form, the action log and the credited strategies it always had', async (t) => {
  const of = (names: string[]) => {
    const p = resolvePipeline(names)
    return { kept: p.kept?.action ?? 'none', wantsSummary: p.wantsSummary, actionLog: p.actionLog, keptBy: p.keptBy, summaryBy: p.summaryBy }
  }
  // "mask + rules" condenses the kept turns and logs the summarised ones, in either order.
  t.same(of(['mask', 'rules']), { kept: 'condense', wantsSummary: true, actionLog: true, keptBy: 'mask', summaryBy: 'rules' })
  t.same(of(['rules', 'mask']), of(['mask', 'rules']))
  t.same(of(['mask', 'llm', 'rules']), { kept: 'condense', wantsSummary: true, actionLog: true, keptBy: 'mask', summaryBy: 'llm' })
  t.same(of(['mask']), { kept: 'mask', wantsSummary: false, actionLog: false, keptBy: 'mask', summaryBy: 'rules' })
  t.same(of(['mask', 'llm']), { kept: 'mask', wantsSummary: true, actionLog: false, keptBy: 'mask', summaryBy: 'llm' })
  t.same(of(['mask', 'truncate']), { kept: 'mask', wantsSummary: true, actionLog: false, keptBy: 'mask', summaryBy: 'truncate' })
  t.same(of(['rules']), { kept: 'none', wantsSummary: true, actionLog: false, keptBy: 'mask', summaryBy: 'rules' })
  t.same(of(['truncate']), { kept: 'none', wantsSummary: true, actionLog: false, keptBy: 'mask', summaryBy: 'truncate' })
  t.throws(() => resolvePipeline(['magic']), /unknown compaction strategy "magic" \(registered: mask, rules, llm, truncate/)
})

t.test("the summarizer chain: the pipeline's summarizers, then rules and truncate; llm without a model is recorded", async (t) => {
  const names = (chain: Summarizer[]) => chain.map((s) => s.name)
  const model: Summarizer = { name: 'llm', summarize: async () => ({ text: '', keyFacts: {} as never, usage: { inputTokens: 0, outputTokens: 0, calls: 0 } }) }
  let fallbacks: FallbackRecord[] = []
  t.same(names(summarizerChain(['mask', 'llm'], { llm: model }, fallbacks)), ['llm', 'rules', 'truncate'])
  t.same(fallbacks, [])
  t.same(names(summarizerChain(['truncate', 'rules'], {}, fallbacks)), ['truncate', 'rules'])
  t.same(names(summarizerChain(['mask'], {}, fallbacks)), ['rules', 'truncate'])
  t.same(names(summarizerChain(['llm'], {}, fallbacks)), ['rules', 'truncate'])
  t.same(fallbacks, [{ strategy: 'llm', reason: `unavailable: ${NO_LLM_SUMMARIZER}` }])
  fallbacks = []
  summarizerChain(['llm'], { llmUnavailable: 'no key' }, fallbacks)
  t.same(fallbacks, [{ strategy: 'llm', reason: 'unavailable: no key' }])
})

t.test('the menu: the default first, then each strategy as it is usually run, no pipeline twice', async (t) => {
  const offered = offeredPipelines(['mask', 'rules'])
  t.same(offered[0], ['mask', 'rules'])
  for (const p of [['mask'], ['rules'], ['mask', 'llm'], ['truncate']]) t.ok(offered.some((q) => q.join() === p.join()), `offers ${p.join(' + ')}`)
  t.equal(offered.length, STRATEGIES.length + 1, 'the default, then one per strategy')
  t.equal(offeredPipelines(['mask']).length, STRATEGIES.length, 'a default that is one of them is not offered twice')
})

t.test("a session's context runs offline: a strategy that needs a model gives way to rules", async (t) => {
  t.same(offlinePipeline(['mask', 'llm']), ['mask', 'rules'])
  t.same(offlinePipeline(['llm', 'rules']), ['rules'])
  t.same(offlinePipeline(['truncate']), ['truncate'])
  for (const name of ['mask', 'rules', 'truncate']) t.ok(OFFLINE_STRATEGY_NAMES.includes(name as never), `${name} runs offline`)
  t.ok(LLM_STRATEGY_NAMES.includes('llm') && !OFFLINE_STRATEGY_NAMES.includes('llm' as never), 'llm needs a model')
  t.ok(pipelineNeedsLlm(['mask', 'llm']), "a pipeline with llm takes the request's summarizer")
  t.notOk(pipelineNeedsLlm(['mask', 'rules']))
})

t.test("the configuration's defaults and validation are the engine's", async (t) => {
  const config = testConfig()
  t.same(config.COMPACTION_DEFAULT_STRATEGY, DEFAULT_COMPACT_OPTIONS.strategy)
  t.equal(config.COMPACTION_KEEP_RECENT, DEFAULT_COMPACT_OPTIONS.keepRecent)
  t.equal(config.COMPACTION_MAX_SUMMARY_TOKENS, DEFAULT_COMPACT_OPTIONS.maxSummaryTokens)
  t.same(loadConfig({ COMPACTION_DEFAULT_STRATEGY: 'truncate, llm' }).COMPACTION_DEFAULT_STRATEGY, ['truncate', 'llm'])
  t.throws(() => loadConfig({ COMPACTION_DEFAULT_STRATEGY: 'mask,magic' }), /COMPACTION_DEFAULT_STRATEGY="mask,magic"/)
})

t.test('GET /strategies is the registry; POST /compact accepts its names and refuses others', async (t) => {
  const { app } = await buildTestApp(t, { config: { COMPACTION_DEFAULT_STRATEGY: ['mask', 'llm'] } })
  const res = await app.inject({ method: 'GET', url: '/strategies' })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.same(
    body.strategies.map((s: { name: string }) => s.name),
    STRATEGY_NAMES,
  )
  t.same(body.strategies[2], { name: 'llm', description: STRATEGIES[2].description, needsLlm: true, summarizes: true, keeps: false })
  t.same(body.default, ['mask', 'llm'], "the server's configured default")
  t.same(body.pipelines[0], ['mask', 'llm'])
  const messages = [{ role: 'user', content: 'hi' }]
  for (const strategy of STRATEGY_NAMES) t.equal((await app.inject({ method: 'POST', url: '/compact', payload: { messages, strategy } })).statusCode, 200, strategy)
  const refused = await app.inject({ method: 'POST', url: '/compact', payload: { messages, strategy: ['mask', 'magic'] } })
  t.equal(refused.statusCode, 400)
})

t.test('docs/api.md describes every registered strategy', async (t) => {
  const api = fs.readFileSync(path.join(root, 'docs/api.md'), 'utf8')
  const row = api.split('\n').find((l) => l.startsWith('| `strategy` |'))
  t.ok(row, 'the strategy row of the /compact fields')
  for (const s of STRATEGIES) t.match(row, `\`${s.name}\`: `, `${s.name} is in the list`)
})
