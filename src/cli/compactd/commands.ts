/**
 * compactd estimate / compact / import: each against a server (--url, COMPACTD_URL) or
 * with the engine in-process. An input file is a message array (or a request-like
 * object `{messages, system?, format?, model?}`), or an agent's session log, which is
 * imported first (in-process).
 */
import fs from 'node:fs'
import path from 'node:path'
import { isRecord } from '../../engine/messages/adapter.ts'
import { FORMAT_NAMES, MessageFormatError, parseConversation, serializeConversation, type MessageFormat } from '../../engine/messages/index.ts'
import { documentLayout, IMPORT_SOURCES, ImportError, importLog, type ImportResult, type ImportScope, type ImportSource } from '../../engine/import/index.ts'
import { isStrategyName, STRATEGY_NAMES } from '../../engine/compaction/strategies/index.ts'
import { compact, estimate, type CompactRequest, type CompactResponse, type EstimateInput, type EstimateResult } from '../../index.ts'
import { CliError, UsageError, choiceFlag, intFlag, parseArgs, type ParsedArgs } from './args.ts'
import { request, serverFrom, type Server } from './client.ts'
import { LARGE_FILE_BYTES, logFiles, progress, readInput, writeOutput, type Io } from './io.ts'

// ---------------------------------------------------------------------------
// Input: messages, or an agent log

export interface Conversation {
  messages: unknown[]
  system?: unknown
  format?: MessageFormat
  model?: string
  /** Set when the input was an agent log. */
  imported?: ImportResult
}

function looksLikeMessages(list: unknown[]): boolean {
  return list.every((m) => isRecord(m) && typeof m.role === 'string')
}

/** The conversation in a file's text: messages as given, or an agent log imported in `format` (default openai). */
export function conversationFrom(text: string, opts: { format?: MessageFormat; source?: ImportSource; scope?: ImportScope; onProgress?: (done: number, total: number) => void }): Conversation {
  let doc: unknown
  const first = text.trimStart()[0]
  if (first === '{' || first === '[') {
    try {
      doc = JSON.parse(text)
    } catch {
      doc = undefined
    }
  }
  if (opts.source === undefined && doc !== undefined && documentLayout(doc) === undefined) {
    if (Array.isArray(doc) && looksLikeMessages(doc)) return convert({ messages: doc }, opts.format)
    if (isRecord(doc) && Array.isArray(doc.messages) && looksLikeMessages(doc.messages)) {
      const format = typeof doc.format === 'string' && FORMAT_NAMES.includes(doc.format as MessageFormat) ? (doc.format as MessageFormat) : undefined
      return convert(
        {
          messages: doc.messages,
          ...(doc.system !== undefined ? { system: doc.system } : {}),
          ...(format ? { format } : {}),
          ...(typeof doc.model === 'string' ? { model: doc.model } : {}),
        },
        opts.format,
      )
    }
  }
  const imported = importLog(text, {
    ...(opts.source ? { source: opts.source } : {}),
    format: opts.format ?? 'openai',
    ...(opts.scope ? { scope: opts.scope } : {}),
    ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
  })
  return {
    messages: imported.messages,
    ...(imported.system !== undefined ? { system: imported.system } : {}),
    format: imported.format,
    ...(imported.session.model ? { model: imported.session.model } : {}),
    imported,
  }
}

/** Messages in `format` (through the adapters), when one is asked for and differs. */
function convert(c: Conversation, format: MessageFormat | undefined): Conversation {
  if (format === undefined) return c
  const parsed = parseConversation(c.messages, { ...(c.format ? { format: c.format } : {}), system: c.system })
  if (parsed.format === format) return { ...c, format }
  const out = serializeConversation(parsed.messages, format)
  return { messages: out.messages, ...(out.system !== undefined ? { system: out.system } : {}), format, ...(c.model ? { model: c.model } : {}) }
}

const plural = (k: number, what: string) => `${k.toLocaleString('en-US')} ${what}${k === 1 ? '' : 's'}`

/** One line about an import, and its first issues, on stderr. */
export function reportImport(io: Io, name: string, r: ImportResult): void {
  const n = plural
  const skippedLines = r.issues.length + r.issuesOmitted
  io.stderr.write(
    `${name}: ${r.source}${r.session.agent && r.session.agent !== r.source ? ` (${r.session.agent})` : ''} log, ${n(r.messages.length, 'message')} (${r.format}), ${n(r.compactions.length, 'compaction')}, ${n(skippedLines, 'broken or unknown line')} skipped${r.repairs.length ? `, ${n(r.repairs.length, 'tool pairing repair')}` : ''}\n`,
  )
  const shown = r.issues.slice(0, 10)
  for (const i of shown) io.stderr.write(`  ${i.line !== null ? `line ${i.line}` : (i.path ?? 'entry')}: ${i.kind}: ${i.message}\n`)
  if (skippedLines > shown.length) io.stderr.write(`  … and ${skippedLines - shown.length} more\n`)
}

function formatFlag(args: ParsedArgs): MessageFormat | undefined {
  return choiceFlag(args, 'format', FORMAT_NAMES)
}

function oneFile(args: ParsedArgs, command: string): string {
  if (args.positionals.length === 0) throw new UsageError(`${command} needs a FILE (or - for stdin)`)
  if (args.positionals.length > 1) throw new UsageError(`${command} takes one FILE, got ${args.positionals.length}`)
  return args.positionals[0]!
}

function serverOf(args: ParsedArgs): Server | undefined {
  if (args.booleans.has('local')) {
    if (args.values.has('url')) throw new UsageError('--local and --url contradict each other')
    return undefined
  }
  return serverFrom(args.values.get('url'), process.env)
}

const n = (x: number) => x.toLocaleString('en-US')

// ---------------------------------------------------------------------------
// estimate

export const ESTIMATE_FLAGS = { values: ['url', 'model', 'format', 'method', 'source', 'scope'], booleans: ['json', 'local'] } as const

export async function estimateCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(argv, ESTIMATE_FLAGS)
  const file = oneFile(args, 'estimate')
  const format = formatFlag(args)
  const method = choiceFlag(args, 'method', ['tokenizer', 'heuristic', 'provider'] as const)
  const source = choiceFlag(args, 'source', IMPORT_SOURCES)
  const scope = choiceFlag(args, 'scope', ['all', 'current'] as const)
  const server = serverOf(args)
  const input = await readInput(file, io)
  const conv = conversationFrom(input.text, { ...(format ? { format } : {}), ...(source ? { source } : {}), ...(scope ? { scope } : {}) })
  const body: EstimateInput = {
    messages: conv.messages,
    ...(conv.system !== undefined ? { system: conv.system as EstimateInput['system'] } : {}),
    ...(conv.format ? { format: conv.format } : {}),
    ...(args.values.get('model') ?? conv.model ? { model: args.values.get('model') ?? conv.model } : {}),
    ...(method ? { method } : {}),
  }
  let result: EstimateResult
  if (server) result = (await request<EstimateResult>(server, 'POST', '/estimate', body)).body
  else result = await estimate(body, { config: process.env })
  if (conv.imported) reportImport(io, input.name, conv.imported)
  if (args.booleans.has('json')) {
    writeOutput(JSON.stringify(result, null, 2), undefined, io)
    return 0
  }
  io.stdout.write(
    `${n(result.totalTokens)} tokens in ${n(result.perMessage?.length ?? 0)} messages (${result.model}${result.modelKnown ? '' : ', unknown model'}; ${result.method}${result.encoding ? ` ${result.encoding}` : ''}${result.safetyMargin !== 1 ? `, ×${result.safetyMargin} margin` : ''})\n` +
      (result.thresholdNote !== undefined
        ? `context ${n(result.contextLimit)}, compaction threshold 0: ${result.thresholdNote}\n`
        : `context ${n(result.contextLimit)}, compaction threshold ${n(result.threshold)}: ${result.shouldCompact ? 'over it, compact now' : `${n(result.threshold - result.totalTokens)} tokens to go`}\n`) +
      (result.fallback ? `note: ${result.fallback.from} unavailable (${result.fallback.reason}); counted with ${result.method}\n` : ''),
  )
  return 0
}

// ---------------------------------------------------------------------------
// compact

export const COMPACT_FLAGS = {
  values: ['url', 'target', 'model', 'format', 'out', 'strategy', 'keep-recent', 'keep-first', 'session', 'source', 'scope', 'max-summary-tokens'],
  booleans: ['local', 'messages', 'force', 'dry-run'],
} as const

export async function compactCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(argv, COMPACT_FLAGS)
  const file = oneFile(args, 'compact')
  const format = formatFlag(args)
  const source = choiceFlag(args, 'source', IMPORT_SOURCES)
  const scope = choiceFlag(args, 'scope', ['all', 'current'] as const)
  const target = intFlag(args, 'target')
  const keepRecent = intFlag(args, 'keep-recent', 0, 100_000)
  const keepFirst = intFlag(args, 'keep-first', 0, 1_000)
  const maxSummaryTokens = intFlag(args, 'max-summary-tokens', 50, 100_000)
  const strategyRaw = args.values.get('strategy')
  let strategy: CompactRequest['strategy']
  if (strategyRaw !== undefined) {
    const list = strategyRaw.split(',').map((s) => s.trim())
    strategy = list.map((s) => {
      if (!isStrategyName(s)) throw new UsageError(`--strategy: expected a comma-separated list of ${STRATEGY_NAMES.join(', ')}, got ${JSON.stringify(s)}`)
      return s
    })
  }
  const sessionId = args.values.get('session')
  if (sessionId !== undefined && !/^[A-Za-z0-9._:-]{1,200}$/.test(sessionId)) throw new UsageError('--session: use 1-200 characters from A-Z a-z 0-9 . _ : -')
  const server = serverOf(args)
  if (sessionId !== undefined && !server) throw new UsageError('--session stores a checkpoint, which needs a server: give --url or set COMPACTD_URL')

  const input = await readInput(file, io)
  const conv = conversationFrom(input.text, { ...(format ? { format } : {}), ...(source ? { source } : {}), ...(scope ? { scope } : {}) })
  const model = args.values.get('model') ?? conv.model
  const body: CompactRequest = {
    messages: conv.messages,
    ...(conv.system !== undefined ? { system: conv.system as CompactRequest['system'] } : {}),
    ...(conv.format ? { format: conv.format } : {}),
    ...(model ? { model } : {}),
    ...(target !== undefined ? { targetTokens: target } : {}),
    ...(keepRecent !== undefined ? { keepRecent } : {}),
    ...(keepFirst !== undefined ? { keepFirst } : {}),
    ...(maxSummaryTokens !== undefined ? { maxSummaryTokens } : {}),
    ...(strategy ? { strategy } : {}),
    ...(sessionId ? { sessionId } : {}),
    ...(args.booleans.has('force') ? { force: true } : {}),
    ...(args.booleans.has('dry-run') ? { dryRun: true } : {}),
  }
  let result: CompactResponse
  if (server) result = (await request<CompactResponse>(server, 'POST', '/compact', body)).body
  else result = await compact(body, { config: process.env })
  const out = args.booleans.has('messages') ? (result.system !== undefined ? { system: result.system, messages: result.messages } : result.messages) : result
  writeOutput(JSON.stringify(out, null, 2), args.values.get('out'), io)
  if (conv.imported) reportImport(io, input.name, conv.imported)
  const ev = result.event
  io.stderr.write(
    result.compacted
      ? `compacted: ${n(conv.messages.length)} → ${n(result.messages.length)} messages, ${n(ev.tokensBefore)} → ${n(ev.tokensAfter)} tokens (target ${n(result.targetTokens)}, ${result.strategy}${result.summary ? `, round ${ev.round}` : ''})${result.checkpoint ? `; checkpoint ${result.checkpoint.checkpointNum} of session ${result.checkpoint.sessionId}` : ''}\n`
      : `not compacted: ${result.reason ?? 'nothing to do'} (${n(ev.tokensBefore)} tokens, target ${n(result.targetTokens)})\n`,
  )
  return 0
}

// ---------------------------------------------------------------------------
// import

export const IMPORT_FLAGS = { values: ['url', 'source', 'format', 'scope', 'out'], booleans: ['local', 'messages'] } as const

export async function importCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(argv, IMPORT_FLAGS)
  const target = oneFile(args, 'import')
  const format = formatFlag(args) ?? 'openai'
  const source = choiceFlag(args, 'source', IMPORT_SOURCES)
  const scope = choiceFlag(args, 'scope', ['all', 'current'] as const)
  const server = serverOf(args)
  const out = args.values.get('out')

  const run = async (text: string, name: string, bytes: number): Promise<ImportResult> => {
    if (server) {
      return (await request<ImportResult>(server, 'POST', '/import', { log: text, format, ...(source ? { source } : {}), ...(scope ? { scope } : {}) })).body
    }
    let bar: ReturnType<typeof progress> | undefined
    const result = importLog(text, {
      format,
      ...(source ? { source } : {}),
      ...(scope ? { scope } : {}),
      ...(bytes >= LARGE_FILE_BYTES
        ? {
            onProgress: (done: number, total: number) => {
              bar ??= progress(io, `importing ${name}`, total, 'lines')
              bar.update(done)
            },
          }
        : {}),
    })
    bar?.stop()
    return result
  }
  const render = (r: ImportResult) => JSON.stringify(args.booleans.has('messages') ? (r.system !== undefined ? { system: r.system, messages: r.messages } : r.messages) : r, null, 2)

  let isDir = false
  if (target !== '-') {
    try {
      isDir = fs.statSync(target).isDirectory()
    } catch {
      isDir = false // readInput names the problem
    }
  }
  if (!isDir) {
    const input = await readInput(target, io)
    const result = await run(input.text, input.name, input.bytes)
    writeOutput(render(result), out, io)
    reportImport(io, input.name, result)
    return 0
  }

  // A directory: every .jsonl / .json / .traj below it.
  const files = logFiles(target)
  if (files.length === 0) throw new CliError(`${target}: no .jsonl, .json or .traj files in it`)
  if (out !== undefined && fs.existsSync(out) && !fs.statSync(out).isDirectory()) throw new CliError(`--out ${out}: with a directory to import, --out must be a directory`)
  const bar = progress(io, `importing ${target}`, files.length, 'files')
  const failed: string[] = []
  let done = 0
  for (const file of files) {
    const rel = path.relative(target, file)
    let note: string
    try {
      const input = await readInput(file, io)
      const result = await run(input.text, rel, 0)
      if (out !== undefined) writeOutput(render(result), path.join(out, rel.replace(/\.(jsonl|json|traj)$/i, '') + '.json'), io)
      else io.stdout.write(`${JSON.stringify(args.booleans.has('messages') ? { file: rel, messages: result.messages, ...(result.system !== undefined ? { system: result.system } : {}) } : { file: rel, ...result })}\n`)
      note = `${rel}: ${result.source}, ${plural(result.messages.length, 'message')}, ${plural(result.compactions.length, 'compaction')}, ${plural(result.issues.length + result.issuesOmitted, 'skipped line')}`
    } catch (err) {
      if (!(err instanceof ImportError || err instanceof CliError || err instanceof MessageFormatError)) throw err
      failed.push(`${rel}: ${err.message}`)
      note = `${rel}: not imported`
    }
    bar.update(++done, note)
  }
  bar.stop()
  for (const f of failed) io.stderr.write(`not imported: ${f}\n`)
  io.stderr.write(`imported ${files.length - failed.length} of ${files.length} files${out !== undefined ? ` into ${out}` : ''}\n`)
  return failed.length > 0 ? 1 : 0
}
