/**
 * A session's archive on its page (issue 21): a search over what its compactions masked,
 * summarised or dropped (GET /sessions/{id}/search), and the viewer every `[ref …]` on
 * the page opens (archive-viewer.tsx). ArchiveScope wraps the page: it provides the
 * opener to the summaries and message lists inside it, and holds the one viewer.
 */
import type { ComponentChildren } from 'preact'
import { useCallback, useRef, useState } from 'preact/hooks'
import { ApiError, fmtInt } from './api.ts'
import { describeArchived, describeOrigin, searchArchive, type ArchiveSearch } from './archive-api.ts'
import { ArchiveLinks, useArchiveLinks } from './archive-links.tsx'
import { highlightParts, queryWords } from './archive-text.ts'
import { ArchiveViewer } from './archive-viewer.tsx'

/** `base`: the session's path, /sessions/{id}. */
export function ArchiveScope({ base, children }: { base: string; children: ComponentChildren }) {
  const [open, setOpen] = useState<string | null>(null)
  const openRef = useCallback((ref: string) => setOpen(ref), [])
  return (
    <ArchiveLinks.Provider value={openRef}>
      {children}
      {open && <ArchiveViewer base={base} archiveRef={open} onClose={() => setOpen(null)} />}
    </ArchiveLinks.Provider>
  )
}

const LIMITS = [5, 10, 20, 50]

type SearchState =
  | { kind: 'idle' }
  | { kind: 'loading'; q: string }
  | { kind: 'done'; q: string; result: ArchiveSearch }
  | { kind: 'none' }
  | { kind: 'error'; message: string }

export function ArchiveSearchSection({ base }: { base: string }) {
  const open = useArchiveLinks()
  const [q, setQ] = useState('')
  const [limit, setLimit] = useState(10)
  const [state, setState] = useState<SearchState>({ kind: 'idle' })
  const asked = useRef(0)

  const run = (e: Event) => {
    e.preventDefault()
    const query = q.trim()
    if (!query) return
    const n = ++asked.current
    setState({ kind: 'loading', q: query })
    searchArchive(base, query, limit).then(
      (result) => n === asked.current && setState({ kind: 'done', q: query, result }),
      (err: Error) => {
        if (n !== asked.current) return
        if (err instanceof ApiError && err.status === 404) setState({ kind: 'none' })
        else setState({ kind: 'error', message: err.message })
      },
    )
  }

  return (
    <section aria-labelledby="archive-title" data-testid="archive-search">
      <h2 id="archive-title">
        Archive <span class="muted">GET /search</span>
      </h2>
      <p class="muted">
        The originals of what compaction masked, summarised or dropped. Search them here, or open one from a <code>[ref …]</code> in a summary or a message.
      </p>
      <form role="search" class="toolbar" onSubmit={run}>
        <label for="archive-q">Search the archive</label>
        <input id="archive-q" type="search" size={40} maxLength={2000} value={q} placeholder="words from an output, an error, a file…" onInput={(e) => setQ(e.currentTarget.value)} />
        <label for="archive-limit">Hits</label>
        <select id="archive-limit" value={limit} onChange={(e) => setLimit(Number(e.currentTarget.value))}>
          {LIMITS.map((l) => (
            <option value={l}>{l}</option>
          ))}
        </select>
        <button type="submit" disabled={!q.trim() || state.kind === 'loading'}>
          Search
        </button>
      </form>
      <div aria-live="polite" data-testid="archive-status">
        {state.kind === 'loading' && <p class="loading">Searching the archive for “{state.q}”…</p>}
        {state.kind === 'none' && <p class="muted">This session has no archive: nothing of it was compacted with archiving on.</p>}
        {state.kind === 'done' && state.result.hits.length === 0 && (
          <p class="muted">
            Nothing in this session's archive matches “{state.q}”{state.result.terms.length ? ` (searched for ${state.result.terms.join(', ')})` : ''}.
          </p>
        )}
        {state.kind === 'done' && state.result.hits.length > 0 && (
          <p class="muted">
            {fmtInt(state.result.hits.length)} {state.result.hits.length === 1 ? 'hit' : 'hits'} for {state.result.terms.join(', ') || `“${state.q}”`}, best first
          </p>
        )}
      </div>
      {state.kind === 'error' && (
        <p role="alert" class="error">
          {state.message}
        </p>
      )}
      {state.kind === 'done' && state.result.hits.length > 0 && (
        <ol class="hits" data-testid="archive-hits">
          {state.result.hits.map((h) => {
            const words = state.result.terms.length ? state.result.terms : queryWords(state.q)
            return (
              <li data-ref={h.ref}>
                <div class="hit-head">
                  <button type="button" class="ref" onClick={() => open?.(h.ref)}>
                    {describeArchived(h)} · ref {h.ref}
                  </button>{' '}
                  <span class="muted">
                    {describeOrigin(h)} · score {h.score}
                  </span>
                </div>
                <p class="snippet">
                  {highlightParts(h.snippet, words).map((p) => (p.mark ? <mark>{p.text}</mark> : p.text))}
                </p>
              </li>
            )
          })}
        </ol>
      )}
    </section>
  )
}
