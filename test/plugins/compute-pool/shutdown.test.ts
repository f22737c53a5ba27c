/**
 * Closing the compute pool while its threads still start (a SIGTERM right after start-up,
 * or a test's short-lived app) ends the threads and nothing else. Piscina requires a
 * thread's file; on Node 20.19+ requiring an ES module that a termination interrupts aborts
 * the process with a fatal V8 error (SIGABRT), which is why the pool hands piscina a
 * CommonJS loader (src/plugins/compute-worker-loader.cjs). Without it, the churn below
 * died in 4 runs of 4, and this test failed.
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { computeWorkerLoader } from '../../../src/plugins/compute-worker-file.ts'

const CHURN = fileURLToPath(new URL('../../helpers/pool-churn.ts', import.meta.url))

t.test('the file piscina loads is CommonJS', async (t) => {
  t.match(computeWorkerLoader(), /compute-worker-loader\.cjs$/)
})

t.test('pools closed at random moments of their threads start-up: the process lives on and exits 0', async (t) => {
  const child = spawn(process.execPath, ['--import', 'tsx', CHURN, '20'], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout.on('data', (d) => (out += d))
  child.stderr.on('data', (d) => (err += d))
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('exit', (c, s) => resolve([c, s])))
  t.equal(signal, null, `no signal (stderr: ${err.slice(0, 300)})`)
  t.equal(code, 0, 'exit code 0')
  t.match(out, /closed 22 pools/)
  t.notMatch(err, /FATAL ERROR/)
})
