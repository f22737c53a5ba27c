/**
 * How a tool call ended, from evidence only: the exit code the harness reported, the
 * provider's structured error flag, or a line-anchored error signature in the output.
 * Words like "failed" or "error" somewhere in a help text, a file's content or a
 * success message are not evidence.
 */
import type { ToolKind } from './tool-kind.ts'

export type OutcomeStatus = 'ok' | 'error' | 'unknown'
export type OutcomeEvidence = 'exit-code' | 'is-error' | 'error-signature' | 'none'

export interface FailingTest {
  name: string
  error?: string
}

export interface Outcome {
  status: OutcomeStatus
  exitCode?: number
  evidence: OutcomeEvidence
  /** The most telling error line. */
  errorLine?: string
  /** Failing tests with their error lines, or a traceback's last frames and error. */
  errorDetail?: string
  failingTests?: FailingTest[]
}

export interface OutcomeInput {
  kind: ToolKind
  output: string
  isError?: boolean
  /** The shell command, when known: a pipeline's exit code is its last command's. */
  command?: string
}

const ANSI_RE = /\x1b\[[0-9;?]*[A-Za-z]/g

function lines(output: string): string[] {
  return output.replace(ANSI_RE, '').replace(/\r\n?/g, '\n').replace(/<\/?output>/g, '').split('\n')
}

function clipLine(s: string, max = 300): string {
  const one = s.replace(/\s+/g, ' ').trim()
  return one.length > max ? `${one.slice(0, max - 1)}…` : one
}

// ───────────────────────────── exit codes ─────────────────────────────

/** Harness lines that report the exit code, each on its own line. */
const EXIT_LINE_RES: RegExp[] = [
  // Codex exec ("Process exited with code 2"), pi ("Command exited with code 1").
  /^\s*(?:Process|Command) exited with (?:exit )?code:? (-?\d+)\b/im,
  // Claude Code ("Exit code 1", "Error: Exit code 1"), Codex ("Exit code: 0"), Gemini CLI ("Exit Code: 1").
  /^\s*(?:Error: )?Exit code:? (-?\d+)\s*$/im,
]

function exitFromJson(output: string): number | undefined {
  const s = output.trim()
  if (!s.startsWith('{')) return undefined
  const pick = (o: unknown): number | undefined => {
    if (!o || typeof o !== 'object') return undefined
    const r = o as Record<string, unknown>
    for (const k of ['exit_code', 'exitCode', 'returncode', 'return_code']) if (typeof r[k] === 'number') return r[k] as number
    return pick(r.metadata)
  }
  try {
    return pick(JSON.parse(s))
  } catch {
    // A truncated JSON result: its metadata block, if any.
    const m = /"metadata"\s*:\s*\{[^{}]*"(?:exit_code|exitCode)"\s*:\s*(-?\d+)/.exec(s) ?? /^\{\s*"(?:exit_code|exitCode)"\s*:\s*(-?\d+)/.exec(s)
    return m ? Number(m[1]) : undefined
  }
}

/**
 * The exit code the harness reported: `<returncode>N</returncode>` (mini-swe-agent),
 * an "Exit code N" / "Process exited with code N" line, or `exit_code` in JSON
 * metadata. Never a line of the command's own output or of a script body.
 */
export function extractExitCode(output: string): number | undefined {
  if (!output) return undefined
  const rc = /<returncode>\s*(-?\d+)\s*<\/returncode>/i.exec(output)
  if (rc) return Number(rc[1])
  const json = exitFromJson(output)
  if (json !== undefined) return json
  const clean = output.replace(ANSI_RE, '')
  for (const re of EXIT_LINE_RES) {
    const m = re.exec(clean)
    if (m) return Number(m[1])
  }
  return undefined
}

/** A JSON result with a top-level error (Gemini CLI's functionResponse `{"error": …}`). */
function jsonError(output: string): string | undefined {
  const s = output.trim()
  if (!s.startsWith('{') || !s.endsWith('}')) return undefined
  try {
    const v = JSON.parse(s) as Record<string, unknown>
    const e = v.error
    if (typeof e === 'string' && e.trim()) return e.trim()
    if (e && typeof e === 'object' && typeof (e as { message?: unknown }).message === 'string') return (e as { message: string }).message
  } catch {
    /* not JSON */
  }
  return undefined
}

// ───────────────────────────── error signatures ─────────────────────────────

/** Harness lines that are not the command's output. */
const HARNESS_LINE_RE = /^\s*(?:(?:Process|Command) exited with|(?:Error: )?Exit code:?\s|Exit Code:|Chunk ID:|Wall time:|Original token count:|Process Group PGID:|Signal:|Background PIDs:|Directory:|<\/?returncode>|<\/?output>)|^\s*Output:\s*$|^\s*Error: \(none\)\s*$/i

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
  { re: /^make(?:\[\d+\])?: \*\*\* .*Error \d+/, weight: 4 },
  { re: /^(?:ERROR|FAILED) (?:tests?\/)?\S+\.py\b/, weight: 6 }, // pytest collection error
  { re: /^FAILED \((?:failures|errors)=\d+/, weight: 3 }, // unittest summary
  { re: /^\s*not ok \d+ - /, weight: 5 }, // TAP
  { re: /^FAIL\s+\S+/, weight: 4 }, // jest/go package
  { re: /^Traceback \(most recent call last\):/, weight: 2 },
]

function signatureWeight(line: string): number {
  let w = 0
  for (const s of SIGNATURES) if (s.weight > w && s.re.test(line)) w = s.weight
  return w
}

/** The error line a Python traceback ends with (the first unindented line after its frames). */
function tracebackEnds(ls: string[]): { start: number; end: number }[] {
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

/** Failing tests with their error lines (pytest, unittest, go test, jest, cargo, TAP). */
export function extractFailingTests(output: string): { name: string; error?: string }[] {
  const ls = lines(output)
  const tests = new Map<string, string | undefined>()
  const add = (name: string, error?: string) => {
    const e = error?.trim() ? clipLine(error, 300) : undefined
    if (!tests.has(name) || (e && !tests.get(name))) tests.set(name, e)
  }
  // pytest: the short summary names the test and its error; the FAILURES section has `E` lines.
  const pytestSections = new Map<string, string>()
  let section: string | undefined
  for (const l of ls) {
    const h = /^_{3,} (?:ERROR at \w+ of )?(\S+(?: \S+)?) _{3,}$/.exec(l)
    if (h) {
      section = h[1]!
      continue
    }
    if (section && /^E\s+\S/.test(l)) {
      const e = l.replace(/^E\s+/, '')
      const cur = pytestSections.get(section)
      // The typed error line beats an assertion's expression.
      if (!cur || signatureWeight(e) >= signatureWeight(cur)) pytestSections.set(section, e)
    }
  }
  for (const l of ls) {
    const m = /^(FAILED|ERROR) (\S+::\S+?)(?: - (.*))?$/.exec(l)
    if (m) {
      const short = m[2]!.split('::').pop()!.replace(/\[.*$/, '')
      const section = [...pytestSections.entries()].find(([k]) => k === short || k.endsWith(`.${short}`) || k.startsWith(`${short}[`) || k.endsWith(short))
      add(m[2]!, m[3] ?? section?.[1])
    }
  }
  // unittest: "ERROR: test_x (pkg.tests.Case)" then a traceback.
  const ends = tracebackEnds(ls)
  for (let i = 0; i < ls.length; i++) {
    const m = /^(?:ERROR|FAIL): (test\w*) \(([\w.]+)\)/.exec(ls[i]!)
    if (!m) continue
    const tb = ends.find((e) => e.start > i)
    const next = ls.findIndex((l, k) => k > i && /^(?:ERROR|FAIL): test\w* \(/.test(l))
    const stop = next < 0 ? ls.length : next
    // The traceback's last line; without a traceback (a condensed report), the next typed error line.
    const error =
      tb && tb.start < stop
        ? ls[tb.end]
        : ls.slice(i + 1, Math.min(stop, i + 12)).find((l) => signatureWeight(l) >= 5 && signatureWeight(l) < 8 && !/^FAILED \(/.test(l))
    // Python 3.11+ prints the full name in the parentheses: "test_x (pkg.Case.test_x)".
    add(m[2]!.endsWith(`.${m[1]}`) ? m[2]! : `${m[2]}.${m[1]}`, error)
  }
  // go test: "--- FAIL: TestX (0.00s)" followed by indented "file_test.go:12: message".
  for (let i = 0; i < ls.length; i++) {
    const m = /^\s*--- FAIL: (\S+)/.exec(ls[i]!)
    if (m) add(m[1]!, /^\s+\S+\.go:\d+: (.*)$/.exec(ls[i + 1] ?? '')?.[1])
  }
  // jest/vitest: "● Suite › name" then the message; "✕ name" without detail.
  for (let i = 0; i < ls.length; i++) {
    const m = /^\s*● (.+ › .+)$/.exec(ls[i]!)
    if (m) {
      const msg = ls.slice(i + 1, i + 8).find((l) => l.trim() && !/^\s*$/.test(l))
      add(m[1]!.trim(), msg?.trim())
    }
  }
  if (tests.size === 0) {
    for (let i = 0; i < ls.length; i++) {
      const m = /^\s*[✕×✗] (.+?)(?: \(\d+ ?m?s\))?$/.exec(ls[i]!)
      if (m) add(m[1]!.trim(), ls.slice(i + 1, i + 4).find((l) => /\S/.test(l) && !/^\s*[✓✕×✗]/.test(l))?.trim())
    }
  }
  // cargo test: "test tests::x ... FAILED" and "thread 'tests::x' panicked at …:\nmessage".
  for (let i = 0; i < ls.length; i++) {
    const m = /^test (\S+) \.\.\. FAILED$/.exec(ls[i]!)
    if (!m) continue
    const p = ls.findIndex((l) => l.startsWith(`thread '${m[1]}' panicked at`))
    add(m[1]!, p >= 0 ? (ls[p + 1]?.trim() || ls[p]) : undefined)
  }
  // TAP: "not ok 3 - name".
  for (const l of ls) {
    const m = /^\s*not ok \d+ - (.+?)(?:\s+#.*)?$/.exec(l)
    if (m && !/^test\/.*\.(?:t|j)s$/.test(m[1]!)) add(m[1]!)
  }
  return [...tests.entries()].slice(0, 50).map(([name, error]) => (error ? { name, error } : { name }))
}

/**
 * The most telling error line, from signatures only: a failing test with its error, the
 * line a traceback ends with, a typed error (`ValueError: …`, `error[E0308]: …`,
 * `npm ERR!`, `fatal:`). Undefined when the output shows none.
 */
export function extractErrorLine(output: string): string | undefined {
  if (!output) return undefined
  const failing = extractFailingTests(output)
  const first = failing.find((f) => f.error) ?? failing[0]
  if (first && /::|\./.test(first.name) && first.error) return clipLine(`FAILED ${first.name} - ${first.error}`)
  const ls = lines(output)
  const tb = tracebackEnds(ls).at(-1)
  if (tb) return clipLine(ls[tb.end]!)
  let best: string | undefined
  let bestWeight = 0
  for (const raw of ls) {
    if (raw.length > 2000 || HARNESS_LINE_RE.test(raw)) continue
    const w = signatureWeight(raw)
    if (w > 2 && w >= bestWeight) {
      // The last of equally telling lines: a chain of errors ends with the cause that matters.
      // The first, though, for compiler errors (later ones often follow from it).
      if (w === bestWeight && /^error|error TS\d+|: error: /.test(best ?? '')) continue
      best = raw
      bestWeight = w
    }
  }
  if (best) return clipLine(best)
  if (first) return clipLine(first.error ? `${first.name} - ${first.error}` : `FAILED ${first.name}`)
  return undefined
}

/**
 * The detail preserveErrorDetails keeps: for failing tests, each test's name with its
 * error line; for a traceback, its last frames and the error; else the lines from the
 * error line on.
 */
export function extractErrorDetail(output: string, errorLine: string | undefined, maxChars = 1200): string | undefined {
  if (!errorLine) return undefined
  const failing = extractFailingTests(output)
  let text: string
  if (failing.length > 0) {
    text = failing.map((f) => `FAILED ${f.name}${f.error ? ` - ${f.error}` : ''}`).join('\n')
  } else {
    const ls = lines(output)
    const tb = tracebackEnds(ls).at(-1)
    let block: string[]
    if (tb) {
      // The last frames and the error: the useful end of a traceback.
      block = [ls[tb.start]!, ...ls.slice(Math.max(tb.start + 1, tb.end - 6), tb.end + 1)]
    } else {
      const want = errorLine.replace(/…$/, '')
      const at = ls.findIndex((l) => clipLine(l).startsWith(want))
      // Several errors of the same kind (each missing path, each compiler error): all of them,
      // not the one chosen and whatever output follows it.
      const weight = at >= 0 ? signatureWeight(ls[at]!) : 0
      const alike = weight > 2 ? ls.filter((l) => l.length <= 2000 && !HARNESS_LINE_RE.test(l) && signatureWeight(l) === weight) : []
      if (alike.length > 1) block = alike.slice(0, 8)
      else block = at >= 0 ? ls.slice(at, at + 4).filter((l) => !HARNESS_LINE_RE.test(l)) : [errorLine]
    }
    text = block.map((l) => l.trimEnd()).filter(Boolean).join('\n')
  }
  return text.length > maxChars ? `${text.slice(0, maxChars / 2)}\n…\n${text.slice(-maxChars / 2)}` : text
}

/** The last line of output that is the command's own (for a non-zero exit without a signature). */
function lastOwnLine(output: string): string | undefined {
  const ls = lines(output)
  for (let i = ls.length - 1; i >= 0; i--) {
    const l = ls[i]!.trim()
    if (l && !HARNESS_LINE_RE.test(ls[i]!) && !/^\[(?:no result recorded|raw output: .*)\]$/.test(l)) return clipLine(l)
  }
  return undefined
}

/** `a | b`: the pipeline's exit code is b's, so a's failure shows only in its output. */
function isPipeline(command: string | undefined): boolean {
  if (!command) return false
  const unquoted = command.replace(/'[^']*'|"(?:[^"\\]|\\.)*"/g, '""')
  return /[^|]\|[^|]/.test(unquoted)
}

/** The last command of the pipeline answers "no match" or "differs" with exit 1. */
function quietExitOne(command: string | undefined): boolean {
  if (!command) return false
  const unquoted = command.replace(/'[^']*'|"(?:[^"\\]|\\.)*"/g, '""')
  const last = unquoted.split(/\|\||&&|;|\n|\|/).map((s) => s.trim()).filter(Boolean).at(-1) ?? ''
  return /^(?:grep|egrep|fgrep|rg|ag|ack|git grep|diff|cmp|git diff --(?:quiet|exit-code))\b/.test(last)
}

/** Strong signatures: a traceback's end, a failing test, a panic. Enough to overrule a pipeline's exit 0. */
function isStrong(line: string | undefined, failing: FailingTest[]): boolean {
  return failing.length > 0 || (line !== undefined && signatureWeight(line) >= 7)
}

/**
 * How a tool call ended. Evidence, in order: the exit code the harness reported; the
 * provider's error flag (or a JSON `{"error": …}` result); an error signature in the
 * output of a command (never in what a read or search returned, nor in a success message).
 */
export function outcomeOf(input: OutcomeInput): Outcome {
  const output = input.output ?? ''
  // What a read or search returned is content, not a harness report.
  const exitCode = input.kind === 'read' || input.kind === 'search' ? undefined : extractExitCode(output)
  const withDetail = (o: Outcome): Outcome => {
    if (o.status !== 'error' && !o.errorLine) return o
    const failing = extractFailingTests(output)
    if (failing.length > 0) o.failingTests = failing
    if (o.errorLine) {
      const detail = extractErrorDetail(output, o.errorLine)
      if (detail) o.errorDetail = detail
    }
    return o
  }
  const signatureLine = (): string | undefined => extractErrorLine(output)

  if (exitCode !== undefined) {
    // grep/rg/diff exit 1 means "no match" / "differs", not a failure.
    if (exitCode === 1 && quietExitOne(input.command) && !signatureLine()) return { status: 'ok', exitCode, evidence: 'exit-code' }
    if (exitCode !== 0) {
      return withDetail({ status: 'error', exitCode, evidence: 'exit-code', errorLine: signatureLine() ?? lastOwnLine(output) ?? `exit code ${exitCode}` })
    }
    const line = signatureLine()
    // `python repro.py | tail`: exit 0 is tail's; a traceback in the output is python's failure.
    if (line && isPipeline(input.command) && isStrong(line, extractFailingTests(output))) {
      return withDetail({ status: 'error', exitCode, evidence: 'error-signature', errorLine: line })
    }
    return { status: 'ok', exitCode, evidence: 'exit-code' }
  }
  if (input.isError) {
    const line = signatureLine() ?? jsonError(output) ?? lastOwnLine(output)
    return withDetail({ status: 'error', evidence: 'is-error', ...(line ? { errorLine: clipLine(line) } : {}) })
  }
  const je = jsonError(output)
  if (je) return withDetail({ status: 'error', evidence: 'is-error', errorLine: clipLine(je) })
  if (!output.trim() || /^\[no result recorded\]$/.test(output.trim())) return { status: 'unknown', evidence: 'none' }
  switch (input.kind) {
    case 'shell': {
      const line = signatureLine()
      return line ? withDetail({ status: 'error', evidence: 'error-signature', errorLine: line }) : { status: 'ok', evidence: 'none' }
    }
    case 'write':
    case 'edit':
    case 'other': {
      // A tool's own error message is its first line ("Error: old_string not found").
      const head = lines(output).find((l) => l.trim())?.trim() ?? ''
      if (signatureWeight(head) >= 5 || /^(?:Error|ERROR)\b[:!]/.test(head)) return withDetail({ status: 'error', evidence: 'error-signature', errorLine: clipLine(head) })
      return { status: 'ok', evidence: 'none' }
    }
    default:
      // What a read or search returned is content: any "error" in it is the file's.
      return { status: 'ok', evidence: 'none' }
  }
}
