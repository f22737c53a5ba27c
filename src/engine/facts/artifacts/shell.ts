/**
 * What a shell command does to files: analyzeShell walks parseShell's statements and reads
 * redirects, heredocs, tee, sed -i, perl -i, mv, rm, cp, touch, curl/wget -o, git checkout/
 * restore/apply, patch, apply_patch, grep patterns, and scripts run (through ScriptMemory).
 * Changes a failed command most likely did not make (patches, scripts) are marked fragile here.
 */
import type { FileChange } from './types.ts'
import { basename, isPathLike, normalizePath, resolvePath } from './paths.ts'
import { clipCode, lineCount, symbolsIn } from './describe.ts'
import { parseApplyPatch, parseUnifiedDiff } from './patches.ts'
import { commandWords, operands, parseShell } from './shell-parse.ts'
import { langOf, scriptFileOps, type ScriptMemory } from './scripts.ts'

/** A `sed` s-command as a note: `s/old/new/g` → replaced `old` with `new`. */
function sedNote(script: string): string | undefined {
  const m = /^\s*(?:\d+|\/[^/]*\/)?\s*s(.)(.*?)(?<!\\)\1(.*?)(?<!\\)\1[gIi\d]*\s*;?\s*$/.exec(script)
  if (m) return `replaced \`${clipCode(m[2]!, 50)}\` with \`${clipCode(m[3]!, 50)}\``
  const d = /^\s*(\/[^/]+\/|\d+(?:,\d+)?)\s*d\s*$/.exec(script)
  if (d) return `deleted lines ${clipCode(d[1]!, 50)}`
  return undefined
}

/**
 * Changes a failed command most likely did not make: a patch that did not apply, a script
 * that did not run. Plain file commands (sed -i, mv, redirects) before a later failure did.
 */
const FRAGILE = new WeakSet<FileChange>()
function fragile(c: FileChange): FileChange {
  FRAGILE.add(c)
  return c
}
function fragileIf(src: FileChange, dst: FileChange): void {
  if (FRAGILE.has(src)) FRAGILE.add(dst)
}
export function isFragileChange(c: FileChange): boolean {
  return FRAGILE.has(c)
}

export interface ShellAnalysis {
  changes: FileChange[]
  /** Search pattern of a grep/rg in the command. */
  search?: string
  /** Whole-file contents written (heredocs, tee): the tracker remembers scripts. */
  written: Map<string, string>
}

const READ_CMDS = /^(?:cat|head|tail|less|more|nl|bat|batcat|wc|view|file|stat|md5sum|sha256sum|jq|xxd|od|strings)$/

function isFileArg(a: string): boolean {
  return isPathLike(a) && (a.includes('/') || /\.[A-Za-z][\w]{0,9}$/.test(a) || /^(?:Makefile|Dockerfile|Procfile|Gemfile|Rakefile|LICENSE|README)$/.test(a))
}

/** What a shell command does to files. `scripts` resolves `python x.py` to x.py's content. */
export function analyzeShell(command: string, scripts?: ScriptMemory, depth = 0, workdir?: string): ShellAnalysis {
  const changes: FileChange[] = []
  const written = new Map<string, string>()
  let search: string | undefined
  // The working directory, when a `cd` to an absolute path (or the call's workdir) says it.
  let cwd = workdir && (workdir.startsWith('/') || workdir.startsWith('~')) ? workdir : undefined
  const at = (p: string) => resolvePath(p, cwd)
  const add = (c: FileChange) => {
    if (!isPathLike(c.path)) return
    const r: FileChange = { ...c, path: at(c.path), ...(c.from ? { from: at(c.from) } : {}) }
    fragileIf(c, r)
    changes.push(r)
  }
  const runScript = (code: string, lang: 'python' | 'js' | 'shell' | undefined, label: string) => {
    if (lang === 'shell') {
      if (depth < 3) for (const c of analyzeShell(code, scripts, depth + 1, cwd).changes) add(fragile(c.op === 'read' ? c : { ...c, note: c.note ?? `by \`${label}\`` }))
      return
    }
    for (const o of scriptFileOps(code, lang ?? 'other')) {
      add(fragile({ path: o.path, op: o.op, ...(o.from ? { from: o.from } : {}), note: o.op === 'delete' ? `deleted by \`${label}\`` : o.op === 'rename' ? `renamed by \`${label}\`` : `written by \`${label}\`` }))
    }
  }
  for (const st of parseShell(command)) {
    const words = commandWords(st.words)
    const cmd = words[0] ? basename(words[0]) : ''
    const args = words.slice(1)
    const label = clipCode(st.text || words.join(' '), 80)
    if (cmd === 'cd' || cmd === 'pushd') {
      const dir = args.find((a) => !a.startsWith('-'))
      cwd = dir && (dir.startsWith('/') || dir.startsWith('~')) ? normalizePath(dir) : dir && cwd && !dir.includes('$') ? resolvePath(dir, cwd) : undefined
      continue
    }
    // Redirections: `> f` creates, `>> f` appends (not 2>, not >&, not /dev/*).
    for (const r of st.redirects) {
      if (!/^(?:>|>\||&>|>>|&>>)$/.test(r.op) || (r.fd && r.fd !== '1') || !isPathLike(r.target) || /^&?\d+$/.test(r.target)) continue
      const path = normalizePath(r.target)
      const body = st.heredoc ?? (cmd === 'echo' || cmd === 'printf' ? args.filter((a) => !/^-\w$/.test(a)).join(' ') : undefined)
      const append = r.op.endsWith('>>')
      if (body !== undefined && (cmd === 'cat' || cmd === 'echo' || cmd === 'printf' || cmd === '')) {
        if (!append) written.set(at(path), body)
        const n = lineCount(body)
        add({ path, op: append ? 'edit' : 'create', added: n, ...(symbolsIn(path, body.split('\n')).length ? { symbols: symbolsIn(path, body.split('\n')) } : {}), note: append ? `appended ${n} line${n === 1 ? '' : 's'}` : `${n} lines` })
      } else add({ path, op: append ? 'edit' : 'create', note: `${append ? 'appended' : 'output'} of \`${clipCode(words.join(' '), 60)}\`` })
    }
    if (!cmd) continue
    const git = cmd === 'git' ? args[0] : undefined
    if (cmd === 'tee') {
      const append = args.some((a) => /^-\w*a/.test(a) || a === '--append')
      for (const f of operands(args)) {
        const path = normalizePath(f)
        if (st.heredoc !== undefined && !append) written.set(at(path), st.heredoc)
        const n = st.heredoc !== undefined ? lineCount(st.heredoc) : undefined
        add({ path, op: append ? 'edit' : 'create', ...(n !== undefined ? { added: n, note: `${append ? 'appended ' : ''}${n} lines` } : { note: `written by \`${label}\`` }) })
      }
    } else if (cmd === 'sed' && args.some((a) => /^-[a-zA-Z]*i/.test(a) || a.startsWith('--in-place'))) {
      const scriptArgs: string[] = []
      const files: string[] = []
      let explicit = false
      for (let k = 0; k < args.length; k++) {
        const a = args[k]!
        if (a === '-e' || a === '--expression') {
          explicit = true
          scriptArgs.push(args[++k] ?? '')
        } else if (a.startsWith('--expression=')) {
          explicit = true
          scriptArgs.push(a.slice(13))
        } else if (a === '-f') k++
        else if (a.startsWith('-') && a !== '-') continue
        else files.push(a)
      }
      if (!explicit && files.length > 0) scriptArgs.push(files.shift()!)
      const note = scriptArgs.length === 1 ? sedNote(scriptArgs[0]!) : undefined
      for (const f of files) if (isPathLike(f)) add({ path: normalizePath(f), op: 'edit', note: note ?? `edited by \`${label}\`` })
    } else if (cmd === 'perl' && args.some((a) => /^-\w*i/.test(a))) {
      for (const f of operands(args, /^-\w*[eE]$/)) if (isFileArg(f)) add({ path: normalizePath(f), op: 'edit', note: `edited by \`${label}\`` })
    } else if (cmd === 'mv' || git === 'mv') {
      const ops = operands(git ? args.slice(1) : args, /^(?:-t|-S|--suffix)$/)
      if (ops.length >= 2) {
        const dest = ops.at(-1)!
        const intoDir = ops.length > 2 || dest.endsWith('/') || dest === '.' || dest === '..'
        for (const src of ops.slice(0, -1)) {
          const to = intoDir ? `${dest.replace(/\/+$/, '')}/${basename(src)}` : dest
          add({ path: normalizePath(to), op: 'rename', from: normalizePath(src) })
        }
      }
    } else if (cmd === 'rm' || git === 'rm' || cmd === 'unlink') {
      const ops = operands(git ? args.slice(1) : args)
      const cachedOnly = git && args.includes('--cached')
      if (!cachedOnly) for (const f of ops) if (isPathLike(f)) add({ path: normalizePath(f), op: 'delete' })
    } else if (cmd === 'cp' || cmd === 'install') {
      const ops = operands(args, /^(?:-t|-S|--suffix|-m|--mode|-o|-g)$/)
      if (ops.length >= 2) {
        const dest = ops.at(-1)!
        const intoDir = ops.length > 2 || dest.endsWith('/') || dest === '.' || dest === '..'
        for (const src of ops.slice(0, -1)) {
          const to = intoDir ? `${dest.replace(/\/+$/, '')}/${basename(src)}` : dest
          add({ path: normalizePath(to), op: 'create', note: `copied from ${normalizePath(src)}` })
        }
      }
    } else if (cmd === 'touch') {
      for (const f of operands(args, /^(?:-d|-t|-r)$/)) add({ path: normalizePath(f), op: 'create', note: 'empty file' })
    } else if (cmd === 'curl' || cmd === 'wget') {
      for (let k = 0; k < args.length; k++) {
        if ((cmd === 'curl' && (args[k] === '-o' || args[k] === '--output')) || (cmd === 'wget' && (args[k] === '-O' || args[k] === '--output-document'))) {
          const f = args[k + 1]
          if (f && f !== '-' && isPathLike(f)) add({ path: normalizePath(f), op: 'create', note: 'downloaded' })
        }
      }
    } else if (git === 'checkout' || git === 'restore') {
      const dd = args.indexOf('--')
      // Without `--`, `git checkout` restores the operands that are file names (`a/b.py`), not branches (`main`, `feat/x`).
      const files = git === 'checkout' ? (dd >= 0 ? args.slice(dd + 1) : args.slice(1).filter((a) => !a.startsWith('-') && /\.[A-Za-z]\w{0,9}$/.test(a))) : operands(args.slice(1), /^(?:-s|--source)$/)
      if (!args.includes('--staged') || args.includes('--worktree')) for (const f of files) if (isPathLike(f)) add({ path: normalizePath(f), op: 'edit', note: `reverted by \`git ${git}\`` })
    } else if (git === 'apply' || cmd === 'patch') {
      const patchFile = operands(git ? args.slice(1) : args, /^(?:-p|-d|--directory|-i|--input)$/).find(isFileArg) ?? st.redirects.find((r) => r.op === '<')?.target
      const text = st.heredoc ?? (patchFile ? scripts?.get(at(patchFile)) : undefined)
      if (text && !args.includes('--check') && !args.includes('--stat')) for (const c of parseUnifiedDiff(text)) add(fragile(c))
    } else if (cmd === 'apply_patch' || cmd === 'applypatch') {
      const text = st.heredoc ?? args.find((a) => a.includes('*** Begin Patch'))
      if (text) for (const c of parseApplyPatch(text)) add(fragile(c))
    } else if (/^(?:python[\d.]*|pypy3?|node|bun|deno|ruby|(?:ba|z|da)?sh)$/.test(cmd)) {
      const lang = langOf('', cmd)
      const c = args.findIndex((a) => a === '-c' || a === '-e' || a === '--eval' || a === '-p' || a === '-lc' || a === '-ec' || /^-\w*c$/.test(a))
      if (c >= 0 && args[c + 1] !== undefined) runScript(args[c + 1]!, lang, label)
      else if (st.heredoc !== undefined && (args.length === 0 || args[0] === '-')) runScript(st.heredoc, lang, label)
      else {
        const script = args.find((a) => !a.startsWith('-'))
        if (script && args.indexOf(script) > 0 && args[args.indexOf(script) - 1] === '-m') continue
        const code = script ? scripts?.get(at(script)) : undefined
        if (script && code !== undefined) runScript(code, langOf(script, cmd), label)
      }
    } else if (/\.(?:py|sh|js|mjs)$/.test(words[0]!) || words[0]!.includes('/')) {
      // ./fix.sh, scripts/fix.py: a script the session wrote, run directly.
      const code = scripts?.get(at(words[0]!))
      if (code !== undefined) runScript(code, langOf(words[0]!, /^#!.*\b(python[\d.]*|node|bash|sh)\b/.exec(code)?.[1]), label)
    } else if (READ_CMDS.test(cmd) || (cmd === 'sed' && args.includes('-n'))) {
      const files = cmd === 'sed' ? operands(args, /^-e$/).slice(1) : operands(args, /^(?:-n|-c|--lines|--bytes)$/)
      for (const f of files) if (isFileArg(f)) add({ path: normalizePath(f), op: 'read' })
    } else if (/^(?:grep|egrep|fgrep|rg|ag|ack)$/.test(cmd) || git === 'grep') {
      const ops = operands(git ? args.slice(1) : args, /^(?:-e|-f|-g|--glob|-t|--type|-A|-B|-C|-m|--max-count|--include|--exclude)$/)
      const e = args.indexOf('-e')
      search ??= e >= 0 ? args[e + 1] : ops[0]
    }
  }
  return { changes, ...(search !== undefined ? { search } : {}), written }
}
