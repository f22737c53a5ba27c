/**
 * Path helpers for the artifact trail: URL detection, normalizing a path as written,
 * resolving it against a known working directory, telling a file path from a flag or glob,
 * the basename, and spotting scratch files (/tmp, repro/debug scripts) that rank below
 * project files. Pure string functions with no dependencies, shared by every parser.
 */
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
export function isPathLike(s: string): boolean {
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

export function basename(p: string): string {
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
