/**
 * Token counts of a canonical conversation.
 *
 * Structure follows OpenAI's published accounting for chat models: every message costs
 * TOKENS_PER_MESSAGE plus its role and content, a `name` costs TOKENS_PER_NAME more, and
 * the reply is primed with REPLY_PRIMING_TOKENS. With method `tokenizer` the text is
 * counted exactly (o200k_base / cl100k_base); with `heuristic` it is estimated by
 * character class, and multiplied by a safety margin for non-OpenAI models, whose
 * tokenizers we cannot run here.
 */
import { messageText, type CanonicalMessage, type CanonicalPart } from '../messages/canonical.ts'
import { estimateTextTokens, HEURISTIC_SAFETY_MARGIN } from './heuristic.ts'
import {
  countTextTokens,
  countToolSchemaTokens,
  REPLY_PRIMING_TOKENS,
  TOKENS_PER_MESSAGE,
  TOKENS_PER_NAME,
  type EncodingName,
} from './tokenizer.ts'

export type CountMethod = 'tokenizer' | 'heuristic'

/** Image cost when dimensions are unknown: one 512px-tile high-detail image (85 + 4×170). */
export const IMAGE_TOKENS = 765
/** Framing of one tool call (id, type, function wrapper) beyond its name and arguments. */
export const TOOL_CALL_OVERHEAD = 8

export interface TokenCounter {
  method: CountMethod
  /** Multiplier applied to heuristic counts (1 for the exact tokenizer). */
  margin: number
  text(text: string): number
}

export function tokenizerCounter(encoding: EncodingName): TokenCounter {
  return { method: 'tokenizer', margin: 1, text: (t) => countTextTokens(t, encoding) }
}

/** `withMargin` is true for models whose tokenizer is not o200k-like. */
export function heuristicCounter(withMargin: boolean): TokenCounter {
  const margin = withMargin ? HEURISTIC_SAFETY_MARGIN : 1
  return { method: 'heuristic', margin, text: estimateTextTokens }
}

function partTokens(part: CanonicalPart, counter: TokenCounter): number {
  switch (part.type) {
    case 'text':
    case 'reasoning':
    case 'opaque':
      return counter.text(part.text)
    case 'tool-call':
      return TOOL_CALL_OVERHEAD + counter.text(part.name) + counter.text(part.argsText)
    case 'tool-result':
      return counter.text(part.text)
    case 'image':
      return IMAGE_TOKENS
  }
}

/** Tokens one message adds to a prompt (overhead included, margin applied). */
export function messageTokens(message: CanonicalMessage, counter: TokenCounter): number {
  let n = TOKENS_PER_MESSAGE + counter.text(message.role)
  if (message.name) n += TOKENS_PER_NAME + counter.text(message.name)
  for (const part of message.parts) n += partTokens(part, counter)
  return Math.ceil(n * counter.margin)
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
