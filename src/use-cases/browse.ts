/**
 * The read-only listings the dashboard (/ui) pages through: the tenant's sessions and
 * compaction series, a session's summary versions, one version's text, and a session's
 * stored messages. Scoped to the caller's tenant: another tenant's session is a 404. The
 * route writes the results as JSON.
 */
import { ApiError } from '../errors.ts'
import { getSummaryVersion, listMessages, listSessions, listSummaryVersions, type SessionSort } from '../sessions/browse.ts'
import type { SessionMessageStatus } from '../db/schema.ts'
import type { UseCaseDeps } from './deps.ts'
import { sessionNotFound } from './sessions/not-found.ts'
import { displayText } from './sessions/summary-cache.ts'

export { MAX_LIST_PAGE, SESSION_SORTS, type SummaryVersionInfo } from '../sessions/browse.ts'

export type BrowseDeps = Pick<UseCaseDeps, 'db'>

export function makeBrowse(deps: BrowseDeps) {
  const { db } = deps
  return {
    sessions: (tenantId: string, opts: { q?: string; sort?: SessionSort; order?: 'asc' | 'desc'; cursor?: string; limit?: number }) => listSessions(db, tenantId, opts),

    async summaryVersions(tenantId: string, sessionId: string, page: { cursor?: string; limit?: number }) {
      const found = await listSummaryVersions(db, tenantId, sessionId, page)
      if (!found) throw sessionNotFound(sessionId)
      return found
    },

    /** One version with its text as stored (`content`) and without the item comments (`text`). */
    async summaryVersion(tenantId: string, sessionId: string, version: number) {
      const v = await getSummaryVersion(db, tenantId, sessionId, version)
      if (!v) throw new ApiError(404, 'not_found', `no version ${version} of the summary of session ${JSON.stringify(sessionId)}`)
      return { ...v, text: displayText(v.content) }
    },

    async messages(tenantId: string, sessionId: string, page: { status?: SessionMessageStatus; cursor?: string; limit?: number }) {
      const found = await listMessages(db, tenantId, sessionId, page)
      if (!found) throw sessionNotFound(sessionId)
      return found
    },
  }
}

export type BrowseUseCase = ReturnType<typeof makeBrowse>
