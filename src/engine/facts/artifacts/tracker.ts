/**
 * The session's trail: ArtifactTracker is fed a session's calls in order, remembers the
 * scripts it wrote (so running one attributes its writes to the run), drops the effects of
 * failed calls, and records each change with its message index; foldFileFates folds those
 * changes into each file's final fate (created, edited, deleted, renamed, read).
 */
import { commandOf, parseArgs, str } from '../tool-args.ts'
import type { FileChange } from './types.ts'
import { basename, isScratchPath, normalizePath } from './paths.ts'
import { looksLikeUnifiedDiff, parseUnifiedDiff } from './patches.ts'
import { isFragileChange } from './shell.ts'
import { bareName } from '../tool-kind.ts'
import { changesOfCall, filePathOf, type CallInput } from './calls.ts'

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
    return this.analyze(call).changes
  }

  /** add(), with what the same analysis found a shell command to search (a digest's `value` needs it). */
  analyze(call: CallInput & { index?: number; failed?: boolean }): { changes: FileChange[]; search?: string } {
    const index = call.index ?? this.position
    this.position = index + 1
    const { changes, written, search } = changesOfCall(call, { get: (p) => this.script(p) })
    const searched = search !== undefined ? { search } : {}
    const args = typeof call.args === 'string' ? parseArgs(call.args) : call.args
    const isShell = call.kind === 'shell' || (!call.kind && commandOf(args) !== undefined && !filePathOf(args))
    if (call.failed && !isShell) return { changes: changes.filter((c) => c.op === 'read').map((c) => this.record(c, index)), ...searched }
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
    return { changes: out, ...searched }
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
  /** Edited, and every edit undone by a later one that swapped its text back: no net change (an abandoned attempt). */
  reverted?: boolean
  firstIndex: number
  lastIndex: number
}

/**
 * Each file's final fate: created (even if edited later), edited (+/−, hunks, symbols and
 * notes merged), deleted, renamed (from → to), or read only. In order of first appearance.
 * The same file spelled relative and absolute (`src/a.py`, `/repo/src/a.py`) is one file.
 */
/** Whether the session left the file changed: written, edited, deleted or renamed, and not undone. */
export const isNetChange = (f: FileFate): boolean => f.fate !== 'read' && !f.reverted

/** A backup copy's name: the file's own name with a backup suffix (`a.py.bak`, `a.py.orig`, `a.py~`). */
export function isBackupOf(backup: string, path: string): boolean {
  const b = basename(backup)
  const name = basename(path)
  return b.startsWith(`${name}.`) || b === `${name}~` ? /(?:\.(?:bak\d*|backup|orig|original|old|save|sav|prev)|~)$/i.test(b) : false
}

/**
 * How a change put a file back to an earlier text, if it did: a `git checkout`/`git
 * restore` of it, or a copy from a backup of it made before the session first changed it
 * (or before this range: a backup made after some edits keeps those).
 */
export function restoredBy(c: FileChange, path: string, firstChange: number | undefined, backups: ReadonlyMap<string, number>): string | undefined {
  if (c.op === 'edit') return /^reverted by (`git \w+`)/.exec(c.note ?? '')?.[1]
  const copied = c.op === 'create' ? /^copied from (.+)$/.exec(c.note ?? '') : null
  if (!copied || !isBackupOf(copied[1]!, path)) return undefined
  const madeAt = backups.get(copied[1]!)
  return madeAt === undefined || firstChange === undefined || madeAt <= firstChange ? `a copy of ${basename(copied[1]!)}` : undefined
}

export function foldFileFates(changes: readonly (FileChange & { index?: number })[]): FileFate[] {
  const files = new Map<string, FileFate & { preexisting: boolean; order: number }>()
  // Per file: exact replacements not undone yet, how many were undone, whether anything else changed it,
  // and the `git checkout`/`git restore` that put it back.
  const undo = new Map<FileFate, { open: { old: string; new: string }[]; undone: number; other: boolean; restoredBy?: string; firstChange?: number; undoneNotes?: string[] }>()
  const track = (f: FileFate, c: FileChange, index: number) => {
    let u = undo.get(f)
    if (!u) undo.set(f, (u = { open: [], undone: 0, other: false }))
    const restore = restoredBy(c, f.path, u.firstChange, backups)
    if (c.op !== 'read') u.firstChange ??= index
    if (restore) {
      // The file is back to an earlier text: every edit the session made to it so far is undone,
      // and what they changed no longer describes it (their notes are kept for the undone row).
      if (u.open.length === 0 && !u.other) return // nothing of the session's to undo
      u.undone++
      u.open = []
      u.other = false
      u.restoredBy = restore
      u.undoneNotes ??= f.notes.filter((n) => !/^(?:reverted by|copied from)\b/.test(n))
      Object.assign(f, { added: 0, removed: 0, hunks: 0, symbols: [], notes: [] })
      return
    }
    if (c.op !== 'edit' || !c.replace) {
      if (c.op !== 'read') u.other = true
      return
    }
    const r = c.replace
    const k = u.open.findLastIndex((e) => e.old === r.new && e.new === r.old)
    if (k >= 0) {
      u.open.splice(k, 1)
      u.undone++
    } else u.open.push(r)
  }
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
  // Backup copies the session made (`cp a.py a.py.bak`), by path, with when: restoring one undoes what came after it.
  const backups = new Map<string, number>()
  changes.forEach((c, k) => {
    const index = c.index ?? k
    const copied = c.op === 'create' ? /^copied from (.+)$/.exec(c.note ?? '') : null
    if (copied && isBackupOf(c.path, copied[1]!) && !backups.has(c.path)) backups.set(c.path, index)
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
      track(f, c, index)
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
    track(f, c, index)
  })
  for (const [f, u] of undo) {
    if (f.fate !== 'edited' || u.other || u.undone === 0 || u.open.length > 0) continue
    f.reverted = true
    f.added = 0
    f.removed = 0
    const first = [...(u.undoneNotes ?? []), ...f.notes].find((n) => !/^(?:reverted by|copied from)\b/.test(n)) ?? 'edited'
    f.notes = [`${first}, then undone${u.restoredBy ? ` by ${u.restoredBy}` : ''} (no net change)`]
  }
  return [...files.values()]
    .sort((a, b) => a.firstIndex - b.firstIndex || a.order - b.order)
    .map(({ preexisting: _p, order: _o, ...f }) => f)
}
