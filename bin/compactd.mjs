#!/usr/bin/env node
// The `compactd` command. It runs the build (dist/cli/compactd.js, made by `npm install`'s
// prepare step or `npm run build`), which starts in a fraction of the time the sources take
// through tsx: a Claude Code hook runs on every compaction. In a clone whose sources are
// newer than the build it runs the sources instead, so it is never stale.
// COMPACTD_FROM_SOURCE=1 forces the sources, COMPACTD_FROM_DIST=1 the build.
import { existsSync, readdirSync, statSync } from 'node:fs'
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

/** The newest modification time of a TypeScript source below `dir` (0 when absent). */
function newestSource(dir) {
  let newest = 0
  let entries
  try {
    entries = readdirSync(dir, { withFileTypes: true })
  } catch {
    return 0
  }
  for (const e of entries) {
    const p = `${dir}/${e.name}`
    if (e.isDirectory()) newest = Math.max(newest, newestSource(p))
    else if (e.name.endsWith('.ts')) newest = Math.max(newest, statSync(p).mtimeMs)
  }
  return newest
}

/** The build is stale when a source it bundles changed after it was made. */
function buildIsCurrent() {
  const builtAt = statSync(built).mtimeMs
  return ['src', 'routes'].every((d) => newestSource(fileURLToPath(new URL(d, root))) <= builtAt)
}

const haveBuild = existsSync(built)
const canRunSource = existsSync(source) && tsxAvailable()
const fromSource = canRunSource && (process.env.COMPACTD_FROM_SOURCE === '1' || (process.env.COMPACTD_FROM_DIST !== '1' && (!haveBuild || !buildIsCurrent())))

if (fromSource) {
  const { register } = await import('tsx/esm/api')
  register()
  await import(pathToFileURL(source).href)
} else if (haveBuild) {
  await import(pathToFileURL(built).href)
} else {
  process.stderr.write('compactd: not built: run `npm install` (or `npm run build`) in the compactd directory first\n')
  process.exitCode = 1
}
