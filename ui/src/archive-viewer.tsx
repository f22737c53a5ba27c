/**
 * One archived original, in a modal dialog: GET /sessions/{id}/archive/{ref}, shown
 * through POST /display and the message list like every other message, with its tool
 * results when it is a call; and, for a long output, a chosen range of its lines or the
 * lines containing a string (lines=, grep=).
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { ApiError, fmtInt } from './api.ts'
import { describeArchived, describeOrigin, readArchived, type ArchivedMessage } from './archive-api.ts'
import { MessageList, type ClipLimits, type ListedMessage } from './message-list.tsx'
import { display, type Shown } from './messages.ts'

/** Texts are cut here in the viewer (the list cuts at 600); past it, the lines control reads the rest. */
const VIEWER_CLIP: ClipLimits = { text: 20_000, args: 4_000, result: 20_000 }

export function ArchiveViewer({ base, archiveRef, onClose }: { base: string; archiveRef: string; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    const d = dialog.current!
    if (!d.open) d.showModal()
    // Escape, the close button: the dialog closes itself, then the page forgets it.
    d.addEventListener('close', onClose)
    return () => d.removeEventListener('close', onClose)
  }, [])
  return (
    <dialog ref={dialog} class="archive-viewer" aria-labelledby="archive-viewer-title" data-testid="archive-viewer">
      <div class="dialog-head">
        <h2 id="archive-viewer-title">Archived original · ref {archiveRef}</h2>
        <button type="button" onClick={() => dialog.current?.close()}>
          Close
        </button>
      </div>
      {/* Keyed: a ref opened from inside the viewer starts afresh. */}
      <ArchivedBody key={archiveRef} base={base} archiveRef={archiveRef} />
    </dialog>
  )
}

type Loaded = { message: ArchivedMessage; shown: Shown[] }

function ArchivedBody({ base, archiveRef }: { base: string; archiveRef: string }) {
  const [loaded, setLoaded] = useState<Loaded | null>(null)
  const [error, setError] = useState<string | null>(null)
  useEffect(() => {
    let live = true
    readArchived(base, archiveRef)
      .then(async (message) => ({ message, shown: message.messages?.length ? (await display({ messages: message.messages, format: message.format })).messages : [] }))
      .then(
        (l) => live && setLoaded(l),
        (e: Error) =>
          live &&
          setError(e instanceof ApiError && e.status === 404 ? `Not in the archive: ${e.message}.` : e instanceof ApiError && e.status === 400 ? `Not a reference this archive can read: ${e.message}` : e.message),
      )
    return () => {
      live = false
    }
  }, [])
  if (error)
    return (
      <p role="alert" class="error">
        {error}
      </p>
    )
  if (!loaded) return <p class="loading">Loading the archived message…</p>
  const { message, shown } = loaded
  const items: ListedMessage[] = shown.map((s, i) => ({
    shown: s,
    meta:
      i === 0 ? (
        <>
          <b>{s.role}</b> · ref {message.ref}
        </>
      ) : (
        <>
          <b>{s.role}</b> · archived with it
        </>
      ),
    ref: i === 0 ? `ref ${message.ref}` : 'archived with it',
  }))
  const longest = Math.max(0, ...shown.flatMap((s) => [s.text.length, ...s.results.map((r) => r.text.length)]))
  return (
    <>
      <p class="figures" data-testid="archive-viewer-facts">
        {describeArchived(message)} · {describeOrigin(message)} · {fmtInt(message.totalLines)} {message.totalLines === 1 ? 'line' : 'lines'} · {message.format}
        {message.redactions ? ` · ${fmtInt(message.redactions)} secrets redacted before archiving` : ''}
      </p>
      <MessageList items={items} testid="archive-message" limits={VIEWER_CLIP} />
      {longest > VIEWER_CLIP.result && <p class="muted">Cut at {fmtInt(VIEWER_CLIP.result)} characters: read the rest by lines below.</p>}
      {message.totalLines > 1 && <LineReader base={base} archiveRef={message.ref} totalLines={message.totalLines} />}
    </>
  )
}

type Selection = { kind: 'loading' } | { kind: 'done'; message: ArchivedMessage } | { kind: 'error'; message: string }

/** Some lines of the message's text, numbered: a range, the lines containing a string, or both. */
function LineReader({ base, archiveRef, totalLines }: { base: string; archiveRef: string; totalLines: number }) {
  const [from, setFrom] = useState('1')
  const [to, setTo] = useState(String(Math.min(totalLines, 200)))
  const [grep, setGrep] = useState('')
  const [selection, setSelection] = useState<Selection | null>(null)
  const asked = useRef(0)
  const read = (e: Event) => {
    e.preventDefault()
    const a = Math.max(1, Math.floor(Number(from) || 1))
    const b = Math.max(a, Math.floor(Number(to) || a))
    const n = ++asked.current
    setSelection({ kind: 'loading' })
    readArchived(base, archiveRef, { lines: `${a}-${b}`, ...(grep.trim() ? { grep: grep.trim() } : {}) }).then(
      (message) => n === asked.current && setSelection({ kind: 'done', message }),
      (err: Error) => n === asked.current && setSelection({ kind: 'error', message: err.message }),
    )
  }
  return (
    <section aria-labelledby="archive-lines-title" class="line-reader">
      <h3 id="archive-lines-title">Read lines</h3>
      <form class="toolbar" onSubmit={read}>
        <label for="archive-lines-from">From line</label>
        <input id="archive-lines-from" type="number" min={1} max={totalLines} value={from} onInput={(e) => setFrom(e.currentTarget.value)} />
        <label for="archive-lines-to">to</label>
        <input id="archive-lines-to" type="number" min={1} max={totalLines} value={to} onInput={(e) => setTo(e.currentTarget.value)} />
        <label for="archive-lines-grep">containing</label>
        <input id="archive-lines-grep" type="text" maxLength={200} value={grep} placeholder="(any line)" onInput={(e) => setGrep(e.currentTarget.value)} />
        <button type="submit">Read lines</button>
        <span class="muted">of {fmtInt(totalLines)}</span>
      </form>
      <div aria-live="polite">
        {selection?.kind === 'loading' && <p class="loading">Reading…</p>}
        {selection?.kind === 'done' && (
          <p class="muted">
            {selection.message.matchedLines !== undefined ? `${fmtInt(selection.message.matchedLines)} matching lines` : 'The lines asked for'}
            {selection.message.truncated ? ', cut at 64 KB: ask for a narrower range' : ''}
          </p>
        )}
      </div>
      {selection?.kind === 'error' && (
        <p role="alert" class="error">
          {selection.message}
        </p>
      )}
      {selection?.kind === 'done' && (
        <pre class="lines" data-testid="archive-lines">
          {selection.message.text || '(no line)'}
        </pre>
      )}
    </section>
  )
}
