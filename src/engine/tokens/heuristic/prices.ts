/**
 * Price tables built once from the calibration: per-character and per-run rates of the
 * non-ASCII scripts by class, the cost of a mark glued in front of a word, and word costs
 * by length, case and spacing (precomputed so the scan does one lookup per piece).
 */
import { ARABIC_PER_CHAR, ARABIC_PER_RUN, CAPS_EXTRA_PER_LETTER, CYRILLIC_PER_CHAR, CYRILLIC_PER_RUN, GREEK_PER_CHAR, HANGUL_PER_CHAR, HANGUL_PER_RUN, HAN_PER_CHAR, HEBREW_PER_CHAR, IDENT_EXTRA_PER_LETTER, IDENT_FREE_LETTERS, INDIC_PER_CHAR, KANA_PER_CHAR, LATIN_EXT_PER_CHAR, MARK_PER_CHAR, OTHER_LETTER_PER_CHAR, PREFIX_CHEAP_COST, PREFIX_DASH_COST, PREFIX_OTHER_COST, PREFIX_SLASH_COST, PUNCT_EXTRA_PER_CHAR, PUNCT_FREE_CHARS, WORD_EXTRA_PER_LETTER, WORD_FREE_LETTERS, WORD_LONG_EXTRA_PER_LETTER, WORD_LONG_LETTERS } from './calibration.ts'
import { ARABIC, CYRILLIC, GREEK, HAN, HANGUL, HEBREW, INDIC, KANA, LATIN_EXT, MARK } from './classes.ts'

/** Per-character cost of the non-ASCII letter classes (scanScript), by class. */
export const PER_CHAR_RATE = new Float64Array(256).fill(OTHER_LETTER_PER_CHAR)
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
export const PER_RUN_COST = new Float64Array(256)
PER_RUN_COST[HANGUL] = HANGUL_PER_RUN
PER_RUN_COST[CYRILLIC] = CYRILLIC_PER_RUN
PER_RUN_COST[ARABIC] = ARABIC_PER_RUN
PER_RUN_COST[HEBREW] = ARABIC_PER_RUN

/** Cost of a lone ASCII mark glued in front of a word, by character. */
export const PREFIX_COST = new Float64Array(128).fill(PREFIX_OTHER_COST)
for (const c of '_.(@[') PREFIX_COST[c.charCodeAt(0)] = PREFIX_CHEAP_COST
PREFIX_COST[0x2d] = PREFIX_DASH_COST // -
PREFIX_COST[0x2f] = PREFIX_SLASH_COST // /

export function mixedPunctCost(chars: number): number {
  if (chars === 0) return 0
  return chars <= PUNCT_FREE_CHARS ? 1 : 1 + (chars - PUNCT_FREE_CHARS) * PUNCT_EXTRA_PER_CHAR
}

export function wordCost(letters: number, caps: boolean, spaced: boolean): number {
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
export const WORD_TABLE_SIZE = 64
export const WORD_COST = new Float64Array(4 * WORD_TABLE_SIZE)
export function wordTableIndex(letters: number, caps: boolean, spaced: boolean): number {
  return ((caps ? 2 : 0) + (spaced ? 1 : 0)) * WORD_TABLE_SIZE + letters
}
for (let letters = 0; letters < WORD_TABLE_SIZE; letters++) {
  for (const caps of [false, true]) {
    for (const spaced of [false, true]) WORD_COST[wordTableIndex(letters, caps, spaced)] = wordCost(letters, caps, spaced)
  }
}
