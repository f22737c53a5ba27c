/**
 * The artifact trail's data model: FileOp (what a call did to a file) and FileChange (one
 * file touched by one call, with line counts, symbols and a short note). Every other module
 * under artifacts/ produces or folds these, so they live apart to keep the imports acyclic.
 */
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
  /** An exact replacement (an Edit's old and new text): a later edit that swaps them back undoes it. */
  replace?: { old: string; new: string }
}
