/** Markdown from the API, rendered and sanitised (sanitize.ts: only the tags a summary needs) before it reaches the DOM. */
import { renderMarkdown } from './sanitize.ts'

export function Markdown({ text, testid }: { text: string; testid?: string }) {
  return <div class="markdown" data-testid={testid} dangerouslySetInnerHTML={{ __html: renderMarkdown(text) }} />
}
