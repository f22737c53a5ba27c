/** POST /import's request and response, written once: the route validates and documents them, the use case takes their types. */
import { z } from 'zod'
import { formatEnum } from './common.ts'

export const SOURCES = ['claude-code', 'codex', 'gemini-cli', 'pi', 'swe-agent'] as const

const SOURCE_LIST = 'claude-code (Claude Code session JSONL), codex (Codex CLI rollout JSONL), gemini-cli (Gemini CLI session JSON), pi (pi session JSONL), swe-agent (SWE-agent and mini-swe-agent trajectories)'

export const importBody = z
  .strictObject({
    // No .min(1): an empty log is the importer's to refuse, as invalid_log like any text that is no log.
    log: z
      .union([z.string(), z.array(z.unknown()).max(1_000_000), z.record(z.string(), z.unknown())])
      .describe(
        "The log: the file's text as one string (JSON Lines or a JSON document, exactly as the agent wrote it), or a JSON document (SWE-agent trajectory, Gemini CLI session) as a value. Empty text, or text that is no log, is a 400 invalid_log. The whole body is limited to BODY_LIMIT_BYTES.",
      ),
    source: z
      .enum(SOURCES)
      .optional()
      .describe(`Which agent wrote it: ${SOURCE_LIST}. Detected from the content when omitted.`),
    format: formatEnum.optional().describe('Format of the returned messages: OpenAI Chat Completions (default), Anthropic Messages, Vercel AI SDK ModelMessage or OpenAI Responses items (a Codex rollout keeps its own items).'),
    scope: z
      .enum(['all', 'current'])
      .optional()
      .describe('`all` (default): every message of the log. `current`: what the agent\'s model saw last: the leading system messages, then everything from the latest compaction\'s summary on.'),
  })
  .describe('An agent session log to convert.')
  .meta({
    id: 'ImportRequest',
    example: {
      format: 'openai',
      log: '{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s-1","timestamp":"2026-11-20T09:00:00.000Z","message":{"role":"user","content":"Fix the failing test in src/db.ts"}}\n{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s-1","timestamp":"2026-11-20T09:00:05.000Z","message":{"id":"msg_1","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Running the tests."}],"usage":{"input_tokens":812,"output_tokens":9}}}\n',
    },
  })

const issueSchema = z.object({
  line: z.int().nullable().describe('1-based line of a line-based log; null in a JSON document.'),
  path: z.string().optional().describe('Where in a JSON document, e.g. `messages[377]`.'),
  kind: z.enum(['broken', 'unknown']).describe('`broken`: not JSON, or not what its type promises. `unknown`: valid JSON of a type this importer does not know.'),
  message: z.string(),
})

export const importResponse = z
  .object({
    source: z.enum(SOURCES).describe('The agent that wrote the log.'),
    detected: z.boolean().describe('True when `source` was detected from the content, false when given.'),
    format: formatEnum.describe('Format of `messages`.'),
    scope: z.enum(['all', 'current']),
    messages: z.array(z.unknown()).describe('The conversation in `format`, tool calls paired with their results. Ready for /estimate, /compact or a provider.'),
    system: z.unknown().optional().describe('Anthropic top-level system prompt (format anthropic, when the log has system messages).'),
    compactions: z
      .array(
        z.object({
          position: z
            .int()
            .nullable()
            .describe("Index in `messages` where the compaction took effect: the agent's summary message is there when `summary` is not null; messages before it are what the agent compacted. null: not in the returned messages (scope current, earlier compactions)."),
          line: z.int().nullable().describe('Line of the log that records the compaction; null in a JSON document.'),
          path: z.string().optional().describe('Where in a JSON document.'),
          trigger: z.enum(['auto', 'manual']).optional().describe("Claude Code's trigger, when recorded."),
          preTokens: z.int().nullable().describe('Tokens in the context just before the compaction, when the log records them: Claude Code compactMetadata.preTokens, Codex token_count, pi tokensBefore, Gemini CLI record tokens; else null.'),
          summary: z.string().nullable().describe('The summary the agent wrote, without its harness wrapper; null when the log does not hold it.'),
          timestamp: z.string().optional(),
        }),
      )
      .describe("Compactions found in the log: Claude Code's compact_boundary and continued-session summary, Codex compacted items, Gemini CLI <state_snapshot>, pi compaction entries."),
    issues: z.array(issueSchema).describe('Broken and unknown lines, skipped (never fatal), at most 200.'),
    issuesOmitted: z.int().describe('Issues beyond the 200 listed.'),
    repairs: z.array(z.object({ line: z.int().nullable(), path: z.string().optional(), action: z.string() })).describe('Tool calls without a result answered with "[no result recorded]", results without a call dropped (as POST /compact onBrokenInput repair).'),
    stats: z.object({
      lines: z.int().optional().describe('Lines of a line-based log.'),
      entries: z.int().describe('Entries read (JSON lines, or elements of a JSON document).'),
      skipped: z.int().describe('Entries of known types that hold no conversation: metadata, UI events, token counts, subagent sidechains.'),
      messages: z.int().describe('Messages returned.'),
    }),
    session: z
      .object({
        id: z.string().optional().describe("The agent's own session id."),
        cwd: z.string().optional(),
        model: z.string().optional().describe('The last model the log names.'),
        agent: z.string().optional().describe('The writer, when a source has several (swe-agent or mini-swe-agent).'),
        agentVersion: z.string().optional(),
        startedAt: z.string().optional(),
      })
      .describe('What the log says about the session.'),
  })
  .meta({
    id: 'ImportResponse',
    example: {
      source: 'claude-code',
      detected: true,
      format: 'openai',
      scope: 'all',
      messages: [
        { role: 'user', content: 'Fix the failing test in src/db.ts' },
        { role: 'assistant', content: 'Running the tests.' },
      ],
      compactions: [],
      issues: [],
      issuesOmitted: 0,
      repairs: [],
      stats: { lines: 2, entries: 2, skipped: 0, messages: 2 },
      session: { id: 's-1', model: 'claude-sonnet-4-5', startedAt: '2026-11-20T09:00:00.000Z' },
    },
  })
