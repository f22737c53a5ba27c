/**
 * The exit code the harness reported for a call, and the error a JSON result carries:
 * each agent writes them its own way (Codex, pi, Claude Code, Gemini CLI, mini-swe-agent).
 */
import { ANSI_RE } from './signatures.ts'

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
export function jsonError(output: string): string | undefined {
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
