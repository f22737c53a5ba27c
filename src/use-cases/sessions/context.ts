/**
 * What to send the model now: GET /context (system messages, the summary, the evicted
 * messages not yet folded into it, then the window, trimmed to a budget) and GET
 * /continuation (seed 003's fields and prompt block, read from the summary).
 */
import type { z } from 'zod'
import { CompactionError } from '../../engine/compaction/compact.ts'
import { offlinePipeline } from '../../engine/compaction/strategies/index.ts'
import { DEFAULT_COMPACT_OPTIONS, type CompactOptions } from '../../engine/compaction/types.ts'
import { createdSystemMessage, isSystemLike, parseConversation, sessionSystemMessages, withoutTimestamps, type CanonicalMessage, type MessageFormat } from '../../engine/messages/index.ts'
import { continuationOf, parseSummary, renderContinuationPrompt } from '../../engine/sessions/index.ts'
import { ApiError } from '../../errors.ts'
import { getSession as readSession, latestSummary, messagesWithStatus, toCanonical } from '../../sessions/repository.ts'
import type { UseCaseDeps } from '../deps.ts'
import type { contextQuery, contextResponse, continuationResponse } from '../shapes/sessions.ts'
import { modelFor, thresholdOrRefuse } from '../model-budget.ts'
import { contextCompactionBytes } from './context-compaction.ts'
import { foldedPins, holdOf, sessionContract } from './context-controls.ts'
import { breakerOpen, type Breaker } from '../compact/breaker.ts'
import { unkeptError } from '../compact/contract.ts'
import { displayText, type SummaryView } from './summary-cache.ts'
import { sessionNotFound } from './not-found.ts'
import { SUMMARY_UNAVAILABLE } from './summary.ts'

/** GET /context's and GET /continuation's answers (src/use-cases/shapes/sessions.ts). */
export type ContextResult = z.infer<typeof contextResponse>

export type ContinuationResult = z.infer<typeof continuationResponse>

export type SessionContextDeps = Pick<UseCaseDeps, 'db' | 'config' | 'compute' | 'metrics'> & {
  breaker: Pick<Breaker, 'status' | 'refused' | 'recordAutomatic'>
  /** The summary as GET /summary reads it (the continuation is read from it, with its fallback). */
  getSummary(tenantId: string, sessionId: string): Promise<{ status: 200 | 503; view: SummaryView }>
}

export function makeSessionContext(deps: SessionContextDeps) {
  const { db, config, getSummary } = deps

  async function continuation(tenantId: string, sessionId: string, now: number = Date.now()): Promise<ContinuationResult> {
    const { status, view } = await getSummary(tenantId, sessionId)
    if (status === 503) throw new ApiError(503, 'summary_unavailable', `${SUMMARY_UNAVAILABLE}: the database is unreachable and this process has not seen the session's summary; retry shortly`)
    const c = continuationOf(parseSummary(view.content, now))
    return { sessionId, version: view.version, updatedAt: view.updatedAt, stale: view.stale, degraded: view.degraded, ...c, prompt: renderContinuationPrompt(c) }
  }

  /**
   * GET /context: system messages, the summary, the evicted messages not yet folded into
   * it (so nothing is lost while an update is pending), then the window; trimmed by the
   * compaction engine (offline strategies) to the budget; in the requested format.
   */
  async function context(tenantId: string, sessionId: string, q: z.infer<typeof contextQuery>): Promise<ContextResult> {
    // One snapshot: messages folded by an update that commits meanwhile are in exactly one of summary and messages.
    const snap = await db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => {
        const session = await readSession(trx, tenantId, sessionId)
        if (!session) return undefined
        const evicted = await messagesWithStatus(trx, tenantId, sessionId, 'evicted')
        const window = await messagesWithStatus(trx, tenantId, sessionId, 'window')
        const summary = await latestSummary(trx, tenantId, sessionId)
        const live = [...evicted, ...window]
        // Pinned messages already folded into the summary come back verbatim, with their tool pairs.
        const pinned = await foldedPins(trx, tenantId, sessionId, session.settings, live)
        return { session, rows: [...pinned, ...live].sort((a, b) => a.seq - b.seq), evicted: evicted.length, summary }
      })
    if (!snap) throw sessionNotFound(sessionId)
    const { settings } = snap.session
    const sessionFormat = settings.format ?? q.format ?? 'openai'
    const format = q.format ?? sessionFormat
    const model = modelFor(config, q.model ?? settings.model)
    // Without a budget, the model's threshold, as /compact's default target: a model whose
    // window the default reserves fill (gpt-4) has none, a 400 asking for the budget.
    const budget =
      q.budget ??
      thresholdOrRefuse(config, model, {}, {
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
    const pinSeqs = new Set(settings.pin ?? [])
    const pin = all.flatMap((m, i) => (pinSeqs.has(snap.rows[i]!.seq) ? [m.index] : []))

    const options: CompactOptions = {
      ...DEFAULT_COMPACT_OPTIONS,
      format: sessionFormat,
      targetTokens: budget,
      thresholdTokens: budget,
      keepFirst: 0,
      keepRecent: config.COMPACTION_KEEP_RECENT,
      strategy: offlinePipeline(config.COMPACTION_DEFAULT_STRATEGY),
      maxSummaryTokens: config.COMPACTION_MAX_SUMMARY_TOKENS,
      ...(settings.focus ? { focus: settings.focus } : {}),
      ...(settings.thinking ? { thinking: settings.thinking } : {}),
    }
    // Read once: whether automatic compaction is paused, and the last one recorded.
    const breaker = await deps.breaker.status(tenantId, sessionId)
    const open = breaker.state === 'open' ? breaker : undefined
    const hold = holdOf(settings.trigger, messages, model.contextLimit, open)
    // CPU work: the compute pool (a small session stays inline).
    let tokens = 0
    for (const r of snap.rows) tokens += r.tokens
    const bytes = contextCompactionBytes(tokens + (snap.summary?.content.length ?? 0) / 4)
    const contract = sessionContract(settings, snap.rows, messages, summaryText, format === sessionFormat ? format : undefined)
    const run = (pins: number[]) => {
      const task = { messages, options: { ...options, ...(pins.length ? { pin: pins } : {}) }, model: q.model ?? settings.model, format, ...hold }
      return deps.compute.run('context', task, { bytes, cacheScope: tenantId }).catch((err: unknown) => {
        // Name the query parameter the caller set, with the reachable minimum.
        if (err instanceof CompactionError && err.code === 'budget_unreachable') {
          if (pins.length || contract.report?.preserved.length) throw unkeptError({ pin: contract.report?.pinned ?? [], preserve: contract.report?.preserved ?? [] }, budget)
          throw new ApiError(422, 'budget_unreachable', err.message, [{ path: 'querystring.budget', message: `at least ${String(err.details.minimumTokens)} tokens are needed` }], {
            budget,
            minimumTokens: err.details.minimumTokens,
          })
        }
        throw err
      })
    }
    let result = await run(pin)
    let unkept = result.compacted ? contract.unkept(result) : undefined
    if (unkept?.preserve.length) {
      result = await run([...new Set([...pin, ...contract.pinsFor(unkept.preserve)])])
      unkept = result.compacted ? contract.unkept(result) : undefined
    }
    if (unkept && (unkept.pin.length || unkept.preserve.length)) throw unkeptError(unkept, budget)
    // Refused only when a compaction was needed: a context within the budget is served.
    if (open && result.event.tokensAfter > budget) {
      deps.breaker.refused('context')
      throw breakerOpen(sessionId, open)
    }
    if (result.compacted) {
      deps.metrics?.onCompaction(result.event)
      const lastSeq = snap.rows.at(-1)?.seq ?? 0
      await deps.breaker.recordAutomatic(tenantId, sessionId, { messages: lastSeq, freedTokens: Math.max(0, result.event.tokensBefore - result.event.tokensAfter), windowTokens: budget }, undefined, breaker)
    }
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
      ...(result.reason ? { reason: result.reason } : {}),
      ...(contract.report ? { contract: contract.report } : {}),
      messages: result.messages.map((m) => withoutTimestamps(m, format)),
      ...(result.system !== undefined ? { system: result.system } : {}),
    }
  }

  return { context, continuation }
}
