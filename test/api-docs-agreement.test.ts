/**
 * Issue 19's "the API and its docs disagree" points, each as the behaviour docs/api.md
 * now describes: a summarizer without the llm strategy is a 400; an llm step without a
 * usable summarizer (none configured, or no key for the provider asked for) falls back
 * with a 200 saying why; an empty import log is invalid_log; /estimate counts for a
 * model whose window the default reserves fill (gpt-4), and /compact, /context, the CLI
 * and the AI SDK helper say what to give instead. (The fifth, a hand-written summary
 * losing its continuation, is test/routes/sessions/summary-manual-edit.test.ts.)
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { PassThrough } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import t from 'tap'
import { compactdPrepareStep } from '../clients/typescript/src/ai-sdk.ts'
import { main } from '../src/cli/compactd/main.ts'
import { buildTestApp } from './helpers/build.ts'
import { toolConversation } from './helpers/session-conversations.ts'

const post = (app: FastifyInstance, url: string, payload: object) => app.inject({ method: 'POST', url, payload })
const paths = (body: { issues?: { path: string }[] }) => (body.issues ?? []).map((i) => i.path)

/** A conversation well over 2,500 tokens: compacting it to 2,500 needs a summary. */
const long = { messages: toolConversation(8), targetTokens: 2500, keepRecent: 2 }

t.test('a summarizer without the llm strategy is a 400 naming body.summarizer', async (t) => {
  const { app } = await buildTestApp(t)
  for (const extra of [{}, { strategy: 'rules' }, { strategy: ['mask', 'truncate'] }]) {
    const res = await post(app, '/compact', { ...long, ...extra, summarizer: { provider: 'openai', model: 'gpt-4.1' } })
    t.equal(res.statusCode, 400, `${JSON.stringify(extra)}: refused, not silently ignored`)
    t.equal(res.json().error, 'validation_error')
    t.same(paths(res.json()), ['body.summarizer'])
    t.match(res.json().message, /only the "llm" strategy uses a summarizer/)
  }
  // With llm in the server's default pipeline, omitting strategy is asking for llm.
  const { app: llmDefault } = await buildTestApp(t, { config: { COMPACTION_DEFAULT_STRATEGY: ['llm', 'rules'] } })
  const res = await post(llmDefault, '/compact', { ...long, summarizer: { provider: 'openai' } })
  t.equal(res.statusCode, 200)
  t.equal(res.json().fallbacks[0].strategy, 'llm')
})

t.test('llm without a usable summarizer falls back with a 200 saying why; a model not allowed stays a 400', async (t) => {
  const { app } = await buildTestApp(t)
  const none = (await post(app, '/compact', { ...long, strategy: 'llm' })).json()
  t.equal(none.strategy, 'rules')
  t.same(none.fallbacks[0], { strategy: 'llm', reason: 'unavailable: no LLM summarizer is configured on this server' })
  // Naming a provider the server has no key for is the same situation: no usable summarizer.
  for (const summarizer of [{ provider: 'openai' }, { provider: 'openai', model: 'gpt-4.1' }, { provider: 'anthropic' }]) {
    const res = await post(app, '/compact', { ...long, strategy: 'llm', summarizer })
    t.equal(res.statusCode, 200, `${JSON.stringify(summarizer)}: falls back, as with no summarizer`)
    t.equal(res.json().strategy, 'rules')
    t.equal(res.json().fallbacks[0].strategy, 'llm')
    const key = summarizer.provider === 'openai' ? 'OPENAI_API_KEY' : 'ANTHROPIC_API_KEY'
    t.equal(res.json().fallbacks[0].reason, `unavailable: summarizer provider "${summarizer.provider}" is not configured on this server (no ${key})`)
  }

  // A server with OpenAI configured (nothing listens at its URL: no call is expected).
  const { app: openai } = await buildTestApp(t, {
    config: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', SUMMARIZER_OPENAI_MODELS: ['gpt-4o-mini'], PROVIDER_MAX_RETRIES: 0 },
  })
  const anthropic = await post(openai, '/compact', { ...long, strategy: ['llm'], summarizer: { provider: 'anthropic' } })
  t.equal(anthropic.statusCode, 200)
  t.match(anthropic.json().fallbacks[0].reason, /^unavailable: summarizer provider "anthropic" is not configured on this server \(no ANTHROPIC_API_KEY\); available: openai$/)
  const model = await post(openai, '/compact', { ...long, strategy: ['llm'], summarizer: { provider: 'openai', model: 'gpt-4.1' } })
  t.equal(model.statusCode, 400, 'a model the server does not allow is the caller\'s mistake')
  t.equal(model.json().error, 'invalid_summarizer')
  t.same(paths(model.json()), ['body.summarizer.model'])
  t.match(model.json().message, /allowed: gpt-4o-mini/)
  const unknown = await post(openai, '/compact', { ...long, strategy: ['llm'], summarizer: { provider: 'mistral' } })
  t.equal(unknown.statusCode, 400, 'a malformed summarizer stays a 400')
  t.same(paths(unknown.json()), ['body.summarizer.provider'])
})

t.test('an empty import log is invalid_log naming body.log', async (t) => {
  const { app } = await buildTestApp(t)
  for (const log of ['', ' \n\t\n']) {
    const res = await post(app, '/import', { log })
    t.equal(res.statusCode, 400)
    t.equal(res.json().error, 'invalid_log', `${JSON.stringify(log)}: invalid_log, as documented`)
    t.same(paths(res.json()), ['body.log'])
    t.match(res.json().message, /the log is empty/)
  }
})

t.test('gpt-4 (8,192 tokens < the default reserves): /estimate counts; /compact, /context and the CLI say what to give', async (t) => {
  const { app } = await buildTestApp(t)
  const messages = [{ role: 'user', content: 'Fix the failing test in src/db.ts' }]
  const res = await post(app, '/estimate', { messages, model: 'gpt-4' })
  t.equal(res.statusCode, 200, 'counting needs no window')
  const body = res.json()
  t.equal(body.contextLimit, 8192)
  t.equal(body.threshold, 0)
  t.equal(body.shouldCompact, true, 'any conversation is over a threshold of 0')
  t.match(body.thresholdNote, /window of 8192 tokens, smaller than the server's default reserves .*systemReserve 2000 .*outputReserve 4000 .*safetyBuffer 5000/)
  t.match(body.thresholdNote, /targetTokens/)
  const roomy = (await post(app, '/estimate', { messages, model: 'gpt-4', systemReserve: 500, outputReserve: 1000, safetyBuffer: 500 })).json()
  t.equal(roomy.totalTokens, body.totalTokens, 'the same count')
  t.ok(roomy.threshold > 0)
  t.notOk('thresholdNote' in roomy)
  // A thresholdPercent with the default reserves is not what leaves no room.
  const percent = await post(app, '/estimate', { messages, model: 'gpt-4', thresholdPercent: 0.9 })
  t.equal(percent.statusCode, 200)
  t.equal(percent.json().threshold, 0)

  // /compact needs a target: without one, a 400 naming the model and targetTokens.
  const compact = await post(app, '/compact', { messages, model: 'gpt-4' })
  t.equal(compact.statusCode, 400)
  t.same(paths(compact.json()), ['body.model', 'body.targetTokens'])
  t.match(compact.json().message, /give targetTokens/)
  t.equal((await post(app, '/compact', { messages, model: 'gpt-4', targetTokens: 4000 })).statusCode, 200)
  t.equal((await post(app, '/compact', { messages, model: 'gpt-4', targetTokens: 4000, thresholdPercent: 0.9 })).statusCode, 200)

  // A session's context needs a budget the same way.
  await app.inject({ method: 'PUT', url: '/sessions/small-window', payload: { model: 'gpt-4' } })
  await post(app, '/sessions/small-window/messages', { messages })
  const context = await app.inject({ method: 'GET', url: '/sessions/small-window/context' })
  t.equal(context.statusCode, 400)
  t.same(paths(context.json()), ['querystring.budget'])
  t.match(context.json().message, /"gpt-4".*give \?budget=N/)
  t.equal((await app.inject({ method: 'GET', url: '/sessions/small-window/context?budget=4000' })).statusCode, 200)

  // The CLI, in-process: the count, and the note instead of "compact now".
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'compactd-gpt4-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  const file = path.join(dir, 'messages.json')
  fs.writeFileSync(file, JSON.stringify(messages))
  const stdout = new PassThrough()
  const stderr = new PassThrough()
  let out = ''
  stdout.on('data', (c: Buffer) => (out += c))
  const code = await main(['estimate', file, '--model', 'gpt-4', '--local'], { stdin: new PassThrough(), stdout, stderr })
  t.equal(code, 0)
  t.match(out, new RegExp(`^${body.totalTokens} tokens in 1 messages \\(gpt-4; tokenizer cl100k_base\\)\\ncontext 8,192, compaction threshold 0: the model "gpt-4" has a window of 8192 tokens`))

  // The AI SDK helper reports the note, rather than asking /compact for a 1-token target.
  await app.listen({ port: 0, host: '127.0.0.1' })
  const errors: unknown[] = []
  const step = compactdPrepareStep({ client: { baseUrl: `http://127.0.0.1:${(app.server.address() as { port: number }).port}` }, model: 'gpt-4', onError: (err) => errors.push(err) })
  t.equal(await step({ messages: [{ role: 'user', content: 'Fix the failing test in src/db.ts' }], stepNumber: 0, model: 'gpt-4', steps: [] } as never), undefined, 'the step runs as it is')
  t.equal(errors.length, 1)
  t.match((errors[0] as Error).message, /window of 8192 tokens, smaller than the server's default reserves/)
})
