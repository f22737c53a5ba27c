/**
 * The heuristic's calibration: what each kind of piece costs, measured against o200k_base
 * with test/eval/token-accuracy.ts (docs/tokens.md has the table). Changing any of these
 * moves counts: bump HEURISTIC_VERSION with it.
 */
/** Space-separated ASCII words up to this many letters are (almost always) a single o200k token. */
export const WORD_FREE_LETTERS = 6
/** Extra tokens per letter beyond WORD_FREE_LETTERS: long/rare words split into pieces. */
export const WORD_EXTRA_PER_LETTER = 0.06
/** Words longer than this are usually rare or compound and split faster. */
export const WORD_LONG_LETTERS = 12
/** Additional tokens per letter beyond WORD_LONG_LETTERS. */
export const WORD_LONG_EXTRA_PER_LETTER = 0.2
/** Pieces not preceded by a space (identifiers, path parts, "x.y") are rarer in the vocabulary. */
export const IDENT_FREE_LETTERS = 5
/** Extra tokens per letter beyond IDENT_FREE_LETTERS for such pieces. */
export const IDENT_EXTRA_PER_LETTER = 0.15
/** All-caps pieces (HTTP, TODO, ERROR) have fewer merges than lower-case words. */
export const CAPS_EXTRA_PER_LETTER = 0.15
/**
 * A lone punctuation mark glued to the next word is part of the word's
 * pre-token. Measured extra tokens: "_" 0.04, "." 0.05, "(" 0.09, "-" 0.28,
 * "/" 0.44 (and path parts after it are rarer words), others 0.4-1.0.
 */
export const PREFIX_CHEAP_COST = 0.1 // _ . ( @ [
export const PREFIX_DASH_COST = 0.35 // -
export const PREFIX_SLASH_COST = 0.6 // /
export const PREFIX_OTHER_COST = 0.7 // = < : " + | # ...

/** o200k splits digit runs into groups of up to this many digits. */
export const DIGITS_PER_TOKEN = 3

/** Punctuation runs up to this length ("});", "==", "->") are usually one token. */
export const PUNCT_FREE_CHARS = 3
/** Extra tokens per punctuation char beyond PUNCT_FREE_CHARS. */
export const PUNCT_EXTRA_PER_CHAR = 0.6
/** Runs of one repeated ASCII character ("=====", "-----") merge into long tokens (measured ~64 chars/token). */
export const REPEAT_ASCII_CHARS_PER_TOKEN = 32
/** Repeated box-drawing or other symbols ("────", "════") merge less: measured 8-16 chars/token. */
export const REPEAT_SYMBOL_CHARS_PER_TOKEN = 8
/** Marks next to such runs ("|:" and ":|" in "|:-----:|") rarely merge: about one token per char. */
export const MIXED_NEAR_REPEAT_PER_CHAR = 0.9
/** A repeated character counts as a run from this length on. */
export const REPEAT_MIN_CHARS = 4
/** Long runs of spaces: o200k has space tokens up to ~80 wide; 64 keeps the estimate conservative. */
export const SPACES_PER_TOKEN = 64

/**
 * A JSON/JS escape like \ub9ac (common for non-ASCII text in tool arguments) is
 * split like any letter/digit mix: one token for "\u", one per letter or digit
 * group of the four hex digits. Measured 3.4 tokens on average.
 */
export const UNICODE_ESCAPE_BASE_TOKENS = 1

/** An escaped \n, \t or \r inside JSON-encoded text (tool arguments): the pair is about one token. */
export const ESCAPE_TOKENS = 1.1

/** Runs of blank lines: o200k has newline tokens up to 16 wide. */
export const NEWLINES_PER_TOKEN = 16

/** A line break right after punctuation ("{\n", ");\n") is usually merged into it. */
export const NEWLINE_AFTER_PUNCT_COST = 0.3

/** Han characters: measured ~0.70-0.74 tokens/char in o200k. */
export const HAN_PER_CHAR = 0.75
/** Hiragana/katakana: measured ~0.73-0.80 tokens/char. */
export const KANA_PER_CHAR = 0.78
/** Hangul syllables: measured ~0.63 tokens/char plus ~0.4 per space-separated word. */
export const HANGUL_PER_CHAR = 0.63
export const HANGUL_PER_RUN = 0.4
/** Cyrillic: ~0.16 tokens/char plus ~0.55 per word. */
export const CYRILLIC_PER_CHAR = 0.18
export const CYRILLIC_PER_RUN = 0.55
/** Greek: ~0.35-0.47 tokens/char. */
export const GREEK_PER_CHAR = 0.42
/** Arabic and Hebrew: ~0.25 tokens/char plus ~0.3 per word. */
export const ARABIC_PER_CHAR = 0.28
export const ARABIC_PER_RUN = 0.35
/** Hebrew: ~0.4 tokens/char plus the Arabic per-word cost. */
export const HEBREW_PER_CHAR = 0.42
/** Devanagari and other Indic / Southeast-Asian scripts: ~0.4-0.45 tokens/char. */
export const INDIC_PER_CHAR = 0.45
/** Accented Latin letters are part of the word; common ones (é, ü, ß) merge, rarer ones (ł, ø) split it. */
export const LATIN_EXT_PER_CHAR = 0.35
/** Combining marks (decomposed accents) rarely merge: about one token each. */
export const MARK_PER_CHAR = 1.0
/** Stacked combining marks ("Zalgo" text) are split to bytes: measured ~2 tokens each. */
export const STACKED_MARK_PER_CHAR = 2.0
/** Letters of scripts not listed above. */
export const OTHER_LETTER_PER_CHAR = 0.6
/** CJK and fullwidth punctuation: about one token each. */
export const CJK_PUNCT_PER_CHAR = 1.0
/** Other non-ASCII symbols (box drawing, arrows, dashes, quotes): measured 1.0-1.1 tokens each. */
export const SYMBOL_PER_CHAR = 1.0
/** Astral characters (emoji) are 2 code units and usually 1-3 tokens; ZWJ sequences more. */
export const ASTRAL_PER_CODE_UNIT = 1.0

/** Unbroken letter/digit runs shorter than this are priced word by word. */
export const BLOB_MIN_CHARS = 16
/** Letter/digit pieces per char above which a run looks random (words, paths: < 0.2; base64/hex: ~0.45). */
export const BLOB_MIN_PIECES_PER_CHAR = 0.3
/** Random base64: o200k measured ~1.47 chars/token. */
export const BASE64_TOKENS_PER_CHAR = 1 / 1.45
/** Random hex: o200k measured ~1.74 chars/token. */
export const HEX_TOKENS_PER_CHAR = 1 / 1.7

/**
 * Final multiplier on the sum of piece costs. A vocabulary-free estimate cannot
 * see rare words (proper nouns, project and package names: "sqlfluff" is 3
 * tokens, "Kanban" 2), which made real agent transcripts come out 1-2% low.
 */
export const RARE_WORD_ALLOWANCE = 1.02

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
