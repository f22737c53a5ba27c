/**
 * How a tool call ended, from evidence only: the exit code the harness reported, the
 * provider's structured error flag, or a line-anchored error signature in the output.
 * Words like "failed" or "error" somewhere in a help text, a file's content or a
 * success message are not evidence. The readers live in ./outcome/ (signatures, exit
 * codes, failing tests, error lines); this module decides the outcome and is their entry.
 */
import type { ToolKind } from './tool-kind.ts'
import { extractErrorDetail, extractErrorLine } from './outcome/error-line.ts'
import { extractExitCode, jsonError } from './outcome/exit-code.ts'
import { extractFailingTests, type FailingTest } from './outcome/failing-tests.ts'
import { clipLine, lastOwnLine, lines, signatureWeight } from './outcome/signatures.ts'
import { isExpectedCleanupFailure } from './outcome/expected-failure.ts'

export { extractErrorDetail, extractErrorLine, extractExitCode, extractFailingTests, type FailingTest }

export type OutcomeStatus = 'ok' | 'error' | 'unknown'
export type OutcomeEvidence = 'exit-code' | 'is-error' | 'error-signature' | 'none'

export interface Outcome {
  status: OutcomeStatus
  exitCode?: number
  evidence: OutcomeEvidence
  /** The most telling error line. */
  errorLine?: string
  /** Failing tests with their error lines, or a traceback's last frames and error. */
  errorDetail?: string
  failingTests?: FailingTest[]
  /** A cleanup's expected failure (outcome/expected-failure.ts): ended as asked, whatever its exit code. */
  expected?: true
}

export interface OutcomeInput {
  kind: ToolKind
  output: string
  isError?: boolean
  /** The shell command, when known: a pipeline's exit code is its last command's. */
  command?: string
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
 * A cleanup's expected failure (outcome/expected-failure.ts) ended as asked: ok, its exit
 * code kept.
 */
export function outcomeOf(input: OutcomeInput): Outcome {
  const o = evidenceOf(input)
  if (o.status !== 'error' || input.kind !== 'shell' || !input.command || !isExpectedCleanupFailure(input.command, input.output ?? '', o.exitCode)) return o
  return { status: 'ok', evidence: o.evidence, expected: true, ...(o.exitCode !== undefined ? { exitCode: o.exitCode } : {}) }
}

function evidenceOf(input: OutcomeInput): Outcome {
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
