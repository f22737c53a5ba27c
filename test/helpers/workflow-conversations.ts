/**
 * Generated conversations for issue 22's "repository state, rejected attempts, the
 * deliverable and the task": one builder per conversation class, each in three tool
 * dialects (OpenAI-style function names, Claude Code's, Codex's), with continuation probes
 * whose answers are only in the compacted range (test/eval/probes/core.ts's static rule).
 *
 *   gitWorkflowSession   edit, test, branch, commit, push, open a PR
 *   brokenFixSession     a fix that breaks another test, reverted, then a different fix
 *   reviewSession        a review request answered with a long structured review
 *   questionFirstSession the first message is a question; the work is asked for later
 *
 * Deterministic: the same dialect gives the same messages.
 */
import type { Probe } from '../eval/probes/core.ts'
import type { OpenAIMessage } from './handover-conversations.ts'
import { prose } from './prose.ts'

export type Dialect = 'openai' | 'claude' | 'codex'
export const DIALECTS: readonly Dialect[] = ['openai', 'claude', 'codex']

interface Tools {
  read: (file: string) => [string, unknown]
  run: (command: string) => [string, unknown]
  edit: (file: string, oldText: string, newText: string) => [string, unknown]
  editOk: (file: string) => string
}

const TOOLS: Record<Dialect, Tools> = {
  openai: {
    read: (file) => ['read_file', { path: file }],
    run: (command) => ['bash', { command }],
    edit: (file, old_str, new_str) => ['edit_file', { path: file, old_str, new_str }],
    editOk: (file) => `Edited ${file}`,
  },
  claude: {
    read: (file) => ['Read', { file_path: file }],
    run: (command) => ['Bash', { command, description: 'Run' }],
    edit: (file, old_string, new_string) => ['Edit', { file_path: file, old_string, new_string }],
    editOk: (file) => `The file ${file} has been updated.`,
  },
  codex: {
    read: (file) => ['shell', { command: ['bash', '-lc', `sed -n '1,120p' ${file}`] }],
    run: (command) => ['shell', { command: ['bash', '-lc', command] }],
    edit: (file, old, neu) => ['apply_patch', { input: `*** Begin Patch\n*** Update File: ${file}\n@@\n-${old}\n+${neu}\n*** End Patch` }],
    editOk: (file) => `Success. Updated the following files:\nM ${file}`,
  },
}

const SYSTEM: Record<Dialect, string> = {
  openai: 'You are a coding agent with bash, read_file and edit_file tools.',
  claude: 'You are Claude Code, an interactive CLI coding agent.',
  codex: 'You are Codex, a coding agent based on GPT-5.',
}

class Conv {
  readonly messages: OpenAIMessage[] = []
  private n = 0
  readonly t: Tools
  constructor(
    private readonly prefix: string,
    readonly dialect: Dialect,
  ) {
    this.t = TOOLS[dialect]
    this.messages.push({ role: 'system', content: SYSTEM[dialect] })
  }
  user(content: string) {
    this.messages.push({ role: 'user', content })
    return this
  }
  say(content: string) {
    this.messages.push({ role: 'assistant', content })
    return this
  }
  private call([name, args]: [string, unknown], result: string, text: string | null) {
    const id = `call_${this.prefix}_${++this.n}`
    this.messages.push({ role: 'assistant', content: text, tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] })
    this.messages.push({ role: 'tool', tool_call_id: id, content: result })
    return this
  }
  read(file: string, content: string, text: string | null = null) {
    return this.call(this.t.read(file), content, text)
  }
  run(command: string, output: string, text: string | null = null) {
    return this.call(this.t.run(command), output, text)
  }
  edit(file: string, oldText: string, newText: string, text: string | null = null) {
    return this.call(this.t.edit(file, oldText, newText), this.t.editOk(file), text)
  }
  /** Reads of unrelated files: bulk, so that budgets of 10% and 25% are reachable. */
  explore(files: readonly string[], seed: number) {
    files.forEach((file, i) => {
      const lines = Array.from({ length: 36 }, (_, k) => `${String(k + 1).padStart(4)}  ${prose(52, seed * 37 + i * 11 + k)}`).join('\n')
      this.read(file, lines, `Reading ${file.split('/').pop()} for context.`)
    })
    return this
  }
}

const EXPLORE = (root: string) => ['config.py', 'models.py', 'storage.py', 'views.py', 'utils.py', 'errors.py', 'settings.py', 'schema.py', 'cache.py', 'auth.py', 'routes.py', 'tasks.py'].map((f) => `${root}/${f}`)

/** A probe set for a builder: the fixture name is the builder's, with its dialect. */
export interface WorkflowConversation {
  name: string
  dialect: Dialect
  messages: OpenAIMessage[]
  probes: Probe[]
}

const probe = (name: string, p: Omit<Probe, 'fixture'>): Probe => ({ ...p, fixture: name })

// ───────────────────────────── git workflow ─────────────────────────────

/** Edit, test, branch, commit, push and open a pull request; then unrelated work in the tail. */
export function gitWorkflowSession(dialect: Dialect): WorkflowConversation {
  const name = `gitWorkflowSession-${dialect}`
  const c = new Conv('gw', dialect)
  c.user('The ISO week parser returns week 53 for the first days of January. Fix it, commit it on its own branch, push, and open a pull request against main.')
  c.read('src/cal/weeks.py', 'from datetime import date\n\n\ndef iso_week(d: date) -> int:\n    return d.isocalendar()[1] if d.month > 1 else 1\n', 'Reading the parser.')
  c.edit('src/cal/weeks.py', '    return d.isocalendar()[1] if d.month > 1 else 1', '    return d.isocalendar().week', 'The month check is wrong: isocalendar already knows the ISO week.')
  c.run('python -m pytest tests/test_weeks.py -q', '.....\n5 passed in 0.12s', 'Running the week tests.')
  c.explore(EXPLORE('src/cal'), 3)
  c.run('git checkout -b fix/iso-week-boundary', "Switched to a new branch 'fix/iso-week-boundary'", 'A branch for the fix.')
  c.run('git add -A && git commit -m "Use isocalendar week at year boundaries"', '[fix/iso-week-boundary 9c41e7d] Use isocalendar week at year boundaries\n 2 files changed, 14 insertions(+), 3 deletions(-)', 'Committing.')
  c.run(
    'git push -u origin fix/iso-week-boundary',
    "Enumerating objects: 9, done.\nCounting objects: 100% (9/9), done.\nWriting objects: 100% (5/5), 612 bytes | 612.00 KiB/s, done.\nTo github.com:acme/calendar.git\n * [new branch]      fix/iso-week-boundary -> fix/iso-week-boundary\nbranch 'fix/iso-week-boundary' set up to track 'origin/fix/iso-week-boundary'.",
    'Pushing the branch.',
  )
  c.run('gh pr create --base main --title "Use isocalendar week at year boundaries" --body "Fixes week numbers for early January."', '\nCreating pull request for fix/iso-week-boundary into main in acme/calendar\n\nhttps://github.com/acme/calendar/pull/214\n', 'Opening the pull request.')
  c.say('The fix is committed, pushed and up for review.')
  c.explore(EXPLORE('src/tz'), 5)
  // The tail (the last 10 messages): unrelated work.
  c.user('While CI runs, look at the timezone helpers.')
  c.read('src/tz/zones.py', 'ZONES = {}\n', 'Reading the zones.')
  c.run('python -m pytest tests/test_zones.py -q', '...\n3 passed in 0.05s', 'Zone tests.')
  c.run('ruff check src/tz', 'All checks passed!', 'Lint.')
  c.say('The timezone helpers look fine.')
  c.user('Good. Wait for CI.')
  c.say('Waiting.')
  const probes: Probe[] = [
    probe(name, { id: 'gw-01', kind: 'artifact', facet: 'repo-state', question: 'Which commit holds the fix (hash)?', answers: ['9c41e7d'] }),
    probe(name, { id: 'gw-02', kind: 'artifact', facet: 'repo-state', question: 'Which branch was pushed?', answers: ['fix/iso-week-boundary'] }),
    probe(name, { id: 'gw-03', kind: 'artifact', facet: 'repo-state', question: 'Which pull request was opened?', answers: ['github.com/acme/calendar/pull/214'] }),
    probe(name, { id: 'gw-04', kind: 'artifact', question: 'Which file was fixed?', answers: ['src/cal/weeks.py'] }),
  ]
  return { name, dialect, messages: c.messages, probes }
}

// ───────────────────────────── a fix that breaks another test ─────────────────────────────

/** A fix that makes its test pass but breaks another; reverted with git checkout, then a different fix. */
export function brokenFixSession(dialect: Dialect): WorkflowConversation {
  const name = `brokenFixSession-${dialect}`
  const c = new Conv('bf', dialect)
  c.user('test_invoice_rounding fails: invoice totals are off by a cent. Fix it without changing the public API.')
  c.run('python -m pytest tests/test_invoice.py -q', "F\n=================================== FAILURES ===================================\n____________________________ test_invoice_rounding _____________________________\n>       assert invoice.total == Decimal('10.00')\nE       AssertionError: assert Decimal('10.01') == Decimal('10.00')\n1 failed in 0.09s\nexit code 1", 'Reproducing.')
  c.read('src/billing/invoice.py', "from decimal import Decimal, ROUND_HALF_UP\n\n\nclass Invoice:\n    def total(self):\n        total = sum(line.amount for line in self.lines)\n        return round(total, 2)\n", 'Reading the invoice total.')
  c.edit('src/billing/invoice.py', '        return round(total, 2)', "        return total.quantize(Decimal('0.01'), rounding=ROUND_DOWN)", 'Rounding the total down.')
  c.run(
    'python -m pytest tests -q',
    "....F.....................................\n=================================== FAILURES ===================================\n_________________________ test_tax_inclusive_total _____________________________\nE       AssertionError: assert Decimal('21.99') == Decimal('22.00')\nFAILED tests/test_tax.py::test_tax_inclusive_total - AssertionError: assert Decimal('21.99') == Decimal('22.00')\n1 failed, 41 passed in 0.61s\nexit code 1",
    'Running the whole suite.',
  )
  c.say('Rounding the total down fixed the invoice test but broke test_tax_inclusive_total, because tax-inclusive totals must round half-up. I will revert it and round each line item instead.')
  c.run('git checkout -- src/billing/invoice.py', '', 'Reverting the first fix.')
  c.edit('src/billing/invoice.py', '        total = sum(line.amount for line in self.lines)', "        total = sum(line.amount.quantize(Decimal('0.01'), rounding=ROUND_HALF_UP) for line in self.lines)", 'Rounding each line item.')
  c.run('python -m pytest tests -q', '..........................................\n42 passed in 0.58s', 'Whole suite again.')
  c.explore(EXPLORE('src/billing'), 7)
  c.explore(EXPLORE('src/ledger'), 8)
  // The tail.
  c.user('Now look at the currency formatting helpers.')
  c.read('src/billing/money.py', 'def fmt(x):\n    return f"{x:.2f}"\n', 'Reading the formatter.')
  c.run('python -m pytest tests/test_money.py -q', '..\n2 passed in 0.03s', 'Money tests.')
  c.run('ruff check src/billing', 'All checks passed!', 'Lint.')
  c.say('The formatter is fine as it is.')
  c.user('OK, leave it.')
  c.say('Leaving it.')
  const probes: Probe[] = [
    probe(name, { id: 'bf-01', kind: 'decision', facet: 'rejected', question: 'Which test did the first fix break?', answers: ['test_tax_inclusive_total'] }),
    probe(name, { id: 'bf-02', kind: 'decision', facet: 'rejected', question: 'How was the first fix given up?', answers: [['git checkout', 'undone']] }),
    probe(name, { id: 'bf-03', kind: 'decision', facet: 'rejected', question: 'What did the first fix do (that was rejected)?', answers: ['ROUND_DOWN'] }),
  ]
  return { name, dialect, messages: c.messages, probes }
}

// ───────────────────────────── a review answered at length ─────────────────────────────

const REVIEW = `## Review: retry and backoff

**Verdict:** not safe to ship yet: two high-severity issues, one medium, one low.

### Findings

| # | Severity | Where | Finding |
|---|---|---|---|
| 1 | High | src/net/retry.ts:42 \`withRetry\` | Retries POST and PATCH requests, which are not idempotent: a timeout after the server committed creates duplicate orders. |
| 2 | High | src/net/backoff.ts:17 \`nextDelay\` | Jitter is \`Math.random() * base\`, so the delay can be 0 ms and a thundering herd follows an outage. |
| 3 | Medium | src/net/client.ts:88 | The Retry-After header is read but ignored when it is an HTTP date. |
| 4 | Low | src/net/retry.ts:12 | \`MAX_ATTEMPTS\` is 7, higher than the 5 the API guidelines allow. |

### Details

${prose(700, 41)}.

${prose(600, 42)}.

### Recommendations

- Retry only idempotent methods (GET, HEAD, PUT, DELETE) unless the request carries an idempotency key.
- Use full jitter with a floor: \`base / 2 + Math.random() * base / 2\`.
- Parse Retry-After dates with \`Date.parse\` and honour them.
- Lower \`MAX_ATTEMPTS\` to 5.`

/**
 * A written review asked for in the first message, answered with a long structured review;
 * a follow-up question after it. `checksAfter` adds that many reads between the question
 * and the tail (the agent double-checking), so the review lies deeper in the compacted range.
 */
export function reviewSession(dialect: Dialect, checksAfter = 0): WorkflowConversation {
  const name = `reviewSession-${dialect}`
  const c = new Conv('rv', dialect)
  c.user('Review the retry logic in src/net. Do not change anything: I want a written review with the findings ranked by severity.')
  c.read('src/net/retry.ts', 'export const MAX_ATTEMPTS = 7\n\nexport async function withRetry(req) {\n  for (let i = 0; i < MAX_ATTEMPTS; i++) {\n    try { return await send(req) } catch (e) { await sleep(nextDelay(i)) }\n  }\n}\n', 'Reading the retry loop.')
  c.read('src/net/backoff.ts', 'export function nextDelay(attempt: number, base = 100) {\n  return Math.random() * base * 2 ** attempt\n}\n', 'Reading the backoff.')
  c.explore(EXPLORE('src/net'), 11)
  c.run('grep -rn "withRetry(" src | head -20', 'src/orders/create.ts:31:  await withRetry({ method: "POST", url })\nsrc/orders/update.ts:18:  await withRetry({ method: "PATCH", url })\nsrc/catalog/list.ts:9:  await withRetry({ method: "GET", url })', 'Who calls it.')
  c.say(REVIEW)
  // The tail: a follow-up question answered after a few more reads.
  c.user('Is the second finding really high severity?')
  if (checksAfter > 0) c.explore(EXPLORE('src/http').concat(EXPLORE('src/queue')).slice(0, checksAfter), 17)
  c.read('src/net/client.ts', 'export async function send(req) {\n  return fetch(req.url, req)\n}\n', 'Checking the client.')
  c.run('git log --oneline -3 -- src/net/backoff.ts', 'a1b2c3d Add backoff\n', 'When backoff was added.')
  c.read('docs/api-guidelines.md', '# API guidelines\nClients retry at most 5 times.\n', 'The guidelines.')
  c.read('src/orders/create.ts', 'export async function createOrder(url) {\n  return client.post(url)\n}\n', 'A caller.')
  c.read('docs/incidents/2024-03.md', '# March outage\nAll clients reconnected within 40 ms.\n', 'The last incident report.')
  c.say('Yes: a zero delay after an outage makes every client retry at once.')
  const probes: Probe[] = [
    probe(name, { id: 'rv-01', kind: 'recall', facet: 'finding', question: 'What is the verdict of the review?', answers: ['not safe to ship'] }),
    probe(name, { id: 'rv-02', kind: 'recall', facet: 'finding', question: 'Which finding is about non-idempotent requests, and where?', answers: ['withRetry', 'not idempotent'] }),
    probe(name, { id: 'rv-03', kind: 'recall', facet: 'finding', question: 'What is wrong with the Retry-After header handling?', answers: ['Retry-After header is read but ignored'] }),
    probe(name, { id: 'rv-04', kind: 'continuation', question: 'What does the review recommend for jitter?', answers: ['full jitter with a floor'] }),
  ]
  return { name, dialect, messages: c.messages, probes }
}

// ───────────────────────────── the first message is a question ─────────────────────────────

/** Two questions first (working directory, branch), then the real task, worked on past the compacted range. */
export function questionFirstSession(dialect: Dialect): WorkflowConversation {
  const name = `questionFirstSession-${dialect}`
  const c = new Conv('qf', dialect)
  c.user('what is the working directory?')
  c.run('pwd', '/home/dev/projects/ledger', null)
  c.say('The working directory is /home/dev/projects/ledger.')
  c.user('which branch is checked out?')
  c.run('git branch --show-current', 'release-2024-q3', null)
  c.say('You are on release-2024-q3.')
  c.user('Add a --since option to the export command in ledger/cli.py so users can export only entries after a date, and write tests for it.')
  c.read('ledger/cli.py', 'import click\n\n@click.command()\n@click.option("--format", default="csv")\ndef export(format):\n    ...\n', 'Reading the export command.')
  c.edit('ledger/cli.py', '@click.option("--format", default="csv")', '@click.option("--format", default="csv")\n@click.option("--since", type=click.DateTime(), default=None)', 'Adding the option.')
  c.explore(EXPLORE('ledger'), 13)
  // The tail.
  c.run('python -m pytest tests -q', '..........\n10 passed in 0.21s', 'Running the tests.')
  c.read('ledger/export.py', 'def rows(entries):\n    return entries\n', 'Reading the exporter.')
  c.edit('ledger/export.py', 'def rows(entries):\n    return entries', 'def rows(entries, since=None):\n    return [e for e in entries if since is None or e.date >= since]', 'Filtering rows.')
  c.run('ruff check ledger', 'All checks passed!', 'Lint.')
  c.say('Next: the tests for the new option.')
  const probes: Probe[] = [
    probe(name, { id: 'qf-01', kind: 'continuation', question: 'What is the task in progress?', answers: ['--since option to the export command'] }),
    probe(name, { id: 'qf-02', kind: 'recall', question: 'Which branch was checked out?', answers: ['release-2024-q3'] }),
    probe(name, { id: 'qf-03', kind: 'recall', question: 'What was the working directory?', answers: ['/home/dev/projects/ledger'] }),
  ]
  return { name, dialect, messages: c.messages, probes }
}

export const WORKFLOW_BUILDERS: Record<string, (d: Dialect) => WorkflowConversation> = { gitWorkflowSession, brokenFixSession, reviewSession: (d) => reviewSession(d), questionFirstSession }

/** Every class in every dialect. */
export function workflowConversations(): WorkflowConversation[] {
  return Object.values(WORKFLOW_BUILDERS).flatMap((build) => DIALECTS.map((d) => build(d)))
}
