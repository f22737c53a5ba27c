/**
 * Reuse, the evidence that something the agent read mattered: an identifier, number or
 * name that first reached the conversation in a tool's output and that the agent later
 * wrote itself, in its prose or in a later tool call's arguments. A word the agent or the
 * user had already written before the output is not new there (a grep pattern shows up
 * in every matching line; that line taught nothing), and a plain English word proves
 * nothing, so only distinctive tokens count, each with a weight.
 */

/** A distinctive token and how much its reuse says (1: an identifier or a version, less for a bare count or a capitalised word). */
export interface Token {
  text: string
  weight: number
}

/** Capitalised or upper-case words of prose and logs that name nothing. */
const COMMON = new Set(
  `the this that these those there then than when where which while what with without from into onto about after before again also because being between
  both each every first other some such their them they will would should could might must have here only over under very just more most same once true
  false none null nil self todo note info warning error errors failed passed done yes okay file files line lines test tests since until upon within
  however therefore instead otherwise already always never still found using used make made take need needs return returns value values check update
  added removed changed result results output input print total count name names type types default`.split(/\s+/),
)


/** Weights already computed: tokens repeat across a session's outputs. Bounded, so nothing grows without limit. */
const weights = new Map<string, number>()
const WEIGHT_CACHE_MAX = 100_000

/** A token's weight, 0 when it proves nothing. */
export function tokenWeight(t: string): number {
  let w = weights.get(t)
  if (w === undefined) {
    if (weights.size >= WEIGHT_CACHE_MAX) weights.clear()
    w = weightOf(t)
    weights.set(t, w)
  }
  return w
}

function weightOf(t: string): number {
  if (/^\d/.test(t)) {
    if (/^\d[\d.]*\.\d/.test(t)) return 1 // a version, a decimal
    if (/[A-Za-z]/.test(t)) return t.length >= 4 ? 1 : 0 // a hash (5c565b72), a size with its unit
    return t.length >= 2 ? 0.5 : 0 // a count, a line number: weaker
  }
  if (t.length < 3) return 0
  const lower = t.toLowerCase()
  if (COMMON.has(lower)) return 0
  if (/[.:]/.test(t) && /[A-Za-z]/.test(t)) return 1 // dotted: module.attr, Class::method
  if (/_/.test(t.replace(/^_+|_+$/g, '')) || /^__\w+__$/.test(t)) return 1 // snake_case, __dunder__
  if (/[a-z][A-Z]/.test(t) || /^[A-Z][a-z]+[A-Z]/.test(t)) return 1 // camelCase, PascalCase with an inner capital
  if (/\d/.test(t)) return 1 // utf8, F0010, v2
  if (/^[A-Z]{3,}$/.test(t)) return 0.6 // GPL, CSS
  if (/^[A-Z][a-z]{3,}$/.test(t)) return 0.5 // a name: Orca, Django
  if (t.length >= 5) return 0.3 // a lower-case word of code (merge, render)
  return 0
}

/**
 * Character classes of ASCII, by code: 0 ends a word; 1 a lower-case letter; 2 another
 * word character (upper case, digit, `_`, `$`); 3 a separator inside a dotted name (`.`, `:`).
 */
const CHAR_CLASS = new Uint8Array(128)
for (let c = 0; c < 128; c++) {
  CHAR_CLASS[c] = c >= 97 && c <= 122 ? 1 : (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 36 ? 2 : c === 46 || c === 58 ? 3 : 0
}

/**
 * Calls `visit` with every word-like token of `text` (identifiers, dotted names and their
 * parts, numbers) and its offset, in order, repeats included; weights are the caller's to
 * ask for. A character scan rather than a regex: outputs are scanned whole, and this is
 * the findings' hot loop. `distinctOnly` skips plain lower-case words (weight 0.3 at most)
 * before they are even cut out: most of an output's words, and never the evidence alone.
 */
export function forEachToken(text: string, visit: (token: string, at: number) => void, distinctOnly = false): void {
  const n = text.length
  let start = -1
  let plain = true
  let dotted = false
  for (let i = 0; i <= n; i++) {
    const code = i < n ? text.charCodeAt(i) : 32
    const cls = code < 128 ? CHAR_CLASS[code]! : 0
    if (cls !== 0) {
      if (start < 0) {
        start = i
        plain = true
        dotted = false
      }
      // Anything but a lower-case letter makes the word more than a plain word.
      if (cls !== 1) {
        plain = false
        if (cls === 3) dotted = true
      }
      continue
    }
    if (start < 0) continue
    let a = start
    let b = i
    start = -1
    if (distinctOnly && plain) continue
    // A sentence's full stop or a label's colon is not part of the word ('.' 46, ':' 58).
    while (a < b && CHAR_CLASS[text.charCodeAt(a)] === 3) a++
    while (b > a && CHAR_CLASS[text.charCodeAt(b - 1)] === 3) b--
    if (b - a < 2) continue
    const token = text.slice(a, b)
    visit(token, a)
    // The parts of a dotted name are reused on their own too (`os.path.join` → `join`); a version's are not names.
    if (dotted && !(token.charCodeAt(0) >= 48 && token.charCodeAt(0) <= 57) && (token.includes('.') || token.includes(':'))) {
      for (const part of token.split(/\.|:+/)) if (part.length >= 2) visit(part, a)
    }
  }
}

/** The distinctive tokens of a text, each once. */
export function tokensOf(text: string, max = 4000): Token[] {
  const out = new Map<string, Token>()
  const src = text.length > max * 8 ? text.slice(0, max * 8) : text
  forEachToken(src, (raw) => {
    if (out.size >= max || out.has(raw)) return
    const weight = tokenWeight(raw)
    if (weight > 0) out.set(raw, { text: raw, weight })
  })
  return [...out.values()]
}

export interface Uses {
  first: number
  lastProse: number
  lastArgs: number
  /** Events that wrote the token, in order, each once: the latest MAX_USES_KEPT (more says no more). */
  at: number[]
}

/** Uses remembered per token: reuse counts saturate well before this (REUSE_COUNT_CAP). */
const MAX_USES_KEPT = 16
/** Later uses past which more repeats add no weight. */
const REUSE_COUNT_CAP = 8

/**
 * Where the agent and the user wrote each token: first position (anything after it knew
 * the token), last position in the agent's prose, last in its tool calls' arguments.
 * Positions are event ordinals (findings/index.ts says why).
 */
export class ReuseIndex {
  private readonly uses = new Map<string, Uses>()
  constructor(readonly length: number) {}

  /**
   * `text` written at `position` (in order): by the agent's prose, its tool calls'
   * arguments, or the user. `distinctOnly`: plain lower-case words are left out (a tool
   * call's arguments are mostly code and paths; forEachToken says why).
   */
  record(text: string, position: number, by: 'prose' | 'args' | 'user', distinctOnly = false): void {
    forEachToken(text, (token) => {
      const u = this.uses.get(token)
      if (!u) {
        if (tokenWeight(token) > 0) this.uses.set(token, { first: position, lastProse: by === 'prose' ? position : -1, lastArgs: by === 'args' ? position : -1, at: [position] })
        return
      }
      if (by === 'prose') u.lastProse = position
      else if (by === 'args') u.lastArgs = position
      if (u.at[u.at.length - 1] !== position) {
        // The latest uses are kept: a count only ever asks how many came after a position.
        if (u.at.length >= MAX_USES_KEPT) u.at.shift()
        u.at.push(position)
      }
    }, distinctOnly)
  }

  /** Where the token was written; undefined when nobody wrote it (most tokens of an output: one lookup dismisses them). */
  usesOf(token: string): Uses | undefined {
    return this.uses.get(token)
  }

  /** Whether the token was written before `position` (so a line at `position` did not teach it). */
  knownBefore(token: string, position: number): boolean {
    const u = this.uses.get(token)
    return u !== undefined && u.first < position
  }

  /**
   * The evidence that `token`, seen at `position`, was reused: 0 when it never was; more
   * when the agent wrote it in prose (it talked about it) than only in arguments (it acted
   * on it), and more the later the reuse (it still mattered at the end of the range).
   * Positions are event ordinals: the tool calls of a statement's own message come after it.
   */
  reuse(token: string, position: number): number {
    const u = this.uses.get(token)
    return u ? this.reuseOf(u, position) : 0
  }

  /** reuse() for uses already looked up. */
  reuseOf(u: Uses, position: number): number {
    const prose = u.lastProse > position
    const args = u.lastArgs > position
    if (!prose && !args) return 0
    const last = Math.max(prose ? u.lastProse : -1, args ? u.lastArgs : -1)
    const lateness = this.length > 1 ? last / (this.length - 1) : 1
    return (prose ? 1 : 0.6) * (0.6 + 0.4 * lateness) * repeats(u, position)
  }
}

/**
 * How much more a token's reuse says when the agent came back to it again and again: a
 * commit hash or a function name it wrote in ten later messages was what the work turned
 * on; one it wrote once, in passing, was not. 1 for a single later use, growing with the
 * log of the count (×1.2 for 2, ×1.4 for 4, ×1.6 from 8), capped at REUSE_COUNT_CAP uses.
 */
function repeats(u: Uses, position: number): number {
  let n = 0
  for (let k = u.at.length - 1; k >= 0 && u.at[k]! > position; k--) n++
  return n <= 1 ? 1 : 1 + 0.2 * Math.log2(Math.min(n, REUSE_COUNT_CAP))
}
