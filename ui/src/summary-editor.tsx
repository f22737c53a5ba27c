/**
 * A session's current summary, and its editor: PUT /sessions/:id/summary with the version
 * the editor was opened on as `baseVersion`, so an edit never silently overwrites a
 * version written meanwhile (by the background worker or another person): that is a 409,
 * shown as a conflict, and nothing is written.
 */
import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'
import { api, ApiError, fmtInt } from './api.ts'

export interface Summary {
  version: number
  /** As stored, with each item's `<!-- … -->` comment: what PUT takes back. */
  content: string
  /** Without the comments: what is shown and sent to a model. */
  text: string
  tokens: number
  budget: number
  stale: boolean
}

type Failure = { kind: 'conflict'; currentVersion: number | null } | { kind: 'error'; message: string }

export function SummarySection({ base, summary, onSaved, children }: { base: string; summary: Summary | null; onSaved: () => Promise<void>; children: ComponentChildren }) {
  const [draft, setDraft] = useState<string | null>(null)
  const [baseVersion, setBaseVersion] = useState(0)
  const [busy, setBusy] = useState(false)
  const [failure, setFailure] = useState<Failure | null>(null)

  const open = () => {
    setDraft(summary?.content ?? '')
    setBaseVersion(summary?.version ?? 0)
    setFailure(null)
  }
  const close = () => {
    setDraft(null)
    setFailure(null)
  }
  async function save(e: Event) {
    e.preventDefault()
    if (draft === null) return
    setBusy(true)
    setFailure(null)
    try {
      await api<Summary>(`${base}/summary`, { method: 'PUT', body: { baseVersion, content: draft } })
      await onSaved()
      close()
    } catch (err) {
      if (err instanceof ApiError && err.status === 409) {
        const current = err.body.currentVersion
        setFailure({ kind: 'conflict', currentVersion: typeof current === 'number' ? current : null })
      } else setFailure({ kind: 'error', message: (err as Error).message })
    } finally {
      setBusy(false)
    }
  }
  async function reload() {
    // The newest version replaces the page's and the draft's: the user was told to copy their edits first.
    await onSaved()
    close()
  }

  return (
    <section aria-labelledby="summary-title" data-testid="summary-section">
      <h2 id="summary-title">
        Current summary{' '}
        {summary ? (
          <span class="muted" data-testid="summary-version">
            v{summary.version} · {fmtInt(summary.tokens)}/{fmtInt(summary.budget)} tokens{summary.stale ? ' · stale' : ''}
          </span>
        ) : (
          <span class="muted">none yet</span>
        )}
      </h2>
      {draft === null ? (
        <>
          <div class="toolbar">
            <button type="button" onClick={open}>
              {summary ? 'Edit summary' : 'Write a summary'}
            </button>
          </div>
          {children}
        </>
      ) : (
        <form class="summary-editor" onSubmit={save}>
          <label for="summary-draft">Summary (Markdown, as stored; saved as version {baseVersion + 1})</label>
          <p class="muted">
            Each item's <code>{'<!-- … -->'}</code> comment dates it for aging and marks it pinned: keep it. Sections: Previously in This Session, Yesterday, This Week, Continuation.
          </p>
          <textarea id="summary-draft" rows={16} value={draft} spellcheck={false} onInput={(e) => setDraft(e.currentTarget.value)} />
          {failure?.kind === 'conflict' && (
            <div role="alert" class="error" data-testid="summary-conflict">
              Conflict: someone else updated the summary{failure.currentVersion !== null ? ` (it is now version ${failure.currentVersion})` : ''} after you opened version {baseVersion}. Nothing was saved. Reload to see
              their version; copy your edits first, reloading replaces them.{' '}
              <button type="button" onClick={reload}>
                Reload the summary
              </button>
            </div>
          )}
          {failure?.kind === 'error' && (
            <p role="alert" class="error">
              {failure.message}
            </p>
          )}
          <div class="toolbar">
            <button type="submit" disabled={busy}>
              {busy ? 'Saving…' : 'Save'}
            </button>
            <button type="button" onClick={close} disabled={busy}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </section>
  )
}
