import t from 'tap'
import { chatCompletionsRequest } from '../../../../src/engine/messages/openai-chat/request.ts'
import { withoutStreaming } from '../../../../src/engine/messages/request-wire.ts'

t.test('messages are the conversation; every other field kept in its place', async (t) => {
  t.match(chatCompletionsRequest.conversationOf({ model: 'm' }), { none: /no messages/ })
  const out = chatCompletionsRequest.withConversation({ model: 'm', messages: [1], temperature: 0 }, { messages: [2] })
  t.same(out, { model: 'm', messages: [2], temperature: 0 })
  t.same(Object.keys(out), ['model', 'messages', 'temperature'])
})

t.test('the recall loop: a function tool, tool_calls, tool messages', async (t) => {
  const body = chatCompletionsRequest.withTool({ messages: [{ role: 'user', content: 'q' }] }, { name: 'search_context', description: 'd', parameters: { type: 'object' } })
  t.same(body.tools, [{ type: 'function', function: { name: 'search_context', description: 'd', parameters: { type: 'object' } } }])
  const message = { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'search_context', arguments: '{"query":"x"}' } }] }
  const response = { choices: [{ index: 0, message, finish_reason: 'tool_calls' }] }
  t.same(chatCompletionsRequest.callsOf(response), [{ id: 'call_1', name: 'search_context', input: { query: 'x' } }])
  t.same(chatCompletionsRequest.callsOf({ choices: [{ message: { role: 'assistant', content: 'done' } }] }), [])
  t.same(chatCompletionsRequest.callsOf({ choices: [{ message: { tool_calls: [{ id: 'c', function: { name: 'n', arguments: '{not json' } }] } }] }), [{ id: 'c', name: 'n', input: {} }], 'unparseable arguments: {}')
  const next = chatCompletionsRequest.withAnswers(body, response, [{ id: 'call_1', text: 'hit' }])
  t.same((next.messages as unknown[]).slice(1), [message, { role: 'tool', tool_call_id: 'call_1', content: 'hit' }])
})

t.test('a round asks for one whole answer', async (t) => {
  t.same(withoutStreaming({ model: 'm', stream: true, stream_options: { include_usage: true }, messages: [] }), { model: 'm', messages: [] })
})
