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

/** Decoded bytes of a base64 string, from its length (no decoding). */
export function base64Bytes(data: string): number {
  let padding = 0
  if (data.endsWith('==')) padding = 2
  else if (data.endsWith('=')) padding = 1
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding)
}

/** The media kind of a media type or file name. */
export function mediaKind(mediaType: string | undefined, filename?: string): MediaInfo['kind'] {
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
