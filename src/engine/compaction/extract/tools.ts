/**
 * Rule-based reading of tool calls and their results (seed 002's extractors):
 * what kind of tool ran, on what target, whether it failed, and its key error line.
 * Used by masking (one-line digests) and by the rules summary (facts).
 */

export type ToolKind = 'read' | 'shell' | 'search' | 'write' | 'edit' | 'other'

export interface ToolDigest {
  tool: string
  kind: ToolKind
  /** File path, command, pattern or URL the call acted on. */
  target?: string
  /** Every file path the call touched (edits through shell commands included). */
  files: string[]
  /** For write/edit: what was done, briefly (e.g. "replaced `a` with `b`"). */
  change?: string
  status: 'ok' | 'error' | 'unknown'
  exitCode?: number
  /** The most telling error line of the output. */
  errorLine?: string
  /** The error block (traceback tail, failing assertion), when preserving details. */
  errorDetail?: string
  /** For searches: number of matching lines and the top files. */
  matches?: number
  topFiles?: string[]
  outputLines: number
}

const READ_TOOLS = /^(read|read_?file|view|cat|open|open_?file|get_?file|read_many_files|view_file)$/i
const SHELL_TOOLS = /^(bash|sh|shell|exec|execute|execute_?bash|execute_?command|run|run_?command|run_?shell_?command|terminal|local_shell|container\.exec|cmd|command)$/i
const SEARCH_TOOLS = /^(grep|rg|ripgrep|search|search_?files|search_?dir|search_?file|find|find_?file|find_?files|glob|codebase_search|list_?files|ls|list_?directory|web_search)$/i
const WRITE_TOOLS = /^(write|write_?file|create|create_?file|write_?to_?file|save_?file|new_?file)$/i
const EDIT_TOOLS = /^(edit|edit_?file|str_replace|str_replace_editor|str_replace_based_edit_tool|apply_?patch|patch|replace|replace_in_file|multi_?edit|search_replace|insert|update_file)$/i

/** Tool arguments as an object (OpenAI sends a JSON string; anything unparsable is the raw text). */
export function parseArgs(argsText: string): Record<string, unknown> {
  if (!argsText) return {}
  try {
    const v = JSON.parse(argsText)
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : { value: v }
  } catch {
    return { value: argsText }
  }
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined
}

const PATH_KEYS = ['path', 'file_path', 'filePath', 'file', 'filename', 'absolute_path', 'target_file', 'notebook_path', 'dir_path', 'directory']
const COMMAND_KEYS = ['command', 'cmd', 'script', 'commands']
const PATTERN_KEYS = ['pattern', 'query', 'regex', 'search', 'search_term', 'glob', 'q']

function firstKey(args: Record<string, unknown>, keys: string[]): string | undefined {
  for (const k of keys) {
    const v = args[k]
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v.join(' ')
    const s = str(v)
    if (s) return s
  }
  return undefined
}

/**
 * File paths in free text: things with a slash or a known extension. Conservative, so
 * that "e.g." or version numbers are not taken for files.
 */
const PATH_RE = /(?:^|[\s'"`(=:,[])((?:\.{0,2}\/)?(?:[\w@.+-]+\/)*[\w@+-][\w@.+-]*\.(?:[a-zA-Z][\w]{0,9}))(?=$|[\s'"`),:;\]]|\.(?:\s|$))/gm
const EXT_RE = /\.(py|pyi|js|jsx|mjs|cjs|ts|tsx|mts|json|jsonl|ya?ml|toml|ini|cfg|conf|md|mdx|rst|txt|html?|css|scss|sass|less|vue|svelte|go|rs|rb|java|kt|kts|scala|c|cc|cpp|cxx|h|hpp|hh|cs|swift|m|mm|php|sh|bash|zsh|fish|ps1|sql|prisma|graphql|gql|proto|lock|env|xml|csv|tsv|ipynb|dockerfile|gradle|tf|lua|r|jl|ex|exs|erl|hs|ml|clj|dart|zig|nim|vim|el|patch|diff|log|cfg|properties|plist|svg|png|jpg|gif|pdf|wasm|so|dll|exe|bat|cmd|mk|cmake|gitignore|dockerignore|editorconfig)$/i

export function extractPaths(text: string, limit = 50): string[] {
  const out = new Set<string>()
  PATH_RE.lastIndex = 0
  let m: RegExpExecArray | null
  while ((m = PATH_RE.exec(text)) && out.size < limit) {
    const p = m[1]!
    if (!EXT_RE.test(p)) continue
    if (/^\d+(\.\d+)+$/.test(p) || /^(e\.g|i\.e|etc)\./i.test(p)) continue
    out.add(p.replace(/^\.\//, ''))
  }
  return [...out]
}

const EXIT_CODE_RES = [
  /<returncode>\s*(-?\d+)\s*<\/returncode>/i,
  /\b(?:exit(?:ed)?(?: with)?(?: status| code)?|return ?code|returncode|exit_code|status code)[:=\s]+(-?\d+)\b/i,
  /\bProcess exited with code (-?\d+)/i,
]

export function extractExitCode(output: string): number | undefined {
  for (const re of EXIT_CODE_RES) {
    const m = re.exec(output)
    if (m) return Number(m[1])
  }
  return undefined
}

/** Lines that name an error, most specific first when scored. */
const ERROR_LINE_RE = /\b(error|exception|traceback|failed|failure|fatal|panic|denied|not found|no such file|cannot|can't|could not|unable to|undefined|segmentation fault|abort(ed)?|refused|timed? ?out|invalid|unexpected|assert(ion)?)\b/i
const TYPED_ERROR_RE = /^\s*(?:E\s+)?([\w.]*(?:Error|Exception|Exit|Interrupt|Failure|Warning)|error(?:\[\w+\])?|fatal|FAILED|FAIL|panic)\b[:!\s]/

/**
 * The most telling error line: a typed error (`ValueError: …`, `error[E0308]: …`,
 * `FAILED tests/x.py::test_y`), the last one in a traceback; else the first line with
 * an error word. Undefined when the output shows none.
 */
export function extractErrorLine(output: string): string | undefined {
  const lines = output.split('\n')
  let typed: string | undefined
  let generic: string | undefined
  for (const raw of lines) {
    const line = raw.trim()
    if (!line || line.length > 2000) continue
    if (TYPED_ERROR_RE.test(line)) typed = line // the last typed line is the one a traceback ends with
    else if (!generic && ERROR_LINE_RE.test(line) && !/^\s*(#|\/\/)/.test(line) && !/\b(0|no) (errors?|failures?|failed)\b/i.test(line)) generic = line
  }
  const line = typed ?? generic
  return line ? clip(line, 300) : undefined
}

/** A traceback's tail or the block around the error line: what preserveErrorDetails keeps. */
export function extractErrorDetail(output: string, errorLine: string | undefined, maxChars = 1200): string | undefined {
  if (!errorLine) return undefined
  const lines = output.split('\n')
  const tb = lines.findIndex((l) => /^Traceback \(most recent call last\)/.test(l.trim()))
  let block: string[]
  if (tb >= 0) {
    // Keep the last frames and the error: the useful end of a traceback.
    const end = lines.findIndex((l, i) => i > tb && l.trim() === errorLine)
    const stop = end >= 0 ? end + 1 : lines.length
    block = lines.slice(Math.max(tb, stop - 8), stop)
  } else {
    const at = lines.findIndex((l) => l.trim() === errorLine)
    block = at >= 0 ? lines.slice(at, at + 4) : [errorLine]
  }
  const text = block.map((l) => l.trimEnd()).filter(Boolean).join('\n')
  return text.length > maxChars ? `${text.slice(0, maxChars / 2)}\n…\n${text.slice(-maxChars / 2)}` : text
}

export function clip(s: string, max: number): string {
  const one = s.replace(/\s+/g, ' ').trim()
  return one.length > max ? `${one.slice(0, max - 1)}…` : one
}

function classify(tool: string, args: Record<string, unknown>): ToolKind {
  const name = tool.split(/[.:/]/).pop() ?? tool
  if (/^str_replace(_editor|_based_edit_tool)?$/i.test(name)) {
    const sub = str(args.command)
    if (sub === 'view') return 'read'
    if (sub === 'create') return 'write'
    return 'edit'
  }
  if (READ_TOOLS.test(name)) return 'read'
  if (SHELL_TOOLS.test(name)) return 'shell'
  if (SEARCH_TOOLS.test(name)) return 'search'
  if (WRITE_TOOLS.test(name)) return 'write'
  if (EDIT_TOOLS.test(name)) return 'edit'
  if (firstKey(args, COMMAND_KEYS)) return 'shell'
  return 'other'
}

/** What a shell command does to files: heredoc/redirect writes, sed -i edits, cat/head reads, grep searches. */
export function shellEffects(fullCommand: string): { writes: string[]; edits: string[]; reads: string[]; search?: string } {
  const command = stripHeredocBodies(fullCommand)
  const writes = new Set<string>()
  const edits = new Set<string>()
  const reads = new Set<string>()
  let search: string | undefined
  // Redirects (not `=>`, `->` or `2>&1`) to something with a file extension.
  for (const m of command.matchAll(/(?:^|[^>&2=-])>{1,2}\s*['"]?([\w@./+-]+\.\w+)['"]?/g)) if (EXT_RE.test(m[1]!)) writes.add(m[1]!)
  for (const m of command.matchAll(/\btee\s+(?:-a\s+)?['"]?([\w@./+-]+\.\w+)/g)) if (EXT_RE.test(m[1]!)) writes.add(m[1]!)
  // Scripts that rewrite a file: open('x.py', 'w'), Path('x.py').write_text(…), fs.writeFileSync('x.js').
  for (const m of fullCommand.matchAll(/\b(?:open\(\s*|Path\(\s*|writeFileSync\(\s*)['"]([\w@./+-]+\.\w+)['"](?:\s*,\s*['"][wa]b?\+?['"]|\)\.write_text)/g)) {
    if (!writes.has(m[1]!)) edits.add(m[1]!)
  }
  if (/\bsed\s+(-[a-zA-Z]*i|--in-place)/.test(command) || /\bperl\s+-[a-z]*i/.test(command) || /\bpatch\b|\bgit apply\b/.test(command)) {
    for (const p of extractPaths(command)) if (!writes.has(p)) edits.add(p)
  }
  for (const m of command.matchAll(/\b(?:cat|head|tail|less|more|nl|bat|sed -n ['"][^'"]*['"])\s+(?:-[\w]+\s+)*['"]?([\w@./+-]+\.\w+)/g)) {
    if (!writes.has(m[1]!) && !edits.has(m[1]!)) reads.add(m[1]!)
  }
  const g = /\b(?:grep|rg|ag|ack|git grep)\b(?:\s+-[\w-]+)*\s+(?:-e\s+)?(['"])(.*?)\1/.exec(command) ?? /\b(?:grep|rg)\b(?:\s+-[\w-]+)*\s+([^\s|'"]+)/.exec(command)
  if (g) search = g[2] ?? g[1]
  return { writes: [...writes], edits: [...edits], reads: [...reads], search }
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
    const m = /<<-?\s*['"]?(\w+)['"]?/.exec(line)
    if (m) terminator = m[1]
  }
  return out.join('\n')
}

function describeEdit(args: Record<string, unknown>): string | undefined {
  // Some agents state the intent of an edit (pi's `_i`, others' `description`): the best description.
  const intent = str(args._i) ?? str(args.intent) ?? str(args.description) ?? str(args.explanation)
  if (intent) return clip(intent, 120)
  const oldS = str(args.old_str) ?? str(args.old_string) ?? str(args.oldText) ?? str(args.search)
  const newS = str(args.new_str) ?? str(args.new_string) ?? str(args.newText) ?? str(args.replace)
  if (oldS !== undefined || newS !== undefined) return `replaced \`${clip(oldS ?? '', 60)}\` with \`${clip(newS ?? '', 60)}\``
  const inserted = str(args.insert_text) ?? str(args.text)
  if (inserted) return `inserted \`${clip(inserted, 80)}\`${args.insert_line !== undefined ? ` at line ${String(args.insert_line)}` : ''}`
  const patch = str(args.patch) ?? str(args.input) ?? str(args.diff)
  if (patch) {
    const added = (patch.match(/^\+(?!\+\+)/gm) ?? []).length
    const removed = (patch.match(/^-(?!--)/gm) ?? []).length
    return added + removed > 0 ? `patch +${added}/-${removed} lines` : undefined
  }
  if (Array.isArray(args.edits)) return `${args.edits.length} edits`
  return undefined
}

/**
 * Digest one tool call and its result. `output` is the result text (empty when the
 * result is not known); `isError` is the provider's own error flag when it has one.
 */
export function digestToolCall(tool: string, argsText: string, output: string, isError = false, preserveErrorDetails = true): ToolDigest {
  const args = parseArgs(argsText)
  const kind = classify(tool, args)
  const exitCode = extractExitCode(output)
  const errorLine = extractErrorLine(output)
  const failed = isError || (exitCode !== undefined && exitCode !== 0) || (exitCode === undefined && errorLine !== undefined && kind !== 'read' && kind !== 'search')
  const d: ToolDigest = {
    tool,
    kind,
    files: [],
    status: failed ? 'error' : exitCode === 0 || output.length > 0 ? 'ok' : 'unknown',
    outputLines: output ? output.split('\n').length : 0,
  }
  if (exitCode !== undefined) d.exitCode = exitCode
  // A failure's error line; on success, a typed error a script printed still matters.
  if (errorLine && (failed || (kind === 'shell' && TYPED_ERROR_RE.test(errorLine)))) {
    d.errorLine = errorLine
    if (preserveErrorDetails && failed) d.errorDetail = extractErrorDetail(output, errorLine)
  }
  const path = firstKey(args, PATH_KEYS)
  switch (kind) {
    case 'read':
    case 'write':
    case 'edit':
      d.target = path ?? extractPaths(argsText, 1)[0]
      if (d.target) d.files.push(d.target)
      if (kind === 'edit') d.change = describeEdit(args)
      if (kind === 'write') {
        const content = str(args.content) ?? str(args.file_text) ?? str(args.text)
        if (content) d.change = `${content.split('\n').length} lines`
      }
      break
    case 'shell': {
      const command = firstKey(args, COMMAND_KEYS) ?? str(args.value) ?? argsText
      d.target = command
      const fx = shellEffects(command)
      d.files.push(...fx.writes, ...fx.edits, ...fx.reads)
      if (fx.edits.length > 0) d.change = `edited by \`${clip(command, 80)}\``
      break
    }
    case 'search': {
      d.target = firstKey(args, PATTERN_KEYS) ?? path
      const lines = output.split('\n').filter((l) => l.trim().length > 0)
      const files = new Map<string, number>()
      for (const l of lines) {
        const m = /^([^\s:]+\.[\w]+):\d*/.exec(l) ?? /^([^\s:]+\/[^\s:]+)$/.exec(l)
        if (m) files.set(m[1]!, (files.get(m[1]!) ?? 0) + 1)
      }
      d.matches = lines.length
      d.topFiles = [...files.entries()].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([f]) => f)
      break
    }
    default:
      d.target = path ?? firstKey(args, PATTERN_KEYS) ?? firstKey(args, ['url', 'uri', 'name', 'id'])
  }
  return d
}

/** One line for a masked result: tool, target, status, first error line (seed 002's format). */
export function formatDigest(d: ToolDigest): string {
  const parts = [`${d.tool}${d.target ? ` ${clip(d.kind === 'shell' ? stripHeredocBodies(d.target) : d.target, 200)}` : ''}`]
  if (d.exitCode !== undefined) parts.push(`exit ${d.exitCode}`)
  else parts.push(d.status === 'error' ? 'failed' : d.status)
  if (d.errorLine) parts.push(`error: ${d.errorLine}`)
  if (d.kind === 'search' && d.matches !== undefined) parts.push(`${d.matches} matches${d.topFiles?.length ? ` in ${d.topFiles.join(', ')}` : ''}`)
  if (d.change) parts.push(clip(d.change, 140))
  parts.push(`${d.outputLines} lines`)
  return `[${d.status === 'error' ? '✗' : '✓'} ${parts.join(' | ')}]`
}
