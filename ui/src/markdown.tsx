/** Markdown from the API, rendered with marked and sanitised with DOMPurify before it reaches the DOM. */
import DOMPurify from 'dompurify'
import { marked } from 'marked'

export function Markdown({ text, testid }: { text: string; testid?: string }) {
  const html = DOMPurify.sanitize(marked.parse(text, { async: false, gfm: true }) as string)
  return <div class="markdown" data-testid={testid} dangerouslySetInnerHTML={{ __html: html }} />
}
