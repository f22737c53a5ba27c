/**
 * Counting harness lines in a compaction's output (issue 22, "no harness lines"): the
 * lines of the harness texts a generated conversation injected (reminders, notifications,
 * environment blocks, interrupts, a bare "continue"…) that reappear anywhere in the
 * output, the summary included. Measured on the output as a reader sees it (text parts,
 * tool results, decoded tool arguments), so it is the same count in every format.
 */
import type { CanonicalMessage } from '../../src/engine/messages/canonical.ts'
import { displayText } from '../eval/probes/core.ts'

/** The non-blank lines of `injected`, trimmed. */
function injectedLines(injected: readonly string[]): Set<string> {
  const out = new Set<string>()
  for (const text of injected) for (const line of text.split('\n')) if (line.trim()) out.add(line.trim())
  return out
}

/**
 * How many lines of `output` are lines of the `injected` harness texts. With `input`, the
 * head the output kept as it was (its leading messages, the same objects as the input's:
 * the system prompt and the task message, the caller's own framing) is not counted.
 */
export function harnessLinesIn(output: readonly CanonicalMessage[], injected: readonly string[], input?: readonly CanonicalMessage[]): number {
  const lines = injectedLines(injected)
  let head = 0
  if (input) while (head < output.length && output[head] === input[head]) head++
  let n = 0
  for (const m of output.slice(head)) for (const line of displayText(m).split('\n')) if (lines.has(line.trim())) n++
  return n
}
