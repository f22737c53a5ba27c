/**
 * GET /strategies' use case: the compaction strategies of the engine's registry, the
 * server's default pipeline, and the pipelines a menu offers (the dashboard's preview).
 */
import type { UseCaseDeps } from './deps.ts'
import { strategiesFor, type StrategiesList } from './shapes/strategies.ts'

export type StrategiesDeps = Pick<UseCaseDeps, 'config'>

export function makeStrategies(deps: StrategiesDeps) {
  return function strategies(): StrategiesList {
    return strategiesFor(deps.config.COMPACTION_DEFAULT_STRATEGY)
  }
}
