/** Files, stdin and progress for the CLI. */
import fs from 'node:fs'
import path from 'node:path'
import cliProgress from 'cli-progress'
import { CliError } from './args.ts'

/** Above this size one file's import shows its progress. */
export const LARGE_FILE_BYTES = 8 * 1024 * 1024
/** Larger files are refused (one string cannot hold them). */
export const MAX_FILE_BYTES = 400 * 1024 * 1024

export interface Io {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean }
  stdout: NodeJS.WritableStream
  stderr: NodeJS.WritableStream & { isTTY?: boolean }
}

/** A file's text, or stdin's when `file` is `-`. Every failure is one line. */
export async function readInput(file: string, io: Io): Promise<{ text: string; name: string; bytes: number }> {
  if (file === '-') {
    if (io.stdin.isTTY) throw new CliError('reading stdin (-), but stdin is a terminal: pipe a file in, e.g. `compactd import - < session.jsonl`')
    const chunks: Buffer[] = []
    let bytes = 0
    for await (const chunk of io.stdin) {
      const b = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer)
      bytes += b.length
      if (bytes > MAX_FILE_BYTES) throw new CliError(`stdin: more than ${MAX_FILE_BYTES / 1024 / 1024} MiB`)
      chunks.push(b)
    }
    return { text: Buffer.concat(chunks).toString('utf8'), name: 'stdin', bytes }
  }
  let stat: fs.Stats
  try {
    stat = fs.statSync(file)
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${fsReason(err)}`)
  }
  if (stat.isDirectory()) throw new CliError(`${file} is a directory; give a file`)
  if (stat.size > MAX_FILE_BYTES) throw new CliError(`${file}: ${(stat.size / 1024 / 1024).toFixed(0)} MiB is more than the ${MAX_FILE_BYTES / 1024 / 1024} MiB this command reads`)
  try {
    return { text: fs.readFileSync(file, 'utf8'), name: file, bytes: stat.size }
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${fsReason(err)}`)
  }
}

export function fsReason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code
  switch (code) {
    case 'ENOENT':
      return 'no such file or directory'
    case 'EACCES':
    case 'EPERM':
      return 'permission denied'
    case 'EISDIR':
      return 'is a directory'
    default:
      return code ?? (err as Error).message
  }
}

/** Log files under a directory (recursively): .jsonl, .json and .traj, sorted. */
export function logFiles(dir: string): string[] {
  const out: string[] = []
  const walk = (d: string) => {
    let entries: fs.Dirent[]
    try {
      entries = fs.readdirSync(d, { withFileTypes: true })
    } catch (err) {
      throw new CliError(`cannot read ${d}: ${fsReason(err)}`)
    }
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(d, e.name)
      if (e.isDirectory()) walk(p)
      else if (e.isFile() && /\.(jsonl|json|traj)$/i.test(e.name)) out.push(p)
    }
  }
  walk(dir)
  return out
}

/** Writes `text` to `file`, or to stdout when absent. */
export function writeOutput(text: string, file: string | undefined, io: Io): void {
  if (file === undefined || file === '-') {
    io.stdout.write(text.endsWith('\n') ? text : `${text}\n`)
    return
  }
  try {
    fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true })
    fs.writeFileSync(file, text.endsWith('\n') ? text : `${text}\n`)
  } catch (err) {
    throw new CliError(`cannot write ${file}: ${fsReason(err)}`)
  }
}

/**
 * Progress of a long job on stderr: a bar on a terminal (cli-progress), otherwise plain
 * lines (every quarter, and at the end), so logs and CI output stay readable.
 */
export interface Progress {
  update(done: number, note?: string): void
  stop(): void
}

export function progress(io: Io, label: string, total: number, unit: string): Progress {
  if (io.stderr.isTTY) {
    const bar = new cliProgress.SingleBar(
      { format: `${label} [{bar}] {percentage}% | {value}/{total} ${unit} {note}`, stream: io.stderr as NodeJS.WritableStream, hideCursor: true, clearOnComplete: false, etaBuffer: 20 },
      cliProgress.Presets.shades_classic,
    )
    bar.start(total, 0, { note: '' })
    return {
      update: (done, note) => bar.update(done, { note: note ?? '' }),
      stop: () => bar.stop(),
    }
  }
  let lastQuarter = -1
  return {
    update: (done, note) => {
      if (unit === 'files') {
        io.stderr.write(`${label} [${done}/${total}]${note ? ` ${note}` : ''}\n`)
        return
      }
      const quarter = total > 0 ? Math.floor((done / total) * 4) : 4
      if (quarter > lastQuarter && quarter < 4) {
        lastQuarter = quarter
        io.stderr.write(`${label}: ${quarter * 25}% (${done}/${total} ${unit})\n`)
      }
    },
    stop: () => {
      if (unit !== 'files') io.stderr.write(`${label}: 100% (${total}/${total} ${unit})\n`)
    },
  }
}
