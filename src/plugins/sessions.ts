/**
 * Sessions (issue 4): the session service (`app.sessions`) and this instance's background
 * summary worker (`app.summaryWorker`). The worker starts when the app is ready (unless
 * WORKERS=0: a pure API node) and is stopped, its running updates drained, on close.
 */
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { SessionService } from '../sessions/service.ts'
import { SummaryWorker } from '../sessions/worker.ts'

declare module 'fastify' {
  interface FastifyInstance {
    sessions: SessionService
    summaryWorker: SummaryWorker
  }
}

export default fp(
  async function sessionsPlugin(app: FastifyInstance) {
    const sessions = new SessionService({ db: app.db, config: app.config, summarizers: app.providers.summarizers, metrics: app.metrics, log: app.log, tokenCache: app.tokenCache, compute: app.compute })
    const worker = new SummaryWorker({
      db: app.db,
      config: app.config,
      log: app.log,
      metrics: app.metrics,
      summarizers: app.providers.summarizers,
      compute: app.compute,
      onSummaryWritten: (tenantId, sessionId, settings, summary, remaining) => sessions.noteSummaryWritten(tenantId, sessionId, settings, summary, remaining),
    })
    app.decorate('sessions', sessions)
    app.decorate('summaryWorker', worker)
    app.addHook('onReady', async () => {
      worker.start()
      if (app.config.WORKERS > 0) app.log.info({ worker: worker.id, concurrency: app.config.WORKERS }, 'summary worker started')
    })
    // Registered after the database plugin, so this runs before the database closes.
    app.addHook('onClose', async () => worker.stop())
  },
  { name: 'sessions', dependencies: ['database', 'providers', 'metrics', 'compute-pool', 'token-cache'] },
)
