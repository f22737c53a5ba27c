/**
 * Generated conversations for issue 9's observations ("handover-grade compaction"), each
 * with its continuation probes (see test/eval/probes/core.ts for the probe shape and the
 * static rule every probe satisfies: its answers are only in the compacted range, never
 * in the system prompt, the first user message or the last 10 messages).
 *
 * All builders are deterministic and return OpenAI chat messages:
 *   { role, content, tool_calls: [{ id, type: 'function', function: { name, arguments } }] }
 *   { role: 'tool', tool_call_id, content }
 *
 *   harnessNoise()                  three writes, a ModuleNotFoundError, a constraint
 *                                   stated mid-way, then 150 harness messages
 *   earlierSummaries()              one builder per agent's earlier-summary marker
 *                                   (Claude Code, Codex, Gemini CLI, compactd)
 *   applyPatchSession()             Codex apply_patch (both call forms), add and delete
 *   scaffoldSession()               150 files written in one session
 *   successesWordedLikeFailures()   successes with scary words and one real failure
 *   mixedDecisions()                musings vs conclusions, a TodoWrite plan updated
 *                                   three times, a stated next step
 */
import type { Probe } from '../eval/probes/core.ts'
import { prose } from './prose.ts'

export interface OpenAIToolCall {
  id: string
  type: 'function'
  function: { name: string; arguments: string }
}
export type OpenAIMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: OpenAIToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string }

/** A generated conversation with its probes; `fixture` of every probe is `name`. */
export interface HandoverConversation {
  name: string
  messages: OpenAIMessage[]
  probes: Probe[]
  /** The budget the observation was made at, when the issue names one. */
  intendedTargetTokens?: number
}

/** Small deterministic builder: call ids are `call_<prefix>_<n>`. */
class Conv {
  readonly messages: OpenAIMessage[] = []
  private n = 0
  constructor(private readonly prefix: string) {}
  system(content: string) {
    this.messages.push({ role: 'system', content })
    return this
  }
  user(content: string) {
    this.messages.push({ role: 'user', content })
    return this
  }
  say(content: string) {
    this.messages.push({ role: 'assistant', content })
    return this
  }
  /** One assistant message with one tool call, then its result. */
  call(name: string, args: unknown, result: string, text: string | null = null) {
    const id = `call_${this.prefix}_${++this.n}`
    this.messages.push({ role: 'assistant', content: text, tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] })
    this.messages.push({ role: 'tool', tool_call_id: id, content: result })
    return this
  }
}

/** Code-like filler lines for tool outputs (deterministic). */
function codeLines(file: string, lines: number, seed: number): string {
  const out: string[] = []
  for (let i = 1; i <= lines; i++) out.push(`${String(i).padStart(4)}  ${i % 6 === 1 ? `// ${file}: ` : '  '}${prose(48, seed * 31 + i)}`)
  return out.join('\n')
}

/** Exploration that only adds bulk: reads of unrelated files (for budgets of 10% to be reachable). */
function explore(c: Conv, read: (file: string) => [string, unknown], files: readonly string[], seed: number): void {
  files.forEach((file, i) => {
    const [name, args] = read(file)
    c.call(name, args, codeLines(file, 30, seed + i), `Reading ${file.split('/').pop()} for context.`)
  })
}

// ───────────────────────────── harnessNoise ─────────────────────────────

const NOISE: readonly [string, string][] = [
  ['<task-notification>\n<task-id>bg-{n}</task-id>\n<status>completed</status>\n<summary>Background job {n} finished</summary>\n</task-notification>', 'Noted, nothing to do for that job.'],
  ['[Request interrupted by user]', 'Stopped.'],
  ['<system-reminder>\nThe task tools have not been used recently. This is a gentle reminder; ignore it if not applicable.\n</system-reminder>', 'OK.'],
  ['continue', 'Continuing.'],
  ['하이', '안녕하세요! 무엇을 도와드릴까요?'],
]

/**
 * Claude Code session drowned in harness messages: three Write calls, a failing pytest
 * (ModuleNotFoundError: No module named 'yaml', exit code 1), a user constraint in the
 * middle of 150 harness messages (each with a short reply), then a final instruction.
 * Intended target: 2,000 tokens.
 */
export function harnessNoise(): OpenAIMessage[] {
  const c = new Conv('hn')
  c.system('You are Claude Code, an interactive CLI coding agent. Use the tools to help the user with software engineering tasks.')
  c.user("Let's build the configuration layer of the ingest service. Start with the loader.")
  c.call('Write', { file_path: '/repo/src/ingest/config_loader.py', content: 'import os\nimport yaml\n\nfrom .settings_schema import Settings\n\n\ndef load_config(path: str) -> Settings:\n    with open(path) as fh:\n        raw = yaml.safe_load(fh)\n    raw.setdefault("workers", int(os.environ.get("INGEST_WORKERS", "4")))\n    return Settings(**raw)\n' }, 'File created successfully at: /repo/src/ingest/config_loader.py', "I'll add the loader first.")
  c.call('Write', { file_path: '/repo/src/ingest/settings_schema.py', content: 'from dataclasses import dataclass\n\n\n@dataclass\nclass Settings:\n    source_bucket: str\n    batch_size: int = 500\n    workers: int = 4\n' }, 'File created successfully at: /repo/src/ingest/settings_schema.py', 'Now the Settings dataclass the loader returns.')
  c.call('Write', { file_path: '/repo/tests/test_config_loader.py', content: 'from ingest.config_loader import load_config\n\n\ndef test_defaults(tmp_path):\n    p = tmp_path / "c.yml"\n    p.write_text("source_bucket: raw-events\\n")\n    s = load_config(str(p))\n    assert s.batch_size == 500\n' }, 'File created successfully at: /repo/tests/test_config_loader.py', 'And a first test.')
  c.call(
    'Bash',
    { command: 'python -m pytest tests/test_config_loader.py -q', description: 'Run the loader tests' },
    'Exit code 1\nImportError while importing test module \'/repo/tests/test_config_loader.py\'.\nTraceback (most recent call last):\n  File "/repo/tests/test_config_loader.py", line 1, in <module>\n    from ingest.config_loader import load_config\n  File "/repo/src/ingest/config_loader.py", line 2, in <module>\n    import yaml\nModuleNotFoundError: No module named \'yaml\'\n=========================== short test summary info ============================\nERROR tests/test_config_loader.py\n1 error in 0.21s',
  )
  c.say('The test run fails at import time: the YAML library is not installed in this environment. I will wait for your go-ahead before adding dependencies.')
  for (let i = 0; i < 150; i++) {
    if (i === 75) {
      c.user('Important: never touch the migrations folder (db/migrations is generated by the platform team).')
      c.say('Understood: nothing under db/migrations will be modified.')
    }
    const [u, a] = NOISE[i % NOISE.length]!
    c.user(u.replaceAll('{n}', String(i + 1)))
    c.say(a)
  }
  c.user('Now add the missing dependency to requirements-dev.txt and rerun the loader tests.')
  return c.messages
}

/** The harness texts harnessNoise() sends as user messages, as sent: none of their lines may reach a compaction's output. */
export function harnessNoiseInjections(): string[] {
  return Array.from({ length: 150 }, (_, i) => NOISE[i % NOISE.length]![0].replaceAll('{n}', String(i + 1)))
}

export const harnessNoiseProbes: Probe[] = [
  { id: 'hn-01', fixture: 'harnessNoise', kind: 'artifact', question: 'Which file holds the config loader, and which function does it define?', answers: ['src/ingest/config_loader.py', 'load_config'] },
  { id: 'hn-02', fixture: 'harnessNoise', kind: 'artifact', question: 'Which file defines the Settings dataclass?', answers: ['src/ingest/settings_schema.py'] },
  { id: 'hn-03', fixture: 'harnessNoise', kind: 'artifact', question: 'Which test file was written?', answers: ['tests/test_config_loader.py'] },
  { id: 'hn-04', fixture: 'harnessNoise', kind: 'recall', question: 'What error did the test run raise?', answers: ["ModuleNotFoundError: No module named 'yaml'"] },
  { id: 'hn-05', fixture: 'harnessNoise', kind: 'recall', question: 'Which command failed, and with which exit code?', answers: ['pytest tests/test_config_loader.py', 'exit code 1'] },
  { id: 'hn-06', fixture: 'harnessNoise', kind: 'continuation', question: 'Which folder did the user forbid touching?', answers: ['db/migrations'] },
]

// ───────────────────────────── earlierSummaries ─────────────────────────────

interface WorkTools {
  read: (file: string) => [string, unknown]
  run: (command: string) => [string, unknown]
  edit: (file: string, oldText: string, newText: string) => [string, unknown]
}

const CLAUDE_TOOLS: WorkTools = {
  read: (file) => ['Read', { file_path: file }],
  run: (command) => ['Bash', { command, description: 'Run' }],
  edit: (file, old_string, new_string) => ['Edit', { file_path: file, old_string, new_string }],
}
const CODEX_TOOLS: WorkTools = {
  read: (file) => ['shell', { command: ['bash', '-lc', `sed -n '1,80p' ${file}`] }],
  run: (command) => ['shell', { command: ['bash', '-lc', command] }],
  edit: (file, old, neu) => ['apply_patch', { input: `*** Begin Patch\n*** Update File: ${file}\n@@\n-${old}\n+${neu}\n*** End Patch` }],
}
const GEMINI_TOOLS: WorkTools = {
  read: (file) => ['read_file', { file_path: file }],
  run: (command) => ['run_shell_command', { command, description: 'Run' }],
  edit: (file, old_string, new_string) => ['replace', { file_path: file, old_string, new_string, instruction: 'Apply the change' }],
}

/** New work after an earlier summary: enough tool calls that compaction must summarise the summary again. */
function newWork(c: Conv, tools: WorkTools, files: readonly string[], seed: number): void {
  files.forEach((file, i) => {
    const [rn, ra] = tools.read(file)
    c.call(rn, ra, codeLines(file, 30, seed + i), `Reading ${file.split('/').pop()} next.`)
    if (i % 2 === 1) {
      const [en, ea] = tools.edit(file, `limit = ${10 + i}`, `limit = ${20 + i}`)
      c.call(en, ea, `The file ${file} has been updated.`, `Raising the limit in ${file.split('/').pop()}.`)
    }
  })
  const [bn, ba] = tools.run('make check')
  c.call(bn, ba, `${prose(200, seed + 99)}\nall checks passed`, 'Running the checks.')
}

/** Claude Code's continued-session summary as the second user message, then new work. */
export function earlierSummaryClaudeCode(): OpenAIMessage[] {
  const c = new Conv('cc')
  c.system('You are Claude Code, an interactive CLI coding agent.')
  c.user('Keep going with the invoice export feature.')
  c.user(`This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:
Analysis:
The user asked for a CSV export of invoices; most of the writer is done.

Summary:
1. Primary Request and Intent:
   The user wants a streaming CSV export of invoices for the finance team, runnable from the export CLI.

2. Key Technical Concepts:
   - Streaming rows through csv.writer instead of building a DataFrame
   - BOM-prefixed UTF-8 so that Excel opens the file correctly

3. Files and Code Sections:
   - services/export/csv_writer.py
     - Added write_rows(), which streams InvoiceRow objects to a file handle in chunks of 5000 rows.
   - services/export/cli.py
     - Registered the "invoices" sub-command.

4. Errors and fixes:
   - UnicodeEncodeError: 'latin-1' codec can't encode character '\\u20ac' when writing euro amounts.
     Fixed by opening the output with encoding='utf-8-sig'.

5. Problem Solving:
   Chose csv.writer streaming over pandas because exports reach 2 GB and pandas ran out of memory on the staging box.

6. All user messages:
   - "Add a CSV export for invoices."
   - "Do not change the public API of ExportJob."

7. Pending Tasks:
   - Add a --since flag to the export CLI.

8. Current Work:
   Was finishing the chunked writer and its tests.

9. Optional Next Step:
   Wire the S3 uploader upload_export() into the CLI after the file is written.`)
  c.say("I'll continue from where the previous session stopped.")
  newWork(c, CLAUDE_TOOLS, ['services/export/tests/test_chunks.py', 'services/export/formatters.py', 'services/export/models.py', 'services/export/tests/conftest.py', 'services/export/settings.py', 'services/export/logging.py', 'services/export/tests/test_models.py', 'services/export/paths.py'], 11)
  c.user('Good. Keep going.')
  c.say('Continuing with the remaining pieces.')
  return c.messages
}

export const earlierSummaryClaudeCodeProbes: Probe[] = [
  { id: 'es-cc-01', fixture: 'earlierSummaryClaudeCode', kind: 'artifact', question: 'Which file and function stream the invoice rows?', answers: ['csv_writer.py', 'write_rows'] },
  { id: 'es-cc-02', fixture: 'earlierSummaryClaudeCode', kind: 'recall', question: 'Which error came up when writing euro amounts, and how was it fixed?', answers: ['UnicodeEncodeError', 'utf-8-sig'] },
  { id: 'es-cc-03', fixture: 'earlierSummaryClaudeCode', kind: 'decision', question: 'Why was csv.writer chosen over pandas?', answers: [['2 GB', 'ran out of memory']] },
  { id: 'es-cc-04', fixture: 'earlierSummaryClaudeCode', kind: 'continuation', question: 'Which API must not change?', answers: ['ExportJob'] },
  { id: 'es-cc-05', fixture: 'earlierSummaryClaudeCode', kind: 'continuation', question: 'Which task is pending?', answers: ['--since'] },
  { id: 'es-cc-06', fixture: 'earlierSummaryClaudeCode', kind: 'continuation', question: 'What was the next step?', answers: ['upload_export'] },
]

const CODEX_HANDOFF =
  'Another language model started to solve this problem and produced a summary of its thinking process. You also have access to the state of the tools that were used by that language model. Use this to build on the work that has already been done and avoid duplicating work. Here is the summary produced by the other language model, use the information in this summary to assist with your own analysis:'

/** Codex's handoff message as the second user message, then new work. */
export function earlierSummaryCodex(): OpenAIMessage[] {
  const c = new Conv('cx')
  c.system('You are Codex, a coding agent based on GPT-5.')
  c.user('Add per-tenant rate limiting to the gateway.')
  c.user(`${CODEX_HANDOFF}
- Implemented a token bucket in internal/limiter/bucket.go; refill() adds rate*elapsed tokens capped at burst.
- Picked a token bucket over a sliding window because tenants need short bursts of up to 50 requests.
- Hit "panic: runtime error: integer divide by zero" in refill() when a tenant's rate is 0; now rate 0 means unlimited and skips refill.
- The user asked to keep the Redis dependency optional: the in-memory store is the default, Redis only when GATEWAY_REDIS_URL is set.
- Still to do: export a limiter_rejections_total counter and document the tenant override file.`)
  c.say('Picking up from that summary.')
  newWork(c, CODEX_TOOLS, ['internal/gateway/router.go', 'internal/gateway/middleware.go', 'internal/tenants/store.go', 'internal/tenants/store_test.go', 'cmd/gateway/main.go', 'internal/config/config.go', 'internal/gateway/middleware_test.go', 'internal/metrics/metrics.go'], 23)
  c.user('Looks fine so far, continue.')
  c.say('Continuing.')
  return c.messages
}

export const earlierSummaryCodexProbes: Probe[] = [
  { id: 'es-cx-01', fixture: 'earlierSummaryCodex', kind: 'artifact', question: 'Where is the token bucket implemented, and which function refills it?', answers: ['internal/limiter/bucket.go', 'refill()'] },
  { id: 'es-cx-02', fixture: 'earlierSummaryCodex', kind: 'recall', question: 'Which panic was hit, and when?', answers: ['integer divide by zero'] },
  { id: 'es-cx-03', fixture: 'earlierSummaryCodex', kind: 'decision', question: 'Why a token bucket rather than a sliding window?', answers: ['sliding window', 'bursts'] },
  { id: 'es-cx-04', fixture: 'earlierSummaryCodex', kind: 'continuation', question: 'Which constraint did the user set about Redis?', answers: ['GATEWAY_REDIS_URL'] },
  { id: 'es-cx-05', fixture: 'earlierSummaryCodex', kind: 'continuation', question: 'Which metric is still to be exported?', answers: ['limiter_rejections_total'] },
]

/** Gemini CLI's <state_snapshot> (after the session context) and the model's acknowledgement, then new work. */
export function earlierSummaryGemini(): OpenAIMessage[] {
  const c = new Conv('gm')
  c.user('<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\nMy operating system is: linux\n</session_context>')
  c.user(`<state_snapshot>
    <overall_goal>
        Migrate the documentation site from Docusaurus v2 to v3.
    </overall_goal>
    <key_knowledge>
        - MDX v2 requires escaping braces in prose; the build fails with "Could not parse expression with acorn" otherwise.
        - The custom admonition theme must be swizzled again for v3.
    </key_knowledge>
    <file_system_state>
        - MODIFIED: docusaurus.config.js - enabled the future.v3 flags.
        - CREATED: src/theme/Admonition/index.tsx - swizzled admonition for v3.
    </file_system_state>
    <recent_actions>
        - Removed the @docusaurus/plugin-ideal-image plugin because it pinned sharp 0.30, which does not build on Node 20.
        - Escaped the braces in docs/api/filters.mdx.
    </recent_actions>
    <current_plan>
        1. [DONE] Upgrade the @docusaurus packages to 3.x.
        2. [IN PROGRESS] Fix the remaining MDX parse errors.
        3. [TODO] Re-enable the Algolia search with the new appId.
    </current_plan>
</state_snapshot>`)
  c.say('Got it. Thanks for the additional context!')
  newWork(c, GEMINI_TOOLS, ['docs/guides/install.mdx', 'docs/guides/deploy.mdx', 'sidebars.js', 'docs/reference/cli.mdx', 'src/pages/index.tsx', 'docs/reference/config.mdx', 'src/css/custom.css', 'docs/changelog.mdx'], 37)
  c.user('Continue with the next pages.')
  c.say('On it.')
  return c.messages
}

export const earlierSummaryGeminiProbes: Probe[] = [
  { id: 'es-gm-01', fixture: 'earlierSummaryGemini', kind: 'continuation', question: 'What is the overall goal?', answers: ['Docusaurus'] },
  { id: 'es-gm-02', fixture: 'earlierSummaryGemini', kind: 'recall', question: 'Which build error appears when braces are not escaped?', answers: ['Could not parse expression with acorn'] },
  { id: 'es-gm-03', fixture: 'earlierSummaryGemini', kind: 'artifact', question: 'Which file was created for the admonition theme?', answers: ['src/theme/Admonition/index.tsx'] },
  { id: 'es-gm-04', fixture: 'earlierSummaryGemini', kind: 'decision', question: 'Which plugin was removed, and why?', answers: ['plugin-ideal-image', 'sharp 0.30'] },
  { id: 'es-gm-05', fixture: 'earlierSummaryGemini', kind: 'continuation', question: 'Which plan step is still to do?', answers: ['Algolia'] },
]

/** compactd's own earlier summary (round 1) as the second user message, then new work. */
export function earlierSummaryCompactd(): OpenAIMessage[] {
  const c = new Conv('cd')
  c.system('You are a coding agent working in a TypeScript monorepo.')
  c.user('Add monthly job quotas per tenant to the scheduler API.')
  c.user(`## Session Summary (Compaction Round 1)

### Original Task
Add monthly job quotas per tenant to the scheduler API.

### Completed Work
| File | Action | Description |
|---|---|---|
| migrations/0042_add_tenant_quota.sql | Created | quota_limit and quota_used columns on tenants |
| src/quota/enforcer.ts | Modified | enforceQuota() rejects jobs over the monthly cap with 429 |

### Key Technical Decisions
- Quota counters live in Postgres, not Redis, so the counter update and the job insert share one transaction.

### Current State
enforceQuota() is wired into POST /v1/jobs; unit tests pass.

### Pending Work
- Backfill quotas for existing tenants with scripts/backfill_quota.ts.

### Errors & Resolutions
- \`ERROR: column "quota_used" does not exist\` in the API tests → applied migration 0042 before running them.`)
  c.say('Continuing from the summary.')
  newWork(c, CLAUDE_TOOLS, ['src/api/jobs.ts', 'src/api/tenants.ts', 'src/db/pool.ts', 'src/api/jobs.test.ts', 'src/scheduler/queue.ts', 'src/scheduler/worker.ts', 'src/api/errors.ts', 'src/scheduler/queue.test.ts'], 53)
  c.user('Carry on.')
  c.say('Carrying on.')
  return c.messages
}

export const earlierSummaryCompactdProbes: Probe[] = [
  { id: 'es-cd-01', fixture: 'earlierSummaryCompactd', kind: 'artifact', question: 'Which migration was created?', answers: ['0042_add_tenant_quota.sql'] },
  { id: 'es-cd-02', fixture: 'earlierSummaryCompactd', kind: 'artifact', question: 'Which function enforces the quota, and in which file?', answers: ['src/quota/enforcer.ts', 'enforceQuota'] },
  { id: 'es-cd-03', fixture: 'earlierSummaryCompactd', kind: 'decision', question: 'Why are the counters in Postgres rather than Redis?', answers: ['one transaction'] },
  { id: 'es-cd-04', fixture: 'earlierSummaryCompactd', kind: 'recall', question: 'Which database error was seen in the API tests?', answers: ['column "quota_used" does not exist'] },
  { id: 'es-cd-05', fixture: 'earlierSummaryCompactd', kind: 'continuation', question: 'What work is pending?', answers: ['scripts/backfill_quota.ts'] },
]

/** The four earlier-summary conversations, by builder name. */
export function earlierSummaries(): Record<'earlierSummaryClaudeCode' | 'earlierSummaryCodex' | 'earlierSummaryGemini' | 'earlierSummaryCompactd', OpenAIMessage[]> {
  return {
    earlierSummaryClaudeCode: earlierSummaryClaudeCode(),
    earlierSummaryCodex: earlierSummaryCodex(),
    earlierSummaryGemini: earlierSummaryGemini(),
    earlierSummaryCompactd: earlierSummaryCompactd(),
  }
}

// ───────────────────────────── applyPatchSession / scaffoldSession ─────────────────────────────

/** Codex apply_patch in both call forms: go.mod, backend/Dockerfile, frontend/src/main.js, one Add File, one Delete File. */
export function applyPatchSession(): OpenAIMessage[] {
  const c = new Conv('ap')
  c.system('You are Codex, a coding agent based on GPT-5.')
  c.user('Upgrade the toolchain and add toast notifications to the frontend.')
  explore(c, CODEX_TOOLS.read, ['backend/internal/server/server.go', 'backend/internal/server/routes.go', 'frontend/src/App.vue', 'frontend/src/components/OrderList.vue', 'backend/internal/store/orders.go', 'frontend/vite.config.js', 'backend/internal/server/middleware.go', 'frontend/src/router.js'], 71)
  c.call('shell', { command: ['bash', '-lc', 'cat go.mod'] }, 'module github.com/acme/shipyard\n\ngo 1.21\n\nrequire (\n\tgithub.com/go-chi/chi/v5 v5.0.12\n)\n', 'Checking the module file first.')
  c.call('apply_patch', { input: '*** Begin Patch\n*** Update File: go.mod\n@@\n-go 1.21\n+go 1.22\n@@ require (\n \tgithub.com/go-chi/chi/v5 v5.0.12\n+\tgithub.com/rs/zerolog v1.33.0\n )\n*** End Patch' }, 'Success. Updated the following files:\nM go.mod', 'Bumping Go and adding the logger.')
  c.call('shell', { command: ['apply_patch', '*** Begin Patch\n*** Update File: backend/Dockerfile\n@@\n-FROM golang:1.21-alpine AS build\n+FROM golang:1.22-alpine AS build\n WORKDIR /src\n*** End Patch'] }, 'Success. Updated the following files:\nM backend/Dockerfile', 'The build image must match.')
  c.call('apply_patch', { input: "*** Begin Patch\n*** Update File: frontend/src/main.js\n@@\n import { createApp } from 'vue'\n+import 'vue-sonner/style.css'\n import App from './App.vue'\n*** End Patch" }, 'Success. Updated the following files:\nM frontend/src/main.js', 'The toast component needs its stylesheet.')
  c.call('apply_patch', { input: '*** Begin Patch\n*** Add File: backend/internal/health/handler.go\n+package health\n+\n+import "net/http"\n+\n+// Handler answers the load balancer probe.\n+func Handler(w http.ResponseWriter, _ *http.Request) {\n+\tw.WriteHeader(http.StatusNoContent)\n+}\n*** End Patch' }, 'Success. Updated the following files:\nA backend/internal/health/handler.go', 'A health endpoint for the new load balancer.')
  c.call('shell', { command: ['apply_patch', '*** Begin Patch\n*** Delete File: backend/cmd/legacy-ping/main.go\n*** End Patch'] }, 'Success. Updated the following files:\nD backend/cmd/legacy-ping/main.go', 'The old ping binary is replaced by the handler.')
  c.call('shell', { command: ['bash', '-lc', 'go build ./... && go vet ./...'] }, '', 'Building.')
  c.call('shell', { command: ['bash', '-lc', 'cd frontend && npm run build'] }, `vite v5.2.0 building for production...\n${prose(160, 5)}\n✓ built in 2.31s`, 'Frontend build.')
  // Unrelated tail (the last 10 messages).
  c.call('shell', { command: ['bash', '-lc', 'go test ./internal/queue/...'] }, 'ok  \tgithub.com/acme/shipyard/internal/queue\t0.412s', 'Queue tests.')
  c.call('shell', { command: ['bash', '-lc', 'go test ./internal/auth/...'] }, 'ok  \tgithub.com/acme/shipyard/internal/auth\t0.207s', 'Auth tests.')
  c.call('shell', { command: ['bash', '-lc', 'cd frontend && npm test -- --run'] }, 'Test Files  12 passed (12)\n     Tests  48 passed (48)', 'Frontend tests.')
  c.say('Everything builds and the tests pass.')
  c.user('Great, open the PR next.')
  c.say('Preparing the pull request description.')
  return c.messages
}

export const applyPatchSessionProbes: Probe[] = [
  { id: 'ap-01', fixture: 'applyPatchSession', kind: 'artifact', question: 'How was go.mod changed?', answers: ['go.mod', 'go 1.22'] },
  { id: 'ap-02', fixture: 'applyPatchSession', kind: 'artifact', question: 'Which dependency was added to go.mod?', answers: ['github.com/rs/zerolog'] },
  { id: 'ap-03', fixture: 'applyPatchSession', kind: 'artifact', question: 'How was backend/Dockerfile changed?', answers: ['backend/Dockerfile', 'golang:1.22-alpine'] },
  { id: 'ap-04', fixture: 'applyPatchSession', kind: 'artifact', question: 'What was added to frontend/src/main.js?', answers: ['frontend/src/main.js', 'vue-sonner/style.css'] },
  { id: 'ap-05', fixture: 'applyPatchSession', kind: 'artifact', question: 'Which file was added?', answers: ['backend/internal/health/handler.go'] },
  { id: 'ap-06', fixture: 'applyPatchSession', kind: 'artifact', question: 'Which file was deleted?', answers: ['backend/cmd/legacy-ping/main.go'] },
]

const MODULES = ['billing', 'invoices', 'customers', 'accounts', 'payments', 'refunds', 'subscriptions', 'plans', 'coupons', 'taxes', 'webhooks', 'audit', 'users', 'roles', 'sessions', 'tokens', 'teams', 'projects', 'files', 'exports', 'imports', 'reports', 'alerts', 'notifications', 'emails', 'search', 'tags', 'comments', 'settings', 'health']
const KINDS = ['controller', 'service', 'repository', 'dto', 'spec'] as const

/** A scaffold of 150 files (30 modules × 5 kinds) written with Write, then the module registry. */
export function scaffoldSession(): OpenAIMessage[] {
  const c = new Conv('sc')
  c.system('You are Claude Code, an interactive CLI coding agent.')
  c.user('Scaffold the API package: one NestJS module per domain, each with controller, service, repository, dto and spec.')
  for (const mod of MODULES) {
    for (const kind of KINDS) {
      const file = `/repo/packages/api/src/modules/${mod}/${mod}.${kind}.ts`
      const cls = `${mod[0]!.toUpperCase()}${mod.slice(1)}${kind[0]!.toUpperCase()}${kind.slice(1)}`
      c.call('Write', { file_path: file, content: `// ${mod} ${kind}\nexport class ${cls} {}\n` }, `File created successfully at: ${file}`)
    }
  }
  c.call('Write', { file_path: '/repo/packages/api/src/app.module.ts', content: `import { Module } from '@nestjs/common'\n\n@Module({ imports: [${MODULES.map((m) => `${m}Module`).join(', ')}] })\nexport class AppModule {}\n` }, 'File created successfully at: /repo/packages/api/src/app.module.ts', 'Registering every module in AppModule.')
  c.say('Scaffolded 150 files: 30 modules × (controller, service, repository, dto, spec), all registered in AppModule.')
  // Unrelated tail (the last 10 messages).
  c.call('Bash', { command: 'pnpm -r lint', description: 'Lint' }, 'Scope: 4 of 5 workspace projects\nDone in 6.1s', 'Linting.')
  c.call('Bash', { command: 'pnpm -r typecheck', description: 'Typecheck' }, 'Done in 9.4s', 'Typechecking.')
  c.call('Bash', { command: 'pnpm -r test', description: 'Tests' }, 'Test Suites: 31 passed, 31 total\nTests: 31 passed, 31 total', 'Running the tests.')
  c.call('Bash', { command: 'git status --short | wc -l', description: 'Count changes' }, '151', 'Counting the changes.')
  c.say('Lint, typecheck and tests are green.')
  c.user('Nice. Next we fill in the services.')
  c.say('Ready when you are.')
  return c.messages
}

export const scaffoldSessionProbes: Probe[] = [
  { id: 'sc-01', fixture: 'scaffoldSession', kind: 'artifact', question: 'Where were the module files created?', answers: ['packages/api/src/modules'] },
  { id: 'sc-02', fixture: 'scaffoldSession', kind: 'artifact', question: 'How many files did the scaffold create?', answers: ['150 files'] },
  { id: 'sc-03', fixture: 'scaffoldSession', kind: 'artifact', question: 'Which file registers all modules?', answers: ['app.module.ts'] },
  { id: 'sc-04', fixture: 'scaffoldSession', kind: 'artifact', question: 'Which files were created for the billing module (first) and the health module (last)?', answers: ['billing.controller.ts', 'health.spec.ts'] },
]

// ───────────────────────────── successesWordedLikeFailures ─────────────────────────────

const STREAMLIT_HELP = `Usage: streamlit run [OPTIONS] TARGET [ARGS]...

Options:
  --server.runOnSave BOOLEAN      Automatically rerun the script when the file is modified on disk. Falls back to polling if the watcher failed to start.  [default: false]
  --server.maxUploadSize INTEGER  Max size, in megabytes, for files uploaded with the file_uploader. An error is shown when it is exceeded.  [default: 200]
  --logger.level TEXT             Level of logging: 'error', 'warning', 'info', or 'debug'.  [default: info]
  --client.showErrorDetails BOOLEAN
                                  Whether to send error details to the browser when a script failed.  [default: true]
  --help                          Show this message and exit.`

/**
 * Tool results that report success in scary words (Write, Monitor, TaskStop, a help text
 * mentioning "error" and "failed", `timeout: 5s`, a script that contains `exit 1` but
 * exited 0) and one real failure (pytest, exit code 1) that a later run fixed.
 */
export function successesWordedLikeFailures(): OpenAIMessage[] {
  const c = new Conv('sw')
  c.system('You are Claude Code, an interactive CLI coding agent.')
  c.user('Get the Streamlit dashboard running and make the API tests pass.')
  explore(c, CLAUDE_TOOLS.read, ['/repo/src/orders/loader.py', '/repo/src/orders/models.py', '/repo/tests/conftest.py', '/repo/src/api/routes.py', '/repo/src/api/security.py', '/repo/pyproject.toml', '/repo/src/orders/cache.py', '/repo/tests/test_orders.py'], 83)
  c.call('Write', { file_path: '/repo/src/app.py', content: 'import streamlit as st\n\nst.title("Orders")\nst.dataframe(load_orders())\n' }, 'File created successfully at /repo/src/app.py', 'Writing the dashboard entry point.')
  c.call('Bash', { command: 'streamlit --help', description: 'Check the CLI options' }, STREAMLIT_HELP, 'Checking the available flags.')
  c.call('Monitor', { command: 'streamlit run src/app.py --server.port 8501', description: 'Dashboard dev server' }, 'Monitor started (task mon-1, pid 48122)', 'Starting the dashboard in the background.')
  c.call('Bash', { command: 'python scripts/healthcheck.py http://localhost:8501', description: 'Health check' }, 'healthcheck: ok (status 200, latency 12ms, timeout: 5s)', 'Checking that it answers.')
  c.call('Write', { file_path: '/repo/scripts/run_checks.sh', content: '#!/usr/bin/env bash\nFAIL_COUNT=0\nfor check in checks/*.sh; do\n  bash "$check" || FAIL_COUNT=$((FAIL_COUNT + 1))\ndone\nif [ "$FAIL_COUNT" -gt 0 ]; then\n  echo "Failed: ${FAIL_COUNT}"\n  exit 1\nfi\necho "All checks passed"\n' }, 'File created successfully at /repo/scripts/run_checks.sh', 'A small runner for the repo checks.')
  c.call('Bash', { command: 'bash scripts/run_checks.sh', description: 'Run the repo checks' }, 'All checks passed', 'Running them.')
  c.call('Bash', { command: 'python -m pytest tests/test_api.py -q', description: 'API tests' }, 'Exit code 1\n.....F..\n=================================== FAILURES ===================================\n__________________________________ test_login __________________________________\n    def test_login(client):\n        r = client.post("/login", json={"user": "ada", "password": "pw"})\n>       assert r.status_code == 200, f"expected 200, got {r.status_code}"\nE       AssertionError: expected 200, got 500\n=========================== short test summary info ============================\nFAILED tests/test_api.py::test_login - AssertionError: expected 200, got 500\n1 failed, 7 passed in 0.84s', 'Now the API tests.')
  c.call('Read', { file_path: '/repo/src/api/auth.py' }, '  1  from .security import check_password\n  2\n  3  def login(user, password):\n  4      if not check_password(password, user.pw_hash):\n  5          raise Unauthorized()\n  6      return issue_token(user)\n', 'Looking at the login handler.')
  c.call('Edit', { file_path: '/repo/src/api/auth.py', old_string: 'check_password(password, user.pw_hash)', new_string: 'check_password(user.pw_hash, password)' }, 'The file /repo/src/api/auth.py has been updated.', 'check_password takes (hash, password): the arguments were swapped, so verification raised inside the handler and the route answered 500.')
  c.call('Bash', { command: 'python -m pytest tests/test_api.py -q', description: 'API tests again' }, '........\n8 passed in 0.79s', 'Rerunning.')
  c.call('TaskStop', { task_id: 'mon-1' }, 'Successfully stopped task mon-1', 'Stopping the dev server.')
  // Unrelated tail (the last 10 messages).
  c.call('Read', { file_path: '/repo/README.md' }, '# Orders dashboard\n\nRun `make dev` to start.\n', 'Checking the README.')
  c.call('Bash', { command: 'git log --oneline -3', description: 'Recent commits' }, 'a1b2c3d docs: readme\n9f8e7d6 chore: deps\n5c4b3a2 feat: orders table', 'Recent history.')
  c.call('Bash', { command: 'ruff check src', description: 'Lint' }, 'All checks passed!', 'Linting.')
  c.say('The dashboard runs and the API tests pass.')
  c.user('Thanks, commit it.')
  c.say('Committing.')
  return c.messages
}

export const successesWordedLikeFailuresProbes: Probe[] = [
  { id: 'sw-01', fixture: 'successesWordedLikeFailures', kind: 'recall', question: 'Which test failed, and with which error?', answers: ['tests/test_api.py::test_login', 'AssertionError: expected 200, got 500'] },
  { id: 'sw-02', fixture: 'successesWordedLikeFailures', kind: 'decision', question: 'What was the root cause of the failing login test, and where was it fixed?', answers: ['src/api/auth.py', 'check_password'] },
  { id: 'sw-03', fixture: 'successesWordedLikeFailures', kind: 'recall', question: 'Did the failure get fixed (what did the later run report)?', answers: ['8 passed'] },
  {
    id: 'sw-04',
    fixture: 'successesWordedLikeFailures',
    kind: 'recall',
    question: 'The Write of src/app.py succeeded: it must not be shown as a failure.',
    answers: [],
    mustNotMatch: [/File created successfully[^\n]*(fail|✗|error|exit 1)/i, /(fail|✗|error)[^\n]*File created successfully/i, /(fail|✗|error)[^\n]*Write[^\n]*app\.py/i],
  },
  {
    id: 'sw-05',
    fixture: 'successesWordedLikeFailures',
    kind: 'recall',
    question: 'Monitor started and TaskStop succeeded: they must not be shown as failures.',
    answers: [],
    mustNotMatch: [/Monitor started[^\n]*(fail|✗|error)/i, /(fail|✗|error)[^\n]*Monitor started/i, /Successfully stopped task[^\n]*(fail|✗|error)/i, /(fail|✗|error)[^\n]*Successfully stopped task/i, /Monitor[^\n]*→\s*(failed|✗)/i],
  },
  {
    id: 'sw-06',
    fixture: 'successesWordedLikeFailures',
    kind: 'recall',
    question: '`streamlit --help` succeeded (its help text mentions "error" and "failed"): it must not be shown as a failure.',
    answers: [],
    mustNotMatch: [/streamlit --help[^\n]*(fail|✗|exit [1-9]|error)/i, /(fail|✗)[^\n]*streamlit --help/i],
  },
  {
    id: 'sw-07',
    fixture: 'successesWordedLikeFailures',
    kind: 'recall',
    question: 'The health check printed `timeout: 5s` and succeeded: it must not be listed as an error.',
    answers: [],
    mustNotMatch: [/(error|fail|✗)[^\n]*timeout: 5s/i, /timeout: 5s[^\n]*(error|fail|✗)/i, /healthcheck[^\n]*(fail|✗|error)/i],
  },
  {
    id: 'sw-08',
    fixture: 'successesWordedLikeFailures',
    kind: 'recall',
    question: 'run_checks.sh contains `exit 1` in an if but exited 0: it must not be shown as failed.',
    answers: [],
    mustNotMatch: [/run_checks\.sh[^\n]*(fail|✗|exit 1|exit code 1)/i, /(fail|✗)[^\n]*run_checks\.sh/i],
  },
]

// ───────────────────────────── mixedDecisions ─────────────────────────────

const todo = (content: string, status: 'pending' | 'in_progress' | 'completed') => ({ content, status, activeForm: content })

/**
 * An assistant that muses ("What if instead of moving the element…") and also states
 * real conclusions (root cause, WeakMap decision followed by the edit), a TodoWrite plan
 * updated three times, and a last stated intent not yet done.
 */
export function mixedDecisions(): OpenAIMessage[] {
  const c = new Conv('md')
  c.system('You are Claude Code, an interactive CLI coding agent.')
  c.user('The date labels in the report toolbar show the wrong locale after switching language. Fix it.')
  explore(c, CLAUDE_TOOLS.read, ['/repo/src/report/ReportBody.tsx', '/repo/src/report/Chart.tsx', '/repo/src/i18n/instance.ts', '/repo/src/i18n/messages.ts', '/repo/src/report/useReport.ts', '/repo/src/report/Legend.tsx', '/repo/src/app/routes.tsx', '/repo/src/report/styles.css'], 97)
  c.call('TodoWrite', { todos: [todo('Reproduce the wrong-locale labels', 'in_progress'), todo('Move Toolbar into LocaleProvider', 'pending'), todo('Fix the date formatting', 'pending')] }, 'Todos have been modified successfully.', 'Planning this out.')
  c.call('Read', { file_path: '/repo/src/report/ReportPage.tsx' }, '  1  export function ReportPage() {\n  2    return (\n  3      <>\n  4        <Toolbar />\n  5        <LocaleProvider>\n  6          <ReportBody />\n  7        </LocaleProvider>\n  8      </>\n  9    )\n 10  }\n', 'The toolbar renders outside the provider.')
  c.call('Edit', { file_path: '/repo/src/report/ReportPage.tsx', old_string: '<Toolbar />\n      <LocaleProvider>', new_string: '<LocaleProvider>\n        <Toolbar />' }, 'The file /repo/src/report/ReportPage.tsx has been updated.', 'Moving the Toolbar inside the LocaleProvider.')
  c.call('Bash', { command: 'npm test -- toolbar', description: 'Toolbar tests' }, "Exit code 1\nFAIL src/report/Toolbar.test.tsx\n  ✕ shows labels in the selected locale (21 ms)\n    Expected: \"lundi\"\n    Received: \"Monday\"\nTests: 1 failed, 3 passed, 4 total", 'Checking.')
  c.call('Edit', { file_path: '/repo/src/report/ReportPage.tsx', old_string: '<LocaleProvider>\n        <Toolbar />', new_string: '<Toolbar />\n      <LocaleProvider>' }, 'The file /repo/src/report/ReportPage.tsx has been updated.', 'Moving the Toolbar into the LocaleProvider did not help: the date formatter is created at import time, before any provider renders. Reverting that edit.')
  c.say('What if instead of moving the element, we do something else?')
  c.call('Grep', { pattern: 'formatterCache', path: 'src' }, 'src/i18n/format.ts:3:const formatterCache = new Map<string, Intl.DateTimeFormat>()\nsrc/i18n/format.ts:9:  let f = formatterCache.get(kind)', 'Looking for where formatters are cached.')
  c.say('I think we need a different approach.')
  c.call('Read', { file_path: '/repo/src/i18n/format.ts' }, "  1  import { i18n } from './instance'\n  2\n  3  const formatterCache = new Map<string, Intl.DateTimeFormat>()\n  4\n  5  export function formatDate(d: Date, kind = 'short') {\n  6    return getFormatter(kind).format(d)\n  7  }\n  8  function getFormatter(kind: string) {\n  9    let f = formatterCache.get(kind)\n 10    if (!f) formatterCache.set(kind, (f = new Intl.DateTimeFormat(i18n.locale, { dateStyle: kind as 'short' })))\n 11    return f\n 12  }\n", 'Reading the formatter module.')
  c.say('The root cause is that formatterCache is filled before setLocale() is called, and its key ignores the locale, so the first locale wins for the whole session.')
  c.call('TodoWrite', { todos: [todo('Reproduce the wrong-locale labels', 'completed'), todo('Key the formatter cache by i18n instance (WeakMap)', 'in_progress'), todo('Add regression test for the empty-list case', 'pending')] }, 'Todos have been modified successfully.', 'Updating the plan.')
  c.call('Edit', { file_path: '/repo/src/i18n/format.ts', old_string: 'const formatterCache = new Map<string, Intl.DateTimeFormat>()', new_string: 'const formatterCache = new WeakMap<I18n, Map<string, Intl.DateTimeFormat>>()' }, 'The file /repo/src/i18n/format.ts has been updated.', "I'll use a WeakMap keyed by the i18n instance instead of a global cache because setLocale() creates a new instance, and the old instance's formatters are then garbage-collected.")
  c.say('Let me check the updated test:')
  c.call('Read', { file_path: '/repo/src/report/Toolbar.test.tsx' }, "  1  it('shows labels in the selected locale', async () => {\n  2    await setLocale('fr')\n  3    render(<Toolbar />)\n  4    expect(screen.getByText('lundi')).toBeTruthy()\n  5  })\n")
  c.call('Bash', { command: 'npm test -- toolbar', description: 'Toolbar tests' }, 'PASS src/report/Toolbar.test.tsx\nTests: 4 passed, 4 total', 'Rerunning the toolbar tests.')
  c.call('TodoWrite', { todos: [todo('Reproduce the wrong-locale labels', 'completed'), todo('Key the formatter cache by i18n instance (WeakMap)', 'completed'), todo('Add regression test for the empty-list case', 'pending'), todo('Document the cache in docs/i18n.md', 'pending')] }, 'Todos have been modified successfully.', 'Plan updated.')
  c.say('Next I will add the regression test for the empty-list case.')
  // Unrelated tail (the last 10 messages).
  c.user('Before that, run lint, typecheck and the build.')
  c.call('Bash', { command: 'npm run lint', description: 'Lint' }, '✔ No problems found', 'Linting.')
  c.call('Bash', { command: 'npm run typecheck', description: 'Typecheck' }, 'tsc --noEmit: done in 7.2s', 'Typechecking.')
  c.call('Bash', { command: 'npm run build', description: 'Build' }, 'vite v5.2.0 building for production...\n✓ built in 3.02s', 'Building.')
  c.call('Bash', { command: 'npm run test -- --run', description: 'All tests' }, 'Test Files  22 passed (22)\n     Tests  97 passed (97)', 'And the whole test suite.')
  c.user("All green? Let's stop for today.")
  c.say('All green. See you tomorrow.')
  return c.messages
}

export const mixedDecisionsProbes: Probe[] = [
  { id: 'md-01', fixture: 'mixedDecisions', kind: 'decision', question: 'What was the root cause?', answers: ['formatterCache', 'before setLocale'] },
  { id: 'md-02', fixture: 'mixedDecisions', kind: 'decision', question: 'What replaced the global cache, and why?', answers: ['WeakMap', 'garbage-collected'] },
  { id: 'md-03', fixture: 'mixedDecisions', kind: 'decision', question: 'Which attempt was abandoned, and why?', answers: ['LocaleProvider', 'import time'] },
  { id: 'md-04', fixture: 'mixedDecisions', kind: 'continuation', question: 'What is the next step?', answers: ['regression test for the empty-list case'] },
  { id: 'md-05', fixture: 'mixedDecisions', kind: 'continuation', question: 'Which items are still pending in the latest plan?', answers: ['empty-list', 'docs/i18n.md'] },
  {
    id: 'md-06',
    fixture: 'mixedDecisions',
    kind: 'decision',
    question: 'Musings must not be presented as decisions or conclusions.',
    answers: [],
    mustNotMatch: [
      /#+ *Key (Technical )?Decisions[^#]*(What if instead of moving|we need a different approach|Let me check the updated test)/i,
      /(decision|decided|conclu|root cause)[^\n]*(What if instead of moving|we need a different approach|Let me check the updated test)/i,
    ],
  },
  {
    id: 'md-07',
    fixture: 'mixedDecisions',
    kind: 'continuation',
    question: 'The dropped todo ("Move Toolbar into LocaleProvider") must not be listed as pending.',
    answers: [],
    mustNotMatch: [/(pending|to ?do|in.progress|next)[^\n]*Move Toolbar into LocaleProvider/i, /Move Toolbar into LocaleProvider[^\n]*(pending|in.progress)/i],
  },
]

// ───────────────────────────── all ─────────────────────────────

/** Every generated conversation with its probes (built fresh on each call). */
export function handoverConversations(): HandoverConversation[] {
  const es = earlierSummaries()
  return [
    { name: 'harnessNoise', messages: harnessNoise(), probes: harnessNoiseProbes, intendedTargetTokens: 2000 },
    { name: 'earlierSummaryClaudeCode', messages: es.earlierSummaryClaudeCode, probes: earlierSummaryClaudeCodeProbes },
    { name: 'earlierSummaryCodex', messages: es.earlierSummaryCodex, probes: earlierSummaryCodexProbes },
    { name: 'earlierSummaryGemini', messages: es.earlierSummaryGemini, probes: earlierSummaryGeminiProbes },
    { name: 'earlierSummaryCompactd', messages: es.earlierSummaryCompactd, probes: earlierSummaryCompactdProbes },
    { name: 'applyPatchSession', messages: applyPatchSession(), probes: applyPatchSessionProbes },
    { name: 'scaffoldSession', messages: scaffoldSession(), probes: scaffoldSessionProbes },
    { name: 'successesWordedLikeFailures', messages: successesWordedLikeFailures(), probes: successesWordedLikeFailuresProbes },
    { name: 'mixedDecisions', messages: mixedDecisions(), probes: mixedDecisionsProbes },
  ]
}
