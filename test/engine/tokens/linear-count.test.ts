/**
 * Issue 18: no input makes token counting superlinear. Text is counted in pieces
 * (countedPieces): around every run longer than MAX_RUN_CHARS of one character class,
 * which the encoders' split patterns would hand to the quadratic byte-pair merge whole.
 *
 * - Work: every piece the encoder's own split pattern makes of what we pass it is at most
 *   MAX_RUN_CHARS + 1 characters (its pattern may take one leading character), so the
 *   merge costs at most (MAX_RUN_CHARS + 1)² per piece and the count is linear. This is
 *   checked on the piece lengths, which no machine's load can change.
 * - Time: the time per character on 60,000-character pathological inputs is at most twice
 *   that at 15,000 (the quadratic merge made it 4: 'A'×50k took 6.5 s, 130 µs/char).
 * - Error: within MAX_CUT_ERROR_TOKENS per cut of the exact tokenizer (js-tiktoken, an
 *   independent implementation) on inputs where the exact one finishes.
 */
import t from 'tap'
import fc from 'fast-check'
import { Tiktoken } from 'js-tiktoken/lite'
import o200kRanks from 'js-tiktoken/ranks/o200k_base'
import cl100kRanks from 'js-tiktoken/ranks/cl100k_base'
// The encoders' own split patterns, from the library we count with.
import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants'
import { countedPieces, countTextTokens, longRuns, MAX_CUT_ERROR_TOKENS, MAX_RUN_CHARS, type EncodingName } from '../../../src/engine/tokens/tokenizer.ts'
import { estimateTextTokens } from '../../../src/engine/tokens/heuristic.ts'

const ENCODINGS: EncodingName[] = ['o200k_base', 'cl100k_base']
const SPLIT: Record<EncodingName, RegExp> = { o200k_base: O200K_TOKEN_SPLIT_REGEX, cl100k_base: CL100K_TOKEN_SPLIT_REGEX }
const reference: Record<EncodingName, Tiktoken> = { o200k_base: new Tiktoken(o200kRanks), cl100k_base: new Tiktoken(cl100kRanks) }
const exact = (text: string, encoding: EncodingName): number => reference[encoding].encode(text, [], []).length

const chars = (alphabet: string) => fc.constantFrom(...Array.from(alphabet))
const run = (alphabet: string, min: number, max: number) => fc.string({ unit: chars(alphabet), minLength: min, maxLength: max })
const repeatOf = (unit: string, min: number, max: number) => fc.integer({ min, max }).map((n) => unit.repeat(n))

/** Pathological pieces: runs of one class, base64, hex, digits, CJK, emoji, nested JSON as text. */
function pathological(maxRun: number) {
  return fc.oneof(
    repeatOf('A', 1, maxRun),
    run('abcdefghijklmnopqrstuvwxyz', 1, maxRun),
    run('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/', 1, maxRun), // base64
    fc.uint8Array({ minLength: 1, maxLength: maxRun }).map((b) => Buffer.from(b).toString('hex')),
    fc.integer({ min: 1, max: maxRun }).map((n) => Buffer.alloc(n).toString('base64')), // a zero-filled binary
    run('0123456789', 1, maxRun),
    run('ACGT', 1, maxRun), // DNA
    run('的一是不了人我在有他这为之大来以个中上们到说国和地也子时道出而要于就下得可你年生', 1, maxRun), // CJK without spaces
    run('😀🎉👍🏽‍👩‍💻🇫🇷', 1, Math.ceil(maxRun / 2)), // emoji sequences (surrogate pairs, ZWJ)
    run('=-*#+~!?.,;:|<>{}[]()', 1, maxRun),
    run(' \t', 1, maxRun),
    run('\n\r ', 1, maxRun),
    fc.integer({ min: 1, max: Math.ceil(maxRun / 8) }).map((depth) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)), // nested JSON as text
    fc.string({ minLength: 0, maxLength: 40 }), // ordinary text between runs
  )
}
const text = (maxRun: number, maxParts: number) => fc.array(pathological(maxRun), { minLength: 1, maxLength: maxParts }).map((parts) => parts.join(''))

t.test('every piece the encoder merges is at most MAX_RUN_CHARS + 1 characters', async (t) => {
  fc.assert(
    fc.property(text(3000, 6), (s) => {
      const pieces = countedPieces(s)
      if (pieces.join('') !== s) return false
      for (const encoding of ENCODINGS) {
        for (const piece of pieces) {
          for (const [chunk] of piece.matchAll(SPLIT[encoding])) if (chunk.length > MAX_RUN_CHARS + 1) return false
        }
      }
      return true
    }),
    { numRuns: 300 },
  )
  t.pass('300 generated inputs: pieces rejoin to the input and no encoder chunk exceeds the bound')
})

t.test('counts stay within MAX_CUT_ERROR_TOKENS per cut of the exact tokenizer', async (t) => {
  for (const encoding of ENCODINGS) {
    fc.assert(
      fc.property(text(1200, 4), (s) => {
        const cuts = countedPieces(s).length - 1
        const error = Math.abs(countTextTokens(s, encoding) - exact(s, encoding))
        return error <= cuts * MAX_CUT_ERROR_TOKENS
      }),
      { numRuns: 150 },
    )
  }
  t.pass('150 generated inputs per encoding')
})

t.test('text without a long run is counted whole, and exactly', async (t) => {
  const prose = 'The quick brown fox jumps over the lazy dog; then it runs `npm test` and reads src/app.ts:12. '.repeat(200)
  t.same(countedPieces(prose), [prose])
  for (const encoding of ENCODINGS) t.equal(countTextTokens(prose, encoding), exact(prose, encoding))
  t.same(longRuns('x'.repeat(MAX_RUN_CHARS)), [], 'a run of exactly MAX_RUN_CHARS is not long')
  t.same(longRuns(`ab ${'x'.repeat(MAX_RUN_CHARS + 1)} cd`), [3, 3 + MAX_RUN_CHARS + 1])
  t.same(longRuns(`${'1'.repeat(5000)}`), [], 'digits are cut at 3 by the encoders already')
})

t.test('a cut never splits a surrogate pair', async (t) => {
  const emoji = '😀'.repeat(1000) // 2000 UTF-16 units, one class
  for (const piece of countedPieces('x' + emoji)) t.notOk(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/.test(piece), 'no lone half at a piece edge')
})

// Linear means the time per character does not grow with the input: each case is timed at
// SIZE and at a sixteenth of it, and the ratio of the two per-character times is checked (a
// ratio within one run, so a slow or loaded machine slows both alike). The quadratic merge
// grows the time per character with the run's length: about 3× from 15,000 to 60,000
// characters, far more over sixteen times the length; a linear count keeps it near 1. The
// bound leaves room for what a loaded CI machine does to one timing: at a quarter and 2×,
// a linear count once measured 2.6× there (punctuation, o200k_base). Absolute figures on
// a quiet machine: docs/benchmarks.md.
const MAX_GROWTH = 5
const SIZE = 60_000
const SMALL = SIZE / 16

t.test(`time per character at ${SIZE} characters is at most ${MAX_GROWTH}× that at a sixteenth of it, on pathological inputs`, async (t) => {
  // Seeded random runs: the encoder remembers merges of pieces it has seen, so repeating
  // input would measure its cache, not its merge. Each size is timed on ATTEMPTS inputs
  // drawn afresh and the fastest counts: a burst of other work on a shared machine slows
  // one attempt, while a quadratic merge is slow on every one.
  const ATTEMPTS = 4
  let seed = 18
  const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32)
  const randomRun = (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet[Math.floor(random() * alphabet.length)]).join('')
  // Runs of one character differ per attempt too (another letter, another fill byte), so no
  // attempt reads the encoder's cache of the one before.
  const cases: Record<string, (k: number, n: number) => string> = {
    'A run': (k, n) => 'ABCDEFGH'[k]!.repeat(n),
    'zero-filled base64': (k, n) => Buffer.alloc((n * 3) / 4, k).toString('base64'),
    'lowercase letters': (_k, n) => randomRun('abcdefghijklmnopqrstuvwxyz', n),
    'DNA': (_k, n) => randomRun('ACGT', n),
    'CJK without spaces': (_k, n) => randomRun('的一是不了人我在有他这为之大来以个中上们到说国和地也子时道出而要于', n),
    'punctuation': (_k, n) => randomRun('=-*#+~!?.,;:|<>', n),
    whitespace: (_k, n) => randomRun(' \t', n) + 'x',
  }
  countTextTokens('warm up the encodings', 'o200k_base')
  countTextTokens('warm up the encodings', 'cl100k_base')
  const fastest = (make: (k: number, n: number) => string, n: number, first: number, count: (s: string) => unknown) => {
    let best = Infinity
    for (let k = 0; k < ATTEMPTS; k++) {
      const input = make(first + k, n)
      const started = performance.now()
      count(input)
      best = Math.min(best, ((performance.now() - started) * 1000) / input.length)
    }
    return best
  }
  const counters: [string, (s: string) => unknown][] = [...ENCODINGS.map((e): [string, (s: string) => unknown] => [e, (s) => countTextTokens(s, e)]), ['heuristic', estimateTextTokens]]
  for (const [label, make] of Object.entries(cases)) {
    for (const [name, count] of counters) {
      const small = fastest(make, SMALL, 0, count)
      const large = fastest(make, SIZE, ATTEMPTS, count)
      // Under a microsecond per character (3,750 characters in under 4 ms: cached pieces, the
      // heuristic) the timer's resolution and the collector are the measurement: such a count
      // passes unless the large input takes over MAX_GROWTH µs per character.
      const growth = large / Math.max(small, 1)
      t.ok(growth <= MAX_GROWTH, `${label} (${name}): ${large.toFixed(2)} µs/char at ${SIZE}, ${small.toFixed(2)} at ${SMALL}: ×${growth.toFixed(2)}`)
    }
  }
})

