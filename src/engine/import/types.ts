/**
 * Agent-log import: the shapes every source parser shares. Pure data; no I/O.
 */
import type { MessageFormat } from '../messages/canonical.ts'

export type ImportSource = 'claude-code' | 'codex' | 'gemini-cli' | 'pi' | 'swe-agent'

export const IMPORT_SOURCES: readonly ImportSource[] = ['claude-code', 'codex', 'gemini-cli', 'pi', 'swe-agent']

/** `all`: every message of the log. `current`: what the agent's model saw last (from the latest compaction on). */
export type ImportScope = 'all' | 'current'

export interface ImportOptions {
  /** The agent that wrote the log; detected from the content when absent. */
  source?: ImportSource
  /** Format of the returned messages. Default openai. */
  format?: MessageFormat
  /** Default all. */
  scope?: ImportScope
  /** Called while lines are read: (lines done, lines in all). */
  onProgress?: (done: number, total: number) => void
}

/** A line (or, in a JSON document, an element) that was skipped. */
export interface ImportIssue {
  /** 1-based line of a line-based log (JSONL); null in a JSON document. */
  line: number | null
  /** Where in a JSON document, e.g. `messages[377]`. */
  path?: string
  /** broken: not JSON, or not what its type promises; unknown: valid JSON of a type this importer does not know. */
  kind: 'broken' | 'unknown'
  message: string
}

/** A compaction the agent did, as its log records it. */
export interface ImportedCompaction {
  /**
   * Index in `messages` where it took effect: the agent's summary message is there when
   * the log holds one (`summary` not null); messages before it are what the agent
   * compacted. null when that point is not in the returned messages (scope current:
   * earlier compactions).
   */
  position: number | null
  /** Line of the log that records it (the compact_boundary, compacted or compaction line); null in a JSON document. */
  line: number | null
  path?: string
  /** Claude Code's trigger, when recorded. */
  trigger?: 'auto' | 'manual'
  /** Tokens in the context just before, when the log records them (see docs/api.md#post-import for each source); else null. */
  preTokens: number | null
  /** The summary text the agent wrote, without its harness wrapper; null when the log does not hold it. */
  summary: string | null
  timestamp?: string
}

export interface ImportSession {
  /** The agent's own session id, when the log has one. */
  id?: string
  cwd?: string
  /** The last model the log names. */
  model?: string
  /** Which writer: e.g. `mini-swe-agent` for a swe-agent source. */
  agent?: string
  agentVersion?: string
  startedAt?: string
}

export interface ImportResult {
  source: ImportSource
  /** Whether `source` was detected (true) or given (false). */
  detected: boolean
  format: MessageFormat
  scope: ImportScope
  messages: unknown[]
  /** Anthropic's top-level system prompt, when the output format is anthropic and the log has system messages. */
  system?: unknown
  compactions: ImportedCompaction[]
  /** Broken and unknown lines, skipped (at most MAX_LISTED_ISSUES; the rest are counted in issuesOmitted). */
  issues: ImportIssue[]
  issuesOmitted: number
  /** Tool calls and results that did not pair up, fixed (as POST /compact's onBrokenInput repair). */
  repairs: { line: number | null; path?: string; action: string }[]
  stats: {
    /** Lines of a line-based log (absent for a JSON document). */
    lines?: number
    /** Entries read (lines that parsed as JSON objects, or a document's elements). */
    entries: number
    /** Entries of known types that hold no conversation (metadata, UI events, sidechains). */
    skipped: number
    messages: number
  }
  session: ImportSession
}

export const MAX_LISTED_ISSUES = 200

/** Bad input as a whole (no readable entry, an unknown format, a source that does not match): one line naming the field. */
export class ImportError extends Error {
  override readonly name = 'ImportError'
  constructor(
    /** The offending input: `log`, `source`, `format` or `scope`. */
    readonly field: string,
    message: string,
  ) {
    super(message)
  }
}
