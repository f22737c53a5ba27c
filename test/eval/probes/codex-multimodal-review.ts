import type { Probe } from './core.ts'

const fixture = 'uzaxirr__raze__codex-session'

/** Codex reviewing a plan for multimodal Knowledge in agno (the task, index 4, is in the compacted range). */
export const probes: Probe[] = [
  { id: 'codex-01', fixture, kind: 'continuation', question: 'What was the user asking for?', answers: ['multimodal support to the Knowledge class'] },
  { id: 'codex-02', fixture, kind: 'continuation', question: 'On which criteria did the user want the plan reviewed?', answers: ['correctness, extensibility'] },
  { id: 'codex-03', fixture, kind: 'artifact', question: 'Which PgVector method did Change 3 of the plan modify?', answers: ['_async_embed_documents'] },
  { id: 'codex-04', fixture, kind: 'artifact', question: 'Which embedder method would Document.embed() call for an image?', answers: ['get_image_embedding_and_usage'] },
  { id: 'codex-05', fixture, kind: 'continuation', question: 'Which other vector DBs did the plan ask about for the batch guard?', answers: ['Qdrant, Chroma'] },
  { id: 'codex-06', fixture, kind: 'recall', question: 'Which path did rg fail on (exit code 2)?', answers: ['libs/agno/agno/embedder: No such file or directory'] },
  { id: 'codex-07', fixture, kind: 'recall', question: 'Which GeminiEmbedder helpers gate multimodal support?', answers: ['_supports_multimodal'] },
  { id: 'codex-08', fixture, kind: 'decision', question: 'Which Knowledge helpers must media inserts go through so dedupe and tracking keep working?', answers: [['_build_content_hash', '_load_from_']] },
  { id: 'codex-09', fixture, kind: 'recall', question: 'Which batch embedding method does PgVector call when enable_batch is set?', answers: ['async_get_embeddings_batch_and_usage'] },
  { id: 'codex-10', fixture, kind: 'decision', question: 'What concern about search results was raised about media fields?', answers: ['Document.image/audio/video'] },
  { id: 'codex-11', fixture, kind: 'recall', question: 'Which module defines the Image, Audio and Video classes?', answers: ['media.py'] },
]
