/**
 * POST /compact: the request checked, the session's round read, the CPU part
 * (computeCompaction, ./compute.ts) run by the compute runner (the pool; small bodies of
 * ordinary text on the event loop), then the checkpoint stored. With the llm strategy
 * the provider client stays on the event loop and answers the thread's completion calls.
 */
import { insertCheckpoint, latestRound } from '../../checkpoints/repository.ts'
import type { Caller, UseCaseDeps } from '../deps.ts'
import { checkedSummarizer, type CompactRequest, type CompactResponse, type CompactTaskInput } from './compute.ts'

export type CompactDeps = Pick<UseCaseDeps, 'config' | 'db' | 'summarizers' | 'compute' | 'metrics'>

export function makeCompact(deps: CompactDeps) {
  const { config, db } = deps
  return async function compactConversation(caller: Caller, input: CompactRequest): Promise<CompactResponse> {
    const llm = checkedSummarizer(config, deps.summarizers, input)
    const previousRound = input.sessionId ? await latestRound(db, caller.tenantId, input.sessionId) : undefined
    const task: CompactTaskInput = { request: input, ...(previousRound ? { previousRound } : {}) }
    const computed = await deps.compute.run('compact', task, { signal: caller.signal, bytes: caller.bodyBytes, cacheScope: caller.tenantId, ...(llm ? { summarizer: llm } : {}) })
    const { response } = computed
    // A compaction done, not a dry run: what a checkpoint is stored for.
    if (computed.checkpoint) deps.metrics?.onCompaction(response.event)

    let checkpoint: CompactResponse['checkpoint']
    if (input.sessionId && computed.checkpoint) {
      const stored = await insertCheckpoint(db, caller.tenantId, input.sessionId, computed.checkpoint, { maxCheckpoints: config.COMPACTION_MAX_CHECKPOINTS })
      checkpoint = {
        sessionId: input.sessionId,
        checkpointNum: stored.checkpoint.checkpointNum,
        ...(stored.folded ? { folded: stored.folded } : {}),
      }
    }
    return { ...response, ...(checkpoint ? { checkpoint } : {}) }
  }
}
