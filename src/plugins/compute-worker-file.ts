/**
 * Where the compute pool's threads start. In the build it is dist/plugins/compute-worker.js.
 * Run from the sources (npm run dev, the tests), a thread would load every TypeScript module
 * of the engine through the parent's loader (tsx, tap), which took 5-13 s per thread on a busy
 * 2-core machine; instead the entry is bundled once per process with esbuild (a dev
 * dependency, present wherever the sources run) and the threads start from plain JavaScript,
 * with no loader, in well under a second.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export interface WorkerEntry {
  filename: string
  /** The threads' execArgv: none for a bundle (the parent's TypeScript loader is not needed). */
  execArgv?: string[]
}

let bundled: WorkerEntry | undefined

/** The worker thread's entry: the build's, else a bundle of the sources, else the .ts file itself. */
export function computeWorkerEntry(): WorkerEntry {
  const here = import.meta.url
  if (!here.endsWith('.ts')) {
    return { filename: builtFile('compute-worker.js', 'the worker entry') }
  }
  const source = fileURLToPath(new URL('./compute-worker.ts', here))
  bundled ??= bundleSources(source) ?? { filename: source }
  return bundled
}

/**
 * The CommonJS file piscina is given (compute-worker-loader.cjs): it imports the entry,
 * so no thread ever loads an ES module through require() (why: in that file).
 */
export function computeWorkerLoader(): string {
  const here = import.meta.url
  return here.endsWith('.ts') ? fileURLToPath(new URL('./compute-worker-loader.cjs', here)) : builtFile('compute-worker-loader.cjs', 'the worker loader')
}

/** A file of dist/plugins/, found from dist/server.js or from a shared chunk under dist/chunks/ (the build splits code). */
function builtFile(name: string, what: string): string {
  const here = import.meta.url
  const candidates = [`./plugins/${name}`, `../plugins/${name}`, `./${name}`]
  for (const c of candidates) {
    const file = fileURLToPath(new URL(c, here))
    if (existsSync(file)) return file
  }
  throw new Error(`compute pool: ${what} (${candidates.join(' or ')}) is missing next to ${fileURLToPath(here)}; run npm run build`)
}

/** The .ts entry bundled into node_modules/.cache/compactd (where its packages resolve), named by its content. */
function bundleSources(entry: string): WorkerEntry | undefined {
  let esbuild: typeof import('esbuild')
  try {
    esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild')
  } catch {
    return undefined // no dev dependencies: threads load the sources through the parent's loader
  }
  const root = path.resolve(path.dirname(entry), '../..')
  const result = esbuild.buildSync({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: 'inline',
    write: false,
    logLevel: 'silent',
  })
  const code = result.outputFiles[0]!.contents
  const dir = path.join(root, 'node_modules/.cache/compactd')
  const file = path.join(dir, `compute-worker-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`)
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true })
    // Written aside, then renamed: test files building at once never see half a file.
    const partial = `${file}.${process.pid}.tmp`
    writeFileSync(partial, code)
    renameSync(partial, file)
  }
  return { filename: file, execArgv: [] }
}
