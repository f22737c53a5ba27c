/**
 * One session: token timeline, current summary (editable) and continuation, a search of its archive, the context the
 * model gets now, versions with diffs, checkpoints, the recent window. Every `[ref …]` on it opens the archived original.
 */
import { diffLines } from 'diff'
import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import { allPages, api, ApiError, enc, fmtInt, fmtTime } from './api.ts'
import { ArchiveScope, ArchiveSearchSection } from './archive.tsx'
import { TokenChart, type Checkpoint } from './chart.tsx'
import { CurrentContext } from './context-view.tsx'
import { Markdown } from './markdown.tsx'
import { MessageList } from './message-list.tsx'
import { display, type Shown } from './messages.ts'
import { SummarySection, type Summary } from './summary-editor.tsx'

interface Session {
  id: string
  settings: { format?: string; model?: string; windowMessages: number; windowTokens: number; summaryBudget: number; batchSize: number; mode: string }
  messageCount: number
  windowMessages: number
  windowTokens: number
  evictedAwaitingSummary: number
  summarizedMessages: number
  update: { status: string } | null
}
interface Version {
  version: number
  tokens: number
  updatedAt: string
  source: string
  writtenBy: 'background' | 'aging' | 'manual'
  mode: string | null
  foldedMessages: number | null
}
interface Continuation {
  currentTask: string
  completedSteps: string[]
  pendingSteps: string[]
  keyDecisions: string[]
  relevantFiles: string[]
}
interface WindowMessage {
  seq: number
  role: string
  tokens: number
  messageAt: string
  message: unknown
  /** Filled in by the page: the message in the server's display form. */
  shown?: Shown
}
interface Stats {
  checkpoints: number
  tokensSaved: number
  totalSummaryCostUsd: number
  averageCompressionRatio: number
  /** The compaction circuit breaker (an older server sends none). */
  breaker?: { state: 'closed' | 'open'; reason?: string; retryAfterSeconds?: number; recent: unknown[] }
}

const orNull = <T,>(p: Promise<T>): Promise<T | null> => p.catch((e) => (e instanceof ApiError && e.status === 404 ? null : Promise.reject(e)))

export function SessionPage({ id }: { id: string }) {
  const base = `/sessions/${enc(id)}`
  const [data, setData] = useState<{
    session: Session | null
    stats: Stats | null
    checkpoints: Checkpoint[]
    versions: Version[]
    summary: Summary | null
    continuation: Continuation | null
    window: WindowMessage[]
  } | null>(null)
  const [error, setError] = useState<string | null>(null)
  // Bumped after a summary is saved: everything below is read again, without blanking the page.
  const [generation, setGeneration] = useState(0)
  const shownId = useRef(id)
  const reloaded = useRef<(() => void) | null>(null)

  useEffect(() => {
    let live = true
    if (shownId.current !== id) setData(null)
    shownId.current = id
    ;(async () => {
      // Everything at once: one round trip before the page renders.
      const [session, stats, checkpoints, versions, window, current, cont] = await Promise.all([
        orNull(api<Session>(base)),
        orNull(api<Stats>(`${base}/stats`)),
        orNull(allPages<Checkpoint>(`${base}/checkpoints`, 100)),
        orNull(allPages<Version>(`${base}/summary/versions`, 200)),
        orNull(allPages<WindowMessage>(`${base}/messages?status=window`, 200)),
        orNull(api<Summary>(`${base}/summary`)),
        orNull(api<Continuation>(`${base}/continuation`)),
      ])
      const hasSummary = (versions?.length ?? 0) > 0
      const [summary, continuation] = hasSummary ? [current, cont] : [null, null]
      if (!session && !checkpoints) throw new Error(`No session or compaction series "${id}".`)
      const shown = window?.length ? (await display({ messages: window.map((m) => m.message), format: session?.settings.format })).messages : []
      const shownWindow = (window ?? []).map((m, i) => ({ ...m, shown: shown[i] }))
      if (live) setData({ session, stats, checkpoints: (checkpoints ?? []).reverse(), versions: versions ?? [], summary, continuation, window: shownWindow })
    })()
      .catch((e: Error) => live && setError(e.message))
      .finally(() => reloaded.current?.())
    return () => {
      live = false
    }
  }, [id, generation])
  /** Read the page again; resolves once it has been. */
  const reload = () =>
    new Promise<void>((resolve) => {
      reloaded.current = () => {
        reloaded.current = null
        resolve()
      }
      setGeneration((g) => g + 1)
    })

  if (error) return <p role="alert" class="error">{error}</p>
  if (!data) return <p class="loading">Loading {id}…</p>
  const { session, stats, checkpoints, versions, summary, continuation, window } = data
  const versionPoints = [...versions].reverse()
  return (
    <ArchiveScope key={base} base={base}>
      <article aria-labelledby="session-title" data-testid="session-page" data-ready="true">
        <p>
          <a href="#/">← Sessions</a>
        </p>
        <h1 id="session-title">{id}</h1>
        <dl class="facts">
          {session && (
            <>
              <dt>Model</dt>
              <dd>{session.settings.model ?? 'default'}</dd>
              <dt>Messages</dt>
              <dd>{fmtInt(session.messageCount)}</dd>
              <dt>Window</dt>
              <dd>
                {fmtInt(session.windowMessages)}/{fmtInt(session.settings.windowMessages)} messages · {fmtInt(session.windowTokens)}/{fmtInt(session.settings.windowTokens)} tokens
              </dd>
              <dt>Awaiting summary</dt>
              <dd>{fmtInt(session.evictedAwaitingSummary)}</dd>
              <dt>Summary mode</dt>
              <dd>
                {session.settings.mode} · budget {fmtInt(session.settings.summaryBudget)} · {session.update ? `update ${session.update.status}` : 'no update queued'}
              </dd>
            </>
          )}
          {stats && (
            <>
              <dt>Checkpoints</dt>
              <dd>{fmtInt(stats.checkpoints)}</dd>
              <dt>Tokens saved</dt>
              <dd>
                {fmtInt(stats.tokensSaved)} (average ratio {stats.averageCompressionRatio}, cost ${stats.totalSummaryCostUsd.toFixed(4)})
              </dd>
              {stats.breaker && (
                <>
                  <dt>Compaction breaker</dt>
                  <dd data-testid="session-breaker" class={stats.breaker.state === 'open' ? 'error' : undefined}>
                    {stats.breaker.state === 'open'
                      ? `open: ${stats.breaker.reason ?? ''} (automatic compactions retried in ${fmtInt(stats.breaker.retryAfterSeconds ?? 0)} s, or after a manual compaction or POST …/breaker/reset)`
                      : `closed · ${fmtInt(stats.breaker.recent.length)} recent automatic compactions`}
                  </dd>
                </>
              )}
            </>
          )}
        </dl>

        <section aria-labelledby="timeline-title">
          <h2 id="timeline-title">Token timeline</h2>
          {checkpoints.length || versions.length ? (
            <TokenChart checkpoints={checkpoints} versions={versionPoints} summaryBudget={session?.settings.summaryBudget ?? null} />
          ) : (
            <p class="muted">No compactions or summary versions yet.</p>
          )}
        </section>

        {(session || summary) && (
          <SummarySection base={base} summary={summary} onSaved={reload}>
            {summary && (
              <div class="two">
                <Markdown text={summary.text} testid="current-summary" />
                {continuation && <ContinuationView c={continuation} />}
              </div>
            )}
          </SummarySection>
        )}

        <ArchiveSearchSection base={base} />
        {session && <CurrentContext base={base} generation={generation} />}
        {/* Keyed by the newest version: a version saved here opens its own diff. */}
        {versions.length > 0 && <Versions key={versions[0]!.version} base={base} versions={versions} />}
        {checkpoints.length > 0 && <Checkpoints checkpoints={checkpoints} />}
        {session && <RecentWindow messages={window} />}
      </article>
    </ArchiveScope>
  )
}

function ContinuationView({ c }: { c: Continuation }) {
  const list = (label: string, items: string[]) => (
    <>
      <dt>{label}</dt>
      <dd>{items.length ? <ul>{items.map((i) => <li>{i}</li>)}</ul> : <span class="muted">none</span>}</dd>
    </>
  )
  return (
    <dl class="continuation" data-testid="continuation">
      <dt>Current task</dt>
      <dd>{c.currentTask || <span class="muted">none</span>}</dd>
      {list('Completed', c.completedSteps)}
      {list('Pending', c.pendingSteps)}
      {list('Key decisions', c.keyDecisions)}
      {list('Relevant files', c.relevantFiles)}
    </dl>
  )
}

const WRITTEN_BY: Record<string, string> = { background: 'background update', aging: 'aging', manual: 'manual replace' }

function Versions({ base, versions }: { base: string; versions: Version[] }) {
  const newest = versions[0]!.version
  const [from, setFrom] = useState(versions[1]?.version ?? newest)
  const [to, setTo] = useState(newest)
  const [layout, setLayout] = useState<'inline' | 'side'>('inline')
  const [texts, setTexts] = useState<{ from: string; to: string } | null>(null)
  const [error, setError] = useState<string | null>(null)
  useEffect(() => {
    let live = true
    setTexts(null)
    Promise.all([api<{ text: string }>(`${base}/summary/versions/${from}`), api<{ text: string }>(`${base}/summary/versions/${to}`)])
      .then(([a, b]) => live && setTexts({ from: a.text, to: b.text }))
      .catch((e: Error) => live && setError(e.message))
    return () => {
      live = false
    }
  }, [from, to])
  const parts = useMemo(() => (texts ? diffLines(texts.from, texts.to) : []), [texts])
  const select = (label: string, idFor: string, value: number, set: (v: number) => void) => (
    <>
      <label for={idFor}>{label}</label>
      <select id={idFor} value={value} onChange={(e) => set(Number(e.currentTarget.value))}>
        {versions.map((v) => (
          <option value={v.version}>
            v{v.version} · {WRITTEN_BY[v.writtenBy]} · {fmtTime(v.updatedAt)}
          </option>
        ))}
      </select>
    </>
  )
  return (
    <section aria-labelledby="versions-title">
      <h2 id="versions-title">Summary versions ({versions.length})</h2>
      <div class="two">
        <ol class="versions" data-testid="versions">
          {versions.map((v) => (
            <li>
              <b>v{v.version}</b> <span class={`badge ${v.writtenBy}`}>{WRITTEN_BY[v.writtenBy]}</span> {fmtInt(v.tokens)} tokens · {fmtTime(v.updatedAt)}
              {v.mode ? ` · ${v.mode}` : ''}
              {v.foldedMessages ? ` · ${v.foldedMessages} messages folded in` : ''}
            </li>
          ))}
        </ol>
        <div>
          <div class="toolbar">
            {select('Compare', 'diff-from', from, setFrom)}
            {select('with', 'diff-to', to, setTo)}
            <label for="diff-layout">Layout</label>
            <select id="diff-layout" value={layout} onChange={(e) => setLayout(e.currentTarget.value as 'inline' | 'side')}>
              <option value="inline">inline</option>
              <option value="side">side by side</option>
            </select>
          </div>
          {error && <p role="alert" class="error">{error}</p>}
          {texts && (layout === 'inline' ? <InlineDiff parts={parts} /> : <SideDiff parts={parts} />)}
        </div>
      </div>
    </section>
  )
}

type Part = { value: string; added?: boolean; removed?: boolean }
const lines = (s: string) => s.replace(/\n$/, '').split('\n')

function InlineDiff({ parts }: { parts: Part[] }) {
  return (
    <pre class="diff" data-testid="diff" aria-label="Differences between the two versions">
      {parts.flatMap((p) =>
        lines(p.value).map((l) => (
          <div class={p.added ? 'add' : p.removed ? 'del' : 'same'}>
            <span class="sign" aria-hidden="true">{p.added ? '+' : p.removed ? '−' : ' '}</span>
            {p.added ? <ins>{l}</ins> : p.removed ? <del>{l}</del> : l}
          </div>
        )),
      )}
    </pre>
  )
}

function SideDiff({ parts }: { parts: Part[] }) {
  const rows: { l?: string; r?: string; kind: string }[] = []
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!
    if (p.removed && parts[i + 1]?.added) {
      const a = lines(p.value)
      const b = lines(parts[i + 1]!.value)
      for (let k = 0; k < Math.max(a.length, b.length); k++) rows.push({ l: a[k], r: b[k], kind: 'change' })
      i++
    } else if (p.removed) for (const l of lines(p.value)) rows.push({ l, kind: 'del' })
    else if (p.added) for (const r of lines(p.value)) rows.push({ r, kind: 'add' })
    else for (const l of lines(p.value)) rows.push({ l, r: l, kind: 'same' })
  }
  return (
    <table class="diff side" data-testid="diff">
      <thead>
        <tr>
          <th scope="col">older</th>
          <th scope="col">newer</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr class={r.kind}>
            <td class={r.l !== undefined && r.kind !== 'same' ? 'del' : undefined}>{r.kind !== 'same' && r.l !== undefined ? <del>{r.l}</del> : r.l}</td>
            <td class={r.r !== undefined && r.kind !== 'same' ? 'add' : undefined}>{r.kind !== 'same' && r.r !== undefined ? <ins>{r.r}</ins> : r.r}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

function Checkpoints({ checkpoints }: { checkpoints: Checkpoint[] }) {
  const newestFirst = [...checkpoints].reverse()
  return (
    <section aria-labelledby="checkpoints-title">
      <h2 id="checkpoints-title">Checkpoints ({checkpoints.length})</h2>
      <div class="checkpoints" data-testid="checkpoints">
        {newestFirst.map((c) => (
          <details>
            <summary>
              <b>#{c.checkpointNum}</b> {fmtTime(c.createdAt)} · {c.strategy ?? '–'} · {fmtInt(c.originalTokens)} → {fmtInt(c.compressedTokens)} tokens (×{c.compressionRatio ?? '–'})
              {c.foldedFrom ? ` · folded from ${c.foldedFrom.join(', ')}` : ''}
            </summary>
            <p>
              {c.fromMessageIndex !== null
                ? `Compacted messages ${c.fromMessageIndex}–${c.toMessageIndex} (${fmtInt(c.messagesCompressed)} messages); kept verbatim: messages 0–${Math.max(0, c.fromMessageIndex - 1)} and everything after ${c.toMessageIndex}.`
                : 'Nothing compacted into a summary; every message kept (tool results masked).'}{' '}
              Budget {fmtInt(c.targetTokens)} · model {c.model ?? '–'} · {c.durationMs === null ? '' : `${fmtInt(c.durationMs)} ms · `}cost ${(c.summaryCostUsd ?? 0).toFixed(4)}
            </p>
            {c.summary ? <LazyMarkdown text={c.summary} /> : <p class="muted">No summary (masking only).</p>}
          </details>
        ))}
      </div>
    </section>
  )
}

/** Rendered when its <details> is first opened: 200 checkpoints' summaries are not parsed up front. */
function LazyMarkdown({ text }: { text: string }) {
  const [open, setOpen] = useState(false)
  const ref = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const details = ref.current?.closest('details')
    if (!details) return
    const on = () => details.open && setOpen(true)
    details.addEventListener('toggle', on)
    return () => details.removeEventListener('toggle', on)
  }, [])
  return <div ref={ref}>{open ? <Markdown text={text} /> : null}</div>
}

function RecentWindow({ messages }: { messages: WindowMessage[] }) {
  return (
    <section aria-labelledby="window-title">
      <h2 id="window-title">Recent window ({messages.length} messages)</h2>
      <MessageList
        testid="window"
        items={messages.map((m) => ({
          shown: m.shown ?? { role: m.role, text: JSON.stringify(m.message), calls: [], results: [] },
          meta: (
            <>
              #{m.seq} <b>{m.role}</b> · {fmtInt(m.tokens)} tokens · {fmtTime(m.messageAt)}
            </>
          ),
          ref: `#${m.seq}, ${fmtInt(m.tokens)} tokens`,
        }))}
      />
    </section>
  )
}
