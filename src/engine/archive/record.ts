/**
 * What the archive stores of one message that compaction replaced, summarised or masked:
 * the caller's bytes with secrets redacted, the text it is searched by, and its
 * reference. Pure (hashing is not I/O), so it runs in the compute pool beside the
 * compaction whose placeholders name the same references.
 *
 * The reference is the content hash of the redacted message: the engine can print it in a
 * placeholder before anything is stored, a resent history gets the same reference (and
 * is archived once: the store deduplicates by hash within the session), and it needs no
 * counter shared between instances.
 */
import { createHash } from 'node:crypto'
import { messageText, toolCallsOf, toolResultsOf, type CanonicalMessage, type CanonicalRole, type MessageFormat } from '../messages/canonical.ts'
import { parseConversation } from '../messages/index.ts'
import { redactValue } from './redact.ts'

export interface ArchiveRecord {
  /** sha256 (hex) of the redacted message and its format: the dedupe key within a session. */
  hash: string
  /** The short reference printed where the message was dropped (REF_LENGTH characters of the hash). */
  ref: string
  /** Index in the caller's `messages` at this compaction (a session's seq for its evictions). */
  position: number
  role: CanonicalRole
  /** The tool that produced a result, or the tools an assistant message called (comma-separated). */
  toolName?: string
  /** Tool-call ids the message carries (its calls, or the calls its results answer): read-back pairs by them. */
  callIds: string[]
  format: MessageFormat
  /** JSON of the caller's message with secrets redacted (its searchable text: archivedText(raw, format)). */
  raw: string
  /** Secrets replaced in raw (the text's are the same spans). */
  redactions: number
}

/** Crockford's base32: no i, l, o, u, so a reference survives being read aloud or retyped. */
const BASE32 = '0123456789abcdefghjkmnpqrstvwxyz'
/** 8 × 5 = 40 bits: a collision within one session of 10,000 messages is about 1 in 20,000. */
export const REF_LENGTH = 8

export function refOfHash(hashHex: string): string {
  let bits = BigInt(`0x${hashHex.slice(0, 10)}`)
  let out = ''
  for (let i = 0; i < REF_LENGTH; i++) {
    out = BASE32[Number(bits & 31n)] + out
    bits >>= 5n
  }
  return out
}

/** A reference as an agent may type it: lower case, the confusable letters mapped back (Crockford). */
export function normalizeRef(ref: string): string {
  return ref.trim().toLowerCase().replace(/[io]/g, (c) => (c === 'o' ? '0' : '1')).replace(/l/g, '1')
}

export const REF_PATTERN = /^[0-9a-hjkmnp-tv-z]{8}$/

const records = new WeakMap<object, ArchiveRecord>()

/** Each tool call's name by its id, for results whose format does not carry it (archiveRecord's `toolNames`). */
export function toolNamesOf(messages: readonly CanonicalMessage[]): Map<string, string> {
  const names = new Map<string, string>()
  for (const m of messages) for (const c of toolCallsOf(m)) names.set(c.id, c.name)
  return names
}

/**
 * The archive record of `message`, made once per message object (the engine asks for the
 * reference while masking, the use case for the record afterwards). `toolNames` maps a
 * call id to its tool's name, for results whose format does not carry it.
 */
export function archiveRecord(message: CanonicalMessage, toolNames?: ReadonlyMap<string, string>): ArchiveRecord {
  const key = typeof message.raw === 'object' && message.raw !== null ? message.raw : message
  const hit = records.get(key)
  if (hit && hit.position === message.index) return hit
  const redacted = redactValue(message.raw)
  const raw = JSON.stringify(redacted.value) ?? 'null'
  const hash = createHash('sha256').update(message.format).update('\n').update(raw).digest('hex')
  const calls = toolCallsOf(message)
  const results = toolResultsOf(message)
  const names = calls.length ? calls.map((c) => c.name) : results.map((r) => r.name ?? toolNames?.get(r.callId) ?? '').filter(Boolean)
  const record: ArchiveRecord = {
    hash,
    ref: refOfHash(hash),
    position: message.index,
    role: message.role,
    ...(names.length ? { toolName: [...new Set(names)].join(',') } : {}),
    callIds: [...calls.map((c) => c.id), ...results.map((r) => r.callId)],
    format: message.format,
    raw,
    redactions: redacted.count,
  }
  records.set(key, record)
  return record
}

/**
 * The searchable text of an archived message, from the JSON it was stored as (secrets
 * already redacted): its message text, tool calls as name(args). What the index is made
 * of, for plain and encrypted archives alike.
 */
export function archivedText(rawJson: string, format: MessageFormat): string {
  return parseConversation([JSON.parse(rawJson)], { format, allowDuplicateCallIds: true }).messages.map(messageText).join('\n')
}
