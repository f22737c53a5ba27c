/**
 * POST /estimate: counting a large body is CPU work, so the compute runner (the pool; a
 * small body inline) counts by the tokenizer or the heuristic; Anthropic's count_tokens
 * is a provider call and stays on the event loop.
 */
import type { Caller, UseCaseDeps } from '../deps.ts'
import { countsByHeuristic, estimate, type EstimateInput, type EstimateResult } from './count.ts'

export type EstimateDeps = Pick<UseCaseDeps, 'config' | 'compute' | 'anthropicCounter' | 'tokenCache'>

export function makeEstimate(deps: EstimateDeps) {
  return function estimateTokens(caller: Caller, input: EstimateInput): Promise<EstimateResult> {
    if (input.method === 'provider') return estimate(deps.config, input, deps.anthropicCounter, deps.tokenCache?.for(caller.tenantId))
    // The heuristic's cost does not depend on the text's shape: a small body skips the long-run scan.
    return deps.compute.run('estimate', input, { signal: caller.signal, bytes: caller.bodyBytes, cacheScope: caller.tenantId, shapeFree: countsByHeuristic(deps.config, input) })
  }
}
