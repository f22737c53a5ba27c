/**
 * The application layer: every use case of the service, between the routes (above) and
 * the engine and the store (below). Arrows point down only: a use case imports the
 * engine, the repositories (src/sessions, src/checkpoints, src/db), config and errors;
 * never routes/ or src/plugins/ (.dependency-cruiser.cjs checks it in npm test).
 *
 * One style: `makeX(deps)` returns the use case (a function, or an object of functions
 * for a resource with several operations), and a call takes what its request brings
 * (`Caller`: the tenant, the client-gone signal, the body's size) and its input. Why a
 * factory rather than plain `(deps, input)` functions: the dependencies (database,
 * compute pool, provider clients, configuration, metrics) are the same for every request,
 * so they are bound once where the app is wired (src/plugins/use-cases.ts) and a route
 * passes only what its request carries; a test builds one use case from exactly the
 * dependencies it names (Pick<UseCaseDeps, …>), fakes included. The compute pool is one
 * of those dependencies (the ComputeRunner port in ./compute.ts), never an import.
 *
 * Request and response shapes are zod schemas in ./shapes/, written once: the routes
 * validate and document them, the use cases take their types by z.infer.
 */
import { makeArchive } from './archive/archive.ts'
import { makeArchiveBackfill } from './archive/backfill.ts'
import { makeArchiveIndexer } from './archive/indexer.ts'
import { makeBrowse } from './browse.ts'
import { makeCheckpoints } from './checkpoints.ts'
import { makeCompact } from './compact/compact.ts'
import { makeBreaker } from './compact/breaker.ts'
import { makeDisplay, makeFormats } from './display.ts'
import type { UseCaseDeps } from './deps.ts'
import { makeEstimate } from './estimate/estimate.ts'
import { makeImport } from './import/import.ts'
import { makeProxy } from './proxy/proxy.ts'
import { makeReadiness } from './readiness.ts'
import { makeSessions, type SessionsDeps } from './sessions/index.ts'
import { makeStrategies } from './strategies.ts'

export type { Caller, UseCaseDeps } from './deps.ts'

export function makeUseCases(base: UseCaseDeps & Pick<SessionsDeps, 'cache' | 'summaryReadTimeoutMs'>) {
  // One indexer per app: what is archived is indexed after its transaction (archive/indexer.ts).
  const archiveIndexer = makeArchiveIndexer(base)
  // One circuit breaker: the proxy and GET /context record automatic compactions, POST /compact closes it.
  const breaker = makeBreaker(base)
  const deps = { ...base, archiveIndexer, breaker }
  // Sessions' evictions from before the archive existed, archived in the background (archive/backfill.ts).
  const archiveBackfill = makeArchiveBackfill(deps)
  const compact = makeCompact(deps)
  const estimate = makeEstimate(deps)
  const archive = makeArchive(deps)
  return {
    archiveIndexer,
    archiveBackfill,
    compact,
    strategies: makeStrategies(deps),
    display: makeDisplay(),
    formats: makeFormats(),
    estimate,
    proxy: makeProxy({ ...deps, estimate, compact, searchArchive: archive.search }),
    import: makeImport(deps),
    checkpoints: makeCheckpoints(deps),
    breaker,
    archive,
    browse: makeBrowse(deps),
    sessions: makeSessions(deps),
    readiness: makeReadiness(deps),
  }
}

export type UseCases = ReturnType<typeof makeUseCases>
