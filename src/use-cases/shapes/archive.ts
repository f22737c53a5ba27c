/**
 * The archive's shapes (issue 21): what a compaction reports of its archiving, GET
 * /sessions/{id}/search and GET /sessions/{id}/archive/{ref}.
 */
import { z } from 'zod'
import { formatEnum } from './common.ts'

export const archiveReportSchema = z
  .object({
    status: z
      .enum(['archived', 'over_quota', 'disabled'])
      .describe('`archived`: what this compaction dropped is stored and searchable. `over_quota`: the tenant\'s archive is full, nothing was archived and no references were printed. `disabled`: ARCHIVE_ENABLED is off.'),
    archived: z.int().describe('Messages stored by this compaction.'),
    deduplicated: z.int().describe('Messages already in the session\'s archive (a resent history is archived once).'),
    redactions: z.int().describe('Secrets replaced by `[REDACTED:rule]` in the messages stored.'),
    bytes: z.int().describe('Bytes the stored messages take.'),
    usedBytes: z.int().describe('The tenant\'s archive size after this compaction.'),
    quotaBytes: z.int().describe('ARCHIVE_QUOTA_BYTES.'),
    reason: z.string().optional().describe('Why nothing was archived, when status is not `archived`.'),
  })
  .describe('What this compaction archived: present when a sessionId was given and the conversation was compacted (not on a dry run).')
  .meta({ id: 'ArchiveReport' })

export const searchQuery = z.object({
  q: z.string().trim().min(1).max(2_000).describe('Natural language or keywords, as an agent writes them. Any word may match; results rank by relevance (BM25-like).'),
  limit: z.coerce.number().int().min(1).max(50).default(5).describe('Hits returned (default 5, at most 50).'),
})

export const archiveHitSchema = z
  .object({
    ref: z.string().describe('The archived message: read it with GET /sessions/{id}/archive/{ref}.'),
    role: z.string(),
    toolName: z.string().nullable().describe('The tool whose output (or call) this is.'),
    snippet: z.string().describe('The passage around the best match, 300–800 characters (the whole text when shorter).'),
    score: z.number().describe('Relevance: higher is better; comparable within one search.'),
    checkpointNum: z.int().nullable().describe('The checkpoint that archived it (null: a session\'s evicted message).'),
    position: z.int().describe('Its index in the messages of that compaction (a session\'s seq for an evicted one).'),
    source: z.enum(['compact', 'session', 'proxy']),
  })
  .meta({ id: 'ArchiveHit' })

export const searchResponse = z
  .object({
    hits: z.array(archiveHitSchema),
    terms: z.array(z.string()).describe('The words searched for, rarest first, after stopwords and words too common in this session to rank by.'),
    pending: z.int().optional().describe('Archived messages not searchable yet: the search indexes up to 2,000 before it reads, and says how many more wait (search again).'),
  })
  .meta({
    id: 'ArchiveSearch',
    example: {
      hits: [
        {
          ref: '7hq2k9xa',
          role: 'tool',
          toolName: 'bash',
          snippet: '…def _add_batch(self, batch): try: self._collection.upsert(**batch) except RateLimitError as e: time.sleep(2 ** attempt) …',
          score: 0.42,
          checkpointNum: 3,
          position: 41,
          source: 'compact',
        },
      ],
      terms: ['chroma', 'ratelimiterror', 'batch'],
    },
  })

export const readParams = z.object({
  id: z.string().min(1).max(200),
  ref: z.string().min(1).max(64).describe('A reference from a placeholder, the action log or a search hit.'),
})

/** `lines=120-180` (1-based, inclusive), or `lines=120` for one line. */
export const LINES_PATTERN = /^(\d{1,9})(?:-(\d{1,9}))?$/

export const readQuery = z.object({
  format: formatEnum.optional().describe('Return the message in this format (default: the format it was sent in).'),
  lines: z.string().regex(LINES_PATTERN, 'expected a line range like 120-180 (1-based, inclusive) or one line number').optional().describe('Only these lines of the message\'s text: `120-180` or `120`.'),
  grep: z.string().min(1).max(200).optional().describe('Only the lines of the message\'s text containing this string (case-insensitive, not a pattern), with their numbers.'),
  context: z.coerce.number().int().min(0).max(20).default(0).describe('With grep: lines of context around each match.'),
})

export const readResponse = z
  .object({
    ref: z.string(),
    role: z.string(),
    toolName: z.string().nullable(),
    checkpointNum: z.int().nullable(),
    position: z.int(),
    source: z.enum(['compact', 'session', 'proxy']),
    format: formatEnum.describe('Format of `messages`.'),
    messages: z
      .array(z.unknown())
      .optional()
      .describe('The original message as sent (secrets redacted), in `format`; for an assistant message with tool calls, followed by their archived results, so the pair stays whole. Omitted when `lines` or `grep` is given.'),
    text: z.string().optional().describe('With `lines` or `grep`: the selected lines, each prefixed with its number and a tab.'),
    totalLines: z.int().describe('Lines in the message\'s text.'),
    matchedLines: z.int().optional().describe('With `grep`: lines that matched.'),
    truncated: z.boolean().describe('True when the selection was cut at 64 KB: ask for a narrower `lines` range.'),
    redactions: z.int().describe('Secrets redacted in this message before it was archived.'),
  })
  .meta({
    id: 'ArchivedMessage',
    example: {
      ref: '7hq2k9xa',
      role: 'tool',
      toolName: 'bash',
      checkpointNum: 3,
      position: 41,
      source: 'compact',
      format: 'openai',
      text: '118\tdef _add_batch(self, batch):\n119\t    try:\n120\t        self._collection.upsert(**batch)',
      totalLines: 2210,
      truncated: false,
      redactions: 0,
    },
  })
