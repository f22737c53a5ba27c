/**
 * One tool call's effect on files, without session memory: changesOfCall recognises patches,
 * unified diffs, str_replace_editor, Claude Code / Gemini CLI / generic edit, write, notebook
 * and read tools, and hands shell commands to analyzeShell. Also the argument helper
 * (filePathOf) the tracker needs to tell shell calls from file tools.
 */
import { bareName, type ToolKind } from '../tool-kind.ts'
import { argvOf, commandOf, firstString, FILE_KEYS, parseArgs, str } from '../tool-args.ts'
import type { FileChange } from './types.ts'
import { isPathLike, isUrl, normalizePath } from './paths.ts'
import { clipCode, createChange, describeLines, lineCount, replacementChange, symbolsIn } from './describe.ts'
import { applyPatchAdds, looksLikeUnifiedDiff, parseApplyPatch, parseUnifiedDiff } from './patches.ts'
import { analyzeShell } from './shell.ts'
import type { ScriptMemory } from './scripts.ts'

const WRITE_TOOL = /^(?:write|write_?file|create|create_?file|write_?to_?file|save_?file|new_?file)$/i
const EDIT_TOOL = /^(?:edit|edit_?file|str_replace|replace|replace_in_file|multi_?edit|search_replace|insert|update_file|notebook_?edit|edit_notebook)$/i
const READ_TOOL = /^(?:read|read_?file|view|cat|open|open_?file|get_?file|read_many_files|view_file|notebook_?read)$/i

/** The file an output names when the arguments do not (SWE-agent: `[File: /testbed/x.py (10 lines total)]`). */
function pathFromOutput(output: string): string | undefined {
  const m = /^\[File: (\S+) \(\d+ lines total\)\]/m.exec(output) ?? /^(?:File created successfully at|Successfully (?:wrote \d+ bytes to|modified file|created and wrote to new file|overwrote file)):? (\S+?)(?: \(|\.?\s*$)/m.exec(output)
  return m ? normalizePath(m[1]!) : undefined
}

export function filePathOf(args: Record<string, unknown>): string | undefined {
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
