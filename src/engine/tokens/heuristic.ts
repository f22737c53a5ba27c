/**
 * Fast, conservative token estimate with no tokenizer tables.
 *
 * The estimate follows the shape of OpenAI's o200k_base tokenizer without its
 * vocabulary: one linear pass over UTF-16 code units splits the text roughly the
 * way o200k's pre-tokenizer regex does (letter runs split at lower→Upper case
 * changes, digits in groups of three, punctuation runs, whitespace runs), and
 * each piece is priced by its class and length:
 *
 * - ASCII words: one token up to a few letters, slowly more for long words;
 *   pieces glued to other text (identifiers, path parts) cost a bit more, and a
 *   lone punctuation mark glued in front (".name", "(x", "/usr") a fraction.
 * - Digits: ceil(n / 3) tokens per run, plus one for a space in front.
 * - Punctuation runs: one token for up to 3 characters, more for longer runs;
 *   runs of one repeated character ("-----") are compressed.
 * - Whitespace: a line break (or run of them) is one token, indentation one more.
 * - JSON escapes: \n and \uXXXX in tool-call arguments are priced as o200k splits them.
 * - CJK (Han, kana, Hangul) and other scripts: a per-character rate per script.
 * - Symbols one token each; emoji and other astral characters one per UTF-16 unit.
 * - Random-looking blobs (base64, hex: long unbroken runs of letters, digits and
 *   + / = - _ with many pre-token boundaries): priced per character at the rate
 *   measured for random base64/hex, since BPE finds almost no merges in them.
 *
 * No regular expression is used, so the cost is strictly linear in the input.
 * Constants were calibrated against o200k_base with test/eval/token-accuracy.ts
 * (see docs/tokens.md for the measured table and the known blind spots).
 *
 * This module is the counting loop; ./heuristic/ holds the calibration constants, the
 * character classes, the price tables built from them, and the run scanners.
 */
import * as calibration from './heuristic/calibration.ts'
import * as classes from './heuristic/classes.ts'
import * as prices from './heuristic/prices.ts'
import * as scanners from './heuristic/scanners.ts'
// The hot loop reads these as the module's own constants, not as imported bindings:
// V8 reads an import through a cell with a hole check on every use, which measured
// 6-35% slower on the estimator (function calls the most). Destructuring once copies them.
const { BLOB_MIN_CHARS, DIGITS_PER_TOKEN, ESCAPE_TOKENS, RARE_WORD_ALLOWANCE, REPEAT_MIN_CHARS, UNICODE_ESCAPE_BASE_TOKENS } = calibration
const { BLOB_PUNCT, CLASS_TABLE, DIGIT, END, ESCAPE, HSPACE, LATIN_EXT, LOWER, NEWLINE, PUNCT, START, UPPER, isGluedAfterSpace, isLetterClass, isNonAsciiLetter, isPunctClass, isWordTailClass, startsSpacedWord } = classes
const { PREFIX_COST, WORD_COST, WORD_TABLE_SIZE, mixedPunctCost, wordTableIndex } = prices
const { COST, hexGroups, isEscapeLetter, isUnicodeEscape, randomBlobTokens, run, BLOB_PUNCT_ONLY, scanPunct, scanScript, scanWhitespace, scanWord } = scanners

export { HEURISTIC_SAFETY_MARGIN, HEURISTIC_VERSION } from './heuristic/calibration.ts'

/** Estimated o200k_base token count of `text` (not multiplied by any margin). */
export function estimateTextTokens(text: string): number {
  const n = text.length
  if (n === 0) return 0

  let tokens = 0
  // The current blob: an unbroken run of letters, digits and + / = - _ (from
  // blobStart, or none if -1), its word-by-word cost and its letter/digit pieces.
  let blobStart = -1
  let blobCost = 0
  let blobPieces = 0
  // Class of the code unit before `i` (or START, or ESCAPE after a \n-style
  // escape), carried from run to run rather than read again.
  let prev = START

  let i = 0
  while (i < n) {
    const c = text.charCodeAt(i)
    const k = CLASS_TABLE[c]

    if (k === LOWER || k === UPPER) {
      // An ASCII letter piece, [A-Z]*[a-z]+ or [A-Z]+: the most common run, scanned inline.
      let j = i
      let cj = c
      while (cj >= 0x41 && cj <= 0x5a) cj = ++j < n ? text.charCodeAt(j) : 0
      const upper = j - i
      while (cj >= 0x61 && cj <= 0x7a) cj = ++j < n ? text.charCodeAt(j) : 0
      const spaced = startsSpacedWord(prev)
      const len = j - i
      let cost: number
      if (len < WORD_TABLE_SIZE && !(cj >= 0x80 && isWordTailClass(CLASS_TABLE[cj]))) {
        cost = WORD_COST[wordTableIndex(len, upper === len, spaced)]
        prev = upper === len ? UPPER : LOWER
      } else {
        // Accented letters or combining marks continue the piece, or it is very long (rare).
        j = scanWord(text, i, n, spaced) | 0
        cost = run[COST]
        prev = CLASS_TABLE[text.charCodeAt(j - 1)]
        cj = j < n ? text.charCodeAt(j) : 0
      }
      if (blobStart < 0) {
        blobStart = i
        blobCost = cost
        blobPieces = 1
      } else {
        blobCost += cost
        blobPieces++
      }
      if (cj === 0x20 && j + 1 < n && isGluedAfterSpace(CLASS_TABLE[text.charCodeAt(j + 1)])) {
        // A single space before the next word or mark joins it (0 tokens) and ends the blob.
        tokens += Math.max(blobCost, j - blobStart < BLOB_MIN_CHARS ? 0 : randomBlobTokens(text, blobStart, j, blobPieces))
        blobStart = -1
        prev = HSPACE
        j++
      }
      i = j
      continue
    }

    // Other runs: each branch sets j (the run's end), cost and inBlob.
    let j: number
    let cost: number
    let inBlob = false
    if (k === HSPACE || k === NEWLINE) {
      if (c === 0x20 && i + 1 < n && isGluedAfterSpace(CLASS_TABLE[text.charCodeAt(i + 1)])) {
        // A single space before a word or punctuation mark joins it (0 tokens).
        j = i + 1
        cost = 0
        prev = HSPACE
      } else {
        j = scanWhitespace(text, i, n, k, prev) | 0
        cost = run[COST]
        prev = CLASS_TABLE[text.charCodeAt(j - 1)]
      }
    } else if (k === PUNCT || k === BLOB_PUNCT) {
      if (c === 0x5c && i + 1 < n && isEscapeLetter(text.charCodeAt(i + 1))) {
        // \n, \t, \r in JSON-encoded text; the word after it is priced like a spaced word.
        j = i + 2
        cost = ESCAPE_TOKENS
        prev = ESCAPE
      } else if (c === 0x5c && isUnicodeEscape(text, i, n)) {
        // \uXXXX (JSON-escaped non-ASCII text).
        j = i + 6
        cost = UNICODE_ESCAPE_BASE_TOKENS + hexGroups(text, i + 2, j)
        prev = CLASS_TABLE[text.charCodeAt(j - 1)]
      } else {
        // ASCII marks, priced inline unless a repeated-character stretch or a
        // non-ASCII symbol follows (then scanPunct prices the run).
        j = i + 1
        let next = j < n ? CLASS_TABLE[text.charCodeAt(j)] : END
        let last = k
        let allBlobPunct = k === BLOB_PUNCT
        let segChar = c
        let segLen = 1
        let repeats = false
        while (next === PUNCT || next === BLOB_PUNCT) {
          const cj = text.charCodeAt(j)
          if (cj === segChar) {
            if (++segLen === REPEAT_MIN_CHARS) repeats = true
          } else {
            segChar = cj
            segLen = 1
          }
          if (next !== BLOB_PUNCT) allBlobPunct = false
          last = next
          next = ++j < n ? CLASS_TABLE[text.charCodeAt(j)] : END
        }
        if (repeats || isPunctClass(next)) {
          j = scanPunct(text, i, n, c, k, prev) | 0
          cost = run[COST]
          inBlob = run[BLOB_PUNCT_ONLY] === 1
          prev = CLASS_TABLE[text.charCodeAt(j - 1)]
        } else {
          // A lone mark glues onto the following word ("(x", ".name"), unless a space
          // precedes it: then the space and the mark form their own token (` "`).
          cost = j === i + 1 && isLetterClass(next) && prev !== HSPACE ? PREFIX_COST[c] : mixedPunctCost(j - i)
          inBlob = allBlobPunct
          prev = last
        }
      }
    } else if (k === DIGIT) {
      j = i + 1
      while (j < n) {
        const cj = text.charCodeAt(j)
        if (cj < 0x30 || cj > 0x39) break
        j++
      }
      // o200k takes digits three at a time.
      cost = Math.ceil((j - i) / DIGITS_PER_TOKEN)
      inBlob = true
      prev = DIGIT
    } else if (k === LATIN_EXT) {
      // A word starting with an accented letter.
      j = scanWord(text, i, n, startsSpacedWord(prev)) | 0
      cost = run[COST]
      inBlob = true
      prev = CLASS_TABLE[text.charCodeAt(j - 1)]
    } else if (isNonAsciiLetter(k)) {
      j = scanScript(text, i, n, k) | 0
      cost = run[COST]
      prev = CLASS_TABLE[text.charCodeAt(j - 1)]
    } else {
      j = scanPunct(text, i, n, c, k, prev) | 0
      cost = run[COST]
      inBlob = run[BLOB_PUNCT_ONLY] === 1
      prev = CLASS_TABLE[text.charCodeAt(j - 1)]
    }

    if (inBlob) {
      if (blobStart < 0) {
        blobStart = i
        blobCost = 0
        blobPieces = 0
      }
      blobCost += cost
      if (k !== BLOB_PUNCT) blobPieces++
    } else {
      if (blobStart >= 0) {
        // (Most blobs are single words: skip the call for short ones.)
        tokens += Math.max(blobCost, i - blobStart < BLOB_MIN_CHARS ? 0 : randomBlobTokens(text, blobStart, i, blobPieces))
        blobStart = -1
      }
      tokens += cost
    }
    i = j
  }
  if (blobStart >= 0) tokens += Math.max(blobCost, randomBlobTokens(text, blobStart, n, blobPieces))
  // Round up, then add the allowance in whole tokens (so "user" stays 1, not 2).
  const rounded = Math.ceil(tokens)
  return rounded + Math.floor(rounded * (RARE_WORD_ALLOWANCE - 1))
}
