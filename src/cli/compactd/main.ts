/**
 * The `compactd` command's dispatcher: estimate, compact and import against a server or
 * in-process, the Claude Code hooks, and the MCP server of the recall tools. Every failure
 * is one line on stderr and a non-zero exit: 1 for bad input or a refused request, 2 for a
 * usage mistake.
 */
import { createRequire } from 'node:module'
import { CliError, UsageError } from './args.ts'
import type { Io } from './io.ts'

export const HELP = `compactd: keep LLM agents inside their context window

Usage:
  compactd estimate FILE [--model M] [--format F] [--method tokenizer|heuristic|provider] [--json]
  compactd compact FILE [--target N] [--format F] [--out FILE] [--model M] [--strategy a,b]
                        [--keep-recent N] [--keep-first N] [--session ID] [--force] [--dry-run] [--messages]
  compactd import FILE|DIR [--format F] [--source S] [--scope all|current] [--out PATH] [--messages]
  compactd hook pre-compact [--target N] [--model M]     (Claude Code PreCompact: JSON on stdin)
  compactd hook session-start                            (Claude Code SessionStart: JSON on stdin)
  compactd mcp [--session ID]                            (MCP server on stdio: search_context, read_context, context_status)

FILE is a path, or - for stdin. It holds messages (a JSON array, or {messages, system?}),
or an agent's session log, imported first: Claude Code (.jsonl), Codex CLI rollout (.jsonl),
Gemini CLI session (.json), pi session (.jsonl), SWE-agent / mini-swe-agent trajectory.

Options:
  --format F        openai (default), anthropic, ai-sdk or responses: the format of the messages sent and returned
  --source S        the log's agent: claude-code, codex, gemini-cli, pi, swe-agent (default: detected)
  --scope all|current  import every message (default) or only what the model saw last
  --url URL         use the compactd service at URL (default: COMPACTD_URL; unset: run in-process)
  --local           run in-process even when COMPACTD_URL is set
  --out PATH        write the result there instead of stdout (import DIR: a directory)
  --messages        print only the messages (and Anthropic's system), not the whole result
  --session ID      compact: store the result as a checkpoint of session ID (needs a service);
                    mcp: the session the tools read when a call names none (default: COMPACTD_SESSION)

Environment:
  COMPACTD_URL      the service URL (hooks and mcp default to http://127.0.0.1:3000)
  COMPACTD_API_KEY  sent as Authorization: Bearer <key>
  COMPACTD_SESSION  mcp: the session id (else CLAUDE_CODE_SESSION_ID, which Claude Code sets)
  Settings of the in-process engine are the service's (DEFAULT_MODEL, COMPACTION_*; .env.example).

Exit status: 0 done, 1 bad input or a failed request (one line on stderr), 2 usage mistake.
`

function version(): string {
  // Bundled into dist/cli/compactd.js (two levels below package.json), or run from src/cli/compactd/main.ts (three).
  const require = createRequire(import.meta.url)
  for (const p of ['../../package.json', '../../../package.json']) {
    try {
      const pkg = require(p) as { name?: string; version?: string }
      if (pkg.name === 'compactd' && pkg.version) return pkg.version
    } catch {
      // not there: try the next
    }
  }
  return 'unknown'
}

export async function main(argv: string[], io: Io): Promise<number> {
  const [command, ...rest] = argv
  try {
    switch (command) {
      case undefined:
      case '--help':
      case '-h':
      case 'help':
        io.stdout.write(HELP)
        return command === undefined ? 2 : 0
      case '--version':
      case '-v':
        io.stdout.write(`${version()}\n`)
        return 0
      // Each command loads only what it uses: a hook runs on every compaction, and the
      // engine, the provider SDKs and the tokenizer tables take most of a start-up.
      case 'estimate':
        return await (await import('./commands.ts')).estimateCommand(rest, io)
      case 'compact':
        return await (await import('./commands.ts')).compactCommand(rest, io)
      case 'import':
        return await (await import('./commands.ts')).importCommand(rest, io)
      case 'hook':
        return await (await import('./hooks.ts')).hookCommand(rest, io)
      case 'mcp':
        return await (await import('../mcp.ts')).mcpCommand(rest, io, version())
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}; expected estimate, compact, import, hook or mcp`)
    }
  } catch (err) {
    return await fail(err, io)
  }
}

/** One line on stderr, never a stack trace (COMPACTD_DEBUG=1 adds it for a bug). */
async function fail(err: unknown, io: Io): Promise<number> {
  const line = (s: string) => io.stderr.write(`compactd: ${s.replace(/\s*\n\s*/g, ' ')}\n`)
  if (err instanceof UsageError) {
    line(`${err.message} (compactd --help)`)
    return 2
  }
  if (err instanceof CliError) {
    line(err.message)
    return 1
  }
  // Loaded only now: a hook that fails to reach the service never pays for the engine.
  const [{ ConfigError }, { CompactionError }, { ImportError }, { MessageFormatError }, { ApiError }, { CompactdError }] = await Promise.all([
    import('../../config.ts'),
    import('../../engine/compaction/verify.ts'),
    import('../../engine/import/types.ts'),
    import('../../engine/messages/errors.ts'),
    import('../../errors.ts'),
    import('../../index.ts'),
  ])
  if (err instanceof ImportError || err instanceof ConfigError) line(err.message)
  else if (err instanceof MessageFormatError) line(`invalid messages: ${err.message}`)
  else if (err instanceof CompactionError) line(`${err.code}: ${err.message}`)
  else if (err instanceof CompactdError) {
    // The library's errors, worded as the engine's own (the in-process commands go through it).
    if (err.code === 'invalid_messages') line(`invalid messages: ${err.message}`)
    else if (err.code === 'invalid_log' || err.code === 'invalid_config') line(err.message)
    else line(`${err.code}: ${err.message}`)
  } else if (err instanceof ApiError) line(`${err.code}: ${err.message}`)
  else {
    line(`internal error: ${err instanceof Error ? err.message : String(err)}`)
    if (process.env.COMPACTD_DEBUG === '1' && err instanceof Error && err.stack) io.stderr.write(`${err.stack}\n`)
  }
  return 1
}

