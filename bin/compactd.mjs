#!/usr/bin/env node
// The `compactd` command. In a clone (npm install puts tsx in node_modules) it runs the
// sources, so it is never stale; where only the build exists (npm run build, the Docker
// image) it runs dist/cli/compactd.js. COMPACTD_FROM_DIST=1 prefers the build.
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = new URL('..', import.meta.url)
const source = fileURLToPath(new URL('src/cli/compactd.ts', root))
const built = fileURLToPath(new URL('dist/cli/compactd.js', root))

function tsxAvailable() {
  try {
    createRequire(import.meta.url).resolve('tsx/esm/api')
    return true
  } catch {
    return false
  }
}

const preferBuilt = process.env.COMPACTD_FROM_DIST === '1' && existsSync(built)
if (!preferBuilt && existsSync(source) && tsxAvailable()) {
  const { register } = await import('tsx/esm/api')
  register()
  await import(pathToFileURL(source).href)
} else if (existsSync(built)) {
  await import(pathToFileURL(built).href)
} else {
  process.stderr.write('compactd: not installed: run `npm install` (or `npm run build`) in the compactd directory first\n')
  process.exitCode = 1
}
