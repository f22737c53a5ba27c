/**
 * Which agent wrote a log: by the shape of a JSON document (SWE-agent trajectories,
 * Gemini CLI sessions) or by a vote over the first entries of a line-based log (Claude
 * Code, Codex CLI, pi, Gemini CLI chat recordings).
 */
import { isRecord, type JsonObject } from '../messages/adapter.ts'
import { CLAUDE_CODE_META_TYPES } from './claude-code.ts'
import { CODEX_ENVELOPE_TYPES, CODEX_ITEM_TYPES } from './codex.ts'
import { GEMINI_RECORD_TYPES } from './gemini.ts'
import { PI_ENTRY_TYPES } from './pi.ts'
import { isSweTrajectory } from './swe-agent.ts'
import type { ImportSource } from './types.ts'

/** How a JSON document is laid out, when it is one of the document formats. */
export type DocumentLayout = 'swe-agent' | 'gemini-contents' | 'gemini-records'

export function documentLayout(doc: unknown): DocumentLayout | undefined {
  if (Array.isArray(doc)) {
    const sample = doc.slice(0, 20)
    if (sample.length > 0 && sample.every((c) => isRecord(c) && Array.isArray(c.parts)) && sample.some((c) => (c as JsonObject).role === 'model' || (c as JsonObject).role === 'user')) return 'gemini-contents'
    return undefined
  }
  if (!isRecord(doc)) return undefined
  if (isSweTrajectory(doc)) return 'swe-agent'
  if (Array.isArray(doc.messages)) {
    const sample = doc.messages.slice(0, 20).filter(isRecord)
    if (sample.length > 0 && sample.some((m) => m.type === 'gemini' || m.type === 'user') && sample.every((m) => typeof m.type === 'string' && !('role' in m))) return 'gemini-records'
    if (doc.messages.length === 0 && typeof doc.sessionId === 'string' && typeof doc.projectHash === 'string') return 'gemini-records'
  }
  return undefined
}

export function sourceOfLayout(layout: DocumentLayout): ImportSource {
  return layout === 'swe-agent' ? 'swe-agent' : 'gemini-cli'
}

/** How strongly one entry says which source wrote it (0: no opinion). */
function votes(e: JsonObject): Partial<Record<ImportSource, number>> {
  const type = e.type
  if (typeof type !== 'string') {
    if (e.record_type === 'state') return { codex: 1 }
    if (typeof e.sessionId === 'string' && typeof e.projectHash === 'string') return { 'gemini-cli': 2 }
    if (typeof e.id === 'string' && typeof e.timestamp === 'string' && ('instructions' in e || 'git' in e)) return { codex: 1 }
    return {}
  }
  if (CODEX_ENVELOPE_TYPES.has(type) && isRecord(e.payload)) return { codex: 2 }
  if ((type === 'user' || type === 'assistant') && isRecord(e.message)) return { 'claude-code': 2 }
  if (type === 'system' && (typeof e.subtype === 'string' || typeof e.uuid === 'string')) return { 'claude-code': 2 }
  if (CLAUDE_CODE_META_TYPES.has(type) && !('payload' in e)) return { 'claude-code': 1 }
  if (type === 'session' && 'version' in e) return { pi: 2 }
  if (type === 'message' && isRecord(e.message)) return { pi: 2 }
  if (PI_ENTRY_TYPES.has(type) && ('parentId' in e || type === 'custom_message' || type === 'compaction')) return { pi: 2 }
  if (type === 'gemini') return { 'gemini-cli': 2 }
  if (GEMINI_RECORD_TYPES.has(type) && 'content' in e && !('message' in e)) return { 'gemini-cli': 1 }
  if (CODEX_ITEM_TYPES.has(type) && !('message' in e) && ('role' in e || 'call_id' in e || 'summary' in e)) return { codex: 1 }
  return {}
}

/** The source most of the first entries vote for; undefined when none votes. */
export function detectEntrySource(entries: readonly unknown[], sample = 200): ImportSource | undefined {
  const score: Partial<Record<ImportSource, number>> = {}
  let seen = 0
  for (const e of entries) {
    if (!isRecord(e)) continue
    for (const [source, n] of Object.entries(votes(e)) as [ImportSource, number][]) score[source] = (score[source] ?? 0) + n
    if (++seen >= sample) break
  }
  let best: ImportSource | undefined
  let bestScore = 0
  for (const [source, n] of Object.entries(score) as [ImportSource, number][]) {
    if (n > bestScore) {
      best = source
      bestScore = n
    }
  }
  return best
}
