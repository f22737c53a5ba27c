/**
 * The OpenAI Responses request body, for the proxy: `input` (an array of items) is the
 * conversation and `instructions` its system prompt, which compaction counts and keeps.
 * A string input is one user message (nothing to compact), and a request continuing a
 * stored response (`previous_response_id`) sends only its new items: the provider holds
 * the history, so compactd cannot compact it.
 */
import { argumentsOf, arrayAt, openaiErrorBody, withField, type RequestWire } from '../request-wire.ts'

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
  withTool(body, tool) {
    return withField(body, 'tools', [...arrayAt(body, 'tools'), { type: 'function', name: tool.name, description: tool.description, parameters: tool.parameters }])
  },
  callsOf(response) {
    const items = arrayAt(response, 'output') as { type?: unknown; call_id?: unknown; name?: unknown; arguments?: unknown }[]
    return items.filter((i) => i.type === 'function_call').map((i) => ({ id: String(i.call_id ?? ''), name: String(i.name ?? ''), input: argumentsOf(i.arguments) }))
  },
  withAnswers(body, response, answers) {
    // A string input is one user message; the output items follow it as they came.
    const input = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : arrayAt(body, 'input')
    const results = answers.map((a) => ({ type: 'function_call_output', call_id: a.id, output: a.text }))
    return withField(body, 'input', [...input, ...arrayAt(response, 'output'), ...results])
  },
}
