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
 */

// ---------------------------------------------------------------------------
// Calibration constants
// ---------------------------------------------------------------------------

/** Space-separated ASCII words up to this many letters are (almost always) a single o200k token. */
const WORD_FREE_LETTERS = 6
/** Extra tokens per letter beyond WORD_FREE_LETTERS: long/rare words split into pieces. */
const WORD_EXTRA_PER_LETTER = 0.06
/** Words longer than this are usually rare or compound and split faster. */
const WORD_LONG_LETTERS = 12
/** Additional tokens per letter beyond WORD_LONG_LETTERS. */
const WORD_LONG_EXTRA_PER_LETTER = 0.2
/** Pieces not preceded by a space (identifiers, path parts, "x.y") are rarer in the vocabulary. */
const IDENT_FREE_LETTERS = 5
/** Extra tokens per letter beyond IDENT_FREE_LETTERS for such pieces. */
const IDENT_EXTRA_PER_LETTER = 0.15
/** All-caps pieces (HTTP, TODO, ERROR) have fewer merges than lower-case words. */
const CAPS_EXTRA_PER_LETTER = 0.15
/**
 * A lone punctuation mark glued to the next word is part of the word's
 * pre-token. Measured extra tokens: "_" 0.04, "." 0.05, "(" 0.09, "-" 0.28,
 * "/" 0.44 (and path parts after it are rarer words), others 0.4-1.0.
 */
const PREFIX_CHEAP_COST = 0.1 // _ . ( @ [
const PREFIX_DASH_COST = 0.35 // -
const PREFIX_SLASH_COST = 0.6 // /
const PREFIX_OTHER_COST = 0.7 // = < : " + | # ...

/** o200k splits digit runs into groups of up to this many digits. */
const DIGITS_PER_TOKEN = 3

/** Punctuation runs up to this length ("});", "==", "->") are usually one token. */
const PUNCT_FREE_CHARS = 3
/** Extra tokens per punctuation char beyond PUNCT_FREE_CHARS. */
const PUNCT_EXTRA_PER_CHAR = 0.6
/** Runs of one repeated ASCII character ("=====", "-----") merge into long tokens (measured ~64 chars/token). */
const REPEAT_ASCII_CHARS_PER_TOKEN = 32
/** Repeated box-drawing or other symbols ("────", "════") merge less: measured 8-16 chars/token. */
const REPEAT_SYMBOL_CHARS_PER_TOKEN = 8
/** Marks next to such runs ("|:" and ":|" in "|:-----:|") rarely merge: about one token per char. */
const MIXED_NEAR_REPEAT_PER_CHAR = 0.9
/** A repeated character counts as a run from this length on. */
const REPEAT_MIN_CHARS = 4
/** Long runs of spaces: o200k has space tokens up to ~80 wide; 64 keeps the estimate conservative. */
const SPACES_PER_TOKEN = 64

/**
 * A JSON/JS escape like \ub9ac (common for non-ASCII text in tool arguments) is
 * split like any letter/digit mix: one token for "\u", one per letter or digit
 * group of the four hex digits. Measured 3.4 tokens on average.
 */
const UNICODE_ESCAPE_BASE_TOKENS = 1

/** An escaped \n, \t or \r inside JSON-encoded text (tool arguments): the pair is about one token. */
const ESCAPE_TOKENS = 1.1

/** Runs of blank lines: o200k has newline tokens up to 16 wide. */
const NEWLINES_PER_TOKEN = 16

/** A line break right after punctuation ("{\n", ");\n") is usually merged into it. */
const NEWLINE_AFTER_PUNCT_COST = 0.3

/** Han characters: measured ~0.70-0.74 tokens/char in o200k. */
const HAN_PER_CHAR = 0.75
/** Hiragana/katakana: measured ~0.73-0.80 tokens/char. */
const KANA_PER_CHAR = 0.78
/** Hangul syllables: measured ~0.63 tokens/char plus ~0.4 per space-separated word. */
const HANGUL_PER_CHAR = 0.63
const HANGUL_PER_RUN = 0.4
/** Cyrillic: ~0.16 tokens/char plus ~0.55 per word. */
const CYRILLIC_PER_CHAR = 0.18
const CYRILLIC_PER_RUN = 0.55
/** Greek: ~0.35-0.47 tokens/char. */
const GREEK_PER_CHAR = 0.42
/** Arabic and Hebrew: ~0.25 tokens/char plus ~0.3 per word. */
const ARABIC_PER_CHAR = 0.28
const ARABIC_PER_RUN = 0.35
/** Hebrew: ~0.4 tokens/char plus the Arabic per-word cost. */
const HEBREW_PER_CHAR = 0.42
/** Devanagari and other Indic / Southeast-Asian scripts: ~0.4-0.45 tokens/char. */
const INDIC_PER_CHAR = 0.45
/** Accented Latin letters are part of the word; common ones (é, ü, ß) merge, rarer ones (ł, ø) split it. */
const LATIN_EXT_PER_CHAR = 0.35
/** Combining marks (decomposed accents) rarely merge: about one token each. */
const MARK_PER_CHAR = 1.0
/** Stacked combining marks ("Zalgo" text) are split to bytes: measured ~2 tokens each. */
const STACKED_MARK_PER_CHAR = 2.0
/** Letters of scripts not listed above. */
const OTHER_LETTER_PER_CHAR = 0.6
/** CJK and fullwidth punctuation: about one token each. */
const CJK_PUNCT_PER_CHAR = 1.0
/** Other non-ASCII symbols (box drawing, arrows, dashes, quotes): measured 1.0-1.1 tokens each. */
const SYMBOL_PER_CHAR = 1.0
/** Astral characters (emoji) are 2 code units and usually 1-3 tokens; ZWJ sequences more. */
const ASTRAL_PER_CODE_UNIT = 1.0

/** Unbroken letter/digit runs shorter than this are priced word by word. */
const BLOB_MIN_CHARS = 16
/** Letter/digit pieces per char above which a run looks random (words, paths: < 0.2; base64/hex: ~0.45). */
const BLOB_MIN_PIECES_PER_CHAR = 0.3
/** Random base64: o200k measured ~1.47 chars/token. */
const BASE64_TOKENS_PER_CHAR = 1 / 1.45
/** Random hex: o200k measured ~1.74 chars/token. */
const HEX_TOKENS_PER_CHAR = 1 / 1.7

/**
 * Final multiplier on the sum of piece costs. A vocabulary-free estimate cannot
 * see rare words (proper nouns, project and package names: "sqlfluff" is 3
 * tokens, "Kanban" 2), which made real agent transcripts come out 1-2% low.
 */
const RARE_WORD_ALLOWANCE = 1.02

/**
 * Multiplier applied to the estimate for models whose tokenizer is not o200k
 * (Anthropic, Google, DeepSeek...). See docs/tokens.md for the rationale.
 */
export const HEURISTIC_SAFETY_MARGIN = 1.2

/**
 * Version of the estimate, part of every token-count cache key (tokens/count.ts). The
 * in-process cache starts empty with the code that fills it, so this matters once counts
 * outlive a process; bump it with any change that moves a count all the same.
 */
export const HEURISTIC_VERSION = 1

// ---------------------------------------------------------------------------
// Character classes
// ---------------------------------------------------------------------------

const LOWER = 1
const UPPER = 2
const DIGIT = 3
const HSPACE = 4
const NEWLINE = 5
/** Punctuation that can appear inside base64/hex/identifier blobs: + / = - _ */
const BLOB_PUNCT = 6
const PUNCT = 7
// Non-ASCII
const HAN = 10
const KANA = 11
const HANGUL = 12
const CYRILLIC = 13
const GREEK = 14
const ARABIC = 15
const INDIC = 16
const LATIN_EXT = 17
const OTHER_LETTER = 18
const MARK = 19
const HEBREW = 23
const CJK_PUNCT = 20
const SYMBOL = 21
const ASTRAL = 22
/** Pseudo-classes for the (missing) code unit before the start and after the end of the text. */
const START = 0
const END = 255
/** Pseudo-class of a \n, \t or \r escape (in JSON-encoded text), as the run before a word. */
const ESCAPE = 8

const ASCII_CLASS = new Uint8Array(128)
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

function computeClass(c: number): number {
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
const CLASS_TABLE = new Uint8Array(0x10000)
for (let c = 0; c < 0x10000; c++) CLASS_TABLE[c] = computeClass(c)

/** Non-ASCII classes that are letters (\p{L} / \p{M}) for the pre-tokenizer. */
function isNonAsciiLetter(k: number): boolean {
  return (k >= HAN && k <= MARK) || k === HEBREW
}

/** Per-character cost of the non-ASCII letter classes (scanScript), by class. */
const PER_CHAR_RATE = new Float64Array(256).fill(OTHER_LETTER_PER_CHAR)
PER_CHAR_RATE[HAN] = HAN_PER_CHAR
PER_CHAR_RATE[KANA] = KANA_PER_CHAR
PER_CHAR_RATE[HANGUL] = HANGUL_PER_CHAR
PER_CHAR_RATE[CYRILLIC] = CYRILLIC_PER_CHAR
PER_CHAR_RATE[GREEK] = GREEK_PER_CHAR
PER_CHAR_RATE[ARABIC] = ARABIC_PER_CHAR
PER_CHAR_RATE[INDIC] = INDIC_PER_CHAR
PER_CHAR_RATE[LATIN_EXT] = LATIN_EXT_PER_CHAR
PER_CHAR_RATE[MARK] = MARK_PER_CHAR
PER_CHAR_RATE[HEBREW] = HEBREW_PER_CHAR

/** Extra cost per run (word) of those classes, by class. */
const PER_RUN_COST = new Float64Array(256)
PER_RUN_COST[HANGUL] = HANGUL_PER_RUN
PER_RUN_COST[CYRILLIC] = CYRILLIC_PER_RUN
PER_RUN_COST[ARABIC] = ARABIC_PER_RUN
PER_RUN_COST[HEBREW] = ARABIC_PER_RUN

function isLetterClass(k: number): boolean {
  return k === LOWER || k === UPPER || isNonAsciiLetter(k)
}

/** Cost of a lone ASCII mark glued in front of a word, by character. */
const PREFIX_COST = new Float64Array(128).fill(PREFIX_OTHER_COST)
for (const c of '_.(@[') PREFIX_COST[c.charCodeAt(0)] = PREFIX_CHEAP_COST
PREFIX_COST[0x2d] = PREFIX_DASH_COST // -
PREFIX_COST[0x2f] = PREFIX_SLASH_COST // /

function mixedPunctCost(chars: number): number {
  if (chars === 0) return 0
  return chars <= PUNCT_FREE_CHARS ? 1 : 1 + (chars - PUNCT_FREE_CHARS) * PUNCT_EXTRA_PER_CHAR
}

function wordCost(letters: number, caps: boolean, spaced: boolean): number {
  let cost = 1
  if (spaced) {
    if (letters > WORD_FREE_LETTERS) cost += (letters - WORD_FREE_LETTERS) * WORD_EXTRA_PER_LETTER
  } else if (letters > IDENT_FREE_LETTERS) {
    cost += (letters - IDENT_FREE_LETTERS) * IDENT_EXTRA_PER_LETTER
  }
  if (letters > WORD_LONG_LETTERS) cost += (letters - WORD_LONG_LETTERS) * WORD_LONG_EXTRA_PER_LETTER
  if (caps && letters > 2) cost += (letters - 2) * CAPS_EXTRA_PER_LETTER
  return cost
}

/** wordCost() precomputed for pieces shorter than WORD_TABLE_SIZE letters. */
const WORD_TABLE_SIZE = 64
const WORD_COST = new Float64Array(4 * WORD_TABLE_SIZE)
function wordTableIndex(letters: number, caps: boolean, spaced: boolean): number {
  return ((caps ? 2 : 0) + (spaced ? 1 : 0)) * WORD_TABLE_SIZE + letters
}
for (let letters = 0; letters < WORD_TABLE_SIZE; letters++) {
  for (const caps of [false, true]) {
    for (const spaced of [false, true]) WORD_COST[wordTableIndex(letters, caps, spaced)] = wordCost(letters, caps, spaced)
  }
}

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

const run = new Float64Array(1)
const COST = 0

/**
 * A letter piece as o200k splits it, [A-Z]*[a-z]+ or [A-Z]+, with accented
 * Latin letters and marks in it, or longer than the word-cost table. (Plain
 * ASCII pieces are scanned inline in estimateTextTokens.)
 */
function scanWord(text: string, i: number, n: number, spaced: boolean): number {
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
function scanWhitespace(text: string, i: number, n: number, k: number, prev: number): number {
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
function scanScript(text: string, i: number, n: number, k: number): number {
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

/** Set by scanPunct: the run was only + / = - _ characters (it can continue a blob). */
let runBlobPunct = false

/**
 * Punctuation and symbols: one pre-token (` ?[^\s\p{L}\p{N}]+`). BPE merges
 * short mixed stretches ("});", "=>") into one token; a long run of one
 * repeated character ("-----", "────") is its own token (or a few), and
 * breaks the merges around it ("|------|" is three tokens). `prev` is the class
 * of the code unit before the run. (Short runs of ASCII marks without such
 * repeats, the common case, are priced inline in estimateTextTokens.)
 */
function scanPunct(text: string, i: number, n: number, c: number, k: number, prev: number): number {
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
  runBlobPunct = allBlobPunct
  run[COST] = cost
  return j
}

/** Classes that make up punctuation runs. */
function isPunctClass(k: number): boolean {
  return k === PUNCT || k === BLOB_PUNCT || k === SYMBOL || k === CJK_PUNCT || k === ASTRAL
}

// ---------------------------------------------------------------------------
// Estimator
// ---------------------------------------------------------------------------

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
          inBlob = runBlobPunct
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
      inBlob = runBlobPunct
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

/** A letter piece after a space, a line break or an escaped \n, or at the very start, is priced as a word. */
function startsSpacedWord(prev: number): boolean {
  return prev === HSPACE || prev === NEWLINE || prev === START || prev === ESCAPE
}

/** Non-ASCII classes that continue an ASCII letter piece (see scanWord). */
function isWordTailClass(k: number): boolean {
  return k === LATIN_EXT || k === MARK
}

/** Classes a single space in front joins (so the space costs nothing). */
function isGluedAfterSpace(k: number): boolean {
  return k === LOWER || k === UPPER || k === PUNCT
}

/** n, t, r: the letters of the escapes that stand for whitespace. */
function isEscapeLetter(c: number): boolean {
  return c === 0x6e || c === 0x74 || c === 0x72
}

function isHexDigit(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66)
}

/** `\u` followed by four hex digits at text[i]. */
function isUnicodeEscape(text: string, i: number, n: number): boolean {
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
function hexGroups(text: string, from: number, to: number): number {
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
function randomBlobTokens(text: string, start: number, end: number, pieces: number): number {
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
