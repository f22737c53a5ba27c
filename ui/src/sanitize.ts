/**
 * Markdown from the API (summaries a model or a caller wrote) to HTML the dashboard may
 * insert: marked, then DOMPurify limited to what a summary needs. DOMPurify's defaults
 * keep forms, inputs, buttons, <style> and external images: a summary could draw a fake
 * key prompt, restyle the page or make the browser fetch another origin. Here only text
 * structure is kept: headings, paragraphs, lists, code, tables, emphasis, quotes, rules
 * and links to http(s) or mailto; no image, form control, style or class at all.
 * No DOM type is named here, so the constants can be checked in node (test/ui.test.ts).
 */
import DOMPurify from 'dompurify'
import { Marked } from 'marked'

/** The only elements a rendered summary may hold. */
export const SUMMARY_ALLOWED_TAGS: readonly string[] = [
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
  'p', 'br', 'hr',
  'ul', 'ol', 'li',
  'pre', 'code',
  'table', 'thead', 'tbody', 'tr', 'th', 'td',
  'em', 'strong', 'del',
  'blockquote',
  'a',
]

/** The only attributes: a link's target and title, a table cell's alignment, a list's start. */
export const SUMMARY_ALLOWED_ATTR: readonly string[] = ['href', 'title', 'align', 'start']

/** Link targets kept: http(s), mailto and fragments. Anything else (javascript:, data:, relative) loses its href. */
export const SAFE_HREF = /^(?:https?:\/\/|mailto:|#)/i

/** DOMPurify's configuration for summaries. */
export const SUMMARY_SANITIZE_CONFIG = {
  ALLOWED_TAGS: [...SUMMARY_ALLOWED_TAGS],
  ALLOWED_ATTR: [...SUMMARY_ALLOWED_ATTR],
  ALLOWED_URI_REGEXP: SAFE_HREF,
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  ALLOW_UNKNOWN_PROTOCOLS: false,
  ALLOW_SELF_CLOSE_IN_ATTR: false,
  SAFE_FOR_TEMPLATES: false,
  WHOLE_DOCUMENT: false,
  RETURN_TRUSTED_TYPE: false,
} as const

/**
 * marked for summaries: GFM, and a task list's checkbox (`- [ ] step`, as the summaries'
 * pending steps are written) drawn as a character, so no <input> is needed.
 */
const summaryMarked = new Marked({
  gfm: true,
  async: false,
  renderer: {
    checkbox({ checked }) {
      return checked ? '☑ ' : '☐ '
    },
  },
})

/** Markdown to HTML, before sanitising (pure: runs in node too). */
export function markdownHtml(text: string): string {
  return summaryMarked.parse(text, { async: false }) as string
}

type Purifier = Pick<typeof DOMPurify, 'sanitize' | 'addHook'>
const hooked = new WeakSet<object>()

/** Markdown to sanitised HTML, ready for innerHTML. Links open in a new tab, without a referrer or opener. */
export function renderMarkdown(text: string, purify: Purifier = DOMPurify): string {
  if (!hooked.has(purify)) {
    hooked.add(purify)
    purify.addHook('afterSanitizeAttributes', (node) => {
      if (node.nodeName === 'A' && (node as unknown as { hasAttribute(n: string): boolean }).hasAttribute('href')) {
        const a = node as unknown as { setAttribute(n: string, v: string): void }
        a.setAttribute('target', '_blank')
        a.setAttribute('rel', 'noopener noreferrer')
      }
    })
  }
  return purify.sanitize(markdownHtml(text), SUMMARY_SANITIZE_CONFIG as never) as unknown as string
}
