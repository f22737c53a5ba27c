/**
 * The BPE tables of an encoding, read from the `.tiktoken` file gpt-tokenizer ships
 * (`gpt-tokenizer/data/<encoding>.tiktoken`: one `base64(token bytes) rank` per line,
 * OpenAI's own format) instead of from the package's generated JavaScript module.
 *
 * Why (issue 25): the module is a 2.4 MB array literal. Compiling it leaves its source,
 * bytecode and the literal's boilerplate behind, so a process that has loaded o200k holds
 * ~96 MB where the same tables built from the data file hold ~80 (tmp measurements in
 * docs/benchmarks.md, "The tokenizer's tables"). Every compute thread loads its own
 * copy, so the saving counts once per isolate.
 *
 * The array built here is the module's, entry for entry (test/engine/tokens/
 * bpe-ranks.test.ts compares both encodings in full): a token is a string when its bytes
 * are valid UTF-8 not starting with a byte-order mark (the package's generator lets
 * TextDecoder strip a BOM, so such tokens stay bytes there), otherwise its bytes.
 *
 * Reading a dependency's data file is loading it, as `require` loads a module: the
 * engine still does no I/O of its own.
 */
import { isUtf8 } from 'node:buffer'
import fs from 'node:fs'
import { createRequire } from 'node:module'

export type BpeRank = string | number[]

const requireLazy = createRequire(import.meta.url)

/** The longest token of the shipped encodings is 128 bytes; base64 of a line never decodes past this. */
const MAX_TOKEN_BYTES = 1024

const PADDING = -2
const BASE64_VALUE = (() => {
  const table = new Int8Array(256).fill(-1)
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
  for (let i = 0; i < alphabet.length; i++) table[alphabet.charCodeAt(i)] = i
  table['='.charCodeAt(0)] = PADDING
  return table
})()

/** Parses a `.tiktoken` file's bytes into the rank-indexed array gpt-tokenizer's encoder takes. */
export function parseTiktoken(data: Uint8Array): BpeRank[] {
  const buffer = Buffer.from(data.buffer, data.byteOffset, data.byteLength)
  const ranks: BpeRank[] = []
  const scratch = Buffer.alloc(MAX_TOKEN_BYTES)
  let start = 0
  while (start < buffer.length) {
    let end = buffer.indexOf(10, start)
    if (end < 0) end = buffer.length
    const space = buffer.indexOf(32, start)
    if (space < 0 || space > end) {
      if (end > start) throw new Error(`tiktoken data: a line without a rank at byte ${start}`)
      start = end + 1
      continue
    }
    let rank = 0
    for (let i = space + 1; i < end; i++) {
      const digit = buffer[i]! - 48
      if (digit < 0 || digit > 9) throw new Error(`tiktoken data: a rank that is not a number at byte ${i}`)
      rank = rank * 10 + digit
    }
    // Base64 decoded here, byte by byte, into one scratch buffer: a string or a Buffer per
    // line for 200,000 lines doubled the parse's time.
    let length = 0
    let bits = 0
    let accumulated = 0
    let high = 0
    for (let i = start; i < space; i++) {
      const value = BASE64_VALUE[buffer[i]!]!
      if (value === PADDING) continue
      if (value < 0) throw new Error(`tiktoken data: not base64 at byte ${i}`)
      accumulated = ((accumulated << 6) | value) & 0xffffff
      bits += 6
      if (bits >= 8) {
        bits -= 8
        const byte = (accumulated >> bits) & 0xff
        high |= byte
        if (length === scratch.length) throw new Error(`tiktoken data: a token over ${MAX_TOKEN_BYTES} bytes at byte ${start}`)
        scratch[length++] = byte
      }
    }
    if (high < 0x80) ranks[rank] = scratch.toString('latin1', 0, length) // ASCII: its own string
    else {
      const bytes = scratch.subarray(0, length)
      const bom = length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf
      ranks[rank] = !bom && isUtf8(bytes) ? bytes.toString('utf8') : [...bytes]
    }
    start = end + 1
  }
  return ranks
}

/** The encoding's tables from the package's data file, or undefined when the install has no such file. */
export function readBpeRanks(encoding: string): BpeRank[] | undefined {
  let file: string
  try {
    file = requireLazy.resolve(`gpt-tokenizer/data/${encoding}.tiktoken`)
  } catch {
    return undefined
  }
  return parseTiktoken(fs.readFileSync(file))
}
