#!/usr/bin/env node
// Type-checks, then runs the tap suite, streams its TAP output, and ends with the plain line
// `tests: N passed, N failed[, N skipped]` that CI reads. Counts are test cases
// (each file's top-level t.test blocks); a file that crashes outside any test counts
// as one failure. Keeps tap's exit code, and fails when no test ran.
import { spawn, spawnSync } from 'node:child_process'
import { createInterface } from 'node:readline'

// Type errors fail the run before any test starts.
const typecheck = spawnSync('npx', ['tsc', '-p', 'tsconfig.json', '--noEmit'], { stdio: 'inherit' })
if (typecheck.status !== 0) {
  process.stdout.write('\ntypecheck failed\ntests: 0 passed, 1 failed\n')
  process.exit(1)
}

const args = ['tap', '--reporter=tap', ...process.argv.slice(2)]
const child = spawn('npx', args, { stdio: ['ignore', 'pipe', 'inherit'], env: process.env })

let passed = 0
let failed = 0
let skipped = 0
let fileFailedWithoutCase = 0
let currentFileFailures = 0

const rl = createInterface({ input: child.stdout })
rl.on('line', (line) => {
  process.stdout.write(line + '\n')
  // Depth 1 (4 spaces): a test case inside a file.
  const tc = /^ {4}(not )?ok \d+ - .*?(# (SKIP|TODO)\b.*)?$/.exec(line)
  if (tc) {
    if (tc[3]) skipped++
    else if (tc[1]) {
      failed++
      currentFileFailures++
    } else passed++
    return
  }
  // Depth 0: a whole file.
  const file = /^(not )?ok \d+ - /.exec(line)
  if (file) {
    if (file[1] && currentFileFailures === 0) fileFailedWithoutCase++
    currentFileFailures = 0
  }
})

child.on('close', (code) => {
  failed += fileFailedWithoutCase
  const skippedPart = skipped ? `, ${skipped} skipped` : ''
  process.stdout.write(`\ntests: ${passed} passed, ${failed} failed${skippedPart}\n`)
  if (passed === 0) {
    process.stdout.write('no test passed: treating the run as failed\n')
    process.exit(1)
  }
  process.exit(code === 0 && failed === 0 ? 0 : code || 1)
})
