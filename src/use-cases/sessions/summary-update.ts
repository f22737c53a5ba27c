/**
 * A background summary update of one session (seed 000), the summary worker's use case
 * (./worker.ts claims the queue entries and calls it).
 *
 * One update:
 *   1. outside any transaction, read a snapshot (settings, current version, evicted
 *      messages) and compute the new document from it: updateSummary() in `rules` mode
 *      (aging, compression, the hard budget), the summarizer with BACKGROUND_AGENT_PROMPT
 *      in `llm` mode (any provider failure falls back to rules; a document over budget
 *      is an emergency truncation). Nothing is held meanwhile: on PGlite (one connection)
 *      reads would wait for an open transaction;
 *   2. in ONE short transaction, beginUpdate(): lock the session row (appends of the
 *      session wait; reads never do) and insert a summary_update_runs row (the partial
 *      unique index admits one unfinished run per session, so the database itself
 *      refuses a concurrent update); the snapshot must still be current (same version,
 *      its messages still evicted; newer evictions wait for the next run), else prepare
 *      again; after two stale snapshots the document is computed under the lock;
 *   3. write version N+1: the primary key (tenant, session, version) is the
 *      compare-and-set. A lost race (a manual PUT took N+1) rolls back and retries on the
 *      new version, so a manual summary is never overwritten by a stale result;
 *   4. markFolded(): the folded messages 'summarized' and the run row finished; then
 *      finish() the queue entry (delete it, or release it when work must not wait),
 *      decided on the evicted messages it reads after the fold, under the lock.
 * A crash anywhere rolls the transaction back: nothing is folded twice or lost, and the
 * entry is claimed again when its lease expires.
 *
 * Invariant (with the append, ./append.ts): every session whose evicted,
 * unsummarised messages make at least batchSize exchanges has a queue entry. Appends
 * evict and enqueue in one transaction; an update folds and finishes in one; both hold
 * the session row's lock, and each decides on reads made after taking it (a statement
 * that waited for the lock sees other tables as of before the wait: issue 10).
 */
import type { Transaction } from 'kysely'
import type { Config } from '../../config.ts'
import type { Database } from '../../db/schema.ts'
import { SummarizerError } from '../../engine/compaction/types.ts'
import {
  ageSummary,
  BACKGROUND_AGENT_PROMPT,
  formatExchangesForPrompt,
  parseSummary,
  SECTION_KEYS,
  sessionExchanges,
  type SummaryUpdate,
} from '../../engine/sessions/index.ts'
import { finish, type QueueEntry } from '../../sessions/queue.ts'
import {
  beginUpdate,
  insertSummaryVersion,
  isUniqueViolation,
  latestMessageAt,
  latestSummary,
  markFolded,
  messagesWithStatus,
  readUpdateSnapshot,
  toCanonical,
  type SessionSettings,
  type StoredSummary,
  type UpdateSnapshot,
} from '../../sessions/repository.ts'
import type { TokenCounter } from '../../engine/tokens/count.ts'
import type { UseCaseDeps } from '../deps.ts'
import { defaultCounter, modelFor } from '../model-budget.ts'
import type { UpdateMode } from './metrics.ts'
import { rulesUpdateBytes, type RulesUpdateInput } from './rules-update.ts'

/** System prompt of the llm mode's background agent (the task itself is BACKGROUND_AGENT_PROMPT). */
export const BACKGROUND_AGENT_SYSTEM = 'You maintain the rolling summary document of an AI agent session. Follow the requested format exactly and answer with the document only.'
/** Model calls per update in llm mode before falling back to rules when the snapshot keeps changing. */
const LLM_CALLS = 2
/** Compare-and-set retries of one update (lost races to manual PUTs or other writers). */
const CAS_RETRIES = 5
/** Snapshots prepared outside the transaction before the update is computed inside it. */
const SNAPSHOT_TRIES = 2

export interface WorkerHooks {
  /** Inside the update's transaction, after it read the current version and the evicted messages, before it writes (tests: lose a race). */
  beforeWrite?(info: { tenantId: string; sessionId: string; trx: Transaction<Database>; baseVersion: number }): Promise<void>
  /** Inside the update's transaction, after its writes, before commit (tests: hold an update open, crash mid-update). */
  beforeCommit?(info: { tenantId: string; sessionId: string; trx: Transaction<Database> }): Promise<void>
}

export type SummaryUpdateDeps = Pick<UseCaseDeps, 'db' | 'config' | 'compute' | 'log'> & {
  summarizers?: UseCaseDeps['summarizers']
  /** The worker's id: the update's run row and the queue entry's lease name it. */
  workerId: string
  /** Clock of the summary document (aging). */
  now: () => number
  /** Told about each written version (the sessions' LRU of summaries seen). */
  onSummaryWritten?(tenantId: string, sessionId: string, settings: SessionSettings, summary: StoredSummary, evictedAwaitingSummary: number): void
  hooks?: WorkerHooks
}

export interface UpdateOutcome {
  tenantId: string
  sessionId: string
  skipped?: 'deleted'
  mode: UpdateMode
  written?: StoredSummary
  folded: number
  emergencyTruncated: boolean
  remaining: number
  /** The session's summary budget, in tokens. */
  budget?: number
  settings?: SessionSettings
}

class SnapshotChanged extends Error {}

/** The session was deleted before or during its update: nothing to do. */
function deletedOutcome(tenantId: string, sessionId: string): UpdateOutcome {
  return { tenantId, sessionId, skipped: 'deleted', mode: 'rules', folded: 0, emergencyTruncated: false, remaining: 0 }
}

export function makeSummaryUpdate(deps: SummaryUpdateDeps) {
  const { db, config, log, now: clock } = deps
  const id = deps.workerId
  const opts = deps


  /** The update of one session (see the module comment). */
  async function update(entry: QueueEntry): Promise<UpdateOutcome> {
    const { tenantId, sessionId } = entry
    const now = clock()
    let llmCalls = 0
    let llmSession = false
    for (let attempt = 0; ; attempt++) {
      let prepared: Prepared | undefined
      if (attempt < SNAPSHOT_TRIES || (llmSession && llmCalls < LLM_CALLS)) {
        const snap = await readUpdateSnapshot(db, tenantId, sessionId)
        if (!snap) return deletedOutcome(tenantId, sessionId)
        llmSession = snap.settings.mode === 'llm'
        // Aging alone (nothing evicted) is exact by rules, with no model call.
        if (llmSession && snap.evicted.length > 0 && llmCalls < LLM_CALLS) {
          llmCalls++
          prepared = await prepareLlm(snap, now).catch((err) => {
            log.warn({ tenantId, sessionId, err: brief(err) }, 'llm summary failed: falling back to rules')
            llmCalls = LLM_CALLS
            return undefined
          })
        }
        if (!prepared && attempt < SNAPSHOT_TRIES) prepared = await prepareRules(snap, now)
      }
      try {
        const outcome = await db.transaction().execute((trx) => commit(trx, entry, prepared, now))
        if (outcome.written && !outcome.skipped) opts.onSummaryWritten?.(tenantId, sessionId, outcome.settings!, outcome.written, outcome.remaining)
        return outcome
      } catch (err) {
        if ((err instanceof SnapshotChanged || isUniqueViolation(err)) && attempt < CAS_RETRIES) continue
        throw err
      }
    }
  }

  async function commit(trx: Transaction<Database>, entry: QueueEntry, prepared: Prepared | undefined, now: number): Promise<UpdateOutcome> {
    const { tenantId, sessionId } = entry
    const begun = await beginUpdate(trx, tenantId, sessionId, id)
    if (!begun) return deletedOutcome(tenantId, sessionId)
    const { settings } = begun
    const format = settings.format ?? 'openai'

    let p = prepared
    if (p) {
      const present = new Set(begun.evictedSeqs)
      if (p.baseVersion !== begun.version || !p.seqs.every((s) => present.has(s))) throw new SnapshotChanged()
    } else {
      // Stale snapshots twice: compute under the lock, which always makes progress.
      const current = await latestSummary(trx, tenantId, sessionId)
      if ((current?.version ?? 0) !== begun.version) throw new SnapshotChanged()
      const latest = await latestMessageAt(trx, tenantId, sessionId)
      p = await prepareRules({ settings, summary: current, evicted: await messagesWithStatus(trx, tenantId, sessionId, 'evicted'), ...(latest ? { latestMessageAt: latest } : {}) }, now)
    }
    const { update, mode, baseContent, seqs: foldedSeqs } = p

    await opts.hooks?.beforeWrite?.({ tenantId, sessionId, trx, baseVersion: begun.version })
    let written: StoredSummary | undefined
    if (baseContent !== undefined ? update.text !== baseContent : foldedSeqs.length > 0) {
      // The compare-and-set: a concurrent writer of this version makes this insert fail.
      written = await insertSummaryVersion(trx, tenantId, sessionId, { version: begun.version + 1, content: update.text, tokens: update.tokens, source: 'background' })
    }
    const changed = await markFolded(trx, tenantId, sessionId, { id: begun.runId, mode, fromVersion: begun.version, toVersion: written?.version ?? begun.version, seqs: foldedSeqs })
    if (changed !== foldedSeqs.length) throw new SnapshotChanged()
    await opts.hooks?.beforeCommit?.({ tenantId, sessionId, trx })

    // The queue entry, decided on what is evicted now (read under the lock), never on
    // begun.evictedSeqs: see finish() for the interleaving that orphaned evictions.
    const { remaining } = await finish(trx, entry, id, { batchSize: settings.batchSize, exchanges: (rows) => sessionExchanges(toCanonical(rows, format)).length })
    return { tenantId, sessionId, mode, written, folded: foldedSeqs.length, emergencyTruncated: update.emergencyTruncated, remaining: Math.max(0, remaining), budget: settings.summaryBudget, settings }
  }

  /** llm mode, outside any transaction: the background agent's document for the snapshot. */
  async function prepareLlm(snap: UpdateSnapshot, now: number): Promise<Prepared> {
    const { settings } = snap
    if (!opts.summarizers) throw new SummarizerError('unavailable', 'no summarizer configured')
    const client = opts.summarizers.get(settings.summarizer?.provider, settings.summarizer?.model)
    const counter = counterFor(config, settings)
    const exchanges = sessionExchanges(toCanonical(snap.evicted, settings.format ?? 'openai'))
    const prompt = BACKGROUND_AGENT_PROMPT(snap.summary?.content ?? '', formatExchangesForPrompt(exchanges, counter), settings.summaryBudget)
    const maxOutputTokens = Math.min(Math.ceil(settings.summaryBudget * 1.5) + 500, 32_000)
    if (client.countTokens(BACKGROUND_AGENT_SYSTEM + prompt) + maxOutputTokens > client.contextLimit) {
      throw new SummarizerError('context_overflow', `the update prompt does not fit ${client.model}'s context window`)
    }
    const res = await client.complete({ system: BACKGROUND_AGENT_SYSTEM, prompt, maxOutputTokens })
    if (res.truncated) throw new SummarizerError('over_budget', 'the summarizer stopped at its output limit')
    if (!res.text.trim()) throw new SummarizerError('empty', 'the summarizer returned nothing')
    const doc = parseSummary(res.text, now)
    if (SECTION_KEYS.every((k) => doc.sections[k].length === 0)) throw new SummarizerError('malformed', 'the summarizer returned no summary items')
    // The hard budget and aging, whatever the model wrote. A model that overshot the
    // budget failed to compress (seed 000): the system's truncation is an emergency,
    // logged and counted by process().
    const update = ageSummary({ doc, now, ...(snap.latestMessageAt ? { activityAt: snap.latestMessageAt } : {}), budgetTokens: settings.summaryBudget, counter })
    if (Math.ceil(counter.text(res.text) * counter.margin) > settings.summaryBudget) update.emergencyTruncated = true
    return { baseVersion: snap.summary?.version ?? 0, baseContent: snap.summary?.content, seqs: snap.evicted.map((r) => r.seq), update, mode: 'llm' }
  }

  /** rules mode (and the llm fallback): updateSummary() over a snapshot, in the compute pool when there is one. */
  async function prepareRules(snap: UpdateSnapshot, now: number): Promise<Prepared> {
    const { settings } = snap
    const input: RulesUpdateInput = { settings, summary: snap.summary ? { content: snap.summary.content } : undefined, evicted: snap.evicted, now, ...(snap.latestMessageAt ? { activityAt: snap.latestMessageAt.getTime() } : {}) }
    const update = await deps.compute.run('summary', input, { bytes: rulesUpdateBytes(input), background: true })
    return { baseVersion: snap.summary?.version ?? 0, baseContent: snap.summary?.content, seqs: snap.evicted.map((r) => r.seq), update, mode: rulesMode(settings, snap.evicted.length) }
  }

  return update
}

interface Prepared {
  baseVersion: number
  /** The content of baseVersion (undefined when there was none). */
  baseContent: string | undefined
  seqs: number[]
  update: Pick<SummaryUpdate, 'text' | 'tokens' | 'emergencyTruncated'>
  mode: UpdateMode
}

/** An llm session's rules update is a fallback, except aging alone (nothing new to summarise), which rules do exactly. */
function rulesMode(settings: SessionSettings, evicted: number): UpdateMode {
  return settings.mode === 'llm' && evicted > 0 ? 'llm-fallback' : 'rules'
}

function counterFor(config: Config, settings: SessionSettings): TokenCounter {
  return defaultCounter(modelFor(config, settings.model))
}

export function brief(err: unknown): { message: string; code?: string } {
  const e = err as { message?: unknown; code?: unknown }
  return { message: String(e?.message ?? err), ...(typeof e?.code === 'string' ? { code: e.code } : {}) }
}
