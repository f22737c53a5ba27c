/**
 * Entry of the compute pool's worker threads (src/plugins/compute-pool.ts): piscina calls
 * the default export once per task. The server's configuration arrives once, as the
 * pool's workerData. Built as its own file (dist/plugins/compute-worker.js, see the
 * build script), and loaded from source under tsx and tap.
 */
import { threadId, type MessagePort } from 'node:worker_threads'
import { workerData } from 'piscina'
import type { Config } from '../config.ts'
import { summarizerLocalParts } from '../providers/summarizer-model.ts'
import type { TaskEnv, TaskName } from '../use-cases/compute.ts'
import { runTask, type TaskOutcome } from './compute-wire.ts'
import { remoteSummarizerClient, type BridgedSummarizer } from './summarizer-bridge.ts'
import { TokenCache } from './token-cache-store.ts'

const config = (workerData as { config: Config }).config
/** This thread's token-count cache (the event loop's is out of reach): its hits and misses go back with each result. */
const tokenCache = config.TOKEN_CACHE_ENTRIES > 0 ? new TokenCache(config.TOKEN_CACHE_ENTRIES) : undefined

interface TaskMessage {
  task: TaskName
  input: unknown
  cacheScope?: string
  /** The llm strategy: the port to the event loop's provider client, and who that client is. */
  summarizer?: { port: MessagePort; identity: BridgedSummarizer }
}

export default async function computeTask(message: TaskMessage): Promise<TaskOutcome> {
  const env: TaskEnv = {}
  const bridge = message.summarizer
  const summarizer = bridge ? remoteSummarizerClient(bridge.port, bridge.identity, summarizerLocalParts(bridge.identity.model, config)) : undefined
  if (summarizer) env.summarizer = summarizer
  try {
    if (!tokenCache || message.cacheScope === undefined) return await runTask(config, message.task, message.input, env)
    const { hits, misses } = tokenCache
    const outcome = await runTask(config, message.task, message.input, { ...env, tokenCache: tokenCache.for(message.cacheScope) })
    return { ...outcome, tokenCache: { hits: tokenCache.hits - hits, misses: tokenCache.misses - misses, entries: tokenCache.size, thread: threadId } }
  } finally {
    summarizer?.close()
  }
}
