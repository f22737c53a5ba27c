/**
 * Sessions (issue 4): a sliding window of recent messages, and a rolling summary of
 * what fell out of it, kept current by background workers (src/sessions/worker.ts).
 *
 * - appendMessages: parse in the session's format, assign seq, evict from the window's
 *   oldest end at atomic-unit boundaries (a tool call never leaves its results) while
 *   the window is over windowMessages or windowTokens, and queue a low-priority summary
 *   update once batchSize evicted exchanges await one. Idempotent by key: a retried key
 *   returns the stored response and appends nothing. One transaction, under the session
 *   row's lock (appends and updates of one session serialise on it).
 * - getSummary: the last committed version, by a plain SELECT (never waits on an update).
 *   The last summary seen per session is kept in an in-process LRU: when the database is
 *   unreachable (or slower than SUMMARY_READ_TIMEOUT_MS) it is served marked stale if the
 *   database confirmed it within SUMMARY_FALLBACK_MAX_AGE_MS, else seed 000's placeholder
 *   with a 503.
 * - putSummary: a manual version, compare-and-set on the version the caller read.
 * - refresh: queue an update now (high priority).
 * - context / continuation: what to send to the model now; seed 003's fields.
 */
import { createHash } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { Config } from '../config.ts'
import type { Database } from '../db/schema.ts'
import { CompactionError } from '../engine/compaction/compact.ts'
import { DEFAULT_COMPACT_OPTIONS, type CompactOptions, type StrategyName } from '../engine/compaction/types.ts'
import { createdSystemMessage, isSystemLike, parseConversation, sessionSystemMessages, withoutTimestamps, type CanonicalMessage, type MessageFormat } from '../engine/messages/index.ts'
import {
  continuationOf,
  parseSummary,
  planWindowEviction,
  renderContinuationPrompt,
  sessionExchanges,
  withCarriedOverContinuation,
  type Continuation,
  type ContinuationField,
} from '../engine/sessions/index.ts'
import { messageTokens, type MessageCountCache, type TokenCounter } from '../engine/tokens/count.ts'
import { ApiError } from '../errors.ts'
import type { SummarizerRegistry } from '../providers/summarizer-clients.ts'
import type { ComputeRunner } from '../services/compute-tasks.ts'
import { defaultCounter, modelFor, thresholdOrRefuse } from '../services/estimate.ts'
import { appendCountsBytes, computeAppendCounts } from './append-counts.ts'
import { computeContextCompaction, contextCompactionBytes } from './context-compaction.ts'
import type { SessionMetrics } from './metrics.ts'
import { enqueue, PRIORITY_HIGH, PRIORITY_LOW, priorityName } from './queue.ts'
import {
  countEvicted,
  countersOf,
  createSessionIfMissing,
  defaultSettings,
  deleteSession,
  findIdempotentResponse,
  getSession,
  insertMessages,
  insertSummaryVersion,
  isSystemRole,
  isUniqueViolation,
  latestSummary,
  lockSession,
  maxSeq,
  messageCounters,
  messagesWithStatus,
  readSummaryState,
  saveSettings,
  setStatus,
  storeIdempotentResponse,
  toCanonical,
  upsertAndLockSession,
  windowAndEvicted,
  type MessageCounters,
  type SessionSettings,
  type StoredMessage,
  type StoredSummary,
  type SummaryState,
} from './repository.ts'

/** Seed 000's fallback when neither the database nor this process has a summary. */
export const SUMMARY_UNAVAILABLE = '[Summary temporarily unavailable]'
/** A summary read slower than this is treated as a database outage (served from the LRU). */
export const SUMMARY_READ_TIMEOUT_MS = 2_000
/** Above this many evicted messages awaiting summary, a batch is assumed without counting. */
const COUNT_EXCHANGES_UP_TO = 2_000

// ---------------------------------------------------------------------------
// The in-process LRU of summaries seen

export interface SummaryView {
  sessionId: string
  /** 0 while no summary exists. */
  version: number
  /** The stored document, item comments included (what PUT /summary takes back). */
  content: string
  /** The same without the machine comments: what to show or send to a model. */
  text: string
  tokens: number
  budget: number
  updatedAt: string | null
  source: 'background' | 'manual' | null
  /** Evicted messages not yet folded in (or served from this process's memory). */
  stale: boolean
  evictedAwaitingSummary: number
  update: { status: 'pending' | 'running' | 'failed' } | null
  /** True when the database could not be read and this is the last summary this process saw. */
  degraded: boolean
}

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

// ---------------------------------------------------------------------------

export interface SettingsInput {
  format?: MessageFormat
  model?: string
  system?: string | unknown[] | null
  windowMessages?: number
  windowTokens?: number
  summaryBudget?: number
  batchSize?: number
  mode?: 'rules' | 'llm'
  summarizer?: { provider: 'openai' | 'anthropic'; model?: string } | null
}

export interface AppendInput {
  messages: unknown[]
  format?: MessageFormat
  system?: unknown
}

export interface AppendResult {
  sessionId: string
  appended: number
  /** seq of the first and last appended message (null when nothing was appended). */
  firstSeq: number | null
  lastSeq: number | null
  messageCount: number
  windowMessages: number
  windowTokens: number
  evicted: number
  evictedAwaitingSummary: number
  evictedExchangesAwaitingSummary: number
  updateQueued: boolean
}

export interface SessionView extends MessageCounters {
  id: string
  settings: SessionSettings
  summary: { version: number; tokens: number; updatedAt: string; source: string } | null
  update: { status: 'pending' | 'running' | 'failed' } | null
  createdAt: string
  updatedAt: string
}

export interface ContextResult {
  sessionId: string
  format: MessageFormat
  model: string
  budget: number
  tokens: number
  compacted: boolean
  strategy: string
  summaryVersion: number
  stale: boolean
  messages: unknown[]
  system?: unknown
}

export interface ContinuationResult extends Continuation {
  sessionId: string
  version: number
  updatedAt: string | null
  stale: boolean
  degraded: boolean
  prompt: string
}

export interface SessionServiceOptions {
  db: Kysely<Database>
  config: Config
  summarizers?: SummarizerRegistry
  metrics?: SessionMetrics
  cache?: SummaryCache
  summaryReadTimeoutMs?: number
  log?: { warn(obj: object, msg: string): void }
  /** Per-message token counts remembered across requests (src/plugins/token-cache.ts), per tenant. */
  tokenCache?: { for(tenantId: string): MessageCountCache }
  /** The compute pool, for GET /context's compaction; none: on the event loop. */
  compute?: ComputeRunner
}

const notFound = (id: string) => new ApiError(404, 'not_found', `no session ${JSON.stringify(id)}`)

export class SessionService {
  readonly cache: SummaryCache
  private readonly db: Kysely<Database>
  private readonly config: Config
  private readonly readTimeoutMs: number

  constructor(private readonly opts: SessionServiceOptions) {
    this.db = opts.db
    this.config = opts.config
    this.cache = opts.cache ?? new SummaryCache()
    this.readTimeoutMs = opts.summaryReadTimeoutMs ?? SUMMARY_READ_TIMEOUT_MS
  }

  /** Token counts of appended messages: in the compute pool when they are large. */
  private appendCounts(tenantId: string, messages: CanonicalMessage[], model: string | undefined): Promise<number[]> {
    const input = { messages, model }
    if (!this.opts.compute) return Promise.resolve(computeAppendCounts(this.config, input, { tokenCache: this.opts.tokenCache?.for(tenantId) }))
    return this.opts.compute.run('append-counts', input, { bytes: appendCountsBytes(messages), cacheScope: tenantId })
  }

  /** The session model's counter; with `tenantId`, one that uses the token-count cache. */
  counterFor(settings: SessionSettings, tenantId?: string): TokenCounter {
    return defaultCounter(modelFor(this.config, settings.model), undefined, tenantId === undefined ? undefined : this.opts.tokenCache?.for(tenantId))
  }

  // -------------------------------------------------------------------------
  // Settings

  /** PUT /sessions/:id: creates the session or updates the given settings. */
  async putSession(tenantId: string, sessionId: string, input: SettingsInput): Promise<{ created: boolean; session: SessionView }> {
    const merged = (base: SessionSettings): SessionSettings => {
      const next: SessionSettings = { ...base }
      for (const [k, v] of Object.entries(input) as [keyof SettingsInput, unknown][]) {
        if (v === undefined) continue
        if (v === null) delete (next as unknown as Record<string, unknown>)[k]
        else (next as unknown as Record<string, unknown>)[k] = v
      }
      return next
    }
    if (input.system !== undefined && input.system !== null && input.format === 'anthropic') parseConversation([], { format: 'anthropic', system: input.system })
    const created = await this.db.transaction().execute(async (trx) => {
      const isNew = await createSessionIfMissing(trx, tenantId, sessionId, defaultSettings())
      const row = (await lockSession(trx, tenantId, sessionId))!
      const next = merged(row.settings)
      if (input.format !== undefined && row.settings.format !== undefined && input.format !== row.settings.format) {
        const stored = await maxSeq(trx, tenantId, sessionId)
        if (stored > 0) {
          throw new ApiError(409, 'format_locked', `session ${JSON.stringify(sessionId)} already holds ${row.settings.format} messages; its format cannot change`, [
            { path: 'body.format', message: `the session's messages are in ${row.settings.format} format` },
          ])
        }
      }
      this.validateSettings(next)
      await saveSettings(trx, tenantId, sessionId, next)
      return isNew
    })
    return { created, session: (await this.getSession(tenantId, sessionId))! }
  }

  private validateSettings(s: SessionSettings): void {
    if (s.mode === 'llm') {
      // SummarizerSelectionError → 400 body.summarizer.<field>.
      if (!this.opts.summarizers) throw new ApiError(400, 'invalid_summarizer', 'no summarizer is configured on this server', [{ path: 'body.mode', message: 'llm needs a summarizer' }])
      this.opts.summarizers.get(s.summarizer?.provider, s.summarizer?.model)
    }
  }

  async getSession(tenantId: string, sessionId: string): Promise<SessionView | undefined> {
    const session = await getSession(this.db, tenantId, sessionId)
    if (!session) return undefined
    const [counters, state] = await Promise.all([messageCounters(this.db, tenantId, sessionId), readSummaryState(this.db, tenantId, sessionId)])
    const s = state?.summary
    return {
      id: sessionId,
      settings: session.settings,
      ...counters,
      summary: s ? { version: s.version, tokens: s.tokens, updatedAt: s.updatedAt.toISOString(), source: s.source } : null,
      update: updateState(state),
      createdAt: session.createdAt.toISOString(),
      updatedAt: session.updatedAt.toISOString(),
    }
  }

  async deleteSession(tenantId: string, sessionId: string): Promise<boolean> {
    const deleted = await deleteSession(this.db, tenantId, sessionId)
    this.cache.delete(tenantId, sessionId)
    return deleted
  }

  // -------------------------------------------------------------------------
  // Appends

  async appendMessages(tenantId: string, sessionId: string, input: AppendInput, idempotencyKey?: string): Promise<{ result: AppendResult; replayed: boolean }> {
    const known = await getSession(this.db, tenantId, sessionId)
    const sessionFormat = known?.settings.format
    if (sessionFormat && input.format && input.format !== sessionFormat) {
      throw new ApiError(400, 'format_mismatch', `session ${JSON.stringify(sessionId)} holds ${sessionFormat} messages; send ${sessionFormat} (or omit format)`, [
        { path: 'body.format', message: `expected ${sessionFormat}` },
      ])
    }
    const conversation = parseConversation(input.messages, { format: sessionFormat ?? input.format, system: input.system })
    const format = conversation.format
    // Anthropic's top-level system is a setting, not a message.
    const parsed = conversation.messages.filter((m) => !(m.index === -1 && conversation.anthropicSystem !== undefined))
    const system = conversation.anthropicSystem ?? (input.system !== undefined ? input.system : undefined)
    const requestHash = createHash('sha256')
      .update(JSON.stringify([input.messages, input.format ?? null, input.system ?? null]))
      .digest('hex')
    const appendedAt = new Date()
    // Counted before the transaction (the session row stays locked only for the writes), by
    // the model the session has now; in the rare case it changes meanwhile, counted again.
    const countedFor = known?.settings.model
    const counts = await this.appendCounts(tenantId, parsed, countedFor)

    let queued: 'new' | 'merged' | undefined
    const out = await this.db.transaction().execute(async (trx) => {
      const session = await upsertAndLockSession(trx, tenantId, sessionId, { ...defaultSettings(), format })
      if (idempotencyKey !== undefined) {
        const stored = await findIdempotentResponse(trx, tenantId, sessionId, idempotencyKey)
        if (stored) {
          if (stored.requestHash !== requestHash) {
            throw new ApiError(422, 'idempotency_key_reused', `Idempotency-Key ${JSON.stringify(idempotencyKey)} was used for a different request to this session`, [
              { path: 'headers.idempotency-key', message: 'already used with another body' },
            ])
          }
          return { result: stored.response as AppendResult, replayed: true }
        }
      }
      let settings = session.settings
      if (settings.format === undefined || (system !== undefined && JSON.stringify(system) !== JSON.stringify(settings.system))) {
        if (settings.format !== undefined && settings.format !== format) {
          throw new ApiError(400, 'format_mismatch', `session ${JSON.stringify(sessionId)} holds ${settings.format} messages`, [{ path: 'body.messages', message: `expected ${settings.format} messages` }])
        }
        settings = { ...settings, format, ...(system !== undefined ? { system: system as string | unknown[] } : {}) }
        await saveSettings(trx, tenantId, sessionId, settings)
      } else if (settings.format !== format) {
        throw new ApiError(400, 'format_mismatch', `session ${JSON.stringify(sessionId)} holds ${settings.format} messages; send ${settings.format}`, [
          { path: 'body.format', message: `expected ${settings.format}` },
        ])
      }
      const tokens = settings.model === countedFor ? counts : parsed.map((m) => messageTokens(m, this.counterFor(settings, tenantId)))
      const before = await windowAndEvicted(trx, tenantId, sessionId, COUNT_EXCHANGES_UP_TO + 1)
      const fresh = parsed.map((m, i) => ({ raw: m.raw, role: m.role, tokens: tokens[i]!, messageAt: m.timestamp ? new Date(m.timestamp) : appendedAt }))
      const seqs = await insertMessages(trx, tenantId, sessionId, format, before.lastSeq, fresh)

      // The window now (in memory: what was read plus what was inserted), evicted from
      // its oldest end in whole units (planWindowEviction). System messages stay.
      const all = [...before.window, ...fresh.map((m, i): StoredMessage => ({ ...m, seq: seqs[i]!, status: 'window' }))]
      const window = all.filter((r) => !isSystemRole(r.role))
      const canonical = toCanonical(window, format)
      const eviction = planWindowEviction(canonical, window.map((r) => r.tokens), settings)
      const evictedNow = window.slice(0, eviction.evicted)
      if (evictedNow.length) await setStatus(trx, tenantId, sessionId, evictedNow.map((r) => r.seq), 'window', 'evicted')

      const backlogTruncated = before.evicted.length > COUNT_EXCHANGES_UP_TO
      const evictedTotal = (backlogTruncated ? await countEvicted(trx, tenantId, sessionId) : before.evicted.length) + evictedNow.length
      const counters = countersOf(before.lastSeq + seqs.length, eviction.messages, eviction.tokens, all.length - window.length, evictedTotal)
      let exchanges = 0
      if (evictedTotal > 0) {
        // What was evicted now is the window's head: its messages are parsed already.
        exchanges =
          backlogTruncated || evictedTotal > COUNT_EXCHANGES_UP_TO
            ? Number.MAX_SAFE_INTEGER
            : sessionExchanges([...toCanonical(before.evicted, format), ...canonical.slice(0, evictedNow.length)]).length
      }
      const updateQueued = evictedNow.length > 0 && exchanges >= settings.batchSize
      if (updateQueued) queued = await enqueue(trx, tenantId, sessionId, PRIORITY_LOW)

      const result: AppendResult = {
        sessionId,
        appended: seqs.length,
        firstSeq: seqs[0] ?? null,
        lastSeq: seqs.at(-1) ?? null,
        messageCount: counters.messageCount,
        windowMessages: counters.windowMessages,
        windowTokens: counters.windowTokens,
        evicted: evictedNow.length,
        evictedAwaitingSummary: counters.evictedAwaitingSummary,
        evictedExchangesAwaitingSummary: Math.min(exchanges, counters.evictedAwaitingSummary),
        updateQueued,
      }
      if (idempotencyKey !== undefined) await storeIdempotentResponse(trx, tenantId, sessionId, idempotencyKey, requestHash, result)
      return { result, replayed: false }
    })
    if (queued) this.opts.metrics?.onUpdateQueued(priorityName(PRIORITY_LOW), queued)
    return out
  }

  // -------------------------------------------------------------------------
  // Summary

  /**
   * The current summary. `status` 503 only when the database is unreachable and this
   * process has never seen the session's summary.
   */
  async getSummary(tenantId: string, sessionId: string): Promise<{ status: 200 | 503; view: SummaryView }> {
    let state: SummaryState | undefined
    try {
      state = await withTimeout(readSummaryState(this.db, tenantId, sessionId), this.readTimeoutMs)
    } catch (err) {
      this.opts.log?.warn({ err: errorSummary(err), sessionId }, 'summary read failed: serving the last summary this process saw')
      // Only what the database confirmed recently: another instance may have deleted the session since (privacy).
      const cached = this.cache.fresh(tenantId, sessionId, this.config.SUMMARY_FALLBACK_MAX_AGE_MS)
      if (cached) return { status: 200, view: { ...cached, stale: true, degraded: true } }
      return {
        status: 503,
        view: {
          sessionId,
          version: 0,
          content: SUMMARY_UNAVAILABLE,
          text: SUMMARY_UNAVAILABLE,
          tokens: 0,
          budget: 0,
          updatedAt: null,
          source: null,
          stale: true,
          evictedAwaitingSummary: 0,
          update: null,
          degraded: true,
        },
      }
    }
    if (!state) {
      this.cache.delete(tenantId, sessionId)
      throw notFound(sessionId)
    }
    const view = toView(sessionId, state)
    this.cache.set(tenantId, sessionId, view)
    return { status: 200, view }
  }

  /**
   * PUT /summary: a manual version. CAS: `baseVersion` (the version the caller read) must
   * still be current. Continuation fields the text does not state are carried over from
   * the version it replaces (engine/sessions/manual-edit.ts) and listed in the answer.
   */
  async putSummary(tenantId: string, sessionId: string, input: { content: string; baseVersion?: number }): Promise<SummaryView & { continuationCarriedOver: ContinuationField[] }> {
    const session = await getSession(this.db, tenantId, sessionId)
    if (!session) throw notFound(sessionId)
    const counter = this.counterFor(session.settings)
    const conflict = (current: number) =>
      new ApiError(409, 'version_conflict', `the summary is at version ${current}, not ${input.baseVersion}: read it again and retry`, [{ path: 'body.baseVersion', message: `current version is ${current}` }], { currentVersion: current })
    let carriedOver: ContinuationField[] = []
    try {
      await this.db.transaction().execute(async (trx) => {
        const latest = await latestSummary(trx, tenantId, sessionId)
        const current = latest?.version ?? 0
        if (input.baseVersion !== undefined && input.baseVersion !== current) throw conflict(current)
        const written = withCarriedOverContinuation(input.content, latest?.content, Date.now())
        carriedOver = written.carriedOver
        // The budget holds for what is stored, carried-over fields included.
        const tokens = Math.ceil(counter.text(written.content) * counter.margin)
        if (tokens > session.settings.summaryBudget) {
          const carried = carriedOver.length ? ` (with ${carriedOver.join(', ')} carried over from version ${current}; state them to replace them)` : ''
          throw new ApiError(422, 'summary_over_budget', `the summary has ${tokens} tokens${carried}, over the session's budget of ${session.settings.summaryBudget}`, [
            { path: 'body.content', message: `${tokens} tokens > summaryBudget ${session.settings.summaryBudget}` },
          ])
        }
        await insertSummaryVersion(trx, tenantId, sessionId, { version: current + 1, content: written.content, tokens, source: 'manual' })
      })
    } catch (err) {
      // A concurrent writer (a background update) took the same version first.
      if (isUniqueViolation(err)) throw conflict((await latestSummary(this.db, tenantId, sessionId))?.version ?? 0)
      throw err
    }
    return { ...(await this.getSummary(tenantId, sessionId)).view, continuationCarriedOver: carriedOver }
  }

  /** POST /summary/refresh: queue an update now, at high priority. */
  async refresh(tenantId: string, sessionId: string): Promise<{ queued: 'new' | 'merged'; evictedAwaitingSummary: number }> {
    const session = await getSession(this.db, tenantId, sessionId)
    if (!session) throw notFound(sessionId)
    const queued = await enqueue(this.db, tenantId, sessionId, PRIORITY_HIGH)
    this.opts.metrics?.onUpdateQueued('high', queued)
    const counters = await messageCounters(this.db, tenantId, sessionId)
    return { queued, evictedAwaitingSummary: counters.evictedAwaitingSummary }
  }

  /** Called by the worker after it wrote a version (keeps the LRU current). */
  noteSummaryWritten(tenantId: string, sessionId: string, settings: SessionSettings, s: StoredSummary, evictedAwaitingSummary: number): void {
    this.cache.set(tenantId, sessionId, toView(sessionId, { settings, summary: s, evictedAwaitingSummary, queue: undefined }))
  }

  // -------------------------------------------------------------------------
  // What to send now

  async continuation(tenantId: string, sessionId: string, now: number = Date.now()): Promise<ContinuationResult> {
    const { status, view } = await this.getSummary(tenantId, sessionId)
    if (status === 503) throw new ApiError(503, 'summary_unavailable', `${SUMMARY_UNAVAILABLE}: the database is unreachable and this process has not seen the session's summary; retry shortly`)
    const c = continuationOf(parseSummary(view.content, now))
    return { sessionId, version: view.version, updatedAt: view.updatedAt, stale: view.stale, degraded: view.degraded, ...c, prompt: renderContinuationPrompt(c) }
  }

  /**
   * GET /context: system messages, the summary, the evicted messages not yet folded into
   * it (so nothing is lost while an update is pending), then the window; trimmed by the
   * compaction engine (offline strategies) to the budget; in the requested format.
   */
  async context(tenantId: string, sessionId: string, q: { budget?: number; format?: MessageFormat; model?: string }): Promise<ContextResult> {
    // One snapshot: messages folded by an update that commits meanwhile are in exactly one of summary and messages.
    const snap = await this.db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => {
        const session = await getSession(trx, tenantId, sessionId)
        if (!session) return undefined
        const evicted = await messagesWithStatus(trx, tenantId, sessionId, 'evicted')
        const window = await messagesWithStatus(trx, tenantId, sessionId, 'window')
        const summary = await latestSummary(trx, tenantId, sessionId)
        return { session, rows: [...evicted, ...window].sort((a, b) => a.seq - b.seq), evicted: evicted.length, summary }
      })
    if (!snap) throw notFound(sessionId)
    const { settings } = snap.session
    const sessionFormat = settings.format ?? q.format ?? 'openai'
    const format = q.format ?? sessionFormat
    const model = modelFor(this.config, q.model ?? settings.model)
    // Without a budget, the model's threshold, as /compact's default target: a model whose
    // window the default reserves fill (gpt-4) has none, a 400 asking for the budget.
    const budget =
      q.budget ??
      thresholdOrRefuse(this.config, model, {}, {
        issues: [{ path: 'querystring.budget', message: `needed for model "${model.id}": it has no default budget` }],
        fix: 'give ?budget=N',
      })

    const all = toCanonical(snap.rows, sessionFormat)
    const head: CanonicalMessage[] = []
    if (settings.system !== undefined) head.push(...sessionSystemMessages(settings.system, sessionFormat))
    head.push(...all.filter(isSystemLike))
    const summaryText = snap.summary ? displayText(snap.summary.content).trim() : ''
    if (summaryText) head.push(createdSystemMessage(`Summary of the earlier part of this session (rolling summary, version ${snap.summary!.version}):\n\n${summaryText}`, sessionFormat))
    const messages = [...head, ...all.filter((m) => !isSystemLike(m))]

    const strategy = this.config.COMPACTION_DEFAULT_STRATEGY.map((s): StrategyName => (s === 'llm' ? 'rules' : s))
    const options: CompactOptions = {
      ...DEFAULT_COMPACT_OPTIONS,
      format: sessionFormat,
      targetTokens: budget,
      thresholdTokens: budget,
      keepFirst: 0,
      keepRecent: this.config.COMPACTION_KEEP_RECENT,
      strategy: [...new Set(strategy)],
      maxSummaryTokens: this.config.COMPACTION_MAX_SUMMARY_TOKENS,
    }
    // CPU work: the compute pool (a small session stays inline).
    let tokens = 0
    for (const r of snap.rows) tokens += r.tokens
    const task = { messages, options, model: q.model ?? settings.model, format }
    const run = this.opts.compute
      ? this.opts.compute.run('context', task, { bytes: contextCompactionBytes(tokens + (snap.summary?.content.length ?? 0) / 4), cacheScope: tenantId })
      : computeContextCompaction(this.config, task, { tokenCache: this.opts.tokenCache?.for(tenantId) })
    const result = await run.catch((err: unknown) => {
      // Name the query parameter the caller set, with the reachable minimum.
      if (err instanceof CompactionError && err.code === 'budget_unreachable') {
        throw new ApiError(422, 'budget_unreachable', err.message, [{ path: 'querystring.budget', message: `at least ${String(err.details.minimumTokens)} tokens are needed` }], {
          budget,
          minimumTokens: err.details.minimumTokens,
        })
      }
      throw err
    })
    if (result.compacted) this.opts.metrics?.onCompaction(result.event)
    return {
      sessionId,
      format,
      model: model.id,
      budget,
      tokens: result.event.tokensAfter,
      compacted: result.compacted,
      strategy: result.strategy,
      summaryVersion: snap.summary?.version ?? 0,
      stale: snap.evicted > 0,
      messages: result.messages.map((m) => withoutTimestamps(m, format)),
      ...(result.system !== undefined ? { system: result.system } : {}),
    }
  }
}

// ---------------------------------------------------------------------------

function updateState(state: SummaryState | undefined): SummaryView['update'] {
  if (!state?.queue) return null
  return { status: state.queue.status === 'failed' ? 'failed' : state.queue.running ? 'running' : 'pending' }
}

function toView(sessionId: string, state: SummaryState): SummaryView {
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

async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms)
      }),
    ])
  } finally {
    clearTimeout(timer)
  }
}

function errorSummary(err: unknown): { message: string; code?: string } {
  const e = err as { message?: unknown; code?: unknown }
  return { message: String(e?.message ?? err), ...(typeof e?.code === 'string' ? { code: e.code } : {}) }
}

export type { StoredMessage }
