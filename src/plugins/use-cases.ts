/**
 * The application layer, wired (src/use-cases): every use case built once from this
 * app's infrastructure (database, compute pool, provider clients, configuration,
 * metrics, token cache) as `app.useCases`, which is all the routes call; and this
 * instance's background summary worker (`app.summaryWorker`). The worker and the archive
 * backfill start when the app is ready (unless WORKERS=0: a pure API node) and are
 * stopped, their work in flight drained, on close.
 */
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { makeUseCases, type UseCases } from '../use-cases/index.ts'
import { makeSummaryWorker, type SummaryWorker } from '../use-cases/sessions/worker.ts'

declare module 'fastify' {
  interface FastifyInstance {
    useCases: UseCases
    summaryWorker: SummaryWorker
  }
}

export default fp(
  async function useCasesPlugin(app: FastifyInstance) {
    const deps = {
      config: app.config,
      db: app.db,
      summarizers: app.providers.summarizers,
      anthropicCounter: app.providers.anthropicCounter,
      upstream: app.providers.upstream,
      compute: app.compute,
      metrics: app.metrics,
      tokenCache: app.tokenCache,
      log: app.log,
    }
    const useCases = makeUseCases(deps)
    const worker = makeSummaryWorker({
      ...deps,
      onSummaryWritten: (tenantId, sessionId, settings, summary, remaining) => useCases.sessions.noteSummaryWritten(tenantId, sessionId, settings, summary, remaining),
    })
    app.decorate('useCases', useCases)
    app.decorate('summaryWorker', worker)
    app.addHook('onReady', async () => {
      worker.start()
      if (app.config.WORKERS > 0) {
        app.log.info({ worker: worker.id, concurrency: app.config.WORKERS }, 'summary worker started')
        // Background work, like the summaries: a pure API node (WORKERS=0) leaves it to the others.
        useCases.archiveBackfill.start()
      }
    })
    // Registered after the database plugin, so this runs before the database closes.
    app.addHook('onClose', async () => {
      await worker.stop()
      await useCases.archiveBackfill.stop()
      // The archive's background indexing stops at its current batch before the database and
      // the pool close; what it leaves unindexed, the next search of the session indexes.
      await useCases.archiveIndexer.stop()
    })
  },
  { name: 'use-cases', dependencies: ['database', 'providers', 'metrics', 'compute-pool', 'token-cache'] },
)
