/**
 * The one rule for "is this a project file": the files the next agent must know about,
 * as opposed to what an agent touches on the side. Not a project file:
 *   - a URL (a fetched page);
 *   - a scratch path: /tmp, and repro/debug/scratch scripts outside the source and test
 *     trees (artifacts/paths.ts);
 *   - a log, a backup copy or an editor's leftover by its name (`dev.log`, `x.py.bak`,
 *     `x.backup`, `x.orig`, `x.rej`, `.x.swp`), wherever it is;
 *   - an installed dependency or tool state (node_modules, site-packages, .venv, .git…);
 *   - for a file with a known fate, a one-off: a fix/test/repro script the agent created
 *     at the workspace root, or any file the range created and deleted again (a throwaway
 *     reproduction page or script).
 * /compact's handover, the action log's ranks and the rolling session summary all ask
 * here; the handover's Completed Work lists project files first (issue 22: scratch paths
 * rank below project files, as the pi session's `/tmp/ (5 files)` row did not).
 */
import { isScratchPath, isUrl, type FileFate } from './artifacts.ts'

/** Installed dependencies and tool state: read for reference, never the project's own files. */
const VENDORED_RE = /(?:^|\/)(?:node_modules|site-packages|dist-packages|\.venv|venv|\.git|\.cargo\/registry)\//

/** Logs, backup copies and editor leftovers: output of the work, never the project's own files. */
const SCRATCH_NAME_RE = /\.(bak\d*|backup|orig|final|old|tmp|rej|log|swp|swo)$|\.log\.\d+$|~$/i
const ONE_OFF_SCRIPT_RE = /^(test|fix|apply|patch|debug|repro|reproduce|simulate|check|verify|try|demo|scratch|tmp|temp|create)[_-]/i
/** Workspace roots agents run in: a script directly under one is at the root. */
const WORKSPACE_ROOT_RE = /^\/(testbed|workspace|repo|app|work|src\/?$)\//

export function isVendoredPath(path: string): boolean {
  return VENDORED_RE.test(path)
}

/** A path that can be a project file: not a URL, not scratch, not a log or backup copy, not vendored. */
export function isProjectPath(path: string): boolean {
  return !isUrl(path) && !isScratchPath(path) && !isVendoredPath(path) && !SCRATCH_NAME_RE.test(path.slice(path.lastIndexOf('/') + 1))
}

/** A project file: a project path that is neither a one-off script created at the workspace root nor a file created and deleted again. */
export function isProjectFile(f: FileFate): boolean {
  if (f.scratch || f.transient || !isProjectPath(f.path)) return false
  const name = f.path.slice(f.path.lastIndexOf('/') + 1)
  const depth = f.path.replace(WORKSPACE_ROOT_RE, '').split('/').length
  return !(f.fate === 'created' && depth <= 1 && ONE_OFF_SCRIPT_RE.test(name))
}
