/**
 * Tool-output lines a finding rests on: the lines of a read, a search or a command's
 * output whose identifiers, numbers or names the agent reused afterwards (reuse.ts). The
 * reuse is the evidence that the line mattered; a line nobody came back to is left to the
 * archive. Each output gives at most a few lines, with their source (file or command).
 *
 * Serves every session where the agent learns by reading: a code investigation (a grep
 * listing the backends that share a pattern, the line of a function that guards a case),
 * a research session (a search result's price or version), a debugging session (the line
 * of a log that named the failing value).
 */
import type { ToolCallPart } from '../../messages/canonical.ts'
import { clipKeepingPaths, COMMAND_HEAD } from '../text.ts'
import { commandOf, firstKey, parseArgs, PATH_KEYS, PATTERN_KEYS } from '../tool-args.ts'
import { classifyTool } from '../tool-kind.ts'
import { forEachToken, tokenWeight, type ReuseIndex } from './reuse.ts'

/** Characters of an output read for evidence: a huge log is read from its start. */
const OUTPUT_SCAN_CHARS = 4_000
/** Characters of one line read (a minified line is data, not a finding). */
const LINE_SCAN_CHARS = 300
/** Lines kept per output. */
export const LINES_PER_OUTPUT = 3
/** Least evidence a line needs: about one identifier reused in prose, or two only in arguments. */
const MIN_LINE_SCORE = 0.75

export interface EvidenceLine {
  text: string
  score: number
  /** Tokens the agent reused. */
  reused: string[]
}

export interface OutputEvidence {
  position: number
  lines: EvidenceLine[]
  score: number
}

/** A line without the line-number prefix a reader adds (`  12\t`, `  12→`, `12:`), whitespace collapsed. */
export function cleanLine(line: string): string {
  return line
    .replace(/^\s*\d+(?:[\t→|:]|\s{2,})\s?/, '')
    .replace(/\s+/g, ' ')
    .trim()
}

const URL_KEYS = ['url', 'uri', 'href', 'link']

const MARKUP_RE = /<\/?[a-z][^>]*>|!?\[[^\]]*\]\([^)]*\)|https?:\/\/\S+/gi

/**
 * What a markup line says: each link as its text and its target (`Hello World (/cgi-bin/hello.pl)`,
 * the target being what an agent follows and reuses), other tags dropped, entities of
 * spaces and ampersands read. Empty when nothing but scaffolding is left.
 */
export function markupText(line: string): string {
  return line
    .replace(/<a\b[^>]*?\bhref\s*=\s*["']?([^"'\s>]+)["']?[^>]*>([\s\S]*?)<\/a>/gi, (_, href: string, text: string) => `${text.replace(/<[^>]*>/g, '').trim()} (${href})`)
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\(([^)\s]*)[^)]*\)/g, (_, text: string, url: string) => (text.trim() ? `${text.trim()} (${url})` : url))
    .replace(/<\/?[a-z!][^>]*>/gi, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .replace(/\(\s*\)/g, '')
    .trim()
}

/** A line that is mostly markup (HTML tags, badge images, links): a page's scaffolding, not what it says. */
export function isMarkup(line: string): boolean {
  let markup = 0
  for (const m of line.matchAll(MARKUP_RE)) markup += m[0].length
  return markup > line.length * 0.4
}

/** The compact name of where an output came from: `read a.py`, `grep "x" in src/`, or the command. */
export function sourceOf(call: Pick<ToolCallPart, 'name' | 'argsText'> | undefined, command?: string): string {
  if (command !== undefined) return clipKeepingPaths(command.split('\n')[0]!, 80, COMMAND_HEAD)
  if (!call) return 'output'
  const args = parseArgs(call.argsText)
  const kind = classifyTool(call.name, args)
  const cmd = commandOf(args)
  if (kind === 'shell' && cmd) return clipKeepingPaths(cmd.split('\n')[0]!, 80, COMMAND_HEAD)
  const path = firstKey(args, PATH_KEYS) ?? firstKey(args, URL_KEYS)
  const pattern = firstKey(args, PATTERN_KEYS)
  const name = call.name.split(/[.:/]/).pop() ?? call.name
  if (kind === 'read' && path) return `read ${clipKeepingPaths(path, 80)}`
  const where = path === undefined ? '' : /^[a-z][\w+.-]*:\/\//i.test(path) ? path : `in ${clipKeepingPaths(path, 60)}`
  const what = [pattern ? `"${clipKeepingPaths(pattern, 50)}"` : '', where].filter(Boolean).join(' ')
  return what ? `${name} ${what}` : cmd ? clipKeepingPaths(cmd, 80, COMMAND_HEAD) : name
}

/** Whether a call's output is an acknowledgement (a write or an edit): nothing to learn from. */
export function isAcknowledgement(call: Pick<ToolCallPart, 'name' | 'argsText'>): boolean {
  const kind = classifyTool(call.name, parseArgs(call.argsText))
  return kind === 'write' || kind === 'edit'
}

/**
 * The lines of one output the agent reused, best first then in output order, at most
 * LINES_PER_OUTPUT. `seen` holds lines already credited to an earlier output (a file read
 * twice teaches once); `fromOutput` learns where each token the agent wrote first came out
 * of a tool. Most tokens of an output were never written by anyone: one lookup dismisses
 * them, and only lines holding a reused token are looked at again. Plain lower-case words
 * are not looked up at all: a line is evidence by its identifiers, numbers and names.
 */
export function evidenceOf(output: string, position: number, index: ReuseIndex, seen: Set<string>, fromOutput: Map<string, number>): OutputEvidence | undefined {
  const text = output.length > OUTPUT_SCAN_CHARS ? output.slice(0, OUTPUT_SCAN_CHARS) : output
  // Reused tokens by the offset of their line's start: only those lines are looked at again.
  const hits = new Map<number, Map<string, number>>()
  let lineStart = 0
  let lineEnd = text.indexOf('\n')
  forEachToken(text, (token, at) => {
    const u = index.usesOf(token)
    if (!u) return
    if (!fromOutput.has(token)) fromOutput.set(token, position)
    if (u.first < position) return // known before this output: it did not teach it
    const r = index.reuseOf(u, position)
    if (r === 0) return
    if (lineEnd >= 0 && at > lineEnd) {
      lineStart = text.lastIndexOf('\n', at) + 1
      lineEnd = text.indexOf('\n', at)
    }
    let line = hits.get(lineStart)
    if (!line) hits.set(lineStart, (line = new Map()))
    line.set(token, r)
  }, true)
  const found: (EvidenceLine & { at: number })[] = []
  for (const [at, tokens] of hits) {
    let score = 0
    let strong = false
    for (const [token, r] of tokens) {
      const w = tokenWeight(token)
      score += w * r
      if (w >= 0.5) strong = true
    }
    if (!strong || score < MIN_LINE_SCORE) continue
    const end = text.indexOf('\n', at)
    const raw = text.slice(at, end < 0 ? undefined : end)
    const line = cleanLine(raw.length > LINE_SCAN_CHARS ? raw.slice(0, LINE_SCAN_CHARS) : raw)
    const key = line.toLowerCase()
    if (line.length < 6 || seen.has(key)) continue
    // A markup line is kept for what it says (its text and link targets), not its tags.
    const said = isMarkup(line) ? markupText(line) : line
    if (said.length < 6 || !/\p{L}/u.test(said) || (said !== line && seen.has(said.toLowerCase()))) continue
    found.push({ text: said, score, reused: [...tokens.keys()], at })
  }
  if (found.length === 0) return undefined
  const best = [...found].sort((a, b) => b.score - a.score || a.at - b.at).slice(0, LINES_PER_OUTPUT)
  for (const l of best) seen.add(l.text.toLowerCase())
  const lines = best.sort((a, b) => a.at - b.at).map(({ text, score, reused }) => ({ text, score, reused }))
  const scores = lines.map((l) => l.score).sort((a, b) => b - a)
  return { position, lines, score: scores[0]! + 0.25 * scores.slice(1).reduce((s, x) => s + x, 0) }
}
