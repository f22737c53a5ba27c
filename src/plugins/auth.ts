/**
 * Bearer API keys. Every route is authenticated unless its config says `auth: false`.
 * While no key exists the service runs open, as the single `default` tenant; once a
 * key exists (even created by another process) keys are required for good.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { ApiError } from '../errors.ts'
import { activeKeyCount, DEFAULT_TENANT_NAME, ensureTenant, findTenantByKey, type AuthenticatedTenant } from '../tenancy/api-keys.ts'

declare module 'fastify' {
  interface FastifyRequest {
    tenant: AuthenticatedTenant
  }
  interface FastifyContextConfig {
    /** false: no API key needed (health, docs). */
    auth?: boolean
  }
  interface FastifyInstance {
    /** True while no API key exists and the service runs in single-tenant open mode. */
    authOpenMode(opts?: { refresh?: boolean }): Promise<boolean>
  }
}

/** How long the "no key exists" answer is trusted before the database is asked again. */
const OPEN_MODE_RECHECK_MS = 2_000

export default fp(
  async function authPlugin(app: FastifyInstance) {
    let open = (await activeKeyCount(app.db)) === 0
    let checkedAt = Date.now()
    const defaultTenantId = await ensureTenant(app.db, DEFAULT_TENANT_NAME)
    const openTenant: AuthenticatedTenant = { tenantId: defaultTenantId, keyId: 'open-mode' }

    async function authOpenMode(opts?: { refresh?: boolean }): Promise<boolean> {
      if (!open) return false
      if (opts?.refresh || Date.now() - checkedAt > OPEN_MODE_RECHECK_MS) {
        open = (await activeKeyCount(app.db)) === 0
        checkedAt = Date.now()
      }
      return open
    }
    app.decorate('authOpenMode', authOpenMode)
    app.decorateRequest('tenant', null as unknown as AuthenticatedTenant)

    app.addHook('onRequest', async (req: FastifyRequest) => {
      if (req.routeOptions.config?.auth === false || req.routeOptions.url === undefined) return
      if (await authOpenMode()) {
        req.tenant = openTenant
        return
      }
      const header = req.headers.authorization
      const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null
      const tenant = match ? await findTenantByKey(app.db, match[1]!) : undefined
      // One answer for missing, malformed, unknown and revoked keys: no hint of what exists.
      if (!tenant) throw new ApiError(401, 'unauthorized', 'missing or invalid API key (send Authorization: Bearer <key>)')
      req.tenant = tenant
    })
  },
  { name: 'auth', dependencies: ['database'] },
)
