/**
 * Run as its own process by test/plugins/compute-pool/shutdown.test.ts: closes compute
 * pools (the real worker entry, 2 threads) at random moments of their threads' start-up,
 * `argv[2]` times. The process must end normally: a thread terminated while it loads must
 * not take the process down.
 *
 * The moments: a pool is timed from start to a thread's first answer (T), and the
 * others are closed between 0.42 T and 0.64 T, while a thread loads its modules (without
 * the CommonJS loader, the crash came at 0.48-0.57 T). Fixed delays missed that window
 * under tap.
 */
import { testConfig } from '../../src/config.ts'
import { ComputePool, WARM_UP } from '../../src/plugins/compute-pool.ts'

const rounds = Number(process.argv[2] ?? 30)
const pool = (): ComputePool => new ComputePool({ config: testConfig({ COMPUTE_WARM: true }), threads: 2, inlineMaxBytes: 0 })

/** From start to a thread's first answer; the first pool of a process also bundles the entry, so the second is timed. */
async function timeStartup(): Promise<number> {
  const timed = pool()
  const started = performance.now()
  timed.warm()
  await timed.run('compact', WARM_UP)
  const ms = performance.now() - started
  await timed.close()
  return ms
}
await timeStartup()
const startupMs = await timeStartup()

for (let i = 0; i < rounds; i++) {
  const p = pool()
  p.warm()
  await new Promise((r) => setTimeout(r, startupMs * (0.42 + 0.22 * Math.random())))
  await p.close()
}
process.stdout.write(`closed ${rounds + 2} pools; start-up ${Math.round(startupMs)} ms\n`)
