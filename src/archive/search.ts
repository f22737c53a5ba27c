/**
 * Search over a session's archive with PostgreSQL's full-text search, the same SQL on
 * PGlite and the server (docs/internals.md, "Archive search", has the measurements behind
 * each choice):
 *
 * 1. The query's words become lexemes the way the index made them (to_tsvector 'simple'
 *    over the identifier-expanded query), minus stopwords.
 * 2. Each word's document frequency in the session: words in more than a fifth of the
 *    chunks say little and are dropped (the rarest word always stays).
 * 3. Candidates: chunks matching ANY kept word (a hit needs no match on every word), the
 *    rarest words first, as many as keep the candidate set near CANDIDATE_ROWS.
 * 4. Score: Σ idf(word) × ts_rank(tsv, word, 1), BM25's shape (rare words weigh more,
 *    long chunks are normalised); a message scores as its best chunk, and compactd's own
 *    earlier summaries weigh a quarter (ARCHIVE_RANK_WEIGHTS).
 * 5. Snippet: ts_headline over the best chunk, 300–800 characters.
 */
import { sql, type Kysely, type Transaction } from 'kysely'
import type { Database } from '../db/schema.ts'
import { parseConversation, messageText, type MessageFormat } from '../engine/messages/index.ts'
import { chunkText, expandQuery, isQueryStopword, lexemeQuery, MAX_QUERY_WORDS } from '../engine/archive/search-text.ts'
import { decodeText } from '../db/nul.ts'
import { decryptArchived } from './cipher.ts'
import { withinRetention } from './repository.ts'

type Db = Kysely<Database> | Transaction<Database>

export interface ArchiveHit {
  ref: string
  role: string
  toolName: string | null
  snippet: string
  score: number
  checkpointNum: number | null
  position: number
  source: string
}

export interface SearchOutcome {
  hits: ArchiveHit[]
  /** The words searched for, rarest first (after stopwords and too-common words). */
  terms: string[]
}

/** Candidate chunks ranked per query: enough for recall, few enough for a bounded p99. */
const CANDIDATE_ROWS = 500
/**
 * Words in more than this share of the session's chunks are dropped from the query: a
 * filler word repeated in many outputs would otherwise outrank the one rare word that
 * names the answer (tried: keeping every word in archives under 200 chunks lost the
 * rare-word hit in test/cli/mcp.test.ts's session).
 */
const COMMON_SHARE = 0.2
export const SNIPPET_MIN_CHARS = 300
export const SNIPPET_MAX_CHARS = 800
/**
 * ts_rank's weights by class {D, C, B, A}: an original message's lexemes (class D) weigh
 * as to_tsvector's default; compactd's own earlier summaries (class C, storeChunks) a
 * quarter of that. A summary repeats, densely, the words of the messages it summarised, so
 * at equal weight it outranked them; demoted, it still answers what only it says.
 */
const ARCHIVE_RANK_WEIGHTS = '{0.1, 0.025, 0.4, 1.0}'
const HEADLINE_OPTIONS = 'MaxFragments=2, MaxWords=60, MinWords=35, ShortWord=2, FragmentDelimiter=" … ", StartSel="", StopSel=""'

export async function searchArchive(
  db: Db,
  tenantId: string,
  sessionId: string,
  q: string,
  limit: number,
  opts: { retentionDays: number; key?: Buffer },
): Promise<SearchOutcome> {
  const lexemes = await sql<{ lexeme: string }>`select unnest(tsvector_to_array(to_tsvector('simple', ${expandQuery(q)}))) as lexeme`.execute(db)
  const words = [...new Set(lexemes.rows.map((r) => r.lexeme))].filter((w) => !isQueryStopword(w))
  if (words.length === 0) return { hits: [], terms: [] }
  const queries = words.map(lexemeQuery)

  const freq = await sql<{ n: string | number; i: number; df: string | number }>`
    select (select count(*) from archive_chunks where tenant_id = ${tenantId} and session_id = ${sessionId}) as n, t.i,
      (select count(*) from archive_chunks c where c.tenant_id = ${tenantId} and c.session_id = ${sessionId} and c.tsv @@ t.q::tsquery) as df
    from unnest(${sql.val(queries)}::text[]) with ordinality as t(q, i)`.execute(db)
  const n = Number(freq.rows[0]?.n ?? 0)
  const terms = freq.rows
    .map((r) => ({ word: words[r.i - 1]!, query: queries[r.i - 1]!, df: Number(r.df) }))
    .filter((t) => t.df > 0)
    .sort((a, b) => a.df - b.df)
  if (terms.length === 0) return { hits: [], terms: [] }
  const kept = terms.filter((t, k) => k === 0 || t.df <= n * COMMON_SHARE).slice(0, MAX_QUERY_WORDS)
  // Candidates: the rarest words' chunks, until the next word would pass CANDIDATE_ROWS.
  let rows = 0
  const candidates = kept.filter((t, k) => (k === 0 || rows + t.df <= CANDIDATE_ROWS) && (rows += t.df) >= 0)
  const idf = (df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5))
  const score = sql.join(
    kept.map((t) => sql`${idf(t.df)}::float8 * ts_rank(${ARCHIVE_RANK_WEIGHTS}::float4[], c.tsv, ${t.query}::tsquery, 1)`),
    sql` + `,
  )
  const any = candidates.map((t) => t.query).join(' | ')
  const all = kept.map((t) => t.query).join(' | ')

  const ranked = await sql<{ hash: string; chunk: number; body: string | null; score: number; ref: string; role: string; tool_name: string | null; checkpoint_num: number | null; position: number; source: string; raw: string; encrypted: boolean; format: string }>`
    with scored as (
      select c.hash, c.chunk, c.body, (${score}) as score
      from archive_chunks c
      where c.tenant_id = ${tenantId} and c.session_id = ${sessionId} and c.tsv @@ ${any}::tsquery
    ), best as (
      select distinct on (hash) hash, chunk, body, score from scored order by hash, score desc, chunk
    )
    select b.hash, b.chunk, b.body, b.score, a.ref, a.role, a.tool_name, a.checkpoint_num, a.position, a.source,
      case when a.encrypted then a.raw else '' end as raw, a.encrypted, a.format
    from best b join archived_messages a on a.tenant_id = ${tenantId} and a.session_id = ${sessionId} and a.hash = b.hash
    where ${withinRetention(opts.retentionDays)}
    order by b.score desc, a.position
    limit ${limit}`.execute(db)
  if (ranked.rows.length === 0) return { hits: [], terms: kept.map((t) => t.word) }

  // Encrypted archives keep no chunk text: the snippet's chunk is cut from the decrypted message.
  const bodies = ranked.rows.map((r) => r.body ?? chunkOfEncrypted(r, opts.key))
  const headlines = await sql<{ i: number; snippet: string }>`
    select t.i, ts_headline('simple', t.body, ${all}::tsquery, ${HEADLINE_OPTIONS}) as snippet
    from unnest(${sql.val(bodies)}::text[]) with ordinality as t(body, i)`.execute(db)
  const snippets = new Map(headlines.rows.map((h) => [Number(h.i), h.snippet]))
  return {
    terms: kept.map((t) => t.word),
    hits: ranked.rows.map((r, k) => ({
      ref: r.ref,
      role: r.role,
      toolName: r.tool_name === null ? null : decodeText(r.tool_name),
      snippet: fitSnippet(snippets.get(k + 1) ?? '', bodies[k]!, kept.map((t) => t.word)),
      score: Math.round(Number(r.score) * 1000) / 1000,
      checkpointNum: r.checkpoint_num,
      position: r.position,
      source: r.source,
    })),
  }
}

function chunkOfEncrypted(r: { raw: string; format: string; chunk: number }, key: Buffer | undefined): string {
  if (!key) return ''
  const message = parseConversation([JSON.parse(decryptArchived(key, r.raw))], { format: r.format as MessageFormat, allowDuplicateCallIds: true }).messages[0]
  return message ? (chunkText(messageText(message).replace(/\u0000/g, ' '))[r.chunk] ?? '') : ''
}

/**
 * The headline within 300–800 characters: a short one is widened with the text around it
 * in the chunk (a hit in a short message is the message), a long one clipped. When the
 * headline holds none of the words (a word matched only as a part of an identifier, which
 * ts_headline, reading the unexpanded text, does not see), the window is centred on the
 * first of the words, rarest first, found in the text.
 */
export function fitSnippet(headline: string, body: string, words: readonly string[] = []): string {
  let s = headline.replace(/\s+/g, ' ').trim()
  const flat = body.replace(/\s+/g, ' ').trim()
  const lower = flat.toLowerCase()
  const holds = (text: string) => words.length === 0 || words.some((w) => text.toLowerCase().includes(w))
  let centre: number | undefined
  if (!holds(s)) {
    for (const w of words) {
      const at = lower.indexOf(w)
      if (at >= 0) {
        centre = at + w.length / 2
        break
      }
    }
  }
  if (centre === undefined && s.length < SNIPPET_MIN_CHARS && flat.length > s.length) {
    // Centre a wider window on the headline's first fragment (located in the flattened text).
    const probe = s.split(' … ')[0]!.slice(0, 60)
    const at = probe ? flat.indexOf(probe) : -1
    centre = at >= 0 ? at + probe.length / 2 : 0
  }
  if (centre !== undefined) {
    const half = Math.floor(SNIPPET_MIN_CHARS * 0.75)
    const from = Math.max(0, Math.min(Math.floor(centre - half), flat.length - 2 * half))
    s = flat.slice(from, from + 2 * half)
    if (from > 0) s = `…${s}`
    if (from + 2 * half < flat.length) s = `${s}…`
  }
  return s.length > SNIPPET_MAX_CHARS ? `${s.slice(0, SNIPPET_MAX_CHARS - 1)}…` : s
}
