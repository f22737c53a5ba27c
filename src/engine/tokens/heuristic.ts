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
 *   a single punctuation character glued in front (".name", "(x") is cheap.
 * - Digits: ceil(n / 3) tokens per run, plus one for a space in front.
 * - Punctuation runs: one token for up to 3 characters, more for longer runs.
 * - Whitespace: a line break (or run of them) is one token, indentation one more.
 * - CJK (Han, kana, Hangul) and other scripts: a per-character rate per script.
 * - Emoji and other astral characters: one token per UTF-16 code unit.
 * - Random-looking blobs (base64, hex: long unbroken runs of letters, digits and
 *   + / = - _ with many pre-token boundaries): priced per character at the rate
 *   measured for random base64/hex, since BPE finds almost no merges in them.
 *
 * No regular expression is used, so the cost is strictly linear in the input.
 * Constants were calibrated against o200k_base with test/eval/token-accuracy.ts
 * (see docs/tokens.md for the measured table).
 */

// ---------------------------------------------------------------------------
// Calibration constants
// ---------------------------------------------------------------------------

/** ASCII words up to this many letters are (almost always) a single o200k token. */
const WORD_FREE_LETTERS = 6
/** Extra tokens per letter beyond WORD_FREE_LETTERS: long/rare words split into pieces. */
const WORD_EXTRA_PER_LETTER = 0.06
/** Words longer than this are usually rare or compound and split faster. */
const WORD_LONG_LETTERS = 12
/** Additional tokens per letter beyond WORD_LONG_LETTERS. */
const WORD_LONG_EXTRA_PER_LETTER = 0.2
/** All-caps pieces (HTTP, TODO, ERROR) have fewer merges than lower-case words. */
const CAPS_EXTRA_PER_LETTER = 0.15
/** A lone punctuation mark glued to the next word ("(x", ".name", "_id") is often merged into it. */
const PREFIX_PUNCT_COST = 0.25

/** o200k splits digit runs into groups of up to this many digits. */
const DIGITS_PER_TOKEN = 3

/** Punctuation runs up to this length ("});", "==", "->") are usually one token. */
const PUNCT_FREE_CHARS = 3
/** Extra tokens per punctuation char beyond PUNCT_FREE_CHARS. */
const PUNCT_EXTRA_PER_CHAR = 0.5
/** Runs of one repeated character ("=====", "-----") merge into long tokens. */
const REPEAT_CHARS_PER_TOKEN = 16

/** A line break right after punctuation ("{\n", ");\n") is usually merged into it. */
const NEWLINE_AFTER_PUNCT_COST = 0.3

/** Han characters: measured ~0.70-0.74 tokens/char in o200k. */
const HAN_PER_CHAR = 0.76
/** Hiragana/katakana: measured ~0.73-0.80 tokens/char. */
const KANA_PER_CHAR = 0.8
/** Hangul syllables: measured ~0.63 tokens/char plus ~0.4 per space-separated word. */
const HANGUL_PER_CHAR = 0.66
const HANGUL_PER_RUN = 0.45
/** Cyrillic: ~0.16-0.24 tokens/char plus ~0.5 per word. */
const CYRILLIC_PER_CHAR = 0.22
const CYRILLIC_PER_RUN = 0.6
/** Greek: ~0.47 tokens/char. */
const GREEK_PER_CHAR = 0.5
/** Arabic and Hebrew: ~0.25 tokens/char plus ~0.3 per word. */
const ARABIC_PER_CHAR = 0.28
const ARABIC_PER_RUN = 0.35
/** Devanagari and other Indic / Southeast-Asian scripts: ~0.45 tokens/char. */
const INDIC_PER_CHAR = 0.5
/** Accented Latin letters inside words usually break the word's merges. */
const LATIN_EXT_PER_CHAR = 0.8
/** Letters of scripts not listed above. */
const OTHER_LETTER_PER_CHAR = 0.6
/** CJK and fullwidth punctuation: about one token each. */
const CJK_PUNCT_PER_CHAR = 1.0
/** Other non-ASCII symbols (box drawing, arrows, dashes, quotes): about one token each. */
const SYMBOL_PER_CHAR = 0.9
/** Astral characters (emoji) are 2 code units and usually 1-3 tokens; ZWJ sequences more. */
const ASTRAL_PER_CODE_UNIT = 1.0

/** Unbroken letter/digit runs shorter than this are priced word by word. */
const BLOB_MIN_CHARS = 16
/** Pre-token boundaries per char above which a run looks random (English words: ~0.15; base64/hex: ~0.45). */
const BLOB_MIN_PIECES_PER_CHAR = 0.3
/** Random base64: o200k measured ~1.47 chars/token. */
const BASE64_TOKENS_PER_CHAR = 1 / 1.45
/** Random hex: o200k measured ~1.74 chars/token. */
const HEX_TOKENS_PER_CHAR = 1 / 1.7

/**
 * Multiplier applied to the estimate for models whose tokenizer is not o200k
 * (Anthropic, Google, DeepSeek...). See docs/tokens.md for the rationale.
 */
export const HEURISTIC_SAFETY_MARGIN = 1.2

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
const CJK_PUNCT = 20
const SYMBOL = 21
const ASTRAL = 22

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

function classOf(c: number): number {
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
  if (c >= 0x0590 && c <= 0x08ff) return ARABIC // Hebrew, Arabic, Syriac, Thaana
  if (c >= 0x0900 && c <= 0x0eff) return INDIC // Indic scripts, Thai, Lao
  if ((c >= 0x1100 && c <= 0x11ff) || (c >= 0x3130 && c <= 0x318f)) return HANGUL
  if ((c >= 0x3400 && c <= 0x4dbf) || (c >= 0xf900 && c <= 0xfaff)) return HAN
  if (c >= 0x1e00 && c <= 0x1fff) return LATIN_EXT // Latin Extended Additional, Greek Extended
  if (c >= 0x2000 && c <= 0x200a) return HSPACE
  if (c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f) return HSPACE
  if (c >= 0x2000 && c <= 0x2bff) return SYMBOL // punctuation, arrows, math, box drawing, dingbats
  if (c >= 0xfe00 && c <= 0xfe0f) return MARK // variation selectors
  if (c >= 0xe000 && c <= 0xf8ff) return SYMBOL // private use
  if (c >= 0xfe10 && c <= 0xfe6f) return CJK_PUNCT // vertical and small forms
  if (c === 0xfeff || c === 0xfffd) return SYMBOL
  return OTHER_LETTER
}

/** Non-ASCII classes that are letters (\p{L} / \p{M}) for the pre-tokenizer. */
function isNonAsciiLetter(k: number): boolean {
  return k >= HAN && k <= MARK
}

function perCharRate(k: number): number {
  switch (k) {
    case HAN: return HAN_PER_CHAR
    case KANA: return KANA_PER_CHAR
    case HANGUL: return HANGUL_PER_CHAR
    case CYRILLIC: return CYRILLIC_PER_CHAR
    case GREEK: return GREEK_PER_CHAR
    case ARABIC: return ARABIC_PER_CHAR
    case INDIC: return INDIC_PER_CHAR
    case LATIN_EXT: return LATIN_EXT_PER_CHAR
    case MARK: return 0
    default: return OTHER_LETTER_PER_CHAR
  }
}

function perRunCost(k: number): number {
  switch (k) {
    case HANGUL: return HANGUL_PER_RUN
    case CYRILLIC: return CYRILLIC_PER_RUN
    case ARABIC: return ARABIC_PER_RUN
    default: return 0
  }
}

function isLetterClass(k: number): boolean {
  return k === LOWER || k === UPPER || (k >= HAN && k <= MARK)
}

function wordCost(letters: number, caps: boolean): number {
  let cost = 1
  if (letters > WORD_FREE_LETTERS) cost += (letters - WORD_FREE_LETTERS) * WORD_EXTRA_PER_LETTER
  if (letters > WORD_LONG_LETTERS) cost += (letters - WORD_LONG_LETTERS) * WORD_LONG_EXTRA_PER_LETTER
  if (caps && letters > 2) cost += (letters - 2) * CAPS_EXTRA_PER_LETTER
  return cost
}

// ---------------------------------------------------------------------------
// Estimator
// ---------------------------------------------------------------------------

/** Estimated o200k_base token count of `text` (not multiplied by any margin). */
export function estimateTextTokens(text: string): number {
  const n = text.length
  if (n === 0) return 0

  let tokens = 0
  // Current alphanumeric blob (letters, digits, + / = - _ without breaks).
  let blobStart = -1
  let blobCost = 0
  let blobPieces = 0
  let blobDigits = 0
  let blobLetters = 0
  let blobHexOnly = true

  let i = 0
  while (i < n) {
    const c = text.charCodeAt(i)
    const k = classOf(c)
    let cost = 0
    let j = i + 1
    // Blob bookkeeping for this run.
    let inBlob = false
    let runDigits = 0
    let runLetters = 0
    let runHex = true

    if (k === LOWER || k === UPPER) {
      // One o200k letter piece: [A-Z]*[a-z]+ or [A-Z]+ (splits at lower→Upper).
      j = i
      let cj = c
      while (cj >= 0x41 && cj <= 0x5a) {
        if (cj > 0x46) runHex = false
        cj = ++j < n ? text.charCodeAt(j) : 0
      }
      const upper = j - i
      while (cj >= 0x61 && cj <= 0x7a) {
        if (cj > 0x66) runHex = false
        cj = ++j < n ? text.charCodeAt(j) : 0
      }
      runLetters = j - i
      cost = wordCost(runLetters, upper === runLetters)
      inBlob = true
    } else if (k === DIGIT) {
      let cj = j < n ? text.charCodeAt(j) : 0
      while (cj >= 0x30 && cj <= 0x39) cj = ++j < n ? text.charCodeAt(j) : 0
      runDigits = j - i
      cost = Math.ceil(runDigits / DIGITS_PER_TOKEN)
      inBlob = true
    } else if (k === HSPACE || k === NEWLINE) {
      let hasNewline = k === NEWLINE
      let trailing = k === HSPACE ? 1 : 0
      let spaceBeforeFirstNewline = k === HSPACE
      while (j < n) {
        const kk = classOf(text.charCodeAt(j))
        if (kk === NEWLINE) {
          hasNewline = true
          trailing = 0
        } else if (kk === HSPACE) {
          if (!hasNewline) spaceBeforeFirstNewline = true
          trailing++
        } else break
        j++
      }
      if (hasNewline) {
        // A newline straight after punctuation joins the punctuation's pre-token.
        const prev = i > 0 ? classOf(text.charCodeAt(i - 1)) : 0
        const afterPunct = !spaceBeforeFirstNewline && (prev === PUNCT || prev === BLOB_PUNCT)
        cost += afterPunct ? NEWLINE_AFTER_PUNCT_COST : 1
      }
      if (trailing > 0) {
        if (j >= n) cost += 1
        else {
          const next = classOf(text.charCodeAt(j))
          if (next === DIGIT) cost += trailing >= 2 ? 2 : 1
          else if (trailing >= 2) cost += 1
        }
      }
    } else if (isNonAsciiLetter(k)) {
      // A run of non-ASCII letters; marks join the run.
      let perChar = perCharRate(k)
      let prevK = k
      cost = perRunCost(k) + perChar
      while (j < n) {
        const cj = text.charCodeAt(j)
        if (cj < 0x80) break
        const kk = classOf(cj)
        if (kk === MARK) {
          j++
          continue
        }
        if (!isNonAsciiLetter(kk)) break
        if (kk !== prevK) {
          perChar = perCharRate(kk)
          cost += perRunCost(kk)
          prevK = kk
        }
        cost += perChar
        j++
      }
    } else {
      // Punctuation and symbols: one pre-token (` ?[^\s\p{L}\p{N}]+`).
      let allBlobPunct = k === BLOB_PUNCT
      let ascii = c < 0x80 ? 1 : 0
      let symbols = k === SYMBOL ? 1 : 0
      let cjk = k === CJK_PUNCT ? 1 : 0
      let astral = k === ASTRAL ? 1 : 0
      let repeated = true
      while (j < n) {
        const cj = text.charCodeAt(j)
        const kk = classOf(cj)
        if (kk === PUNCT || kk === BLOB_PUNCT) ascii++
        else if (kk === SYMBOL) symbols++
        else if (kk === CJK_PUNCT) cjk++
        else if (kk === ASTRAL) astral++
        else break
        if (kk !== BLOB_PUNCT) allBlobPunct = false
        if (cj !== c) repeated = false
        j++
      }
      const len = j - i
      const nextIsLetter = j < n && isLetterClass(classOf(text.charCodeAt(j)))
      if (len === 1 && ascii === 1 && nextIsLetter) {
        cost = PREFIX_PUNCT_COST
      } else if (repeated && ascii === len && len > PUNCT_FREE_CHARS) {
        cost = Math.ceil(len / REPEAT_CHARS_PER_TOKEN)
      } else {
        cost = ascii > 0 ? 1 + Math.max(0, ascii - PUNCT_FREE_CHARS) * PUNCT_EXTRA_PER_CHAR : 0
        cost += symbols * SYMBOL_PER_CHAR + cjk * CJK_PUNCT_PER_CHAR + astral * ASTRAL_PER_CODE_UNIT
      }
      inBlob = allBlobPunct
      runHex = allBlobPunct && len === 1 && c === 0x2d // only '-' (UUIDs) keeps a blob hex
    }

    if (inBlob) {
      if (blobStart < 0) {
        blobStart = i
        blobCost = 0
        blobPieces = 0
        blobDigits = 0
        blobLetters = 0
        blobHexOnly = true
      }
      blobCost += cost
      blobPieces++
      blobDigits += runDigits
      blobLetters += runLetters
      if (!runHex) blobHexOnly = false
    } else {
      if (blobStart >= 0) {
        tokens += blobTokens(i - blobStart, blobCost, blobPieces, blobDigits, blobLetters, blobHexOnly)
        blobStart = -1
      }
      tokens += cost
    }
    i = j
  }
  if (blobStart >= 0) tokens += blobTokens(n - blobStart, blobCost, blobPieces, blobDigits, blobLetters, blobHexOnly)
  return Math.ceil(tokens)
}

function blobTokens(len: number, cost: number, pieces: number, digits: number, letters: number, hexOnly: boolean): number {
  if (len < BLOB_MIN_CHARS || digits === 0 || letters === 0 || pieces < len * BLOB_MIN_PIECES_PER_CHAR) return cost
  const random = len * (hexOnly ? HEX_TOKENS_PER_CHAR : BASE64_TOKENS_PER_CHAR)
  return random > cost ? random : cost
}
