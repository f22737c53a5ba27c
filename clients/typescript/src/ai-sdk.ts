/**
 * @compactd/client/ai-sdk: compaction for the Vercel AI SDK's agent loop (seed 004's
 * integration point), and the recall tools that read back what it dropped.
 *
 *   const result = await generateText({
 *     model, system, tools, messages, stopWhen: stepCountIs(50),
 *     prepareStep: compactdPrepareStep({ client: compactd, model: 'gpt-4o', system, tools }),
 *   })
 *
 * Before each step it asks compactd (POST /estimate) whether the step's prompt (your
 * system prompt, the messages and your tool definitions) has reached the model's
 * compaction threshold. When it has, it compacts the messages (POST /compact) to
 * `targetRatio` of the threshold and returns them as the step's `messages`; otherwise it
 * returns nothing and the step runs as the SDK planned. Your `system` and tools are never
 * returned, so they stay as they are. compactd keeps every tool call with its result.
 *
 * The SDK starts every step from the full history (its `messages` plus every response
 * so far), so the helper remembers its last compaction: while the history continues
 * the messages it compacted, each step gets the compacted messages plus what came after
 * them, and compactd is asked to compact again (folding the earlier summary into the
 * next round) only when that grows past the threshold again.
 *
 * With `compact: { sessionId }`, what each compaction drops is archived under that
 * session; `recallTools(sessionId)` gives the model `search_context` and `read_context`
 * to find and read it again:
 *
 *   tools: { ...tools, ...recallTools('run-42', { client: compactd }) },
 *   prepareStep: compactdPrepareStep({ client: compactd, tools, compact: { sessionId: 'run-42' } }),
 */
import { asSchema, tool, type ModelMessage, type PrepareStepFunction, type Tool, type ToolSet } from 'ai'
import { z } from 'zod'
import { createCompactdClient, unwrap, type CompactdClient, type CompactdClientOptions, type Schemas } from './index.ts'
import { RECALL_TOOLS } from './recall.ts'

type CompactBody = Schemas['CompactRequestInput']
type EstimateBody = Schemas['EstimateRequestInput']

/** The settings that make up compactd's threshold, as /estimate and /compact take them. */
type ThresholdSettings = Pick<EstimateBody, 'contextLimit' | 'systemReserve' | 'outputReserve' | 'safetyBuffer' | 'thresholdPercent'>

export interface CompactionInfo {
  /** The step whose prompt was compacted. */
  stepNumber: number
  /** Prompt tokens before (system, messages and tools, counted by compactd). */
  tokensBefore: number
  /** The threshold that was reached. */
  threshold: number
  /** The /compact response: `event` (round, tokens, strategy…), `summary`, `checkpoint`. */
  result: Schemas['CompactResponse']
}

export interface CompactdPrepareStepOptions extends ThresholdSettings {
  /** A client from `createCompactdClient`, or the options to make one. */
  client: CompactdClient | CompactdClientOptions
  /**
   * The model compactd counts tokens for and takes the context window from, e.g.
   * `gpt-4o` or `claude-sonnet-4-5`. Default: the step model's id.
   */
  model?: string
  /** The `system` you give generateText/streamText: counted, never changed. */
  system?: string
  /** The `tools` you give generateText/streamText: their definitions are counted, never changed. */
  tools?: ToolSet
  /**
   * Where a compaction takes the prompt, as a fraction of the threshold (tools
   * included), leaving room for the next steps before compacting again. Default 0.5.
   */
  targetRatio?: number
  /** More /compact options: `strategy`, `keepRecent`, `sessionId` (stores checkpoints), `summarizer`… */
  compact?: Omit<CompactBody, 'messages' | 'format' | 'model' | 'system' | 'targetTokens' | keyof ThresholdSettings>
  /** Called after each compaction. */
  onCompact?: (info: CompactionInfo) => void
  /**
   * A call to compactd failed (unreachable, 422 budget_unreachable…). By default the step
   * runs with the messages as they are and the error goes to console.warn; throw from
   * here to stop the loop instead.
   */
  onError?: (error: unknown) => void
}

/** A `prepareStep` for generateText/streamText that compacts the messages through compactd when they should be. */
export function compactdPrepareStep<TOOLS extends ToolSet = ToolSet>(options: CompactdPrepareStepOptions): PrepareStepFunction<TOOLS> {
  const client = clientOf(options.client)
  const targetRatio = options.targetRatio ?? 0.5
  if (!(targetRatio > 0 && targetRatio <= 1)) throw new RangeError(`targetRatio must be in (0, 1], got ${targetRatio}`)
  const threshold: ThresholdSettings = {
    contextLimit: options.contextLimit,
    systemReserve: options.systemReserve,
    outputReserve: options.outputReserve,
    safetyBuffer: options.safetyBuffer,
    thresholdPercent: options.thresholdPercent,
  }
  let toolDefinitions: Promise<unknown[] | undefined> | undefined
  /** The last compaction: the messages it compacted, and what they became. */
  let last: { source: ModelMessage[]; compacted: ModelMessage[] } | undefined

  return async ({ messages, stepNumber, model }) => {
    const current = last && continues(messages, last.source) ? [...last.compacted, ...messages.slice(last.source.length)] : messages
    const unchanged = current === messages ? undefined : { messages: current }
    try {
      toolDefinitions ??= definitionsOf(options.tools)
      const modelId = options.model ?? (typeof model === 'string' ? model : model.modelId)
      const wire = toJson(current)
      const estimate = await unwrap(
        client.POST('/estimate', {
          body: { ...threshold, model: modelId, format: 'ai-sdk', messages: wire, system: options.system, tools: await toolDefinitions },
        }),
      )
      if (!estimate.shouldCompact) return unchanged
      // A model whose window compactd's default reserves fill (gpt-4) has no threshold to
      // compact under: say so and what to give, rather than compact to nothing.
      if (estimate.thresholdNote !== undefined) throw new Error(estimate.thresholdNote)
      const targetTokens = Math.max(1, Math.floor(estimate.threshold * targetRatio) - estimate.toolsTokens)
      const result = await unwrap(
        client.POST('/compact', {
          body: { ...options.compact, ...threshold, model: modelId, format: 'ai-sdk', messages: wire, system: options.system, targetTokens },
        }),
      )
      if (!result.compacted) return unchanged
      last = { source: messages, compacted: result.messages as ModelMessage[] }
      options.onCompact?.({ stepNumber, tokensBefore: estimate.totalTokens, threshold: estimate.threshold, result })
      return { messages: last.compacted }
    } catch (error) {
      if (options.onError) options.onError(error)
      else console.warn(`compactd: step ${stepNumber} runs uncompacted: ${error instanceof Error ? error.message : String(error)}`)
      return unchanged
    }
  }
}

/** Whether `messages` starts with every message of `prefix`. */
function continues(messages: readonly ModelMessage[], prefix: readonly ModelMessage[]): boolean {
  if (messages.length < prefix.length) return false
  for (let i = 0; i < prefix.length; i++) {
    if (messages[i] !== prefix[i] && JSON.stringify(toJson([messages[i]])) !== JSON.stringify(toJson([prefix[i]]))) return false
  }
  return true
}

/** The tool definitions as OpenAI function tools, for counting: name, description, JSON schema. */
async function definitionsOf(tools: ToolSet | undefined): Promise<unknown[] | undefined> {
  if (!tools) return undefined
  const out: unknown[] = []
  for (const [name, tool] of Object.entries(tools)) {
    if (tool.type === 'provider') {
      out.push({ type: 'function', function: { name, parameters: tool.args } })
      continue
    }
    const parameters = await asSchema(tool.inputSchema).jsonSchema
    out.push({ type: 'function', function: { name, ...(tool.description ? { description: tool.description } : {}), parameters } })
  }
  return out
}

/**
 * Messages as JSON: binary data (Uint8Array, ArrayBuffer) as base64 and URLs as strings,
 * which the SDK accepts back in their place.
 */
function toJson(messages: readonly ModelMessage[]): unknown[] {
  return JSON.parse(
    JSON.stringify(messages, (_key, value: unknown) => {
      if (value instanceof Uint8Array) return base64(value)
      if (value instanceof ArrayBuffer) return base64(new Uint8Array(value))
      return value // a URL is written as its href by its own toJSON
    }),
  ) as unknown[]
}

function base64(bytes: Uint8Array): string {
  let binary = ''
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(binary)
}

/** The recall tools as the AI SDK takes them: their input, and the text of their result. */
export interface RecallToolSet {
  search_context: Tool<{ query: string; limit?: number }, string>
  read_context: Tool<{ ref: string; lines?: string; grep?: string }, string>
}

export interface RecallToolsOptions {
  /**
   * A client from `createCompactdClient`, or the options to make one. Default: compactd
   * at COMPACTD_URL (else http://127.0.0.1:3000) with COMPACTD_API_KEY.
   */
  client?: CompactdClient | CompactdClientOptions
  /** A whole message longer than this is cut at a line, saying which lines to read next. Default 20,000 characters. */
  maxChars?: number
}

/**
 * `search_context` and `read_context` for generateText/streamText's `tools`: the model
 * searches and reads what compaction archived under `sessionId` (the `sessionId` of
 * compactdPrepareStep's `compact`, or of your POST /compact). Each result is the text
 * `client.answerRecall` gives: the hits with their refs and snippets, or the message's
 * text (numbered lines for `lines` and `grep`).
 */
export function recallTools(sessionId: string, options: RecallToolsOptions = {}): RecallToolSet {
  const client = clientOf(options.client ?? defaultClient())
  const answer = async (name: keyof RecallToolSet, input: object, abortSignal: AbortSignal | undefined) =>
    (await client.answerRecall(sessionId, name, input, { maxChars: options.maxChars, signal: abortSignal }))!
  const search = RECALL_TOOLS.search_context
  const read = RECALL_TOOLS.read_context
  return {
    search_context: tool({
      description: search.description,
      inputSchema: z.object({
        query: z.string().min(1).describe(search.args.query.description),
        limit: z.number().int().min(search.args.limit.minimum).max(search.args.limit.maximum).optional().describe(search.args.limit.description),
      }),
      execute: (input, { abortSignal }) => answer('search_context', input, abortSignal),
    }),
    read_context: tool({
      description: read.description,
      inputSchema: z.object({
        ref: z.string().min(1).describe(read.args.ref.description),
        lines: z.string().optional().describe(read.args.lines.description),
        grep: z.string().optional().describe(read.args.grep.description),
      }),
      execute: (input, { abortSignal }) => answer('read_context', input, abortSignal),
    }),
  }
}

function clientOf(client: CompactdClient | CompactdClientOptions): CompactdClient {
  return 'POST' in client ? client : createCompactdClient(client)
}

function defaultClient(): CompactdClientOptions {
  const env = (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env ?? {}
  return { baseUrl: env.COMPACTD_URL ?? 'http://127.0.0.1:3000', apiKey: env.COMPACTD_API_KEY }
}
