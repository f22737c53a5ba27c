/**
 * A cleanup command's expected failure is not an error (issue 22): `rm` or `ls` of a file
 * that is already gone, `git branch -D` of a branch already deleted, `pkill` with no
 * process to kill, `docker rm` of a missing container, `mkdir` of a directory that exists.
 * The agent asked for a state and the state already held; the "error" says so. Listed
 * under Errors & Resolutions, such lines crowd out the failures that matter.
 *
 * Serves sessions that tidy up after themselves (stop dev servers, delete scratch pages
 * and merged branches, recreate folders), in any agent's shell dialect. Conservative:
 * the output's every error line must be one of these expected complaints, made by a
 * program the command runs; one other error line and the failure stands.
 */
import { HARNESS_LINE_RE, lines, signatureWeight } from './signatures.ts'

interface Expected {
  /** The program (and subcommand) in the command. */
  command: RegExp
  /** Its complaint that what it removes is absent (or what it creates exists). */
  line: RegExp
}

const WORD = '(?:^|[\\s;&|(`])'
const cmd = (s: string) => new RegExp(`${WORD}${s}`)

const EXPECTED: Expected[] = [
  { command: cmd('(?:rm|unlink)\\s'), line: /^(?:rm|unlink): cannot (?:remove|unlink) .*: No such file or directory$/ },
  { command: cmd('rmdir\\s'), line: /^rmdir: failed to remove .*: No such file or directory$/ },
  { command: cmd('ls\\b'), line: /^ls: cannot access .*: No such file or directory$/ },
  { command: cmd('mkdir\\s'), line: /^mkdir: cannot create directory .*: File exists$/ },
  { command: /\bgit\s+(?:-C\s+\S+\s+)?branch\s+(?:-[dD]|--delete)\b/, line: /^error: branch '[^']+' not found\.?$/ },
  { command: /\bgit\s+(?:-C\s+\S+\s+)?push\s+\S+\s+(?:--delete\s|:)/, line: /^error: unable to delete '[^']+': remote ref does not exist$/ },
  { command: /\bgit\s+(?:-C\s+\S+\s+)?worktree\s+remove\b/, line: /^fatal: '[^']+' is not a working tree$/ },
  { command: /\bgit\s+(?:-C\s+\S+\s+)?stash\s+(?:drop|clear)\b/, line: /^No stash entries found\.?$/ },
  { command: /\bgit\s+(?:-C\s+\S+\s+)?remote\s+(?:remove|rm)\b/, line: /^error: No such remote:? /i },
  { command: /\bdocker\s+(?:container\s+)?(?:rm|stop|kill)\b/, line: /^Error(?: response from daemon)?: No such container: \S+$/i },
  { command: /\bdocker\s+(?:image\s+rm|rmi)\b/, line: /^Error(?: response from daemon)?: No such image: \S+$/i },
  { command: /\bdocker\s+(?:network|volume)\s+rm\b/, line: /^Error(?: response from daemon)?: (?:No such (?:network|volume): \S+|(?:network|volume) \S+ not found)$/i },
  { command: cmd('kill\\s'), line: /^(?:\S+: )?(?:line \d+: )?kill: (?:\(\d+\) - |\d+: )?No such process$/ },
  { command: cmd('(?:pkill|killall)\\s'), line: /^\S+: no process found$/ },
]

/** Commands whose only way to say "nothing to do" is exit 1 with no output. */
const SILENT_NOTHING_TO_DO = /(?:^|[\s;&|(])(?:pkill|pgrep|killall)\s/

/** What a line looks like when it reports an error: an error signature, or an expected complaint. */
function isErrorLine(line: string): boolean {
  return signatureWeight(line) > 2 || EXPECTED.some((e) => e.line.test(line))
}

/**
 * Whether a shell command's failure is the expected one of a cleanup: every error line
 * of its output is the complaint of a program the command runs that what it removes is
 * already gone (or what it creates exists); or, with no output at all, the command runs
 * `pkill`/`killall`/`pgrep`, which fail silently when there is nothing to stop.
 */
export function isExpectedCleanupFailure(command: string, output: string, exitCode?: number): boolean {
  const unquoted = command.replace(/'[^']*'|"(?:[^"\\]|\\.)*"/g, '""')
  const own = lines(output)
    .map((l) => l.trim())
    .filter((l) => l && !HARNESS_LINE_RE.test(l))
  const errors = own.filter(isErrorLine)
  if (errors.length === 0) return own.length === 0 && exitCode !== undefined && exitCode !== 0 && SILENT_NOTHING_TO_DO.test(unquoted)
  return errors.every((line) => EXPECTED.some((e) => e.line.test(line) && e.command.test(unquoted)))
}
