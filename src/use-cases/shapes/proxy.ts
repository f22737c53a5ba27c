/**
 * The proxy's bodies (issue 23), for validation and the OpenAPI file. They are the
 * providers' own request bodies: compactd reads the model and the conversation, and
 * passes every other field on unchanged, so the schemas are loose.
 */
import { z } from 'zod'

const model = z.string().min(1).describe("The provider's model id: its threshold decides whether the request is compacted.")

export const chatCompletionsProxyBody = z
  .looseObject({ model, messages: z.array(z.unknown()).describe('OpenAI Chat Completions messages: compacted past the threshold.') })
  .describe('An OpenAI Chat Completions request, passed on to UPSTREAM_OPENAI_URL/chat/completions (every other field unchanged; `stream` streams).')
  .meta({ id: 'ProxyChatCompletionsRequest', example: { model: 'gpt-4o', messages: [{ role: 'user', content: 'Hello' }] } })

export const responsesProxyBody = z
  .looseObject({
    model,
    input: z.union([z.string(), z.array(z.unknown())]).describe('Responses input items: compacted past the threshold (a string input never is).'),
  })
  .describe('An OpenAI Responses request, passed on to UPSTREAM_OPENAI_URL/responses. `instructions` are kept; with `previous_response_id` the provider holds the history and nothing is compacted.')
  .meta({ id: 'ProxyResponsesRequest', example: { model: 'gpt-4o', input: [{ role: 'user', content: 'Hello' }] } })

export const messagesProxyBody = z
  .looseObject({ model, messages: z.array(z.unknown()).describe('Anthropic messages: compacted past the threshold.') })
  .describe('An Anthropic Messages request, passed on to UPSTREAM_ANTHROPIC_URL/v1/messages. `system` is kept (a summary may be folded into it).')
  .meta({ id: 'ProxyMessagesRequest', example: { model: 'claude-sonnet-4-5', max_tokens: 1024, messages: [{ role: 'user', content: 'Hello' }] } })

export const countTokensProxyBody = z
  .looseObject({ model, messages: z.array(z.unknown()) })
  .describe("Anthropic's count_tokens request, answered by compactd's own counter (the heuristic for Anthropic models, with its margin).")
  .meta({ id: 'ProxyCountTokensRequest', example: { model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'Hello' }] } })

export const countTokensProxyResponse = z.object({ input_tokens: z.int() }).meta({ id: 'ProxyCountTokensResponse', example: { input_tokens: 9 } })

/** Any provider response, passed through (JSON or an SSE stream). */
export const passedThroughResponse = z.unknown().describe("The provider's response, passed through with its status and headers, plus x-compactd-* headers.")

/** The provider's error shape, for errors compactd reports itself. */
export const providerErrorResponse = z
  .looseObject({})
  .describe("The endpoint's provider error shape: OpenAI `{ error: { message, type, param, code } }`; Anthropic `{ type: 'error', error: { type, message } }`.")
