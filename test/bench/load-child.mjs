// autocannon in its own process, spreading requests over many paths (sessions): the
// CLI takes one URL only. Reads a JSON config from argv[2], prints one JSON result.
//   { origin, paths: string[], method, body?, headers?, connections, duration, overallRate? }
// Paths are taken round-robin, in a shuffled order, so consecutive requests hit
// different sessions.
import autocannon from 'autocannon'

const cfg = JSON.parse(process.argv[2])
let next = 0
const body = cfg.body === undefined ? undefined : JSON.stringify(cfg.body)
const headers = { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(cfg.headers ?? {}) }

const instance = autocannon({
  url: cfg.origin,
  connections: cfg.connections,
  duration: cfg.duration,
  ...(cfg.overallRate ? { overallRate: cfg.overallRate } : {}),
  requests: [
    {
      method: cfg.method,
      headers,
      ...(body !== undefined ? { body } : {}),
      setupRequest(req) {
        req.path = cfg.paths[next++ % cfg.paths.length]
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
  }),
)
