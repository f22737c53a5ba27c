/**
 * A tool's internal bookkeeping arguments never reach the action log (issue 22). Agents'
 * tools carry arguments for their own machinery: pi's browser names its tab (`name:
 * "test"`) and reads back stored outputs (`read artifact://8`), a harness that moved a
 * call's arguments to cold storage leaves `{"__gjcColdSpillArguments": true, …}`, a
 * Playwright tool addresses an element by `ref: "e23"`, a computer-use tool by
 * coordinates. Logged as the call's target, they read as `browser test`, `read
 * artifact://8` or a line of raw JSON, and take the log's room from what was done.
 *
 * Serves sessions with browser, computer-use and subagent tools and harnesses that store
 * outputs by reference: the target of such a call is what it acted on for the user (a
 * URL, a path, a pattern), else what it was for (its stated intent or description, the
 * element it touched, the text it typed), with its action; never an id, a tab name, a
 * coordinate or a spilled argument. A read back of the harness's own stored output, or a
 * call whose arguments are gone and that changed nothing and failed in no way, logs
 * nothing.
 */
import { PATTERN_KEYS } from './tool-args.ts'

/** URI schemes of real resources; any other `scheme://…` is a harness's own reference (artifact://8, agent://3-Review). */
const RESOURCE_SCHEMES = /^(?:https?|file|ftp|sftp|s3|gs|az|git|ssh|wss?|data|mailto|postgres(?:ql)?|mysql|redis|mongodb(?:\+srv)?):/i

/** Whether a target is a reference into the harness's own storage, not a file or a page. */
export function isInternalRef(target: string): boolean {
  const t = target.trim()
  return /^[a-z][\w+.-]*:\/\//i.test(t) && !RESOURCE_SCHEMES.test(t)
}

/** Arguments a harness substituted for a call's own (cold storage): a `__`-prefixed flag. */
export function argsSpilled(args: Record<string, unknown>): boolean {
  return Object.keys(args).some((k) => k.startsWith('__'))
}

const RESOURCE_KEYS = ['url', 'uri', 'href', 'path', 'file_path', 'filePath', 'file', 'filename', 'directory', 'dir_path', 'target']
/** What the call was for, in words: pi's `_i` intent, a description, the element a browser tool touched. */
const PURPOSE_KEYS = ['_i', 'intent', 'description', 'reason', 'purpose', 'element', 'selector', 'text', 'key', 'prompt', 'instruction', 'goal']

const text = (v: unknown, max = 160): string | undefined => {
  if (typeof v !== 'string') return undefined
  const s = v.replace(/\s+/g, ' ').trim()
  if (!s || s.startsWith('{') || s.startsWith('[')) return undefined
  return s.length > max ? `${s.slice(0, max - 1)}…` : s
}

/** A URL a script navigates to (`page.goto('…')`): what a browser `run` acted on. */
function urlInCode(args: Record<string, unknown>): string | undefined {
  for (const k of ['code', 'script', 'function', 'js']) {
    const m = typeof args[k] === 'string' ? /\b(?:goto|navigate|open)\(\s*['"`]([^'"`\s]+)['"`]/.exec(args[k] as string) : null
    if (m && !isInternalRef(m[1]!)) return m[1]
  }
  return undefined
}

/**
 * The target of a call of no known kind (a browser, computer-use, subagent or MCP tool):
 * its action with what it acted on or was for; a name only when nothing else says it.
 */
export function otherToolTarget(args: Record<string, unknown>): string | undefined {
  if (argsSpilled(args)) return undefined
  const action = text(args.action, 40) ?? text(args.command, 40) ?? text(args.operation, 40)
  let detail: string | undefined
  for (const k of RESOURCE_KEYS) {
    const v = text(args[k], 300)
    if (v && !isInternalRef(v)) {
      detail = v
      break
    }
  }
  detail ??= urlInCode(args)
  if (!detail) for (const k of PATTERN_KEYS) if ((detail = text(args[k]))) break
  if (!detail) for (const k of PURPOSE_KEYS) if ((detail = text(args[k]))) break
  // An element and what was typed into it: both say what happened.
  const typed = detail === text(args.element) ? text(args.text, 80) : undefined
  if (typed) detail = `${detail}: ${typed}`
  const target = [action, detail].filter(Boolean).join(' ')
  return target || text(args.name, 80)
}

/** What saysNothing reads of a call's digest (tools.ts ToolDigest; named here so this module stays a leaf). */
export interface DigestShape {
  kind: string
  target?: string
  status: string
  changes: readonly { op: string }[]
  outputLines: number
}

/** Whether a call's log line would say nothing the next agent can use (see the module's comment). */
export function saysNothing(d: DigestShape): boolean {
  if (d.status === 'error' || d.changes.some((c) => c.op !== 'read')) return false
  if (d.target === undefined) return d.kind !== 'other' || d.outputLines === 0
  return d.kind === 'read' && d.target.split(', ').every(isInternalRef)
}
