/**
 * The archive backfill (issue 21): sessions' messages evicted before the archive existed
 * (migration 0006) were stored but never archived, so a search could not find them.
 * Migration 0010 marks every session holding messages out of its window; this archives
 * them in the background, as an append archives what it evicts: redacted, deduplicated by
 * content hash, under the tenant's quota, then indexed by the archive indexer.
 *
 * Bounded: one page of PAGE_MESSAGES per transaction, the session row locked as an append
 * locks it (they serialise; a session another instance holds is skipped, so instances
 * share the work), a pause between pages so the event loop and the database serve
 * requests first. It runs on instances that run background work (WORKERS > 0).
 * Messages past the retention age are skipped (they would be swept at once). A tenant at
 * its quota ends the session's backfill there: the archive is full, as it would be for a
 * compaction, and the log says so.
 */
import { archiveRecord, toolNamesOf } from '../../engine/archive/record.ts'
import type { CanonicalMessage } from '../../engine/messages/index.ts'
import { backfillPage, claimBackfill, markBackfill, toCanonical } from '../../sessions/repository.ts'
import type { UseCaseDeps } from '../deps.ts'
import type { ArchiveIndexer } from './indexer.ts'
import { archiveGate, archiveInTransaction, archivePolicy } from './policy.ts'

export type ArchiveBackfillDeps = Pick<UseCaseDeps, 'db' | 'config' | 'log'> & { archiveIndexer?: ArchiveIndexer }

/** Messages per page: one transaction each (the largest fixture's pages take ~10–30 ms). */
export const PAGE_MESSAGES = 200

export type BackfillStep =
  | { outcome: 'idle' }
  | { outcome: 'page'; tenantId: string; sessionId: string; archived: number; deduplicated: number; redactions: number; done: boolean }
  | { outcome: 'skipped'; tenantId: string; sessionId: string; reason: 'over_quota' | 'no_format' }

export interface ArchiveBackfill {
  /** One page of one session, in one transaction. */
  step(): Promise<BackfillStep>
  /** Steps until no session waits (or the backfill is stopped), pausing `pauseMs` between pages; how many pages it took. */
  runAll(pauseMs?: number): Promise<number>
  /** Starts the background loop (no-op when the archive is off). */
  start(): void
  /** Ends the loop after its page in flight. */
  stop(): Promise<void>
}

export function makeArchiveBackfill(deps: ArchiveBackfillDeps, opts: { pauseMs?: number; pageMessages?: number } = {}): ArchiveBackfill {
  const policy = archivePolicy(deps.config)
  const pauseMs = opts.pauseMs ?? 50
  const pageMessages = opts.pageMessages ?? PAGE_MESSAGES
  let stopped = false
  let loop: Promise<void> | undefined
  // A tool result names its call's tool, and the call may sit on the page before: the
  // previous page's calls are carried to the next page of the same session.
  let carried = { session: '', names: new Map<string, string>() }

  async function step(): Promise<BackfillStep> {
    const outcome = await deps.db.transaction().execute(async (trx): Promise<BackfillStep> => {
      const claim = await claimBackfill(trx)
      if (!claim) return { outcome: 'idle' }
      const at = { tenantId: claim.tenantId, sessionId: claim.sessionId }
      const format = claim.settings.format
      if (format === undefined) {
        // Messages are stored with their session's format; without one there is nothing to read.
        await markBackfill(trx, claim, null)
        return { outcome: 'skipped', ...at, reason: 'no_format' }
      }
      const gate = await archiveGate(trx, policy, claim.tenantId)
      if (!gate.open) {
        await markBackfill(trx, claim, null)
        return { outcome: 'skipped', ...at, reason: 'over_quota' }
      }
      const since = policy.retentionDays > 0 ? new Date(Date.now() - policy.retentionDays * 86_400_000) : undefined
      const page = await backfillPage(trx, claim, pageMessages, since)
      let report = { archived: 0, deduplicated: 0, redactions: 0 }
      if (page.rows.length) {
        const messages = toCanonical(page.rows, format)
        const names = namesFor(claim.tenantId, claim.sessionId, messages)
        const records = messages.map((m, i) => ({ ...archiveRecord(m, names), position: page.rows[i]!.seq }))
        report = await archiveInTransaction(trx, policy, { ...at, checkpointNum: null, source: 'session' }, records)
      }
      await markBackfill(trx, claim, page.next ?? null)
      return { outcome: 'page', ...at, archived: report.archived, deduplicated: report.deduplicated, redactions: report.redactions, done: page.next === undefined }
    })
    if (outcome.outcome === 'page' && outcome.archived > 0) deps.archiveIndexer?.schedule(outcome.tenantId, outcome.sessionId)
    if (outcome.outcome === 'skipped' && outcome.reason === 'over_quota') {
      deps.log.warn({ tenantId: outcome.tenantId, sessionId: outcome.sessionId }, 'archive backfill: the tenant is at its archive quota; this session\'s earlier evictions stay unarchived')
    }
    return outcome
  }

  function namesFor(tenantId: string, sessionId: string, messages: readonly CanonicalMessage[]): Map<string, string> {
    const session = `${tenantId}\u0000${sessionId}`
    const own = toolNamesOf(messages)
    const names = carried.session === session ? new Map([...carried.names, ...own]) : own
    carried = { session, names: own }
    return names
  }

  async function runAll(pause = 0): Promise<number> {
    let pages = 0
    while (!stopped) {
      if ((await step()).outcome === 'idle') break
      pages++
      if (pause > 0) await new Promise((r) => setTimeout(r, pause))
    }
    return pages
  }

  function start(): void {
    if (!policy.enabled || loop) return
    loop = runAll(pauseMs).then(
      (pages) => {
        if (pages) deps.log.info({ pages }, 'archive backfill: done')
      },
      // A failed page is retried on the next start; the service goes on without it.
      (err: unknown) => deps.log.warn({ err }, 'archive backfill: a page failed; it stops until the next start'),
    )
  }

  async function stop(): Promise<void> {
    stopped = true
    await loop
  }

  return { step, runAll, start, stop }
}
