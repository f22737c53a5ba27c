/** The tenant's sessions and compaction series: search, sort, pages (GET /sessions). */
import { useEffect, useState } from 'preact/hooks'
import { api, enc, fmtInt, fmtTime } from './api.ts'

export interface SessionRow {
  id: string
  kind: 'session' | 'series' | 'both'
  lastActivity: string
  messageCount: number
  windowMessages: number
  windowTokens: number
  windowLimit: { messages: number; tokens: number } | null
  summaryVersion: number
  summaryTokens: number
  checkpoints: number
  tokensSaved: number
  update: { status: string; attempts: number; lastError: string | null } | null
  updateFailures: number
}

const COLUMNS: { key: string; label: string; sort?: string; num?: boolean }[] = [
  { key: 'id', label: 'Session', sort: 'id' },
  { key: 'lastActivity', label: 'Last activity', sort: 'lastActivity' },
  { key: 'messageCount', label: 'Messages', sort: 'messageCount', num: true },
  { key: 'window', label: 'Window (msgs / tokens)', num: true },
  { key: 'summary', label: 'Summary (version, tokens)', sort: 'summaryTokens', num: true },
  { key: 'checkpoints', label: 'Checkpoints', sort: 'checkpoints', num: true },
  { key: 'tokensSaved', label: 'Tokens saved', sort: 'tokensSaved', num: true },
  { key: 'updateFailures', label: 'Update failures', sort: 'updateFailures', num: true },
]

export function SessionsList() {
  const [q, setQ] = useState('')
  const [query, setQuery] = useState('')
  const [sort, setSort] = useState('lastActivity')
  const [order, setOrder] = useState<'asc' | 'desc'>('desc')
  const [cursors, setCursors] = useState<(string | null)[]>([null])
  const [page, setPage] = useState<{ items: SessionRow[]; nextCursor: string | null; total: number } | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [loading, setLoading] = useState(false)
  const cursor = cursors.at(-1) ?? null

  useEffect(() => {
    const t = setTimeout(() => {
      setQuery(q)
      setCursors([null])
    }, 250)
    return () => clearTimeout(t)
  }, [q])

  useEffect(() => {
    let live = true
    setLoading(true)
    const params = `q=${enc(query)}&sort=${sort}&order=${order}&limit=50${cursor ? `&cursor=${enc(cursor)}` : ''}`
    api<{ items: SessionRow[]; nextCursor: string | null; total: number }>(`/sessions?${params}`)
      .then((p) => live && (setPage(p), setError(null)))
      .catch((e: Error) => live && setError(e.message))
      .finally(() => live && setLoading(false))
    return () => {
      live = false
    }
  }, [query, sort, order, cursor])

  const sortBy = (key: string) => {
    if (key === sort) setOrder(order === 'asc' ? 'desc' : 'asc')
    else {
      setSort(key)
      setOrder(key === 'id' ? 'asc' : 'desc')
    }
    setCursors([null])
  }

  return (
    <section aria-labelledby="sessions-title">
      <h1 id="sessions-title">Sessions</h1>
      <div class="toolbar">
        <label for="session-search">Search ids</label>
        <input id="session-search" type="search" value={q} onInput={(e) => setQ(e.currentTarget.value)} placeholder="part of an id" />
        <label for="session-sort">Sort by</label>
        <select
          id="session-sort"
          value={sort}
          onChange={(e) => {
            setSort(e.currentTarget.value)
            setCursors([null])
          }}
        >
          {COLUMNS.filter((c) => c.sort).map((c) => (
            <option value={c.sort}>{c.label}</option>
          ))}
          <option value="summaryVersion">Summary version</option>
        </select>
        <label for="session-order">Order</label>
        <select
          id="session-order"
          value={order}
          onChange={(e) => {
            setOrder(e.currentTarget.value as 'asc' | 'desc')
            setCursors([null])
          }}
        >
          <option value="desc">descending</option>
          <option value="asc">ascending</option>
        </select>
        <span class="count" data-testid="session-total" aria-live="polite">
          {page ? `${fmtInt(page.total)} sessions` : ''}
          {loading ? ' · loading…' : ''}
        </span>
      </div>
      {error && <p role="alert" class="error">{error}</p>}
      <table class="grid" data-testid="sessions-table">
        <thead>
          <tr>
            {COLUMNS.map((c) => (
              <th scope="col" class={c.num ? 'num' : undefined} aria-sort={c.sort === sort ? (order === 'asc' ? 'ascending' : 'descending') : undefined}>
                {c.sort ? (
                  <button type="button" class="sort" onClick={() => sortBy(c.sort!)}>
                    {c.label}
                    {c.sort === sort ? (order === 'asc' ? ' ▲' : ' ▼') : ''}
                  </button>
                ) : (
                  c.label
                )}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {page?.items.map((s) => (
            <tr data-session={s.id}>
              <th scope="row">
                <a href={`#/s/${enc(s.id)}`}>{s.id}</a> <span class={`badge ${s.kind}`}>{s.kind}</span>
              </th>
              <td>{fmtTime(s.lastActivity)}</td>
              <td class="num">{fmtInt(s.messageCount)}</td>
              <td class="num">{s.windowLimit ? `${fmtInt(s.windowMessages)}/${fmtInt(s.windowLimit.messages)} · ${fmtInt(s.windowTokens)}` : '–'}</td>
              <td class="num">{s.summaryVersion ? `v${s.summaryVersion} · ${fmtInt(s.summaryTokens)}` : '–'}</td>
              <td class="num">{fmtInt(s.checkpoints)}</td>
              <td class="num">{fmtInt(s.tokensSaved)}</td>
              <td class={`num${s.updateFailures || s.update?.status === 'failed' ? ' bad' : ''}`} title={s.update?.lastError ?? undefined}>
                {s.update?.status === 'failed' ? `gave up (${s.updateFailures})` : fmtInt(s.updateFailures)}
              </td>
            </tr>
          ))}
          {page && page.items.length === 0 && (
            <tr>
              <td colSpan={COLUMNS.length}>No sessions{query ? ` matching "${query}"` : ''}. Sessions appear here once a client appends messages or compacts with a sessionId.</td>
            </tr>
          )}
        </tbody>
      </table>
      <div class="pager">
        <button type="button" disabled={cursors.length <= 1} onClick={() => setCursors(cursors.slice(0, -1))}>
          Previous page
        </button>
        <span>Page {cursors.length}</span>
        <button type="button" disabled={!page?.nextCursor} onClick={() => page?.nextCursor && setCursors([...cursors, page.nextCursor])}>
          Next page
        </button>
      </div>
    </section>
  )
}
