import t from 'tap'
import { messagesRequest } from '../../../../src/engine/messages/anthropic/request.ts'

t.test('messages and system; a compacted system replaces it, in its place', async (t) => {
  t.same(messagesRequest.conversationOf({ system: 'rules', messages: [{ role: 'user', content: 'hi' }] }), { messages: [{ role: 'user', content: 'hi' }], system: 'rules' })
  const body = { model: 'm', system: 'rules', messages: [], max_tokens: 5 }
  const out = messagesRequest.withConversation(body, { messages: [{ role: 'user', content: 'x' }], system: 'rules + summary' })
  t.same(Object.keys(out), ['model', 'system', 'messages', 'max_tokens'])
  t.equal(out.system, 'rules + summary')
})

t.test('the recall loop: an input_schema tool, tool_use blocks, tool_result answers', async (t) => {
  const body = messagesRequest.withTool({ messages: [{ role: 'user', content: 'q' }] }, { name: 'search_context', description: 'd', parameters: { type: 'object' } })
  t.same(body.tools, [{ name: 'search_context', description: 'd', input_schema: { type: 'object' } }])
  const response = { content: [{ type: 'text', text: 'Let me look.' }, { type: 'tool_use', id: 'toolu_1', name: 'search_context', input: { query: 'x' } }] }
  t.same(messagesRequest.callsOf(response), [{ id: 'toolu_1', name: 'search_context', input: { query: 'x' } }])
  const next = messagesRequest.withAnswers(body, response, [{ id: 'toolu_1', text: 'hit' }])
  t.same((next.messages as unknown[]).slice(1), [
    { role: 'assistant', content: response.content },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'hit' }] },
  ])
})

t.test("errors take Anthropic's shape", async (t) => {
  t.same(messagesRequest.errorBody('upstream_unreachable', 'down'), { type: 'error', error: { type: 'api_error', message: 'down' } })
  t.same(messagesRequest.errorBody('context_length_exceeded', 'long'), { type: 'error', error: { type: 'invalid_request_error', message: 'long' } })
})
