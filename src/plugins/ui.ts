/**
 * The dashboard (issue 13) at /ui: a single page (ui/src/, bundled by `npm run build`
 * into dist/ui/app.js and app.css) served by @fastify/static, plus GET /ui/config.json,
 * which says only whether API keys are required. The page reads the API with the key
 * the user enters (kept in sessionStorage, sent as a Bearer header, never in a URL).
 *
 * The page's own routes need no key (they hold no data) and have a Content-Security-
 * Policy of their own: scripts, styles, images and fetches from this origin only, no
 * inline script or style, no framing. They are not API routes, so they are left out of
 * the OpenAPI document.
 */
import fs from 'node:fs'
import { fileURLToPath } from 'node:url'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance } from 'fastify'

export const UI_PREFIX = '/ui'

/** The dashboard's policy: everything from this origin, nothing inline, nothing framed. */
export const UI_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join(';')

/** dist/ui next to the bundled server (dist/server.js), or under the repository when run from sources. */
export function uiBuildDir(): string | undefined {
  // dist/server.js, or a shared chunk under dist/chunks/ (the build splits code), or src/plugins/.
  for (const rel of ['./ui/', '../ui/', '../../dist/ui/']) {
    const dir = fileURLToPath(new URL(rel, import.meta.url))
    if (fs.existsSync(`${dir}app.js`)) return dir
  }
  return undefined
}

const INDEX_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>compactd dashboard</title>
<link rel="stylesheet" href="${UI_PREFIX}/app.css">
<script type="module" src="${UI_PREFIX}/app.js"></script>
</head>
<body>
<div id="app"><p class="loading">Loading the dashboard…</p></div>
<noscript>The compactd dashboard needs JavaScript.</noscript>
</body>
</html>
`

/** Whether a route is the dashboard's: `/ui` and everything under it. */
export function isUiRoute(url: string): boolean {
  return url === UI_PREFIX || url.startsWith(`${UI_PREFIX}/`)
}

/**
 * Registered with a prefix-free encapsulated context: its hooks apply to the /ui routes
 * only. They need no API key and are not rate limited: that config is set by the root's
 * onRoute hook in src/app.ts (isUiRoute), since the rate limiter's own onRoute hook runs
 * before this context's.
 */
export default async function uiPlugin(app: FastifyInstance) {
  app.addHook('onRoute', (route) => {
    route.schema = { ...(route.schema ?? {}), hide: true } as typeof route.schema
  })
  app.addHook('onSend', async (_req, reply, payload) => {
    reply.header('content-security-policy', UI_CSP)
    return payload
  })

  app.get(`${UI_PREFIX}/config.json`, async () => ({ keysRequired: !(await app.authOpenMode()) }))
  app.get(UI_PREFIX, async (_req, reply) => reply.redirect(`${UI_PREFIX}/`))

  const dir = uiBuildDir()
  if (!dir) {
    app.get(`${UI_PREFIX}/`, async (_req, reply) =>
      reply.code(503).type('text/plain; charset=utf-8').send('The dashboard is not built: run `npm run build` (npm start does), then reload.\n'),
    )
    return
  }
  app.get(`${UI_PREFIX}/`, async (_req, reply) => reply.type('text/html; charset=utf-8').send(INDEX_HTML))
  await app.register(fastifyStatic, { root: dir, prefix: `${UI_PREFIX}/`, index: false, wildcard: true, decorateReply: false })
}
