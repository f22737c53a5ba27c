/**
 * The heuristic's character classes: every UTF-16 code unit gets one (ASCII letters,
 * digits, spaces, punctuation; each script; symbols, astral halves), looked up in one
 * 64 KiB table, and the predicates the scanners split pieces with, the way o200k's
 * pre-tokenizer does.
 */
export const LOWER = 1
export const UPPER = 2
export const DIGIT = 3
export const HSPACE = 4
export const NEWLINE = 5
/** Punctuation that can appear inside base64/hex/identifier blobs: + / = - _ */
export const BLOB_PUNCT = 6
export const PUNCT = 7
// Non-ASCII
export const HAN = 10
export const KANA = 11
export const HANGUL = 12
export const CYRILLIC = 13
export const GREEK = 14
export const ARABIC = 15
export const INDIC = 16
export const LATIN_EXT = 17
export const OTHER_LETTER = 18
export const MARK = 19
export const HEBREW = 23
export const CJK_PUNCT = 20
export const SYMBOL = 21
export const ASTRAL = 22
/** Pseudo-classes for the (missing) code unit before the start and after the end of the text. */
export const START = 0
export const END = 255
/** Pseudo-class of a \n, \t or \r escape (in JSON-encoded text), as the run before a word. */
export const ESCAPE = 8

export const ASCII_CLASS = new Uint8Array(128)
for (let c = 0; c < 128; c++) {
  let k = PUNCT // controls and ASCII punctuation
  if (c >= 0x61 && c <= 0x7a) k = LOWER
  else if (c >= 0x41 && c <= 0x5a) k = UPPER
  else if (c >= 0x30 && c <= 0x39) k = DIGIT
  else if (c === 0x0a || c === 0x0d) k = NEWLINE
  else if (c === 0x20 || c === 0x09 || c === 0x0b || c === 0x0c) k = HSPACE
  else if (c === 0x2b || c === 0x2f || c === 0x3d || c === 0x2d || c === 0x5f) k = BLOB_PUNCT
  ASCII_CLASS[c] = k
}

export function computeClass(c: number): number {
  if (c < 0x80) return ASCII_CLASS[c]
  if (c >= 0x4e00 && c <= 0x9fff) return HAN
  if (c >= 0xac00 && c <= 0xd7af) return HANGUL
  if (c >= 0x3040 && c <= 0x30ff) return c === 0x30fb ? CJK_PUNCT : KANA
  if (c >= 0xd800 && c <= 0xdfff) return ASTRAL
  if (c < 0x0250) {
    if (c === 0xa0) return HSPACE
    if (c >= 0xc0 && c !== 0xd7 && c !== 0xf7) return LATIN_EXT
    if (c === 0xaa || c === 0xb5 || c === 0xba) return LATIN_EXT
    return SYMBOL
  }
  if (c >= 0x3000 && c <= 0x303f) return c === 0x3000 ? HSPACE : CJK_PUNCT
  if (c >= 0xff00 && c <= 0xffef) {
    if ((c >= 0xff21 && c <= 0xff3a) || (c >= 0xff41 && c <= 0xff5a)) return LATIN_EXT
    if (c >= 0xff66 && c <= 0xff9f) return KANA
    return CJK_PUNCT
  }
  if (c >= 0x0300 && c <= 0x036f) return MARK
  if (c >= 0x0370 && c <= 0x03ff) return GREEK
  if (c >= 0x0400 && c <= 0x052f) return CYRILLIC
  if (c >= 0x0590 && c <= 0x05ff) return HEBREW
  if (c >= 0x0600 && c <= 0x08ff) return ARABIC // Arabic, Syriac, Thaana
  if (c >= 0x0900 && c <= 0x0eff) return INDIC // Indic scripts, Thai, Lao
  if ((c >= 0x1100 && c <= 0x11ff) || (c >= 0x3130 && c <= 0x318f)) return HANGUL
  if ((c >= 0x3400 && c <= 0x4dbf) || (c >= 0xf900 && c <= 0xfaff)) return HAN
  if (c >= 0x1e00 && c <= 0x1fff) return LATIN_EXT // Latin Extended Additional, Greek Extended
  if (c >= 0x2000 && c <= 0x200a) return HSPACE
  if (c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f) return HSPACE
  if (c >= 0x2000 && c <= 0x2bff) return SYMBOL // punctuation, arrows, math, box drawing, dingbats
  if (c >= 0xfe00 && c <= 0xfe0f) return SYMBOL // variation selectors (emoji presentation): ~1 token
  if (c >= 0xe000 && c <= 0xf8ff) return SYMBOL // private use
  if (c >= 0xfe10 && c <= 0xfe6f) return CJK_PUNCT // vertical and small forms
  if (c === 0xfeff || c === 0xfffd) return SYMBOL
  return OTHER_LETTER
}

/** Class of every UTF-16 code unit, precomputed (64 KiB) so the scan does one lookup per char. */
export const CLASS_TABLE = new Uint8Array(0x10000)
for (let c = 0; c < 0x10000; c++) CLASS_TABLE[c] = computeClass(c)

/** Non-ASCII classes that are letters (\p{L} / \p{M}) for the pre-tokenizer. */
export function isNonAsciiLetter(k: number): boolean {
  return (k >= HAN && k <= MARK) || k === HEBREW
}

export function isLetterClass(k: number): boolean {
  return k === LOWER || k === UPPER || isNonAsciiLetter(k)
}

/** Classes that make up punctuation runs. */
export function isPunctClass(k: number): boolean {
  return k === PUNCT || k === BLOB_PUNCT || k === SYMBOL || k === CJK_PUNCT || k === ASTRAL
}

/** A letter piece after a space, a line break or an escaped \n, or at the very start, is priced as a word. */
export function startsSpacedWord(prev: number): boolean {
  return prev === HSPACE || prev === NEWLINE || prev === START || prev === ESCAPE
}

/** Non-ASCII classes that continue an ASCII letter piece (see scanWord). */
export function isWordTailClass(k: number): boolean {
  return k === LATIN_EXT || k === MARK
}

/** Classes a single space in front joins (so the space costs nothing). */
export function isGluedAfterSpace(k: number): boolean {
  return k === LOWER || k === UPPER || k === PUNCT
}
