/**
 * Rule-based reading of tool calls and their results: what kind of tool ran (tool-kind.ts), on what
 * target, how it ended (outcome.ts: from evidence only) and what it did to which files
 * (artifacts.ts). Used by masking (one-line digests), the action log and the summary.
 */
import { analyzeShell, ArtifactTracker, changesOfCall, isFragileChange, isUrl, type FileChange } from './artifacts.ts'
import { extractErrorDetail, extractErrorLine, extractExitCode, outcomeOf, type Outcome } from './outcome.ts'
import { commandOf, firstKey, firstString, FILE_KEYS, parseArgs, PATH_KEYS, PATTERN_KEYS, str } from './tool-args.ts'
import { classifyTool, type ToolKind } from './tool-kind.ts'
import { argsSpilled, otherToolTarget } from './tool-target.ts'
import { clip, clipKeepingPaths, isTestCommand } from './text.ts'

export { clip, parseArgs, extractExitCode, extractErrorLine, extractErrorDetail }

/** How much a call matters to the next agent, most first: consumers rank by it. */
export type DigestValue = 'failure' | 'change' | 'test' | 'command' | 'read' | 'search' | 'other'

/** Rank of a digest value: a failure or change above a test run above other commands above reads and searches. */
export const VALUE_RANK: Record<DigestValue, number> = { failure: 6, change: 6, test: 4, command: 3, other: 2, read: 1, search: 1 }

export interface ToolDigest {
  tool: string
  kind: ToolKind
  /** File path(s), command, pattern or URL the call acted on. */
  target?: string
  /** Every file path the call touched (edits through shell commands included). */
  files: string[]
  /** What the call did to files, briefly (e.g. "replaced `a` with `b`"; per file when several). */
  change?: string
  /** What the call did to which file, one entry per file and operation. */
  changes: FileChange[]
  status: 'ok' | 'error' | 'unknown'
  exitCode?: number
  /** The most telling error line of the output. */
  errorLine?: string
  /** Failing tests with their errors, or a traceback's tail (when preserving details). */
  errorDetail?: string
  outcome: Outcome
  value: DigestValue
  /** For searches: number of matching lines and the top files. */
  matches?: number
  topFiles?: string[]
  outputLines: number
}

/**
 * File paths in free text: things with a slash or a known extension. Conservative, so
 * that "e.g." or version numbers are not taken for files; URLs are never taken apart.
 */
const PATH_RE = /(?:^|[\s'"`(=:,[])((?:\.{0,2}\/)?(?:[\w@.+-]+\/)*[\w@+-][\w@.+-]*\.(?:[a-zA-Z][\w]{0,9}))(?=$|[\s'"`),:;\]]|\.(?:\s|$))/gm
const EXT_RE = /\.(py|pyi|js|jsx|mjs|cjs|ts|tsx|mts|json|jsonl|ya?ml|toml|ini|cfg|conf|md|mdx|rst|txt|html?|css|scss|sass|less|vue|svelte|astro|go|rs|rb|java|kt|kts|scala|c|cc|cpp|cxx|h|hpp|hh|cs|swift|m|mm|php|sh|bash|zsh|fish|ps1|sql|prisma|graphql|gql|proto|lock|env|xml|csv|tsv|ipynb|dockerfile|gradle|tf|lua|r|jl|ex|exs|erl|hs|ml|clj|dart|zig|nim|vim|el|patch|diff|log|properties|plist|svg|png|jpg|gif|pdf|wasm|so|dll|exe|bat|cmd|mk|cmake|mod|sum|gitignore|dockerignore|editorconfig)$/i
const URL_IN_TEXT = /\b[a-z][\w+.-]*:\/\/[^\s'"`<>)\]]+/gi

export function extractPaths(text: string, limit = 50): string[] {
  const out = new Set<string>()
  const clean = text.replace(URL_IN_TEXT, (u) => ' '.repeat(u.length))
  PATH_RE.lastIndex = 0
  let m: RegExpExecArray | null
  while ((m = PATH_RE.exec(clean)) && out.size < limit) {
    const p = m[1]!
    if (!EXT_RE.test(p)) continue
    if (/^\d+(\.\d+)+$/.test(p) || /^(e\.g|i\.e|etc)\./i.test(p)) continue
    out.add(p.replace(/^\.\//, ''))
  }
  return [...out]
}

/** What a shell command does to files: heredoc/redirect writes, sed -i and script edits, cat/head reads, grep searches. */
export function shellEffects(fullCommand: string): { writes: string[]; edits: string[]; reads: string[]; search?: string } {
  const a = analyzeShell(fullCommand)
  const writes = new Set<string>()
  const edits = new Set<string>()
  const reads = new Set<string>()
  for (const c of a.changes) {
    if (c.op === 'create') writes.add(c.path)
    else if (c.op === 'edit' || c.op === 'rename') edits.add(c.path)
    else if (c.op === 'read') reads.add(c.path)
  }
  for (const p of writes) edits.delete(p)
  for (const p of [...writes, ...edits]) reads.delete(p)
  return { writes: [...writes], edits: [...edits], reads: [...reads], ...(a.search !== undefined ? { search: a.search } : {}) }
}

/** A heredoc's body is file content, not commands: `cat <<'EOF' > x.py` … `EOF` keeps only its first line. */
export function stripHeredocBodies(command: string): string {
  const lines = command.split('\n')
  const out: string[] = []
  let terminator: string | undefined
  for (const line of lines) {
    if (terminator !== undefined) {
      if (line.trim() === terminator) terminator = undefined
      continue
    }
    out.push(line)
    // `<<EOF`, `<<-'EOF'`, `<< "EOF"`; not a here-string (`<<<`) nor a shift inside quotes.
    const unquoted = line.replace(/'[^']*'(?!\w)|"(?:[^"\\]|\\.)*"(?!\w)/g, (q) => (/^['"]\w+['"]$/.test(q) ? q : '""'))
    const m = /(?<!<)<<-?\s*(?!<)['"]?([A-Za-z_]\w*)['"]?/.exec(unquoted)
    if (m) terminator = m[1]
  }
  return out.join('\n')
}

function verbOf(c: FileChange): string {
  return c.op === 'create' ? 'created' : c.op === 'edit' ? 'edited' : c.op === 'delete' ? 'deleted' : c.op === 'rename' ? 'renamed' : 'read'
}

/** The `change` line: the note for a single-file write/edit; per file otherwise. */
function describeChanges(kind: ToolKind, changes: readonly FileChange[]): string | undefined {
  const real = changes.filter((c) => c.op !== 'read')
  if (real.length === 0) return undefined
  if (real.length === 1 && (kind === 'write' || kind === 'edit') && real[0]!.op !== 'rename' && real[0]!.op !== 'delete') return real[0]!.note
  const parts = real.slice(0, 6).map((c) => {
    if (c.op === 'rename') return `renamed ${c.from ?? '?'} → ${c.path}${c.note && !c.note.startsWith('renamed') ? ` (${c.note})` : ''}`
    return `${verbOf(c)} ${c.path}${c.note ? ` (${c.note})` : ''}`
  })
  if (real.length > 6) parts.push(`and ${real.length - 6} more files`)
  return parts.join('; ')
}

function valueOf(kind: ToolKind, status: Outcome['status'], changes: readonly FileChange[], command: string | undefined, search: boolean): DigestValue {
  if (status === 'error') return 'failure'
  if (changes.some((c) => c.op !== 'read')) return 'change'
  if (kind === 'shell') {
    if (command && isTestCommand(command)) return 'test'
    if (search) return 'search'
    if (changes.length > 0 && changes.every((c) => c.op === 'read')) return 'read'
    return 'command'
  }
  if (kind === 'read') return 'read'
  if (kind === 'search') return 'search'
  if (kind === 'write' || kind === 'edit') return 'change'
  return 'other'
}

/** Matching lines and the files with most matches, from a search's output. */
function searchStats(output: string): { matches: number; topFiles: string[] } {
  const lines = output.split('\n').filter((l) => l.trim().length > 0)
  const files = new Map<string, number>()
  let matches = 0
  for (const l of lines) {
    const m = /^(?:File: )?([^\s:]+\.[\w]+)(?::\d*|$)/.exec(l) ?? /^([^\s:]+\/[^\s:]+)$/.exec(l)
    if (m && !isUrl(m[1]!)) files.set(m[1]!, (files.get(m[1]!) ?? 0) + 1)
    if (!/^(?:Found \d+ match|---$|File: )/.test(l)) matches++
  }
  return { matches, topFiles: [...files.entries()].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([f]) => f) }
}

/**
 * Digest one tool call and its result. `output` is the result text (empty when the result
 * is not known); `isError` is the provider's own error flag when it has one. Pass a
 * `tracker` to read a whole session: it remembers the scripts the session wrote, so
 * running one later is seen to change the files it writes.
 */
export function digestToolCall(tool: string, argsText: string, output: string, isError = false, preserveErrorDetails = true, tracker?: ArtifactTracker): ToolDigest {
  const args = parseArgs(argsText)
  const kind = classifyTool(tool, args)
  // Arguments a harness moved to cold storage are no command (tool-target.ts).
  const command = kind === 'shell' ? (commandOf(args) ?? str(args.value) ?? (argsSpilled(args) ? undefined : argsText)) : undefined
  const outcome = outcomeOf({ kind, output, isError, ...(command ? { command } : {}) })
  const call = { tool, args, output, kind }
  // A failed edit or write changed nothing; a failed command's patches and scripts likely did not either.
  const failed = outcome.status === 'error'
  // One analysis gives the changes and, for a command, whether it searches.
  const analysed = tracker ? tracker.analyze({ ...call, failed }) : failed && kind !== 'shell' ? { changes: [] } : changesOfCall(call)
  const changes = tracker ? analysed.changes : analysed.changes.filter((c) => !(failed && isFragileChange(c)))
  const d: ToolDigest = {
    tool,
    kind,
    files: [...new Set(changes.map((c) => c.path))],
    changes,
    status: outcome.status,
    outcome,
    value: 'other',
    outputLines: output ? output.split('\n').length : 0,
  }
  if (outcome.exitCode !== undefined) d.exitCode = outcome.exitCode
  if (outcome.status === 'error' && outcome.errorLine) {
    d.errorLine = outcome.errorLine
    if (preserveErrorDetails && outcome.errorDetail) d.errorDetail = outcome.errorDetail
  }
  const change = describeChanges(kind, changes)
  if (change) d.change = change
  let searched = false
  switch (kind) {
    case 'read':
    case 'write':
    case 'edit': {
      const real = changes.filter((c) => c.op !== 'read')
      const paths = [...new Set((real.length ? real : changes).map((c) => c.path))]
      d.target = paths.length > 0 ? paths.join(', ') : (firstString(args, FILE_KEYS) ?? extractPaths(argsText, 1)[0])
      if (d.target && d.files.length === 0 && !d.target.includes(', ') && !isUrl(d.target)) d.files.push(d.target)
      break
    }
    case 'shell': {
      d.target = command
      // The analysis read the command from its arguments; a command that is the raw
      // arguments text (no command key) is analysed here.
      searched = (commandOf(args) ?? str(args.value)) !== undefined ? analysed.search !== undefined : analyzeShell(command ?? '').search !== undefined
      break
    }
    case 'search': {
      d.target = firstKey(args, PATTERN_KEYS) ?? firstKey(args, PATH_KEYS) ?? firstKey(args, ['url', 'uri'])
      const s = searchStats(output)
      d.matches = s.matches
      d.topFiles = s.topFiles
      break
    }
    default:
      // What it acted on or was for, never its bookkeeping (ids, tab names, coordinates): tool-target.ts.
      d.target = otherToolTarget(args)
  }
  d.value = valueOf(kind, outcome.status, changes, command, searched)
  return d
}

/** One line for a masked result: tool, target, outcome, first error line, what changed. */
export function formatDigest(d: ToolDigest): string {
  const parts = [`${d.tool}${d.target ? ` ${clipKeepingPaths(d.kind === 'shell' ? stripHeredocBodies(d.target) : d.target, 200)}` : ''}`]
  if (d.exitCode !== undefined) parts.push(`exit ${d.exitCode}`)
  else parts.push(d.status === 'error' ? 'failed' : d.status)
  if (d.status === 'error' && d.errorLine) parts.push(`error: ${clipKeepingPaths(d.errorLine, 300)}`)
  if (d.kind === 'search' && d.matches !== undefined) parts.push(`${d.matches} matches${d.topFiles?.length ? ` in ${d.topFiles.join(', ')}` : ''}`)
  if (d.change) parts.push(clipKeepingPaths(d.change, 200))
  parts.push(`${d.outputLines} lines`)
  return `[${d.status === 'error' ? '✗' : '✓'} ${parts.join(' | ')}]`
}

export { ArtifactTracker }
export type { FileChange, Outcome }
