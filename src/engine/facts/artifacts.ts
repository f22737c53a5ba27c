/**
 * The artifact trail: per tool call, what happened to which file. Parses apply_patch,
 * unified diffs, str_replace_editor, Claude Code / Gemini CLI / generic edit and write
 * tools, and shell commands (sed -i, heredocs, redirects, tee, mv, rm, cp, touch, and
 * scripts that write files). ArtifactTracker remembers the scripts a session wrote, so
 * running one attributes its writes to the run; foldFileFates gives each file its fate.
 */
import type { ToolKind } from './tools.ts'
import { argvOf, commandOf, firstString, FILE_KEYS, parseArgs, str } from './tool-args.ts'

export type FileOp = 'create' | 'edit' | 'delete' | 'rename' | 'read'

export interface FileChange {
  path: string
  op: FileOp
  /** Rename source. */
  from?: string
  added?: number
  removed?: number
  hunks?: number
  /** Functions, classes or keys touched. */
  symbols?: string[]
  /** One short human line: "added import 'x'", "replaced `a` with `b`", "62 lines". */
  note?: string
}

// ───────────────────────────── paths ─────────────────────────────

const URL_RE = /^[a-z][\w+.-]*:\/\//i

export function isUrl(s: string): boolean {
  return URL_RE.test(s)
}

/** A path as written, quotes and a leading `./` removed. URLs are returned untouched. */
export function normalizePath(p: string): string {
  let s = p.trim().replace(/^(['"`])(.*)\1$/, '$2')
  if (isUrl(s)) return s
  while (s.startsWith('./')) s = s.slice(2)
  return s
}

/** Looks like a file path (not a flag, variable, glob, URL or number). */
function isPathLike(s: string): boolean {
  if (!s || s.length > 500 || isUrl(s)) return false
  if (/^[-$&|<>(){}]|[*?\n]|^\d+$|^\/dev\//.test(s)) return false
  return /[\w@]/.test(s)
}

/** `p` resolved against `cwd` when it is relative and the directory is known; `.` and `..` folded. */
export function resolvePath(p: string, cwd: string | undefined): string {
  const n = normalizePath(p)
  if (isUrl(n) || !cwd || n.startsWith('/') || n.startsWith('~')) return n
  const segs = `${cwd.replace(/\/+$/, '')}/${n}`.split('/')
  const out: string[] = []
  for (const seg of segs) {
    if (seg === '.' || (seg === '' && out.length > 0)) continue
    if (seg === '..' && out.length > 1 && out[out.length - 1] !== '..') out.pop()
    else out.push(seg)
  }
  return out.join('/') || '/'
}

function basename(p: string): string {
  return p.replace(/\/+$/, '').split('/').pop() ?? p
}

const SCRATCH_NAME_RE = /^(?:reproduce|repro|debug_|debug-|scratch|test_fix|tmp_|temp_)[\w.-]*$/i
const PROJECT_DIR_RE = /(?:^|\/)(?:src|lib|libs|tests?|spec|pkg|internal|cmd|app|apps|packages|docs?)\//

/**
 * One-off files that rank below project files: anything under /tmp or /var/tmp, and
 * reproduce/repro/debug_/scratch/test_fix scripts outside the project's source and test trees.
 */
export function isScratchPath(path: string): boolean {
  if (isUrl(path)) return false
  if (/^\/(?:private\/)?(?:var\/)?tmp\//.test(path)) return true
  return SCRATCH_NAME_RE.test(basename(path)) && !PROJECT_DIR_RE.test(path)
}

// ───────────────────────────── describing changed lines ─────────────────────────────

function clipCode(s: string, max = 60): string {
  const one = s.replace(/\s+/g, ' ').trim()
  return one.length > max ? `${one.slice(0, max - 1)}…` : one
}

const SYMBOL_RES: RegExp[] = [
  /^\s*(?:async\s+)?def\s+(\w+)/,
  /^\s*(?:export\s+)?(?:default\s+)?(?:abstract\s+)?class\s+(\w+)/,
  /^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*(\w+)/,
  /^\s*(?:export\s+)?(?:const|let|var)\s+(\w+)\s*(?::[^=]+)?=/,
  /^\s*(?:export\s+)?(?:declare\s+)?(?:interface|type|enum)\s+(\w+)/,
  /^\s*func\s+(?:\([^)]*\)\s*)?(\w+)/,
  /^\s*(?:pub(?:\([\w:]+\))?\s+)?(?:async\s+)?(?:unsafe\s+)?fn\s+(\w+)/,
  /^\s*(?:pub\s+)?(?:struct|trait|enum|mod)\s+(\w+)/,
  /^\s*impl(?:<[^>]*>)?\s+(?:[\w:]+\s+for\s+)?(\w+)/,
  /^\s*(?:public|private|protected|internal)\s+(?:static\s+)?(?:final\s+)?(?:class|interface|enum|record)\s+(\w+)/,
  /^\s*(?:public|private|protected)\s+(?:static\s+)?(?:final\s+)?(?:async\s+)?[\w<>[\],.?]+\s+(\w+)\s*\(/,
]
const KEYWORDS = new Set(['if', 'for', 'while', 'switch', 'return', 'new', 'else', 'catch', 'function'])

function symbolOf(line: string): string | undefined {
  for (const re of SYMBOL_RES) {
    const m = re.exec(line)
    if (m && !KEYWORDS.has(m[1]!)) return m[1]
  }
  return undefined
}

function isDataFile(path: string): boolean {
  return /\.(?:json|ya?ml|toml|ini|cfg|env|properties)$|(?:^|\/)go\.mod$/i.test(path)
}

/** Keys of a data file's changed lines (`"name":`, `name:`, `[section]`, `require x`). */
function keyOf(line: string): string | undefined {
  return (
    /^\s*"([\w.@/-]+)"\s*:/.exec(line)?.[1] ??
    /^\s*\[([\w.-]+)\]\s*$/.exec(line)?.[1] ??
    /^\s{0,4}([A-Za-z_][\w.-]*)\s*[:=](?!\/)/.exec(line)?.[1] ??
    /^\s*(go|require|replace|module|toolchain)\s/.exec(line)?.[1]
  )
}

/** Symbols touched: hunk headers' context and def/class/function/const names in changed lines. */
export function symbolsIn(path: string, changed: readonly string[], headers: readonly string[] = []): string[] {
  const out: string[] = []
  const push = (s: string | undefined) => {
    if (s && !out.includes(s) && out.length < 8) out.push(s)
  }
  const data = isDataFile(path)
  for (const h of headers) push(symbolOf(h) ?? (data ? keyOf(h) : undefined) ?? (/^[A-Za-z_][\w.]*$/.test(h.trim()) ? h.trim() : undefined))
  for (const l of changed) push(symbolOf(l) ?? (data ? keyOf(l) : undefined))
  return out
}

const IMPORT_RES: RegExp[] = [
  /^\s*import\s+(?:type\s+)?(?:[\w*{}\s,]+?\s+from\s+)?['"]([^'"]+)['"]/, // JS/TS
  /^\s*(?:const|let|var)\s+[\w{}\s,]+=\s*require\(\s*['"]([^'"]+)['"]\s*\)/,
  /^\s*@import\s+(?:url\()?['"]([^'"]+)['"]/, // CSS
  /^\s*from\s+([\w.]+)\s+import\s/, // Python
  /^\s*import\s+([\w.]+)(?:\s+as\s+\w+)?\s*$/, // Python, Java-less
  /^\s*import\s+(?:static\s+)?([\w.]+\*?);\s*$/, // Java/Kotlin
  /^\s*use\s+([\w:]+(?:::\{[^}]*\})?);/, // Rust
  /^\s*import\s+(?:\w+\s+)?"([^"]+)"\s*$/, // Go single import
  /^\s*#include\s+[<"]([^>"]+)[>"]/, // C
]

function importOf(line: string): string | undefined {
  for (const re of IMPORT_RES) {
    const m = re.exec(line)
    if (m) return m[1]
  }
  return undefined
}

function listNote(verb: string, items: string[]): string {
  const shown = items.slice(0, 3).map((x) => `'${x}'`).join(', ')
  return `${verb} ${shown}${items.length > 3 ? ` and ${items.length - 3} more` : ''}`
}

/** One short line for lines added and removed: "added import 'x'", "replaced `a` with `b`", "+3/-1 lines". */
export function describeLines(added: readonly string[], removed: readonly string[]): string | undefined {
  const a = added.filter((l) => l.trim())
  const r = removed.filter((l) => l.trim())
  if (a.length === 0 && r.length === 0) return added.length + removed.length > 0 ? `+${added.length}/-${removed.length} blank lines` : undefined
  const aImports = a.map(importOf)
  const rImports = r.map(importOf)
  if (r.length === 0) {
    if (aImports.every(Boolean)) return listNote(a.length > 1 ? 'added imports' : 'added import', aImports as string[])
    return a.length === 1 ? `added \`${clipCode(a[0]!)}\`` : `added ${a.length} lines`
  }
  if (a.length === 0) {
    if (rImports.every(Boolean)) return listNote(r.length > 1 ? 'removed imports' : 'removed import', rImports as string[])
    return r.length === 1 ? `removed \`${clipCode(r[0]!)}\`` : `removed ${r.length} lines`
  }
  if (a.length === 1 && r.length === 1) return `replaced \`${clipCode(r[0]!)}\` with \`${clipCode(a[0]!)}\``
  if (aImports.every(Boolean) && rImports.every(Boolean)) return `imports: ${listNote('removed', rImports as string[])}; ${listNote('added', aImports as string[])}`
  return `+${a.length}/-${r.length} lines`
}

/** Lines of `next` not in `prev` and the other way round (a multiset difference, good enough for a note). */
function lineDiff(prev: string, next: string): { added: string[]; removed: string[] } {
  const count = new Map<string, number>()
  const p = prev.split('\n')
  const n = next.split('\n')
  for (const l of p) count.set(l.trim(), (count.get(l.trim()) ?? 0) + 1)
  const added: string[] = []
  for (const l of n) {
    const c = count.get(l.trim()) ?? 0
    if (c > 0) count.set(l.trim(), c - 1)
    else added.push(l)
  }
  const left = new Map<string, number>()
  for (const l of n) left.set(l.trim(), (left.get(l.trim()) ?? 0) + 1)
  const removed: string[] = []
  for (const l of p) {
    const c = left.get(l.trim()) ?? 0
    if (c > 0) left.set(l.trim(), c - 1)
    else removed.push(l)
  }
  return { added, removed }
}

function lineCount(text: string): number {
  if (!text) return 0
  const n = text.split('\n').length
  return text.endsWith('\n') ? n - 1 : n
}

/** An edit of `path` replacing `oldText` with `newText`. */
export function replacementChange(path: string, oldText: string, newText: string, extra: Partial<FileChange> = {}): FileChange {
  const { added, removed } = lineDiff(oldText, newText)
  const symbols = symbolsIn(path, [...removed, ...added, ...oldText.split('\n').slice(0, 1)])
  let note = describeLines(added, removed)
  if (!note || (added.length + removed.length === 0 && oldText !== newText)) {
    // The same lines rearranged, or a change inside one line that lineDiff cannot see.
    note = `replaced \`${clipCode(oldText)}\` with \`${clipCode(newText)}\``
  }
  return { path, op: 'edit', added: added.length, removed: removed.length, hunks: 1, ...(symbols.length ? { symbols } : {}), note, ...extra }
}

/** Content replaced by a placeholder (an earlier compaction evicted it): its size is unknown. */
function isPlaceholder(content: string): boolean {
  return /^\s*\[[^\n\]]*(?:evicted|masked|omitted|compacted|truncated)[^\n\]]*\]\s*$/i.test(content)
}

function createChange(path: string, content: string | undefined, op: 'create' | 'edit' = 'create'): FileChange {
  if (content !== undefined && isPlaceholder(content)) content = undefined
  const n = content === undefined ? undefined : lineCount(content)
  const symbols = content ? symbolsIn(path, content.split('\n').slice(0, 400)) : []
  return {
    path,
    op,
    ...(n !== undefined ? { added: n } : {}),
    ...(symbols.length ? { symbols } : {}),
    ...(n !== undefined ? { note: op === 'create' ? `${n} lines` : `rewritten (${n} lines)` } : {}),
  }
}

// ───────────────────────────── patches ─────────────────────────────

interface HunkLines {
  added: string[]
  removed: string[]
  headers: string[]
  hunks: number
  /** Lines added and removed per hunk, for a note per hunk. */
  parts?: { added: string[]; removed: string[] }[]
}

/** The note for several hunks: each hunk's note when there are few, else the totals. */
function hunksNote(h: HunkLines): string | undefined {
  const parts = (h.parts ?? []).filter((p) => p.added.length + p.removed.length > 0)
  if (parts.length > 1 && parts.length <= 3) {
    const notes = parts.map((p) => describeLines(p.added, p.removed))
    if (notes.every((n) => n && !/^[+-]\d|^\+/.test(n))) {
      const joined = [...new Set(notes)].join('; ')
      if (joined.length <= 200) return joined
    }
  }
  return describeLines(h.added, h.removed)
}

function addLine(h: HunkLines, sign: '+' | '-', line: string): void {
  if (sign === '+') h.added.push(line)
  else h.removed.push(line)
  h.parts ??= []
  if (h.parts.length === 0) h.parts.push({ added: [], removed: [] })
  const p = h.parts[h.parts.length - 1]!
  if (sign === '+') p.added.push(line)
  else p.removed.push(line)
}

function newHunk(h: HunkLines): void {
  h.hunks++
  h.parts ??= []
  h.parts.push({ added: [], removed: [] })
}

function hunkChange(path: string, op: 'edit' | 'create' | 'delete', h: HunkLines, extra: Partial<FileChange> = {}): FileChange {
  const symbols = symbolsIn(path, [...h.removed, ...h.added], h.headers)
  const note = op === 'create' ? `${h.added.length} lines` : op === 'delete' ? undefined : hunksNote(h)
  return {
    path,
    op,
    added: h.added.length,
    removed: h.removed.length,
    ...(h.hunks ? { hunks: h.hunks } : {}),
    ...(symbols.length ? { symbols } : {}),
    ...(note ? { note } : {}),
    ...extra,
  }
}

/** Codex apply_patch: `*** Add File:`, `*** Update File:` (with `*** Move to:`), `*** Delete File:`. */
export function parseApplyPatch(text: string): FileChange[] {
  const out: FileChange[] = []
  const lines = text.replace(/\r\n?/g, '\n').split('\n')
  let cur: { path: string; op: 'create' | 'edit' | 'delete'; moveTo?: string; h: HunkLines; content: string[] } | undefined
  const flush = () => {
    if (!cur) return
    if (cur.moveTo) out.push(hunkChange(cur.moveTo, 'edit', cur.h, { op: 'rename', from: cur.path, ...(cur.h.added.length + cur.h.removed.length === 0 ? { note: `renamed from ${cur.path}` } : {}) }))
    else out.push(hunkChange(cur.path, cur.op, cur.h))
    cur = undefined
  }
  for (const line of lines) {
    const head = /^\*\*\* (Add|Update|Delete) File: (.+?)\s*$/.exec(line)
    if (head) {
      flush()
      const op = head[1] === 'Add' ? 'create' : head[1] === 'Delete' ? 'delete' : 'edit'
      cur = { path: normalizePath(head[2]!), op, h: { added: [], removed: [], headers: [], hunks: 0 }, content: [] }
      continue
    }
    if (!cur) continue
    const move = /^\*\*\* Move to: (.+?)\s*$/.exec(line)
    if (move) {
      cur.moveTo = normalizePath(move[1]!)
      continue
    }
    if (/^\*\*\* (End Patch|End of File)/.test(line)) {
      if (line.startsWith('*** End Patch')) flush()
      continue
    }
    if (line.startsWith('@@')) {
      newHunk(cur.h)
      const ctx = line.replace(/^@@+\s*(?:-\d+(?:,\d+)? \+\d+(?:,\d+)? @@)?\s*/, '').trim()
      if (ctx) cur.h.headers.push(ctx)
      continue
    }
    if (line.startsWith('+')) addLine(cur.h, '+', line.slice(1))
    else if (line.startsWith('-')) addLine(cur.h, '-', line.slice(1))
  }
  flush()
  for (const c of out) if (c.op === 'edit' && !c.hunks) c.hunks = 1
  return out
}

/** The content an apply_patch `*** Add File:` creates, by path (scripts the session wrote). */
function applyPatchAdds(text: string): Map<string, string> {
  const out = new Map<string, string>()
  let path: string | undefined
  let body: string[] = []
  const flush = () => {
    if (path) out.set(path, body.join('\n'))
    path = undefined
    body = []
  }
  for (const line of text.split('\n')) {
    const head = /^\*\*\* (Add|Update|Delete) File: (.+?)\s*$/.exec(line)
    if (head) {
      flush()
      if (head[1] === 'Add') path = normalizePath(head[2]!)
    } else if (/^\*\*\* End/.test(line)) flush()
    else if (path && line.startsWith('+')) body.push(line.slice(1))
  }
  flush()
  return out
}

function diffPath(s: string): string | undefined {
  const p = s.replace(/\t.*$/, '').trim().replace(/^"(.*)"$/, '$1')
  if (p === '/dev/null') return undefined
  return normalizePath(p.replace(/^[ab]\//, ''))
}

/** Unified diffs: `diff --git a/x b/x`, `--- a/x` / `+++ b/x` (with /dev/null for adds and deletes), renames. */
export function parseUnifiedDiff(text: string): FileChange[] {
  const out: FileChange[] = []
  const lines = text.replace(/\r\n?/g, '\n').split('\n')
  type Cur = { from?: string; to?: string; created: boolean; deleted: boolean; renameFrom?: string; renameTo?: string; h: HunkLines; inHunk: boolean; left: number; right: number }
  let cur: Cur | undefined
  const fresh = (): Cur => ({ created: false, deleted: false, h: { added: [], removed: [], headers: [], hunks: 0 }, inHunk: false, left: 0, right: 0 })
  const flush = () => {
    if (!cur) return
    const c = cur
    cur = undefined
    const to = c.renameTo ?? c.to
    const from = c.renameFrom ?? c.from
    if (c.deleted || (!to && from)) {
      if (from) out.push(hunkChange(from, 'delete', c.h))
      return
    }
    if (!to) return
    if (c.created || !from) out.push(hunkChange(to, 'create', c.h))
    else if (from !== to) out.push(hunkChange(to, 'edit', c.h, { op: 'rename', from, ...(c.h.added.length + c.h.removed.length === 0 ? { note: `renamed from ${from}` } : {}) }))
    else out.push(hunkChange(to, 'edit', c.h))
  }
  for (const line of lines) {
    const git = /^diff --git (?:"?a\/(.+?)"? "?b\/(.+?)"?)\s*$/.exec(line)
    if (git) {
      flush()
      cur = fresh()
      cur.from = normalizePath(git[1]!)
      cur.to = normalizePath(git[2]!)
      continue
    }
    if (cur?.inHunk && (cur.left > 0 || cur.right > 0)) {
      // Inside a hunk, `---`/`+++` lines are content, counted by the hunk header.
      if (line.startsWith('+')) {
        addLine(cur.h, '+', line.slice(1))
        cur.right--
        continue
      }
      if (line.startsWith('-')) {
        addLine(cur.h, '-', line.slice(1))
        cur.left--
        continue
      }
      if (line.startsWith(' ') || line === '') {
        cur.left--
        cur.right--
        continue
      }
      if (line.startsWith('\\')) continue
    }
    const minus = /^--- (.+)$/.exec(line)
    if (minus) {
      if (!cur || cur.inHunk) {
        flush()
        cur = fresh()
      }
      const p = diffPath(minus[1]!)
      if (p) cur.from = p
      else cur.created = true
      continue
    }
    const plus = /^\+\+\+ (.+)$/.exec(line)
    if (plus && cur) {
      const p = diffPath(plus[1]!)
      if (p) cur.to = p
      else cur.deleted = true
      continue
    }
    if (!cur) continue
    if (/^new file mode/.test(line)) cur.created = true
    else if (/^deleted file mode/.test(line)) cur.deleted = true
    else if (/^rename from /.test(line)) cur.renameFrom = normalizePath(line.slice(12))
    else if (/^rename to /.test(line)) cur.renameTo = normalizePath(line.slice(10))
    else {
      const hunk = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@ ?(.*)$/.exec(line)
      if (hunk) {
        cur.inHunk = true
        newHunk(cur.h)
        cur.left = hunk[1] === undefined ? 1 : Number(hunk[1])
        cur.right = hunk[2] === undefined ? 1 : Number(hunk[2])
        if (hunk[3]?.trim()) cur.h.headers.push(hunk[3].trim())
      }
    }
  }
  flush()
  return out
}

function looksLikeUnifiedDiff(text: string): boolean {
  return /^diff --git /m.test(text) || (/^--- \S/m.test(text) && /^\+\+\+ \S/m.test(text) && /^@@ /m.test(text))
}

// ───────────────────────────── shell ─────────────────────────────

interface Statement {
  words: string[]
  redirects: { op: string; fd?: string; target: string }[]
  heredoc?: string
  /** The statement's text, heredoc body excluded. */
  text: string
}

/**
 * Statements of a shell command: words with quotes removed, redirections apart, heredoc
 * bodies attached to the statement that opened them. Not a full shell parser; enough to
 * see what a command does to files.
 */
export function parseShell(command: string): Statement[] {
  const out: Statement[] = []
  let st: Statement = { words: [], redirects: [], text: '' }
  let word: string | null = null
  let pendingRedirect: { op: string; fd?: string } | undefined
  let pendingHeredoc: { op: string } | undefined
  const heredocs: { delim: string; strip: boolean; st: Statement }[] = []
  let start = 0
  const s = command
  let i = 0
  const endWord = () => {
    if (word === null) return
    if (pendingHeredoc) {
      heredocs.push({ delim: word, strip: pendingHeredoc.op === '<<-', st })
      st.redirects.push({ op: pendingHeredoc.op, target: word })
      pendingHeredoc = undefined
    } else if (pendingRedirect) {
      st.redirects.push({ ...pendingRedirect, target: word })
      pendingRedirect = undefined
    } else st.words.push(word)
    word = null
  }
  const endStatement = (at: number) => {
    endWord()
    st.text = s.slice(start, at).trim()
    if (st.words.length > 0 || st.redirects.length > 0) out.push(st)
    st = { words: [], redirects: [], text: '' }
    start = at + 1
  }
  while (i < s.length) {
    const c = s[i]!
    if (c === '\\') {
      if (s[i + 1] === '\n') {
        i += 2
        continue
      }
      word = (word ?? '') + (s[i + 1] ?? '')
      i += 2
      continue
    }
    if (c === "'") {
      const end = s.indexOf("'", i + 1)
      const stop = end < 0 ? s.length : end
      word = (word ?? '') + s.slice(i + 1, stop)
      i = stop + 1
      continue
    }
    if (c === '"') {
      let j = i + 1
      let buf = ''
      while (j < s.length && s[j] !== '"') {
        if (s[j] === '\\' && j + 1 < s.length && '"\\$`\n'.includes(s[j + 1]!)) {
          buf += s[j + 1] === '\n' ? '' : s[j + 1]
          j += 2
        } else buf += s[j++]
      }
      word = (word ?? '') + buf
      i = j + 1
      continue
    }
    if (c === '$' && (s[i + 1] === '(' || s[i + 1] === '{')) {
      // Command substitution or parameter expansion: one opaque piece of the word.
      const open = s[i + 1]!
      const close = open === '(' ? ')' : '}'
      let depth = 0
      let j = i + 1
      for (; j < s.length; j++) {
        if (s[j] === open) depth++
        else if (s[j] === close && --depth === 0) break
        else if (s[j] === "'" && open === '(') j = Math.max(j, s.indexOf("'", j + 1))
      }
      word = (word ?? '') + s.slice(i, j + 1)
      i = j + 1
      continue
    }
    if (c === '`') {
      const end = s.indexOf('`', i + 1)
      const stop = end < 0 ? s.length : end
      word = (word ?? '') + s.slice(i, stop + 1)
      i = stop + 1
      continue
    }
    if (c === '#' && word === null) {
      const end = s.indexOf('\n', i)
      i = end < 0 ? s.length : end
      continue
    }
    if (c === '\n') {
      endStatement(i)
      i++
      // Heredoc bodies start on the next line.
      while (heredocs.length > 0) {
        const h = heredocs.shift()!
        const body: string[] = []
        while (i < s.length) {
          const nl = s.indexOf('\n', i)
          const line = s.slice(i, nl < 0 ? s.length : nl)
          i = nl < 0 ? s.length : nl + 1
          if ((h.strip ? line.replace(/^\t+/, '') : line).trim() === h.delim) break
          body.push(line)
        }
        h.st.heredoc = body.join('\n')
        start = i
      }
      continue
    }
    if (c === ';' || c === '(' || c === ')' || (c === '&' && s[i + 1] !== '>') || (c === '|' && s[i - 1] !== '>')) {
      endStatement(i)
      i += (c === '&' && s[i + 1] === '&') || (c === '|' && s[i + 1] === '|') || (c === ';' && s[i + 1] === ';') ? 2 : 1
      start = i
      continue
    }
    if (c === '>' || c === '<' || (c === '&' && s[i + 1] === '>')) {
      let fd: string | undefined
      if (word !== null && /^\d$/.test(word)) {
        fd = word
        word = null
      }
      endWord()
      let op = ''
      let j = i
      if (s[j] === '&') op += s[j++]
      while (j < i + 3 && (s[j] === '>' || s[j] === '<' || s[j] === '|' || s[j] === '&' || s[j] === '-') && !(op.length > 0 && s[j] === '-' && !op.startsWith('<<'))) {
        op += s[j++]
        if (op === '<<<' || op === '>>' || op === '<<-') break
      }
      i = j
      if (op.startsWith('<<') && op !== '<<<') pendingHeredoc = { op }
      else pendingRedirect = { op, ...(fd ? { fd } : {}) }
      continue
    }
    if (c === ' ' || c === '\t') {
      endWord()
      i++
      continue
    }
    word = (word ?? '') + c
    i++
  }
  endStatement(s.length)
  return out
}

/** Strip env assignments and wrappers (sudo, env, time, timeout N, nohup, exec, command). */
function commandWords(words: string[]): string[] {
  let w = words.filter((x) => x !== '{' && x !== '}' && x !== '!' && x !== 'then' && x !== 'do' && x !== 'else')
  for (;;) {
    if (w.length === 0) return w
    const h = w[0]!
    if (/^[A-Za-z_]\w*=/.test(h)) w = w.slice(1)
    else if (/^(?:sudo|nohup|exec|command|time|builtin|if|while|until|xargs)$/.test(h)) w = w.slice(1)
    else if (h === 'env') w = w.slice(1).filter((x, k, a) => !(/^-/.test(x) && k < a.length - 1))
    else if (h === 'timeout' || h === 'gtimeout') w = w.slice(1).filter((x, k) => !(k === 0 && /^-/.test(x))).slice(1)
    else return w
  }
}

function operands(args: string[], withValue: RegExp = /^$/): string[] {
  const out: string[] = []
  let endOfOptions = false
  for (let k = 0; k < args.length; k++) {
    const a = args[k]!
    if (endOfOptions || !a.startsWith('-') || a === '-') out.push(a)
    else if (a === '--') endOfOptions = true
    else if (withValue.test(a)) k++
  }
  return out
}

/** A `sed` s-command as a note: `s/old/new/g` → replaced `old` with `new`. */
function sedNote(script: string): string | undefined {
  const m = /^\s*(?:\d+|\/[^/]*\/)?\s*s(.)(.*?)(?<!\\)\1(.*?)(?<!\\)\1[gIi\d]*\s*;?\s*$/.exec(script)
  if (m) return `replaced \`${clipCode(m[2]!, 50)}\` with \`${clipCode(m[3]!, 50)}\``
  const d = /^\s*(\/[^/]+\/|\d+(?:,\d+)?)\s*d\s*$/.exec(script)
  if (d) return `deleted lines ${clipCode(d[1]!, 50)}`
  return undefined
}

export interface ScriptOp {
  path: string
  op: 'create' | 'edit' | 'delete' | 'rename'
  from?: string
}

const PY_STR = String.raw`[rbuf]*(?:'([^'\n]*)'|"([^"\n]*)")`

/** What a Python or JavaScript script does to files: open(…, 'w'), write_text, writeFileSync, os.remove, rename. */
export function scriptFileOps(code: string, lang: 'python' | 'js' | 'other'): ScriptOp[] {
  const vars = new Map<string, string>()
  for (const m of code.matchAll(new RegExp(String.raw`(?:^|[\s;(])(?:const |let |var )?(\w+)\s*=\s*(?:Path\(\s*|pathlib\.Path\(\s*)?${PY_STR}`, 'gm'))) {
    const v = m[2] ?? m[3]
    if (v && isPathLike(v) && /[./]/.test(v)) vars.set(m[1]!, v)
  }
  // `Path('a') / 'b'` and `os.path.join('a', 'b')`: joined literals.
  for (const m of code.matchAll(new RegExp(String.raw`(\w+)\s*=\s*os\.path\.join\(\s*${PY_STR}\s*,\s*${PY_STR}\s*\)`, 'g'))) vars.set(m[1]!, `${m[2] ?? m[3]}/${m[4] ?? m[5]}`)
  const valueOf = (expr: string): string | undefined => {
    const e = expr.trim()
    const lit = new RegExp(`^${PY_STR}$`).exec(e)
    if (lit) return lit[1] ?? lit[2]
    const path = new RegExp(String.raw`^(?:pathlib\.)?Path\(\s*${PY_STR}\s*\)$`).exec(e)
    if (path) return path[1] ?? path[2]
    if (/^\w+$/.test(e)) return vars.get(e)
    return undefined
  }
  const ops: ScriptOp[] = []
  const reads = new Set<string>()
  const add = (expr: string, op: ScriptOp['op'], from?: string) => {
    const p = valueOf(expr)
    if (!p || !isPathLike(p)) return
    const path = normalizePath(p)
    if (!ops.some((o) => o.path === path && o.op === op)) ops.push({ path, op, ...(from ? { from } : {}) })
  }
  const ARG = String.raw`((?:[rbuf]*'[^'\n]*'|[rbuf]*"[^"\n]*"|(?:pathlib\.)?Path\(\s*[rbuf]*(?:'[^'\n]*'|"[^"\n]*")\s*\)|\w+))`
  if (lang !== 'js') {
    for (const m of code.matchAll(new RegExp(String.raw`\b(?:io\.|codecs\.)?open\(\s*${ARG}\s*(?:,\s*(?:mode\s*=\s*)?[rbuf]*['"]([rwaxbt+]+)['"])?`, 'g'))) {
      const mode = m[2] ?? 'r'
      if (/[wax+]/.test(mode)) add(m[1]!, /x/.test(mode) ? 'create' : 'edit')
      else {
        const p = valueOf(m[1]!)
        if (p) reads.add(normalizePath(p))
      }
    }
    for (const m of code.matchAll(new RegExp(String.raw`${ARG}\s*\.\s*(write_text|write_bytes|open\(\s*['"][wa]|unlink|rename|replace|touch)\b`, 'g'))) {
      add(m[1]!, m[2] === 'unlink' ? 'delete' : m[2] === 'touch' ? 'create' : 'edit')
    }
    for (const m of code.matchAll(new RegExp(String.raw`\bos\.(?:remove|unlink)\(\s*${ARG}`, 'g'))) add(m[1]!, 'delete')
    for (const m of code.matchAll(new RegExp(String.raw`\b(?:os\.(?:rename|replace)|shutil\.move)\(\s*${ARG}\s*,\s*${ARG}`, 'g'))) {
      const from = valueOf(m[1]!)
      add(m[2]!, 'rename', from ? normalizePath(from) : undefined)
    }
    for (const m of code.matchAll(new RegExp(String.raw`\bshutil\.copy(?:file|2)?\(\s*${ARG}\s*,\s*${ARG}`, 'g'))) add(m[2]!, 'create')
  }
  if (lang !== 'python') {
    for (const m of code.matchAll(new RegExp(String.raw`\b(?:fs\.|fsp\.|promises\.)?(writeFileSync|writeFile|appendFileSync|appendFile|unlinkSync|unlink|rmSync|renameSync|rename|copyFileSync|copyFile)\(\s*${ARG}(?:\s*,\s*${ARG})?`, 'g'))) {
      const fn = m[1]!
      if (/^(?:unlink|rm)/.test(fn)) add(m[2]!, 'delete')
      else if (/^rename/.test(fn) && m[3]) {
        const from = valueOf(m[2]!)
        add(m[3], 'rename', from ? normalizePath(from) : undefined)
      } else if (/^copyFile/.test(fn) && m[3]) add(m[3], 'create')
      else if (!/^(?:rename|copyFile)/.test(fn)) add(m[2]!, 'edit')
    }
  }
  void reads
  return ops
}

/** Script contents a session wrote, by path. */
export interface ScriptMemory {
  get(path: string): string | undefined
}

function langOf(path: string, interpreter?: string): 'python' | 'js' | 'shell' | undefined {
  if (interpreter) {
    if (/^python/.test(interpreter)) return 'python'
    if (/^(?:node|bun|deno|tsx|ts-node)$/.test(interpreter)) return 'js'
    if (/^(?:ba|z|da)?sh$/.test(interpreter)) return 'shell'
  }
  if (/\.py$/.test(path)) return 'python'
  if (/\.(?:m|c)?[jt]s$/.test(path)) return 'js'
  if (/\.(?:sh|bash|zsh)$/.test(path)) return 'shell'
  return undefined
}

/**
 * Changes a failed command most likely did not make: a patch that did not apply, a script
 * that did not run. Plain file commands (sed -i, mv, redirects) before a later failure did.
 */
const FRAGILE = new WeakSet<FileChange>()
function fragile(c: FileChange): FileChange {
  FRAGILE.add(c)
  return c
}
function fragileIf(src: FileChange, dst: FileChange): void {
  if (FRAGILE.has(src)) FRAGILE.add(dst)
}
export function isFragileChange(c: FileChange): boolean {
  return FRAGILE.has(c)
}

export interface ShellAnalysis {
  changes: FileChange[]
  /** Search pattern of a grep/rg in the command. */
  search?: string
  /** Whole-file contents written (heredocs, tee): the tracker remembers scripts. */
  written: Map<string, string>
}

const READ_CMDS = /^(?:cat|head|tail|less|more|nl|bat|batcat|wc|view|file|stat|md5sum|sha256sum|jq|xxd|od|strings)$/

function isFileArg(a: string): boolean {
  return isPathLike(a) && (a.includes('/') || /\.[A-Za-z][\w]{0,9}$/.test(a) || /^(?:Makefile|Dockerfile|Procfile|Gemfile|Rakefile|LICENSE|README)$/.test(a))
}

/** What a shell command does to files. `scripts` resolves `python x.py` to x.py's content. */
export function analyzeShell(command: string, scripts?: ScriptMemory, depth = 0, workdir?: string): ShellAnalysis {
  const changes: FileChange[] = []
  const written = new Map<string, string>()
  let search: string | undefined
  // The working directory, when a `cd` to an absolute path (or the call's workdir) says it.
  let cwd = workdir && (workdir.startsWith('/') || workdir.startsWith('~')) ? workdir : undefined
  const at = (p: string) => resolvePath(p, cwd)
  const add = (c: FileChange) => {
    if (!isPathLike(c.path)) return
    const r: FileChange = { ...c, path: at(c.path), ...(c.from ? { from: at(c.from) } : {}) }
    fragileIf(c, r)
    changes.push(r)
  }
  const runScript = (code: string, lang: 'python' | 'js' | 'shell' | undefined, label: string) => {
    if (lang === 'shell') {
      if (depth < 3) for (const c of analyzeShell(code, scripts, depth + 1, cwd).changes) add(fragile(c.op === 'read' ? c : { ...c, note: c.note ?? `by \`${label}\`` }))
      return
    }
    for (const o of scriptFileOps(code, lang ?? 'other')) {
      add(fragile({ path: o.path, op: o.op, ...(o.from ? { from: o.from } : {}), note: o.op === 'delete' ? `deleted by \`${label}\`` : o.op === 'rename' ? `renamed by \`${label}\`` : `written by \`${label}\`` }))
    }
  }
  for (const st of parseShell(command)) {
    const words = commandWords(st.words)
    const cmd = words[0] ? basename(words[0]) : ''
    const args = words.slice(1)
    const label = clipCode(st.text || words.join(' '), 80)
    if (cmd === 'cd' || cmd === 'pushd') {
      const dir = args.find((a) => !a.startsWith('-'))
      cwd = dir && (dir.startsWith('/') || dir.startsWith('~')) ? normalizePath(dir) : dir && cwd && !dir.includes('$') ? resolvePath(dir, cwd) : undefined
      continue
    }
    // Redirections: `> f` creates, `>> f` appends (not 2>, not >&, not /dev/*).
    for (const r of st.redirects) {
      if (!/^(?:>|>\||&>|>>|&>>)$/.test(r.op) || (r.fd && r.fd !== '1') || !isPathLike(r.target) || /^&?\d+$/.test(r.target)) continue
      const path = normalizePath(r.target)
      const body = st.heredoc ?? (cmd === 'echo' || cmd === 'printf' ? args.filter((a) => !/^-\w$/.test(a)).join(' ') : undefined)
      const append = r.op.endsWith('>>')
      if (body !== undefined && (cmd === 'cat' || cmd === 'echo' || cmd === 'printf' || cmd === '')) {
        if (!append) written.set(at(path), body)
        const n = lineCount(body)
        add({ path, op: append ? 'edit' : 'create', added: n, ...(symbolsIn(path, body.split('\n')).length ? { symbols: symbolsIn(path, body.split('\n')) } : {}), note: append ? `appended ${n} line${n === 1 ? '' : 's'}` : `${n} lines` })
      } else add({ path, op: append ? 'edit' : 'create', note: `${append ? 'appended' : 'output'} of \`${clipCode(words.join(' '), 60)}\`` })
    }
    if (!cmd) continue
    const git = cmd === 'git' ? args[0] : undefined
    if (cmd === 'tee') {
      const append = args.some((a) => /^-\w*a/.test(a) || a === '--append')
      for (const f of operands(args)) {
        const path = normalizePath(f)
        if (st.heredoc !== undefined && !append) written.set(at(path), st.heredoc)
        const n = st.heredoc !== undefined ? lineCount(st.heredoc) : undefined
        add({ path, op: append ? 'edit' : 'create', ...(n !== undefined ? { added: n, note: `${append ? 'appended ' : ''}${n} lines` } : { note: `written by \`${label}\`` }) })
      }
    } else if (cmd === 'sed' && args.some((a) => /^-[a-zA-Z]*i/.test(a) || a.startsWith('--in-place'))) {
      const scriptArgs: string[] = []
      const files: string[] = []
      let explicit = false
      for (let k = 0; k < args.length; k++) {
        const a = args[k]!
        if (a === '-e' || a === '--expression') {
          explicit = true
          scriptArgs.push(args[++k] ?? '')
        } else if (a.startsWith('--expression=')) {
          explicit = true
          scriptArgs.push(a.slice(13))
        } else if (a === '-f') k++
        else if (a.startsWith('-') && a !== '-') continue
        else files.push(a)
      }
      if (!explicit && files.length > 0) scriptArgs.push(files.shift()!)
      const note = scriptArgs.length === 1 ? sedNote(scriptArgs[0]!) : undefined
      for (const f of files) if (isPathLike(f)) add({ path: normalizePath(f), op: 'edit', note: note ?? `edited by \`${label}\`` })
    } else if (cmd === 'perl' && args.some((a) => /^-\w*i/.test(a))) {
      for (const f of operands(args, /^-\w*[eE]$/)) if (isFileArg(f)) add({ path: normalizePath(f), op: 'edit', note: `edited by \`${label}\`` })
    } else if (cmd === 'mv' || git === 'mv') {
      const ops = operands(git ? args.slice(1) : args, /^(?:-t|-S|--suffix)$/)
      if (ops.length >= 2) {
        const dest = ops.at(-1)!
        const intoDir = ops.length > 2 || dest.endsWith('/') || dest === '.' || dest === '..'
        for (const src of ops.slice(0, -1)) {
          const to = intoDir ? `${dest.replace(/\/+$/, '')}/${basename(src)}` : dest
          add({ path: normalizePath(to), op: 'rename', from: normalizePath(src) })
        }
      }
    } else if (cmd === 'rm' || git === 'rm' || cmd === 'unlink') {
      const ops = operands(git ? args.slice(1) : args)
      const cachedOnly = git && args.includes('--cached')
      if (!cachedOnly) for (const f of ops) if (isPathLike(f)) add({ path: normalizePath(f), op: 'delete' })
    } else if (cmd === 'cp' || cmd === 'install') {
      const ops = operands(args, /^(?:-t|-S|--suffix|-m|--mode|-o|-g)$/)
      if (ops.length >= 2) {
        const dest = ops.at(-1)!
        const intoDir = ops.length > 2 || dest.endsWith('/') || dest === '.' || dest === '..'
        for (const src of ops.slice(0, -1)) {
          const to = intoDir ? `${dest.replace(/\/+$/, '')}/${basename(src)}` : dest
          add({ path: normalizePath(to), op: 'create', note: `copied from ${normalizePath(src)}` })
        }
      }
    } else if (cmd === 'touch') {
      for (const f of operands(args, /^(?:-d|-t|-r)$/)) add({ path: normalizePath(f), op: 'create', note: 'empty file' })
    } else if (cmd === 'curl' || cmd === 'wget') {
      for (let k = 0; k < args.length; k++) {
        if ((cmd === 'curl' && (args[k] === '-o' || args[k] === '--output')) || (cmd === 'wget' && (args[k] === '-O' || args[k] === '--output-document'))) {
          const f = args[k + 1]
          if (f && f !== '-' && isPathLike(f)) add({ path: normalizePath(f), op: 'create', note: 'downloaded' })
        }
      }
    } else if (git === 'checkout' || git === 'restore') {
      const dd = args.indexOf('--')
      const files = git === 'checkout' ? (dd >= 0 ? args.slice(dd + 1) : []) : operands(args.slice(1), /^(?:-s|--source)$/)
      if (!args.includes('--staged') || args.includes('--worktree')) for (const f of files) if (isPathLike(f)) add({ path: normalizePath(f), op: 'edit', note: `reverted by \`git ${git}\`` })
    } else if (git === 'apply' || cmd === 'patch') {
      const patchFile = operands(git ? args.slice(1) : args, /^(?:-p|-d|--directory|-i|--input)$/).find(isFileArg) ?? st.redirects.find((r) => r.op === '<')?.target
      const text = st.heredoc ?? (patchFile ? scripts?.get(at(patchFile)) : undefined)
      if (text && !args.includes('--check') && !args.includes('--stat')) for (const c of parseUnifiedDiff(text)) add(fragile(c))
    } else if (cmd === 'apply_patch' || cmd === 'applypatch') {
      const text = st.heredoc ?? args.find((a) => a.includes('*** Begin Patch'))
      if (text) for (const c of parseApplyPatch(text)) add(fragile(c))
    } else if (/^(?:python[\d.]*|pypy3?|node|bun|deno|ruby|(?:ba|z|da)?sh)$/.test(cmd)) {
      const lang = langOf('', cmd)
      const c = args.findIndex((a) => a === '-c' || a === '-e' || a === '--eval' || a === '-p' || a === '-lc' || a === '-ec' || /^-\w*c$/.test(a))
      if (c >= 0 && args[c + 1] !== undefined) runScript(args[c + 1]!, lang, label)
      else if (st.heredoc !== undefined && (args.length === 0 || args[0] === '-')) runScript(st.heredoc, lang, label)
      else {
        const script = args.find((a) => !a.startsWith('-'))
        if (script && args.indexOf(script) > 0 && args[args.indexOf(script) - 1] === '-m') continue
        const code = script ? scripts?.get(at(script)) : undefined
        if (script && code !== undefined) runScript(code, langOf(script, cmd), label)
      }
    } else if (/\.(?:py|sh|js|mjs)$/.test(words[0]!) || words[0]!.includes('/')) {
      // ./fix.sh, scripts/fix.py: a script the session wrote, run directly.
      const code = scripts?.get(at(words[0]!))
      if (code !== undefined) runScript(code, langOf(words[0]!, /^#!.*\b(python[\d.]*|node|bash|sh)\b/.exec(code)?.[1]), label)
    } else if (READ_CMDS.test(cmd) || (cmd === 'sed' && args.includes('-n'))) {
      const files = cmd === 'sed' ? operands(args, /^-e$/).slice(1) : operands(args, /^(?:-n|-c|--lines|--bytes)$/)
      for (const f of files) if (isFileArg(f)) add({ path: normalizePath(f), op: 'read' })
    } else if (/^(?:grep|egrep|fgrep|rg|ag|ack)$/.test(cmd) || git === 'grep') {
      const ops = operands(git ? args.slice(1) : args, /^(?:-e|-f|-g|--glob|-t|--type|-A|-B|-C|-m|--max-count|--include|--exclude)$/)
      const e = args.indexOf('-e')
      search ??= e >= 0 ? args[e + 1] : ops[0]
    }
  }
  return { changes, ...(search !== undefined ? { search } : {}), written }
}

// ───────────────────────────── tool calls ─────────────────────────────

const WRITE_TOOL = /^(?:write|write_?file|create|create_?file|write_?to_?file|save_?file|new_?file)$/i
const EDIT_TOOL = /^(?:edit|edit_?file|str_replace|replace|replace_in_file|multi_?edit|search_replace|insert|update_file|notebook_?edit|edit_notebook)$/i
const READ_TOOL = /^(?:read|read_?file|view|cat|open|open_?file|get_?file|read_many_files|view_file|notebook_?read)$/i

function bareName(tool: string): string {
  return tool.split(/[.:/]/).pop() ?? tool
}

/** The file an output names when the arguments do not (SWE-agent: `[File: /testbed/x.py (10 lines total)]`). */
function pathFromOutput(output: string): string | undefined {
  const m = /^\[File: (\S+) \(\d+ lines total\)\]/m.exec(output) ?? /^(?:File created successfully at|Successfully (?:wrote \d+ bytes to|modified file|created and wrote to new file|overwrote file)):? (\S+?)(?: \(|\.?\s*$)/m.exec(output)
  return m ? normalizePath(m[1]!) : undefined
}

function filePathOf(args: Record<string, unknown>): string | undefined {
  const p = firstString(args, FILE_KEYS)
  return p && !isUrl(p) ? normalizePath(p) : undefined
}

/** An overwrite, not a creation: the tool said so. */
function overwrote(output: string): boolean {
  return /has been (?:updated|overwritten)|Successfully overwrote|\boverwrote\b|\bOverwrote\b/i.test(output)
}

export interface CallInput {
  tool: string
  /** Arguments: the JSON text, or the parsed object. */
  args: string | Record<string, unknown>
  output?: string
  /** The classified kind, when the caller has it (tools.ts); guessed from the name otherwise. */
  kind?: ToolKind
}

/**
 * What one tool call did to files, without session memory (see ArtifactTracker for
 * scripts run later). Reads are included as op 'read'.
 */
export function changesOfCall(call: CallInput, scripts?: ScriptMemory): { changes: FileChange[]; written: Map<string, string>; search?: string } {
  const args = typeof call.args === 'string' ? parseArgs(call.args) : call.args
  const output = call.output ?? ''
  const name = bareName(call.tool)
  const written = new Map<string, string>()
  const path = filePathOf(args)
  const one = (c: FileChange | undefined) => ({ changes: c && isPathLike(c.path) ? [c] : [], written })

  // Patches: apply_patch (tool, shell argv, or any argument holding one), unified diffs.
  const argv = argvOf(args)
  const patchText =
    (argv && /^apply_?patch$/.test(argv[0]!) ? argv.slice(1).join('\n') : undefined) ??
    [args.input, args.patch, args.diff, args.value].map(str).find((s) => s !== undefined && s.includes('*** Begin Patch'))
  if (patchText && patchText.includes('*** Begin Patch')) {
    for (const [p, body] of applyPatchAdds(patchText)) written.set(p, body)
    return { changes: parseApplyPatch(patchText), written }
  }
  const diffText = [args.patch, args.diff, args.input].map(str).find((s) => s !== undefined && looksLikeUnifiedDiff(s))
  if (diffText && (/patch|diff|edit/i.test(name) || !commandOf(args))) return { changes: parseUnifiedDiff(diffText), written }

  // str_replace_editor and its cousins: `command` is the sub-command.
  const sub = str(args.command)
  if (/^str_replace(?:_editor|_based_edit_tool)?$/i.test(name) || (sub && /^(?:view|create|str_replace|insert|undo_edit)$/.test(sub) && path)) {
    if (!path) return one(undefined)
    switch (sub) {
      case 'view':
        return one({ path, op: 'read' })
      case 'create': {
        const content = str(args.file_text) ?? str(args.content) ?? ''
        written.set(path, content)
        return one(createChange(path, content, overwrote(output) ? 'edit' : 'create'))
      }
      case 'str_replace':
        return one(replacementChange(path, str(args.old_str) ?? '', str(args.new_str) ?? ''))
      case 'insert': {
        const text = str(args.new_str) ?? str(args.text) ?? str(args.insert_text) ?? ''
        const lines = text.split('\n')
        const symbols = symbolsIn(path, lines)
        const at = args.insert_line !== undefined ? ` at line ${String(args.insert_line)}` : ''
        return one({ path, op: 'edit', added: lines.length, hunks: 1, ...(symbols.length ? { symbols } : {}), note: `${describeLines(lines, []) ?? `inserted ${lines.length} lines`}${at}` })
      }
      case 'undo_edit':
        return one({ path, op: 'edit', note: 'undid the last edit' })
      default:
        return one({ path, op: 'edit' })
    }
  }

  // Shell.
  const command = commandOf(args)
  if (call.kind === 'shell' || (!call.kind && command && !path && !WRITE_TOOL.test(name) && !EDIT_TOOL.test(name))) {
    const a = analyzeShell(command ?? str(args.value) ?? '', scripts, 0, str(args.workdir) ?? str(args.cwd) ?? str(args.working_directory) ?? str(args.dir_path))
    return { changes: a.changes, written: a.written, ...(a.search !== undefined ? { search: a.search } : {}) }
  }

  // Notebooks (Claude Code NotebookEdit).
  if (/notebook/i.test(name) && path) {
    const mode = str(args.edit_mode) ?? 'replace'
    const cell = str(args.cell_id) ?? (args.cell_number !== undefined ? String(args.cell_number) : undefined)
    const src = str(args.new_source) ?? ''
    const symbols = symbolsIn(path, src.split('\n'))
    return one({ path, op: 'edit', hunks: 1, ...(mode !== 'delete' ? { added: lineCount(src) } : {}), ...(symbols.length ? { symbols } : {}), note: `${mode === 'insert' ? 'inserted' : mode === 'delete' ? 'deleted' : 'replaced'} cell${cell ? ` ${cell}` : ''}` })
  }

  // Edits: old/new strings (Claude Code Edit, Gemini replace, generic), MultiEdit, SWE-agent edit/insert.
  const oldS = str(args.old_string) ?? str(args.old_str) ?? str(args.oldText) ?? str(args.old_text) ?? str(args.search) ?? str(args.find)
  const newS = str(args.new_string) ?? str(args.new_str) ?? str(args.newText) ?? str(args.new_text) ?? str(args.replace) ?? str(args.replacement)
  const edits = Array.isArray(args.edits) ? (args.edits as unknown[]).filter((e): e is Record<string, unknown> => !!e && typeof e === 'object') : undefined
  const target = path ?? (call.kind === 'edit' || call.kind === 'write' || EDIT_TOOL.test(name) || WRITE_TOOL.test(name) ? pathFromOutput(output) : undefined)
  const intent = str(args._i) ?? str(args.intent) ?? str(args.description) ?? str(args.instruction) ?? str(args.explanation)
  if (target && edits && edits.length > 0) {
    let added = 0
    let removed = 0
    const symbols: string[] = []
    const notes: string[] = []
    for (const e of edits) {
      const c = replacementChange(target, str(e.old_string) ?? str(e.old_str) ?? str(e.oldText) ?? '', str(e.new_string) ?? str(e.new_str) ?? str(e.newText) ?? '')
      added += c.added ?? 0
      removed += c.removed ?? 0
      for (const s of c.symbols ?? []) if (!symbols.includes(s)) symbols.push(s)
      if (c.note) notes.push(c.note)
    }
    const note = intent ? clipCode(intent, 120) : notes.length === 1 ? notes[0] : `${edits.length} edits: ${notes.slice(0, 2).join('; ')}${notes.length > 2 ? '; …' : ''}`
    return one({ path: target, op: 'edit', added, removed, hunks: edits.length, ...(symbols.length ? { symbols } : {}), ...(note ? { note } : {}) })
  }
  if (target && (oldS !== undefined || newS !== undefined)) {
    const c = replacementChange(target, oldS ?? '', newS ?? '', args.replace_all === true ? { note: undefined } : {})
    if (args.replace_all === true) c.note = `replaced every \`${clipCode(oldS ?? '', 50)}\` with \`${clipCode(newS ?? '', 50)}\``
    if (intent && !c.note) c.note = clipCode(intent, 120)
    return one(c)
  }
  const content = str(args.content) ?? str(args.file_text) ?? str(args.contents) ?? (WRITE_TOOL.test(name) ? str(args.text) : undefined)
  if (target && (WRITE_TOOL.test(name) || call.kind === 'write' || (content !== undefined && !EDIT_TOOL.test(name)))) {
    if (content !== undefined) written.set(target, content)
    const c = createChange(target, content, overwrote(output) ? 'edit' : 'create')
    if (content === undefined && intent) c.note = clipCode(intent, 120)
    return one(c)
  }
  if (target && (EDIT_TOOL.test(name) || call.kind === 'edit')) {
    const text = str(args.text) ?? str(args.insert_text) ?? str(args.new_str)
    if (text !== undefined && /insert/i.test(name)) {
      const lines = text.split('\n')
      return one({ path: target, op: 'edit', added: lines.length, hunks: 1, note: intent ? clipCode(intent, 120) : (describeLines(lines, []) ?? `inserted ${lines.length} lines`) })
    }
    // An edit whose input we cannot read (pi's hashline edits): the intent, if stated.
    return one({ path: target, op: 'edit', ...(intent ? { note: clipCode(intent, 120) } : {}) })
  }
  if (path && (READ_TOOL.test(name) || call.kind === 'read')) return one({ path, op: 'read' })
  if (READ_TOOL.test(name) || call.kind === 'read') {
    const paths = Array.isArray(args.paths) ? (args.paths as unknown[]).filter((p): p is string => typeof p === 'string' && isPathLike(p)) : []
    return { changes: paths.map((p) => ({ path: normalizePath(p), op: 'read' as const })), written }
  }
  return one(undefined)
}

// ───────────────────────────── the session's trail ─────────────────────────────

export interface IndexedChange extends FileChange {
  /** Message index (or position) of the call. */
  index: number
}

/**
 * Fed the calls of a session in order: each call's changes, with the scripts the session
 * wrote remembered, so `python fix_merge.py` is seen to edit what fix_merge.py opens for writing.
 */
export class ArtifactTracker {
  private readonly scripts = new Map<string, string>()
  private readonly byBase = new Map<string, string[]>()
  private readonly all: IndexedChange[] = []
  private readonly changed = new Set<string>()
  private position = 0

  /** Content of a file the session wrote (exact path, or the same file spelled relative/absolute). */
  script(path: string): string | undefined {
    const p = normalizePath(path)
    const exact = this.scripts.get(p)
    if (exact !== undefined) return exact
    const candidates = this.byBase.get(basename(p)) ?? []
    const hit = candidates.filter((c) => c.endsWith(`/${p}`) || p.endsWith(`/${c}`))
    return hit.length > 0 ? this.scripts.get(hit.at(-1)!) : undefined
  }

  private remember(path: string, content: string): void {
    if (!this.scripts.has(path)) {
      const b = basename(path)
      this.byBase.set(b, [...(this.byBase.get(b) ?? []), path])
    }
    this.scripts.set(path, content)
  }

  /**
   * One call. `failed`: the tool reported an error, so an edit or write did not happen
   * (a shell command's effects before its failure still count). Returns the call's changes.
   */
  add(call: CallInput & { index?: number; failed?: boolean }): FileChange[] {
    const index = call.index ?? this.position
    this.position = index + 1
    const { changes, written } = changesOfCall(call, { get: (p) => this.script(p) })
    const args = typeof call.args === 'string' ? parseArgs(call.args) : call.args
    const isShell = call.kind === 'shell' || (!call.kind && commandOf(args) !== undefined && !filePathOf(args))
    if (call.failed && !isShell) return changes.filter((c) => c.op === 'read').map((c) => this.record(c, index))
    if (call.failed) {
      // A failed patch did not apply; a script that could not start wrote nothing.
      const kept = changes.filter((c) => !isFragileChange(c))
      changes.length = 0
      changes.push(...kept)
    }
    for (const [p, content] of written) this.remember(p, content)
    // Replacements keep the remembered script current.
    for (const c of changes) {
      if (c.op === 'rename' && c.from) {
        const content = this.script(c.from)
        if (content !== undefined) this.remember(c.path, content)
      }
    }
    const oldS = str(args.old_string) ?? str(args.old_str)
    const newS = str(args.new_string) ?? str(args.new_str)
    if (changes.length === 1 && changes[0]!.op === 'edit' && oldS !== undefined && newS !== undefined) {
      const cur = this.script(changes[0]!.path)
      if (cur !== undefined) this.remember(changes[0]!.path, cur.replace(oldS, newS))
    }
    const out = changes.map((c) => this.record(c, index))
    // A diff in the output (git diff, SWE-agent submit) names files changed by means we could not see.
    if (call.output && looksLikeUnifiedDiff(call.output) && (isShell || /submit|diff/i.test(bareName(call.tool)))) {
      for (const c of parseUnifiedDiff(call.output)) {
        if (this.known(c.path)) continue
        out.push(this.record({ ...c, note: c.note ? `${c.note} (seen in diff)` : 'seen in diff' }, index))
      }
    }
    return out
  }

  private known(path: string): boolean {
    if (this.changed.has(path)) return true
    for (const p of this.changed) if (p.endsWith(`/${path}`) || path.endsWith(`/${p}`)) return true
    return false
  }

  private record(c: FileChange, index: number): IndexedChange {
    const r = { ...c, index }
    this.all.push(r)
    if (c.op !== 'read') this.changed.add(c.path)
    return r
  }

  /** Every change so far, in order. */
  changes(): IndexedChange[] {
    return [...this.all]
  }

  /** Each file's fate so far. */
  fates(): FileFate[] {
    return foldFileFates(this.all)
  }
}

// ───────────────────────────── fates ─────────────────────────────

export type Fate = 'created' | 'edited' | 'deleted' | 'renamed' | 'read'

export interface FileFate {
  path: string
  fate: Fate
  /** Source of a rename. */
  from?: string
  added: number
  removed: number
  hunks: number
  symbols: string[]
  /** What changed, in order, without repeats. */
  notes: string[]
  /** /tmp files and one-off repro/debug scripts: rank below project files. */
  scratch: boolean
  firstIndex: number
  lastIndex: number
}

/**
 * Each file's final fate: created (even if edited later), edited (+/−, hunks, symbols and
 * notes merged), deleted, renamed (from → to), or read only. In order of first appearance.
 * The same file spelled relative and absolute (`src/a.py`, `/repo/src/a.py`) is one file.
 */
export function foldFileFates(changes: readonly (FileChange & { index?: number })[]): FileFate[] {
  const files = new Map<string, FileFate & { preexisting: boolean; order: number }>()
  const byBase = new Map<string, string[]>()
  let order = 0
  const c1 = (candidates: string[]) => candidates.length === 1
  const keyOf = (path: string): string | undefined => {
    if (files.has(path)) return path
    const candidates = byBase.get(basename(path)) ?? []
    // Relative and absolute spellings of one file; a bare name matches a file of that name if it is the only one.
    const hit = candidates.find((c) => c.endsWith(`/${path}`) || path.endsWith(`/${c}`))
    if (hit && (path.includes('/') || c1(candidates))) return hit
    return undefined
  }
  const create = (path: string, fate: Fate, index: number, preexisting: boolean) => {
    const f = { path, fate, added: 0, removed: 0, hunks: 0, symbols: [], notes: [], scratch: isScratchPath(path), firstIndex: index, lastIndex: index, preexisting, order: order++ }
    files.set(path, f)
    const b = basename(path)
    byBase.set(b, [...(byBase.get(b) ?? []), path])
    return f
  }
  const drop = (path: string) => {
    files.delete(path)
    const b = basename(path)
    byBase.set(b, (byBase.get(b) ?? []).filter((p) => p !== path))
  }
  const merge = (f: FileFate, c: FileChange) => {
    f.added += c.added ?? 0
    f.removed += c.removed ?? 0
    f.hunks += c.hunks ?? 0
    for (const s of c.symbols ?? []) if (!f.symbols.includes(s)) f.symbols.push(s)
    if (c.note && !f.notes.includes(c.note)) f.notes.push(c.note)
  }
  changes.forEach((c, k) => {
    const index = c.index ?? k
    if (c.op === 'rename') {
      const srcKey = c.from ? keyOf(c.from) : undefined
      const src = srcKey ? files.get(srcKey) : undefined
      const existingKey = keyOf(c.path)
      let f = existingKey ? files.get(existingKey) : undefined
      if (src) {
        drop(src.path)
        if (!f) {
          f = { ...src, path: c.path, scratch: isScratchPath(c.path) }
          files.set(c.path, f)
          const b = basename(c.path)
          byBase.set(b, [...(byBase.get(b) ?? []), c.path])
        }
        f.from = src.from ?? src.path
        f.fate = src.fate === 'created' ? 'created' : 'renamed'
      } else {
        f ??= create(c.path, 'renamed', index, true)
        f.fate = f.fate === 'created' ? 'created' : 'renamed'
        if (c.from) f.from = c.from
      }
      f.lastIndex = index
      merge(f, c)
      return
    }
    const key = keyOf(c.path)
    let f = key ? files.get(key) : undefined
    if (!f) {
      f = create(c.path, c.op === 'create' ? 'created' : c.op === 'edit' ? 'edited' : c.op === 'delete' ? 'deleted' : 'read', index, c.op !== 'create')
      if (c.op !== 'read') merge(f, c)
      return
    }
    f.lastIndex = index
    switch (c.op) {
      case 'read':
        return
      case 'create':
        // Overwriting a file that existed is an edit; recreating one this session made is a creation.
        if (f.fate === 'read' || f.fate === 'deleted') f.fate = f.preexisting && f.fate === 'deleted' ? 'edited' : f.fate === 'read' ? 'edited' : 'created'
        break
      case 'edit':
        if (f.fate === 'read' || f.fate === 'deleted') f.fate = 'edited'
        break
      case 'delete':
        f.fate = 'deleted'
        break
    }
    merge(f, c)
  })
  return [...files.values()]
    .sort((a, b) => a.firstIndex - b.firstIndex || a.order - b.order)
    .map(({ preexisting: _p, order: _o, ...f }) => f)
}
