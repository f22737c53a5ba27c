/**
 * GET /sessions/{id}/search and GET /sessions/{id}/archive/{ref}: the archive of what
 * compaction dropped, searched and read back, scoped to the caller's tenant (another
 * tenant's session is a 404, as an unknown one).
 */
import type { z } from 'zod'
import { archivedWithCalls, hasArchive, readArchived, type ArchivedMessage } from '../../archive/repository.ts'
import { searchArchive } from '../../archive/search.ts'
import { latestCheckpoint } from '../../checkpoints/repository.ts'
import { normalizeRef, REF_PATTERN } from '../../engine/archive/record.ts'
import { messageText, parseConversation, serializeConversation, type MessageFormat } from '../../engine/messages/index.ts'
import { ApiError } from '../../errors.ts'
import { getSession } from '../../sessions/repository.ts'
import type { UseCaseDeps } from '../deps.ts'
import { LINES_PATTERN, type readQuery, type readResponse, type searchQuery, type searchResponse } from '../shapes/archive.ts'
import type { ArchiveIndexer } from './indexer.ts'
import { archivePolicy } from './policy.ts'

export type SearchInput = z.infer<typeof searchQuery>
export type SearchResult = z.infer<typeof searchResponse>
export type ReadInput = z.infer<typeof readQuery>
export type ReadResult = z.infer<typeof readResponse>

export type ArchiveDeps = Pick<UseCaseDeps, 'db' | 'config'> & { archiveIndexer?: ArchiveIndexer }

/** A selection of lines stops here: an agent reads a 500 KB output in pieces, not at once. */
export const MAX_SELECTION_BYTES = 64 * 1024

const notFound = (id: string) => new ApiError(404, 'not_found', `no session ${JSON.stringify(id)}`)

export function makeArchive(deps: ArchiveDeps) {
  const { db } = deps
  const policy = archivePolicy(deps.config)
  const access = { retentionDays: policy.retentionDays, ...(policy.key ? { key: policy.key } : {}) }

  /** A session of this tenant: a sessions row, a checkpoint or an archive. */
  async function requireSession(tenantId: string, sessionId: string): Promise<void> {
    if (await hasArchive(db, tenantId, sessionId)) return
    if (await getSession(db, tenantId, sessionId)) return
    if (await latestCheckpoint(db, tenantId, sessionId)) return
    throw notFound(sessionId)
  }

  return {
    async search(tenantId: string, sessionId: string, input: SearchInput): Promise<SearchResult> {
      // Everything archived before this search is indexed first (bounded: what is left is said).
      const pending = (await deps.archiveIndexer?.beforeSearch(tenantId, sessionId)) ?? 0
      const found = await searchArchive(db, tenantId, sessionId, input.q, input.limit, access)
      if (found.hits.length === 0) await requireSession(tenantId, sessionId)
      return {
        hits: found.hits.map(({ position, source, ...hit }) => ({ ...hit, position, source: source as SearchResult['hits'][number]['source'] })),
        terms: found.terms,
        ...(pending > 0 ? { pending } : {}),
      }
    },

    async read(tenantId: string, sessionId: string, refText: string, input: ReadInput): Promise<ReadResult> {
      const ref = normalizeRef(refText)
      if (!REF_PATTERN.test(ref)) {
        throw new ApiError(400, 'validation_error', `params.ref: ${JSON.stringify(refText)} is not an archive reference (8 letters and digits, as in [ref 7hq2k9xa])`, [{ path: 'params.ref', message: 'not an archive reference' }])
      }
      const message = await readArchived(db, tenantId, sessionId, ref, access)
      if (!message) {
        await requireSession(tenantId, sessionId)
        throw new ApiError(404, 'not_found', `no archived message ${ref} in session ${JSON.stringify(sessionId)} (past ARCHIVE_RETENTION_DAYS, or never archived)`)
      }
      const sourceFormat = message.format as MessageFormat
      const format = input.format ?? sourceFormat
      const original = parseConversation([message.raw], { format: sourceFormat, allowDuplicateCallIds: true }).messages
      const text = original.map(messageText).join('\n')
      const lines = text.split('\n')
      const base = {
        ref: message.ref,
        role: message.role,
        toolName: message.toolName,
        checkpointNum: message.checkpointNum,
        position: message.position,
        source: message.source as ReadResult['source'],
        format,
        totalLines: lines.length,
        redactions: message.redactions,
      }
      if (input.lines !== undefined || input.grep !== undefined) return { ...base, ...selectLines(lines, input) }
      // An assistant message's tool results follow it, so the pair stays whole.
      const results = message.role === 'assistant' ? await archivedWithCalls(db, tenantId, sessionId, message.callIds, message.hash, access) : []
      return { ...base, messages: inFormat([message, ...results], format), truncated: false }
    },
  }
}

/** Archived messages written in `format` (each parsed in the format it was sent in). */
function inFormat(messages: readonly ArchivedMessage[], format: MessageFormat): unknown[] {
  if (messages.every((m) => m.format === format)) return messages.map((m) => m.raw)
  const canonical = messages.flatMap((m) => parseConversation([m.raw], { format: m.format as MessageFormat, allowDuplicateCallIds: true }).messages)
  const out = serializeConversation(canonical, format)
  return out.system !== undefined ? [{ role: 'system', content: out.system }, ...out.messages] : out.messages
}

/** `lines=a-b` or `grep=s` (with `context`): numbered lines, cut at MAX_SELECTION_BYTES. */
function selectLines(lines: readonly string[], input: ReadInput): Pick<ReadResult, 'text' | 'matchedLines' | 'truncated'> {
  let from = 1
  let to = lines.length
  if (input.lines !== undefined) {
    const m = LINES_PATTERN.exec(input.lines)!
    from = Math.max(1, Number(m[1]))
    to = Math.min(lines.length, m[2] !== undefined ? Number(m[2]) : from)
    if (from > lines.length) throw new ApiError(400, 'validation_error', `querystring.lines: the message has ${lines.length} lines`, [{ path: 'querystring.lines', message: `past the last line (${lines.length})` }])
    if (to < from) throw new ApiError(400, 'validation_error', 'querystring.lines: the range ends before it starts', [{ path: 'querystring.lines', message: 'end before start' }])
  }
  let picked: number[] = []
  let matched: number | undefined
  if (input.grep !== undefined) {
    const needle = input.grep.toLowerCase()
    const show = new Set<number>()
    matched = 0
    for (let i = from - 1; i < to; i++) {
      if (!lines[i]!.toLowerCase().includes(needle)) continue
      matched++
      for (let k = Math.max(from - 1, i - input.context); k <= Math.min(to - 1, i + input.context); k++) show.add(k)
    }
    picked = [...show].sort((a, b) => a - b)
  } else {
    for (let i = from - 1; i < to; i++) picked.push(i)
  }
  const out: string[] = []
  let bytes = 0
  let truncated = false
  for (const i of picked) {
    const line = `${i + 1}\t${lines[i]}`
    bytes += Buffer.byteLength(line) + 1
    if (bytes > MAX_SELECTION_BYTES) {
      truncated = true
      break
    }
    out.push(line)
  }
  return { text: out.join('\n'), ...(matched !== undefined ? { matchedLines: matched } : {}), truncated }
}
