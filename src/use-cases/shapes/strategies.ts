/** GET /strategies' response: the engine's strategy registry as the API shows it. */
import { z } from 'zod'
import { isStrategyName, offeredPipelines, STRATEGIES, STRATEGY_NAMES } from '../../engine/compaction/strategies/index.ts'
import { DEFAULT_COMPACT_OPTIONS } from '../../engine/compaction/types.ts'

const strategyName = z.enum(STRATEGY_NAMES)

const strategiesResponse = z
  .object({
    strategies: z
      .array(
        z.object({
          name: strategyName,
          description: z.string(),
          needsLlm: z.boolean().describe('Runs only with a summarizer model configured on the server; without one it falls back (see fallbacks).'),
          summarizes: z.boolean().describe('Writes the summary of the compacted turns.'),
          keeps: z.boolean().describe('Shrinks the middle turns that stay in the conversation.'),
        }),
      )
      .describe('Every strategy `strategy` accepts, in the order of the docs.'),
    default: z.array(strategyName).describe('The pipeline used when a request gives no strategy (COMPACTION_DEFAULT_STRATEGY).'),
    pipelines: z.array(z.array(strategyName)).describe('Pipelines worth offering in a menu: the default first, then each strategy as it is usually run.'),
  })

export type StrategiesList = z.infer<typeof strategiesResponse>

/** The registry as the API shows it, for a server whose default pipeline is `defaultPipeline`. */
export function strategiesFor(defaultPipeline: readonly string[]): StrategiesList {
  return {
    strategies: STRATEGIES.map((s) => ({ name: s.name, description: s.description, needsLlm: s.needsLlm, summarizes: 'summarizer' in s, keeps: 'keep' in s })),
    default: defaultPipeline.filter(isStrategyName),
    pipelines: offeredPipelines(defaultPipeline).map((p) => p.filter(isStrategyName)),
  }
}

export const strategiesResponseSchema = strategiesResponse.meta({ id: 'StrategiesResponse', example: strategiesFor(DEFAULT_COMPACT_OPTIONS.strategy) })
