/**
 * What audio, documents and files cost in a prompt (issue 18): a fixed or size-based rule
 * per kind, as the providers bill them, never the tokens of their base64 bytes (a 1 MB
 * payload tokenized as text is ~700k "tokens" of nothing the model reads that way).
 *
 * - Audio: 10 tokens a second (OpenAI bills gpt-4o audio input at $100 per 1M tokens,
 *   which is its $0.06 a minute); seconds from a WAV header's byte rate, else at
 *   16,000 bytes a second (128 kbit/s, an MP3's usual rate).
 * - A PDF document: 3,000 tokens a page, the top of Anthropic's documented 1,500–3,000 for a
 *   page's text and image (OpenAI's file input reads a page the same two ways); pages read
 *   from the file, else one per 20 KB.
 * - Any other file: a token per 4 bytes, what text of that size would cost.
 * - A part that refers to a file by id or URL: one page's cost, since its size is unknown here.
 *
 * These are estimates: the exact figure comes only from the provider (docs/tokens.md).
 */
import type { MediaInfo } from '../messages/canonical.ts'

/** Image cost when dimensions are unknown: one 512px-tile high-detail image (85 + 4×170). */
export const IMAGE_TOKENS = 765
export const AUDIO_TOKENS_PER_SECOND = 10
export const AUDIO_BYTES_PER_SECOND = 16_000
export const DOCUMENT_TOKENS_PER_PAGE = 3_000
export const DOCUMENT_BYTES_PER_PAGE = 20_480
export const FILE_BYTES_PER_TOKEN = 4

export function mediaTokens(media: MediaInfo): number {
  if (media.kind === 'image') return IMAGE_TOKENS
  if (media.bytes === undefined) return DOCUMENT_TOKENS_PER_PAGE
  switch (media.kind) {
    case 'audio':
      return Math.max(1, Math.ceil((media.bytes / (media.byteRate ?? AUDIO_BYTES_PER_SECOND)) * AUDIO_TOKENS_PER_SECOND))
    case 'document':
      return DOCUMENT_TOKENS_PER_PAGE * (media.pages ?? Math.max(1, Math.ceil(media.bytes / DOCUMENT_BYTES_PER_PAGE)))
    case 'file':
      return Math.max(1, Math.ceil(media.bytes / FILE_BYTES_PER_TOKEN))
  }
}
