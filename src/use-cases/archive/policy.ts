/**
 * The archive's rules as configured (ARCHIVE_*), shared by what archives (POST /compact
 * with a session, sessions' evictions) and what reads (search, read-back): whether it is
 * on, the tenant's quota, retention, the at-rest key, the note a summary carries, and
 * what a compaction reports.
 */
import type { z } from 'zod'
import type { Kysely, Transaction } from 'kysely'
import type { Config } from '../../config.ts'
import type { Database } from '../../db/schema.ts'
import { parseArchiveKey } from '../../archive/cipher.ts'
import { archiveMessages, archiveUsage, sweepExpired, type ArchiveWrite } from '../../archive/repository.ts'
import type { ArchiveRecord } from '../../engine/archive/record.ts'
import type { archiveReportSchema } from '../shapes/archive.ts'

export type ArchiveReport = z.infer<typeof archiveReportSchema>

export interface ArchivePolicy {
  enabled: boolean
  quotaBytes: number
  retentionDays: number
  key?: Buffer
}

export function archivePolicy(config: Config): ArchivePolicy {
  return {
    enabled: config.ARCHIVE_ENABLED,
    quotaBytes: config.ARCHIVE_QUOTA_BYTES,
    retentionDays: config.ARCHIVE_RETENTION_DAYS,
    ...(config.ARCHIVE_ENCRYPTION_KEY ? { key: parseArchiveKey(config.ARCHIVE_ENCRYPTION_KEY) } : {}),
  }
}

/**
 * The one line a summary carries about the archive, under its header. Short (19 tokens,
 * o200k): the tool names are the MCP server's and the SDK helpers', and `[ref …]` is how
 * placeholders and log lines name an original.
 */
export const ARCHIVE_NOTE = '_Originals archived: search_context(query) finds them, read_context(ref) reads one._'

/** Whether a compaction of this tenant may archive now: on, and the archive under its quota. */
export async function archiveGate(db: Kysely<Database> | Transaction<Database>, policy: ArchivePolicy, tenantId: string): Promise<{ open: true } | { open: false; report: ArchiveReport }> {
  const empty = { archived: 0, deduplicated: 0, redactions: 0, bytes: 0, quotaBytes: policy.quotaBytes }
  if (!policy.enabled) return { open: false, report: { status: 'disabled', ...empty, usedBytes: 0, reason: 'ARCHIVE_ENABLED is off: nothing compaction drops is kept' } }
  const usage = await archiveUsage(db, tenantId)
  if (usage.bytes < policy.quotaBytes) return { open: true }
  return {
    open: false,
    report: {
      status: 'over_quota',
      ...empty,
      usedBytes: usage.bytes,
      reason: `the archive holds ${usage.bytes} bytes, at its quota of ${policy.quotaBytes} (ARCHIVE_QUOTA_BYTES): this compaction archived nothing and its summary names no references; delete old sessions or raise the quota`,
    },
  }
}

/** Archives `records` in `trx` and reports it. The quota is checked before a compaction, so one compaction may pass it by its own size. */
export async function archiveInTransaction(
  trx: Transaction<Database>,
  policy: ArchivePolicy,
  at: { tenantId: string; sessionId: string; checkpointNum: number | null; source: 'compact' | 'session' | 'proxy' },
  records: readonly ArchiveRecord[],
): Promise<ArchiveReport> {
  const write: ArchiveWrite = await archiveMessages(trx, at.tenantId, at.sessionId, records, { checkpointNum: at.checkpointNum, source: at.source, ...(policy.key ? { key: policy.key } : {}) })
  return { status: 'archived', ...write, quotaBytes: policy.quotaBytes }
}

/** How often one tenant's expired rows are swept, at most (by the writes of this process). */
const SWEEP_EVERY_MS = 10 * 60_000
const lastSweep = new Map<string, number>()

/** Deletes the tenant's expired archive now and then; reads skip expired rows meanwhile. Never fails the caller. */
export async function sweepNowAndThen(db: Kysely<Database>, policy: ArchivePolicy, tenantId: string, now = Date.now()): Promise<void> {
  if (policy.retentionDays <= 0 || now - (lastSweep.get(tenantId) ?? 0) < SWEEP_EVERY_MS) return
  lastSweep.set(tenantId, now)
  if (lastSweep.size > 10_000) lastSweep.clear()
  await sweepExpired(db, tenantId, policy.retentionDays).catch(() => undefined)
}
