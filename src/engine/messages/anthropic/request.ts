/**
 * The Anthropic Messages request body, for the proxy: `messages` is the conversation and
 * `system` its top-level system prompt, which a compaction may fold a summary into.
 */
import { argumentsOf, arrayAt, withField, type ProxyErrorKind, type RequestWire } from '../request-wire.ts'

const ERROR_TYPES: Record<ProxyErrorKind, string> = {
  invalid_request: 'invalid_request_error',
  context_length_exceeded: 'invalid_request_error',
  authentication: 'authentication_error',
  rate_limit: 'rate_limit_error',
  overloaded: 'overloaded_error',
  upstream_unreachable: 'api_error',
  internal: 'api_error',
}

export const messagesRequest: RequestWire = {
  path: '/v1/messages',
  upstream: 'anthropic',
  upstreamPath: '/v1/messages',
  conversationOf(body) {
    if (!Array.isArray(body.messages)) return { none: 'the body has no messages array' }
    return { messages: body.messages, ...(body.system !== undefined ? { system: body.system } : {}) }
  },
  withConversation(body, conversation) {
    return withField(withField(body, 'messages', conversation.messages), 'system', conversation.system)
  },
  errorBody: (kind, message) => ({ type: 'error', error: { type: ERROR_TYPES[kind], message } }),
  withTool(body, tool) {
    return withField(body, 'tools', [...arrayAt(body, 'tools'), { name: tool.name, description: tool.description, input_schema: tool.parameters }])
  },
  callsOf(response) {
    const blocks = arrayAt(response, 'content') as { type?: unknown; id?: unknown; name?: unknown; input?: unknown }[]
    return blocks.filter((b) => b.type === 'tool_use').map((b) => ({ id: String(b.id ?? ''), name: String(b.name ?? ''), input: argumentsOf(b.input) }))
  },
  withAnswers(body, response, answers) {
    const assistant = { role: 'assistant', content: arrayAt(response, 'content') }
    const results = { role: 'user', content: answers.map((a) => ({ type: 'tool_result', tool_use_id: a.id, content: a.text })) }
    return withField(body, 'messages', [...arrayAt(body, 'messages'), assistant, results])
  },
}
