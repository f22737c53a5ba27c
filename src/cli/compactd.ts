#!/usr/bin/env node
/**
 * The `compactd` command (bin/compactd.mjs runs this file, or its build
 * dist/cli/compactd.js): estimate, compact and import against a server or in-process,
 * and the Claude Code hooks. docs/integrations.md has examples.
 */
import type { Io } from './compactd/io.ts'
import { main } from './compactd/main.ts'

// A reader that stops early (`compactd --help | head`) is not an error: stop writing, quietly.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err
  process.exit(process.exitCode ?? 0)
})

const io: Io = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr }
process.exitCode = await main(process.argv.slice(2), io)
