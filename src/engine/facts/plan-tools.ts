/**
 * The agent's own plan, read from its todo tools. Each of these calls writes the whole
 * list, so the latest call is the state of the pending work:
 *
 *   Claude Code `TodoWrite`       todos: [{ content, status, activeForm }]
 *   Codex `update_plan`           plan: [{ step, status }], explanation
 *   Gemini CLI `write_todos`      todos: [{ description, status }] (status may be cancelled)
 *   opencode/Amp/Cursor/pi        `todowrite` / `todo_write` / `todo`: todos: [{ content, status }]
 *   Roo/Kilo `update_todo_list`   todos: "[x] done\n[-] doing\n[ ] next" (a markdown checklist)
 *   Copilot `manage_todo_list`    operation: "write", todoList: [{ title, description, status }]
 *
 * Incremental calls (pi's `todo` with action add/update/remove, Cursor's `merge: true`,
 * a read) do not carry the whole list and give undefined, like any other tool. Cancelled
 * items are dropped: they are neither pending nor done; so are "nothing left" items.
 */
import { saysNoTask } from './no-task.ts'

export interface PlanItem {
  text: string
  status: 'pending' | 'in_progress' | 'completed'
}

const PLAN_TOOLS = new Set(['todowrite', 'updateplan', 'writetodos', 'updatetodos', 'updatetodolist', 'managetodolist', 'todo', 'todos', 'settodos', 'todoupdate'])

function toolKey(name: string): string {
  const last = name.split(/__|[.:/]/).filter(Boolean).pop() ?? name
  return last.toLowerCase().replace(/[^a-z0-9]/g, '')
}

export function isPlanTool(toolName: string): boolean {
  return PLAN_TOOLS.has(toolKey(toolName))
}

type Status = PlanItem['status'] | 'cancelled'

function statusOf(v: unknown, item: Record<string, unknown>): Status {
  const s = typeof v === 'string' ? v.toLowerCase().trim().replace(/[\s-]+/g, '_') : ''
  if (/^(completed?|done|finished|checked|success(ful)?|resolved|closed)$/.test(s)) return 'completed'
  if (/^(in_?progress|active|doing|started|running|current|working|ongoing|wip)$/.test(s)) return 'in_progress'
  if (/^(cancell?ed|skipped|removed|abandoned|dropped|obsolete)$/.test(s)) return 'cancelled'
  if (!s && (item.done === true || item.completed === true || item.checked === true)) return 'completed'
  return 'pending'
}

const TEXT_KEYS = ['content', 'step', 'description', 'title', 'text', 'task', 'name', 'activeForm'] as const

function itemOf(raw: unknown): (PlanItem | { status: 'cancelled' }) | undefined {
  if (typeof raw === 'string') return raw.trim() ? { text: raw.trim(), status: 'pending' } : undefined
  if (!raw || typeof raw !== 'object') return undefined
  const o = raw as Record<string, unknown>
  let text = ''
  for (const k of TEXT_KEYS) {
    if (typeof o[k] === 'string' && (o[k] as string).trim()) {
      text = (o[k] as string).trim()
      break
    }
  }
  // Copilot's items carry a short title and a longer description: keep both.
  if (typeof o.title === 'string' && typeof o.description === 'string' && o.description.trim() && o.title.trim() !== o.description.trim()) {
    text = `${o.title.trim()}: ${o.description.trim()}`
  }
  if (!text) return undefined
  const status = statusOf(o.status ?? o.state, o)
  return status === 'cancelled' ? { status } : { text, status }
}

/** Roo's checklist string: "[x] done", "[-] in progress", "[ ] pending" (bullets allowed). */
function checklist(text: string): PlanItem[] {
  const out: PlanItem[] = []
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*(?:[-*+]\s+|\d+[.)]\s+)?(?:\[([ xX~-])\]\s*)?(.*\S)\s*$/.exec(line)
    if (!m) continue
    const mark = m[1] ?? ' '
    out.push({ text: m[2]!, status: mark === 'x' || mark === 'X' ? 'completed' : mark === '-' || mark === '~' ? 'in_progress' : 'pending' })
  }
  return out
}

function parseArgs(argsText: string): Record<string, unknown> | undefined {
  let v: unknown
  try {
    v = JSON.parse(argsText)
    if (typeof v === 'string') v = JSON.parse(v)
  } catch {
    return undefined
  }
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined
}

/**
 * The full plan a todo/plan tool call writes, in its order; `[]` when it clears the list.
 * Undefined for other tools, unreadable arguments and incremental updates.
 */
export function planFromToolCall(toolName: string, argsText: string): PlanItem[] | undefined {
  if (!isPlanTool(toolName)) return undefined
  const args = parseArgs(argsText)
  if (!args) return undefined
  if (args.merge === true) return undefined
  if (typeof args.operation === 'string' && args.operation !== 'write') return undefined
  const list = args.todos ?? args.plan ?? args.todoList ?? args.todo_list ?? args.items ?? args.steps
  if (typeof list === 'string') return checklist(list)
  if (!Array.isArray(list)) return undefined
  const out: PlanItem[] = []
  for (const raw of list) {
    const item = itemOf(raw)
    // A "nothing left" item is no step of the plan (no-task.ts).
    if (item && item.status !== 'cancelled' && !saysNoTask((item as PlanItem).text)) out.push(item as PlanItem)
  }
  return out
}
