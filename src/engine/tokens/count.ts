/**
 * Token counts of a canonical conversation.
 *
 * Structure follows OpenAI's published accounting for chat models: every message costs
 * TOKENS_PER_MESSAGE plus its role and content, a `name` costs TOKENS_PER_NAME more, and
 * the reply is primed with REPLY_PRIMING_TOKENS. With method `tokenizer` the text is
 * counted exactly (o200k_base / cl100k_base); with `heuristic` it is estimated by
 * character class, and multiplied by a safety margin for non-OpenAI models, whose
 * tokenizers we cannot run here.
 *
 * A counter may carry a cache (MessageCountCache): agents resend their whole history every
 * turn, so each message's counts are remembered under a hash of what is counted (see
 * messageCacheKey) and a resent message costs one hash instead of a count. The cache is
 * an interface (get/set by key); the server's LRU lives in src/plugins/token-cache.ts.
 */
import { hash } from 'node:crypto'
import { messageText, type CanonicalMessage, type CanonicalPart } from '../messages/canonical.ts'
import { estimateTextTokens, HEURISTIC_SAFETY_MARGIN, HEURISTIC_VERSION } from './heuristic.ts'
import { IMAGE_TOKENS, mediaTokens } from './media.ts'
import {
  countTextTokens,
  countToolSchemaTokens,
  REPLY_PRIMING_TOKENS,
  TOKENS_PER_MESSAGE,
  TOKENS_PER_NAME,
  type EncodingName,
} from './tokenizer.ts'

export type CountMethod = 'tokenizer' | 'heuristic'

export { IMAGE_TOKENS } from './media.ts'
/** Framing of one tool call (id, type, function wrapper) beyond its name and arguments. */
export const TOOL_CALL_OVERHEAD = 8

export interface TokenCounter {
  method: CountMethod
  /** Multiplier applied to heuristic counts (1 for the exact tokenizer). */
  margin: number
  text(text: string): number
  /**
   * What `text` computes (the encoding, or the heuristic and its version): part of every
   * cache key, so counts of one counter are never read as another's. No id: never cached.
   */
  id?: string
  /** Per-message counts remembered across calls; absent: every message is counted. */
  cache?: MessageCountCache
  /**
   * How a message's own parts are counted, when not as `text`: memoizedCounter's leaves
   * them out of the derived-text entries, since the message's entry already covers them.
   */
  partText?(text: string): number
}

/**
 * One message's counts before the margin: `actual` as messageTokens counts it (overhead,
 * role, name and parts); `neutral`, its content as the format-neutral planner counts it
 * (conversation/segments.ts), once something has needed it. Numbers only: no content.
 */
export interface MessageCounts {
  readonly actual: number
  readonly neutral?: number
}

/** Where counts are remembered: get/set by key (a hash), e.g. an LRU. */
export interface TokenCountCache {
  get(key: string): MessageCounts | undefined
  set(key: string, counts: MessageCounts): void
}

export interface MessageCountCache {
  store: TokenCountCache
  /** Keys are per scope (the tenant): no caller learns from timing what another has sent. */
  scope: string
}

/**
 * Messages with less countable text than this are counted, not cached: below it a hash
 * and a lookup cost more than the count (measured per message size and method with
 * test/bench/token-cache.ts; docs/benchmarks.md).
 */
export const CACHE_MIN_CHARS: Readonly<Record<CountMethod, number>> = { tokenizer: 0, heuristic: 128 }

export function tokenizerCounter(encoding: EncodingName, cache?: MessageCountCache): TokenCounter {
  return { method: 'tokenizer', margin: 1, text: (t) => countTextTokens(t, encoding), id: encoding, ...(cache ? { cache } : {}) }
}

/** Texts shorter than this are counted again rather than remembered: a lookup would cost about as much. */
const MEMO_MIN_CHARS = 256
/**
 * Texts a compaction derives (log lines, mask placeholders, condensed inputs) within these
 * bounds are also looked up in the counter's token-count cache, across compactions: an
 * agent resends its history, and the same history makes the same lines. Below the lower
 * bound the tokenizer costs about what a hash and a lookup do (test/bench/token-cache.ts:
 * o200k 64–127 characters 16.9 µs counted, 2.2 µs from the cache); above the upper one a
 * text is mostly a message's part, which the message's own entry already covers.
 */
const TEXT_CACHE_MIN_CHARS = 64
const TEXT_CACHE_MAX_CHARS = 2_000

/**
 * The cache key of a text for a tokenizer counter: SHA-256 of the counter's id, the cache's
 * scope and the text, length-prefixed; the `T` after the scope keeps it apart from every
 * message key (messageCacheKey puts the role's length, a digit, there).
 */
function textCacheKey(t: string, counter: TokenCounter): string | undefined {
  const cache = counter.cache
  if (!cache || counter.id === undefined || counter.method !== 'tokenizer') return undefined
  const s = `${counter.id.length}:${counter.id}${cache.scope.length}:${cache.scope}T${t.length}:${t}`
  return isWellFormed(s) ? hash('sha256', s, 'base64') : hash('sha256', Buffer.concat([UTF16_MARK, Buffer.from(s, 'utf16le')]), 'base64')
}

/**
 * The counter with its text counts remembered for one piece of work (a compaction): the
 * engine counts some texts more than once (a tool result when the plan is made, and again
 * when masking decides whether its placeholder is shorter; a tool input when condensing),
 * and on the largest fixture those second passes were a fifth of the tokenizer's work.
 * The map only refers to strings the work holds anyway, and is dropped with it. Texts of
 * TEXT_CACHE_MIN_CHARS–TEXT_CACHE_MAX_CHARS are also kept in the counter's cache, when it
 * has one, for the next compaction of the same history.
 */
export function memoizedCounter(counter: TokenCounter): TokenCounter {
  const counts = new Map<string, number>()
  const count = (t: string, derived: boolean): number => {
    if (t.length < TEXT_CACHE_MIN_CHARS) return counter.text(t)
    const memo = t.length >= MEMO_MIN_CHARS
    let n = memo ? counts.get(t) : undefined
    if (n !== undefined) return n
    const key = derived && t.length <= TEXT_CACHE_MAX_CHARS ? textCacheKey(t, counter) : undefined
    const stored = key === undefined ? undefined : counter.cache!.store.get(key)
    n = stored?.actual ?? counter.text(t)
    if (key !== undefined && stored === undefined) counter.cache!.store.set(key, { actual: n })
    if (memo) counts.set(t, n)
    return n
  }
  return { ...counter, text: (t) => count(t, true), partText: (t) => count(t, false) }
}

/** `withMargin` is true for models whose tokenizer is not o200k-like. */
export function heuristicCounter(withMargin: boolean, cache?: MessageCountCache): TokenCounter {
  const margin = withMargin ? HEURISTIC_SAFETY_MARGIN : 1
  // The margin is applied after the cache (counts are stored before it), so it is not in the id.
  return { method: 'heuristic', margin, text: estimateTextTokens, id: `heuristic-v${HEURISTIC_VERSION}`, ...(cache ? { cache } : {}) }
}

const PART_TAG: Record<'text' | 'reasoning' | 'opaque' | 'tool-result', string> = { text: 't', reasoning: 'r', opaque: 'o', 'tool-result': 'x' }
/** String.prototype.isWellFormed (Node 20; not in the ES2023 lib this project compiles against). */
const isWellFormed = (s: string): boolean => (s as string & { isWellFormed(): boolean }).isWellFormed()
/** Marks a key's input as UTF-16 (0xFF never occurs in UTF-8), so it cannot equal a UTF-8 one. */
const UTF16_MARK = Buffer.from([0xff])

/**
 * The cache key of a message for a counter: SHA-256 of everything its counts depend on
 * (the counter's id, the cache's scope, role, name, and each part's type and counted
 * text), each field length-prefixed so that no two messages share an input. Undefined
 * when the counter has no cache or id, or the message is too short to be worth it
 * (`minChars`, by default CACHE_MIN_CHARS of the counter's method). Text with a lone
 * surrogate is hashed as UTF-16, since UTF-8 would turn every lone surrogate into the
 * same U+FFFD.
 */
export function messageCacheKey(message: CanonicalMessage, counter: TokenCounter, minChars = CACHE_MIN_CHARS[counter.method]): string | undefined {
  const cache = counter.cache
  if (!cache || counter.id === undefined) return undefined
  if (minChars > 0) {
    let chars = 0
    for (const p of message.parts) chars += p.type === 'tool-call' ? p.name.length + p.argsText.length : p.type === 'image' ? 0 : p.text.length
    if (chars < minChars) return undefined
  }
  const name = message.name ? `${message.name.length}:${message.name}` : '-'
  let s = `${counter.id.length}:${counter.id}${cache.scope.length}:${cache.scope}${message.role.length}:${message.role}${name}`
  for (const p of message.parts) {
    if (p.type === 'tool-call') s += `c${p.name.length}:${p.name}${p.argsText.length}:${p.argsText}`
    else if (p.type === 'image') s += 'i'
    else if (p.type === 'opaque' && p.media) s += `m${mediaTokens(p.media)}` // counted by rule: the rule's answer is what the count depends on
    else s += `${PART_TAG[p.type]}${p.text.length}:${p.text}`
  }
  return isWellFormed(s) ? hash('sha256', s, 'base64') : hash('sha256', Buffer.concat([UTF16_MARK, Buffer.from(s, 'utf16le')]), 'base64')
}

function partTokens(part: CanonicalPart, counter: TokenCounter): number {
  const text = counter.partText ?? counter.text
  switch (part.type) {
    case 'opaque':
      return part.media ? mediaTokens(part.media) : text(part.text)
    case 'text':
    case 'reasoning':
      return text(part.text)
    case 'tool-call':
      return TOOL_CALL_OVERHEAD + text(part.name) + text(part.argsText)
    case 'tool-result':
      return text(part.text)
    case 'image':
      return IMAGE_TOKENS
  }
}

/** A message counted afresh; `neutral` too when it has no tool call (then the two agree). */
function countMessage(message: CanonicalMessage, counter: TokenCounter): MessageCounts {
  let n = TOKENS_PER_MESSAGE + counter.text(message.role)
  if (message.name) n += TOKENS_PER_NAME + counter.text(message.name)
  const head = n
  let calls = false
  for (const part of message.parts) {
    n += partTokens(part, counter)
    if (part.type === 'tool-call') calls = true
  }
  return calls ? { actual: n } : { actual: n, neutral: n - head }
}

/** Tokens one message adds to a prompt (overhead included, margin applied). */
export function messageTokens(message: CanonicalMessage, counter: TokenCounter): number {
  const key = messageCacheKey(message, counter)
  if (key === undefined) return Math.ceil(countMessage(message, counter).actual * counter.margin)
  const store = counter.cache!.store
  let counts = store.get(key)
  if (counts === undefined) store.set(key, (counts = countMessage(message, counter)))
  return Math.ceil(counts.actual * counter.margin)
}

export interface ConversationCount {
  totalTokens: number
  perMessage: number[]
  toolsTokens: number
}

export function countConversation(
  messages: readonly CanonicalMessage[],
  counter: TokenCounter,
  tools?: readonly unknown[],
  toolsEncoding: EncodingName = 'o200k_base',
): ConversationCount {
  const perMessage = messages.map((m) => messageTokens(m, counter))
  let toolsTokens = 0
  if (tools && tools.length > 0) {
    toolsTokens =
      counter.method === 'tokenizer'
        ? countToolSchemaTokens(tools as unknown[], toolsEncoding)
        : Math.ceil(counter.text(JSON.stringify(tools)) * counter.margin)
  }
  const totalTokens = perMessage.reduce((a, b) => a + b, 0) + toolsTokens + (messages.length > 0 ? REPLY_PRIMING_TOKENS : 0)
  return { totalTokens, perMessage, toolsTokens }
}

/** Plain-text token count of a whole message, without overhead: used by summaries. */
export function textTokens(message: CanonicalMessage, counter: TokenCounter): number {
  return Math.ceil(counter.text(messageText(message)) * counter.margin)
}
