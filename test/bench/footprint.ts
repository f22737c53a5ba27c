/**
 * npm run bench -- footprint (issue 25): the built service's resident memory, as an
 * operator sees it (VmRSS, and VmHWM for the peak), on PostgreSQL and on PGlite:
 *   - after start-up (/readyz answers);
 *   - after one /estimate of a 20-message conversation;
 *   - after one /compact of the largest fixture (the compute pool's threads start);
 *   - the peak while 4 clients compact the largest fixture, 3 requests each.
 * Each configuration is a fresh process; what a component takes is read by difference
 * (COMPUTE_THREADS=0: no pool, compactions on the event loop; TOKEN_CACHE_ENTRIES=0;
 * WORKERS=0: no summary workers), and the memory knobs tried: the threads' and the event
 * loop's young generation, glibc's malloc arenas. FOOTPRINT_ONLY=name,… runs the
 * configurations whose names start so.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { createTestDatabase } from '../helpers/databases.ts'
import { ensureBuilt, startBuilt } from '../helpers/service-process.ts'
import { syntheticConversation } from './conversation.ts'
import { largestConversation } from './engine.ts'
import { freePort } from './sessions.ts'

function memoryMb(pid: number): { rss: number; hwm: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0)
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 }
}

interface Stages {
  started: number
  afterEstimate: number
  afterCompact: number
  peak: number
  /** Wall time of the 12 compactions by 4 clients, s: what a memory knob costs in speed. */
  seconds: number
}

export async function measure(env: Record<string, string>): Promise<Stages> {
  const port = await freePort()
  const service = startBuilt('server.js', { PORT: String(port), LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '1000000000', BODY_LIMIT_BYTES: String(50 * 1024 * 1024), ...env })
  const origin = `http://127.0.0.1:${port}`
  try {
    for (let i = 0; ; i++) {
      if (await fetch(`${origin}/readyz`).then((r) => r.ok, () => false)) break
      if (i > 600) throw new Error(`the service did not start: ${service.output().slice(-2000)}`)
      await sleep(100)
    }
    const pid = service.child.pid!
    await sleep(1000)
    const started = memoryMb(pid).rss
    const post = (p: string, body: unknown) => fetch(`${origin}${p}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(async (r) => (r.ok ? r.json() : Promise.reject(new Error(`${p}: ${r.status} ${(await r.text()).slice(0, 300)}`))))
    await post('/estimate', { model: 'gpt-4o', messages: syntheticConversation(20) })
    await sleep(500)
    const afterEstimate = memoryMb(pid).rss
    const { messages } = largestConversation()
    const compactBody = { model: 'gpt-4o', messages, targetTokens: 20_000, strategy: ['mask', 'rules'] }
    await post('/compact', compactBody)
    await sleep(500)
    const afterCompact = memoryMb(pid).rss
    let peak = afterCompact
    const poll = setInterval(() => (peak = Math.max(peak, memoryMb(pid).rss)), 20)
    const t0 = performance.now()
    await Promise.all(Array.from({ length: 4 }, async () => {
      for (let k = 0; k < 3; k++) await post('/compact', compactBody)
    }))
    const seconds = (performance.now() - t0) / 1000
    clearInterval(poll)
    return { started, afterEstimate, afterCompact, peak: Math.max(peak, memoryMb(pid).hwm), seconds }
  } finally {
    service.child.kill('SIGTERM')
    await service.exited
  }
}

export async function benchFootprint(): Promise<void> {
  await ensureBuilt(['server'])
  const pg = await createTestDatabase('postgres')
  const fixture = largestConversation()
  console.log(`\n## Footprint (issue 25): RSS of \`node dist/server.js\` in MB; the largest conversation is ${fixture.name} (${JSON.stringify(fixture.messages).length} bytes), compacted by mask+rules to 20,000 tokens\n`)
  console.log('| database | configuration | after start-up | after one /estimate | after one /compact | peak, 4 clients compacting | their 12 compactions, s |')
  console.log('|---|---|---:|---:|---:|---:|---:|')
  const configs: { name: string; env: Record<string, string> }[] = [
    { name: 'defaults', env: {} },
    { name: 'COMPUTE_THREADS=0 (no pool)', env: { COMPUTE_THREADS: '0' } },
    { name: 'COMPUTE_THREADS=1', env: { COMPUTE_THREADS: '1' } },
    { name: 'COMPUTE_WARM=false (threads start with the first compaction)', env: { COMPUTE_WARM: 'false' } },
    { name: 'TOKEN_CACHE_ENTRIES=0', env: { TOKEN_CACHE_ENTRIES: '0' } },
    { name: 'WORKERS=0', env: { WORKERS: '0' } },
    { name: 'COMPUTE_THREAD_YOUNG_MB=0 (V8\'s default for the threads\' young generation)', env: { COMPUTE_THREAD_YOUNG_MB: '0' } },
    { name: 'NODE_OPTIONS=--max-semi-space-size=4 (event loop\'s young generation)', env: { NODE_OPTIONS: '--max-semi-space-size=4' } },
    { name: 'MALLOC_ARENA_MAX=2 (glibc arenas)', env: { MALLOC_ARENA_MAX: '2' } },
    { name: 'npm start / the image (both above)', env: { NODE_OPTIONS: '--max-semi-space-size=4', MALLOC_ARENA_MAX: '2' } },
    { name: 'npm start, COMPUTE_WARM=false', env: { NODE_OPTIONS: '--max-semi-space-size=4', MALLOC_ARENA_MAX: '2', COMPUTE_WARM: 'false' } },
  ]
  const only = process.env.FOOTPRINT_ONLY?.split(',')
  try {
    for (const backend of ['postgres', 'pglite'] as const) {
      for (const c of backend === 'pglite' ? configs.slice(0, 2) : configs) {
        if (only && !only.some((o) => c.name.startsWith(o))) continue
        const env = backend === 'postgres' ? { DATABASE_URL: pg.url!, ...c.env } : { PGLITE_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'compactd-footprint-')), ...c.env }
        const s = await measure(env)
        console.log(`| ${backend === 'postgres' ? 'PostgreSQL' : 'PGlite (in memory)'} | ${c.name} | ${s.started.toFixed(0)} | ${s.afterEstimate.toFixed(0)} | ${s.afterCompact.toFixed(0)} | ${s.peak.toFixed(0)} | ${s.seconds.toFixed(1)} |`)
      }
    }
  } finally {
    await pg.close()
  }
}
