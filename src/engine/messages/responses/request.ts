/**
 * The OpenAI Responses request body, for the proxy: `input` (an array of items) is the
 * conversation and `instructions` its system prompt, which compaction counts and keeps.
 * A string input is one user message (nothing to compact), and a request continuing a
 * stored response (`previous_response_id`) sends only its new items: the provider holds
 * the history, so compactd cannot compact it.
 */
import { openaiErrorBody, withField, type RequestWire } from '../request-wire.ts'

export const responsesRequest: RequestWire = {
  path: '/v1/responses',
  upstream: 'openai',
  upstreamPath: '/responses',
  conversationOf(body) {
    if (typeof body.previous_response_id === 'string') return { none: 'previous_response_id: the provider holds the history' }
    if (!Array.isArray(body.input)) return { none: 'the input is not an array of items' }
    return { messages: body.input, ...(typeof body.instructions === 'string' ? { system: body.instructions } : {}) }
  },
  withConversation(body, conversation) {
    // instructions stay the caller's: the compacted conversation never folds into them.
    return withField(body, 'input', conversation.messages)
  },
  errorBody: openaiErrorBody,
}
