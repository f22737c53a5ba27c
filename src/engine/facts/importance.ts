/**
 * The one importance scale every step ranks by: the summary's sections, the action
 * log, and the rolling session summary. Higher survives longer when a budget is tight.
 * Order (the brief's list): the task and the user's instructions; failures and the
 * files changed; root cause; what is pending; decisions and abandoned attempts; then
 * tests and commands that passed; reads, searches and mere mentions last.
 */
import { isProjectPath } from './project-files.ts'
import type { ToolDigest } from './tools.ts'

export const IMPORTANCE = {
  task: 100,
  instruction: 90,
  /** The user's requests an earlier summary lists: just below this range's own instructions. */
  earlierRequest: 89,
  state: 85,
  /** The current state's last file change and last command, just below what is being worked on. */
  lastChange: 84,
  lastCommand: 83,
  /**
   * The agent's answer to a review, analysis or research request (deliverable.ts): the work
   * product itself, kept before the failures and files (its room is capped by a share of
   * the summary, so it cannot crowd them out).
   */
  deliverable: 81,
  failure: 80,
  change: 78,
  /**
   * Where the repository stands (repo-state.ts): commits with their hash, pushes, pull
   * requests and the branch checked out, just below the files changed (they say what was
   * published of those changes); its details (a fast-forward, the last diff, status or log
   * read) rank with the error details below.
   */
  repoState: 76,
  repoDetail: 50,
  resolvedFailure: 74,
  rootCause: 75,
  pending: 72,
  /**
   * A change given up after a failing run or undone, with that evidence (attempts.ts): what
   * the next agent must not try again, just below the pending work.
   */
  rejectedAttempt: 71,
  /** The agent's stated next step: just above the pending plan items. */
  nextStep: 73,
  /** Plan items already completed: context for the pending ones, ranked with decisions. */
  planDone: 64,
  /**
   * An earlier compaction summary's files, errors, decisions, state and pending work: each
   * line stands for many messages that are gone, so it ranks above this range's file
   * changes and below its unresolved failures (its user requests rank as instructions).
   */
  earlierState: 79,
  /** An earlier summary's background; the levels just below rank its parts. */
  earlier: 70,
  /** An earlier summary's knowledge (and, in the rolling summary, its done steps and actions). */
  earlierBackground: 66,
  /** An earlier summary's sections no field maps (their titles kept). */
  earlierOther: 64,
  /** The steps an earlier summary marked done, and the action log lines of an earlier compactd round. */
  earlierDone: 60,
  earlierActionLog: 60,
  decision: 66,
  /**
   * A request before the one in progress, with its outcome (requests.ts), when the first
   * message did not set the work: just above the decisions.
   */
  requestOutcome: 67,
  /**
   * A finding (what the agent learned: facts/findings/) within its share of the summary:
   * just below pending work, above decisions. Findings past the share overflow into the
   * action log just above tests and commands (loggedFinding).
   */
  keyFinding: 70,
  loggedFinding: 44,
  report: 79,
  abandoned: 62,
  errorDetail: 55,
  scratchChange: 45,
  test: 42,
  command: 32,
  /**
   * Conclusions in the action log: a root cause just above plain commands, a decision or
   * an abandoned attempt just below reads. The sections already carry the latest ones,
   * and a log full of prose would crowd out what was done.
   */
  loggedRootCause: 40,
  loggedDecision: 17,
  conclusion: 28,
  finding: 12,
  read: 18,
  search: 14,
  mention: 8,
} as const


/** Rank of one tool call's digest (its value class, from evidence: facts/tools.ts). */
export function importanceOfDigest(d: ToolDigest): number {
  switch (d.value) {
    case 'failure':
      return IMPORTANCE.failure
    case 'change':
      return d.files.length > 0 && !d.files.some(isProjectPath) ? IMPORTANCE.scratchChange : IMPORTANCE.change
    case 'test':
      return IMPORTANCE.test
    case 'read':
      return IMPORTANCE.read
    case 'search':
      return IMPORTANCE.search
    default:
      return IMPORTANCE.command
  }
}
