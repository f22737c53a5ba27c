/**
 * The heuristic's run scanners: the less common runs (accented words, whitespace, other
 * scripts, punctuation with repeats), JSON escapes, and random-looking blobs (base64, hex).
 */
import * as calibration from './calibration.ts'
import * as classes from './classes.ts'
import * as prices from './prices.ts'
// The hot loop reads these as the module's own constants, not as imported bindings:
// V8 reads an import through a cell with a hole check on every use, which measured
// 6-35% slower on the estimator (function calls the most). Destructuring once copies them.
const { ASTRAL_PER_CODE_UNIT, BASE64_TOKENS_PER_CHAR, BLOB_MIN_CHARS, BLOB_MIN_PIECES_PER_CHAR, CJK_PUNCT_PER_CHAR, DIGITS_PER_TOKEN, HEX_TOKENS_PER_CHAR, LATIN_EXT_PER_CHAR, MARK_PER_CHAR, MIXED_NEAR_REPEAT_PER_CHAR, NEWLINES_PER_TOKEN, NEWLINE_AFTER_PUNCT_COST, REPEAT_ASCII_CHARS_PER_TOKEN, REPEAT_MIN_CHARS, REPEAT_SYMBOL_CHARS_PER_TOKEN, SPACES_PER_TOKEN, STACKED_MARK_PER_CHAR, SYMBOL_PER_CHAR } = calibration
const { BLOB_PUNCT, CJK_PUNCT, CLASS_TABLE, DIGIT, HSPACE, LATIN_EXT, MARK, NEWLINE, PUNCT, SYMBOL, isLetterClass, isNonAsciiLetter, isPunctClass } = classes
const { PER_CHAR_RATE, PER_RUN_COST, PREFIX_COST, WORD_COST, WORD_TABLE_SIZE, mixedPunctCost, wordCost, wordTableIndex } = prices

// ---------------------------------------------------------------------------
// Run scanners for the less common runs. Each reads one run starting at `i`,
// leaves its cost in `run[COST]` and returns the index just past the run.
//
// Keeping V8's optimized code allocation-free takes some care: a double that is
// returned from a call that V8 does not inline, passed to one, or merged
// (`a ? x : f()`) with a call's result is boxed into a fresh heap number. So
// costs travel through a Float64Array slot, and run-end indices are coerced
// with `| 0` (which keeps the main loop's index an untagged integer).
// ---------------------------------------------------------------------------

export const run = new Float64Array(2)
export const COST = 0
/** Set by scanPunct: 1 when the run was only + / = - _ characters (it can continue a blob). */
export const BLOB_PUNCT_ONLY = 1

/**
 * A letter piece as o200k splits it, [A-Z]*[a-z]+ or [A-Z]+, with accented
 * Latin letters and marks in it, or longer than the word-cost table. (Plain
 * ASCII pieces are scanned inline in estimateTextTokens.)
 */
export function scanWord(text: string, i: number, n: number, spaced: boolean): number {
  let j = i
  let cj = text.charCodeAt(i)
  while (cj >= 0x41 && cj <= 0x5a) cj = ++j < n ? text.charCodeAt(j) : 0
  const upper = j - i
  let accented = 0
  let marks = 0
  let stacked = 0 // marks that follow another mark
  for (;;) {
    if (cj >= 0x61 && cj <= 0x7a) {
      // lower-case ASCII letter
    } else if (cj >= 0x80) {
      const k = CLASS_TABLE[cj]
      if (k === LATIN_EXT) accented++
      else if (k === MARK) {
        marks++
        if (CLASS_TABLE[text.charCodeAt(j - 1)] === MARK) stacked++
      } else break
    } else break
    cj = ++j < n ? text.charCodeAt(j) : 0
  }
  const len = j - i
  const letters = len - marks
  if (letters < WORD_TABLE_SIZE) run[COST] = WORD_COST[wordTableIndex(letters, upper === len, spaced)]
  else run[COST] = wordCost(letters, upper === len, spaced)
  run[COST] = run[COST] + accented * LATIN_EXT_PER_CHAR + (marks - stacked) * MARK_PER_CHAR + stacked * STACKED_MARK_PER_CHAR
  return j
}

/** Spaces, tabs and line breaks; `prev` is the class of the code unit before the run. */
export function scanWhitespace(text: string, i: number, n: number, k: number, prev: number): number {
  let j = i + 1
  let newlines = k === NEWLINE ? 1 : 0
  let trailing = k === HSPACE ? 1 : 0 // horizontal spaces after the last line break
  let spaceBeforeFirstNewline = k === HSPACE
  while (j < n) {
    const kk = CLASS_TABLE[text.charCodeAt(j)]
    if (kk === NEWLINE) {
      newlines++
      trailing = 0
    } else if (kk === HSPACE) {
      if (newlines === 0) spaceBeforeFirstNewline = true
      trailing++
    } else break
    j++
  }
  let cost = 0
  if (newlines > 0) {
    // A newline straight after punctuation joins the punctuation's pre-token.
    const afterPunct = !spaceBeforeFirstNewline && (prev === PUNCT || prev === BLOB_PUNCT)
    cost += afterPunct ? NEWLINE_AFTER_PUNCT_COST : 1
    if (newlines > NEWLINES_PER_TOKEN) cost += Math.ceil(newlines / NEWLINES_PER_TOKEN) - 1
  }
  if (trailing > 0) {
    if (j >= n) {
      cost += Math.ceil(trailing / SPACES_PER_TOKEN)
    } else {
      // The last space joins the next word or punctuation mark, but not digits.
      cost += Math.ceil((trailing - 1) / SPACES_PER_TOKEN)
      if (CLASS_TABLE[text.charCodeAt(j)] === DIGIT) cost += 1
    }
  }
  run[COST] = cost
  return j
}

/** A run of non-ASCII letters (CJK, Hangul, Cyrillic...), priced per character by script. */
export function scanScript(text: string, i: number, n: number, k: number): number {
  let j = i + 1
  let perChar = PER_CHAR_RATE[k]
  let prevK = k
  let cost = PER_RUN_COST[k] + perChar
  while (j < n) {
    const cj = text.charCodeAt(j)
    if (cj < 0x80) break
    const kk = CLASS_TABLE[cj]
    if (!isNonAsciiLetter(kk)) break
    if (kk !== prevK) {
      perChar = PER_CHAR_RATE[kk]
      cost += PER_RUN_COST[kk]
      prevK = kk
    }
    cost += perChar
    j++
  }
  run[COST] = cost
  return j
}

/**
 * Punctuation and symbols: one pre-token (` ?[^\s\p{L}\p{N}]+`). BPE merges
 * short mixed stretches ("});", "=>") into one token; a long run of one
 * repeated character ("-----", "────") is its own token (or a few), and
 * breaks the merges around it ("|------|" is three tokens). `prev` is the class
 * of the code unit before the run. (Short runs of ASCII marks without such
 * repeats, the common case, are priced inline in estimateTextTokens.)
 */
export function scanPunct(text: string, i: number, n: number, c: number, k: number, prev: number): number {
  let j = i + 1
  let cost = 0
  let allBlobPunct = k === BLOB_PUNCT
  let mixed = 0 // ASCII chars in the current mixed stretch
  let repeats = false // whether the run contains a repeated-char segment
  let segChar = c
  let segClass = k
  let segLen = 1
  for (;;) {
    const cj = j < n ? text.charCodeAt(j) : -1
    if (cj === segChar) {
      segLen++
      j++
      continue
    }
    // Flush the segment of identical characters.
    if (segClass === PUNCT || segClass === BLOB_PUNCT) {
      if (segLen < REPEAT_MIN_CHARS) mixed += segLen
      else {
        cost += mixed * MIXED_NEAR_REPEAT_PER_CHAR + Math.ceil(segLen / REPEAT_ASCII_CHARS_PER_TOKEN)
        mixed = 0
        repeats = true
      }
    } else if (segClass === SYMBOL) {
      cost += segLen < REPEAT_MIN_CHARS ? segLen * SYMBOL_PER_CHAR : Math.ceil(segLen / REPEAT_SYMBOL_CHARS_PER_TOKEN)
    } else if (segClass === CJK_PUNCT) cost += segLen * CJK_PUNCT_PER_CHAR
    else cost += segLen * ASTRAL_PER_CODE_UNIT
    if (cj < 0) break
    const kk = CLASS_TABLE[cj]
    if (!isPunctClass(kk)) break
    if (kk !== BLOB_PUNCT) allBlobPunct = false
    segChar = cj
    segClass = kk
    segLen = 1
    j++
  }
  // A lone mark glues onto the following word ("(x", ".name"), unless a space
  // precedes it: then the space and the mark form their own token (` "`).
  if (j === i + 1 && c < 0x80 && j < n && isLetterClass(CLASS_TABLE[text.charCodeAt(j)]) && prev !== HSPACE) {
    cost = PREFIX_COST[c]
  } else {
    cost += repeats ? mixed * MIXED_NEAR_REPEAT_PER_CHAR : mixedPunctCost(mixed)
  }
  run[BLOB_PUNCT_ONLY] = allBlobPunct ? 1 : 0
  run[COST] = cost
  return j
}

/** n, t, r: the letters of the escapes that stand for whitespace. */
export function isEscapeLetter(c: number): boolean {
  return c === 0x6e || c === 0x74 || c === 0x72
}

export function isHexDigit(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66)
}

/** `\u` followed by four hex digits at text[i]. */
export function isUnicodeEscape(text: string, i: number, n: number): boolean {
  return (
    i + 5 < n &&
    text.charCodeAt(i + 1) === 0x75 &&
    isHexDigit(text.charCodeAt(i + 2)) &&
    isHexDigit(text.charCodeAt(i + 3)) &&
    isHexDigit(text.charCodeAt(i + 4)) &&
    isHexDigit(text.charCodeAt(i + 5))
  )
}

/** Pre-token groups in a short hex string: letter runs count 1, digit runs ceil(n/3). */
export function hexGroups(text: string, from: number, to: number): number {
  let groups = 0
  let digits = 0
  let prevLetter = false
  for (let p = from; p < to; p++) {
    const c = text.charCodeAt(p)
    if (c <= 0x39) {
      digits++
      prevLetter = false
    } else {
      if (digits > 0) groups += Math.ceil(digits / DIGITS_PER_TOKEN)
      digits = 0
      if (!prevLetter) groups++
      prevLetter = true
    }
  }
  if (digits > 0) groups += Math.ceil(digits / DIGITS_PER_TOKEN)
  return groups
}

/**
 * Tokens for an unbroken run of letters, digits and + / = - _ from `start` to
 * `end` (`pieces` letter/digit pieces) if it looks random (long, mixed letters
 * and digits, many pieces): the per-character rate measured for random base64
 * or hex. 0 if it does not look random: it is then priced word by word (the
 * caller takes the larger of the two).
 */
export function randomBlobTokens(text: string, start: number, end: number, pieces: number): number {
  const len = end - start
  if (len < BLOB_MIN_CHARS || pieces < len * BLOB_MIN_PIECES_PER_CHAR) return 0
  let letters = false
  let digits = false
  let upper = false
  let lower = false
  let hex = true // only hex digits (and '-', as in UUIDs)
  for (let p = start; p < end; p++) {
    const c = text.charCodeAt(p)
    if (c >= 0x30 && c <= 0x39) digits = true
    else if (c >= 0x41 && c <= 0x5a) upper = letters = true
    else if (c >= 0x61 && c <= 0x7a) lower = letters = true
    else if (c >= 0x80) letters = true // accented letters and marks of word pieces
    if (hex && !isHexDigit(c) && c !== 0x2d) hex = false
  }
  if (!letters) return 0
  // Without digits, only mixed case (base64 letters) looks random; "a/b/c/d" does not.
  if (!digits && !(upper && lower)) return 0
  return len * (hex ? HEX_TOKENS_PER_CHAR : BASE64_TOKENS_PER_CHAR)
}