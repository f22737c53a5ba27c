/**
 * Bearer API keys. Every route is authenticated unless its config says `auth: false`.
 * While no key exists the service runs open, as the single `default` tenant; once a
 * key exists (even created by another process) keys are required for good.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { ApiError } from '../errors.ts'
import { activeKeyCount, DEFAULT_TENANT_NAME, ensureTenant, findTenantByKey, hashApiKey, type AuthenticatedTenant } from '../tenancy/api-keys.ts'

declare module 'fastify' {
  interface FastifyRequest {
    tenant: AuthenticatedTenant
  }
  interface FastifyContextConfig {
    /** false: no API key needed (health, docs). */
    auth?: boolean
    /**
     * A provider-compatible route (routes/proxy.ts): Authorization and x-api-key are the
     * caller's provider credentials, passed through, so compactd's key is x-compactd-key.
     */
    proxy?: boolean
  }
  interface FastifyInstance {
    /** True while no API key exists and the service runs in single-tenant open mode. */
    authOpenMode(opts?: { refresh?: boolean }): Promise<boolean>
  }
}

/** How long the "no key exists" answer is trusted before the database is asked again. */
const OPEN_MODE_RECHECK_MS = 2_000
/** During a database outage, keys verified at most this long ago are still accepted. */
const OUTAGE_KEY_TTL_MS = 10 * 60_000
const OUTAGE_KEY_CACHE_SIZE = 10_000

export default fp(
  async function authPlugin(app: FastifyInstance) {
    let open = (await activeKeyCount(app.db)) === 0
    let checkedAt = Date.now()
    const defaultTenantId = await ensureTenant(app.db, DEFAULT_TENANT_NAME)
    const openTenant: AuthenticatedTenant = { tenantId: defaultTenantId, keyId: 'open-mode' }

    async function authOpenMode(opts?: { refresh?: boolean }): Promise<boolean> {
      if (!open) return false
      if (opts?.refresh || Date.now() - checkedAt > OPEN_MODE_RECHECK_MS) {
        try {
          open = (await activeKeyCount(app.db)) === 0
          checkedAt = Date.now()
        } catch (err) {
          // Database unreachable: keep the last answer, so reads that can be served
          // without the database (a session's last summary) still are.
          if (opts?.refresh) throw err
        }
      }
      return open
    }
    app.decorate('authOpenMode', authOpenMode)

    // Keys verified recently, used only while the database is unreachable (so reads
    // that can be served without it still are); revocation applies as soon as it is back.
    const recent = new Map<string, { tenant: AuthenticatedTenant; at: number }>()
    const trustMs = app.config.AUTH_KEY_CACHE_MS
    async function lookUpKey(key: string): Promise<AuthenticatedTenant | undefined> {
      const id = hashApiKey(key)
      // AUTH_KEY_CACHE_MS > 0: a key verified that recently is not looked up again.
      const fresh = trustMs > 0 ? recent.get(id) : undefined
      if (fresh && Date.now() - fresh.at <= trustMs) return fresh.tenant
      try {
        const tenant = await findTenantByKey(app.db, key)
        if (tenant) {
          recent.delete(id)
          recent.set(id, { tenant, at: Date.now() })
          if (recent.size > OUTAGE_KEY_CACHE_SIZE) recent.delete(recent.keys().next().value!)
        } else recent.delete(id)
        return tenant
      } catch (err) {
        const seen = recent.get(id)
        if (seen && Date.now() - seen.at <= OUTAGE_KEY_TTL_MS) return seen.tenant
        throw err
      }
    }
    app.decorateRequest('tenant', null as unknown as AuthenticatedTenant)

    async function authenticate(req: FastifyRequest, reply: FastifyReply): Promise<void> {
      if (await authOpenMode()) {
        req.tenant = openTenant
        return
      }
      const proxied = req.routeOptions.config?.proxy === true
      const header = proxied ? req.headers['x-compactd-key'] : req.headers.authorization
      const match = typeof header === 'string' ? (proxied ? /^(?:Bearer\s+)?(\S+)\s*$/i : /^Bearer\s+(\S+)\s*$/i).exec(header) : null
      const tenant = match ? await lookUpKey(match[1]!) : undefined
      // One answer for missing, malformed, unknown and revoked keys: no hint of what exists.
      if (!tenant) {
        if (proxied) throw new ApiError(401, 'unauthorized', 'missing or invalid compactd API key (send x-compactd-key: <key>; Authorization goes to the provider)')
        reply.header('www-authenticate', 'Bearer')
        throw new ApiError(401, 'unauthorized', 'missing or invalid API key (send Authorization: Bearer <key>)')
      }
      req.tenant = tenant
    }

    // A callback hook with a synchronous path for open mode while its answer is fresh (no
    // promise per request); everything else goes through authenticate().
    app.addHook('onRequest', (req: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
      if (req.routeOptions.config?.auth === false || req.routeOptions.url === undefined) return done()
      if (open && Date.now() - checkedAt <= OPEN_MODE_RECHECK_MS) {
        req.tenant = openTenant
        return done()
      }
      authenticate(req, reply).then(() => done(), done)
    })
  },
  { name: 'auth', dependencies: ['database'] },
)
