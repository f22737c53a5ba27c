/**
 * Scripts a session runs: scriptFileOps reads Python or JavaScript source for the files it
 * writes, deletes or renames (open(…, 'w'), write_text, writeFileSync, os.remove, rename),
 * ScriptMemory is the lookup of script contents the session wrote, and langOf picks the
 * language from a path or interpreter. Used by the shell analysis when a command runs a script.
 */
import { isPathLike, normalizePath } from './paths.ts'

export interface ScriptOp {
  path: string
  op: 'create' | 'edit' | 'delete' | 'rename'
  from?: string
}

const PY_STR = String.raw`[rbuf]*(?:'([^'\n]*)'|"([^"\n]*)")`

/** What a Python or JavaScript script does to files: open(…, 'w'), write_text, writeFileSync, os.remove, rename. */
export function scriptFileOps(code: string, lang: 'python' | 'js' | 'other'): ScriptOp[] {
  const vars = new Map<string, string>()
  for (const m of code.matchAll(new RegExp(String.raw`(?:^|[\s;(])(?:const |let |var )?(\w+)\s*=\s*(?:Path\(\s*|pathlib\.Path\(\s*)?${PY_STR}`, 'gm'))) {
    const v = m[2] ?? m[3]
    if (v && isPathLike(v) && /[./]/.test(v)) vars.set(m[1]!, v)
  }
  // `Path('a') / 'b'` and `os.path.join('a', 'b')`: joined literals.
  for (const m of code.matchAll(new RegExp(String.raw`(\w+)\s*=\s*os\.path\.join\(\s*${PY_STR}\s*,\s*${PY_STR}\s*\)`, 'g'))) vars.set(m[1]!, `${m[2] ?? m[3]}/${m[4] ?? m[5]}`)
  const valueOf = (expr: string): string | undefined => {
    const e = expr.trim()
    const lit = new RegExp(`^${PY_STR}$`).exec(e)
    if (lit) return lit[1] ?? lit[2]
    const path = new RegExp(String.raw`^(?:pathlib\.)?Path\(\s*${PY_STR}\s*\)$`).exec(e)
    if (path) return path[1] ?? path[2]
    if (/^\w+$/.test(e)) return vars.get(e)
    return undefined
  }
  const ops: ScriptOp[] = []
  const add = (expr: string, op: ScriptOp['op'], from?: string) => {
    const p = valueOf(expr)
    if (!p || !isPathLike(p)) return
    const path = normalizePath(p)
    if (!ops.some((o) => o.path === path && o.op === op)) ops.push({ path, op, ...(from ? { from } : {}) })
  }
  const ARG = String.raw`((?:[rbuf]*'[^'\n]*'|[rbuf]*"[^"\n]*"|(?:pathlib\.)?Path\(\s*[rbuf]*(?:'[^'\n]*'|"[^"\n]*")\s*\)|\w+))`
  if (lang !== 'js') {
    for (const m of code.matchAll(new RegExp(String.raw`\b(?:io\.|codecs\.)?open\(\s*${ARG}\s*(?:,\s*(?:mode\s*=\s*)?[rbuf]*['"]([rwaxbt+]+)['"])?`, 'g'))) {
      const mode = m[2] ?? 'r'
      if (/[wax+]/.test(mode)) add(m[1]!, /x/.test(mode) ? 'create' : 'edit')
    }
    for (const m of code.matchAll(new RegExp(String.raw`${ARG}\s*\.\s*(write_text|write_bytes|open\(\s*['"][wa]|unlink|rename|replace|touch)\b`, 'g'))) {
      add(m[1]!, m[2] === 'unlink' ? 'delete' : m[2] === 'touch' ? 'create' : 'edit')
    }
    for (const m of code.matchAll(new RegExp(String.raw`\bos\.(?:remove|unlink)\(\s*${ARG}`, 'g'))) add(m[1]!, 'delete')
    for (const m of code.matchAll(new RegExp(String.raw`\b(?:os\.(?:rename|replace)|shutil\.move)\(\s*${ARG}\s*,\s*${ARG}`, 'g'))) {
      const from = valueOf(m[1]!)
      add(m[2]!, 'rename', from ? normalizePath(from) : undefined)
    }
    for (const m of code.matchAll(new RegExp(String.raw`\bshutil\.copy(?:file|2)?\(\s*${ARG}\s*,\s*${ARG}`, 'g'))) add(m[2]!, 'create')
  }
  if (lang !== 'python') {
    for (const m of code.matchAll(new RegExp(String.raw`\b(?:fs\.|fsp\.|promises\.)?(writeFileSync|writeFile|appendFileSync|appendFile|unlinkSync|unlink|rmSync|renameSync|rename|copyFileSync|copyFile)\(\s*${ARG}(?:\s*,\s*${ARG})?`, 'g'))) {
      const fn = m[1]!
      if (/^(?:unlink|rm)/.test(fn)) add(m[2]!, 'delete')
      else if (/^rename/.test(fn) && m[3]) {
        const from = valueOf(m[2]!)
        add(m[3], 'rename', from ? normalizePath(from) : undefined)
      } else if (/^copyFile/.test(fn) && m[3]) add(m[3], 'create')
      else if (!/^(?:rename|copyFile)/.test(fn)) add(m[2]!, 'edit')
    }
  }
  return ops
}

/** Script contents a session wrote, by path. */
export interface ScriptMemory {
  get(path: string): string | undefined
}

export function langOf(path: string, interpreter?: string): 'python' | 'js' | 'shell' | undefined {
  if (interpreter) {
    if (/^python/.test(interpreter)) return 'python'
    if (/^(?:node|bun|deno|tsx|ts-node)$/.test(interpreter)) return 'js'
    if (/^(?:ba|z|da)?sh$/.test(interpreter)) return 'shell'
  }
  if (/\.py$/.test(path)) return 'python'
  if (/\.(?:m|c)?[jt]s$/.test(path)) return 'js'
  if (/\.(?:sh|bash|zsh)$/.test(path)) return 'shell'
  return undefined
}
