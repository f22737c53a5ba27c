/**
 * The CPU-heavy parts of the use cases, as tasks: each a function of the server's
 * configuration and one structured-cloneable input, with no I/O, so the compute pool
 * (src/plugins/compute-pool.ts) can run it in a worker thread, or on the event loop when
 * it is small. ComputeRunner is the port a use case is handed (its `compute`
 * dependency); the pool implements it, and inlineCompute() is the stand-in without one
 * (tests, the library). The thread boundary (errors as data) is the pool's:
 * src/plugins/compute-wire.ts.
 */
import type { Config } from '../config.ts'
import { llmSummarizer } from '../engine/compaction/summarizers/llm.ts'
import type { SummarizerClient } from '../engine/compaction/types.ts'
import { DEFAULT_FORMAT, draftConversation, type DraftTurn } from '../engine/messages/index.ts'
import type { MessageCountCache } from '../engine/tokens/count.ts'
import type { ProviderTokenCounter } from '../providers/anthropic-count.ts'
import { computeArchiveChunks, type ChunkTaskItem } from './archive/chunks.ts'
import { computeCompaction } from './compact/compute.ts'
import { estimate, type EstimateInput } from './estimate/count.ts'
import { importAgentLog, type ImportRequest } from './import/convert.ts'
import { computeAppendCounts } from './sessions/append-counts.ts'
import { computeContextCompaction } from './sessions/context-compaction.ts'
import { computeRulesUpdate } from './sessions/rules-update.ts'

export const computeTasks = {
  /** POST /compact: parse, compact, serialize; with the llm strategy, through env.summarizer (a stand-in on a thread). */
  compact: (config: Config, input: Parameters<typeof computeCompaction>[1], env: TaskEnv = {}) =>
    computeCompaction(config, input, {
      ...(env.tokenCache ? { tokenCache: env.tokenCache } : {}),
      ...(env.summarizer ? { llm: llmSummarizer(env.summarizer) } : {}),
      ...(env.signal ? { signal: env.signal } : {}),
    }),
  /** A rules-mode rolling-summary update (the background worker). */
  summary: (config: Config, input: Parameters<typeof computeRulesUpdate>[1], _env: TaskEnv = {}) => computeRulesUpdate(config, input),
  /** POST /estimate by the tokenizer or the heuristic (`provider` calls Anthropic: it stays on the event loop). */
  estimate: (config: Config, input: EstimateInput, env: TaskEnv = {}) => estimate(config, input, NO_PROVIDER_COUNTER, env.tokenCache),
  /** GET /sessions/:id/context: the session's messages compacted to the budget and serialized. */
  context: (config: Config, input: Parameters<typeof computeContextCompaction>[1], env: TaskEnv = {}) => computeContextCompaction(config, input, env),
  /** POST /sessions/:id/messages: the appended messages' token counts. */
  'append-counts': (config: Config, input: Parameters<typeof computeAppendCounts>[1], env: TaskEnv = {}) => computeAppendCounts(config, input, env),
  /** The archive's deferred index: archived messages into the chunks the search index is made of. */
  'archive-chunks': (_config: Config, input: ChunkTaskItem[], _env: TaskEnv = {}) => computeArchiveChunks(input),
  /** POST /import: an agent log read, converted and written in the requested format. */
  import: (_config: Config, input: ImportRequest, _env: TaskEnv = {}) => importAgentLog(input),
}

/** In a thread there is no provider client: method `provider` never gets here (routes/estimate.ts). */
const NO_PROVIDER_COUNTER: ProviderTokenCounter = {
  configured: false,
  count: () => Promise.reject(new Error('provider token counting runs on the event loop, not in the compute pool')),
}

/** What the thread running a task lends it: its token-count cache, scoped to the task's tenant, and the llm strategy's summarizer client. */
export interface TaskEnv {
  tokenCache?: MessageCountCache
  /** On the event loop the provider client itself; on a thread a stand-in that asks the event loop (summarizer-bridge.ts). */
  summarizer?: SummarizerClient
  /** Inline only: the client went away (provider calls stop). On a thread the thread is stopped instead. */
  signal?: AbortSignal
}

export type TaskName = keyof typeof computeTasks
export type TaskInput<K extends TaskName> = Parameters<(typeof computeTasks)[K]>[1]
export type TaskOutput<K extends TaskName> = Awaited<ReturnType<(typeof computeTasks)[K]>>

export interface RunOptions {
  /**
   * The client went away: a queued task leaves the queue, a running one has its thread
   * replaced. A function is called only when the task does not run inline.
   */
  signal?: AbortSignal | (() => AbortSignal)
  /** Whose task this is, for the pool's fair share (default: cacheScope). */
  tenant?: string
  /** The llm strategy's provider client: it stays on the event loop and answers the thread's calls. */
  summarizer?: SummarizerClient
  /** The input's size in bytes: at most COMPUTE_INLINE_MAX_BYTES runs on the event loop. Unknown: the pool. */
  bytes?: number
  /** Background work (summary updates): never refused as overloaded; it waits its turn. */
  background?: boolean
  /**
   * The tenant whose token counts the task may read and add to (src/plugins/token-cache.ts):
   * on the event loop the app's cache, on a thread that thread's own. None: no cache.
   */
  cacheScope?: string
  /**
   * The task's cost is linear in its text whatever the text's shape (the heuristic count):
   * a small input runs inline without the long-run scan (containsLongRun), which is there
   * for the tokenizer, where a long run of one character class costs many times prose.
   */
  shapeFree?: boolean
}

/** The warm-up task each new compute thread runs before it takes work (src/plugins/compute-pool.ts): a short conversation compacted by the default pipeline with the default model's tokenizer. */
export const WARM_UP: TaskInput<'compact'> = {
  request: {
    force: true,
    targetTokens: 300,
    keepRecent: 1,
    messages: draftConversation(DEFAULT_FORMAT, [
      { role: 'system', text: 'You are a coding agent.' },
      { role: 'user', text: 'Fix the failing test in src/app.ts.' },
      ...Array.from({ length: 6 }, (_, i): DraftTurn[] => [
        { role: 'assistant', text: `Step ${i}.`, calls: [{ id: `w${i}`, name: 'bash', argsText: JSON.stringify({ command: `npm test -- test/${i}.test.ts` }) }] },
        { role: 'tool', results: [{ callId: `w${i}`, text: `FAIL test/${i}.test.ts\nError: expected ${i} to equal ${i + 1}\n${'at src/app.ts:12:3\n'.repeat(20)}` }] },
      ]).flat(),
      { role: 'assistant', text: 'The tests pass now.' },
    ]).messages,
  },
}

/** What use cases are handed: the compute pool, or anything that runs a task the same way (inlineCompute). */
export interface ComputeRunner {
  run<K extends TaskName>(task: K, input: TaskInput<K>, opts?: RunOptions): Promise<TaskOutput<K>>
}

/** Runs a task on this thread (the inline path, and tests). */
export async function runInline<K extends TaskName>(config: Config, task: K, input: TaskInput<K>, env: TaskEnv = {}): Promise<TaskOutput<K>> {
  const fn = computeTasks[task] as (config: Config, input: TaskInput<K>, env: TaskEnv) => TaskOutput<K> | Promise<TaskOutput<K>>
  return fn(config, input, env)
}

/** A ComputeRunner that runs every task on this thread: what a use case uses when it is handed no pool. */
export function inlineCompute(config: Config, tokenCache?: { for(tenantId: string): MessageCountCache }): ComputeRunner {
  return {
    run(task, input, opts = {}) {
      const signal = typeof opts.signal === 'function' ? opts.signal() : opts.signal
      const cache = opts.cacheScope === undefined ? undefined : tokenCache?.for(opts.cacheScope)
      return runInline(config, task, input, { ...(cache ? { tokenCache: cache } : {}), ...(opts.summarizer ? { summarizer: opts.summarizer } : {}), ...(signal ? { signal } : {}) })
    },
  }
}
