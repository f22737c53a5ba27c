/**
 * The Anthropic Messages request body, for the proxy: `messages` is the conversation and
 * `system` its top-level system prompt, which a compaction may fold a summary into.
 */
import { withField, type ProxyErrorKind, type RequestWire } from '../request-wire.ts'

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
}
