/**
 * Text for the archive's full-text index and the words of a search, both fed to
 * PostgreSQL's `simple` configuration (no stemming: agent text is code, paths and many
 * languages; it lower-cases, so case never matters).
 *
 * Why expand in TypeScript: PostgreSQL's parser keeps `src/db/pool.ts`, `a.b.c` and
 * `CamelCase` as one token each, so a search for `pool` would miss them. Each such
 * identifier is indexed as itself plus its parts (`src db pool ts`, `camel case`), so it
 * matches whole and by its parts. The same expansion runs on the query, so both sides
 * produce the same lexemes. (snake_case needs nothing: the parser splits at `_`.)
 */

/** Identifiers joined by `.`, `/`, `:`, `\` or `-`, and camel humps: the ones the parser keeps whole. */
const COMPOUND = /[\p{L}\p{N}_]+(?:[./:\\-][\p{L}\p{N}_]+)+/gu
const CAMEL = /\b[\p{Ll}\p{N}]+(?:\p{Lu}[\p{Ll}\p{N}]*)+\b|\b\p{Lu}[\p{Ll}\p{N}]+(?:\p{Lu}[\p{Ll}\p{N}]*)+\b/gu
const CAMEL_HUMPS = /\p{Lu}?[\p{Ll}\p{N}]+|\p{Lu}+(?![\p{Ll}])/gu

/** At most this many distinct parts are appended per text: a 500 KB output of paths does not double. */
const MAX_EXPANSIONS = 4_000

/** The parts an identifier is also indexed by ([] when it has none): its pieces, camel humps, and a path's file name. */
export function identifierParts(token: string): string[] {
  const parts: string[] = []
  const base = /[/\\]/.test(token) ? token.slice(Math.max(token.lastIndexOf('/'), token.lastIndexOf('\\')) + 1) : ''
  if (base.includes('.')) parts.push(base)
  for (const piece of token.split(/[./:\\\-_]+/)) {
    if (!piece) continue
    const humps = piece.match(CAMEL_HUMPS)
    if (humps && humps.length > 1) parts.push(piece, ...humps)
    else parts.push(piece)
  }
  return parts.length > 1 ? parts : []
}

/**
 * `text` followed by the parts of its compound identifiers, each distinct identifier once.
 * What is indexed; the archive keeps the original for snippets and reads.
 */
export function expandForIndex(text: string): string {
  const seen = new Set<string>()
  const extra: string[] = []
  const collect = (re: RegExp) => {
    for (const m of text.matchAll(re)) {
      if (seen.size >= MAX_EXPANSIONS) return
      const token = m[0]
      if (seen.has(token)) continue
      seen.add(token)
      const parts = identifierParts(token)
      if (parts.length) extra.push(parts.join(' '))
    }
  }
  collect(COMPOUND)
  collect(CAMEL)
  return extra.length ? `${text}\n${extra.join('\n')}` : text
}

/**
 * Chunks of at most `size` characters, cut at a line break where one is near. PostgreSQL
 * stops recording word positions at 16,383, and a tsvector holds at most 1 MB, so a huge
 * tool output is indexed (and ranked, and its snippet cut) chunk by chunk.
 */
export function chunkText(text: string, size = 16_384): string[] {
  if (text.length <= size) return [text]
  const chunks: string[] = []
  let start = 0
  while (start < text.length) {
    let end = Math.min(text.length, start + size)
    if (end < text.length) {
      const nl = text.lastIndexOf('\n', end)
      if (nl > start + size / 2) end = nl + 1
    }
    chunks.push(text.slice(start, end))
    start = end
  }
  return chunks
}

/**
 * Words too common to rank by: English function words and the question words an agent
 * writes ("how does the X handle Y"). Removed from queries only; the index keeps them.
 */
export const QUERY_STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a an and are as at be been being but by can could did do does doing done for from had has have having how i if in into is it its ' +
    'me my no not of on or our should so than that the their them then there these they this those to too us was we were what when ' +
    'where which while who whom why will with would you your about after again all also any because before both each few more most ' +
    'other out over same some such up very just now only own once here under until down off further between through during against ' +
    'above below tell show find give know get got use used using value values say said does did make made'
  ).split(/\s+/),
)

/** Most words a query keeps (rarest first, chosen in SQL); a pasted paragraph is not a hundred-term query. */
export const MAX_QUERY_WORDS = 24

/**
 * The query as it is handed to PostgreSQL's parser: the agent's words with their
 * identifiers expanded like the index. Lexemes come back from to_tsvector, so both sides
 * split words the same way; stopwords are removed from them (isQueryStopword).
 */
export function expandQuery(q: string): string {
  return expandForIndex(q.slice(0, 2_000))
}

export function isQueryStopword(lexeme: string): boolean {
  return QUERY_STOPWORDS.has(lexeme) || (lexeme.length < 2 && !/[^\x00-\x7f]/.test(lexeme))
}

/**
 * A lexeme as a tsquery literal (quoted, so no operator in it is read). Words in scripts
 * that attach particles (Korean `데이터베이스는`) match by prefix, so a query for the bare
 * word finds them.
 */
export function lexemeQuery(lexeme: string): string {
  const quote = (w: string) => `'${w.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`
  // Prefix matches cost the GIN index a range scan per word: only where words carry particles.
  return /[^\x00-\x7f]/.test(lexeme) ? `${quote(lexeme)}:*` : quote(lexeme)
}


/** One chunk of an archived message: its text (for snippets) and what is indexed. */
export interface IndexChunk {
  body: string
  expanded: string
}

/** A text's chunks for the index: NUL-free (text columns cannot hold it), cut, expanded. */
export function indexChunks(text: string): IndexChunk[] {
  return chunkText(text.replace(/\u0000/g, ' ')).map((body) => ({ body, expanded: expandForIndex(body) }))
}
