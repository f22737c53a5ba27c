/**
 * Markdown from the API, rendered and sanitised (sanitize.ts: only the tags a summary
 * needs) before it reaches the DOM. On a session's page its `[ref …]` marks then become
 * buttons opening the archived original (archive-links.tsx).
 */
import { useLayoutEffect, useMemo, useRef } from 'preact/hooks'
import { linkifyRefs, refClick, useArchiveLinks } from './archive-links.tsx'
import { renderMarkdown } from './sanitize.ts'

export function Markdown({ text, testid }: { text: string; testid?: string }) {
  const open = useArchiveLinks()
  const html = useMemo(() => renderMarkdown(text), [text])
  const el = useRef<HTMLDivElement>(null)
  // After every render: preact rewrites the HTML only when it changed, and linkifyRefs skips what it already did.
  useLayoutEffect(() => {
    if (open && el.current) linkifyRefs(el.current)
  })
  return <div ref={el} class="markdown" data-testid={testid} onClick={open ? refClick(open) : undefined} dangerouslySetInnerHTML={{ __html: html }} />
}
