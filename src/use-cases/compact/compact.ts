/**
 * POST /compact: the request checked, the session's round read, the CPU part
 * (computeCompaction, ./compute.ts) run by the compute runner (the pool; small bodies of
 * ordinary text on the event loop), then the checkpoint stored. With the llm strategy
 * the provider client stays on the event loop and answers the thread's completion calls.
 *
 * With a sessionId, what the compaction masked, summarised or dropped is archived in the
 * checkpoint's transaction (issue 21), and the output names its references.
 */
import { insertCheckpoint, latestRound } from '../../checkpoints/repository.ts'
import type { Caller, UseCaseDeps } from '../deps.ts'
import type { ArchiveIndexer } from '../archive/indexer.ts'
import { ARCHIVE_NOTE, archiveGate, archiveInTransaction, archivePolicy, sweepNowAndThen, type ArchiveReport } from '../archive/policy.ts'
import { checkedSummarizer, type CompactRequest, type CompactResponse, type CompactTaskInput, type ComputedCompaction } from './compute.ts'
import { asJson, keepingContract, refuseImpossibleContract } from './contract.ts'
import type { Breaker } from './breaker.ts'
import { getSession as readSession } from '../../sessions/repository.ts'
import { ApiError } from '../../errors.ts'

/**
 * A request naming a stored session takes the session's controls it does not set itself:
 * its preserved strings (those the conversation holds), focus and thinking policy. (Its
 * pins are seqs of the session's own messages, which GET /context applies.) A session
 * whose trigger is `off` is compacted by nothing: a 409.
 */
function withSessionControls(input: CompactRequest, session: Awaited<ReturnType<typeof readSession>>): CompactRequest {
  if (!session) return input
  const s = session.settings
  if (s.trigger?.mode === 'off') {
    throw new ApiError(409, 'compaction_off', `session ${JSON.stringify(input.sessionId)} has trigger mode off: nothing compacts it; change it with PUT /sessions/${input.sessionId}`, [{ path: 'body.sessionId', message: 'its trigger mode is off' }])
  }
  const held = s.preserve?.filter((p) => input.messages.some((m) => (JSON.stringify(m) ?? '').includes(asJson(p)))) ?? []
  return {
    ...input,
    ...(input.preserve === undefined && held.length ? { preserve: held } : {}),
    ...(input.focus === undefined && s.focus ? { focus: s.focus } : {}),
    ...(input.thinking === undefined && s.thinking ? { thinking: s.thinking } : {}),
  }
}

export type CompactDeps = Pick<UseCaseDeps, 'config' | 'db' | 'summarizers' | 'compute' | 'metrics'> & { archiveIndexer?: ArchiveIndexer; breaker?: Pick<Breaker, 'close'> }

export function makeCompact(deps: CompactDeps) {
  const { config, db } = deps
  const policy = archivePolicy(config)
  /**
   * `automatic`: the proxy's compaction, which its circuit breaker governs; otherwise a
   * manual one, which closes the session's breaker when it succeeds.
   */
  return async function compactConversation(caller: Caller, request: CompactRequest, how: { automatic?: boolean } = {}): Promise<CompactResponse> {
    const input = request.sessionId !== undefined ? withSessionControls(request, await readSession(db, caller.tenantId, request.sessionId)) : request
    const llm = checkedSummarizer(config, deps.summarizers, input)
    const stored = input.sessionId !== undefined && input.dryRun !== true
    // Two independent reads: the session's round and the tenant's archive quota.
    const [previousRound, gate] = await Promise.all([
      input.sessionId ? latestRound(db, caller.tenantId, input.sessionId) : undefined,
      stored ? archiveGate(db, policy, caller.tenantId) : undefined,
    ])
    const contract = Boolean(input.pin?.length || input.preserve?.length)
    if (contract) refuseImpossibleContract(input)
    const run = (request: CompactRequest): Promise<ComputedCompaction> => {
      const task: CompactTaskInput = { request, ...(previousRound ? { previousRound } : {}), ...(gate?.open ? { archive: { note: ARCHIVE_NOTE } } : {}) }
      return deps.compute.run('compact', task, { signal: caller.signal, bytes: caller.bodyBytes, cacheScope: caller.tenantId, ...(llm ? { summarizer: llm } : {}) })
    }
    const computed = contract ? await keepingContract(input, run) : await run(input)
    const { response } = computed
    // A compaction done, not a dry run: what a checkpoint is stored for.
    if (computed.checkpoint) deps.metrics?.onCompaction(response.event)

    let checkpoint: CompactResponse['checkpoint']
    let archive: ArchiveReport | undefined
    if (input.sessionId && computed.checkpoint) {
      const sessionId = input.sessionId
      const records = computed.archive
      const result = await insertCheckpoint(db, caller.tenantId, sessionId, computed.checkpoint, {
        maxCheckpoints: config.COMPACTION_MAX_CHECKPOINTS,
        ...(records ? { within: (trx, checkpointNum) => archiveInTransaction(trx, policy, { tenantId: caller.tenantId, sessionId, checkpointNum, source: 'compact' }, records) } : {}),
      })
      checkpoint = {
        sessionId,
        checkpointNum: result.checkpoint.checkpointNum,
        ...(result.folded ? { folded: result.folded } : {}),
      }
      archive = result.within ?? (gate && !gate.open ? gate.report : undefined)
      if (records?.length) {
        deps.archiveIndexer?.schedule(caller.tenantId, sessionId)
        await sweepNowAndThen(db, policy, caller.tenantId)
      }
      if (!how.automatic) await deps.breaker?.close(caller.tenantId, sessionId)
    }
    return { ...response, ...(contract ? { contract: { pinned: input.pin ?? [], preserved: input.preserve ?? [] } } : {}), ...(checkpoint ? { checkpoint } : {}), ...(archive ? { archive } : {}) }
  }
}
