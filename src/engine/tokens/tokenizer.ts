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
import { readBpeRanks, type BpeRank } from './bpe-ranks.ts'

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

/** gpt-tokenizer's encoder class (its `cjs/*` export): an encoding built from tables given to it. */
interface GptEncodingClass {
  getEncodingApi(encoding: EncodingName, getMergeableRanks: () => BpeRank[]): EncodingApi
}

function loadEncoding(encoding: EncodingName): EncodingApi {
  const cached = loaded[encoding]
  if (cached) return cached
  if (!ENCODING_NAMES.includes(encoding)) throw new Error(`unknown encoding: ${String(encoding)}`)
  // From the package's data file (./bpe-ranks.ts: ~16 MB less per isolate than its
  // generated module); the module only for an install that has no data file.
  const ranks = readBpeRanks(encoding)
  const api = ranks
    ? (requireLazy('gpt-tokenizer/cjs/GptEncoding') as { GptEncoding: GptEncodingClass }).GptEncoding.getEncodingApi(encoding, () => ranks)
    : (requireLazy(`gpt-tokenizer/encoding/${encoding}`) as EncodingApi)
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
 * The longest run of one character class that is counted in one piece (issue 18).
 *
 * The encoders first cut text with a regular expression (a word, a number of at most 3
 * digits, a run of punctuation, a run of whitespace) and then merge byte pairs inside
 * each piece, and that merge is quadratic in the piece's length (gpt-tokenizer's
 * bytePairMerge scans every pair for each merge; tiktoken's issue 195 is the same
 * finding): one message of `"A"×100k` took 17 s. Real text never has such pieces, but
 * base64, hex, hashes glued together, minified names, CJK without punctuation, a line of
 * `=` and long indentation do. A run of letters, of punctuation or of whitespace longer
 * than this is cut into pieces of this length and each is counted alone, so a piece's
 * merge costs at most MAX_RUN_CHARS² and counting stays linear in the text. A cut can
 * change the count by the merges across it: at most MAX_CUT_ERROR_TOKENS per cut,
 * measured by test/engine/tokens/linear-count.test.ts; the fixtures have no such run, so
 * their counts are exact (docs/tokens.md).
 */
export const MAX_RUN_CHARS = 256
/** Tokens one cut can add or remove, at most (the property test's bound; docs/tokens.md). */
export const MAX_CUT_ERROR_TOKENS = 2

/** Character classes the encoders' split patterns keep together in one piece; 0 never forms a long piece (digits are cut at 3). */
const BREAK = 0
const LETTER = 1
const SPACE = 2
const SYMBOL = 3

const ASCII_CLASS = (() => {
  const table = new Uint8Array(128).fill(SYMBOL)
  for (let c = 0; c < 128; c++) {
    const ch = String.fromCharCode(c)
    if (/[A-Za-z]/.test(ch)) table[c] = LETTER
    else if (/[0-9]/.test(ch)) table[c] = BREAK
    else if (/\s/.test(ch)) table[c] = SPACE
  }
  return table
})()

const NON_ASCII_LETTER = /^[\p{L}\p{M}]/u
const NON_ASCII_SPACE = /^\s/u
const NON_ASCII_NUMBER = /^\p{N}/u

function nonAsciiClass(ch: string): number {
  if (NON_ASCII_LETTER.test(ch)) return LETTER
  if (NON_ASCII_SPACE.test(ch)) return SPACE
  if (NON_ASCII_NUMBER.test(ch)) return BREAK
  return SYMBOL
}

/**
 * Where `text` has a run longer than MAX_RUN_CHARS of letters and marks, of punctuation
 * and symbols, or of whitespace, as [start, end) pairs: the classes the encoders' split
 * patterns keep in one piece. One pass over the characters (a table for ASCII, Unicode
 * properties only for the rest); a regular expression with `{257,}` would retry every
 * position inside a run, and with lookbehinds to prevent that it ran at a third of the
 * tokenizer's own speed on the fixtures.
 */
export function longRuns(text: string): number[] {
  const runs: number[] = []
  let runClass = BREAK
  let runStart = 0
  for (let i = 0; i < text.length; ) {
    const code = text.charCodeAt(i)
    let cls: number
    let width = 1
    if (code < 128) cls = ASCII_CLASS[code]!
    else {
      const point = text.codePointAt(i)!
      if (point > 0xffff) width = 2
      cls = nonAsciiClass(String.fromCodePoint(point))
    }
    // The encoders' symbol piece takes the line breaks after it (`[^\s\p{L}\p{N}]+[\r\n/]*`): they extend its run.
    if (runClass === SYMBOL && (code === 10 || code === 13)) cls = SYMBOL
    if (cls !== runClass) {
      if (runClass !== BREAK && i - runStart > MAX_RUN_CHARS) runs.push(runStart, i)
      runClass = cls
      runStart = i
    }
    i += width
  }
  if (runClass !== BREAK && text.length - runStart > MAX_RUN_CHARS) runs.push(runStart, text.length)
  return runs
}

/**
 * The pieces `text` is counted in: the text itself, or, around each long run (longRuns),
 * the text between runs and each run cut into pieces of at most MAX_RUN_CHARS characters
 * (never between the halves of a surrogate pair).
 */
export function countedPieces(text: string): string[] {
  if (text.length <= MAX_RUN_CHARS) return [text]
  const runs = longRuns(text)
  if (runs.length === 0) return [text]
  const pieces: string[] = []
  let from = 0
  for (let r = 0; r < runs.length; r += 2) {
    const start = runs[r]!
    const end = runs[r + 1]!
    if (start > from) pieces.push(text.slice(from, start))
    for (let at = start; at < end; ) {
      let cut = Math.min(end, at + MAX_RUN_CHARS)
      if (cut < end && isLowSurrogate(text.charCodeAt(cut))) cut++
      pieces.push(text.slice(at, cut))
      at = cut
    }
    from = end
  }
  if (from < text.length) pieces.push(text.slice(from))
  return pieces
}

/**
 * Number of tokens `text` encodes to: exact where no run is longer than MAX_RUN_CHARS
 * (every real text we have), within MAX_CUT_ERROR_TOKENS per cut elsewhere. Uses
 * gpt-tokenizer's counting path, which walks the BPE merges without building a token array.
 */
export function countTextTokens(text: string, encoding: EncodingName): number {
  if (text.length === 0) return 0
  const api = loadEncoding(encoding)
  if (text.length <= MAX_RUN_CHARS) return api.countTokens(text, SPECIAL_AS_TEXT)
  let total = 0
  for (const piece of countedPieces(text)) total += api.countTokens(piece, SPECIAL_AS_TEXT)
  return total
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff
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

/**
 * Whether any string in a JSON value (a request body) has a long run (longRuns): text
 * whose count costs up to ~30× that of prose of its size, which the compute pool then
 * treats as heavy however small the body (issue 18). Walks iteratively: depth is bounded
 * by the body guard, not by the stack.
 */
export function containsLongRun(value: unknown): boolean {
  const stack: unknown[] = [value]
  while (stack.length > 0) {
    const v = stack.pop()
    if (typeof v === 'string') {
      if (v.length > MAX_RUN_CHARS && longRuns(v).length > 0) return true
    } else if (Array.isArray(v)) {
      for (const item of v) stack.push(item)
    } else if (v !== null && typeof v === 'object') {
      for (const key in v) stack.push((v as Record<string, unknown>)[key])
    }
  }
  return false
}
