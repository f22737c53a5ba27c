/**
 * The token-count cache's store: an LRU of per-message counts (src/engine/tokens/count.ts
 * MessageCounts) under their keys, with hit and miss counts. The app's instance is made
 * by the token-cache plugin; each compute thread makes its own (compute-worker.ts). No
 * fastify or prom-client here, so a thread loads only this.
 */
import { LRUCache } from 'lru-cache'
import type { MessageCountCache, MessageCounts, TokenCountCache } from '../engine/tokens/count.ts'

/** What a compute thread's cache did during one task (sent back with its result). */
export interface ThreadCacheStats {
  hits: number
  misses: number
  /** The thread's cache size after the task. */
  entries: number
  thread: number
}

export class TokenCache implements TokenCountCache {
  hits = 0
  misses = 0
  private readonly lru: LRUCache<string, MessageCounts>
  private readonly threadEntries = new Map<number, number>()

  constructor(readonly maxEntries: number) {
    this.lru = new LRUCache<string, MessageCounts>({ max: maxEntries })
  }

  get(key: string): MessageCounts | undefined {
    const v = this.lru.get(key)
    if (v === undefined) this.misses++
    else this.hits++
    return v
  }

  set(key: string, counts: MessageCounts): void {
    this.lru.set(key, counts)
  }

  get size(): number {
    return this.lru.size
  }

  /** Entries here and in every compute thread's cache, as the threads last reported. */
  get totalEntries(): number {
    let n = this.lru.size
    for (const e of this.threadEntries.values()) n += e
    return n
  }

  /** A compute thread's hits and misses during one task, and its cache's size after it. */
  recordThread(stats: ThreadCacheStats): void {
    this.hits += stats.hits
    this.misses += stats.misses
    this.threadEntries.set(stats.thread, stats.entries)
  }

  /** What is stored, for inspection (tests): keys and counts. */
  entries(): [string, MessageCounts][] {
    return [...this.lru.entries()]
  }

  clear(): void {
    this.lru.clear()
  }

  /** The cache as a counter takes it, keyed within one tenant. */
  for(tenantId: string): MessageCountCache {
    return { store: this, scope: tenantId }
  }
}
