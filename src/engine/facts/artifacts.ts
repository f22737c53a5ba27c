/**
 * The artifact trail: per tool call, what happened to which file. Parses apply_patch,
 * unified diffs, str_replace_editor, Claude Code / Gemini CLI / generic edit and write
 * tools, and shell commands (sed -i, heredocs, redirects, tee, mv, rm, cp, touch, and
 * scripts that write files). ArtifactTracker remembers the scripts a session wrote, so
 * running one attributes its writes to the run; foldFileFates gives each file its fate.
 * The code lives in ./artifacts/, one concern per module; this file is the public entry
 * and re-exports exactly the names importers use, so none of them depends on the layout.
 */
export type { FileOp, FileChange } from './artifacts/types.ts'
export { isUrl, normalizePath, resolvePath, isScratchPath } from './artifacts/paths.ts'
export { symbolsIn, describeLines, replacementChange } from './artifacts/describe.ts'
export { parseApplyPatch, parseUnifiedDiff } from './artifacts/patches.ts'
export { parseShell } from './artifacts/shell-parse.ts'
export { scriptFileOps, type ScriptOp, type ScriptMemory } from './artifacts/scripts.ts'
export { analyzeShell, isFragileChange, type ShellAnalysis } from './artifacts/shell.ts'
export { changesOfCall, type CallInput } from './artifacts/calls.ts'
export { ArtifactTracker, foldFileFates, isBackupOf, isNetChange, restoredBy, type IndexedChange, type Fate, type FileFate } from './artifacts/tracker.ts'
