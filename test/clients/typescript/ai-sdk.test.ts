/**
 * compactdPrepareStep (@compactd/client/ai-sdk) in the real AI SDK (`ai` 6): generateText
 * and streamText run a multi-step tool loop on the SDK's mock language model, with
 * tools whose results grow the conversation far past the threshold, against a compactd
 * listening on a port. The loop finishes; every step's prompt (as the model receives it)
 * is within the threshold; no tool call is ever separated from its result; the system
 * prompt and tools reach every step unchanged; compaction chains (round 1, 2, …) and is
 * asked for only when the compacted history grows past the threshold again. recallTools
 * gives the model search_context and read_context over what those compactions archived.
 */
import type { LanguageModelV3CallOptions, LanguageModelV3Prompt, LanguageModelV3StreamPart } from '@ai-sdk/provider'
import { generateText, jsonSchema, simulateReadableStream, stepCountIs, streamText, tool, type ToolSet } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import t from 'tap'
import type * as Tap from 'tap'
import { compactdPrepareStep, recallTools, type CompactionInfo } from '../../../clients/typescript/src/ai-sdk.ts'
import { createCompactdClient, unwrap, type CompactdClient } from '../../../clients/typescript/src/index.ts'
import { buildTestApp } from '../../helpers/build.ts'
import { prose } from '../../helpers/prose.ts'

const SYSTEM = 'You are a coding agent. Fix what the user asks, running the tests after each change.'
const TASK = 'The checkout total is off by one in src/cart.ts: find the cause across the modules and fix it.'
/** compactd's threshold: (8000 − 0 − 0 − 0) × 0.8 = 6400 tokens for the whole prompt. */
const LIMITS = { contextLimit: 8000, systemReserve: 0, outputReserve: 0, safetyBuffer: 0, thresholdPercent: 0.8 }
const TOOL_STEPS = 30

const tools = {
  read_file: tool({
    description: 'Read a file of the repository',
    inputSchema: jsonSchema<{ path: string }>({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false }),
    execute: async ({ path }) => `// ${path}\n${prose(2400, path.length * 31 + path.charCodeAt(path.length - 4))}`,
  }),
  bash: tool({
    description: 'Run a shell command',
    inputSchema: jsonSchema<{ command: string }>({ type: 'object', properties: { command: { type: 'string' } }, required: ['command'], additionalProperties: false }),
    execute: async ({ command }) => `$ ${command}\nFAIL test/cart.test.ts\nError: expected 41 to equal 42\n${prose(1200, command.length)}`,
  }),
} satisfies ToolSet

/** The model's turn for call n: one tool call, two in parallel every fourth step, then the answer. */
function turn(n: number): { calls: { id: string; name: keyof typeof tools; input: object }[]; text?: string } {
  if (n >= TOOL_STEPS) return { calls: [], text: 'Fixed: the total skipped the last line item (src/cart.ts).' }
  const calls: { id: string; name: keyof typeof tools; input: object }[] = [{ id: `call_${n}_0`, name: 'read_file', input: { path: `src/module${n}.ts` } }]
  if (n % 4 === 3) calls.push({ id: `call_${n}_1`, name: 'bash', input: { command: `npm test -- test/module${n}.test.ts` } })
  return { calls }
}

const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } }

function generatingModel(): MockLanguageModelV3 {
  let n = 0
  return new MockLanguageModelV3({
    doGenerate: async () => {
      const { calls, text } = turn(n++)
      return {
        content: text ? [{ type: 'text', text }] : calls.map((c) => ({ type: 'tool-call' as const, toolCallId: c.id, toolName: c.name, input: JSON.stringify(c.input) })),
        finishReason: { unified: text ? 'stop' : 'tool-calls', raw: undefined },
        usage,
        warnings: [],
      }
    },
  })
}

function streamingModel(): MockLanguageModelV3 {
  let n = 0
  return new MockLanguageModelV3({
    doStream: async () => {
      const { calls, text } = turn(n++)
      const chunks: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: [] }]
      if (text) chunks.push({ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: text }, { type: 'text-end', id: 't' })
      for (const c of calls) chunks.push({ type: 'tool-call', toolCallId: c.id, toolName: c.name, input: JSON.stringify(c.input) })
      chunks.push({ type: 'finish', finishReason: { unified: text ? 'stop' : 'tool-calls', raw: undefined }, usage })
      return { stream: simulateReadableStream({ chunks, chunkDelayInMs: null, initialDelayInMs: null }) }
    },
  })
}

/** Tool calls and results of a prompt that are not next to each other (a call without its result in the next message, or the reverse). */
function separatedToolCalls(prompt: LanguageModelV3Prompt): string[] {
  const problems: string[] = []
  prompt.forEach((m, i) => {
    if (m.role === 'assistant') {
      const next = prompt[i + 1]
      const results = next?.role === 'tool' ? next.content.flatMap((p) => (p.type === 'tool-result' ? [p.toolCallId] : [])) : []
      for (const p of m.content) if (p.type === 'tool-call' && !results.includes(p.toolCallId)) problems.push(`call ${p.toolCallId} (message ${i}) has no result after it`)
    }
    if (m.role === 'tool') {
      const prev = prompt[i - 1]
      const calls = prev?.role === 'assistant' ? prev.content.flatMap((p) => (p.type === 'tool-call' ? [p.toolCallId] : [])) : []
      for (const p of m.content) if (p.type === 'tool-result' && !calls.includes(p.toolCallId)) problems.push(`result ${p.toolCallId} (message ${i}) has no call before it`)
    }
  })
  return problems
}

/** The prompt the model received, counted by compactd exactly as the helper counts: system, messages, tools. */
async function promptTokens(compactd: CompactdClient, call: LanguageModelV3CallOptions): Promise<number> {
  const [system, ...messages] = call.prompt
  const toolDefinitions = (call.tools ?? []).map((d) => (d.type === 'function' ? { type: 'function', function: { name: d.name, description: d.description, parameters: d.inputSchema } } : d))
  const estimate = await unwrap(
    compactd.POST('/estimate', {
      body: { ...LIMITS, model: 'gpt-4o', format: 'ai-sdk', system: system!.role === 'system' ? system!.content : undefined, messages, tools: toolDefinitions },
    }),
  )
  return estimate.totalTokens
}

async function setup(t: Tap.Test) {
  const { app } = await buildTestApp(t)
  await app.listen({ host: '127.0.0.1', port: 0 })
  const baseUrl = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
  const compactd = createCompactdClient({ baseUrl })
  const threshold = (await unwrap(compactd.POST('/estimate', { body: { ...LIMITS, model: 'gpt-4o', messages: [] } }))).threshold
  return { app, compactd, baseUrl, threshold }
}

/** The checks every run of the loop must pass, on the prompts the model received. */
async function checkSteps(t: Tap.Test, compactd: CompactdClient, threshold: number, calls: LanguageModelV3CallOptions[], compactions: CompactionInfo[]) {
  t.equal(calls.length, TOOL_STEPS + 1, 'the model was called once per step')
  const firstTools = JSON.stringify(calls[0]!.tools)
  let largest = 0
  for (const [i, call] of calls.entries()) {
    t.same(call.prompt[0], { role: 'system', content: SYSTEM }, `step ${i}: the system prompt is the user's`)
    t.equal(call.prompt.filter((m) => m.role === 'system').length, 1, `step ${i}: one system message`)
    t.equal(JSON.stringify(call.tools), firstTools, `step ${i}: the tools are unchanged`)
    t.same(separatedToolCalls(call.prompt), [], `step ${i}: every tool call is next to its result`)
    const tokens = await promptTokens(compactd, call)
    largest = Math.max(largest, tokens)
    t.ok(tokens < threshold, `step ${i}: the prompt (${tokens} tokens) is within the threshold (${threshold})`)
  }
  t.ok(compactions.length >= 2, `compacted ${compactions.length} times`)
  t.ok(compactions.length < calls.length / 3, 'asked to compact only when the compacted history grew past the threshold again, not at every step')
  t.same(
    compactions.map((c) => c.result.event!.round),
    compactions.map((_, i) => i + 1),
    'rounds 1, 2, …: each compaction folds the earlier summary in',
  )
  for (const c of compactions) t.ok(c.tokensBefore >= c.threshold, `step ${c.stepNumber}: compacted at ${c.tokensBefore} ≥ ${c.threshold} tokens`)
  const last = calls.at(-1)!.prompt
  t.ok(
    last.some((m) => m.role === 'user' && JSON.stringify(m.content).includes(`Session Summary (Compaction Round ${compactions.length})`)),
    'the last step sees the latest summary',
  )
  t.ok(JSON.stringify(last).includes(TASK), 'and the original task, verbatim')
  return largest
}

t.test('generateText: a 31-step tool loop that grows past twice the threshold finishes, every prompt within it', async (t) => {
  const { compactd, threshold } = await setup(t)
  const model = generatingModel()
  const compactions: CompactionInfo[] = []
  const errors: unknown[] = []
  const result = await generateText({
    model,
    system: SYSTEM,
    tools,
    messages: [{ role: 'user', content: TASK }],
    stopWhen: stepCountIs(TOOL_STEPS + 5),
    prepareStep: compactdPrepareStep({
      client: compactd,
      model: 'gpt-4o',
      system: SYSTEM,
      tools,
      ...LIMITS,
      onCompact: (info) => compactions.push(info),
      onError: (err) => errors.push(err),
    }),
  })
  t.same(errors, [], 'compactd answered every step')
  t.equal(result.finishReason, 'stop', 'the loop finished')
  t.equal(result.text, 'Fixed: the total skipped the last line item (src/cart.ts).')
  t.equal(result.steps.length, TOOL_STEPS + 1)

  // Without the helper the history would be far past the threshold.
  const full = await unwrap(
    compactd.POST('/estimate', { body: { ...LIMITS, model: 'gpt-4o', format: 'ai-sdk', system: SYSTEM, messages: [{ role: 'user', content: TASK }, ...result.response.messages] } }),
  )
  t.ok(full.totalTokens > 2 * threshold, `the uncompacted history is ${full.totalTokens} tokens, ${(full.totalTokens / threshold).toFixed(1)} × the threshold`)
  await checkSteps(t, compactd, threshold, model.doGenerateCalls, compactions)
})

t.test('streamText: the same loop, streamed', async (t) => {
  const { compactd, threshold } = await setup(t)
  const model = streamingModel()
  const compactions: CompactionInfo[] = []
  const result = streamText({
    model,
    system: SYSTEM,
    tools,
    messages: [{ role: 'user', content: TASK }],
    stopWhen: stepCountIs(TOOL_STEPS + 5),
    prepareStep: compactdPrepareStep({ client: compactd, model: 'gpt-4o', system: SYSTEM, tools, ...LIMITS, onCompact: (info) => compactions.push(info), onError: (err) => t.fail(String(err)) }),
  })
  t.equal(await result.text, 'Fixed: the total skipped the last line item (src/cart.ts).')
  t.equal(await result.finishReason, 'stop')
  await checkSteps(t, compactd, threshold, model.doStreamCalls, compactions)
})

t.test('with a sessionId every compaction is stored as a checkpoint', async (t) => {
  const { compactd } = await setup(t)
  const compactions: CompactionInfo[] = []
  await generateText({
    model: generatingModel(),
    system: SYSTEM,
    tools,
    messages: [{ role: 'user', content: TASK }],
    stopWhen: stepCountIs(TOOL_STEPS + 5),
    prepareStep: compactdPrepareStep({ client: compactd, model: 'gpt-4o', system: SYSTEM, tools, ...LIMITS, compact: { sessionId: 'agent-7' }, onCompact: (c) => compactions.push(c) }),
  })
  const stats = await unwrap(compactd.GET('/sessions/{id}/stats', { params: { path: { id: 'agent-7' } } }))
  t.equal(stats.checkpoints, compactions.length)
  t.same(
    compactions.map((c) => c.result.checkpoint?.checkpointNum),
    compactions.map((_, i) => i + 1),
  )
})

t.test('compactd unreachable: each step runs uncompacted and the error is reported; onError may stop the loop', async (t) => {
  const { app } = await buildTestApp(t)
  await app.listen({ host: '127.0.0.1', port: 0 })
  const port = (app.server.address() as { port: number }).port
  await app.close() // nothing listens there any more
  const reported: unknown[] = []
  const model = generatingModel()
  const result = await generateText({
    model,
    system: SYSTEM,
    tools,
    messages: [{ role: 'user', content: TASK }],
    stopWhen: stepCountIs(5),
    prepareStep: compactdPrepareStep({ client: { baseUrl: `http://127.0.0.1:${port}` }, model: 'gpt-4o', system: SYSTEM, tools, ...LIMITS, onError: (err) => reported.push(err) }),
  })
  t.equal(result.steps.length, 5, 'the loop ran on')
  t.equal(reported.length, 5, 'one report per step')
  t.type(reported[0], Error)
  t.equal(model.doGenerateCalls.at(-1)!.prompt.length, 1 + 1 + 2 * 4, 'the prompts are the uncompacted history')

  const strict = generateText({
    model: generatingModel(),
    system: SYSTEM,
    tools,
    messages: [{ role: 'user', content: TASK }],
    stopWhen: stepCountIs(5),
    prepareStep: compactdPrepareStep({
      client: { baseUrl: `http://127.0.0.1:${port}` },
      model: 'gpt-4o',
      onError: (err) => {
        throw new Error('compactd is required', { cause: err })
      },
    }),
  })
  await t.rejects(strict, { message: 'compactd is required' }, 'a throwing onError stops the loop')
})

t.test('recallTools: after the compactions, the model searches the archive and reads back what they dropped', async (t) => {
  const { compactd, baseUrl } = await setup(t)
  const session = 'agent-8'
  const recall = recallTools(session, { client: compactd })
  const all = { ...tools, ...recall }
  const dropped = prose(2400, 'src/module2.ts'.length * 31 + '2'.charCodeAt(0)).slice(0, 60) // read_file's output for src/module2.ts
  let step = 0
  const model = new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      const n = step++
      const last = prompt.at(-1)
      const result = last?.role === 'tool' ? last.content.flatMap((p) => (p.type === 'tool-result' && p.output.type === 'text' ? [p.output.value] : [])).join('\n') : ''
      let calls: { id: string; name: string; input: object }[] = []
      let text: string | undefined
      if (n < TOOL_STEPS) calls = turn(n).calls
      else if (n === TOOL_STEPS) calls = [{ id: 'recall_0', name: 'search_context', input: { query: 'src/module2.ts' } }]
      else if (n === TOOL_STEPS + 1) calls = [{ id: 'recall_1', name: 'read_context', input: { ref: /^\[ref (\w{8})\] read_file result/m.exec(result)?.[1] ?? 'none', lines: '2' } }]
      else text = `src/module2.ts starts: ${/^2\t(.{60})/m.exec(result)?.[1] ?? 'not found'}`
      return {
        content: text ? [{ type: 'text', text }] : calls.map((c) => ({ type: 'tool-call' as const, toolCallId: c.id, toolName: c.name, input: JSON.stringify(c.input) })),
        finishReason: { unified: text ? 'stop' : 'tool-calls', raw: undefined },
        usage,
        warnings: [],
      }
    },
  })
  const compactions: CompactionInfo[] = []
  const result = await generateText({
    model,
    system: SYSTEM,
    tools: all,
    messages: [{ role: 'user', content: TASK }],
    stopWhen: stepCountIs(TOOL_STEPS + 5),
    prepareStep: compactdPrepareStep({ client: compactd, model: 'gpt-4o', system: SYSTEM, tools: all, ...LIMITS, compact: { sessionId: session }, onCompact: (c) => compactions.push(c) }),
  })
  t.ok(compactions.length >= 2, `compacted ${compactions.length} times, archiving under ${session}`)
  t.equal(result.text, `src/module2.ts starts: ${dropped}`, 'the answer holds what only the dropped output had')
  const calls = model.doGenerateCalls
  t.notOk(JSON.stringify(calls[TOOL_STEPS]!.prompt).includes(dropped), 'when the model searched, its prompt no longer held that output')
  const [search, read] = result.steps.slice(TOOL_STEPS, TOOL_STEPS + 2).map((s) => s.toolResults[0]!)
  t.match(search, { toolName: 'search_context', input: { query: 'src/module2.ts' } })
  t.match(search!.output, /^\d+ archived messages? match(es)? "src\/module2\.ts", best first; read_context\(ref\) reads one:\n\[ref \w{8}\] /)
  t.match(read!.output, /^\[ref \w{8}\] read_file result \(checkpoint \d+\), 2 lines; lines 2:\n2\t/)
  t.ok((read!.output as string).includes(`\n2\t${dropped}`), 'read_context gave the line back')
  const definitions = calls[0]!.tools!.filter((d) => d.type === 'function' && d.name.endsWith('_context'))
  t.same(
    definitions.map((d) => (d.type === 'function' ? [d.name, Object.keys((d.inputSchema as { properties: object }).properties)] : [])),
    [
      ['search_context', ['query', 'limit']],
      ['read_context', ['ref', 'lines', 'grep']],
    ],
    'the model sees both tools with their inputs',
  )

  // Without a client: compactd at COMPACTD_URL.
  const before = process.env.COMPACTD_URL
  process.env.COMPACTD_URL = baseUrl
  t.teardown(() => (before === undefined ? delete process.env.COMPACTD_URL : (process.env.COMPACTD_URL = before)))
  const fromEnv = recallTools(session)
  t.equal(await fromEnv.search_context.execute!({ query: 'src/module2.ts' }, { toolCallId: 'x', messages: [] }), search!.output)
})
