/**
 * What a call that succeeded printed, when that is worth a few tokens on its line: the
 * error signature a reproduction script showed (`printedErrorLine`), or a short output whole
 * (`printedValue`: a version, a count, a hash, a script's one-line report). Read once per
 * call from its output. The summary's action log says both (compaction/action-log.ts),
 * the rolling session summary's `ran` spans the error (sessions/items.ts): both serve terminal sessions that probe their environment and run
 * small scripts (SWE-agent, mini-swe-agent, Codex's shell, pi's bash).
 */
import { clipKeepingPaths } from './text.ts'
import { extractErrorLine, type ToolDigest } from './tools.ts'
import { HARNESS_LINE_RE, lines as outputLines } from './outcome/signatures.ts'
import { redactSecrets } from '../archive/redact.ts'

/**
 * A command that succeeded but printed an error signature (a reproduction script showing
 * the bug's traceback) is not a failure, yet what it printed is the symptom: that line,
 * with any secret in it redacted (printedValue says why); undefined when there is none.
 */
export function printedErrorLine(d: ToolDigest, output: string | undefined): string | undefined {
  if (d.status === 'error' || d.kind !== 'shell' || !output || d.outcome.expected) return undefined
  const line = extractErrorLine(output)
  return line ? redactSecrets(line).text : undefined
}

/** printedErrorLine as the action log says it after the call: ` (printed: …)`, or ''. */
export function printedError(d: ToolDigest, output: string | undefined): string {
  const line = printedErrorLine(d, output)
  return line ? ` (printed: ${clipKeepingPaths(line, 140)})` : ''
}

/** Characters of a short output said whole on its call's line (chosen on the tuning split: docs/quality.md). */
const SHORT_OUTPUT_CHARS = 60

/**
 * What a call that succeeded printed, when that is a line or two: that value is what the
 * agent ran the command for, and it costs a dozen tokens where a longer output costs
 * nothing (it is left to the findings and the archive). Writes and edits print
 * acknowledgements: not said. A secret a command printed whole (`echo $TOKEN`, a one-line
 * `.env`) is redacted as the archive redacts it: the summary is stored with the checkpoint.
 */
export function printedValue(d: ToolDigest, output: string | undefined): string {
  if (!output || d.kind === 'write' || d.kind === 'edit' || d.kind === 'other' || d.status === 'error' || (d.exitCode ?? 0) !== 0) return ''
  if (output.length > SHORT_OUTPUT_CHARS * 4) return ''
  const kept: string[] = []
  for (const raw of outputLines(output)) {
    const line = raw.trim()
    if (!line || HARNESS_LINE_RE.test(line)) continue
    if (kept.length === 2) return ''
    kept.push(line.replace(/\s+/g, ' '))
  }
  const text = kept.join(' · ')
  if (!text || text.length > SHORT_OUTPUT_CHARS) return ''
  return ` → "${redactSecrets(text).text.replace(/"/g, "'")}"`
}
