/**
 * Issue 18: audio, documents and files are counted by the provider's rule for their kind
 * and size (src/engine/tokens/media.ts), never by tokenizing their base64 bytes, in every
 * format; the caller's bytes survive in `raw`.
 */
import t from 'tap'
import { parseConversation, serializeConversation } from '../../../src/engine/messages/index.ts'
import { base64Bytes } from '../../../src/engine/messages/media.ts'
import { countConversation, tokenizerCounter, heuristicCounter } from '../../../src/engine/tokens/count.ts'
import { AUDIO_BYTES_PER_SECOND, AUDIO_TOKENS_PER_SECOND, DOCUMENT_BYTES_PER_PAGE, DOCUMENT_TOKENS_PER_PAGE, FILE_BYTES_PER_TOKEN, mediaTokens } from '../../../src/engine/tokens/media.ts'

const MB = 1024 * 1024
const zeros = (bytes: number) => Buffer.alloc(bytes).toString('base64') // 'AAAA…': the worst case for a tokenizer
const pdf = (pages: number) => {
  const objects = Array.from({ length: pages }, (_, i) => `${i + 3} 0 obj << /Type /Page /Parent 2 0 R >> endobj`).join('\n')
  return Buffer.from(`%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Count ${pages} >> endobj\n${objects}\n${'x'.repeat(4000)}\n%%EOF`).toString('base64')
}
const wav = (seconds: number, byteRate: number) => {
  const header = Buffer.alloc(44)
  header.write('RIFF', 0, 'latin1')
  header.write('WAVE', 8, 'latin1')
  header.write('fmt ', 12, 'latin1')
  header.writeUInt32LE(byteRate, 28)
  return Buffer.concat([header, Buffer.alloc(seconds * byteRate)]).toString('base64')
}

/** Tokens of the one media part: the conversation's count less the same conversation without it. */
function partTokens(messages: unknown[], format: 'openai' | 'anthropic' | 'ai-sdk', emptyMessages: unknown[]): number {
  const counter = tokenizerCounter('o200k_base')
  const withPart = countConversation(parseConversation(messages, { format }).messages, counter).totalTokens
  const without = countConversation(parseConversation(emptyMessages, { format }).messages, counter).totalTokens
  return withPart - without
}

t.test('a 1 MB OpenAI input_audio part is counted by its duration, fast, and its bytes stay in raw', async (t) => {
  const data = zeros(MB)
  const messages = [{ role: 'user', content: [{ type: 'text', text: 'Transcribe this.' }, { type: 'input_audio', input_audio: { data, format: 'mp3' } }] }]
  const started = performance.now()
  const tokens = partTokens(messages, 'openai', [{ role: 'user', content: [{ type: 'text', text: 'Transcribe this.' }] }])
  t.ok(performance.now() - started < 2000, 'counted without tokenizing the payload')
  t.equal(tokens, Math.ceil((MB / AUDIO_BYTES_PER_SECOND) * AUDIO_TOKENS_PER_SECOND))
  const parsed = parseConversation(messages, { format: 'openai' })
  const part = parsed.messages[0]!.parts[1]!
  t.equal(part.type, 'opaque')
  if (part.type === 'opaque') {
    t.ok(part.text.length < 300, `the part's text is a note, not the payload: ${part.text}`)
    t.match(part.text, /\[audio audio\/mp3, 1048576 bytes\]/)
  }
  t.equal(JSON.stringify(serializeConversation(parsed.messages, 'openai').messages), JSON.stringify(messages), 'the kept message is the caller\'s bytes')
})

t.test('a WAV payload is timed by its header\'s byte rate', async (t) => {
  const data = wav(3, 48_000)
  const messages = [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data, format: 'wav' } }] }]
  t.equal(partTokens(messages, 'openai', [{ role: 'user', content: [] }]), Math.ceil(((3 * 48_000 + 44) / 48_000) * AUDIO_TOKENS_PER_SECOND))
})

t.test('a PDF is counted per page, by its page objects, in every format', async (t) => {
  const data = pdf(4)
  const cases: Array<['openai' | 'anthropic' | 'ai-sdk', unknown]> = [
    ['openai', { type: 'file', file: { filename: 'report.pdf', file_data: `data:application/pdf;base64,${data}` } }],
    ['anthropic', { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data } }],
    ['ai-sdk', { type: 'file', data, mediaType: 'application/pdf' }],
  ]
  for (const [format, part] of cases) {
    const tokens = partTokens([{ role: 'user', content: [{ type: 'text', text: 'Summarise.' }, part] }], format, [{ role: 'user', content: [{ type: 'text', text: 'Summarise.' }] }])
    t.equal(tokens, 4 * DOCUMENT_TOKENS_PER_PAGE, `${format}: 4 pages`)
  }
})

t.test('rules for what the file does not say', async (t) => {
  t.equal(mediaTokens({ kind: 'document', bytes: 3 * DOCUMENT_BYTES_PER_PAGE }), 3 * DOCUMENT_TOKENS_PER_PAGE, 'a PDF without readable page objects: one page per 20 KB')
  t.equal(mediaTokens({ kind: 'file', mediaType: 'application/zip', bytes: 4000 }), 4000 / FILE_BYTES_PER_TOKEN, 'another file: a token per 4 bytes')
  t.equal(mediaTokens({ kind: 'document' }), DOCUMENT_TOKENS_PER_PAGE, 'by reference: one page')
  t.equal(base64Bytes(Buffer.from('abcd').toString('base64')), 4)
  t.equal(base64Bytes(Buffer.from('abcde').toString('base64')), 5)
  // An Anthropic document by URL, and a text document (counted as its text).
  const byUrl = parseConversation([{ role: 'user', content: [{ type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } }] }], { format: 'anthropic' })
  const part = byUrl.messages[0]!.parts[0]!
  t.same(part.type === 'opaque' ? part.media : undefined, { kind: 'document' })
  const text = parseConversation([{ role: 'user', content: [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'plain words' } }] }], { format: 'anthropic' })
  const textPart = text.messages[0]!.parts[0]!
  t.equal(textPart.type === 'opaque' ? textPart.media : 'not opaque', undefined, 'a text document is text')
})

t.test('the heuristic counter uses the same rule, and a document in a tool result is a note', async (t) => {
  const data = zeros(MB)
  const messages = [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data, format: 'mp3' } }] }]
  const counted = countConversation(parseConversation(messages, { format: 'openai' }).messages, heuristicCounter(false)).totalTokens
  t.ok(counted < 1000, `heuristic: ${counted} tokens, not ~${Math.round((data.length / 4) * 1.0)}`)
  const anthropic = parseConversation(
    [
      { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'fetch', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: zeros(MB) } }] }] },
    ],
    { format: 'anthropic' },
  )
  const result = anthropic.messages[1]!.parts[0]!
  t.ok(result.type === 'tool-result' && result.text.length < 300, 'the tool result\'s text holds a note, not the payload')
})

t.test('a payload inside a part the adapter does not know is counted as media, not as base64 text', async (t) => {
  // An Anthropic image block sent in an OpenAI message (the API would refuse it; we still count it sanely).
  const data = zeros(MB)
  const messages = [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data } }] }]
  const parsed = parseConversation(messages, { format: 'openai' })
  const part = parsed.messages[0]!.parts[0]!
  t.equal(part.type, 'opaque')
  t.same(part.type === 'opaque' ? part.media?.kind : undefined, 'image', 'an image, by its type')
  t.equal(partTokens(messages, 'openai', [{ role: 'user', content: [] }]), 765)
  t.ok(part.type === 'opaque' && part.text.length < 300, 'its text is a note')
  // A newer part type with a data: URL, and one with a short string: the latter stays JSON.
  const newer = parseConversation([{ role: 'user', content: [{ type: 'input_video', video: `data:video/mp4;base64,${zeros(40_000)}` }] }], { format: 'openai' }).messages[0]!.parts[0]!
  t.same(newer.type === 'opaque' ? newer.media : undefined, { kind: 'file', mediaType: 'video/mp4', bytes: 40_000 })
  const small = parseConversation([{ role: 'user', content: [{ type: 'input_widget', id: 'w1' }] }], { format: 'openai' }).messages[0]!.parts[0]!
  t.same(small, { type: 'opaque', text: '{"type":"input_widget","id":"w1"}' })
})
