/**
 * A summary worker in a child process, for the crash test (test/use-cases/sessions/worker.test.ts):
 * claims one update on DATABASE_URL, prints IN_UPDATE from inside the update's
 * transaction (after its writes, before commit), then waits there until it is killed.
 */
import { testConfig } from '../../src/config.ts'
import { openDatabase } from '../../src/db/database.ts'
import { makeSummaryWorker } from '../../src/use-cases/sessions/worker.ts'

const handle = await openDatabase({ databaseUrl: process.env.DATABASE_URL!, poolSize: 2 })
const log = { info() {}, warn() {}, error: (o: object, m: string) => process.stderr.write(`${m} ${JSON.stringify(o)}\n`) }
const worker = makeSummaryWorker({
  db: handle.db,
  config: testConfig({ LEASE_MS: Number(process.env.LEASE_MS ?? 1500), WORKERS: 1 }),
  log,
  workerId: process.env.WORKER_ID ?? 'child',
  hooks: {
    beforeCommit: async () => {
      process.stdout.write('IN_UPDATE\n')
      await new Promise(() => {})
    },
  },
})
const n = await worker.runOnce({ max: 1 })
process.stdout.write(`DONE ${n}\n`)
await handle.close()
