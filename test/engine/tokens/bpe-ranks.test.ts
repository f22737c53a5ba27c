/**
 * The BPE tables read from gpt-tokenizer's `.tiktoken` data files
 * (src/engine/tokens/bpe-ranks.ts) are the tables of its generated modules, entry for
 * entry, for both encodings the service counts with; counts through them are the same;
 * and malformed data is refused, not misread.
 */
import { createRequire } from 'node:module'
import t from 'tap'
import { parseTiktoken, readBpeRanks, type BpeRank } from '../../../src/engine/tokens/bpe-ranks.ts'
import { countTextTokens, ENCODING_NAMES } from '../../../src/engine/tokens/tokenizer.ts'

const require = createRequire(import.meta.url)

function moduleRanks(encoding: string): BpeRank[] {
  const mod = require(`gpt-tokenizer/cjs/bpeRanks/${encoding}`) as { default?: BpeRank[] } | BpeRank[]
  return Array.isArray(mod) ? mod : mod.default!
}

for (const encoding of ENCODING_NAMES) {
  t.test(`${encoding}: the data file's tables are the module's`, async (t) => {
    const fromData = readBpeRanks(encoding)
    t.ok(fromData, 'the installed package ships the data file')
    const fromModule = moduleRanks(encoding)
    t.equal(fromData!.length, fromModule.length, 'as many ranks')
    let strings = 0
    const differing: number[] = []
    for (let rank = 0; rank < fromModule.length; rank++) {
      const a = fromModule[rank]
      const b = fromData![rank]
      if (typeof a === 'string') strings++
      const same = typeof a === 'string' ? a === b : Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => x === b[i])
      if (!same) differing.push(rank)
    }
    t.same(differing.slice(0, 5), [], 'every rank the same string or bytes')
    t.ok(strings > fromModule.length * 0.9 && strings < fromModule.length, 'most tokens are strings, some are bytes (both kinds compared)')
  })
}

t.test('counts through the data-file tables are the package module\'s counts', async (t) => {
  const text = 'Fix `ValueError: invalid literal` in src/parse_rank.py — café, naïve, 日本語, ﻿BOM-led text, emoji 🧪, 1234567 and\n\n  indented code();'
  for (const encoding of ENCODING_NAMES) {
    const module = require(`gpt-tokenizer/cjs/encoding/${encoding}`) as { countTokens(s: string, o?: unknown): number }
    t.equal(countTextTokens(text, encoding), module.countTokens(text, { disallowedSpecial: new Set() }), encoding)
  }
})

t.test('an install without the data file: undefined, and the tokenizer takes the package module', async (t) => {
  t.equal(readBpeRanks('no_such_base'), undefined)
})

t.test('malformed data is refused with where it is', async (t) => {
  t.same(parseTiktoken(Buffer.from('IQ== 0\nIg== 1\n')), ['!', '"'])
  t.same(parseTiktoken(Buffer.from('77u/ 0\n')), [[0xef, 0xbb, 0xbf]], 'a token that is a byte-order mark stays bytes')
  t.same(parseTiktoken(Buffer.from('/w== 0\n')), [[0xff]], 'invalid UTF-8 stays bytes')
  t.throws(() => parseTiktoken(Buffer.from('IQ==\n')), /without a rank at byte 0/)
  t.throws(() => parseTiktoken(Buffer.from('IQ== 1x\n')), /not a number at byte 6/)
  t.throws(() => parseTiktoken(Buffer.from('I*== 0\n')), /not base64 at byte 1/)
  t.throws(() => parseTiktoken(Buffer.from(`${Buffer.alloc(1100, 65).toString('base64')} 0\n`)), /a token over 1024 bytes/)
})
