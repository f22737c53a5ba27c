/**
 * Reading a tool call's arguments: the JSON object (OpenAI sends a string), the file path
 * it names, and the shell command it runs (a string, or Codex's argv array).
 */

/** Tool arguments as an object (OpenAI sends a JSON string; anything unparsable is the raw text). */
export function parseArgs(argsText: string): Record<string, unknown> {
  if (!argsText) return {}
  try {
    const v = JSON.parse(argsText)
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : { value: v }
  } catch {
    return { value: argsText }
  }
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined
}

export const PATH_KEYS = ['path', 'file_path', 'filePath', 'absolute_path', 'absolutePath', 'target_file', 'targetFile', 'notebook_path', 'file', 'filename', 'fileName', 'target', 'dir_path', 'directory']
/** Keys that name a file (not a directory): what an edit or write acts on. */
export const FILE_KEYS = ['path', 'file_path', 'filePath', 'absolute_path', 'absolutePath', 'target_file', 'targetFile', 'notebook_path', 'file', 'filename', 'fileName']
export const COMMAND_KEYS = ['command', 'cmd', 'script', 'commands']
export const PATTERN_KEYS = ['pattern', 'query', 'regex', 'search', 'search_term', 'glob', 'q']

export function firstKey(args: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const k of keys) {
    const v = args[k]
    if (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string')) return v.join(' ')
    const s = str(v)
    if (s) return s
  }
  return undefined
}

/** The first string under one of `keys` (arrays are not joined). */
export function firstString(args: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const k of keys) {
    const s = str(args[k])
    if (s) return s
  }
  return undefined
}

const SHELLS = /^(?:\/(?:usr\/)?bin\/)?(?:ba|z|da|k)?sh$/

/**
 * The shell command of a call: a string, or an argv array (Codex `["bash", "-lc", "…"]`
 * unwraps to its script; `["apply_patch", "*** Begin Patch…"]` stays an argv, see argvOf).
 */
export function commandOf(args: Record<string, unknown>): string | undefined {
  for (const k of COMMAND_KEYS) {
    const v = args[k]
    if (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string')) {
      const argv = v as string[]
      if (SHELLS.test(argv[0]!) && argv.length >= 3 && /^-\w*c$/.test(argv[argv.length - 2]!)) return argv[argv.length - 1]
      return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ')
    }
    const s = str(v)
    if (s) return s
  }
  return undefined
}

/** The argv array of a call, when it sends one. */
export function argvOf(args: Record<string, unknown>): string[] | undefined {
  for (const k of COMMAND_KEYS) {
    const v = args[k]
    if (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string')) return v as string[]
  }
  return undefined
}
