/**
 * Entry of the compute pool's worker threads (src/plugins/compute-pool.ts): piscina calls
 * the default export once per task. The server's configuration arrives once, as the
 * pool's workerData. Built as its own file (dist/plugins/compute-worker.js, see the
 * build script), and loaded from source under tsx and tap.
 */
import { threadId } from 'node:worker_threads'
import { workerData } from 'piscina'
import type { Config } from '../config.ts'
import { runTask, type TaskName, type TaskOutcome } from '../services/compute-tasks.ts'
import { TokenCache } from './token-cache-store.ts'

const config = (workerData as { config: Config }).config
/** This thread's token-count cache (the event loop's is out of reach): its hits and misses go back with each result. */
const tokenCache = config.TOKEN_CACHE_ENTRIES > 0 ? new TokenCache(config.TOKEN_CACHE_ENTRIES) : undefined

export default async function computeTask(message: { task: TaskName; input: unknown; cacheScope?: string }): Promise<TaskOutcome> {
  if (!tokenCache || message.cacheScope === undefined) return runTask(config, message.task, message.input)
  const { hits, misses } = tokenCache
  const outcome = await runTask(config, message.task, message.input, { tokenCache: tokenCache.for(message.cacheScope) })
  return { ...outcome, tokenCache: { hits: tokenCache.hits - hits, misses: tokenCache.misses - misses, entries: tokenCache.size, thread: threadId } }
}
