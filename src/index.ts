/**
 * compactd as an in-process library: `import { compact, estimate, importLog } from 'compactd'`.
 *
 * The same use cases as POST /compact, /estimate and /import, with the same options and
 * results, and no Fastify, database or worker threads: messages in, a result out. Settings
 * the service reads from its environment (defaults, reserves, summarizer keys) come from
 * `options.config`, in the same `NAME: value` form as `.env.example`; the process
 * environment is read only when you pass it (`{ config: process.env }`).
 *
 * A request the service would answer with a 4xx rejects with a CompactdError carrying the
 * same `code`, `status` and `issues`.
 */
import { loadConfig, type Config } from './config.ts'
import { llmSummarizer } from './engine/compaction/summarizers/llm.ts'
import type { SummarizerClient } from './engine/compaction/types.ts'
import { importLog as importAgentLog } from './engine/import/index.ts'
import type { ImportOptions, ImportResult } from './engine/import/types.ts'
import { describeError, type ErrorIssue } from './errors.ts'
import { anthropicTokenCounter } from './providers/anthropic-count.ts'
import { createSummarizerClients } from './providers/summarizer-clients.ts'
import { checkedSummarizer, computeCompaction, type CompactRequest, type CompactResponse } from './use-cases/compact/compute.ts'
import { keepingContract, refuseImpossibleContract } from './use-cases/compact/contract.ts'
import { estimate as estimateTokens, type EstimateInput, type EstimateResult } from './use-cases/estimate/count.ts'

export type { CompactRequest, CompactResponse } from './use-cases/compact/compute.ts'
export type { EstimateInput, EstimateMethod, EstimateResult } from './use-cases/estimate/count.ts'
export type { ImportOptions, ImportResult, ImportScope, ImportSource } from './engine/import/types.ts'
export type { MessageFormat } from './engine/messages/canonical.ts'
export type { CompletionRequest, CompletionResult, StrategyName, SummarizerClient } from './engine/compaction/types.ts'
export type { ErrorIssue } from './errors.ts'

/** Environment-style settings (see `.env.example`): `{ COMPACTION_KEEP_RECENT: '6', OPENAI_API_KEY: '…' }`. */
export type LibrarySettings = Record<string, string | undefined>

export interface LibraryOptions {
  /** Settings by their environment names; unset means the service's default. Pass `process.env` to read the environment. */
  config?: LibrarySettings
  /** Stops a compaction's provider calls (the llm strategy). */
  signal?: AbortSignal
}

export interface CompactOptions extends LibraryOptions {
  /**
   * The llm strategy's model, as your own client: used instead of one built from
   * `config` (OPENAI_API_KEY / ANTHROPIC_API_KEY), e.g. to route through your gateway.
   */
  summarizerClient?: SummarizerClient
}

/** What the service would answer with a 4xx: the same code, status and issues. */
export class CompactdError extends Error {
  override readonly name = 'CompactdError'
  constructor(
    /** Stable error code, as in the HTTP API (`invalid_messages`, `budget_unreachable`, …). */
    readonly code: string,
    /** The HTTP status the service would answer with. */
    readonly status: number,
    message: string,
    /** Each problem with the path of the offending field (`messages[3].role`, `summarizer.model`). */
    readonly issues: ErrorIssue[] = [],
    /** Extra facts, e.g. `minimumTokens` of a budget that cannot be reached. */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message)
  }
}

/** A caller's mistake as a CompactdError (paths without the HTTP `body.` prefix); anything else as it is. */
function asLibraryError(err: unknown): unknown {
  const described = describeError(err)
  if (!described) return err
  const unprefix = (s: string) => s.replace(/\bbody\./g, '')
  const issues = (described.issues ?? []).map((i) => ({ path: unprefix(i.path), message: i.message }))
  return new CompactdError(described.code, described.statusCode, unprefix(described.message), issues, described.details ?? {})
}

async function library<T>(run: () => T | Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (err) {
    throw asLibraryError(err)
  }
}

/** The settings of one call; a bad value is a CompactdError naming it. */
function configOf(settings: LibrarySettings | undefined): Config {
  try {
    return loadConfig(settings ?? {})
  } catch (err) {
    throw new CompactdError('invalid_config', 400, (err as Error).message, [{ path: 'config', message: (err as Error).message }])
  }
}

/** Tokens of a conversation, the model's limits and whether to compact now (POST /estimate). */
export function estimate(input: EstimateInput, options: LibraryOptions = {}): Promise<EstimateResult> {
  return library(() => {
    const config = configOf(options.config)
    return estimateTokens(config, input, anthropicTokenCounter(config))
  })
}

/**
 * A conversation compacted to `targetTokens` (default: the model's threshold), in the
 * format it came in (POST /compact without storage: `sessionId` is refused).
 */
export function compact(input: Omit<CompactRequest, 'sessionId'>, options: CompactOptions = {}): Promise<CompactResponse> {
  return library(async () => {
    if ((input as CompactRequest).sessionId !== undefined) {
      throw new CompactdError('validation_error', 400, 'sessionId: checkpoints are stored by the service; in-process compaction stores nothing', [
        { path: 'sessionId', message: 'not available in-process' },
      ])
    }
    const config = configOf(options.config)
    // The service's checks and choice of model; a caller's own client takes its place.
    const configured = checkedSummarizer(config, createSummarizerClients(config), options.summarizerClient ? { ...input, summarizer: undefined } : input)
    const client = options.summarizerClient ?? configured
    const run = (request: CompactRequest) => computeCompaction(config, { request }, { ...(client ? { llm: llmSummarizer(client) } : {}), ...(options.signal ? { signal: options.signal } : {}) })
    // The service's preservation contract (issue 24): pins and preserved strings kept, or a 422.
    const contract = Boolean(input.pin?.length || input.preserve?.length)
    if (!contract) return (await run(input)).response
    refuseImpossibleContract(input)
    const computed = await keepingContract(input, run)
    return { ...computed.response, contract: { pinned: input.pin ?? [], preserved: input.preserve ?? [] } }
  })
}

/**
 * An agent's session log (Claude Code, Codex CLI, Gemini CLI, pi, SWE-agent; text or parsed
 * JSON) as messages in `format`, with the compactions it records (POST /import).
 */
export function importLog(log: unknown, options: ImportOptions = {}): ImportResult {
  try {
    return importAgentLog(log, options)
  } catch (err) {
    throw asLibraryError(err)
  }
}
