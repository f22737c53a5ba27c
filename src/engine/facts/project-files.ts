/**
 * The one rule for "is this a project file": the files the next agent must know about,
 * as opposed to what an agent touches on the side. Not a project file:
 *   - a URL (a fetched page);
 *   - a scratch path: /tmp, and repro/debug/scratch scripts outside the source and test
 *     trees (artifacts/paths.ts);
 *   - an installed dependency or tool state (node_modules, site-packages, .venv, .git…);
 *   - for a file with a known fate, a one-off: a backup copy (`x.py.bak`, `x.orig`), or a
 *     fix/test/repro script the agent created at the workspace root.
 * /compact's handover, the action log's ranks and the rolling session summary all ask here.
 */
import { isScratchPath, isUrl, type FileFate } from './artifacts.ts'

/** Installed dependencies and tool state: read for reference, never the project's own files. */
const VENDORED_RE = /(?:^|\/)(?:node_modules|site-packages|dist-packages|\.venv|venv|\.git|\.cargo\/registry)\//

const BACKUP_NAME_RE = /\.(bak\d*|backup|orig|final|old|tmp|rej)$/i
const ONE_OFF_SCRIPT_RE = /^(test|fix|apply|patch|debug|repro|reproduce|simulate|check|verify|try|demo|scratch|tmp|temp|create)[_-]/i
/** Workspace roots agents run in: a script directly under one is at the root. */
const WORKSPACE_ROOT_RE = /^\/(testbed|workspace|repo|app|work|src\/?$)\//

export function isVendoredPath(path: string): boolean {
  return VENDORED_RE.test(path)
}

/** A path that can be a project file: not a URL, not scratch, not vendored. */
export function isProjectPath(path: string): boolean {
  return !isUrl(path) && !isScratchPath(path) && !isVendoredPath(path)
}

/** A project file: a project path that is not a backup copy nor a one-off script created at the workspace root. */
export function isProjectFile(f: FileFate): boolean {
  if (f.scratch || !isProjectPath(f.path)) return false
  const name = f.path.slice(f.path.lastIndexOf('/') + 1)
  if (BACKUP_NAME_RE.test(name)) return false
  const depth = f.path.replace(WORKSPACE_ROOT_RE, '').split('/').length
  return !(f.fate === 'created' && depth <= 1 && ONE_OFF_SCRIPT_RE.test(name))
}
