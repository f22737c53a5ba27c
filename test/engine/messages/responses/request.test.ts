import t from 'tap'
import { responsesRequest } from '../../../../src/engine/messages/responses/request.ts'

const tool = { name: 'search_context', description: 'Search', parameters: { type: 'object', properties: { query: { type: 'string' } } } }

t.test('the conversation is input; instructions count and stay; previous_response_id and string input are not compacted', async (t) => {
  t.same(responsesRequest.conversationOf({ model: 'm', instructions: 'be brief', input: [{ role: 'user', content: 'hi' }] }), { messages: [{ role: 'user', content: 'hi' }], system: 'be brief' })
  t.match(responsesRequest.conversationOf({ model: 'm', input: 'hi' }), { none: /not an array/ })
  t.match(responsesRequest.conversationOf({ model: 'm', previous_response_id: 'resp_1', input: [] }), { none: /previous_response_id/ })
  const body = { model: 'm', input: [1], instructions: 'x', stream: true }
  t.same(Object.keys(responsesRequest.withConversation(body, { messages: [2], system: 'other' })), ['model', 'input', 'instructions', 'stream'], 'key order kept')
  t.equal(responsesRequest.withConversation(body, { messages: [2], system: 'other' }).instructions, 'x', 'instructions untouched')
})

t.test('the recall loop: a function tool, the function_call items, their outputs appended', async (t) => {
  const withTool = responsesRequest.withTool({ model: 'm', input: 'hi', tools: [{ type: 'web_search' }] }, tool)
  t.same(withTool.tools, [{ type: 'web_search' }, { type: 'function', name: 'search_context', description: 'Search', parameters: tool.parameters }])
  const response = { output: [{ type: 'reasoning', id: 'rs_1' }, { type: 'function_call', call_id: 'call_1', name: 'search_context', arguments: '{"query":"q"}' }] }
  t.same(responsesRequest.callsOf(response), [{ id: 'call_1', name: 'search_context', input: { query: 'q' } }])
  t.same(responsesRequest.callsOf({ output: [{ type: 'message', content: [] }] }), [])
  const next = responsesRequest.withAnswers(withTool, response, [{ id: 'call_1', text: 'found' }])
  t.same(next.input, [{ role: 'user', content: 'hi' }, ...response.output, { type: 'function_call_output', call_id: 'call_1', output: 'found' }])
})

t.test("errors take OpenAI's shape", async (t) => {
  t.same(responsesRequest.errorBody('context_length_exceeded', 'too long'), { error: { message: 'too long', type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } })
})
