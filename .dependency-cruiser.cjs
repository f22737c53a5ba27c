/**
 * The layers of this tree and the arrows allowed between them (docs: issue 20), checked in
 * npm test by test/architecture.test.ts. Arrows point down only:
 *
 *   entry points   src/app.ts, src/server.ts, src/openapi.ts, src/index.ts, src/cli/
 *   routes         routes/                      HTTP: zod schemas given to fastify, one use-case call each
 *   wiring         src/plugins/                 infrastructure; builds the use cases (src/plugins/use-cases.ts)
 *   use cases      src/use-cases/               the application layer, handed its infrastructure
 *   store          src/db/, src/sessions/, src/checkpoints/, src/tenancy/   repositories and queries
 *   providers      src/providers/               provider clients (summarizers, Anthropic counting)
 *   foundation     src/config.ts, src/errors.ts
 *   engine         src/engine/                  pure: imports nothing outside itself but node builtins
 *
 * Type-only imports count (tsPreCompilationDeps): an interface imported upward ties the
 * layers together as much as a function does.
 */
const ENTRY = '^src/(app|server|openapi|index)[.]ts$|^src/cli/'
const ROUTES = '^routes/'
const WIRING = '^src/plugins/'
const USE_CASES = '^src/use-cases/'
const STORE = '^src/(db|sessions|checkpoints|tenancy|archive)/'
const PROVIDERS = '^src/providers/'
const FOUNDATION = '^src/(config|errors)[.]ts$'
const ENGINE = '^src/engine/'

const above = (...layers) => layers.map((l) => `(${l})`).join('|')

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycles anywhere in src/ and routes/: a cycle makes two modules one, whatever the folders say.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'engine-is-pure',
      severity: 'error',
      comment: 'The engine imports nothing outside src/engine but node builtins: no I/O, no configuration, no packages.',
      from: { path: ENGINE },
      to: { pathNot: ENGINE, dependencyTypesNot: ['core'] },
    },
    {
      name: 'foundation-imports-no-layer-above',
      severity: 'error',
      comment: 'config.ts and errors.ts sit under everything but the engine (errors.ts may name provider errors).',
      from: { path: FOUNDATION },
      to: { path: above(ENTRY, ROUTES, WIRING, USE_CASES, STORE) },
    },
    {
      name: 'providers-import-no-layer-above',
      severity: 'error',
      from: { path: PROVIDERS },
      to: { path: above(ENTRY, ROUTES, WIRING, USE_CASES, STORE) },
    },
    {
      name: 'store-imports-no-layer-above',
      severity: 'error',
      comment: 'Repositories know the database and the engine, not who calls them.',
      from: { path: STORE },
      to: { path: above(ENTRY, ROUTES, WIRING, USE_CASES, PROVIDERS) },
    },
    {
      name: 'use-cases-import-no-layer-above',
      severity: 'error',
      comment: 'A use case is handed its infrastructure (src/use-cases/deps.ts): it never imports plugins, routes or the app.',
      from: { path: USE_CASES },
      to: { path: above(ENTRY, ROUTES, WIRING) },
    },
    {
      name: 'wiring-imports-no-routes',
      severity: 'error',
      from: { path: WIRING },
      to: { path: above(ENTRY, ROUTES) },
    },
    {
      name: 'routes-call-only-use-cases',
      severity: 'error',
      comment: 'Routes reach storage and providers only through a use case (app.useCases).',
      from: { path: ROUTES },
      to: { path: above(ENTRY, STORE, PROVIDERS) },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
  },
}
