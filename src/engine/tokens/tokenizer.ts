/**
 * Exact token counts for OpenAI model families, using gpt-tokenizer's BPE tables.
 *
 * - o200k_base: GPT-4o, GPT-4.1, GPT-5, o-series.
 * - cl100k_base: GPT-4, GPT-3.5-turbo.
 *
 * The encodings are loaded lazily and synchronously on first use (each costs
 * roughly 120-250 ms and a few tens of MB of heap), so a process that only ever
 * sees Claude or Gemini models never pays for them. Call `preloadEncodings()` at
 * boot to move that cost out of the first request.
 *
 * Everything here is pure and synchronous.
 */
import { createRequire } from 'node:module'

export type EncodingName = 'o200k_base' | 'cl100k_base'

export const ENCODING_NAMES: readonly EncodingName[] = ['o200k_base', 'cl100k_base']

// ---------------------------------------------------------------------------
// Chat overhead, from OpenAI's cookbook "How to count tokens with tiktoken"
// (num_tokens_from_messages, gpt-3.5-turbo-0613 and later / gpt-4 / gpt-4o).
// ---------------------------------------------------------------------------

/** Every message is framed as <|start|>{role/name}\n{content}<|end|>\n: 3 tokens. */
export const TOKENS_PER_MESSAGE = 3
/** A message with a `name` field costs one more token. */
export const TOKENS_PER_NAME = 1
/** Every reply is primed with <|start|>assistant<|message|>: 3 tokens, once per request. */
export const REPLY_PRIMING_TOKENS = 3

// ---------------------------------------------------------------------------
// Function (tool) definitions, from the same cookbook (num_tokens_for_tools).
// ---------------------------------------------------------------------------

export interface ToolSchemaTokenConstants {
  /** Added once per function. */
  funcInit: number
  /** Added once per function that has at least one property. */
  propInit: number
  /** Added once per property. */
  propKey: number
  /** Added once per property that has an `enum` list (negative in the cookbook). */
  enumInit: number
  /** Added once per enum item, on top of the item's own tokens. */
  enumItem: number
  /** Added once per request that has tools. */
  funcEnd: number
}

/** Cookbook values for gpt-4o / gpt-4o-mini (o200k_base). */
export const TOOL_TOKENS_O200K: Readonly<ToolSchemaTokenConstants> = Object.freeze({
  funcInit: 7,
  propInit: 3,
  propKey: 3,
  enumInit: -3,
  enumItem: 3,
  funcEnd: 12,
})

/** Cookbook values for gpt-3.5-turbo / gpt-4 (cl100k_base): only func_init differs. */
export const TOOL_TOKENS_CL100K: Readonly<ToolSchemaTokenConstants> = Object.freeze({
  ...TOOL_TOKENS_O200K,
  funcInit: 10,
})

// ---------------------------------------------------------------------------
// Encodings
// ---------------------------------------------------------------------------

interface EncodingApi {
  countTokens(input: string, options?: { disallowedSpecial?: Set<string> }): number
}

// createRequire gives a synchronous, lazy load; the package's `require` export
// condition resolves to its CommonJS build.
const requireLazy = createRequire(import.meta.url)

const loaded: Partial<Record<EncodingName, EncodingApi>> = {}

function loadEncoding(encoding: EncodingName): EncodingApi {
  const cached = loaded[encoding]
  if (cached) return cached
  let api: EncodingApi
  switch (encoding) {
    case 'o200k_base':
      api = requireLazy('gpt-tokenizer/encoding/o200k_base') as EncodingApi
      break
    case 'cl100k_base':
      api = requireLazy('gpt-tokenizer/encoding/cl100k_base') as EncodingApi
      break
    default:
      throw new Error(`unknown encoding: ${String(encoding)}`)
  }
  loaded[encoding] = api
  return api
}

/** Load the given encodings now (synchronously), e.g. at server start. */
export function preloadEncodings(encodings: readonly EncodingName[] = ENCODING_NAMES): void {
  for (const e of encodings) loadEncoding(e)
}

/**
 * No special token is disallowed, and none is allowed: `<|endoftext|>` and
 * friends in user content are encoded as ordinary text, as the OpenAI API does
 * for message content (gpt-tokenizer's default would throw instead).
 */
const SPECIAL_AS_TEXT = Object.freeze({ disallowedSpecial: new Set<string>() })

/**
 * Exact number of tokens `text` encodes to. Uses gpt-tokenizer's counting path,
 * which walks the BPE merges without building a token array.
 */
export function countTextTokens(text: string, encoding: EncodingName): number {
  if (text.length === 0) return 0
  return loadEncoding(encoding).countTokens(text, SPECIAL_AS_TEXT)
}

// ---------------------------------------------------------------------------
// Tool schemas
// ---------------------------------------------------------------------------

type JsonObject = Record<string, unknown>

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function stripFinalPeriod(s: string): string {
  return s.endsWith('.') ? s.slice(0, -1) : s
}

function asText(v: unknown): string {
  if (v === undefined || v === null) return ''
  return typeof v === 'string' ? v : JSON.stringify(v)
}

/**
 * The function definition inside a tool, for the shapes the cookbook formula
 * applies to: Chat Completions `{type:'function', function:{name,...}}` and the
 * flat Responses-API / legacy `functions` shape `{name, description, parameters}`.
 */
function functionShape(tool: unknown): JsonObject | undefined {
  if (!isObject(tool)) return undefined
  const fn = isObject(tool.function) ? tool.function : tool
  if (typeof fn.name !== 'string') return undefined
  if (fn.parameters !== undefined && !isObject(fn.parameters)) return undefined
  if (isObject(fn.parameters) && fn.parameters.properties !== undefined && !isObject(fn.parameters.properties)) {
    return undefined
  }
  return fn
}

/**
 * Tokens that tool (function) definitions add to a request, following the
 * cookbook's num_tokens_for_tools: per function `func_init` + tokens of
 * "name:description", `prop_init` if it has properties, per property `prop_key` +
 * tokens of "key:type:description", per enum `enum_init` + (`enum_item` + tokens)
 * per item, and `func_end` once for the whole list. A trailing period of a
 * description is dropped, as in the cookbook.
 *
 * Like the cookbook, only top-level properties are itemised: nested object
 * schemas are an approximation. A tool that does not have that shape (no
 * string `name`, non-object parameters...) is counted as its JSON text.
 */
export function countToolSchemaTokens(tools: readonly unknown[], encoding: EncodingName): number {
  if (tools.length === 0) return 0
  const k = encoding === 'cl100k_base' ? TOOL_TOKENS_CL100K : TOOL_TOKENS_O200K
  let total = 0
  let anyFunction = false
  for (const tool of tools) {
    const fn = functionShape(tool)
    if (!fn) {
      total += countTextTokens(JSON.stringify(tool) ?? '', encoding)
      continue
    }
    anyFunction = true
    total += k.funcInit
    total += countTextTokens(`${fn.name as string}:${stripFinalPeriod(asText(fn.description))}`, encoding)
    const params = isObject(fn.parameters) ? fn.parameters : undefined
    const props = params && isObject(params.properties) ? params.properties : undefined
    const keys = props ? Object.keys(props) : []
    if (props && keys.length > 0) {
      total += k.propInit
      for (const key of keys) {
        total += k.propKey
        const prop = isObject(props[key]) ? (props[key] as JsonObject) : {}
        if (Array.isArray(prop.enum)) {
          total += k.enumInit
          for (const item of prop.enum) {
            total += k.enumItem + countTextTokens(asText(item), encoding)
          }
        }
        const line = `${key}:${asText(prop.type)}:${stripFinalPeriod(asText(prop.description))}`
        total += countTextTokens(line, encoding)
      }
    }
  }
  if (anyFunction) total += k.funcEnd
  return Math.max(0, total)
}
