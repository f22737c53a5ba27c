/** The OpenAI Chat Completions request body, for the proxy: `messages` is the conversation. */
import { openaiErrorBody, withField, type RequestWire } from '../request-wire.ts'

export const chatCompletionsRequest: RequestWire = {
  path: '/v1/chat/completions',
  upstream: 'openai',
  upstreamPath: '/chat/completions',
  conversationOf(body) {
    return Array.isArray(body.messages) ? { messages: body.messages } : { none: 'the body has no messages array' }
  },
  withConversation(body, conversation) {
    return withField(body, 'messages', conversation.messages)
  },
  errorBody: openaiErrorBody,
}
