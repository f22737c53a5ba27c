/**
 * The requests behind the outputs that docs/api.md and docs/integrations.md describe in
 * prose ("`PUT /sessions/agent-run-42` with `{…}` → 201:", "The same request again is a
 * 409"): each step sends what the prose says and records the answer under the name of the
 * output block it belongs to (`<!-- output: NAME -->`). A `<!-- request: NAME -->` block is
 * the body the step sends. The steps of one chain share state (a session, its
 * checkpoints) and run in order; chains run concurrently with each other and with the
 * pages' examples.
 */
import fs from 'node:fs'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import type { FakeProvider } from '../fakes/fake-llm-provider.ts'
import { ROOT } from './doc-blocks.ts'
import { exchange } from './session-conversations.ts'

export interface Answer {
  status: number
  text: string
  headers: Headers
}

export interface ChainContext {
  send(method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>
  /** Records the answer as output `name` of `doc`; its status must be `status`. */
  emit(doc: string, name: string, answer: Answer, status: number): void
  /** The body of the page's `<!-- request: name -->` block. */
  requestBody(doc: string, name: string): unknown
  /** Waits until the page's example `name` has run (the chain builds on what it stored). */
  example(doc: string, name: string): Promise<void>
  /** A check that is not an output block: its description when it failed. */
  fail(description: string): void
  fake: FakeProvider
  app: FastifyInstance
}

const API = 'docs/api.md'
const INTEGRATIONS = 'docs/integrations.md'
const SESSION = '/sessions/agent-run-42'
const example = (file: string) => fs.readFileSync(path.join(ROOT, 'docs/examples', file), 'utf8')
const compactRequest = () => JSON.parse(example('compact.json')) as Record<string, unknown>

/** An Anthropic tool loop: two finished turns and one in progress, each with its signed thinking. */
function thinkingConversation(): unknown[] {
  const thought = (n: number, text: string) => ({ type: 'thinking', thinking: text, signature: `EqQBCkgIARABGAIiQL${n}example-signature` })
  return [
    { role: 'user', content: 'Why does GET /users time out?' },
    { role: 'assistant', content: [thought(1, 'The handler awaits the pool, and the pool has 2 connections while the load test runs 50 clients. Check the pool size first, then the query plan.'), { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'src/db.ts' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'export const pool = new Pool({ max: 2 })' }] },
    { role: 'assistant', content: [thought(2, 'max: 2 confirms it: every request past the second waits for a connection.'), { type: 'text', text: 'The pool allows 2 connections; raise it to 20.' }] },
    { role: 'user', content: 'Raise it and run the load test.' },
    { role: 'assistant', content: [thought(3, 'Edit src/db.ts, then run the load test with 50 clients and compare p99.'), { type: 'tool_use', id: 'toolu_2', name: 'edit_file', input: { path: 'src/db.ts', old_str: 'max: 2', new_str: 'max: 20' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_2', content: 'Edited src/db.ts' }] },
  ]
}

/** Sends and records one step. */
async function step(ctx: ChainContext, doc: string, name: string, status: number, method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<Answer> {
  const answer = await ctx.send(method, url, body, headers)
  ctx.emit(doc, name, answer, status)
  return answer
}

/** A session's stored controls applied by /context (docs/api.md "A session's controls"). */
async function sessionControls(ctx: ChainContext): Promise<void> {
  const url = '/sessions/pinned-rules'
  await ctx.send('PUT', url, { format: 'openai', windowMessages: 4, batchSize: 1000, pin: [2], preserve: ['port 8443'], trigger: { mode: 'auto', notMidTurn: true } })
  const history: unknown[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Rule: never edit files under vendor/.' },
    { role: 'assistant', content: 'Understood: vendor/ stays untouched.' },
    { role: 'user', content: 'The staging service listens on port 8443.' },
  ]
  for (let i = 0; i < 12; i++) history.push(...exchange(i, { padding: 6 }))
  await ctx.send('POST', `${url}/messages`, { messages: history })
  await step(ctx, API, 'context-controls', 200, 'GET', `${url}/context?budget=900`)
}

async function estimates(ctx: ChainContext): Promise<void> {
  for (const name of ['estimate-openai', 'estimate-anthropic', 'estimate-responses', 'estimate-no-room']) {
    await step(ctx, API, name, name === 'estimate-no-room' ? 400 : 200, 'POST', '/estimate', ctx.requestBody(API, name))
  }
  await step(ctx, API, 'estimate-invalid-messages', 400, 'POST', '/estimate', {
    messages: [
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"README.md"}' } }] },
      { role: 'tool', content: '# compactd' },
    ],
  })
}

/** /compact's examples, then the checkpoints of agent-run-42 that they stored. */
async function compactions(ctx: ChainContext): Promise<void> {
  const messages = JSON.parse(example('messages.json')) as unknown[]
  await step(ctx, API, 'compact-under-target', 200, 'POST', '/compact', { messages })
  await step(ctx, API, 'compact-force', 200, 'POST', '/compact', { messages: [messages[1]], targetTokens: 100, force: true })
  await step(ctx, API, 'compact-dry-run', 200, 'POST', '/compact', { ...compactRequest(), dryRun: true })
  await step(ctx, API, 'compact-budget-unreachable', 422, 'POST', '/compact', { ...compactRequest(), targetTokens: 200 })
  await step(ctx, API, 'compact-min-gain', 200, 'POST', '/compact', { ...compactRequest(), minGainTokens: 100_000 })
  await step(ctx, API, 'compact-contract-unkept', 422, 'POST', '/compact', { ...compactRequest(), targetTokens: 400, pin: [2, 3, 4, 5], preserve: ['src/db.ts'] })
  await step(ctx, API, 'compact-summarizer-baseurl', 400, 'POST', '/compact', { ...compactRequest(), strategy: 'llm', summarizer: { provider: 'openai', baseURL: 'http://169.254.169.254/v1' } })
  await step(ctx, API, 'compact-summarizer-model', 400, 'POST', '/compact', { ...compactRequest(), strategy: 'llm', summarizer: { provider: 'openai', model: 'gpt-4.1' } })
  await step(ctx, API, 'compact-keep-both', 400, 'POST', '/compact', { ...compactRequest(), keepRecent: 4, keepRecentTokens: 2000 })
  await step(ctx, API, 'compact-thinking', 200, 'POST', '/compact', { format: 'anthropic', model: 'claude-sonnet-4-5', thinking: { keep: 1 }, messages: thinkingConversation() })
  await step(ctx, API, 'compact-cache-economics', 200, 'POST', '/compact', { ...compactRequest(), model: 'claude-sonnet-4-5', cache: { cachedPrefixTokens: 1500 }, cachePolicy: 'when-profitable' })

  // The llm strategy, against the fake provider: the session's second compaction, then a
  // provider that answers 429 every time (the first call and both retries).
  await ctx.example(API, 'compact-request')
  const llm = { ...compactRequest(), targetTokens: 1600, strategy: 'llm', summarizer: { provider: 'openai', model: 'gpt-4o-mini' } }
  await step(ctx, API, 'compact-llm', 200, 'POST', '/compact', { ...llm, sessionId: 'agent-run-42' })
  ctx.fake.enqueue(...Array.from({ length: 3 }, () => ({ kind: 'rate-limit' as const, retryAfterMs: 10 })))
  await step(ctx, API, 'compact-llm-fallback', 200, 'POST', '/compact', llm)

  // The archive of what the first compaction dropped: searched in the agent's words, read back by grep.
  const found = await step(ctx, API, 'archive-search', 200, 'GET', `${SESSION}/search?q=${encodeURIComponent('what is the default pool size')}&limit=1`)
  const ref = (JSON.parse(found.text) as { hits: { ref: string }[] }).hits[0]?.ref ?? 'missing0'
  await step(ctx, API, 'archive-read-grep', 200, 'GET', `${SESSION}/archive/${ref}?grep=POOL_SIZE`)

  // A third compaction: with COMPACTION_MAX_CHECKPOINTS 2, checkpoints 1 and 2 are folded into 2.
  await ctx.send('POST', '/compact', { ...compactRequest(), sessionId: 'agent-run-42' })
  const page1 = await step(ctx, API, 'checkpoints-page', 200, 'GET', `${SESSION}/checkpoints?limit=1`)
  const cursor = (JSON.parse(page1.text) as { nextCursor: string }).nextCursor
  const page2 = await ctx.send('GET', `${SESSION}/checkpoints?limit=1&cursor=${cursor}`)
  const { items, nextCursor } = JSON.parse(page2.text) as { items: { summary: string; foldedFrom: number[]; originalTokens: number }[]; nextCursor: string | null }
  const folded = items[0]
  // What the prose says of that page: the last one, checkpoint 2 standing for 1 and 2, their tokens summed.
  const third = (JSON.parse(page1.text) as { items: { originalTokens: number }[] }).items[0]!
  if (nextCursor !== null || JSON.stringify(folded?.foldedFrom) !== '[1,2]' || folded?.originalTokens !== 2 * third.originalTokens) {
    ctx.fail(`${API}: the folded checkpoint is not as the prose says: ${page2.text.slice(0, 300)}`)
  }
  ctx.emit(API, 'checkpoint-folded-summary', { ...page2, text: folded?.summary ?? page2.text }, 200)
  await step(ctx, API, 'checkpoint-folded-away', 404, 'GET', `${SESSION}/checkpoints/1`)
  await step(ctx, API, 'checkpoint-stats', 200, 'GET', `${SESSION}/stats`)
  await step(ctx, API, 'breaker-reset', 200, 'POST', `${SESSION}/breaker/reset`)
}

async function imports(ctx: ChainContext): Promise<void> {
  await step(ctx, API, 'import-source-mismatch', 400, 'POST', '/import', { log: example('logs/rollout.jsonl'), source: 'pi' })
  await step(ctx, INTEGRATIONS, 'import-not-a-log', 400, 'POST', '/import', { log: '# just notes\n' })
}

/** docs/api.md's session scenario: a window of 6 messages, an update per evicted exchange. */
async function session(ctx: ChainContext): Promise<void> {
  const at = Date.parse('2026-11-23T17:38:24.017Z')
  await step(ctx, API, 'session-put', 201, 'PUT', SESSION, { windowMessages: 6, batchSize: 1, system: 'You are a coding agent.' })
  const first = ctx.requestBody(API, 'session-append-1')
  await step(ctx, API, 'session-append-1', 200, 'POST', `${SESSION}/messages`, first, { 'idempotency-key': 'append-1' })
  const replay = await ctx.send('POST', `${SESSION}/messages`, first, { 'idempotency-key': 'append-1' })
  if (replay.headers.get('idempotent-replayed') !== 'true') ctx.fail(`the repeated append-1 was not replayed (HTTP ${replay.status})`)
  const second = { messages: exchange(2, { at }) }
  await step(ctx, API, 'session-append-reused', 422, 'POST', `${SESSION}/messages`, second, { 'idempotency-key': 'append-1' })
  await step(ctx, API, 'session-append-2', 200, 'POST', `${SESSION}/messages`, second, { 'idempotency-key': 'append-2' })
  await step(ctx, API, 'session-format-locked', 409, 'PUT', SESSION, { format: 'anthropic' })
  await step(ctx, API, 'session-format-mismatch', 400, 'POST', `${SESSION}/messages`, { format: 'anthropic', messages: [{ role: 'user', content: 'Next task.' }] })
  await step(ctx, API, 'summary-before-update', 200, 'GET', `${SESSION}/summary`)
  const before = JSON.parse((await ctx.send('GET', `${SESSION}/context?budget=4000`)).text) as { summaryVersion: number; stale: boolean; messages: unknown[] }
  if (before.summaryVersion !== 0 || !before.stale || before.messages.length !== 13) ctx.fail(`${API}: /context before the update is not as the prose says: ${JSON.stringify(before).slice(0, 300)}`)

  await ctx.app.summaryWorker.runOnce()
  await step(ctx, API, 'session-after-update', 200, 'GET', SESSION)
  await step(ctx, API, 'summary-after-update', 200, 'GET', `${SESSION}/summary`)
  await step(ctx, API, 'context', 200, 'GET', `${SESSION}/context?budget=4000`)
  await step(ctx, API, 'context-anthropic', 200, 'GET', `${SESSION}/context?budget=4000&format=anthropic`)
  await step(ctx, API, 'context-budget-unreachable', 422, 'GET', `${SESSION}/context?budget=200`)
  await step(ctx, API, 'continuation', 200, 'GET', `${SESSION}/continuation`)
  await sessionControls(ctx)

  const edit = ctx.requestBody(API, 'summary-put')
  await step(ctx, API, 'summary-put', 200, 'PUT', `${SESSION}/summary`, edit)
  await step(ctx, API, 'summary-put-conflict', 409, 'PUT', `${SESSION}/summary`, edit)
  const tooLong = `## Previously in This Session\n${Array.from({ length: 1500 }, (_, i) => `${i + 1}. Ran npm test -- src/module${i}.ts and fixed the off-by-one in the total`).join('\n')}\n`
  await step(ctx, API, 'summary-over-budget', 422, 'PUT', `${SESSION}/summary`, { content: tooLong })
  await step(ctx, API, 'summary-refresh', 202, 'POST', `${SESSION}/summary/refresh`)
  await step(ctx, API, 'summary-refresh-merged', 202, 'POST', `${SESSION}/summary/refresh`)
  await ctx.app.summaryWorker.runOnce()
  await step(ctx, API, 'continuation-after-edit', 200, 'GET', `${SESSION}/continuation`)
  await step(ctx, API, 'summary-versions', 200, 'GET', `${SESSION}/summary/versions`)
  await step(ctx, API, 'session-messages', 200, 'GET', `${SESSION}/messages?status=window&limit=1`)
}

/** Independent sequences of steps; `listing` reads what the others stored. */
export function chains(ctx: ChainContext): Promise<void>[] {
  const others = [estimates(ctx), compactions(ctx), imports(ctx), session(ctx)]
  const listing = Promise.allSettled(others.slice(1)).then(() => step(ctx, API, 'sessions-list', 200, 'GET', '/sessions?q=agent-run-42')).then(() => undefined)
  return [...others, listing]
}
