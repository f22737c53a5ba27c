/**
 * The registry of compaction strategies: the one list the engine, the route's enum, the
 * configuration, the CLI, GET /strategies (and so the dashboard) and the docs' check read.
 * A new strategy is its module (strategy.ts says what it provides) and one line here.
 */
import type { FallbackRecord, Summarizer } from '../types.ts'
import { llmStrategy } from './llm.ts'
import { maskStrategy } from './mask.ts'
import { rulesStrategy } from './rules.ts'
import type { KeptForm, Strategy, StrategyEnv } from './strategy.ts'
import { truncateStrategy } from './truncate.ts'

export type { KeepRequest, KeptForm, Strategy, StrategyEnv } from './strategy.ts'

/** In the order the docs and menus list them; the fallbacks end chains in this order too. */
export const STRATEGIES = [maskStrategy, rulesStrategy, llmStrategy, truncateStrategy] as const

export type RegisteredStrategyName = (typeof STRATEGIES)[number]['name']
/** The names, as a non-empty tuple (what z.enum takes). */
export const STRATEGY_NAMES = STRATEGIES.map((s) => s.name) as [RegisteredStrategyName, ...RegisteredStrategyName[]]

const byName = new Map<string, Strategy>(STRATEGIES.map((s) => [s.name, s]))

export function isStrategyName(name: string): name is RegisteredStrategyName {
  return byName.has(name)
}

export function strategyNamed(name: string): Strategy {
  const s = byName.get(name)
  if (!s) throw new Error(`unknown compaction strategy ${JSON.stringify(name)} (registered: ${STRATEGY_NAMES.join(', ')})`)
  return s
}

/** What compact() runs for a requested pipeline. */
export interface Pipeline {
  /** How kept middle turns are shrunk; absent: no strategy keeps them (only the summary carries them). */
  kept?: KeptForm
  /** Whether the pipeline asks for a summary (it has a summarizer); otherwise one is written only when keeping falls short. */
  wantsSummary: boolean
  /** Whether the summary carries an action log of the turns it replaces. */
  actionLog: boolean
  /** The strategy a result without a summary is credited to. */
  keptBy: string
  /** The strategy a summary is expected from (a dry run names it): the pipeline's first summarizer, else the first fallback. */
  summaryBy: string
}

export function resolvePipeline(names: readonly string[]): Pipeline {
  const steps = names.map(strategyNamed)
  const keepers = steps.filter((s) => s.keep)
  const forms = keepers.length ? [...keepers.map((s) => s.keep!), ...steps.flatMap((s) => (s.keepAlongside ? [s.keepAlongside] : []))] : []
  const kept = forms.reduce<KeptForm | undefined>((best, f) => (!best || f.rank > best.rank ? f : best), undefined)
  const summarizers = steps.filter((s) => s.summarizer)
  const wantsSummary = summarizers.length > 0
  return {
    ...(kept ? { kept } : {}),
    wantsSummary,
    actionLog: wantsSummary && (kept?.actionLog ?? false),
    keptBy: (keepers[0] ?? STRATEGIES.find((s) => 'keep' in s))!.name,
    summaryBy: (summarizers[0] ?? STRATEGIES.find((s) => 'fallback' in s))!.name,
  }
}

/**
 * The summarizers to try, in order: the pipeline's, then the fallbacks that cannot fail.
 * One that cannot run here (llm without a configured model) is recorded in `fallbacks`.
 */
export function summarizerChain(names: readonly string[], env: StrategyEnv, fallbacks: FallbackRecord[]): Summarizer[] {
  const chain: Summarizer[] = []
  const add = (s: Summarizer) => {
    if (!chain.some((c) => c.name === s.name)) chain.push(s)
  }
  for (const step of names.map(strategyNamed)) {
    if (!step.summarizer) continue
    const s = step.summarizer(env)
    if ('unavailable' in s) fallbacks.push({ strategy: step.name, reason: `unavailable: ${s.unavailable}` })
    else add(s)
  }
  for (const step of STRATEGIES as readonly Strategy[]) {
    const s = step.fallback && step.summarizer?.(env)
    if (s && !('unavailable' in s)) add(s)
  }
  return chain
}

/**
 * The pipeline without the strategies that need a model (a session's context is trimmed
 * offline): each is replaced by the first fallback, and a name is kept once.
 */
export function offlinePipeline(names: readonly RegisteredStrategyName[]): RegisteredStrategyName[] {
  const stand = STRATEGIES.find((s) => 'fallback' in s)!.name
  return [...new Set(names.map((name) => (strategyNamed(name).needsLlm ? stand : name)))]
}

/** Whether a pipeline has a strategy that runs only with a model (and so uses the request's summarizer). */
export function pipelineNeedsLlm(names: readonly string[]): boolean {
  return names.some((name) => strategyNamed(name).needsLlm)
}

/** The registered strategies that run only with a model. */
export const LLM_STRATEGY_NAMES = STRATEGIES.filter((s) => s.needsLlm).map((s) => s.name)

/** The registered strategies that run without a model. */
export const OFFLINE_STRATEGY_NAMES = STRATEGIES.filter((s) => !s.needsLlm).map((s) => s.name)

/** The pipelines a menu offers: the default first, then each strategy as it is usually run. */
export function offeredPipelines(defaultPipeline: readonly string[]): string[][] {
  const all = [[...defaultPipeline], ...(STRATEGIES as readonly Strategy[]).map((s) => [...(s.offeredAs ?? [s.name])])]
  return all.filter((p, k) => all.findIndex((q) => q.join() === p.join()) === k)
}
