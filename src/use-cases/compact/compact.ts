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
import { pinsFor, refuseImpossibleContract, unkeptError, unkeptOf } from './contract.ts'

export type CompactDeps = Pick<UseCaseDeps, 'config' | 'db' | 'summarizers' | 'compute' | 'metrics'> & { archiveIndexer?: ArchiveIndexer }

export function makeCompact(deps: CompactDeps) {
  const { config, db } = deps
  const policy = archivePolicy(config)
  return async function compactConversation(caller: Caller, input: CompactRequest): Promise<CompactResponse> {
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
    }
    return { ...response, ...(contract ? { contract: { pinned: input.pin ?? [], preserved: input.preserve ?? [] } } : {}), ...(checkpoint ? { checkpoint } : {}), ...(archive ? { archive } : {}) }
  }
}

/**
 * A compaction that keeps the pins and preserved strings, or a 422 listing what it could
 * not keep. A string the summary lost gets a second pass with the last message holding it
 * pinned; a budget the pins make unreachable is a 422 with every pin and string unkept.
 */
async function keepingContract(input: CompactRequest, run: (request: CompactRequest) => Promise<ComputedCompaction>): Promise<ComputedCompaction> {
  const all = { pin: input.pin ?? [], preserve: input.preserve ?? [] }
  const attempt = async (request: CompactRequest): Promise<ComputedCompaction> => {
    try {
      return await run(request)
    } catch (err) {
      const budget = (err as { code?: unknown; details?: { targetTokens?: unknown } }).code === 'budget_unreachable'
      if (budget) throw unkeptError(all, Number((err as { details?: { targetTokens?: unknown } }).details?.targetTokens ?? input.targetTokens ?? 0))
      throw err
    }
  }
  let computed = await attempt(input)
  if (!computed.response.compacted) return computed
  let unkept = unkeptOf(input, computed.response)
  if (unkept.preserve.length) {
    computed = await attempt({ ...input, pin: pinsFor(input, unkept.preserve) })
    unkept = computed.response.compacted ? unkeptOf(input, computed.response) : { pin: [], preserve: [] }
  }
  if (unkept.pin.length || unkept.preserve.length) throw unkeptError(unkept, computed.response.targetTokens)
  return computed
}
