/** The agent's own plan, read from its todo/plan tool calls. */
import t from 'tap'
import { isPlanTool, planFromToolCall } from '../../../src/engine/facts/plan-tools.ts'
import { conversationsSkip, fixtureFiles, fixtureMessages } from '../../helpers/fixtures.ts'

const args = (v: unknown) => JSON.stringify(v)

t.test('Claude Code TodoWrite', async (t) => {
  const plan = planFromToolCall(
    'TodoWrite',
    args({
      todos: [
        { content: 'Reproduce the crash', status: 'completed', activeForm: 'Reproducing the crash' },
        { content: 'Fix get() in src/cache.ts', status: 'in_progress', activeForm: 'Fixing get()' },
        { content: 'Add a regression test', status: 'pending', activeForm: 'Adding a regression test' },
      ],
    }),
  )
  t.same(plan, [
    { text: 'Reproduce the crash', status: 'completed' },
    { text: 'Fix get() in src/cache.ts', status: 'in_progress' },
    { text: 'Add a regression test', status: 'pending' },
  ])
})

t.test('Codex update_plan (the explanation is not a step)', async (t) => {
  const plan = planFromToolCall(
    'update_plan',
    args({
      explanation: 'Starting with the embedder',
      plan: [
        { step: 'Add Document.media', status: 'completed' },
        { step: 'Support images in PgVector', status: 'in_progress' },
        { step: 'Write tests', status: 'pending' },
      ],
    }),
  )
  t.same(plan?.map((p) => p.status), ['completed', 'in_progress', 'pending'])
  t.equal(plan?.[1]?.text, 'Support images in PgVector')
  t.same(planFromToolCall('functions.update_plan', args({ plan: [{ step: 'x', status: 'pending' }] })), [{ text: 'x', status: 'pending' }], 'a namespaced name')
})

t.test('Gemini CLI write_todos: cancelled items are dropped', async (t) => {
  const plan = planFromToolCall(
    'write_todos',
    args({
      todos: [
        { description: 'Initialize the project', status: 'completed' },
        { description: 'Use Redux', status: 'cancelled' },
        { description: 'Implement state management', status: 'in_progress' },
        { description: 'Create the API service', status: 'pending' },
      ],
    }),
  )
  t.same(plan, [
    { text: 'Initialize the project', status: 'completed' },
    { text: 'Implement state management', status: 'in_progress' },
    { text: 'Create the API service', status: 'pending' },
  ])
})

t.test('other agents: todowrite, todo_write, update_todo_list, manage_todo_list', async (t) => {
  t.same(planFromToolCall('todowrite', args({ todos: [{ id: '1', content: 'Ship', status: 'pending', priority: 'high' }] })), [{ text: 'Ship', status: 'pending' }], 'opencode')
  t.same(planFromToolCall('todo_write', args({ todos: [{ id: 'a', content: 'Ship', status: 'done' }] })), [{ text: 'Ship', status: 'completed' }], 'Amp')
  t.same(planFromToolCall('mcp__tasks__todo_write', args({ todos: [{ content: 'Ship', status: 'in-progress' }] })), [{ text: 'Ship', status: 'in_progress' }], 'an MCP name')
  t.same(planFromToolCall('update_todo_list', args({ todos: '[x] Read the code\n[-] Fix the bug\n[ ] Add tests' })), [
    { text: 'Read the code', status: 'completed' },
    { text: 'Fix the bug', status: 'in_progress' },
    { text: 'Add tests', status: 'pending' },
  ], "Roo's checklist string")
  t.same(
    planFromToolCall('manage_todo_list', args({ operation: 'write', todoList: [{ id: 1, title: 'Tests', description: 'Add unit tests for the parser', status: 'not-started' }] })),
    [{ text: 'Tests: Add unit tests for the parser', status: 'pending' }],
    'Copilot',
  )
  t.same(planFromToolCall('todo', args({ todos: [{ text: 'Ship', done: true }] })), [{ text: 'Ship', status: 'completed' }], 'a boolean done flag')
  t.same(planFromToolCall('TodoWrite', args({ todos: [] })), [], 'a cleared list is an empty plan')
})

t.test('not a whole plan: undefined', async (t) => {
  t.equal(planFromToolCall('bash', args({ command: 'ls' })), undefined, 'another tool')
  t.equal(planFromToolCall('task', args({ agent: 'architect', tasks: [{ id: 'ReviewPR47', description: 'review' }] })), undefined, "pi's subagent task tool is no plan")
  t.equal(planFromToolCall('TodoWrite', '{not json'), undefined, 'unreadable arguments')
  t.equal(planFromToolCall('TodoWrite', args({ foo: 1 })), undefined, 'no list')
  t.equal(planFromToolCall('todo', args({ action: 'add', content: 'New task' })), undefined, 'an incremental add')
  t.equal(planFromToolCall('todo_write', args({ merge: true, todos: [{ id: '1', status: 'completed' }] })), undefined, "Cursor's merge")
  t.equal(planFromToolCall('manage_todo_list', args({ operation: 'read' })), undefined, 'a read')
  t.notOk(isPlanTool('read_file'))
  t.ok(isPlanTool('TodoWrite') && isPlanTool('update_plan') && isPlanTool('write_todos'))
})

t.test('arguments encoded twice are read', async (t) => {
  t.same(planFromToolCall('update_plan', JSON.stringify(args({ plan: [{ step: 'x', status: 'completed' }] }))), [{ text: 'x', status: 'completed' }])
})

t.test('no tool call of the fixtures is mistaken for a plan', { skip: conversationsSkip() }, async (t) => {
  // The fixtures use no todo tool (checked: bash, read, edit, task, subagent, update_topic, exec_command …).
  let calls = 0
  for (const file of fixtureFiles()) {
    for (const m of fixtureMessages(file)) {
      for (const c of m.toolCalls) {
        calls++
        if (planFromToolCall(c.name, c.arguments) !== undefined) t.fail(`${file} #${m.index}: ${c.name}`)
      }
    }
  }
  t.ok(calls > 1000, `${calls} tool calls`)
})
