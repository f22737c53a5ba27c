/**
 * Claude Code hooks (docs/integrations.md):
 *
 * - `compactd hook pre-compact` (PreCompact): reads the hook's JSON on stdin
 *   (`session_id`, `transcript_path`, `trigger`), imports the transcript in-process
 *   (scope current: what the model sees now, Claude Code's earlier summary included) and
 *   stores compactd's summary of it as a checkpoint of that session: POST /compact with
 *   `sessionId` on the running service. Prints one line on stderr.
 * - `compactd hook session-start` (SessionStart, source `compact`): prints the session's
 *   latest checkpoint summary on stdout, which Claude Code adds to the new context; when
 *   the session has no checkpoint, the continuation block of its rolling summary (GET
 *   /sessions/:id/continuation), if it has one; else nothing.
 *
 * A hook never blocks Claude Code: a failure is one line on stderr and exit code 1 (a
 * non-blocking error); nothing to do is exit 0.
 */
import fs from 'node:fs'
import type { CompactResponse } from '../../use-cases/compact/compute.ts'
import { CliError, UsageError, intFlag, parseArgs } from './args.ts'
import { DEFAULT_URL, request, serverFrom, type Server } from './client.ts'
import { fsReason, type Io } from './io.ts'

/** Default budget of the pre-compact summary: sections plus action log, about a sixth of what Claude Code keeps free. */
export const HOOK_TARGET_TOKENS = 12_000

const SESSION_ID = /^[A-Za-z0-9._:-]{1,200}$/

export const HOOK_FLAGS = { values: ['url', 'target', 'model'], booleans: [] } as const

interface HookInput {
  session_id: string
  transcript_path?: string
  trigger?: string
  source?: string
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

async function readHookInput(io: Io, needs: 'transcript_path' | 'source'): Promise<HookInput> {
  if (io.stdin.isTTY) throw new CliError("expects the hook's JSON on stdin (Claude Code sends it); see docs/integrations.md")
  let text = ''
  for await (const chunk of io.stdin) text += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8')
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (err) {
    throw new CliError(`stdin: not valid JSON (${(err as Error).message})`)
  }
  if (!isRecord(value)) throw new CliError('stdin: expected a JSON object with session_id')
  if (typeof value.session_id !== 'string' || value.session_id === '') throw new CliError('stdin: session_id: expected a non-empty string')
  if (!SESSION_ID.test(value.session_id)) throw new CliError(`stdin: session_id: ${JSON.stringify(value.session_id.slice(0, 80))} is not a usable session id (1-200 characters of A-Z a-z 0-9 . _ : -)`)
  if (needs === 'transcript_path' && (typeof value.transcript_path !== 'string' || value.transcript_path === '')) throw new CliError('stdin: transcript_path: expected the path of the session transcript')
  return value as unknown as HookInput
}

/**
 * A hook cannot run in-process (the checkpoint lives in the service), so when the service is
 * down it says what to start; its exit code 1 is a non-blocking error: Claude Code carries on.
 */
function hookServer(url: string | undefined): Server {
  const server = serverFrom(url, process.env, DEFAULT_URL)!
  return {
    ...server,
    unreachableHint: `the hook needs the compactd service there: start it (\`npm start\` in the compactd directory, or \`docker run -p 3000:3000 compactd\`), or set COMPACTD_URL to where it runs; Claude Code carries on without compactd`,
  }
}

export async function hookCommand(argv: string[], io: Io): Promise<number> {
  const [event, ...rest] = argv
  const args = parseArgs(rest, HOOK_FLAGS)
  if (args.positionals.length > 0) throw new UsageError(`hook ${event ?? ''}: unexpected argument ${args.positionals[0]}`)
  const server = hookServer(args.values.get('url'))
  switch (event) {
    case 'pre-compact':
      return preCompact(io, server, intFlag(args, 'target', 500, 1_000_000) ?? HOOK_TARGET_TOKENS, args.values.get('model'))
    case 'session-start':
      return sessionStart(io, server)
    default:
      throw new UsageError(event ? `unknown hook ${JSON.stringify(event)}; expected pre-compact or session-start` : 'hook needs an event: pre-compact or session-start')
  }
}

async function preCompact(io: Io, server: Server, target: number, modelFlag: string | undefined): Promise<number> {
  const input = await readHookInput(io, 'transcript_path')
  const file = input.transcript_path!.replace(/^~(?=\/)/, process.env.HOME ?? '~')
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (err) {
    throw new CliError(`transcript_path ${file}: ${fsReason(err)}`)
  }
  // Loaded here, not at start-up: session-start never needs the importer.
  const { importLog } = await import('../../engine/import/index.ts')
  const imported = importLog(text, { source: 'claude-code', format: 'anthropic', scope: 'current' })
  if (imported.messages.length === 0) {
    io.stderr.write(`compactd: no checkpoint: the transcript holds no messages\n`)
    return 0
  }
  const model = modelFlag ?? imported.session.model
  const body = {
    messages: imported.messages,
    ...(imported.system !== undefined ? { system: imported.system } : {}),
    format: 'anthropic',
    ...(model ? { model } : {}),
    targetTokens: target,
    // The checkpoint keeps the summary only, so everything but the last unit is
    // summarised: no recent messages kept, no masking that would keep them instead.
    keepRecent: 0,
    strategy: ['rules'],
    force: true,
    sessionId: input.session_id,
  }
  let reply = await request<CompactResponse & { minimumTokens?: number }>(server, 'POST', '/compact', body, [422])
  if (reply.status === 422 && typeof reply.body.minimumTokens === 'number') {
    // The task message alone is over the budget: take the smallest budget that works.
    reply = await request<CompactResponse>(server, 'POST', '/compact', { ...body, targetTokens: Math.ceil(reply.body.minimumTokens * 1.05) })
  } else if (reply.status === 422) throw new CliError(`server: POST /compact: 422: ${(reply.body as { message?: string }).message ?? 'budget unreachable'}`)
  const r = reply.body
  const n = (x: number) => x.toLocaleString('en-US')
  if (!r.checkpoint) {
    io.stderr.write(`compactd: no checkpoint for session ${input.session_id}: ${r.reason ?? 'nothing was compacted'}\n`)
    return 0
  }
  io.stderr.write(
    `compactd: checkpoint ${r.checkpoint.checkpointNum} of session ${input.session_id} stored (${input.trigger ?? 'compaction'}; ${n(r.event.tokensBefore)} → ${n(r.event.tokensAfter)} tokens, ${r.strategy}, round ${r.event.round})\n`,
  )
  return 0
}

interface CheckpointItem {
  checkpointNum: number
  round: number | null
  summary: string
  originalTokens: number | null
  createdAt: string
}

async function sessionStart(io: Io, server: Server): Promise<number> {
  const input = await readHookInput(io, 'source')
  if (input.source !== undefined && input.source !== 'compact') return 0
  const id = encodeURIComponent(input.session_id)
  const list = await request<{ items: CheckpointItem[] }>(server, 'GET', `/sessions/${id}/checkpoints?limit=1`, undefined, [404])
  const latest = list.status === 200 ? list.body.items[0] : undefined
  if (latest && latest.summary.trim() !== '') {
    io.stdout.write(continuationText(latest))
    return 0
  }
  const cont = await request<{ prompt: string }>(server, 'GET', `/sessions/${id}/continuation`, undefined, [404])
  if (cont.status === 200 && cont.body.prompt.trim() !== '') {
    io.stdout.write(`${cont.body.prompt.trim()}\n`)
    return 0
  }
  io.stderr.write(`compactd: nothing to restore: session ${input.session_id} has no checkpoint and no rolling summary\n`)
  return 0
}

/** What Claude Code gets after its own summary: compactd's checkpoint, introduced in one line. */
export function continuationText(c: CheckpointItem): string {
  const size = c.originalTokens ? `, from ${c.originalTokens.toLocaleString('en-US')} tokens of context` : ''
  return `[compactd checkpoint ${c.checkpointNum} of this session, written just before the compaction${size}: the user's instructions as written, the files touched and how, failures and whether they were fixed, decisions, and the next step. Where it is more specific than the summary above, trust it.]\n\n${c.summary.trim()}\n`
}
