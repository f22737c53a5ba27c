/**
 * Reading a tool's output for evidence of failure: its lines without colour codes and
 * harness lines, the line-anchored error signatures and their weights, and where a Python
 * traceback ends. The other outcome readers (failing tests, error lines, the outcome
 * itself) build on these.
 */
export const ANSI_RE = /\x1b\[[0-9;?]*[A-Za-z]/g

export function lines(output: string): string[] {
  return output.replace(ANSI_RE, '').replace(/\r\n?/g, '\n').replace(/<\/?output>/g, '').split('\n')
}

export function clipLine(s: string, max = 300): string {
  const one = s.replace(/\s+/g, ' ').trim()
  return one.length > max ? `${one.slice(0, max - 1)}…` : one
}

/** Harness lines that are not the command's output. */
export const HARNESS_LINE_RE = /^\s*(?:(?:Process|Command) exited with|(?:Error: )?Exit code:?\s|Exit Code:|Chunk ID:|Wall time:|Original token count:|Process Group PGID:|Signal:|Background PIDs:|Directory:|<\/?returncode>|<\/?output>)|^\s*Output:\s*$|^\s*Error: \(none\)\s*$/i

interface Signature {
  re: RegExp
  /** Higher is more telling. */
  weight: number
}

/**
 * Line-anchored error signatures. A signature is a typed error at the start of a line,
 * not a word inside prose: `ValueError: …`, `error[E0308]: …`, `npm ERR! …`.
 */
const SIGNATURES: Signature[] = [
  { re: /^FAILED \S+::\S+/, weight: 9 }, // pytest short summary
  { re: /^(?:ERROR|FAIL): test\w* \([\w.]+\)/, weight: 8 }, // unittest
  { re: /^--- FAIL: \S+/, weight: 8 }, // go test
  { re: /^\s*● .+ › .+/, weight: 8 }, // jest
  { re: /^test \S+ \.\.\. FAILED$/, weight: 8 }, // cargo test
  { re: /^(?:E\s+)?(?:[A-Za-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception|Exit|Interrupt)(?::\s|$)/, weight: 7 },
  { re: /^Exception in thread "[^"]*" [\w.$]+/, weight: 7 },
  // The interpreter could not start what it was asked to run: `python -m pytest` without pytest, a missing script.
  { re: /^(?:\S*\/)?python[\d.]*: (?:No module named \S+|can't open file )/, weight: 7 },
  { re: /^(?:[a-z_]\w*\.){2,}[A-Z]\w+: \S/, weight: 6 }, // django.core.exceptions.ImproperlyConfigured: …
  { re: /^(?:Uncaught |thrown: )?(?:[A-Z]\w*)?Error(?: \[\w+\])?: (?!\(none\))\S/, weight: 7 },
  { re: /^error(?:\[E\d+\])?: \S/, weight: 7 }, // rustc, cargo, git, many CLIs
  { re: /(?:^|[\s:(])error TS\d+:/, weight: 7 }, // tsc
  { re: /^\S+:\d+:\d+: (?:fatal )?error: /, weight: 7 }, // gcc/clang
  { re: /^\S+:\d+:\d+ - error \w+:/, weight: 7 }, // tsc --pretty
  { re: /^npm (?:ERR!|error) \S/, weight: 6 },
  { re: /^(?:[\w./-]+: )?fatal: \S/, weight: 6 }, // git
  { re: /^panic: \S/, weight: 7 }, // go
  { re: /^thread '[^']*' panicked at /, weight: 7 }, // rust
  { re: /Segmentation fault|Bus error \(core dumped\)|Aborted \(core dumped\)/, weight: 6 },
  { re: /^(?:[\w./-]+: )+(?:line \d+: )?(?:\d+: )?[^\s:]+: (?:command )?not found$/, weight: 6 },
  { re: /^(?:[\w./-]+: )+.*No such file or directory/, weight: 5 },
  { re: /^(?:[\w./-]+: )?(?:ERROR|FATAL)(?::|\s\[)/, weight: 5 }, // pip, yt-dlp, gpkg
  // A check script's own verdict (`FAILED: still broken: 9 spaces`), indented or not: agents
  // write such scripts to verify a fix, and they exit 0 whatever they find.
  { re: /^\s*(?:FAILED|FAIL):\s+\S/, weight: 5 },
  { re: /^make(?:\[\d+\])?: \*\*\* .*Error \d+/, weight: 4 },
  { re: /^(?:ERROR|FAILED) (?:tests?\/)?\S+\.py\b/, weight: 6 }, // pytest collection error
  { re: /^FAILED \((?:failures|errors)=\d+/, weight: 3 }, // unittest summary
  { re: /^\s*not ok \d+ - /, weight: 5 }, // TAP
  { re: /^FAIL\s+\S+/, weight: 4 }, // jest/go package
  { re: /^Traceback \(most recent call last\):/, weight: 2 },
]

export function signatureWeight(line: string): number {
  let w = 0
  for (const s of SIGNATURES) if (s.weight > w && s.re.test(line)) w = s.weight
  return w
}

/** The error line a Python traceback ends with (the first unindented line after its frames). */
export function tracebackEnds(ls: string[]): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = []
  for (let i = 0; i < ls.length; i++) {
    if (!/^\s*Traceback \(most recent call last\):/.test(ls[i]!)) continue
    const indent = /^\s*/.exec(ls[i]!)![0].length
    let j = i + 1
    while (j < ls.length && (ls[j]!.trim() === '' || /^\s*/.exec(ls[j]!)![0].length > indent || /^\s*\^+\s*$/.test(ls[j]!))) j++
    if (j < ls.length) out.push({ start: i, end: j })
    i = j
  }
  return out
}

/** The last line of output that is the command's own (for a non-zero exit without a signature). */
export function lastOwnLine(output: string): string | undefined {
  const ls = lines(output)
  for (let i = ls.length - 1; i >= 0; i--) {
    const l = ls[i]!.trim()
    if (l && !HARNESS_LINE_RE.test(ls[i]!) && !/^\[(?:no result recorded|raw output: .*)\]$/.test(l)) return clipLine(l)
  }
  return undefined
}
