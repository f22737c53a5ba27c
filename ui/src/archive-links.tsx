/**
 * `[ref 7hq2k9xa]` marks as buttons that open the archived original. A session's page
 * provides the opener (ArchiveLinks); without one (the preview: no session, so no
 * archive) the marks stay text. Text is rendered as text, and in a rendered summary the
 * marks are found in its text nodes after sanitising: no untrusted text becomes markup.
 */
import { createContext } from 'preact'
import { useContext } from 'preact/hooks'
import { splitRefs } from './archive-text.ts'

/** Opens the archived message `ref` of the page's session. */
export type OpenRef = (ref: string) => void

export const ArchiveLinks = createContext<OpenRef | null>(null)

export const useArchiveLinks = () => useContext(ArchiveLinks)

const TITLE = 'Open the archived original'

/** Plain text with its `[ref …]` marks as buttons, when the page has an archive. */
export function RefText({ text }: { text: string }) {
  const open = useArchiveLinks()
  if (!open || !text.includes('[ref ')) return <>{text}</>
  return (
    <>
      {splitRefs(text).map((p) =>
        p.ref ? (
          <>
            [
            <button type="button" class="ref" data-ref={p.ref} title={TITLE} onClick={() => open(p.ref!)}>
              ref {p.ref}
            </button>
            ]
          </>
        ) : (
          p.text
        ),
      )}
    </>
  )
}

/**
 * The `[ref …]` marks in the text nodes under `root` (sanitised HTML already in the DOM)
 * replaced by buttons carrying the reference in data-ref; the container handles their
 * clicks (refClick). Idempotent: text already in a button, or in a link, is left alone.
 */
export function linkifyRefs(root: HTMLElement): void {
  const doc = root.ownerDocument
  const walker = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT)
  const found: Text[] = []
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const t = n as Text
    if (t.data.includes('[ref ') && !t.parentElement?.closest('a, button')) found.push(t)
  }
  for (const t of found) {
    const parts = splitRefs(t.data)
    if (!parts.some((p) => p.ref)) continue
    const frag = doc.createDocumentFragment()
    for (const p of parts) {
      if (!p.ref) {
        frag.append(p.text)
        continue
      }
      const b = doc.createElement('button')
      b.type = 'button'
      b.className = 'ref'
      b.dataset.ref = p.ref
      b.title = TITLE
      b.textContent = `ref ${p.ref}`
      frag.append('[', b, ']')
    }
    t.replaceWith(frag)
  }
}

/** A click handler for a container of linkified refs: opens the ref of the button clicked. */
export function refClick(open: OpenRef) {
  return (e: MouseEvent) => {
    const b = (e.target as Element | null)?.closest?.('button.ref[data-ref]')
    if (b) open(b.getAttribute('data-ref')!)
  }
}
