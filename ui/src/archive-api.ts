/** The archive's routes as the dashboard calls them: GET /sessions/{id}/search and GET /sessions/{id}/archive/{ref}. */
import { api, enc } from './api.ts'

export type ArchiveSource = 'compact' | 'session' | 'proxy'

/** One search hit (the API's ArchiveHit). */
export interface ArchiveHit {
  ref: string
  role: string
  toolName: string | null
  snippet: string
  score: number
  checkpointNum: number | null
  position: number
  source: ArchiveSource
}

export interface ArchiveSearch {
  hits: ArchiveHit[]
  terms: string[]
}

/** One archived message read back (the API's ArchivedMessage). */
export interface ArchivedMessage {
  ref: string
  role: string
  toolName: string | null
  checkpointNum: number | null
  position: number
  source: ArchiveSource
  format: string
  messages?: unknown[]
  text?: string
  totalLines: number
  matchedLines?: number
  truncated: boolean
  redactions: number
}

/** `base`: the session's path, /sessions/{id}. */
export function searchArchive(base: string, q: string, limit: number): Promise<ArchiveSearch> {
  return api(`${base}/search?q=${enc(q)}&limit=${limit}`)
}

/** The whole message (its `messages`), or with `lines` (`120-180`) or `grep` only those lines (its `text`). */
export function readArchived(base: string, ref: string, select: { lines?: string; grep?: string } = {}): Promise<ArchivedMessage> {
  const query = [select.lines ? `lines=${enc(select.lines)}` : '', select.grep ? `grep=${enc(select.grep)}` : ''].filter(Boolean).join('&')
  return api(`${base}/archive/${enc(ref)}${query ? `?${query}` : ''}`)
}

/** What an archived message is, in words: "bash output", "call to bash", "user message". */
export function describeArchived(m: { role: string; toolName: string | null }): string {
  if (m.toolName && m.role === 'tool') return `${m.toolName} output`
  if (m.toolName) return `${m.role} call to ${m.toolName}`
  return `${m.role} message`
}

/** Where it was archived from: "checkpoint 3, message 41", or "evicted from the session, message 12". */
export function describeOrigin(m: { checkpointNum: number | null; position: number; source: ArchiveSource }): string {
  if (m.checkpointNum !== null) return `checkpoint ${m.checkpointNum}, message ${m.position}`
  return m.source === 'session' ? `evicted from the session, message ${m.position}` : `${m.source}, message ${m.position}`
}
