/**
 * A session's settings: PUT /sessions/:id creates the session or changes the settings it
 * is given, GET reads them with the session's counters, DELETE removes the session and
 * everything it holds.
 */
import type { z } from 'zod'
import { getAdapter, parseConversation } from '../../engine/messages/index.ts'
import { ApiError } from '../../errors.ts'
import {
  createSessionIfMissing,
  defaultSettings,
  deleteSession as removeSession,
  getSession as readSession,
  lockSession,
  maxSeq,
  messageCounters,
  readSummaryState,
  saveSettings,
  type SessionSettings,
} from '../../sessions/repository.ts'
import type { UseCaseDeps } from '../deps.ts'
import type { putSessionBody, sessionSchema } from '../shapes/sessions.ts'
import { sessionNotFound } from './not-found.ts'
import { updateState, type SummaryCache } from './summary-cache.ts'

/** PUT /sessions/:id's body (src/use-cases/shapes/sessions.ts). */
export type SettingsInput = z.infer<typeof putSessionBody>

/** A session as GET /sessions/:id answers it. */
export type SessionView = z.infer<typeof sessionSchema>

export type SessionSettingsDeps = Pick<UseCaseDeps, 'db' | 'summarizers'> & { cache: SummaryCache }

export function makeSessionSettings(deps: SessionSettingsDeps) {
  const { db, cache } = deps

  /** PUT /sessions/:id: creates the session or updates the given settings. */
  async function putSession(tenantId: string, sessionId: string, input: SettingsInput): Promise<{ created: boolean; session: SessionView }> {
    const merged = (base: SessionSettings): SessionSettings => {
      const next: SessionSettings = { ...base }
      for (const [k, v] of Object.entries(input) as [keyof SettingsInput, unknown][]) {
        if (v === undefined) continue
        if (v === null) delete (next as unknown as Record<string, unknown>)[k]
        else (next as unknown as Record<string, unknown>)[k] = v
      }
      return next
    }
    // A format with a top-level system prompt (Anthropic's) validates it now, not at the first /context.
    if (input.system !== undefined && input.system !== null && input.format !== undefined && getAdapter(input.format).detection.topLevelSystem) {
      parseConversation([], { format: input.format, system: input.system })
    }
    const created = await db.transaction().execute(async (trx) => {
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
      validateSettings(next)
      await saveSettings(trx, tenantId, sessionId, next)
      return isNew
    })
    return { created, session: (await viewOf(tenantId, sessionId))! }
  }

  function validateSettings(s: SessionSettings): void {
    if (s.mode === 'llm') {
      // SummarizerSelectionError → 400 body.summarizer.<field>.
      if (!deps.summarizers) throw new ApiError(400, 'invalid_summarizer', 'no summarizer is configured on this server', [{ path: 'body.mode', message: 'llm needs a summarizer' }])
      deps.summarizers.get(s.summarizer?.provider, s.summarizer?.model)
    }
  }

  async function viewOf(tenantId: string, sessionId: string): Promise<SessionView | undefined> {
    const session = await readSession(db, tenantId, sessionId)
    if (!session) return undefined
    const [counters, state] = await Promise.all([messageCounters(db, tenantId, sessionId), readSummaryState(db, tenantId, sessionId)])
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

  /** GET /sessions/:id: the settings and counters; an unknown session is a 404. */
  async function getSession(tenantId: string, sessionId: string): Promise<SessionView> {
    const view = await viewOf(tenantId, sessionId)
    if (!view) throw sessionNotFound(sessionId)
    return view
  }

  /** DELETE /sessions/:id; an unknown session is a 404. */
  async function deleteSession(tenantId: string, sessionId: string): Promise<void> {
    const deleted = await removeSession(db, tenantId, sessionId)
    cache.delete(tenantId, sessionId)
    if (!deleted) throw sessionNotFound(sessionId)
  }

  return { putSession, getSession, deleteSession }
}
