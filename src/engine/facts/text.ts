/**
 * Small text predicates every engine step shares, written once: a message's own
 * text, sentence splitting, test commands, clipping that never cuts inside a path.
 */
import { toolResultsOf, type CanonicalMessage } from '../messages/canonical.ts'

/** The message's text parts only (no reasoning, tool calls or results), joined by newlines. */
export function textOf(message: CanonicalMessage): string {
  let out = ''
  for (const p of message.parts) if (p.type === 'text') out = out ? `${out}\n${p.text}` : p.text
  return out
}

/** True for a user message that carries words of its own rather than only tool results. */
export function hasOwnText(message: CanonicalMessage): boolean {
  return textOf(message).trim().length > 0
}

/** A user-role message that holds tool results (Anthropic) — its text parts, if any, are separate. */
export function carriesToolResults(message: CanonicalMessage): boolean {
  return toolResultsOf(message).length > 0
}

/**
 * Words that open a sentence glued to the one before when a transcript lost its line
 * breaks ("…the upload form.Let's create…"). A list, not any capital: `models.Model`,
 * `React.Component` and `os.Path` are names, not two sentences.
 */
const GLUED_OPENERS = "Let's|Let|I|I'll|I'm|We|We'll|Now|Then|Next|First|Finally|The|This|That|These|It|Instead|Before|After|So|But|However|Since|Because|Upon|To|Also|Another|Here|There|Looking|Great|Perfect"
const SENTENCE_SPLIT = new RegExp(`(?<=[.!?])\\s+(?=[A-Z\`"'(\\d])|(?<=[a-z)\`][.!?])(?=(?:${GLUED_OPENERS})\\b)|\\n+`)

/**
 * Sentences of prose, code blocks removed, list markers stripped. `min`/`max` bound the
 * length kept (a 3-word fragment says nothing; a 2,000-character "sentence" is data).
 */
export function splitSentences(text: string, min = 0, max = Infinity): string[] {
  const out: string[] = []
  for (const raw of text.replace(/```[\s\S]*?```/g, ' ').split(SENTENCE_SPLIT)) {
    const s = raw.replace(/^[-*#>\s]+/, '').trim()
    if (s.length >= Math.max(1, min) && s.length <= max) out.push(s)
  }
  return out
}

/** Commands that run tests, builds, linters or type checks: their outcome is evidence of the state. */
export const TEST_COMMAND_RE =
  /\b(test|tests|pytest|py\.test|jest|vitest|mocha|tap|ava|go test|cargo (?:test|build|check|clippy)|unittest|tox|nox|make (?:check|test)|npm (?:run )?(?:test|build|lint|check|typecheck)|pnpm (?:run )?(?:test|build|lint)|yarn (?:test|build|lint)|tsc|eslint|ruff|mypy|flake8|pylint|gradle(?:w)? (?:test|build)|mvn (?:test|verify|package)|dotnet test|rspec|phpunit)\b/i

export function isTestCommand(command: string): boolean {
  return TEST_COMMAND_RE.test(command)
}

/**
 * A command without the output filter it ends with (`2>&1 | tail -300`, `| head -50`): the
 * same run seen through a different window, so `pytest x | tail -100` and `pytest x | tail
 * -300` are one command, and a success of either resolves a failure of the other.
 */
export function commandIdentity(command: string): string {
  return command
    .trim()
    .replace(/(?:\s*\|\s*(?:tail|head)(?:\s+-[nc])?(?:\s+[-+]?\d+)?)+$/, '')
    .replace(/\s*2>&1$/, '')
    .trim()
}

/**
 * A cut position that does not split a surrogate pair (an emoji, say): moved back for the
 * end of a head, forward for the start of a tail, so what is kept stays valid text.
 */
export function codePointCut(text: string, at: number, forward = false): number {
  if (at <= 0 || at >= text.length) return at
  const code = text.charCodeAt(at)
  const before = text.charCodeAt(at - 1)
  if (code < 0xdc00 || code > 0xdfff || before < 0xd800 || before > 0xdbff) return at
  return forward ? at + 1 : at - 1
}

/**
 * A cut position that does not split a URL (a cut URL points nowhere): moved back to the
 * URL's start for the end of a head, forward past its end for the start of a tail, so a
 * URL is kept whole or left out. Only the 512 characters on either side are looked at: a
 * longer unbroken token is cut where it is.
 */
export function urlSafeCut(text: string, at: number, forward = false): number {
  if (at <= 0 || at >= text.length || /\s/.test(text[at - 1]!) || /\s/.test(text[at]!)) return at
  const lo = Math.max(0, at - 512)
  const start = lo + text.slice(lo, at).search(/\S*$/)
  const after = text.slice(at, at + 512).search(/\s/)
  const end = after < 0 ? (at + 512 >= text.length ? text.length : -1) : at + after
  const url = /[a-z][\w+.-]*:\/\//i.exec(text.slice(start, end < 0 ? at + 512 : end))
  if (!url || start + url.index >= at) return at
  if (!forward) return start + url.index
  return end < 0 ? at : end
}

/** One line, whitespace collapsed, at most `max` characters (an ellipsis marks the cut). */
export function clip(s: string, max: number): string {
  const one = s.replace(/\s+/g, ' ').trim()
  return one.length > max ? `${one.slice(0, codePointCut(one, max - 1))}…` : one
}

const PATHLIKE_AT_END = /[\w@.+~-]*(?:\/[\w@.+~-]*)+$|[\w@+-]+\.[A-Za-z]\w{0,9}$/

/**
 * A path no longer than `max`, shortened by dropping leading directories
 * (`/Users/me/app/src/main/java/com/x/Foo.java` → `…/java/com/x/Foo.java`), never inside
 * the file name: a name longer than `max` comes back whole. URLs come back untouched.
 */
export function shortenPath(path: string, max: number): string {
  if (path.length <= max || /^[a-z][\w+.-]*:\/\//i.test(path)) return path
  const segs = path.split('/')
  for (let k = 1; k < segs.length; k++) {
    const short = `…/${segs.slice(k).join('/')}`
    if (short.length <= max || k === segs.length - 1) return short
  }
  return path
}

/** Path tokens of a text: something/with/slashes, not a URL. */
const PATH_TOKEN = /(?<![\w:/.~…-])(?:…\/|~\/|\.{1,2}\/|\/)?(?:[\w@.+~-]+\/)+[\w@.+~-]+/g
const URL_TOKEN = /[a-z][\w+.-]*:\/\/\S+/gi

/** A shell command's leading characters stay as written: they are what identifies it. */
export const COMMAND_HEAD = { keepHead: 60 } as const

/**
 * Like clip(), but a cut never lands inside a path or URL. Long paths are first shortened
 * by dropping leading directories (`…/main/java/com/x/Foo.java`); if the text still does
 * not fit, it ends before the path that would have been cut, so a file name is either
 * whole or absent; a path starting within `keepHead` characters is neither shortened nor
 * dropped, but cut at `max` (a command's first characters are kept as written).
 * URLs are never altered: they are kept whole or left out (tried: a URL in the head cut
 * like a path kept 2 more commands in the rolling summary and cost a probe at 25%).
 */
export function clipKeepingPaths(s: string, max: number, opts: { keepHead?: number } = {}): string {
  let one = s.replace(/\s+/g, ' ').trim()
  // A command's first characters are what identifies it (`cd /repo && pytest …`): paths
  // that start within `keepHead` are not shortened, the end is cut instead.
  const keepHead = opts.keepHead ?? 0
  if (one.length <= max) return one
  // Only the start can survive: look at a bounded prefix, so a 300k-character token costs
  // no more than a short one (the regexes below backtrack over long unbroken tokens).
  if (one.length > max * 4 + 256) one = one.slice(0, max * 4 + 256)
  // Shorten the longest path by one leading directory at a time until the text fits.
  for (let guard = 0; guard < 200 && one.length > max; guard++) {
    let best: { at: number; text: string } | undefined
    const urls = [...one.matchAll(URL_TOKEN)].map((u) => [u.index, u.index + u[0].length] as const)
    for (const m of one.matchAll(PATH_TOKEN)) {
      const text = m[0]
      const at = m.index
      if (at < keepHead || urls.some(([a, b]) => at < b && at + text.length > a)) continue
      const rest = text.startsWith('…/') ? text.slice(2) : text
      if (rest.split('/').filter(Boolean).length < 3) continue
      if (!best || text.length > best.text.length) best = { at, text }
    }
    if (!best) break
    const body = best.text.replace(/^(?:…\/|~\/|\.{1,2}\/|\/)/, '')
    const shorter = `…/${body.split('/').slice(1).join('/')}`
    one = one.slice(0, best.at) + shorter + one.slice(best.at + best.text.length)
  }
  if (one.length <= max) return one
  let head = one.slice(0, codePointCut(one, max - 1))
  const next = one[max - 1] ?? ''
  if (/[\w@.+/~:?=&%#-]/.test(next)) {
    // Only the tail of the head can hold the token being cut: match there, not on the whole.
    const tailStart = Math.max(0, head.length - 512)
    const tail = head.slice(tailStart)
    // A URL cut anywhere is dropped whole (looked for first: the path rule would cut it
    // after its scheme and leave "https:").
    const url = /[a-z][\w+.-]*:\/\/\S*$/i.exec(tail)
    if (url) head = head.slice(0, tailStart + url.index).trimEnd()
    else {
      // A path that starts within keepHead is cut, not dropped: the head stays as written.
      const m = PATHLIKE_AT_END.exec(tail)
      if (m && (m[0].includes('/') || m[0].includes('.')) && tailStart + m.index >= keepHead) head = head.slice(0, tailStart + m.index).trimEnd()
    }
    // A shortened path's leading "…/" left alone at the cut says nothing.
    head = head.replace(/\s…\/?$/, '').trimEnd()
  }
  return `${head}…`
}

/** The words of a text, lower-cased, punctuation and symbols dropped (any script). */
export function wordsOf(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[\p{P}\p{S}]+/gu, ' ')
    .split(/\s+/)
    .filter(Boolean)
}
