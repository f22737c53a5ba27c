/** The OpenAI Chat Completions request body, for the proxy: `messages` is the conversation. */
import { argumentsOf, arrayAt, openaiErrorBody, withField, type RequestWire } from '../request-wire.ts'

type Json = Record<string, unknown>

/** The first choice's message of a Chat Completions response. */
function messageOf(response: Json): Json | undefined {
  const choice = arrayAt(response, 'choices')[0] as { message?: Json } | undefined
  return choice?.message
}

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
  withTool(body, tool) {
    return withField(body, 'tools', [...arrayAt(body, 'tools'), { type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } }])
  },
  callsOf(response) {
    const calls = arrayAt(messageOf(response) ?? {}, 'tool_calls') as { id?: unknown; function?: { name?: unknown; arguments?: unknown } }[]
    return calls.map((c) => ({ id: String(c.id ?? ''), name: String(c.function?.name ?? ''), input: argumentsOf(c.function?.arguments) }))
  },
  withAnswers(body, response, answers) {
    const assistant = messageOf(response) ?? { role: 'assistant', content: null }
    const results = answers.map((a) => ({ role: 'tool', tool_call_id: a.id, content: a.text }))
    return withField(body, 'messages', [...arrayAt(body, 'messages'), assistant, ...results])
  },
}
