/**
 * The last summary seen per session, in this process (an LRU): what GET /summary serves,
 * marked stale, when the database is unreachable, if the database confirmed it recently.
 */
import type { z } from 'zod'
import type { SummaryState } from '../../sessions/repository.ts'
import type { summarySchema } from '../shapes/session-summary.ts'

/** The summary as GET /summary answers it (src/use-cases/shapes/session-summary.ts). */
export type SummaryView = z.infer<typeof summarySchema>

export class SummaryCache {
  private readonly map = new Map<string, SummaryView>()
  /** When the database last confirmed each entry (ms): an old entry may be a deleted session's. */
  private readonly seenAt = new Map<string, number>()
  private chars = 0
  constructor(
    readonly maxEntries = 5_000,
    readonly maxChars = 20_000_000,
  ) {}

  static key(tenantId: string, sessionId: string): string {
    return `${tenantId}\u0000${sessionId}`
  }

  get(tenantId: string, sessionId: string): SummaryView | undefined {
    const k = SummaryCache.key(tenantId, sessionId)
    const v = this.map.get(k)
    if (v) {
      this.map.delete(k)
      this.map.set(k, v)
    }
    return v
  }

  /** The entry if the database confirmed it within `maxAgeMs`. */
  fresh(tenantId: string, sessionId: string, maxAgeMs: number, now = Date.now()): SummaryView | undefined {
    const at = this.seenAt.get(SummaryCache.key(tenantId, sessionId))
    return at !== undefined && now - at <= maxAgeMs ? this.get(tenantId, sessionId) : undefined
  }

  set(tenantId: string, sessionId: string, view: SummaryView, now = Date.now()): void {
    const k = SummaryCache.key(tenantId, sessionId)
    this.delete(tenantId, sessionId)
    this.map.set(k, view)
    this.seenAt.set(k, now)
    this.chars += view.content.length + view.text.length
    for (const [oldest, v] of this.map) {
      if (this.map.size <= this.maxEntries && this.chars <= this.maxChars) break
      this.map.delete(oldest)
      this.seenAt.delete(oldest)
      this.chars -= v.content.length + v.text.length
    }
  }

  delete(tenantId: string, sessionId: string): void {
    const k = SummaryCache.key(tenantId, sessionId)
    const v = this.map.get(k)
    if (v) {
      this.map.delete(k)
      this.seenAt.delete(k)
      this.chars -= v.content.length + v.text.length
    }
  }

  get size(): number {
    return this.map.size
  }
}

/** The display form of a stored summary: without the `<!-- … -->` item comments. */
export function displayText(content: string): string {
  return content.replace(/[ \t]*<!--[\s\S]*?-->/g, '')
}

export function updateState(state: SummaryState | undefined): SummaryView['update'] {
  if (!state?.queue) return null
  return { status: state.queue.status === 'failed' ? 'failed' : state.queue.running ? 'running' : 'pending' }
}

export function toView(sessionId: string, state: SummaryState): SummaryView {
  const s = state.summary
  const content = s?.content ?? ''
  return {
    sessionId,
    version: s?.version ?? 0,
    content,
    text: displayText(content),
    tokens: s?.tokens ?? 0,
    budget: state.settings.summaryBudget,
    updatedAt: s ? s.updatedAt.toISOString() : null,
    source: s?.source ?? null,
    stale: state.evictedAwaitingSummary > 0,
    evictedAwaitingSummary: state.evictedAwaitingSummary,
    update: updateState(state),
    degraded: false,
  }
}
