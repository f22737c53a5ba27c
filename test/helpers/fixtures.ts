/**
 * The real agent sessions the tests may read: `../shared/fixtures` from the repository root
 * (conversations/: normalised OpenAI-format sessions; transcripts/: the raw agent logs), or the
 * folder named by COMPACTD_SHARED_FIXTURES. They are read at run time and never copied here.
 *
 * The one place that knows where they are and why a test that needs them is skipped: each
 * `…Skip` function returns false when what the test needs is there, else a reason that names
 * exactly what is missing (the folder, with the absolute path looked at and how to point
 * COMPACTD_SHARED_FIXTURES at it; or, the folder being there, the file or kind of session that
 * is not in it). A reason never says a folder is absent when it exists.
 */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** The environment variable that names the fixtures folder (with conversations/ and transcripts/). */
export const FIXTURES_ENV = 'COMPACTD_SHARED_FIXTURES'

/** The repository root (this file is in test/helpers/). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

/** Where the fixtures folder is, and whether COMPACTD_SHARED_FIXTURES or the default put it there. */
export interface FixturesLocation {
  /** The absolute path of the fixtures folder. */
  root: string
  /** 'env': from COMPACTD_SHARED_FIXTURES; 'default': ../shared/fixtures from the repository root. */
  from: 'env' | 'default'
}

/** The fixtures folder: COMPACTD_SHARED_FIXTURES when set (relative to the working directory), else ../shared/fixtures from the repository root. */
export function locateFixtures(env: NodeJS.ProcessEnv = process.env): FixturesLocation {
  const value = env[FIXTURES_ENV]?.trim()
  if (value) return { root: path.resolve(value), from: 'env' }
  return { root: path.resolve(REPO_ROOT, '../shared/fixtures'), from: 'default' }
}

/** The fixtures folder of this run. */
export const LOCATION: FixturesLocation = locateFixtures()
export const SHARED = LOCATION.root
/** The normalised conversations (OpenAI format, one .json a session). */
export const CONVERSATIONS = path.join(SHARED, 'conversations')
/** The raw agent logs, one folder an agent (pi-agent/, codex-cli/, …). */
export const TRANSCRIPTS = path.join(SHARED, 'transcripts')

const isDir = (p: string) => fs.statSync(p, { throwIfNoEntry: false })?.isDirectory() === true
const isFile = (p: string) => fs.statSync(p, { throwIfNoEntry: false })?.isFile() === true

/** Why the fixtures folder itself cannot be read, or false when it is a folder. */
export function fixturesFolderSkip(loc: FixturesLocation = LOCATION): string | false {
  if (isDir(loc.root)) return false
  const what = fs.existsSync(loc.root) ? 'is not a folder' : 'does not exist'
  if (loc.from === 'env') {
    return `${FIXTURES_ENV}=${loc.root} ${what}: set ${FIXTURES_ENV} to the path of the shared fixtures folder (the one with conversations/ and transcripts/), or unset it to use ../shared/fixtures from the repository root`
  }
  return `the shared fixtures folder ${loc.root} (../shared/fixtures from the repository root) ${what}: put the real agent sessions there, or set ${FIXTURES_ENV} to the path of a fixtures folder (the one with conversations/ and transcripts/)`
}

/**
 * Why `entries` are not all in `dir`, or false. An entry is a file's path relative to `dir`,
 * or a folder's, ending in '/', that must hold at least one file.
 */
function entriesSkip(loc: FixturesLocation, sub: 'conversations' | 'transcripts', entries: readonly string[]): string | false {
  const folder = fixturesFolderSkip(loc)
  if (folder) return folder
  const dir = path.join(loc.root, sub)
  if (!isDir(dir)) return `${loc.root} exists but has no ${sub}/ folder`
  const absent: string[] = []
  const empty: string[] = []
  for (const entry of entries) {
    const p = path.join(dir, entry)
    if (entry.endsWith('/')) {
      if (!isDir(p)) absent.push(`${entry} folder`)
      else if (fs.readdirSync(p).length === 0) empty.push(entry)
    } else if (!isFile(p)) absent.push(entry)
  }
  if (!absent.length && !empty.length) return false
  const parts = [...(absent.length ? [`has no ${absent.join(', ')}`] : []), ...(empty.length ? [`its ${empty.join(', ')} ${empty.length === 1 ? 'is' : 'are'} empty`] : [])]
  return `${dir} exists but ${parts.join(' and ')}`
}

/**
 * Why the conversations a test needs are not there, or false. `files`: the .json sessions it
 * reads by name; without them, at least one .json session.
 */
export function conversationsSkip(files: readonly string[] = [], loc: FixturesLocation = LOCATION): string | false {
  const skip = entriesSkip(loc, 'conversations', files)
  if (skip || files.length) return skip
  const dir = path.join(loc.root, 'conversations')
  return fs.readdirSync(dir).some((f) => f.endsWith('.json')) ? false : `${dir} exists but has no .json conversation`
}

/**
 * Why the raw agent logs a test needs are not there, or false. `entries`: paths relative to
 * transcripts/ ('pi-agent/x.jsonl'), a folder ending in '/' ('aider/') to need at least one
 * file in it; without them, transcripts/ itself.
 */
export function transcriptsSkip(entries: readonly string[] = [], loc: FixturesLocation = LOCATION): string | false {
  return entriesSkip(loc, 'transcripts', entries)
}

/**
 * Why a kind of session is not there, or false: the conversations folder first (as
 * conversationsSkip()), then `found` (whether the test found one), described by `kind`
 * ('a pi session with ISO timestamps').
 */
export function conversationKindSkip(kind: string, found: boolean, loc: FixturesLocation = LOCATION): string | false {
  const skip = conversationsSkip([], loc)
  if (skip) return skip
  return found ? false : `${path.join(loc.root, 'conversations')} exists but has no ${kind}`
}

/** The .json sessions in conversations/, sorted ([] when there are none). */
export function fixtureFiles(loc: FixturesLocation = LOCATION): string[] {
  const dir = path.join(loc.root, 'conversations')
  return isDir(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort() : []
}

/** A session's messages as in its file. */
export function fixtureConversation(file: string): Record<string, unknown>[] {
  return (JSON.parse(fs.readFileSync(path.join(CONVERSATIONS, file), 'utf8')) as { messages: Record<string, unknown>[] }).messages
}

export interface FixtureMessage {
  index: number
  role: string
  /** The content's text (text parts joined by newlines). */
  text: string
  toolCalls: { name: string; arguments: string }[]
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) {
    return content
      .map((p) => (p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : ''))
      .filter(Boolean)
      .join('\n')
  }
  return ''
}

/** A session's messages, each as its role, text and tool calls. */
export function fixtureMessages(file: string): FixtureMessage[] {
  return fixtureConversation(file).map((m, index) => ({
    index,
    role: String(m.role),
    text: textOf(m.content),
    toolCalls: Array.isArray(m.tool_calls)
      ? (m.tool_calls as { function?: { name?: string; arguments?: string } }[]).map((c) => ({ name: c.function?.name ?? '', arguments: c.function?.arguments ?? '' }))
      : [],
  }))
}
