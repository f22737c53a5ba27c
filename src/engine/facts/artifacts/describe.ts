/**
 * Describing changed lines: the symbols (functions, classes, data-file keys) a change touches,
 * the short human note for lines added and removed ("added import 'x'", "replaced `a` with
 * `b`"), and the FileChange built for a replacement or a whole-file write. Shared by the
 * patch parsers, the shell analysis and the tool-call reader, so it sits below all of them.
 */
import type { FileChange } from './types.ts'

export function clipCode(s: string, max = 60): string {
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

export function lineCount(text: string): number {
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
  return { path, op: 'edit', added: added.length, removed: removed.length, hunks: 1, ...(symbols.length ? { symbols } : {}), note, replace: { old: oldText, new: newText }, ...extra }
}

/** Content replaced by a placeholder (an earlier compaction evicted it): its size is unknown. */
function isPlaceholder(content: string): boolean {
  return /^\s*\[[^\n\]]*(?:evicted|masked|omitted|compacted|truncated)[^\n\]]*\]\s*$/i.test(content)
}

export function createChange(path: string, content: string | undefined, op: 'create' | 'edit' = 'create'): FileChange {
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
