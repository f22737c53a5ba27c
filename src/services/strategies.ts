/**
 * GET /strategies' use case: the compaction strategies of the engine's registry, the
 * server's default pipeline, and the pipelines a menu offers (the dashboard's preview).
 */
import { isStrategyName, offeredPipelines, STRATEGIES, type RegisteredStrategyName } from '../engine/compaction/strategies/index.ts'

export interface StrategyInfo {
  name: RegisteredStrategyName
  description: string
  needsLlm: boolean
  summarizes: boolean
  keeps: boolean
}

export interface StrategiesList {
  strategies: StrategyInfo[]
  default: RegisteredStrategyName[]
  pipelines: RegisteredStrategyName[][]
}

export function listStrategies(defaultPipeline: readonly string[]): StrategiesList {
  return {
    strategies: STRATEGIES.map((s) => ({ name: s.name, description: s.description, needsLlm: s.needsLlm, summarizes: 'summarizer' in s, keeps: 'keep' in s })),
    default: defaultPipeline.filter(isStrategyName),
    pipelines: offeredPipelines(defaultPipeline).map((p) => p.filter(isStrategyName)),
  }
}
