/**
 * Audio, documents and files inside messages (issue 18): an adapter that meets one
 * (OpenAI `input_audio` and `file`, Anthropic `document`, AI SDK `file`) makes it an
 * opaque part through mediaPart(). The part's text is its JSON with the payload replaced
 * by a short note, so summaries, fact extraction and the tokenizer never read megabytes of
 * base64; its `media` says what the counter's rule needs (src/engine/tokens/media.ts).
 * The caller's bytes stay in the message's `raw`, so a kept message is sent unchanged.
 */
import type { MediaInfo, OpaquePart } from './canonical.ts'
import { parseDataUrl, type JsonObject } from './adapter.ts'

/** A payload shorter than this stays in the part's text: a note would not be shorter. */
const NOTE_MIN_CHARS = 256
/** A string this long of base64 alphabet only, inside a part we do not know, is a payload, not text. */
const PAYLOAD_MIN_CHARS = 1024
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/

/**
 * A part this adapter does not interpret (another format's image block, a newer type): its
 * JSON, unless it carries an inline payload (a data: URL, or a long base64 string), which
 * is then counted as media by its kind (an image when the part's type or media type says
 * so) rather than as ~0.7 tokens a character of base64.
 */
export function opaquePart(json: JsonObject): OpaquePart {
  const payload = findPayload(json, 0)
  if (payload === undefined) return { type: 'opaque', text: JSON.stringify(json) }
  const dataUrl = parseDataUrl(payload.value)
  const mediaType = dataUrl?.mediaType ?? payload.mediaType
  const kind = /image/i.test(`${String(json.type)} ${mediaType ?? ''}`) ? 'image' : mediaKind(mediaType)
  return mediaPart(json, kind, mediaType, payload.value)
}

function findPayload(value: unknown, depth: number): { value: string; mediaType?: string } | undefined {
  if (depth > 4 || value === null || typeof value !== 'object') return undefined
  const record = value as JsonObject
  const mediaType = [record.media_type, record.mediaType, record.mime_type, record.mimeType].find((v): v is string => typeof v === 'string')
  for (const v of Array.isArray(value) ? value : Object.values(record)) {
    if (typeof v === 'string' && v.length >= PAYLOAD_MIN_CHARS && (v.startsWith('data:') ? parseDataUrl(v) !== undefined : BASE64.test(v.slice(0, 4096)) && BASE64.test(v))) {
      return mediaType === undefined ? { value: v } : { value: v, mediaType }
    }
    const inner = findPayload(v, depth + 1)
    if (inner) return inner
  }
  return undefined
}

/** Decoded bytes of a base64 string, from its length (no decoding). */
export function base64Bytes(data: string): number {
  let padding = 0
  if (data.endsWith('==')) padding = 2
  else if (data.endsWith('=')) padding = 1
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding)
}

/** The media kind of a media type or file name. */
export function mediaKind(mediaType: string | undefined, filename?: string): Exclude<MediaInfo['kind'], 'image'> {
  if (mediaType?.startsWith('audio/')) return 'audio'
  if (mediaType === 'application/pdf' || /\.pdf$/i.test(filename ?? '')) return 'document'
  return 'file'
}

/**
 * `payload`: the part's inline data, a base64 string or a data: URL; undefined for a part
 * that refers to a file by id or URL.
 */
export function mediaPart(json: JsonObject, kind: MediaInfo['kind'], mediaType: string | undefined, payload: string | undefined): OpaquePart {
  let data = payload
  if (payload !== undefined) {
    const dataUrl = parseDataUrl(payload)
    if (dataUrl) {
      data = dataUrl.data
      mediaType ??= dataUrl.mediaType
    }
  }
  // A file whose data turns out to be audio or a PDF is counted as one.
  const media: MediaInfo = { kind: kind === 'file' ? mediaKind(mediaType) : kind }
  if (media.kind === 'file' && mediaType?.startsWith('image/')) media.kind = 'image'
  if (mediaType !== undefined) media.mediaType = mediaType
  if (data !== undefined) {
    media.bytes = base64Bytes(data)
    if (media.kind === 'document') {
      const pages = pdfPages(data)
      if (pages !== undefined) media.pages = pages
    }
    if (media.kind === 'audio') {
      const byteRate = wavByteRate(data)
      if (byteRate !== undefined) media.byteRate = byteRate
    }
  }
  const note = data !== undefined && payload !== undefined && payload.length >= NOTE_MIN_CHARS ? `[${media.kind}${mediaType ? ` ${mediaType}` : ''}, ${media.bytes} bytes]` : undefined
  const text = note === undefined ? JSON.stringify(json) : JSON.stringify(json, (_key, value: unknown) => (value === payload ? note : value))
  return { type: 'opaque', text, media }
}

/** Page objects of a PDF (`/Type /Page`, not `/Pages`), where they are not inside compressed object streams. */
function pdfPages(base64: string): number | undefined {
  const bytes = Buffer.from(base64, 'base64').toString('latin1')
  if (!bytes.startsWith('%PDF')) return undefined
  const pages = bytes.match(/\/Type\s*\/Page(?![a-zA-Z])/g)?.length ?? 0
  return pages > 0 ? pages : undefined
}

/** A WAV header's byte rate (offset 28, little-endian), which turns its size into seconds. */
function wavByteRate(base64: string): number | undefined {
  const head = Buffer.from(base64.slice(0, 48), 'base64')
  if (head.length < 32 || head.toString('latin1', 0, 4) !== 'RIFF' || head.toString('latin1', 8, 12) !== 'WAVE') return undefined
  const rate = head.readUInt32LE(28)
  return rate > 0 ? rate : undefined
}
