/**
 * The llm summarizer (src/engine/compaction/summarizers/llm.ts) and its provider clients
 * (src/providers/summarizer-clients.ts), against the fake provider with the REAL SDKs:
 * valid summaries, prompt contents, every fault kind, key redaction, map-reduce under a
 * small context window, and summarizer selection.
 */
import t from 'tap'
import { testConfig, type Config } from '../../../../src/config.ts'
import { buildSummaryPrompt, formatMessagesForSummary } from '../../../../src/engine/compaction/prompts.ts'
import { llmSummarizer, normaliseSummary } from '../../../../src/engine/compaction/summarizers/llm.ts'
import { computeUnits } from '../../../../src/engine/conversation/pairing.ts'
import { extractHandover } from '../../../../src/engine/facts/handover.ts'
import { detectSummaryRound, keyFactsFromSummary, parseSummarySections, summaryHeader } from '../../../../src/engine/compaction/summary-format.ts'
import { SummarizerError, type SummaryRequest } from '../../../../src/engine/compaction/types.ts'
import { parseConversation, type CanonicalMessage } from '../../../../src/engine/messages/index.ts'
import { tokenizerCounter } from '../../../../src/engine/tokens/count.ts'
import { createSummarizerClients, SummarizerSelectionError, type SummarizerProvider } from '../../../../src/providers/summarizer-clients.ts'
import { startFakeProvider, type FakeProvider } from '../../../fakes/fake-llm-provider.ts'
import { prose as sharedProse } from '../../../helpers/prose.ts'

const KEY = 'sk-test-9f8e7d6c5b4a3928170654321'
const TASK = 'Build a flashcard CLI with spaced repetition in src/cli.ts, persisted with SQLite.'
const PROVIDERS: SummarizerProvider[] = ['openai', 'anthropic']
const counter = tokenizerCounter('o200k_base')

// ---------------------------------------------------------------------------
// Conversation helpers (OpenAI format, parsed to canonical messages)
// ---------------------------------------------------------------------------

const WORDS =
  'the review queue stores each card with its ease factor and interval so that the scheduler can decide which cards are due today while the command prints a short report about progress errors and next actions for the learner'.split(' ')

/** Deterministic English-like prose of about `chars` characters. */
const prose = (chars: number, seed: number) => sharedProse(chars, seed, { words: WORDS, offset: 1, end: '.' })

type OpenAIMessage = Record<string, unknown>

function toolTurn(k: number, path: string, resultChars: number): OpenAIMessage[] {
  const id = `call_${k}`
  return [
    { role: 'assistant', content: `Step ${k}: reading ${path}.`, tool_calls: [{ id, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path }) } }] },
    { role: 'tool', tool_call_id: id, content: prose(resultChars, k) },
  ]
}

/** A small session: tool calls, an error, a follow-up request and a next step. */
function smallSession(): CanonicalMessage[] {
  const raw: OpenAIMessage[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: TASK },
    ...toolTurn(1, 'src/cli.ts', 400),
    ...toolTurn(2, 'src/db/schema.ts', 400),
    { role: 'assistant', content: 'Running the tests.', tool_calls: [{ id: 'call_t', type: 'function', function: { name: 'bash', arguments: '{"cmd":"npm test"}' } }] },
    { role: 'tool', tool_call_id: 'call_t', content: 'Error: Cannot find module src/sm2.ts' },
    { role: 'user', content: 'Also add a --due flag that lists cards due today.' },
    { role: 'assistant', content: 'Created src/sm2.ts with the SM-2 algorithm. Next step: add the --due flag.' },
  ]
  return parseConversation(raw, { format: 'openai' }).messages.slice(2)
}

/** A long session (~40k tokens): many tool turns, and one turn with many parallel calls. */
function longSession(): CanonicalMessage[] {
  const raw: OpenAIMessage[] = [{ role: 'system', content: 'You are a coding agent.' }, { role: 'user', content: TASK }]
  for (let k = 1; k <= 90; k++) {
    raw.push(...toolTurn(k, `src/module${k % 6}.ts`, 1700))
    if (k % 30 === 0) raw.push({ role: 'user', content: `Checkpoint ${k}: keep going, and keep the CLI output short.` })
  }
  // Ten parallel calls answered together: one unit bigger than any chunk of a small window.
  const calls = Array.from({ length: 10 }, (_, i) => ({ id: `par_${i}`, type: 'function', function: { name: 'grep', arguments: JSON.stringify({ q: `due${i}` }) } }))
  raw.push({ role: 'assistant', content: 'Searching in parallel.', tool_calls: calls })
  for (let i = 0; i < 10; i++) raw.push({ role: 'tool', tool_call_id: `par_${i}`, content: prose(1900, 100 + i) })
  raw.push({ role: 'assistant', content: 'All searches done.' })
  return parseConversation(raw, { format: 'openai' }).messages.slice(2)
}

function request(messages: CanonicalMessage[], over: Partial<SummaryRequest> = {}): SummaryRequest {
  return {
    messages,
    facts: extractHandover(messages, { preserveErrorDetails: true }),
    originalTask: TASK,
    round: 2,
    budgetTokens: 800,
    counter,
    preserveErrorDetails: true,
    instructionsMode: 'append',
    ...over,
  }
}

function config(fake: FakeProvider, over: Partial<Config> = {}): Config {
  return testConfig({
    OPENAI_API_KEY: KEY,
    OPENAI_BASE_URL: fake.openaiBaseURL,
    ANTHROPIC_API_KEY: KEY,
    ANTHROPIC_BASE_URL: fake.anthropicBaseURL,
    PROVIDER_TIMEOUT_MS: 2_000,
    PROVIDER_MAX_RETRIES: 1,
    ...over,
  })
}

/** The user prompt text a generation request carried. */
function promptOf(body: any): string {
  const msgs: any[] = body.messages
  const user = msgs.filter((m) => m.role === 'user').at(-1)
  return typeof user.content === 'string' ? user.content : user.content.map((p: any) => p.text).join('')
}

function generations(fake: FakeProvider) {
  return fake.requests.filter((r) => r.route === 'chat.completions' || r.route === 'messages')
}

async function rejection(p: Promise<unknown>): Promise<SummarizerError> {
  try {
    await p
  } catch (err) {
    if (err instanceof SummarizerError) return err
    throw new Error(`expected a SummarizerError, got ${String(err)}`)
  }
  throw new Error('expected a rejection')
}

function occurrences(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1
}

let fake: FakeProvider
t.before(async () => {
  fake = await startFakeProvider({ apiKey: KEY })
})
t.beforeEach(() => fake.reset())
t.teardown(() => fake.close())

// ---------------------------------------------------------------------------
// Pure parts
// ---------------------------------------------------------------------------

t.test('summary format: header, sections, key facts', async (t) => {
  t.equal(summaryHeader(3), '## Session Summary (Compaction Round 3)')
  t.equal(detectSummaryRound('  ### Session Summary (Compaction Round 12)\nx'), 12)
  t.equal(detectSummaryRound('text\n## Session Summary (Compaction Round 2)'), undefined)
  const text = [
    '## Session Summary (Compaction Round 2)',
    '### Original Task',
    TASK,
    '### Completed Work',
    '| File/Component | Action | Description |',
    '|----------------|--------|-------------|',
    '| src/db.ts | Created | SQLite schema |',
    '| package.json | Modified | Added deps |',
    '#### Key Technical Decisions',
    '- Using Drizzle ORM',
    '### Current State',
    '- Working on: AI integration',
    '- Last completed: SM-2 in `src/sm2.ts`',
    '### Pending Work',
    '- [ ] Review command',
    '### Errors and Resolutions',
    '- TS error in src/sm2.ts → added types',
  ].join('\n')
  const parsed = parseSummarySections(text)
  t.equal(parsed.round, 2)
  t.same([...parsed.sections.keys()], ['original task', 'completed work', 'key technical decisions', 'current state', 'pending work', 'errors & resolutions'])
  const facts = keyFactsFromSummary(text, TASK)
  t.equal(facts.currentTask, 'AI integration')
  t.same(facts.completedSteps, ['src/db.ts — Created — SQLite schema', 'package.json — Modified — Added deps'])
  t.same(facts.pendingSteps, ['Review command'])
  t.same(facts.keyDecisions, ['Using Drizzle ORM'])
  t.same(facts.errors, ['TS error in src/sm2.ts → added types'])
  for (const f of ['src/db.ts', 'package.json', 'src/sm2.ts', 'src/cli.ts']) t.ok(facts.relevantFiles.includes(f), `file ${f}`)
  t.same(facts.userRequests, [])
  t.equal(keyFactsFromSummary('## Session Summary (Compaction Round 1)\n### Current State\n- idle', TASK).currentTask, TASK)

  t.equal(normaliseSummary('Here it is:\n\n### Session Summary (Compaction Round 7)\n### Original Task\nx', 3), '## Session Summary (Compaction Round 3)\n### Original Task\nx')
  t.equal(normaliseSummary('### Original Task\nx', 4), '## Session Summary (Compaction Round 4)\n\n### Original Task\nx')
  t.equal(normaliseSummary('  \n ', 4), undefined)
})

t.test('prompt: previous summary integrated once, instructions replace vs append, message rendering', async (t) => {
  const previous = '## Session Summary (Compaction Round 1)\n### Original Task\nPREVIOUS-MARKER-42'
  const base = { formattedMessages: 'M', originalTask: TASK, round: 2, maxTokens: 640 }
  const withPrev = buildSummaryPrompt({ ...base, previousSummary: previous, instructionsMode: 'append' })
  t.equal(occurrences(withPrev.prompt, 'PREVIOUS-MARKER-42'), 1)
  t.match(withPrev.prompt, /INTEGRATE \(don't duplicate\)/)
  t.match(withPrev.prompt, /## Previous Summary\n## Session Summary \(Compaction Round 1\)/)
  t.match(withPrev.prompt, /Maximum 640 tokens/)
  t.match(withPrev.system, /Missing information cannot be recovered/)

  const replaced = buildSummaryPrompt({ ...base, instructions: 'List only the files, one per line.', instructionsMode: 'replace' })
  t.notMatch(replaced.prompt, /Create a summary with these EXACT sections/)
  t.match(replaced.prompt, /## Instructions\nList only the files, one per line\./)
  for (const s of ['## Previous Summary', '## Original User Task', '## Messages to Summarize']) t.ok(replaced.prompt.includes(s), s)
  const appended = buildSummaryPrompt({ ...base, instructions: 'Focus on the database.', instructionsMode: 'append' })
  t.match(appended.prompt, /Create a summary with these EXACT sections/)
  t.match(appended.prompt, /## Additional focus\nFocus on the database\./)

  const messages = smallSession()
  const text = formatMessagesForSummary(messages, 300)
  t.match(text, /\[0\] ASSISTANT:\nStep 1: reading src\/cli\.ts\.\n\[tool call read_file\(\{"path":"src\/cli\.ts"\}\)\]/)
  t.match(text, /\[1\] TOOL:\n\[result of read_file: /)
  t.match(text, /\[\.\.\. \d+ characters truncated \.\.\.\]/)
  t.match(formatMessagesForSummary(messages, 0), /\[result of bash: Error: Cannot find module src\/sm2\.ts\]/)

  // Tool calls and their results stay in one unit.
  const long = longSession()
  const units = computeUnits(long).map((u) => Array.from({ length: u.end - u.start + 1 }, (_, k) => u.start + k))
  t.same(units.flat(), long.map((_, i) => i), 'units cover every message once, in order')
  const parallel = units.find((u) => u.length === 11)
  t.ok(parallel, 'ten parallel calls and their results form one unit')
})

// ---------------------------------------------------------------------------
// Against the fake provider
// ---------------------------------------------------------------------------

for (const provider of PROVIDERS) {
  t.test(`${provider}: a valid round-2 summary with key facts`, async (t) => {
    const registry = createSummarizerClients(config(fake))
    const client = registry.get(provider)
    const summarizer = llmSummarizer(client)
    t.equal(summarizer.name, 'llm')
    const result = await summarizer.summarize(request(smallSession()))
    t.ok(result.text.startsWith('## Session Summary (Compaction Round 2)\n'), 'round header')
    t.equal(result.usage.calls, 1)
    t.ok(result.usage.inputTokens > 0 && result.usage.outputTokens > 0, 'usage from the provider')
    t.equal(result.usage.inputTokens, generations(fake)[0].inputTokens)
    t.equal(result.model, provider === 'openai' ? 'gpt-4o-mini' : 'claude-haiku-4-5')
    t.ok(result.keyFacts.relevantFiles.includes('src/db/schema.ts'), 'files from the summary')
    t.ok(result.keyFacts.errors.some((e) => e.includes('Cannot find module')), 'errors')
    t.ok(result.keyFacts.pendingSteps.some((s) => s.includes('--due')), 'pending steps')
    t.ok(result.keyFacts.keyDecisions.length > 0, 'decisions')
    t.same(result.keyFacts.userRequests, ['Also add a --due flag that lists cards due today.'])
    t.equal(result.keyFacts.currentTask, TASK)

    const [req] = generations(fake)
    t.equal(req.status, 200)
    if (provider === 'openai') {
      t.equal(req.path, '/v1/chat/completions')
      t.equal(req.body.max_tokens, 800, 'max_tokens = budget')
      t.equal(req.body.temperature, 0.3)
      t.equal(req.body.messages[0].role, 'system')
    } else {
      t.equal(req.path, '/v1/messages')
      t.equal(req.body.max_tokens, 800, 'max_tokens = budget')
      t.match(req.body.system, /coding agent's conversation history/)
    }
    const prompt = promptOf(req.body)
    t.match(prompt, /## Messages to Summarize\n/)
    t.match(prompt, /### Session Summary|## Session Summary \(Compaction Round 2\)/)
    t.match(prompt, /Maximum 640 tokens/, 'asks for 80% of the cap')
  })

  t.test(`${provider}: previous summary in the prompt once, integrated; header fixed`, async (t) => {
    const client = createSummarizerClients(config(fake)).get(provider)
    const previous = { round: 1, index: 1, text: '## Session Summary (Compaction Round 1)\n### Original Task\nPREV-UNIQUE-7731\n### Pending Work\n- [ ] older item' }
    fake.enqueue({ kind: 'ok', content: 'Sure.\n### Session Summary (Compaction Round 9)\n### Original Task\nx\n### Pending Work\n- [ ] older item' })
    const result = await llmSummarizer(client).summarize(request(smallSession(), { previousSummary: previous, round: 2 }))
    t.ok(result.text.startsWith('## Session Summary (Compaction Round 2)\n'), 'wrong round replaced, preamble dropped')
    t.same(result.keyFacts.pendingSteps, ['older item'])
    const prompt = promptOf(fake.requests[0].body)
    t.equal(occurrences(prompt, 'PREV-UNIQUE-7731'), 1, 'previous summary once')
    t.match(prompt, /INTEGRATE \(don't duplicate\)/)

    fake.enqueue({ kind: 'ok', content: '### Original Task\nx\n### Current State\n- Working on: tests' })
    const prepended = await llmSummarizer(client).summarize(request(smallSession(), { round: 5 }))
    t.ok(prepended.text.startsWith('## Session Summary (Compaction Round 5)\n\n### Original Task\nx\n### Current State\n- Working on: tests'), 'header prepended to the model text')
    t.match(prepended.text, /\(completed from the extracted facts\)/, 'what the model dropped of the extracted facts is appended')
    t.equal(prepended.keyFacts.currentTask, 'tests')
  })

  t.test(`${provider}: instructions replace vs append`, async (t) => {
    const client = createSummarizerClients(config(fake)).get(provider)
    await llmSummarizer(client).summarize(request(smallSession(), { instructions: 'Only list files and their state.', instructionsMode: 'replace' }))
    await llmSummarizer(client).summarize(request(smallSession(), { instructions: 'Focus on the CLI flags.', instructionsMode: 'append' }))
    const [replaced, appended] = generations(fake).map((r) => promptOf(r.body))
    t.notMatch(replaced, /Create a summary with these EXACT sections/)
    t.match(replaced, /## Instructions\nOnly list files and their state\./)
    t.match(replaced, /## Messages to Summarize\n/)
    t.match(appended, /Create a summary with these EXACT sections/)
    t.match(appended, /## Additional focus\nFocus on the CLI flags\./)
  })

  t.test(`${provider}: every fault maps to its SummarizerError kind, without the key`, async (t) => {
    const client = createSummarizerClients(config(fake, { PROVIDER_TIMEOUT_MS: 300 })).get(provider)
    const summarizer = llmSummarizer(client)
    const cases: { name: string; setup: () => void; kind: string; requests?: number; req?: Partial<SummaryRequest> }[] = [
      { name: '429, retries exhausted', setup: () => fake.enqueue({ kind: 'rate-limit', retryAfterMs: 5 }, { kind: 'rate-limit', retryAfterMs: 5 }), kind: 'rate_limited', requests: 2 },
      { name: '500', setup: () => fake.enqueue({ kind: 'server-error' }, { kind: 'server-error' }), kind: 'server_error', requests: 2 },
      { name: 'timeout', setup: () => fake.enqueue({ kind: 'timeout' }, { kind: 'timeout' }), kind: 'timeout', requests: 2 },
      { name: 'disconnect', setup: () => fake.enqueue({ kind: 'disconnect' }, { kind: 'disconnect' }), kind: 'unreachable' },
      { name: 'malformed JSON', setup: () => fake.enqueue({ kind: 'malformed-json' }), kind: 'malformed', requests: 1 },
      { name: 'empty output', setup: () => fake.enqueue({ kind: 'empty' }), kind: 'empty' },
      {
        name: 'over budget (cut at max_tokens)',
        setup: () => fake.enqueue({ kind: 'ok', content: `## Session Summary (Compaction Round 2)\n### Original Task\nx\n### Current State\n${prose(8000, 3)}` }),
        kind: 'over_budget',
      },
      {
        name: 'over budget (by our count, not cut)',
        // Dense text: under max_tokens*4 characters for the fake, far over 300 tokens for o200k.
        setup: () => fake.enqueue({ kind: 'ok', content: `### Original Task\nx\n### Current State\n${Array.from({ length: 150 }, (_, i) => `${(i * 7919) % 997}`).join(',')}` }),
        kind: 'over_budget',
        req: { budgetTokens: 300 },
      },
      { name: 'content without sections', setup: () => fake.enqueue({ kind: 'ok', content: 'I summarised the conversation: things went fine.' }), kind: 'malformed' },
      {
        name: 'provider context overflow',
        setup: () =>
          fake.enqueue({ kind: 'http-error', status: 400, code: 'context_length_exceeded', message: 'prompt is too long: 300000 tokens > 200000 maximum' }),
        kind: 'context_overflow',
      },
      { name: 'other 4xx', setup: () => fake.enqueue({ kind: 'http-error', status: 404, message: `model not found (key ${KEY})` }), kind: 'bad_request' },
    ]
    for (const c of cases) {
      fake.reset()
      c.setup()
      const err = await rejection(summarizer.summarize(request(smallSession(), c.req)))
      t.equal(err.kind, c.kind, `${c.name} → ${c.kind} (${err.message})`)
      t.notOk(err.message.includes(KEY), `${c.name}: no key in the message`)
      if (c.requests !== undefined) t.equal(generations(fake).length, c.requests, `${c.name}: ${c.requests} request(s) sent`)
    }

    // Wrong key: 401 → auth, and neither key appears.
    const wrong = 'sk-wrong-0123456789abcdef0123'
    const bad = createSummarizerClients(config(fake, { OPENAI_API_KEY: wrong, ANTHROPIC_API_KEY: wrong })).get(provider)
    const err = await rejection(llmSummarizer(bad).summarize(request(smallSession())))
    t.equal(err.kind, 'auth')
    t.notOk(err.message.includes(wrong) || err.message.includes(KEY), 'no key in the auth error')

    // Aborting the caller's signal stops a hanging call.
    fake.reset()
    fake.enqueue({ kind: 'timeout' })
    const ac = new AbortController()
    setTimeout(() => ac.abort(), 50)
    const slow = createSummarizerClients(config(fake, { PROVIDER_TIMEOUT_MS: 10_000 })).get(provider)
    const aborted = await rejection(llmSummarizer(slow).summarize(request(smallSession(), { signal: ac.signal })))
    t.equal(aborted.kind, 'aborted')
  })
}

t.test('map-reduce under a 3000-token window: several calls, none over the window', async (t) => {
  const small = await startFakeProvider({ apiKey: KEY, contextWindow: 3000, contextWindowIncludesMaxTokens: true })
  t.teardown(() => small.close())
  const cfg = config(small, { SUMMARIZER_CONTEXT_LIMIT: 3000, SUMMARIZER_OPENAI_MODELS: ['fake-summarizer'], PROVIDER_MAX_RETRIES: 0 })
  const registry = createSummarizerClients(cfg)
  const messages = longSession()
  const previous = { round: 1, index: 1, text: '## Session Summary (Compaction Round 1)\n### Original Task\nPREV-MR-1\n### Pending Work\n- [ ] wire the CLI' }
  for (const provider of PROVIDERS) {
    small.reset()
    const client = registry.get(provider)
    t.equal(client.contextLimit, 3000)
    const size = client.countTokens(formatMessagesForSummary(messages, 0))
    t.ok(size > 35_000, `the conversation is large (${size} tokens)`)

    const result = await llmSummarizer(client).summarize(request(messages, { budgetTokens: 600, previousSummary: previous }))
    const reqs = generations(small)
    t.ok(result.text.startsWith('## Session Summary (Compaction Round 2)\n'), `${provider}: round header`)
    t.ok(result.usage.calls > 1, `${provider}: ${result.usage.calls} calls`)
    t.equal(result.usage.calls, reqs.length, 'every call counted')
    t.equal(result.usage.inputTokens, reqs.reduce((n, r) => n + (r.inputTokens ?? 0), 0), 'input usage summed')
    t.ok(result.usage.outputTokens > 0)
    for (const r of reqs) {
      const maxTokens = r.body.max_tokens ?? r.body.max_completion_tokens
      t.equal(r.status, 200, `${provider}: request accepted`)
      t.ok((r.inputTokens ?? Infinity) + maxTokens <= 3000, `${provider}: ${r.inputTokens} + ${maxTokens} <= 3000`)
    }
    const prompts = reqs.map((r) => promptOf(r.body))
    t.ok(prompts.some((p) => p.includes('## Partial Summaries to Combine')), 'partials were combined')
    const asPrevious = /## Previous Summary\n## Session Summary \(Compaction Round 1\)\n### Original Task\nPREV-MR-1/
    t.equal(prompts.filter((p) => asPrevious.test(p)).length, 1, 'previous summary sent once, to a combine call')
    t.notOk(prompts.some((p) => p.includes('## Messages to Summarize') && p.includes('PREV-MR-1')), 'not to a map call')
    t.same(result.keyFacts.userRequests.length, 3, 'verbatim user requests')
  }
})

t.test('selection: providers and models come from configuration only', async (t) => {
  const onlyOpenAI = createSummarizerClients(
    testConfig({ OPENAI_API_KEY: KEY, SUMMARIZER_OPENAI_MODELS: ['gpt-4o-mini', 'gpt-4.1-mini'], SUMMARIZER_DEFAULT_PROVIDER: 'anthropic' }),
  )
  t.equal(onlyOpenAI.defaultProvider, 'openai', 'an unconfigured default falls back to the first configured')
  t.same(onlyOpenAI.available(), [{ provider: 'openai', models: ['gpt-4o-mini', 'gpt-4.1-mini'] }])
  t.equal(onlyOpenAI.get().model, 'gpt-4o-mini')
  t.equal(onlyOpenAI.get('openai', 'gpt-4.1-mini').contextLimit, 1_047_576)
  t.equal(onlyOpenAI.get('openai'), onlyOpenAI.get('openai', 'gpt-4o-mini'), 'clients are reused')

  const selection = (fn: () => unknown): SummarizerSelectionError => {
    try {
      fn()
    } catch (err) {
      if (err instanceof SummarizerSelectionError) return err
      throw err
    }
    throw new Error('expected a SummarizerSelectionError')
  }
  const e1 = selection(() => onlyOpenAI.get('anthropic'))
  t.equal(e1.field, 'provider')
  t.match(e1.message, /not configured/)
  const e2 = selection(() => onlyOpenAI.get('openai', 'gpt-4o'))
  t.equal(e2.field, 'model')
  t.match(e2.message, /allowed: gpt-4o-mini, gpt-4\.1-mini/)
  t.equal(selection(() => onlyOpenAI.get('mistral')).field, 'provider')
  t.equal(selection(() => createSummarizerClients(testConfig({})).get()).field, 'provider')

  const both = createSummarizerClients(testConfig({ OPENAI_API_KEY: KEY, ANTHROPIC_API_KEY: KEY, SUMMARIZER_DEFAULT_PROVIDER: 'anthropic', SUMMARIZER_CONTEXT_LIMIT: 32_768 }))
  t.equal(both.get().provider, 'anthropic')
  t.equal(both.get().contextLimit, 32_768, 'SUMMARIZER_CONTEXT_LIMIT lowers a known window')
  t.ok(both.get().costUsd(1_000_000, 0) > 0, 'cost from the registry')
})
