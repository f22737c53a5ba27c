/** POST /estimate's request and response, written once: the route validates and documents them, the use case takes their types. */
import { z } from 'zod'
import { formatField, messagesField, modelField, systemField, thresholdOverrideFields, formatEnum } from './common.ts'

export const estimateBody = z
  .strictObject({
    messages: messagesField,
    format: formatField,
    model: modelField,
    system: systemField,
    tools: z
      .array(z.unknown())
      .max(10_000)
      .optional()
      .describe('Tool definitions sent with the request (OpenAI `tools` or Anthropic `tools`); their schemas count toward the prompt.'),
    method: z
      .enum(['tokenizer', 'heuristic', 'provider'])
      .optional()
      .describe(
        '`tokenizer`: exact o200k_base/cl100k_base counts (OpenAI models). `heuristic`: fast character-class estimate. `provider`: Anthropic count_tokens, falling back to the heuristic when unavailable. Default: tokenizer for OpenAI models, heuristic with a safety margin for others.',
      ),
    ...thresholdOverrideFields,
  })
  .describe('A conversation to count.')
  .meta({
    id: 'EstimateRequest',
    example: {
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'You are a coding agent.' },
        { role: 'user', content: 'Fix the failing test in src/db.ts' },
      ],
    },
  })

export const estimateQuery = z.object({
  perMessage: z
    .enum(['true', 'false'])
    .optional()
    .transform((v) => v !== 'false')
    .describe('`false` leaves `perMessage` out of the answer: the totals only, a smaller and faster answer for a caller that checks the threshold every turn. Default true.'),
})

export const estimateResponse = z
  .object({
    model: z.string().describe('The model the limits refer to (the request\'s, or DEFAULT_MODEL).'),
    modelKnown: z.boolean().describe('False when the model is not in the registry and configurable defaults were used.'),
    provider: z.string().describe('openai, anthropic, google, deepseek or unknown.'),
    format: formatEnum.describe('The detected (or given) message format.'),
    method: z.enum(['tokenizer', 'heuristic', 'provider']).describe('The method that produced totalTokens.'),
    encoding: z.string().optional().describe('Tokenizer encoding, when method is tokenizer.'),
    safetyMargin: z.number().describe('Multiplier applied to heuristic counts for models whose tokenizer is not o200k-like (1 = none).'),
    totalTokens: z.int().describe('Prompt tokens: messages, per-message overhead, tools and reply priming.'),
    toolsTokens: z.int().describe('Tokens of the tool definitions, included in totalTokens.'),
    perMessage: z
      .array(z.object({ index: z.int().describe('Index in `messages`; -1 is a separate system prompt.'), role: z.string(), tokens: z.int() }))
      .optional()
      .describe('Tokens of each message, overhead included. With method provider these are heuristic estimates. Left out with `?perMessage=false`.'),
    contextLimit: z.int().describe('The model\'s context window.'),
    maxOutputTokens: z.int().describe('The model\'s maximum output tokens.'),
    threshold: z
      .int()
      .describe("(contextLimit − systemReserve − outputReserve − safetyBuffer) × thresholdPercent. 0 when the server's default reserves fill the model's window (see thresholdNote)."),
    thresholdNote: z
      .string()
      .optional()
      .describe("Present when threshold is 0 because the model's window is smaller than the server's default reserves (gpt-4's 8,192 < 11,000): the numbers, and what to give (smaller reserves, or targetTokens to /compact). The count is exact all the same."),
    shouldCompact: z.boolean().describe('totalTokens ≥ threshold (always true when threshold is 0).'),
    fallback: z
      .object({ from: z.string(), reason: z.string() })
      .optional()
      .describe('Present when the requested method was unavailable and the heuristic was used instead.'),
  })
  .meta({
    id: 'EstimateResponse',
    example: {
      model: 'gpt-4o',
      modelKnown: true,
      provider: 'openai',
      format: 'openai',
      method: 'tokenizer',
      encoding: 'o200k_base',
      safetyMargin: 1,
      totalTokens: 27,
      toolsTokens: 0,
      perMessage: [
        { index: 0, role: 'system', tokens: 10 },
        { index: 1, role: 'user', tokens: 14 },
      ],
      contextLimit: 128000,
      maxOutputTokens: 16384,
      threshold: 93600,
      shouldCompact: false,
    },
  })
