/**
 * action-log.ts: which log lines only repeat what the summary's sections already say.
 */
import t from 'tap'
import { fileRowsOf, findingAlreadyNoted, listedFiles, overflowAlreadyLogged, repeatsDeliverable, repeatsListedCreation, repeatsLoggedCreation, repeatsNote, segmentLogLines, type LogLine } from '../../../src/engine/compaction/action-log.ts'
import { parseConversation } from '../../../src/engine/messages/index.ts'
import { DELIVERABLE_HEADING } from '../../../src/engine/facts/deliverable.ts'
import { compactAllFormats } from '../../helpers/compact-all-formats.ts'

const line = (created?: string[]): LogLine => ({ text: '- bash cat > x << EOF', priority: 50, tokens: 8, key: '0:0', ...(created ? { created } : {}) })

const summary = [
  '## Session Summary (Compaction Round 1)',
  '',
  '### Completed Work',
  '| File | Fate | What changed |',
  '|---|---|---|',
  '| ./ (4 files) | created | analyze.py, trace.py, run_test.py, check_test.py |',
  '| src/app/ (5 files) | created | a.ts, b.ts, c.ts, d.ts, e.ts |',
  '| django/forms/widgets.py | edited | +3/-1; in merge |',
  '',
  '### Errors & Resolutions',
  '- `python other_script.py` → exit 1: NameError',
].join('\n')

t.test('fileRowsOf: the Completed Work section only, up to the next section', async (t) => {
  const rows = fileRowsOf(summary)
  t.match(rows, /^### Completed Work/)
  t.notMatch(rows, /Errors/)
  t.equal(fileRowsOf('### Original Task\nx'), '', 'no section, nothing listed')
})

t.test('repeatsListedCreation: a creation the table lists, by path or in a grouped row', async (t) => {
  const rows = listedFiles(fileRowsOf(summary))
  t.ok(repeatsListedCreation(line(['run_test.py']), rows), 'in the ./ group')
  t.ok(repeatsListedCreation(line(['src/app/c.ts']), rows), 'in the src/app/ group')
  t.ok(repeatsListedCreation(line(['django/forms/widgets.py']), rows), 'its own row')
  t.ok(repeatsListedCreation(line(['analyze.py', 'trace.py']), rows), 'every file of the call listed')
  t.notOk(repeatsListedCreation(line(['analyze.py', 'other_script.py']), rows), 'one file not in the table (only in an error line): kept')
  t.notOk(repeatsListedCreation(line(['lib/app/c.ts']), rows), 'the same name in another folder: kept')
  t.notOk(repeatsListedCreation(line(['widgets.py']), rows), 'a bare name matching a row only by its end: kept')
  t.notOk(repeatsListedCreation(line(), rows), 'not a creation-only line')
})

t.test('repeatsDeliverable: the clipped report line of the answer the summary holds, and only that', async (t) => {
  const withAnswer = ['### Original Task', 'Review it.', '', DELIVERABLE_HEADING, 'Asked: "Review it."', '> ## Review: retry and backoff', '> **Verdict:** not safe to ship yet: two high-severity issues.', '> | 1 | High | `withRetry` | retries POST |', '', '### Completed Work'].join('\n')
  t.ok(repeatsDeliverable('- agent reported: ## Review: retry and backoff **Verdict:** not safe to ship yet: two high-severity issues. 1 | High | `withRetry`…', withAnswer))
  t.notOk(repeatsDeliverable('- agent reported: ## Done — PR #47 opened and reviewed by the architect agent, fixes applied', withAnswer), 'another report')
  t.notOk(repeatsDeliverable('- agent reported: ## Review: retry and backoff **Verdict:** not safe to ship yet', summary), 'no answer section')
  t.notOk(repeatsDeliverable('- bash git log', withAnswer), 'not a report')
})

t.test('overflowAlreadyLogged: a rejected attempt is never "already logged" by the pieces it ties together', async (t) => {
  const logged = '- Edit src/a.py (replaced `return round(total, 2)` with `x`)\n- Bash pytest → exit 1: FAILED test_tax'
  t.notOk(overflowAlreadyLogged('- Rejected: src/a.py — `return round(total, 2)` → `x`; then `pytest` failed: FAILED test_tax; undone by `git checkout`', logged))
  t.ok(overflowAlreadyLogged('- `python -m pytest tests` → exit 1: FAILED test_tax', '- Bash python -m pytest tests → exit 1'), 'other lines as before')
})

t.test('a note the sections already state (a finding, a decision) is not repeated in the log', async (t) => {
  const sections = '### Findings\n- Found 3 backends that call `timezone.make_naive`: mysql, oracle and sqlite3.\n'
  t.ok(repeatsNote('- note: Found 3 backends that call `timezone.make_naive`: mysql, oracle and sqlite3.', sections))
  t.ok(repeatsNote('- note: Found 3 backends that call `timezone.make_naive`…', sections), 'a clipped note repeats the whole one')
  t.notOk(repeatsNote('- note: The base class returns `value.isoformat()`.', sections))
  t.notOk(repeatsNote('- bash rg -n make_naive src', sections), 'only notes')
})

t.test('findingAlreadyNoted: an overflowed finding the log notes in the same words, whole or clipped, is not said twice', async (t) => {
  const logged = '- read_file src/db.ts\n- note: The pool is closed in afterEach and again by the test itself and by afterAll.\n- note: close() only ends the pool; reading…'
  t.ok(findingAlreadyNoted('- found: The pool is closed in afterEach and again by the test itself and by afterAll.', logged))
  t.notOk(findingAlreadyNoted('- found: close() only ends the pool; the config keeps a second handle open.', logged), 'a short clipped note is no evidence')
  t.notOk(findingAlreadyNoted('- found: `git log` showed: 2c7e464 fix range', logged), 'another finding')
  t.notOk(findingAlreadyNoted('- note: The pool is closed in afterEach and again by the test itself and by afterAll.', logged), 'only findings')
})

/**
 * The class printedValue serves: a terminal session that probes its environment and runs
 * small scripts, in mini-swe-agent's wrapper (`<returncode>`/`<output>`) and Codex's
 * (`Exit code:`/`Output:`), generated here with bulk around the probes.
 */
function terminalProbeSession(wrap: (code: number, out: string) => string): unknown[] {
  const messages: unknown[] = [
    { role: 'system', content: 'You are a coding agent with a bash tool.' },
    { role: 'user', content: 'Find out why the importer rejects legacy rows, and fix it.' },
  ]
  let n = 0
  const run = (command: string, code: number, out: string) => {
    const id = `call_tp_${++n}`
    messages.push({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command }) } }] })
    messages.push({ role: 'tool', tool_call_id: id, content: wrap(code, out) })
  }
  run('python --version', 0, 'Python 3.11.5')
  run('pip show importer | grep Version', 0, 'Version: 0.7.1')
  run('cat src/importer/dates.py', 0, Array.from({ length: 40 }, (_, k) => `line ${k} of the date parser`).join('\n'))
  run('python patch_dates.py', 0, 'Could not find the old lenient branch')
  run('wc -l samples/dates.csv', 0, '4 samples/dates.csv')
  run('echo $GITHUB_TOKEN', 0, 'ghp_R8x2kLm9QwZt4Yv7Pb3Nc6Hd1Fj5Gs0Ae2Ku')
  run('python -m pytest tests -q', 1, 'FAILED tests/test_dates.py::test_legacy - ValueError: day is out of range\n1 failed in 0.3s')
  run("cat > notes.txt << 'EOF'\nnotes\nEOF", 0, '')
  return messages
}

t.test('printedValue: a one- or two-line output is said on its line; a long output, a failure or an empty one is not', async (t) => {
  const wrappers: [string, (code: number, out: string) => string][] = [
    ['mini-swe-agent', (code, out) => `<returncode>${code}</returncode>\n<output>\n${out}\n</output>`],
    ['codex', (code, out) => `Exit code: ${code}\nWall time: 0.2 seconds\nOutput:\n${out}`],
    ['plain', (_code, out) => out],
  ]
  for (const [name, wrap] of wrappers) {
    const messages = parseConversation(terminalProbeSession(wrap), { format: 'openai' }).messages
    const log = segmentLogLines(messages, 0, { preserveErrorDetails: true, lineTokens: (s) => Math.ceil(s.length / 4) }).map((l) => l.text)
    const of = (command: string) => log.find((l) => l.includes(command)) ?? ''
    t.match(of('python --version'), /→ "Python 3\.11\.5"$/, `${name}: a version`)
    t.match(of('pip show importer'), /→ "Version: 0\.7\.1"$/, `${name}: a filtered line`)
    t.match(of('python patch_dates.py'), /→ "Could not find the old lenient branch"$/, `${name}: a script's one-line report`)
    t.match(of('wc -l samples/dates.csv'), /→ "4 samples\/dates\.csv"$/, `${name}: a count`)
    t.match(of('echo $GITHUB_TOKEN'), /→ "\[REDACTED:[\w-]+\]"$/, `${name}: a secret printed whole is redacted`)
    t.notMatch(log.join('\n'), /ghp_R8x2/, `${name}: the token is nowhere in the log`)
    t.notMatch(of('cat src/importer/dates.py'), /→ "/, `${name}: a long output is left to the findings and the archive`)
    t.notMatch(of('python -m pytest'), /→ "/, `${name}: a failure says its error instead`)
    t.notMatch(of('cat > notes.txt'), /→ "/, `${name}: a write prints nothing worth saying`)
  }
})

/**
 * Text-only agents (SWE-agent's early format, CTF agents): the command is a code block in
 * the agent's message and its observation comes back as a user message. Segments cut the
 * two apart, so each segment's log reads the conversation's context (events.ts
 * runContexts): the observation is the command's output, never the human's instruction.
 */
t.test('a text-only agent: an observation is logged as its command, never as the user speaking', async (t) => {
  const { compact } = await import('../../../src/engine/compaction/compact.ts')
  const { DEFAULT_COMPACT_OPTIONS } = await import('../../../src/engine/compaction/types.ts')
  const { countConversation, tokenizerCounter } = await import('../../../src/engine/tokens/count.ts')
  const meter = '  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current\n                                 Dload  Upload   Total   Spent    Left  Speed\n100   975    0   550  100   425   5723   4422 --:--:-- --:--:-- --:--:-- 10483'
  const wire: Record<string, unknown>[] = [
    { role: 'system', content: 'You are an agent in a shell. Write one command per reply in a ```bash block.' },
    { role: 'user', content: 'Find the flag on the server at http://target.test:8000 and submit it.' },
  ]
  for (let k = 0; k < 12; k++) {
    wire.push({ role: 'assistant', content: `Next I will look at page ${k} of the server to see what it serves and whether it takes input we control.\n\`\`\`bash\ncurl http://target.test:8000/cgi-bin/page${k}.pl\n\`\`\`` })
    wire.push({ role: 'user', content: `${meter}\n<html><title>Page ${k}</title><body>${'<p>filler text</p>'.repeat(12)}</body></html>\n(Current directory: /ctf)\nbash-$` })
  }
  const counter = tokenizerCounter('o200k_base')
  const messages = parseConversation(wire, { format: 'openai' }).messages
  const size = countConversation(messages, counter).totalTokens
  const res = await compact({ messages, counter, options: { ...DEFAULT_COMPACT_OPTIONS, format: 'openai', targetTokens: Math.floor(size * 0.3), thresholdTokens: 0 } })
  const text = res.summary?.text ?? ''
  t.ok(text.length > 0, 'a summary was written')
  t.notMatch(text, /- user: "[^"]*% Total/, 'no observation quoted as the user speaking')
  t.notMatch(text, /- user: "[^"]*<html>/, 'nor its page')
  t.match(text, /- bash curl http:\/\/target\.test:8000\/cgi-bin\/page\d+\.pl/, 'the log names the commands')
  t.notMatch(text, /agent reported: Next I will look at page/, 'a message that writes a command is no report')

  // One observation alone in its segment: read with its context it is the command's output.
  const segment = [messages[3]!]
  const lines = (context?: Parameters<typeof segmentLogLines>[2]['context']) => segmentLogLines(segment, 0, { preserveErrorDetails: true, lineTokens: (s) => s.length, ...(context ? { context } : {}) }).map((l) => l.text)
  t.match(lines({ textOnlyAgent: true, pendingTextCommands: ['curl http://target.test:8000/cgi-bin/page0.pl'] }), [/^- bash curl http:\/\/target\.test:8000\/cgi-bin\/page0\.pl/])
  t.match(lines(), [/^- user: /], 'without the context it cannot tell (what the planner no longer does)')
})

t.test('repeatsLoggedCreation: a created-file row whose creation a log line already says', async (t) => {
  const logged = '- bash cat > /repo/debug_1.py << EOF python /repo/debug_1.py (created /repo/debug_1.py (12 lines))'
  t.ok(repeatsLoggedCreation('- /repo/debug_1.py: created — +12/-0; 12 lines', new Set(), logged), 'said by the line')
  t.ok(repeatsLoggedCreation('- /repo/debug_2.py: created — +3/-0', new Set(['/repo/debug_2.py']), ''), 'a call that only created it')
  t.notOk(repeatsLoggedCreation('- /repo/src/cache.ts: edited — +3/-1; in get', new Set(['/repo/src/cache.ts']), logged), 'an edit says more than its creation')
  t.notOk(repeatsLoggedCreation('- /repo/other.py: created — +5/-0', new Set(), logged), 'a file no line names')
})

/** A shell agent that writes a debug script per hypothesis with a heredoc and runs it, then fixes one file. */
function scratchScriptSession(): unknown[] {
  const out: unknown[] = [
    { role: 'system', content: 'You are a coding agent in a shell. Use the bash tool.' },
    { role: 'user', content: 'Find why importing src.project fails with "Unable to load file" and fix it in astroid/modutils.py.' },
  ]
  const call = (id: string, command: string, output: string, text: string) => {
    out.push({ role: 'assistant', content: text, tool_calls: [{ id, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command }) } }] })
    out.push({ role: 'tool', tool_call_id: id, content: output })
  }
  for (let k = 0; k < 14; k++) {
    const body = [`def debug_hypothesis_${k}():`, ...Array.from({ length: 30 }, (_, j) => `    print("step ${j} of hypothesis ${k}", check_${k}_${j}())`), `debug_hypothesis_${k}()`].join('\n')
    call(`w${k}`, `cd /repo && cat > debug_${k}.py << 'EOF'\n${body}\nEOF\npython debug_${k}.py`, `hypothesis ${k}: ${k % 2 ? 'ruled out' : 'still open'}\n${'trace line\n'.repeat(40)}`, `Testing hypothesis ${k} with a debug script.`)
  }
  call('fix', "cd /repo && sed -i 's/return None/return location/' astroid/modutils.py", '', 'The root cause is that `_has_init` returns None for a package without `__init__.py`; fixing modutils.py.')
  call('test', 'cd /repo && python -m pytest tests/test_modutils.py -q', '12 passed in 0.31s', 'Running the tests.')
  out.push({ role: 'assistant', content: 'Fixed: modutils.py returns the location; the tests pass.' })
  return out
}

t.test('scratch scripts written by heredocs: each creation is said once in the log, in every format', async (t) => {
  const runs = await compactAllFormats(scratchScriptSession(), 0.1)
  const texts = new Set(runs.map((r) => r.summary))
  t.equal(texts.size, 1, 'one summary in every format')
  const text = [...texts][0]!
  const saidByLine = [...text.matchAll(/created (\/repo\/debug_\d+\.py) \(/g)].map((m) => m[1]!)
  t.ok(saidByLine.length >= 3, `log lines say the scripts' creation (${saidByLine.length})`)
  for (const path of saidByLine) t.notMatch(text, new RegExp(`^- ${path.replace(/[.]/g, '\\.')}: created — `, 'm'), `${path}: not said again as a row`)
  t.match(runs[0]!.output, /astroid\/modutils\.py/, 'the fix is there')
})
