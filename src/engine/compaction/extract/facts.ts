/**
 * Facts an agent needs to continue, extracted mechanically from a message range:
 * the user's requests, files touched and how, commands and their failures, errors,
 * root causes, decisions, abandoned attempts and stated next steps.
 */
import { isSystemLike, toolCallsOf, toolResultsOf, type CanonicalMessage } from '../../messages/canonical.ts'
import { clip, digestToolCall, extractErrorDetail, extractErrorLine, extractExitCode, extractPaths, shellEffects, type ToolDigest } from './tools.ts'

export type FileAction = 'read' | 'created' | 'modified' | 'searched' | 'mentioned'

export interface FileFact {
  path: string
  actions: Set<FileAction>
  /** How it was changed, in order (edit descriptions, commands). */
  changes: string[]
  lastIndex: number
}

export interface CommandFact {
  index: number
  tool: string
  command: string
  exitCode?: number
  failed: boolean
  errorLine?: string
  errorDetail?: string
}

export interface ErrorFact {
  index: number
  source: string
  line: string
  detail?: string
  /** Set when the same command later succeeded. */
  resolvedAt?: number
}

export interface ConversationFacts {
  userRequests: { index: number; text: string }[]
  tools: { index: number; digest: ToolDigest }[]
  files: Map<string, FileFact>
  commands: CommandFact[]
  errors: ErrorFact[]
  decisions: string[]
  rootCauses: string[]
  abandoned: string[]
  nextSteps: string[]
  /** The last assistant text of the range: where the agent was. */
  lastAssistantText?: string
}

/** The prefix of masked tool results (strategies/mask.ts). */
const MASKED_RESULT_PREFIX = '[output masked by compactd]'

const DECISION_RE = /\b(I(?:'ll| will| am going to|'m going to) (?:use|go with|implement|add|change|modify|fix|update|create|keep|switch|replace|refactor|remove|move|write)|decided|decision|we should|(?:the )?(?:best|right|correct|cleanest|simplest|minimal) (?:approach|fix|way|solution|change)|instead of|rather than|chose|choose|going with|the fix (?:is|should|will)|the solution (?:is|should|will))\b/i
const ROOT_CAUSE_RE = /\b(root cause|the (?:issue|problem|bug|error) (?:is|was|lies|occurs|happens|comes)|caused by|this happens because|the reason (?:is|was)|is because|was because|due to)\b/i
const ABANDONED_RE = /\b(didn'?t work|did not work|doesn'?t work|does not work|revert(?:ed|ing)?|abandon(?:ed|ing)?|give up|won'?t work|not the right|wrong approach|undo(?:ne)?|roll(?:ed)? back|that approach|another approach|different approach|try (?:a different|another)|still fail(?:s|ing)?|no longer)\b/i
const NEXT_RE = /\b(next,? (?:I(?:'ll| will)|let'?s|we)|now (?:I(?:'ll| will)|let'?s|we(?:'ll| will))|I(?:'ll| will) (?:now|next|then)|then I(?:'ll| will)|let me (?:now )?(?:run|check|verify|test|fix|update|create|add|look|see|try)|TODO|remaining|still need|next step)\b/i

/** Sentences worth keeping when prose is condensed: decisions, causes, abandoned attempts, next steps. */
export const KEY_SENTENCE_RE = new RegExp([DECISION_RE, ROOT_CAUSE_RE, ABANDONED_RE, NEXT_RE].map((r) => r.source).join('|'), 'i')

const SENTENCE_SPLIT = /(?<=[.!?])\s+(?=[A-Z`"'(])|\n+/

function sentences(text: string): string[] {
  return text
    .replace(/```[\s\S]*?```/g, ' ')
    .split(SENTENCE_SPLIT)
    .map((s) => s.replace(/^[-*#>\s]+/, '').trim())
    .filter((s) => s.length >= 25 && s.length <= 600)
}

function textOf(m: CanonicalMessage): string {
  return m.parts
    .filter((p) => p.type === 'text')
    .map((p) => (p as { text: string }).text)
    .join('\n')
}

/** Shell commands written in assistant text, for agents without tool calling (SWE-agent style). */
function commandsInText(text: string): string[] {
  const out: string[] = []
  for (const m of text.matchAll(/```(?:bash|sh|shell|console|zsh)?\s*\n([\s\S]*?)```/g)) {
    const cmd = m[1]!.trim()
    if (cmd && cmd.length < 2000) out.push(cmd)
  }
  return out
}

/** `cat <<EOF > x.py` writes a whole file: say how long, not the command. */
function describeShellWrite(command: string, path: string): string {
  const heredoc = /<<-?\s*['"]?(\w+)['"]?/.exec(command)
  if (heredoc) {
    const body = command.slice(command.indexOf('\n') + 1)
    const end = body.split('\n').findIndex((l) => l.trim() === heredoc[1])
    return `written (${end >= 0 ? end : body.split('\n').length} lines)`
  }
  return `written by \`${clip(command, 80)}\``.replace(path, path)
}

/** Files in unified-diff output, with their +/- line counts. */
function diffFiles(output: string): [string, string][] {
  if (!output.includes('diff --git') && !output.includes('+++ b/')) return []
  const out: [string, string][] = []
  const chunks = output.split(/^diff --git /m).slice(1)
  for (const chunk of chunks) {
    const path = /^a\/(\S+) b\//.exec(chunk)?.[1] ?? /^\+\+\+ b\/(\S+)/m.exec(chunk)?.[1]
    if (!path) continue
    const added = (chunk.match(/^\+(?!\+\+)/gm) ?? []).length
    const removed = (chunk.match(/^-(?!--)/gm) ?? []).length
    out.push([path, `diff +${added}/-${removed} lines`])
  }
  return out
}

function addFile(files: Map<string, FileFact>, path: string, action: FileAction, index: number, change?: string): void {
  let f = files.get(path)
  if (!f) {
    f = { path, actions: new Set(), changes: [], lastIndex: index }
    files.set(path, f)
  }
  f.actions.add(action)
  f.lastIndex = index
  if (change && !f.changes.includes(change)) f.changes.push(change)
}

function pushUnique(list: string[], s: string, max: number): void {
  const c = clip(s, 260)
  if (list.length < max && !list.some((x) => x === c)) list.push(c)
}

/** A user message that is really a tool observation (text-only agents): it follows a command. */
function isObservation(prev: CanonicalMessage | undefined, m: CanonicalMessage): boolean {
  if (!prev || prev.role !== 'assistant' || toolCallsOf(prev).length > 0) return false
  return commandsInText(textOf(prev)).length > 0 && toolResultsOf(m).length === 0
}

export function extractFacts(messages: readonly CanonicalMessage[], opts: { preserveErrorDetails: boolean }): ConversationFacts {
  const facts: ConversationFacts = {
    userRequests: [],
    tools: [],
    files: new Map(),
    commands: [],
    errors: [],
    decisions: [],
    rootCauses: [],
    abandoned: [],
    nextSteps: [],
  }
  // Results by call id, so each call is read with its output.
  const results = new Map<string, { text: string; isError: boolean }>()
  // Results masked in an earlier round carry only a digest, already in that round's summary.
  for (const m of messages) for (const r of toolResultsOf(m)) results.set(r.callId, { text: r.text.startsWith(MASKED_RESULT_PREFIX) ? '' : r.text, isError: r.isError === true })

  const recordCommand = (index: number, tool: string, command: string, output: string, digest?: ToolDigest) => {
    const exitCode = digest?.exitCode ?? extractExitCode(output)
    const errorLine = digest ? digest.errorLine : extractErrorLine(output)
    const failed = digest ? digest.status === 'error' : (exitCode !== undefined && exitCode !== 0) || (exitCode === undefined && errorLine !== undefined)
    const c: CommandFact = { index, tool, command, failed }
    if (exitCode !== undefined) c.exitCode = exitCode
    if (failed && errorLine) {
      c.errorLine = errorLine
      if (opts.preserveErrorDetails) c.errorDetail = digest?.errorDetail ?? extractErrorDetail(output, errorLine)
    }
    facts.commands.push(c)
    if (failed && errorLine) facts.errors.push({ index, source: command, line: errorLine, ...(c.errorDetail ? { detail: c.errorDetail } : {}) })
    if (!failed) {
      // A later success of the same command resolves its earlier failures.
      for (const e of facts.errors) if (e.source === command && e.resolvedAt === undefined) e.resolvedAt = index
    }
  }

  // Agents without tool calling (SWE-agent's early format) write commands in text and get
  // outputs back as user messages; agents with tool calls never do.
  const textOnlyAgent = !messages.some((m) => toolCallsOf(m).length > 0)
  messages.forEach((m, i) => {
    if (isSystemLike(m)) return
    const text = textOf(m)
    if (m.role === 'user' && toolResultsOf(m).length === 0 && text.trim()) {
      if (textOnlyAgent && isObservation(messages[i - 1], m)) {
        for (const cmd of commandsInText(textOf(messages[i - 1]!))) recordCommand(m.index, 'shell', cmd, text)
      } else facts.userRequests.push({ index: m.index, text })
      return
    }
    if (m.role !== 'assistant') return
    for (const call of toolCallsOf(m)) {
      const result = results.get(call.id)
      const digest = digestToolCall(call.name, call.argsText, result?.text ?? '', result?.isError ?? false, opts.preserveErrorDetails)
      facts.tools.push({ index: m.index, digest })
      switch (digest.kind) {
        case 'read':
          if (digest.target) addFile(facts.files, digest.target, 'read', m.index)
          break
        case 'write':
          if (digest.target) addFile(facts.files, digest.target, 'created', m.index, digest.change ? `written (${digest.change})` : 'written')
          break
        case 'edit':
          if (digest.target) addFile(facts.files, digest.target, 'modified', m.index, digest.change)
          break
        case 'search':
          for (const f of digest.topFiles ?? []) addFile(facts.files, f, 'searched', m.index)
          break
        case 'shell': {
          const command = digest.target ?? call.argsText
          const fx = shellEffects(command)
          for (const p of fx.writes) addFile(facts.files, p, 'created', m.index, describeShellWrite(command, p))
          for (const p of fx.edits) addFile(facts.files, p, 'modified', m.index, `edited by \`${clip(command, 80)}\``)
          for (const p of fx.reads) addFile(facts.files, p, 'read', m.index)
          break
        }
      }
      // A diff in the output (git diff, patch tools) names the modified files for sure.
      for (const [path, change] of diffFiles(result?.text ?? '')) addFile(facts.files, path, 'modified', m.index, change)
      if (digest.kind === 'shell') recordCommand(m.index, digest.tool, digest.target ?? call.argsText, result?.text ?? '', digest)
      else if (digest.status === 'error' && digest.errorLine) {
        facts.errors.push({ index: m.index, source: `${digest.tool} ${digest.target ?? ''}`.trim(), line: digest.errorLine, ...(digest.errorDetail ? { detail: digest.errorDetail } : {}) })
      }
    }
    if (text.trim()) {
      facts.lastAssistantText = text
      for (const s of sentences(text)) {
        if (ROOT_CAUSE_RE.test(s)) pushUnique(facts.rootCauses, s, 12)
        else if (ABANDONED_RE.test(s)) pushUnique(facts.abandoned, s, 12)
        else if (DECISION_RE.test(s)) pushUnique(facts.decisions, s, 24)
        if (NEXT_RE.test(s)) {
          facts.nextSteps.push(clip(s, 240))
          if (facts.nextSteps.length > 6) facts.nextSteps.shift() // the latest intentions matter
        }
      }
      // Files the assistant names in prose (e.g. "the bug is in src/x.ts").
      for (const p of extractPaths(text, 10)) if (!facts.files.has(p)) addFile(facts.files, p, 'mentioned', m.index)
    }
  })
  return facts
}
