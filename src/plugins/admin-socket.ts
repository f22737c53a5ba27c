/**
 * The admin socket of a service on a PGlite data directory (src/tenancy/admin-socket.ts):
 * `npm run key:create` creates keys through it while the service holds the directory.
 * Not started on PostgreSQL (the CLI opens the database itself) or an in-memory PGlite.
 */
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { LOOPBACK_HOSTS } from '../config.ts'
import { listenAdminSocket } from '../tenancy/admin-socket.ts'
import { provisionKey } from '../tenancy/provision.ts'

export default fp(
  async function adminSocketPlugin(app: FastifyInstance) {
    const { database, config } = app
    if (database.kind !== 'pglite' || database.location.startsWith('memory://')) return
    // As server.ts decides: open at start-up means it listens on loopback whatever HOST says.
    const startedOpen = await app.authOpenMode()
    let server
    try {
      server = await listenAdminSocket(database.location, async (req) => {
        const created = await provisionKey(app.db, req)
        // Keys are required from this request on, not after the open-mode recheck.
        await app.authOpenMode({ refresh: true }).catch(() => {})
        app.log.info({ tenant: req.tenant, keyId: created.keyId, adopted: created.adopted }, 'API key created through the admin socket')
        const note =
          startedOpen && !LOOPBACK_HOSTS.has(config.HOST)
            ? `the service still listens on 127.0.0.1 only; restart it to listen on HOST=${config.HOST}`
            : undefined
        return { ok: true, key: created.key, tenantId: created.tenantId, keyId: created.keyId, pid: process.pid, adopted: created.adopted, note }
      })
    } catch (err) {
      app.log.warn({ err }, 'admin socket not started: npm run key:create needs the service stopped')
      return
    }
    if (!server) {
      app.log.warn({ dataDir: database.location }, 'admin socket not available here (Windows, or a data directory path too long for a Unix socket): npm run key:create needs the service stopped')
      return
    }
    app.log.info({ socket: server.path }, 'admin socket listening (npm run key:create works while the service runs)')
    app.addHook('preClose', async () => server.close())
  },
  { name: 'admin-socket', dependencies: ['database', 'auth'] },
)
