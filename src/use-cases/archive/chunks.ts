/**
 * The compute task `archive-chunks`: archived messages (their stored JSON, decrypted) into
 * the chunks the search index is made of. CPU work (parsing, the identifier expansion),
 * so it runs in the compute pool, off the event loop.
 */
import { archivedText } from '../../engine/archive/record.ts'
import { indexChunks, type IndexChunk } from '../../engine/archive/search-text.ts'
import { isCompactdSummary } from '../../engine/facts/earlier-summary.ts'
import type { MessageFormat } from '../../engine/messages/index.ts'

export interface ChunkTaskItem {
  hash: string
  format: string
  /** The stored JSON (decrypted). */
  raw: string
}

export interface IndexedMessage {
  hash: string
  /** One of compactd's own earlier summaries: indexed at a lower weight (src/archive/search.ts). */
  derived: boolean
  chunks: IndexChunk[]
}

export function computeArchiveChunks(items: readonly ChunkTaskItem[]): IndexedMessage[] {
  return items.map((it) => {
    let text: string
    try {
      text = archivedText(it.raw, it.format as MessageFormat)
    } catch {
      // A message stored before its format's parser changed: index its JSON rather than nothing.
      text = it.raw
    }
    return { hash: it.hash, derived: isCompactdSummary(text), chunks: indexChunks(text) }
  })
}
