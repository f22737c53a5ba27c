/**
 * The shell statement model: parseShell splits a command into statements (words with quotes
 * removed, redirections apart, heredoc bodies attached), and commandWords/operands strip
 * wrappers and options to reach a command's file operands. Syntax only, no file semantics;
 * kept apart from shell.ts, which decides what each statement does to files.
 */
export interface Statement {
  words: string[]
  redirects: { op: string; fd?: string; target: string }[]
  heredoc?: string
  /** The statement's text, heredoc body excluded. */
  text: string
}

/**
 * Statements of a shell command: words with quotes removed, redirections apart, heredoc
 * bodies attached to the statement that opened them. Not a full shell parser; enough to
 * see what a command does to files.
 */
export function parseShell(command: string): Statement[] {
  const out: Statement[] = []
  let st: Statement = { words: [], redirects: [], text: '' }
  let word: string | null = null
  let pendingRedirect: { op: string; fd?: string } | undefined
  let pendingHeredoc: { op: string } | undefined
  const heredocs: { delim: string; strip: boolean; st: Statement }[] = []
  let start = 0
  const s = command
  let i = 0
  const endWord = () => {
    if (word === null) return
    if (pendingHeredoc) {
      heredocs.push({ delim: word, strip: pendingHeredoc.op === '<<-', st })
      st.redirects.push({ op: pendingHeredoc.op, target: word })
      pendingHeredoc = undefined
    } else if (pendingRedirect) {
      st.redirects.push({ ...pendingRedirect, target: word })
      pendingRedirect = undefined
    } else st.words.push(word)
    word = null
  }
  const endStatement = (at: number) => {
    endWord()
    st.text = s.slice(start, at).trim()
    if (st.words.length > 0 || st.redirects.length > 0) out.push(st)
    st = { words: [], redirects: [], text: '' }
    start = at + 1
  }
  while (i < s.length) {
    const c = s[i]!
    if (c === '\\') {
      if (s[i + 1] === '\n') {
        i += 2
        continue
      }
      word = (word ?? '') + (s[i + 1] ?? '')
      i += 2
      continue
    }
    if (c === "'") {
      const end = s.indexOf("'", i + 1)
      const stop = end < 0 ? s.length : end
      word = (word ?? '') + s.slice(i + 1, stop)
      i = stop + 1
      continue
    }
    if (c === '"') {
      let j = i + 1
      let buf = ''
      while (j < s.length && s[j] !== '"') {
        if (s[j] === '\\' && j + 1 < s.length && '"\\$`\n'.includes(s[j + 1]!)) {
          buf += s[j + 1] === '\n' ? '' : s[j + 1]
          j += 2
        } else buf += s[j++]
      }
      word = (word ?? '') + buf
      i = j + 1
      continue
    }
    if (c === '$' && (s[i + 1] === '(' || s[i + 1] === '{')) {
      // Command substitution or parameter expansion: one opaque piece of the word.
      const open = s[i + 1]!
      const close = open === '(' ? ')' : '}'
      let depth = 0
      let j = i + 1
      for (; j < s.length; j++) {
        if (s[j] === open) depth++
        else if (s[j] === close && --depth === 0) break
        else if (s[j] === "'" && open === '(') j = Math.max(j, s.indexOf("'", j + 1))
      }
      word = (word ?? '') + s.slice(i, j + 1)
      i = j + 1
      continue
    }
    if (c === '`') {
      const end = s.indexOf('`', i + 1)
      const stop = end < 0 ? s.length : end
      word = (word ?? '') + s.slice(i, stop + 1)
      i = stop + 1
      continue
    }
    if (c === '#' && word === null) {
      const end = s.indexOf('\n', i)
      i = end < 0 ? s.length : end
      continue
    }
    if (c === '\n') {
      endStatement(i)
      i++
      // Heredoc bodies start on the next line.
      while (heredocs.length > 0) {
        const h = heredocs.shift()!
        const body: string[] = []
        while (i < s.length) {
          const nl = s.indexOf('\n', i)
          const line = s.slice(i, nl < 0 ? s.length : nl)
          i = nl < 0 ? s.length : nl + 1
          if ((h.strip ? line.replace(/^\t+/, '') : line).trim() === h.delim) break
          body.push(line)
        }
        h.st.heredoc = body.join('\n')
        start = i
      }
      continue
    }
    if (c === ';' || c === '(' || c === ')' || (c === '&' && s[i + 1] !== '>') || (c === '|' && s[i - 1] !== '>')) {
      endStatement(i)
      i += (c === '&' && s[i + 1] === '&') || (c === '|' && s[i + 1] === '|') || (c === ';' && s[i + 1] === ';') ? 2 : 1
      start = i
      continue
    }
    if (c === '>' || c === '<' || (c === '&' && s[i + 1] === '>')) {
      let fd: string | undefined
      if (word !== null && /^\d$/.test(word)) {
        fd = word
        word = null
      }
      endWord()
      let op = ''
      let j = i
      if (s[j] === '&') op += s[j++]
      while (j < i + 3 && (s[j] === '>' || s[j] === '<' || s[j] === '|' || s[j] === '&' || s[j] === '-') && !(op.length > 0 && s[j] === '-' && !op.startsWith('<<'))) {
        op += s[j++]
        if (op === '<<<' || op === '>>' || op === '<<-') break
      }
      i = j
      if (op.startsWith('<<') && op !== '<<<') pendingHeredoc = { op }
      else pendingRedirect = { op, ...(fd ? { fd } : {}) }
      continue
    }
    if (c === ' ' || c === '\t') {
      endWord()
      i++
      continue
    }
    word = (word ?? '') + c
    i++
  }
  endStatement(s.length)
  return out
}

/** Strip env assignments and wrappers (sudo, env, time, timeout N, nohup, exec, command). */
export function commandWords(words: string[]): string[] {
  let w = words.filter((x) => x !== '{' && x !== '}' && x !== '!' && x !== 'then' && x !== 'do' && x !== 'else')
  for (;;) {
    if (w.length === 0) return w
    const h = w[0]!
    if (/^[A-Za-z_]\w*=/.test(h)) w = w.slice(1)
    else if (/^(?:sudo|nohup|exec|command|time|builtin|if|while|until|xargs)$/.test(h)) w = w.slice(1)
    else if (h === 'env') w = w.slice(1).filter((x, k, a) => !(/^-/.test(x) && k < a.length - 1))
    else if (h === 'timeout' || h === 'gtimeout') w = w.slice(1).filter((x, k) => !(k === 0 && /^-/.test(x))).slice(1)
    else return w
  }
}

export function operands(args: string[], withValue: RegExp = /^$/): string[] {
  const out: string[] = []
  let endOfOptions = false
  for (let k = 0; k < args.length; k++) {
    const a = args[k]!
    if (endOfOptions || !a.startsWith('-') || a === '-') out.push(a)
    else if (a === '--') endOfOptions = true
    else if (withValue.test(a)) k++
  }
  return out
}
