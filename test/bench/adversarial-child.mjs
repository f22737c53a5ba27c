// Hostile load for `npm run bench -- adversarial` (test/bench/adversarial.ts), in its own
// process: autocannon POSTs a JSON body whose "__RUN__" placeholder is replaced, for every
// request, by a fresh random run of `runChars` characters from `alphabet` (one word-class
// piece the tokenizer would merge whole): fresh, so neither the token-count cache nor the
// encoder's merge cache can answer it. Config: argv[2] is a JSON file's path.
//   { origin, path, headers, template, runChars, alphabet, connections, duration, overallRate? }
import fs from 'node:fs'
import autocannon from 'autocannon'

const cfg = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'))
const template = JSON.stringify(cfg.template)
let seed = process.pid
const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32)
function freshRun() {
  let s = ''
  for (let i = 0; i < cfg.runChars; i++) s += cfg.alphabet[Math.floor(random() * cfg.alphabet.length)]
  return s
}

const instance = autocannon({
  url: cfg.origin,
  connections: cfg.connections,
  duration: cfg.duration,
  timeout: 120,
  ...(cfg.overallRate ? { overallRate: cfg.overallRate } : {}),
  requests: [
    {
      method: 'POST',
      path: cfg.path,
      headers: { 'content-type': 'application/json', ...(cfg.headers ?? {}) },
      setupRequest(req) {
        req.body = template.replace('"__RUN__"', JSON.stringify(freshRun()))
        return req
      },
    },
  ],
})
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
