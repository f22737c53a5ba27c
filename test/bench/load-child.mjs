// autocannon in its own process, spreading requests over many paths (sessions): the
// CLI takes one URL only. Reads a JSON config from argv[2] (or from the file argv[2]
// names after an @), prints one JSON result.
//   { origin, paths: string[], method, body?, headers?, connections, duration, overallRate?, fresh? }
// Paths are taken round-robin, in a shuffled order, so consecutive requests hit
// different sessions. `fresh: { runChars, alphabet }` (npm run bench -- adversarial):
// the body's "__RUN__" placeholder becomes, for every request, a new random run of
// runChars characters of alphabet, so no cache can answer it.
import fs from 'node:fs'
import autocannon from 'autocannon'

const cfg = JSON.parse(process.argv[2].startsWith('@') ? fs.readFileSync(process.argv[2].slice(1), 'utf8') : process.argv[2])
let next = 0
const body = cfg.body === undefined ? undefined : JSON.stringify(cfg.body)
const headers = { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(cfg.headers ?? {}) }
let seed = process.pid
const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32)
function freshBody() {
  let run = ''
  for (let i = 0; i < cfg.fresh.runChars; i++) run += cfg.fresh.alphabet[Math.floor(random() * cfg.fresh.alphabet.length)]
  return body.replace('"__RUN__"', JSON.stringify(run))
}

const instance = autocannon({
  url: cfg.origin,
  connections: cfg.connections,
  duration: cfg.duration,
  timeout: cfg.timeout ?? 10,
  ...(cfg.overallRate ? { overallRate: cfg.overallRate } : {}),
  requests: [
    {
      method: cfg.method,
      headers,
      ...(body !== undefined ? { body } : {}),
      setupRequest(req) {
        req.path = cfg.paths[next++ % cfg.paths.length]
        if (cfg.fresh) req.body = freshBody()
        return req
      },
    },
  ],
})
// SIGINT ends the run early and still reports (the busy phase's append stream).
process.on('SIGINT', () => instance.stop())
const result = await instance

process.stdout.write(
  JSON.stringify({
    requestsPerSec: result.requests.average,
    total: result.requests.total,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    maxMs: result.latency.max,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, s.count])),
  }),
)
