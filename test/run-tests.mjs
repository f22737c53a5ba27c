#!/usr/bin/env node
// Type-checks and runs the tap suite side by side, streams the TAP output, and ends with
// the plain line `tests: N passed, N failed[, N skipped]` that CI reads. Counts are test
// cases (each file's top-level t.test blocks); a file that crashes outside any test counts
// as one failure, and so does a failed type check (its errors are printed at the end).
// Keeps tap's exit code, and fails when no test ran. The type check runs beside the tests,
// not before them: on a 2-core machine it took a minute of the suite's wall time.
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'

let typecheckOutput = ''
const typecheck = new Promise((resolve) => {
  const tsc = spawn('npx', ['tsc', '-p', 'tsconfig.json', '--noEmit'], { stdio: ['ignore', 'pipe', 'pipe'] })
  tsc.stdout.on('data', (d) => (typecheckOutput += d))
  tsc.stderr.on('data', (d) => (typecheckOutput += d))
  tsc.on('close', (code) => resolve(code))
})

const args = ['tap', '--reporter=tap', ...process.argv.slice(2)]
const child = spawn('npx', args, { stdio: ['ignore', 'pipe', 'inherit'], env: process.env })

let passed = 0
let failed = 0
let skipped = 0
let fileFailedWithoutCase = 0
let currentFileFailures = 0
// What failed, with tap's diagnostics, repeated just before the closing line: CI keeps only
// the tail of the output, and a failure 800 tests up was invisible there.
const failureReport = []
const FAILURE_REPORT_MAX_LINES = 120
let currentFile = ''
let diagnosticsIndent = -1
let previousWasFailure = false
let diagnosticsLines = 0
let skippingKey = false
const DIAGNOSTICS_MAX_LINES = 14
function report(line) {
  if (failureReport.length < FAILURE_REPORT_MAX_LINES) failureReport.push(line)
}

const rl = createInterface({ input: child.stdout })
rl.on('line', (line) => {
  process.stdout.write(line + '\n')
  const subtest = /^# Subtest: (.*)$/.exec(line)
  if (subtest) currentFile = subtest[1]
  if (diagnosticsIndent >= 0) {
    // tap's YAML block after a `not ok`: from `---` to `...` at the same indent.
    const yaml = line.slice(diagnosticsIndent)
    // found/wanted, the stack; not the `at:` and `source:` blocks, which repeat the stack.
    const key = /^(\w+):/.exec(yaml)
    if (key) skippingKey = key[1] === 'at' || key[1] === 'source'
    if (yaml.trim() === '...') diagnosticsIndent = -1
    else if (!skippingKey && ++diagnosticsLines <= DIAGNOSTICS_MAX_LINES) report(`  ${yaml}`)
  } else if (previousWasFailure && /^ {4,}---$/.test(line)) {
    // Only a case's or an assertion's block: a whole file's is the command line it ran.
    diagnosticsIndent = line.indexOf('---')
    diagnosticsLines = 0
  }
  previousWasFailure = /^\s*not ok \d+ - /.test(line)
  if (previousWasFailure) report(`${currentFile}: ${line.trim()}`)
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

child.on('close', async (code) => {
  const typecheckStatus = await typecheck
  if (typecheckStatus !== 0) {
    process.stdout.write(`\ntypecheck failed (npx tsc -p tsconfig.json --noEmit):\n${typecheckOutput}`)
    failed++
  } else process.stdout.write('\ntypecheck: no errors\n')
  failed += fileFailedWithoutCase
  if (failureReport.length) {
    const cut = failureReport.length >= FAILURE_REPORT_MAX_LINES ? ' (first lines only)' : ''
    process.stdout.write(`\nfailures${cut}:\n${failureReport.join('\n')}\n`)
  }
  const skippedPart = skipped ? `, ${skipped} skipped` : ''
  process.stdout.write(`\ntests: ${passed} passed, ${failed} failed${skippedPart}\n`)
  if (passed === 0) {
    process.stdout.write('no test passed: treating the run as failed\n')
    process.exit(1)
  }
  process.exit(code === 0 && failed === 0 ? 0 : code || 1)
})
