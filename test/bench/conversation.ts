/**
 * Deterministic synthetic agent conversations for benchmarks: a coding task with tool
 * calls, file reads, failing tests and fixes, in OpenAI chat format.
 */
export interface ChatMessage {
  role: string
  content: string | null
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[]
  tool_call_id?: string
}

const FILES = ['src/db/pool.ts', 'src/routes/users.ts', 'src/lib/cache.ts', 'test/users.test.ts', 'package.json']

function fileBody(path: string, lines: number): string {
  const out: string[] = []
  for (let i = 0; i < lines; i++) out.push(`export function fn${i}(input: string): string { return input.trim() + '${path}:${i}' }`)
  return out.join('\n')
}

/** `count` messages: system, task, then assistant/tool pairs. */
export function syntheticConversation(count: number): ChatMessage[] {
  const messages: ChatMessage[] = [
    { role: 'system', content: 'You are a coding agent. Use the tools to read, edit and test files. Keep changes minimal.' },
    { role: 'user', content: 'The users endpoint returns 500 when the cache is cold. Find the root cause in src/ and fix it; do not change the public API.' },
  ]
  let i = 0
  while (messages.length < count) {
    const file = FILES[i % FILES.length]!
    const id = `call_${i}`
    if (i % 3 === 2) {
      messages.push({ role: 'assistant', content: 'Running the tests.', tool_calls: [{ id, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command: 'npm test -- test/users.test.ts' }) } }] })
      if (messages.length < count)
        messages.push({ role: 'tool', tool_call_id: id, content: `> npm test\nFAIL test/users.test.ts\n  ● users › returns cached user\n    TypeError: Cannot read properties of undefined (reading 'id')\n      at getUser (src/routes/users.ts:${40 + i}:18)\nTests: 1 failed, ${10 + i} passed\nexit code 1` })
    } else {
      messages.push({ role: 'assistant', content: `Reading ${file}.`, tool_calls: [{ id, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: file }) } }] })
      if (messages.length < count) messages.push({ role: 'tool', tool_call_id: id, content: fileBody(file, 6) })
    }
    i++
  }
  return messages.slice(0, count)
}
