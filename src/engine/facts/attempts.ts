/**
 * Rejected attempts, with their reason and evidence (issue 22): a change the session made
 * and then gave up, read from what happened rather than from what the agent said:
 *
 *   - undone: an edit a later `git checkout`/`git restore` (or an exact swap-back, which the
 *     artifact tracker marks `reverted`) put back;
 *   - superseded: a change followed by a failing run (a test, a build, a script), after which
 *     the agent changed the same file again: the first try is what that failure rejected.
 *
 * The evidence is the failing run right after the change (its command and error line);
 * the reason, when the agent stated one between the failure and the next change, is its
 * own sentence ("that broke test_x because…", "…instead"). A change that a passing run
 * followed, or one nothing judged, is not an attempt: it stands.
 *
 * Conversation class served: a fix that breaks another test and is reverted or redone (the
 * common edit → test → fail → edit loop of coding agents), where the next agent must not
 * try the same change again.
 */
import type { ConversationEvent } from './events.ts'
import { restoredBy, type FileChange, type FileFate } from './artifacts.ts'
import { isProjectFile } from './project-files.ts'
import { conclusionsOf, isMusing, NO_EFFECT } from './reasoning.ts'
import { clip, clipKeepingPaths, commandIdentity, splitSentences } from './text.ts'
import type { ToolDigest } from './tools.ts'

export interface RejectedAttempt {
  /** The file the attempt changed. */
  path: string
  /** What the attempt did to it: its edits' notes ("replaced `a` with `b`"), or "edited". */
  change: string
  /** How it was given up: undone (by what) or changed again. */
  outcome: string
  /** The failing run that followed it: command and error line. */
  evidence?: { command: string; errorLine: string; stillFailing: boolean }
  /** The agent's own reason, when it gave one. */
  reason?: string
  position: number
}

interface Failure {
  command: string
  errorLine: string
  stillFailing: boolean
  position: number
}

/** At most this many attempts are kept: the latest, as the earliest matter least to what comes next. */
const MAX_ATTEMPTS = 8
const NO_BACKUPS: ReadonlyMap<string, number> = new Map()
/** A command that checks something (a test, a build, a script): not a read or a search. */
const isRun = (d: ToolDigest) => d.kind === 'shell' && d.value !== 'read' && d.value !== 'search'
const REASON_RE = new RegExp(String.raw`\b(because|since|instead|broke|breaks|didn'?t work|does(?:n'?t| not) work|${NO_EFFECT}|caused|so (?:I|we)(?:'ll| will)|rather than)\b`, 'i')

/** What an attempt did: its replacements as `old` → `new` (the new text is what was tried), else its edits' notes. */
function describe(edits: readonly FileChange[]): string {
  const what = edits.flatMap((e) => (e.replace ? [`\`${clip(e.replace.old, 30)}\` → \`${clip(e.replace.new, 70)}\``] : e.note && !/^(?:reverted by|copied from)\b/.test(e.note) ? [e.note] : []))
  const symbols = [...new Set(edits.flatMap((e) => e.symbols ?? []))]
  const parts = [...(symbols.length ? [`in ${symbols.slice(0, 4).join(', ')}`] : []), ...[...new Set(what)].slice(-2)]
  return parts.length ? parts.join('; ') : 'edited'
}

/**
 * The agent's stated reason between `from` and `to` (positions): an attempt it called
 * abandoned, else a sentence giving a reason ("…because…", "…instead"), else, after a
 * failure, the root cause it named. A root cause stated before any failure describes the
 * problem, not why the attempt was dropped.
 */
function statedReason(assistant: readonly { position: number; text: string }[], from: number, to: number, afterFailure: boolean): string | undefined {
  const window = assistant.filter((a) => a.position >= from && a.position < to)
  const conclusions = window.flatMap((a) => conclusionsOf(a.text, true))
  const abandoned = conclusions.find((x) => x.kind === 'abandoned')
  if (abandoned) return abandoned.text
  for (const a of window) {
    // The attempt itself is concrete: its reason need not name code again.
    const s = splitSentences(a.text, 20, 400).find((x) => REASON_RE.test(x) && !isMusing(x))
    if (s) return s
  }
  return afterFailure ? conclusions.find((x) => x.kind === 'root-cause')?.text : undefined
}

/**
 * The rejected attempts of a range, oldest first. `tools` are the range's tool digests in
 * order; `events` its classified events (for the agent's stated reasons); `files` the
 * range's file fates. Only changes to project files that existed before the session count:
 * a file the session created (a new test, a repro script) is being written, not fixed, and
 * its rewrites are not attempts.
 */
export function rejectedAttempts(tools: readonly { position: number; digest: ToolDigest }[], events: readonly ConversationEvent[], files: readonly FileFate[]): RejectedAttempt[] {
  const fixed = files.filter((f) => (f.fate === 'edited' || f.fate === 'renamed') && isProjectFile(f)).map((f) => f.path)
  // The same file spelled relative and absolute is one file (as in foldFileFates).
  const fileOf = (path: string) => fixed.find((p) => p === path) ?? fixed.find((p) => p.endsWith(`/${path}`) || path.endsWith(`/${p}`))
  const assistant = events.flatMap((e) => (e.kind === 'assistant' && !e.reasoning ? [{ position: e.position, text: e.text }] : []))
  const out: RejectedAttempt[] = []
  /** Per file: the edits of the attempt in progress (since it was last judged or undone). */
  const edits = new Map<string, (FileChange & { position: number })[]>()
  /** Per file: the failing run that followed its attempt. */
  const judged = new Map<string, Failure>()
  /** Files changed since the last run. */
  const sinceRun = new Set<string>()
  /** Each command's last error line, to tell a run that still fails from one a change broke. */
  const lastError = new Map<string, string>()
  const reject = (path: string, outcome: string, position: number) => {
    const attempt = edits.get(path) ?? []
    const failure = judged.get(path)
    if (attempt.length === 0) return
    // From the failure that judged it (or its last edit) to the next run or user message after its
    // rejection: what the agent said about this attempt, before or right after giving it up
    // ("I reverted it because…", often after the next edit).
    const until = Math.min(
      tools.find((t) => t.position > position && isRun(t.digest))?.position ?? Infinity,
      events.find((e) => e.kind === 'instruction' && e.position > position)?.position ?? Infinity,
    )
    const reason = statedReason(assistant, failure?.position ?? attempt.at(-1)!.position, until, failure !== undefined)
    out.push({
      path,
      change: describe(attempt),
      outcome,
      position,
      ...(failure ? { evidence: { command: failure.command, errorLine: failure.errorLine, stillFailing: failure.stillFailing } } : {}),
      ...(reason ? { reason } : {}),
    })
  }
  for (const { position, digest: d } of tools) {
    const real = d.changes.flatMap((c) => {
      const path = c.op !== 'read' ? fileOf(c.path) : undefined
      return path ? [{ ...c, path }] : []
    })
    if (d.status !== 'error' || d.kind === 'shell') {
      for (const c of real) {
        // Any backup copy counts here: an attempt is what was changed since the last judgement, and the copy puts it back.
        const restore = restoredBy(c, c.path, undefined, NO_BACKUPS)
        if (restore) {
          if (edits.get(c.path)?.length) reject(c.path, `undone by ${restore}`, position)
          edits.delete(c.path)
          judged.delete(c.path)
          sinceRun.delete(c.path)
          continue
        }
        // An exact swap-back of one of the attempt's replacements undoes it (the tracker marks the file `reverted`).
        const swapsBack = c.replace !== undefined && (edits.get(c.path) ?? []).some((e) => e.replace?.old === c.replace!.new && e.replace?.new === c.replace!.old)
        if (swapsBack || judged.has(c.path)) {
          reject(c.path, swapsBack ? 'undone' : 'changed again', position)
          edits.delete(c.path)
          judged.delete(c.path)
          if (swapsBack) {
            sinceRun.delete(c.path)
            continue
          }
        }
        edits.set(c.path, [...(edits.get(c.path) ?? []), { ...c, position }])
        sinceRun.add(c.path)
      }
    }
    // A run judges the changes made since the one before: reads and searches judge nothing.
    if (real.length > 0 || !isRun(d)) continue
    const command = commandIdentity(d.target ?? '')
    if (d.status === 'error' && d.errorLine) {
      const stillFailing = lastError.get(command) === d.errorLine
      for (const p of sinceRun) judged.set(p, { command, errorLine: d.errorLine, stillFailing, position })
      lastError.set(command, d.errorLine)
    } else if (d.status !== 'error') {
      for (const p of sinceRun) judged.delete(p)
      lastError.delete(command)
    }
    sinceRun.clear()
  }
  return out.slice(-MAX_ATTEMPTS)
}

/**
 * Summary lines for the attempts, one per file (an agent retrying one fix three times is one
 * story): the latest attempt's change, the distinct failures that rejected its attempts, how
 * the last was given up, and the latest reason the agent gave.
 */
export function attemptLines(attempts: readonly RejectedAttempt[], max = { change: 110, command: 50, error: 100, reason: 120 }): string[] {
  const byPath = new Map<string, RejectedAttempt[]>()
  for (const a of attempts) byPath.set(a.path, [...(byPath.get(a.path) ?? []), a])
  return [...byPath.entries()].map(([path, list]) => {
    const last = list.at(-1)!
    const failures = new Map<string, { text: string; times: number }>()
    for (const a of list) {
      if (!a.evidence) continue
      const key = `${commandShape(a.evidence.command)}|${a.evidence.errorLine}`
      const seen = failures.get(key)
      if (seen) seen.times++
      else failures.set(key, { text: `\`${clipKeepingPaths(a.evidence.command, max.command)}\` failed: ${clipKeepingPaths(a.evidence.errorLine, max.error)}`, times: 1 })
    }
    // The latest failure only: the line competes for room with the failures and files themselves.
    const evidence = [...failures.values()].slice(-1).map((f) => `${f.text}${f.times > 1 ? ` (×${f.times})` : ''}`).join('; ')
    const reason = list.map((a) => a.reason).findLast((r) => r !== undefined)
    const count = list.length > 1 ? `${list.length} attempts, the last ` : ''
    return `- Rejected: ${path} — ${count}${clipKeepingPaths(last.change, max.change)}${evidence ? `; then ${evidence}` : ''}; ${last.outcome}${reason ? `; reason given: ${clip(reason, max.reason)}` : ''}`
  })
}

/** A command's first words: reruns of one check through different wrappers are one check. */
function commandShape(command: string): string {
  return command.replace(/\s+/g, ' ').slice(0, 40)
}
