/**
 * A cleanup command's expected failure is not an error (src/engine/facts/outcome/expected-failure.ts):
 * the rule on single commands, then on a generated session that tidies up in four shell
 * dialects (test/helpers/noise-conversations.ts cleanupSession), compacted in every format.
 */
import t from 'tap'
import { compact } from '../../../../src/engine/compaction/compact.ts'
import { DEFAULT_COMPACT_OPTIONS } from '../../../../src/engine/compaction/types.ts'
import { isExpectedCleanupFailure } from '../../../../src/engine/facts/outcome/expected-failure.ts'
import { outcomeOf } from '../../../../src/engine/facts/outcome.ts'
import { FORMAT_NAMES, getAdapter, parseConversation } from '../../../../src/engine/messages/index.ts'
import { countConversation, tokenizerCounter } from '../../../../src/engine/tokens/count.ts'
import { CLEANUP_COMPLAINTS, cleanupSession } from '../../../helpers/noise-conversations.ts'

t.test('the expected complaint of a cleanup is not a failure; anything else stays one', async (t) => {
  const ok = (command: string, output: string) => outcomeOf({ kind: 'shell', command, output }).status
  t.equal(ok('rm -f a; ls a', "ls: cannot access 'a': No such file or directory\nExit code 2"), 'ok', 'ls of what was just removed')
  t.equal(ok('git branch -D old', "error: branch 'old' not found.\nExit code 1"), 'ok', 'a branch already deleted')
  t.equal(ok('docker rm -f db', 'Error response from daemon: No such container: db\nExit code 1'), 'ok', 'a container already gone')
  t.equal(ok('mkdir out', "mkdir: cannot create directory 'out': File exists\nExit code 1"), 'ok', 'a folder that exists')
  t.equal(ok('kill 4242', 'bash: line 1: kill: (4242) - No such process\nExit code 1'), 'ok', 'a process already gone')
  t.equal(ok('killall node', 'node: no process found\nExit code 1'), 'ok')
  t.equal(ok('pkill -f vite', 'Exit code 1'), 'ok', 'pkill with nothing to stop says nothing')
  t.equal(outcomeOf({ kind: 'shell', command: 'rm -f a; ls a', output: "ls: cannot access 'a': No such file or directory\nExit code 2" }).exitCode, 2, 'the exit code is kept')
  t.equal(ok('cat config.yaml', 'cat: config.yaml: No such file or directory\nExit code 1'), 'error', 'a read of a missing file is a failure')
  t.equal(ok('ls a && npm run build', "ls: cannot access 'a': No such file or directory\nnpm ERR! missing script: build\nExit code 1"), 'error', 'one other error line and the failure stands')
  t.equal(ok('git checkout old', "error: pathspec 'old' did not match any file(s) known to git\nExit code 1"), 'error', 'not a cleanup')
  t.equal(ok('npm test', 'Exit code 1'), 'error', 'a silent failure of anything but pkill stands')
  t.notOk(isExpectedCleanupFailure('echo "rm x"', "rm: cannot remove 'x': No such file or directory"), 'the program must run, not be quoted')
})

t.test('cleanupSession: the cleanups are not under Errors & Resolutions, the real failures are, in every format', async (t) => {
  const counter = tokenizerCounter('o200k_base')
  const openai = parseConversation(cleanupSession(), { format: 'openai' }).messages
  const size = countConversation(openai, counter).totalTokens
  for (const share of [0.1, 0.25]) {
    const targetTokens = Math.floor(size * share)
    const texts = new Set<string>()
    for (const format of FORMAT_NAMES) {
      const wire = getAdapter(format).serialize(openai)
      const messages = format === 'openai' ? openai : parseConversation(wire.messages, { format, ...(wire.system !== undefined ? { system: wire.system } : {}) }).messages
      const res = await compact({ messages, counter, options: { ...DEFAULT_COMPACT_OPTIONS, format, targetTokens, thresholdTokens: 0 } })
      const summary = res.summary?.text ?? ''
      texts.add(summary)
      const errors = /### Errors & Resolutions\n([\s\S]*?)(?:\n### |$)/.exec(summary)?.[1] ?? ''
      t.match(errors, /error TS2322/, `${share * 100}% ${format}: the type error is listed`)
      t.match(errors, /config\/app\.yaml: No such file or directory/, `${share * 100}% ${format}: the missing config is listed`)
      for (const complaint of CLEANUP_COMPLAINTS) t.notOk(summary.includes(complaint), `${share * 100}% ${format}: "${complaint}" is nowhere in the summary`)
      t.notMatch(errors, /pkill/, `${share * 100}% ${format}: pkill with nothing to stop is no error`)
    }
    t.equal(texts.size, 1, `${share * 100}%: one summary text in every format`)
  }
})
