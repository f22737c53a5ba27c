/**
 * Patch parsers: Codex apply_patch (`*** Add/Update/Delete File:`, `*** Move to:`) and unified
 * diffs (`diff --git`, `---`/`+++`, renames, /dev/null adds and deletes), each read into
 * FileChanges with per-hunk notes. Also the content an apply_patch adds (scripts the session
 * wrote) and a cheap test for diff-shaped text, used by the tool-call reader and the tracker.
 */
import type { FileChange } from './types.ts'
import { normalizePath } from './paths.ts'
import { describeLines, symbolsIn } from './describe.ts'

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
export function applyPatchAdds(text: string): Map<string, string> {
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

export function looksLikeUnifiedDiff(text: string): boolean {
  return /^diff --git /m.test(text) || (/^--- \S/m.test(text) && /^\+\+\+ \S/m.test(text) && /^@@ /m.test(text))
}
