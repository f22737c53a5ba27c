/**
 * POST /sessions/:id/messages: parse in the session's format, assign seq, evict from the
 * window's oldest end at atomic-unit boundaries (a tool call never leaves its results)
 * while the window is over windowMessages or windowTokens, and queue a low-priority
 * summary update once batchSize evicted exchanges await one. Idempotent by key: a
 * retried key returns the stored response and appends nothing. One transaction, under
 * the session row's lock (appends and updates of one session serialise on it).
 */
import { createHash } from 'node:crypto'
import type { z } from 'zod'
import type { Transaction } from 'kysely'
import type { Database } from '../../db/schema.ts'
import { archiveRecord, toolNamesOf } from '../../engine/archive/record.ts'
import { parseConversation, type CanonicalMessage } from '../../engine/messages/index.ts'
import type { ArchiveIndexer } from '../archive/indexer.ts'
import { archiveGate, archiveInTransaction, archivePolicy, type ArchiveReport } from '../archive/policy.ts'
import { planWindowEviction, sessionExchanges } from '../../engine/sessions/index.ts'
import { messageTokens, type TokenCounter } from '../../engine/tokens/count.ts'
import { ApiError } from '../../errors.ts'
import { enqueue, PRIORITY_LOW, priorityName } from '../../sessions/queue.ts'
import {
  countEvicted,
  countersOf,
  defaultSettings,
  findIdempotentResponse,
  getSession as readSession,
  insertMessages,
  isSystemRole,
  saveSettings,
  setStatus,
  storeIdempotentResponse,
  toCanonical,
  upsertAndLockSession,
  windowAndEvicted,
  type SessionSettings,
  type StoredMessage,
} from '../../sessions/repository.ts'
import type { UseCaseDeps } from '../deps.ts'
import type { appendBody, appendResponse } from '../shapes/sessions.ts'
import { defaultCounter, modelFor } from '../model-budget.ts'
import { appendCountsBytes } from './append-counts.ts'

/** Above this many evicted messages awaiting summary, a batch is assumed without counting. */
const COUNT_EXCHANGES_UP_TO = 2_000

/** POST /sessions/:id/messages' body and answer (src/use-cases/shapes/sessions.ts). */
export type AppendInput = z.infer<typeof appendBody>

export type AppendResult = z.infer<typeof appendResponse>

export type AppendDeps = Pick<UseCaseDeps, 'db' | 'config' | 'compute' | 'metrics' | 'tokenCache'> & { archiveIndexer?: ArchiveIndexer }

export function makeAppendMessages(deps: AppendDeps) {
  const { db, config } = deps
  const policy = archivePolicy(config)

  /** Token counts of appended messages: in the compute pool when they are large. */
  function appendCounts(tenantId: string, messages: CanonicalMessage[], model: string | undefined): Promise<number[]> {
    const input = { messages, model }
    return deps.compute.run('append-counts', input, { bytes: appendCountsBytes(messages), cacheScope: tenantId })
  }

  /** The session model's counter; with `tenantId`, one that uses the token-count cache. */
  function counterFor(settings: SessionSettings, tenantId?: string): TokenCounter {
    return defaultCounter(modelFor(config, settings.model), undefined, tenantId === undefined ? undefined : deps.tokenCache?.for(tenantId))
  }

  async function appendMessages(tenantId: string, sessionId: string, input: AppendInput, idempotencyKey?: string): Promise<{ result: AppendResult; replayed: boolean }> {
    const known = await readSession(db, tenantId, sessionId)
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
    const counts = await appendCounts(tenantId, parsed, countedFor)

    let queued: 'new' | 'merged' | undefined
    const out = await db.transaction().execute(async (trx) => {
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
      const tokens = settings.model === countedFor ? counts : parsed.map((m) => messageTokens(m, counterFor(settings, tenantId)))
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
      // Evicted messages are archived (issue 21): searchable like what a compaction drops.
      const archive = evictedNow.length ? await archiveEvicted(trx, tenantId, sessionId, canonical.slice(0, evictedNow.length), evictedNow) : undefined

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
        ...(archive ? { archive } : {}),
      }
      if (idempotencyKey !== undefined) await storeIdempotentResponse(trx, tenantId, sessionId, idempotencyKey, requestHash, result)
      return { result, replayed: false }
    })
    if (queued) deps.metrics?.onUpdateQueued(priorityName(PRIORITY_LOW), queued)
    if (out.result.archive?.archived) deps.archiveIndexer?.schedule(tenantId, sessionId)
    return out
  }

  /** The evicted messages archived, as a compaction's are, when the archive is on and under its quota. */
  async function archiveEvicted(trx: Transaction<Database>, tenantId: string, sessionId: string, messages: readonly CanonicalMessage[], rows: readonly StoredMessage[]): Promise<ArchiveReport> {
    const gate = await archiveGate(trx, policy, tenantId)
    if (!gate.open) return gate.report
    const names = toolNamesOf(messages)
    const records = messages.map((m, i) => ({ ...archiveRecord(m, names), position: rows[i]!.seq }))
    return archiveInTransaction(trx, policy, { tenantId, sessionId, checkpointNum: null, source: 'session' }, records)
  }

  return appendMessages
}
